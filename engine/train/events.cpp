#include "engine/train/events.h"

#include <cerrno>
#include <cstring>

#include "engine/core/error.h"

namespace netsmith {

std::unique_ptr<JsonLinesSink> JsonLinesSink::openFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  NS_CHECK(f, "{}: cannot open the events file for writing: {}", path, std::strerror(errno));
  auto sink = std::make_unique<JsonLinesSink>(f);
  sink->m_owned = true;
  return sink;
}

JsonLinesSink::~JsonLinesSink() {
  if (m_owned) std::fclose(m_stream);
}

void JsonLinesSink::publish(const Json& event) {
  // Non-finite numbers are not JSON; dump() writes them as null, which readers must accept.
  const std::string line = event.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), m_stream);
  std::fflush(m_stream);
}

void EventBus::publish(const Json& event) {
  std::lock_guard lock(m_mutex);
  for (EventSink* s : m_sinks) s->publish(event);
}

}  // namespace netsmith
