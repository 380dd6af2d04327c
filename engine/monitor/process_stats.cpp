#include "engine/monitor/process_stats.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace netsmith {

namespace {

double clockSeconds(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return -1.0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// utime + stime of a /proc/<...>/stat line, in seconds; -1 if unreadable. The command name (field 2)
// is in parentheses and may itself hold spaces and ')', so fields are counted after the last ')'.
double statCpuSeconds(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) return -1.0;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1.0;
  std::istringstream fields(line.substr(close + 1));
  // After the name come state (field 3) ... utime (field 14) and stime (field 15).
  std::string skip;
  for (int field = 3; field <= 13; ++field) fields >> skip;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  if (!(fields >> utime >> stime)) return -1.0;
  const long ticks = sysconf(_SC_CLK_TCK);
  return static_cast<double>(utime + stime) / static_cast<double>(ticks > 0 ? ticks : 100);
}

}  // namespace

double processResidentMb() {
  std::ifstream statm("/proc/self/statm");
  unsigned long long sizePages = 0;
  unsigned long long residentPages = 0;
  if (!(statm >> sizePages >> residentPages)) return 0.0;
  const long pageSize = sysconf(_SC_PAGESIZE);
  return static_cast<double>(residentPages) * static_cast<double>(pageSize > 0 ? pageSize : 4096) /
         (1024.0 * 1024.0);
}

namespace {
// "Key:   1234 kB" of a /proc file, in bytes.
int64_t kilobyteField(const char* path, const std::string& key) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line))
    if (line.compare(0, key.size(), key) == 0) return std::atoll(line.c_str() + key.size()) * 1024;
  return 0;
}
}  // namespace

int64_t processPeakResidentBytes() { return kilobyteField("/proc/self/status", "VmHWM:"); }
int64_t machineAvailableBytes() { return kilobyteField("/proc/meminfo", "MemAvailable:"); }

pid_t currentThreadId() { return static_cast<pid_t>(syscall(SYS_gettid)); }

double threadCpuSeconds(pid_t tid) {
  if (tid == currentThreadId()) return clockSeconds(CLOCK_THREAD_CPUTIME_ID);
  return statCpuSeconds("/proc/self/task/" + std::to_string(tid) + "/stat");
}

double processCpuSeconds() {
  const double seconds = clockSeconds(CLOCK_PROCESS_CPUTIME_ID);
  return seconds >= 0 ? seconds : statCpuSeconds("/proc/self/stat");
}

}  // namespace netsmith
