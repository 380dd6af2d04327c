// PartialFolder and removeStalePartials (Note [Partial folder lock]).
#include "engine/data/folder/partial_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "engine/core/error.h"

namespace fs = std::filesystem;

namespace netsmith {

namespace {

// The process's umask, without changing it (umask(2) cannot be read without setting it, which
// would race with other threads creating files).
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  return 022;
}

}  // namespace

PartialFolder::PartialFolder(const fs::path& parent, const std::string& name) {
  std::string templ = (parent / ("." + name + ".partial-XXXXXX")).string();
  NS_CHECK(::mkdtemp(templ.data()) != nullptr, "cannot create a folder in {} to build the dataset in: {}",
           parent.string(), std::strerror(errno));
  m_path = templ;
  m_fd = ::open(m_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (m_fd < 0 || ::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    cleanup();
    NS_THROW("cannot lock the folder {}: {}", m_path.string(), std::strerror(e));
  }
}

PartialFolder::~PartialFolder() { cleanup(); }

void PartialFolder::applyUmask() { ::fchmod(m_fd, 0777 & ~currentUmask()); }

uint64_t PartialFolder::bytesOnDisk() const {
  uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(m_path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    if (it->is_regular_file(sec)) total += it->file_size(sec);
  }
  return total;
}

void PartialFolder::syncToDisk() {
  NS_CHECK(::syncfs(m_fd) == 0, "{}: cannot sync the new dataset to disk: {}", m_path.string(), std::strerror(errno));
}

void PartialFolder::publishAs(const fs::path& output, bool replacing) {
  std::error_code ec;
  if (replacing) {
    // Exchange the two folders in one step; the old dataset then sits at the partial path.
    if (::renameat2(AT_FDCWD, m_path.c_str(), AT_FDCWD, output.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(m_path, ec);  // the old dataset
      committed();
    } else {
      NS_CHECK(errno == EINVAL || errno == ENOSYS, "cannot replace {} by the new dataset: {}", output.string(),
               std::strerror(errno));
      // No exchange on this file system: the old dataset moves into the new folder (so a kill
      // here leaves it in the locked partial folder, removed by the next build), the new folder
      // takes DIR's name, and the old one is removed.
      const fs::path old = m_path / ".replaced";
      NS_CHECK(::rename(output.c_str(), old.c_str()) == 0, "cannot move the old dataset {} away: {}", output.string(),
               std::strerror(errno));
      NS_CHECK(::rename(m_path.c_str(), output.c_str()) == 0, "cannot rename {} to {}: {}", m_path.string(),
               output.string(), std::strerror(errno));
      committed();
      fs::remove_all(output / ".replaced", ec);
    }
  } else {
    if (::rename(m_path.c_str(), output.c_str()) != 0) {
      const int e = errno;
      NS_CHECK(e != ENOTEMPTY && e != EEXIST, "output folder '{}' was filled by something else during the build; "
               "the new dataset is not put there: choose another folder", output.string());
      NS_THROW("cannot rename {} to {}: {}", m_path.string(), output.string(), std::strerror(e));
    }
    committed();
  }
  const int parentFd = ::open(output.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parentFd >= 0) {
    ::fsync(parentFd);
    ::close(parentFd);
  }
}

// After the rename: the folder is DIR now, nothing to remove; the lock goes with the fd.
void PartialFolder::committed() {
  m_committed = true;
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

void PartialFolder::cleanup() {
  if (!m_committed && !m_path.empty()) {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

std::vector<std::string> removeStalePartials(const fs::path& parent, const std::string& name) {
  std::vector<std::string> removed;
  const std::string prefix = "." + name + ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.compare(0, prefix.size(), prefix) != 0 || entry.size() != prefix.size() + 6) continue;
    std::error_code sec;
    if (!fs::is_directory(fs::symlink_status(it->path(), sec))) continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {  // no builder holds it: stale
      std::error_code rec;
      fs::remove_all(it->path(), rec);
      if (!rec) removed.push_back(it->path().string());
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace netsmith
