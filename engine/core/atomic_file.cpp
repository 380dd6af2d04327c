#include "engine/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "engine/core/error.h"

namespace fs = std::filesystem;

namespace netsmith {
namespace {

// Writes every byte, retrying interrupted and short writes. Returns 0 or the errno of the
// failure. An injected fault writes half of the first chunk and then fails or kills the process.
int writeAll(int fd, const void* data, size_t bytes, WriteFault& fault) {
  const auto* p = static_cast<const uint8_t*>(data);
  if (fault != WriteFault::None && bytes > 0) {
    const size_t half = bytes / 2;
    if (half > 0 && ::write(fd, p, half) < 0) return errno;
    if (fault == WriteFault::Kill) ::raise(SIGKILL);
    fault = WriteFault::None;
    return ENOSPC;
  }
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;  // a regular file never takes nothing without a reason
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return 0;
}

// Appends `bytes` to the end (`size`) of an open file in one write, or cuts a part that reached
// the disk back off and throws Error naming `path`: a part of a line or record would be read as
// damaged.
void appendWhole(int fd, uint64_t& size, const fs::path& path, std::string_view bytes) {
  WriteFault fault = takeWriteFault(path);
  const int error = writeAll(fd, bytes.data(), bytes.size(), fault);
  if (error == 0) {
    size += bytes.size();
    return;
  }
  const bool cut = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
  NS_THROW("{}: cannot append: {}{}", path.string(), std::strerror(error),
           cut ? "" : " (and a part of what was written may remain at its end)");
}

fs::path folderOf(const fs::path& file) { return file.has_parent_path() ? file.parent_path() : fs::path("."); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// AtomicFileWriter

AtomicFileWriter::AtomicFileWriter(fs::path target, std::string label) : m_target(std::move(target)) {
  m_prefix = std::move(label);
  if (!m_prefix.empty()) m_prefix += ' ';
  m_prefix += m_target.string();
  const fs::path dir = folderOf(m_target);
  // Hidden, with a suffix no reader looks for, in case a kill leaves it behind.
  std::string name = ".";
  name += m_target.filename().string();
  name += ".tmp-XXXXXX";
  m_temp = (dir / name).string();
  m_fd = ::mkstemp(m_temp.data());
  if (m_fd < 0) {
    const int error = errno;
    m_temp.clear();
    NS_THROW("{}: cannot create a temporary file in {}: {}", m_prefix, dir.string(), std::strerror(error));
  }
  // mkstemp creates 0600; the file is as readable as the rest of the folder.
  ::fchmod(m_fd, 0644);
  m_fault = takeWriteFault(m_target);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_temp.empty()) ::unlink(m_temp.c_str());
}

void AtomicFileWriter::fail(const std::string& what, int error) {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  if (!m_temp.empty()) ::unlink(m_temp.c_str());
  m_temp.clear();
  NS_THROW("{}: {}: {}", m_prefix, what, std::strerror(error));
}

void AtomicFileWriter::write(const void* data, size_t bytes) {
  NS_CHECK(m_fd >= 0, "{}: written after it was committed or failed", m_prefix);
  if (const int error = writeAll(m_fd, data, bytes, m_fault)) fail("cannot write", error);
}

void AtomicFileWriter::commit() {
  NS_CHECK(m_fd >= 0, "{}: committed twice, or after a failure", m_prefix);
  // An empty file still counts as a write for the hook.
  if (m_fault != WriteFault::None) {
    if (m_fault == WriteFault::Kill) ::raise(SIGKILL);
    fail("cannot write", ENOSPC);
  }
  if (::fsync(m_fd) != 0) fail("cannot flush to disk", errno);
  const int closed = ::close(m_fd);
  m_fd = -1;
  if (closed != 0) fail("cannot close", errno);
  if (::rename(m_temp.c_str(), m_target.c_str()) != 0) fail("cannot rename the temporary file into place", errno);
  m_temp.clear();
  // The rename is durable only once the folder's entry is on disk.
  const fs::path dir = folderOf(m_target);
  const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  NS_CHECK(dirFd >= 0, "{}: cannot open the folder {} to flush it: {}", m_prefix, dir.string(), std::strerror(errno));
  const int synced = ::fsync(dirFd) == 0 ? 0 : errno;
  ::close(dirFd);
  // Some file systems cannot fsync a folder (EINVAL): their renames are as durable as they get.
  NS_CHECK(synced == 0 || synced == EINVAL, "{}: cannot flush the folder {}: {}", m_prefix, dir.string(),
           std::strerror(synced));
}

void writeFileAtomically(const fs::path& path, std::string_view bytes) {
  AtomicFileWriter out(path);
  out.write(bytes.data(), bytes.size());
  out.commit();
}

// ---------------------------------------------------------------------------------------------
// LineAppender

LineAppender::LineAppender(fs::path path) : m_path(std::move(path)) {
  m_fd = ::open(m_path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  NS_CHECK(m_fd >= 0, "{}: cannot open for appending: {}", m_path.string(), std::strerror(errno));
  struct stat st {};
  if (::fstat(m_fd, &st) != 0) {
    const int error = errno;
    ::close(m_fd);
    NS_THROW("{}: cannot stat: {}", m_path.string(), std::strerror(error));
  }
  m_size = static_cast<uint64_t>(st.st_size);
  // Drop a torn last line: search back for the newline that ends the last whole line.
  uint64_t keep = m_size;
  char buffer[4096];
  while (keep > 0) {
    const uint64_t from = keep > sizeof buffer ? keep - sizeof buffer : 0;
    const ssize_t n = ::pread(m_fd, buffer, static_cast<size_t>(keep - from), static_cast<off_t>(from));
    if (n != static_cast<ssize_t>(keep - from)) break;  // unreadable: leave the file as it is
    ssize_t i = n;
    while (i > 0 && buffer[i - 1] != '\n') --i;
    if (i > 0) {  // found: keep through it
      keep = from + static_cast<uint64_t>(i);
      break;
    }
    keep = from;
  }
  if (keep != m_size) {
    if (::ftruncate(m_fd, static_cast<off_t>(keep)) != 0) {
      const int error = errno;
      ::close(m_fd);
      NS_THROW("{}: cannot cut off its torn last line: {}", m_path.string(), std::strerror(error));
    }
    m_size = keep;
  }
}

LineAppender::~LineAppender() {
  if (m_fd >= 0) ::close(m_fd);
}

void LineAppender::append(std::string_view lines) { appendWhole(m_fd, m_size, m_path, lines); }

// ---------------------------------------------------------------------------------------------
// RecordAppender

RecordAppender::RecordAppender(fs::path path) : m_path(std::move(path)) {
  m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  NS_CHECK(m_fd >= 0, "{}: cannot create: {}", m_path.string(), std::strerror(errno));
}

RecordAppender::~RecordAppender() {
  if (m_fd >= 0) ::close(m_fd);
}

void RecordAppender::append(std::string_view bytes) { appendWhole(m_fd, m_size, m_path, bytes); }

// ---------------------------------------------------------------------------------------------
// Clean-up and free space

std::vector<std::string> removeStaleTemporaryFiles(const fs::path& dir) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool hiddenTemp = name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos;
    const bool oldTemp = name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0;
    std::error_code typeEc;
    if ((!hiddenTemp && !oldTemp) || !it->is_regular_file(typeEc)) continue;
    std::error_code removeEc;
    if (fs::remove(it->path(), removeEc)) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

uint64_t freeDiskBytes(const fs::path& path) {
  if (const auto injected = injectedFreeBytes()) return *injected;
  fs::path probe = fs::absolute(path);
  std::error_code ec;
  while (!fs::exists(probe, ec) && probe.has_parent_path() && probe.parent_path() != probe) probe = probe.parent_path();
  struct statvfs st {};
  NS_CHECK(::statvfs(probe.c_str(), &st) == 0, "{}: cannot read the free disk space: {}", probe.string(),
           std::strerror(errno));
  return static_cast<uint64_t>(st.f_bavail) * static_cast<uint64_t>(st.f_frsize);
}

std::string humanBytes(uint64_t bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000.0 && u < 4) {
    v /= 1000.0;
    ++u;
  }
  if (u == 0) return format("{} bytes", bytes);
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace netsmith
