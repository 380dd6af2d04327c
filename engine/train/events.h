// The events stream of DESIGN.md §7: one JSON object per line. The trainer builds the events as
// engine/protocol types (docs/events.md) and emits them to an EventBus; sinks write them to
// stdout, to the run's events.jsonl, or draw a progress bar (reading them back with the
// protocol's reader).
#pragma once

#include <concepts>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/protocol/events.h"

namespace netsmith {

using Json = nlohmann::json;

// Version of the events format; every `started` event carries it.
using protocol::kEventsFormatVersion;

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void publish(const Json& event) = 0;
};

// Thrown by a sink whose output the run can do without (the TensorBoard files,
// engine/train/tensorboard_sink.h) when it can no longer write: EventBus then publishes the
// message as a `warning` event to every sink and the run goes on; the sink writes nothing more.
// A sink that must not be lost (events.jsonl) throws Error instead, which fails the run.
class SinkGaveUp : public std::runtime_error {
 public:
  explicit SinkGaveUp(const std::string& message) : std::runtime_error(message) {}
};

// Writes each event as one line and flushes, so a reader (the GUI) sees it at once.
class JsonLinesSink final : public EventSink {
 public:
  explicit JsonLinesSink(std::FILE* stream) : m_stream(stream) {}
  // Opens (appending) a file, such as the run's events.jsonl: each event is appended whole and
  // checked (Note [Atomic files]); throws Error naming the file when it cannot be opened.
  static std::unique_ptr<JsonLinesSink> openFile(const std::string& path);
  ~JsonLinesSink() override;
  // For a file: throws Error naming it when the line cannot be appended (a full disk); the file
  // then ends with the last whole event, and this sink writes nothing more.
  void publish(const Json& event) override;

 private:
  std::FILE* m_stream = nullptr;
  std::unique_ptr<LineAppender> m_file;
  bool m_failed = false;
};

// Fans events out to sinks; publish() may be called from any thread (one at a time is enforced).
// Every sink gets the event; then every SinkGaveUp's message goes to every sink as a warning, and
// the first Error a sink threw is rethrown.
class EventBus {
 public:
  void add(EventSink* sink) {
    std::lock_guard lock(m_mutex);
    m_sinks.push_back(sink);
  }
  void remove(EventSink* sink) {
    std::lock_guard lock(m_mutex);
    std::erase(m_sinks, sink);
  }
  void publish(const Json& event);
  // An event of engine/protocol (StartedEvent, EpochEvent, ...), written by its one writer.
  template <typename Event>
    requires requires(const Event& e) { { e.toJson() } -> std::convertible_to<Json>; }
  void publish(const Event& event) {
    publish(event.toJson());
  }

 private:
  // Gives every sink `event`; collects the messages of sinks that gave up, keeps the first Error.
  void deliver(const Json& event, std::vector<std::string>& gaveUp, std::exception_ptr& firstError);

  std::mutex m_mutex;
  std::vector<EventSink*> m_sinks;
};

}  // namespace netsmith
