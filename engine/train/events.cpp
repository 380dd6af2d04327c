#include "engine/train/events.h"

#include <exception>

#include "engine/core/error.h"

namespace netsmith {

std::unique_ptr<JsonLinesSink> JsonLinesSink::openFile(const std::string& path) {
  auto sink = std::make_unique<JsonLinesSink>(nullptr);
  sink->m_file = std::make_unique<LineAppender>(path);
  return sink;
}

JsonLinesSink::~JsonLinesSink() = default;

void JsonLinesSink::publish(const Json& event) {
  // Non-finite numbers are not JSON; dump() writes them as null, which readers must accept.
  const std::string line = event.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  if (!m_file) {
    // A stream whose reader went away (the console's pipe, Note [The run outlives its console])
    // takes nothing more; the run's own events.jsonl has every event.
    if (m_failed) return;
    m_failed = std::fwrite(line.data(), 1, line.size(), m_stream) != line.size() || std::fflush(m_stream) != 0;
    return;
  }
  if (m_failed) return;  // the failure was reported once; the run is ending
  try {
    m_file->append(line);
  } catch (const Error&) {
    m_failed = true;
    throw;
  }
}

void EventBus::deliver(const Json& event, std::vector<std::string>& gaveUp, std::exception_ptr& firstError) {
  for (EventSink* s : m_sinks) {
    try {
      s->publish(event);
    } catch (const SinkGaveUp& e) {
      gaveUp.emplace_back(e.what());
    } catch (const Error&) {
      if (!firstError) firstError = std::current_exception();
    }
  }
}

void EventBus::publish(const Json& event) {
  std::lock_guard lock(m_mutex);
  std::exception_ptr first;
  std::vector<std::string> gaveUp;
  deliver(event, gaveUp, first);
  // A sink gives up once, so the warnings' own delivery cannot give rise to more.
  for (const std::string& message : gaveUp) {
    std::vector<std::string> none;
    deliver(protocol::WarningEvent{message}.toJson(), none, first);
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace netsmith
