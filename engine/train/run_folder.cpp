#include "engine/protocol/json_fields.h"
#include "engine/train/run_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "engine/core/error.h"
#include "engine/core/sha256.h"
#include "engine/model/checkpoint.h"

namespace fs = std::filesystem;

namespace netsmith {

// ---------------------------------------------------------------------------------------------
// Lock

std::unique_ptr<RunFolderLock> RunFolderLock::acquire(const fs::path& dir) {
  const fs::path path = dir / "run.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  NS_CHECK(fd >= 0, "{}: cannot create the run folder's lock file: {}", path.string(), std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    // Some network and FUSE file systems have no locks: train unguarded rather than not at all.
    if (error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL)
      return std::unique_ptr<RunFolderLock>(
          new RunFolderLock(fd, format("{}: the file system cannot lock files ({}), so nothing stops another process "
                                       "from using this run folder at the same time",
                                       path.string(), std::strerror(error))));
    char buffer[32] = {};
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    ::close(fd);
    NS_CHECK(error == EWOULDBLOCK, "{}: cannot lock the run folder: {}", path.string(), std::strerror(error));
    std::string pid = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
    pid.erase(std::remove_if(pid.begin(), pid.end(), [](char c) { return c < '0' || c > '9'; }), pid.end());
    NS_THROW("run folder {} is in use by {}: a run folder takes one process at a time; wait for that run to end "
             "(or stop it), or train into another folder",
             dir.string(), pid.empty() ? std::string("another process") : "process " + pid);
  }
  // Who holds it, for the message above. The lock is the flock, not this text: a failure to
  // write it only makes that message vaguer.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  return std::unique_ptr<RunFolderLock>(new RunFolderLock(fd, {}));
}

bool runFolderInUse(const fs::path& dir) {
  // Read-only and without creating anything: a finished run's folder stays as it was.
  const int fd = ::open((dir / "run.lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

int64_t runFolderHolder(const fs::path& dir) {
  if (!runFolderInUse(dir)) return 0;
  std::ifstream in(dir / "run.lock");
  int64_t pid = 0;
  return in >> pid && pid > 0 ? pid : 0;
}

RunFolderLock::~RunFolderLock() {
  // Closing the descriptor releases the lock. The file stays: deleting a lock file races with a
  // process that has just opened it.
  ::close(m_fd);
}

// ---------------------------------------------------------------------------------------------
// Identity

void checkNoOtherRun(const fs::path& dir, const std::string& projectPath) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<std::string> found;
  for (const char* name : {"run.json", "events.jsonl", "learning_curve.csv", "parameters.nsparams", "best.nsparams"})
    if (fs::exists(dir / name, ec)) found.push_back(name);
  int checkpoints = 0;
  for (fs::directory_iterator it(dir / "checkpoints", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".ckpt") ++checkpoints;
  if (checkpoints > 0) found.push_back(format("{} checkpoint{}", checkpoints, checkpoints == 1 ? "" : "s"));
  // TensorBoard reads a folder's event files as one run: a new run's would join another's curves.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().find("tfevents") != std::string::npos) {
      found.push_back("TensorBoard event files");
      break;
    }
  const fs::path snapshot = dir / "project.nsproj";
  std::error_code sameEc;
  if (fs::exists(snapshot, ec) && !fs::equivalent(snapshot, projectPath, sameEc)) found.push_back("project.nsproj");
  if (found.empty()) return;
  std::string run;
  try {
    std::ifstream in(dir / "run.json");
    const Json settings = Json::parse(in);
    if (settings.contains("run_id") && settings["run_id"].is_string()) run = " " + settings["run_id"].get<std::string>();
  } catch (const std::exception&) {
  }
  std::string list;
  for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
  NS_THROW("run folder {} already holds another run{} ({}): a new run there would mix its checkpoints with that "
           "run's; continue that run with `netsmith-cli train --resume {}`, or give the new run a new or empty folder",
           dir.string(), run, list, dir.string());
}

std::string newRunId() {
  std::random_device source;
  static const char* kHex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 4; ++i) {
    const uint32_t word = source();
    for (int b = 0; b < 8; ++b) id += kHex[(word >> (4 * b)) & 0xF];
  }
  return id;
}

std::string projectSnapshotSha256(const Json& snapshot) {
  const std::string canonical = protocol::jsonText(snapshot);
  return sha256Hex(canonical.data(), canonical.size());
}

namespace {

std::string shortValue(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

void diff(const Json& a, const Json& b, const std::string& path, std::vector<std::string>& out) {
  const std::string here = path.empty() ? std::string("(the whole project)") : path;
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      if (!b.contains(key)) out.push_back(format("{}: {} → removed", child, shortValue(value)));
      else diff(value, b[key], child, out);
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) out.push_back(format("{}: added, {}", path.empty() ? key : path + "." + key, shortValue(value)));
    return;
  }
  if (a.is_array() && b.is_array()) {
    const size_t common = std::min(a.size(), b.size());
    for (size_t i = 0; i < common; ++i) diff(a[i], b[i], format("{}[{}]", here, i), out);
    for (size_t i = common; i < a.size(); ++i) out.push_back(format("{}[{}]: removed", here, i));
    for (size_t i = common; i < b.size(); ++i) out.push_back(format("{}[{}]: added, {}", here, i, shortValue(b[i])));
    return;
  }
  if (a != b) out.push_back(format("{}: {} → {}", here, shortValue(a), shortValue(b)));
}

}  // namespace

std::vector<std::string> settingDifferences(const Json& before, const Json& after, size_t limit) {
  std::vector<std::string> all;
  diff(before, after, "", all);
  if (all.size() > limit) {
    const size_t more = all.size() - limit;
    all.resize(limit);
    all.push_back(format("... and {} more", more));
  }
  return all;
}

// ---------------------------------------------------------------------------------------------
// Pruning

void pruneCheckpoints(const fs::path& dir, const std::string& runId, const fs::path& justWritten, int keep) {
  struct Mine {
    std::pair<double, double> position;
    fs::path path;
  };
  std::pair<double, double> newest;
  try {
    newest = checkpointPosition(peekCheckpointMeta(justWritten.string()));
  } catch (const std::exception&) {
    return;  // cannot place the new file: delete nothing
  }
  std::vector<Mine> older;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".ckpt" || p.filename().string().front() == '.') continue;
    std::error_code sameEc;
    if (p == justWritten || fs::equivalent(p, justWritten, sameEc)) continue;
    try {
      const Json meta = peekCheckpointMeta(p.string());
      if (!runId.empty() && meta.value("run_id", std::string()) != runId) continue;  // not ours to delete
      const auto position = checkpointPosition(meta);
      if (position > newest) {
        fs::remove(p, ec);  // an abandoned future: see pruneCheckpoints' contract
        continue;
      }
      older.push_back({position, p});
    } catch (const std::exception&) {
      // A header we cannot read: leave the file for a person to look at.
    }
  }
  std::sort(older.begin(), older.end(), [](const Mine& a, const Mine& b) {
    if (a.position != b.position) return a.position > b.position;
    return a.path > b.path;
  });
  for (size_t i = static_cast<size_t>(std::max(keep - 1, 0)); i < older.size(); ++i) {
    std::error_code removeEc;
    fs::remove(older[i].path, removeEc);
  }
}

// ---------------------------------------------------------------------------------------------
// Disk space

DiskNeed diskNeed(int64_t parameterCount, int optimizerBuffersPerParameter, int keep) {
  // Meta (positions, the learning curve, the project) and tensor names: generous for any project.
  constexpr uint64_t kMetaBytes = 256 * 1024;
  constexpr uint64_t kFolderMargin = 4 * 1024 * 1024;  // events.jsonl, learning_curve.csv, run.json
  DiskNeed need;
  const uint64_t params = static_cast<uint64_t>(std::max<int64_t>(parameterCount, 0)) * sizeof(float);
  need.parametersBytes = params + kMetaBytes;
  need.checkpointBytes = params * static_cast<uint64_t>(1 + optimizerBuffersPerParameter) + kMetaBytes;
  need.totalBytes = need.checkpointBytes * static_cast<uint64_t>(keep + 1) + need.parametersBytes * 3 + kFolderMargin;
  return need;
}

uint64_t runFilesBytes(const fs::path& runDir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const char* name : {"parameters.nsparams", "best.nsparams"}) {
    const auto size = fs::file_size(runDir / name, ec);
    if (!ec) bytes += size;
  }
  for (fs::directory_iterator it(runDir / "checkpoints", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sizeEc;
    if (it->path().extension() != ".ckpt") continue;
    const auto size = fs::file_size(it->path(), sizeEc);
    if (!sizeEc) bytes += size;
  }
  return bytes;
}

std::string runClassNamesPath(const std::string& runDir) { return (fs::path(runDir) / kRunClassNamesFile).string(); }

}  // namespace netsmith
