// The public API of project files (project_io.h); the work is split as project_io_detail.h lists.
#include "engine/project/project_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/project/project_io_detail.h"
#include "engine/project/settings_table.h"
#include "engine/solvers/solver_table.h"

namespace netsmith {
namespace {

namespace fs = std::filesystem;
using namespace projectio;

constexpr std::uintmax_t kMaxFileBytes = 256u << 20;

std::string systemError(int error) { return std::strerror(error); }

// Writes all of `text` to `fd`; false with errno set on failure.
bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

const std::vector<std::string>& solverHyperParameterNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Setting& s : settingsTable())
      if (!s.solvers.empty()) n.push_back(s.key);
    return n;
  }();
  return names;
}

const std::vector<std::string>& solverNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const SolverRow& s : solverTable()) n.emplace_back(s.name);
    return n;
  }();
  return names;
}

std::string datasetsRoot() {
  for (const char* name : {"NETSMITH_DATASETS", "DATASETS"}) {
    const char* value = std::getenv(name);
    if (value && *value) return value;
  }
  return "/usr/share/datasets";
}

Project parseProject(const Json& json, const std::string& path, const ProjectParseOptions& options) {
  const JsonChecker c(path);
  try {
    return parseChecked(c, json, path, options);
  } catch (const fs::filesystem_error& e) {
    c.fail("", e.what());
  } catch (const Json::exception& e) {
    // Every value is type-checked before it is read, so this is a bug; still the user's file
    // must not bring the program down.
    c.fail("", format("cannot read the project: {}", e.what()));
  }
}

Project parseProjectText(const std::string& text, const std::string& path, const ProjectParseOptions& options) {
  const JsonChecker c(path);
  struct TooDeep {};
  Json json;
  try {
    // The parser itself does not recurse, but the value it builds is walked recursively later:
    // stop at the depth limit while parsing.
    json = Json::parse(
        text,
        [](int depth, Json::parse_event_t, Json&) {
          if (depth > kMaxDepth) throw TooDeep{};
          return true;
        },
        true, false);
  } catch (const TooDeep&) {
    c.fail("", format("not a project file: the JSON is nested more than {} levels deep", kMaxDepth));
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    const std::string marker = "parse error at ";
    if (const auto at = what.find(marker); at != std::string::npos) {
      what = what.substr(at + marker.size());
    } else if (const auto bracket = what.find("] "); bracket != std::string::npos) {
      what = what.substr(bracket + 2);
    }
    c.fail("", format("not valid JSON at {}", what));
  } catch (const Json::exception& e) {
    std::string what = e.what();
    if (const auto bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    c.fail("", format("not valid JSON: {}", what));
  }
  return parseProject(json, path, options);
}

Project loadProject(const std::string& path, const ProjectParseOptions& options) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw Error(format("{}: cannot open the project file: {}", path, ec.message()));
    throw Error(format("{}: cannot open the project file: it does not exist", path));
  }
  if (fs::is_directory(status)) throw Error(format("{}: is a folder, not a project file", path));
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw Error(format("{}: is {} bytes, too large to be a project file", path, size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(format("{}: cannot open the project file: {}", path, systemError(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(format("{}: cannot read the project file: {}", path, systemError(errno)));
  return parseProjectText(text.str(), path, options);
}

std::string projectToText(const Project& p, const std::string& path) {
  const std::string& target = path.empty() ? p.path : path;
  std::string out;
  writePretty(buildJson(p, folderOf(target)), 0, out);
  out += '\n';
  return out;
}

Json projectToPortableJson(const Project& project) {
  Json j = projectToJson(project);
  auto fix = [&](const char* part, const DataSourceSpec& src) {
    if (!src.present()) return;
    Json& s = j["dataset"][part];
    if (!src.images.empty()) s["images"] = src.images;
    if (!src.labels.empty()) s["labels"] = src.labels;
    if (!src.csv.empty()) s["csv"] = src.csv;
  };
  fix("training", project.dataset.training);
  fix("validation", project.dataset.validation);
  if (!project.config.initialParameters.empty()) j["config"]["initial_parameters"] = project.config.initialParameters;
  return j;
}

Json projectToJson(const Project& p) { return Json(buildJson(p, folderOf(p.path))); }

void saveProject(const Project& p, const std::string& path) {
  NS_CHECK(!path.empty(), "cannot save the project: no file name given");
  const fs::path target = fs::absolute(fs::path(path)).lexically_normal();
  const fs::path folder = target.parent_path();
  const std::string text = projectToText(p, target.string());

  static std::atomic<unsigned> counter{0};
  const fs::path temp = folder / format(".{}.{}-{}.tmp", target.filename().string(), ::getpid(), counter++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(format("{}: cannot save the project: cannot create a file in {}: {}", path, folder.string(), systemError(errno)));

  const auto abandon = [&](const char* step) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    throw Error(format("{}: cannot save the project: {}: {}", path, step, systemError(error)));
  };
  // Keep the permissions of the file being replaced.
  struct stat old {};
  if (::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) ::fchmod(fd, old.st_mode & 07777);
  if (!writeAll(fd, text)) abandon("writing failed");
  if (::fsync(fd) != 0) abandon("flushing to disk failed");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error(format("{}: cannot save the project: closing failed: {}", path, systemError(error)));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error(format("{}: cannot save the project: cannot replace the file: {}", path, systemError(error)));
  }
  // The rename is durable only once the folder itself is flushed.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace netsmith
