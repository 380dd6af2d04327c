#include "engine/tensorboard/event_file.h"

#include <unistd.h>

#include <chrono>
#include <cmath>

#include "engine/tensorboard/event_messages.h"
#include "engine/tensorboard/records.h"

namespace fs = std::filesystem;

namespace netsmith::tensorboard {
namespace {

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

fs::path newEventFilePath(const fs::path& dir, double wallTime) {
  const std::string base = "events.out.tfevents." + std::to_string(static_cast<long long>(std::floor(wallTime))) + "." +
                           hostName() + "." + std::to_string(::getpid());
  fs::path path = dir / base;
  for (int n = 2; fs::exists(path); ++n) path = dir / (base + "." + std::to_string(n));
  return path;
}

}  // namespace

double wallTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

EventFileWriter::EventFileWriter(const fs::path& dir, double wallTime)
    : m_file(std::make_unique<RecordAppender>(newEventFilePath(dir, wallTime))) {
  write(fileVersionEvent(wallTime));
}

void EventFileWriter::write(const std::string& event) { m_file->append(frameRecord(event)); }

}  // namespace netsmith::tensorboard
