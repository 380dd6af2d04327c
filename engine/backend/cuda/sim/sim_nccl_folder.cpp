// Note [Simulated NCCL across processes]
// Real NCCL ranks in several processes (mpirun, one process per GPU or per machine) find each
// other through the unique id that one of them made and the others received (over MPI, here
// through JobChannel), then move data over shared memory, PCIe or the network. Simulated GPUs are
// host memory in each process, so the simulator's ranks of one unique id meet in a folder under
// /dev/shm (the temporary directory where there is none), named by the id:
// - member-R: rank R has joined (its process id and its GPU's PCI bus id). The communicator is
//   ready when all ranks' files are there; two ranks on one bus id fail as NCCL's "duplicate GPU"
//   does — the mistake of two processes on one machine both training its cuda:0.
// - round-S-R: rank R's part of collective #S (kind, count, root, a failure, the buffer), written
//   to a temporary name and renamed, so a reader sees a whole file or none; done-S-R once rank R
//   has read every part. The last rank to finish removes the round's files.
// When every rank of an id is in one process (every single-process run), none of this is used:
// the ranks meet in memory (sim_nccl.cpp), as before.
#include "engine/backend/cuda/sim/sim_nccl_folder.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "engine/core/error.h"

namespace fs = std::filesystem;

namespace netsmith::cuda::sim {

namespace {

fs::path rootFolder() {
  std::error_code ec;
  const fs::path shm = "/dev/shm";
  const fs::path base = fs::is_directory(shm, ec) && ::access(shm.c_str(), W_OK) == 0 ? shm : fs::temp_directory_path();
  return base / format("netsmith-sim-nccl-u{}", static_cast<long>(getuid()));
}

// Writes `bytes` to `path` as a whole: a reader sees the complete file or no file. Not
// writeFileAtomically (core/atomic_file.h): its fsyncs would be paid by every collective, and
// these files are scratch in memory that dies with the job.
void writeWhole(const fs::path& path, const std::string& bytes) {
  const fs::path temporary = path.string() + format(".tmp{}", static_cast<long>(getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    NS_CHECK(out.good(), "simulated NCCL: cannot write {}", temporary.string());
  }
  fs::rename(temporary, path);
}

std::optional<std::string> readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  std::string bytes(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

template <typename T>
void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
T take(const std::string& in, size_t& at) {
  NS_CHECK(at + sizeof(T) <= in.size(), "simulated NCCL: a round file is cut short");
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

std::string roundFile(uint64_t seq, int rank) { return format("round-{}-{}", seq, rank); }
std::string doneFile(uint64_t seq, int rank) { return format("done-{}-{}", seq, rank); }

}  // namespace

namespace {

// A member file's process is still running (the simulated GPUs of a job are all on this machine).
bool memberAlive(const fs::path& file) {
  const auto text = readWhole(file);
  const long pid = text ? std::atol(text->c_str()) : 0;
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}

// Folders of cliques whose every member's process has ended (a failed set-up keeps its members'
// files for its peers; a killed job leaves its files): removed when a new clique is made.
void removeAbandonedFolders(const fs::path& root, const fs::path& keep) {
  std::error_code ec;
  for (const auto& folder : fs::directory_iterator(root, ec)) {
    if (folder.path() == keep || !folder.is_directory(ec)) continue;
    bool members = false, alive = false;
    for (const auto& entry : fs::directory_iterator(folder.path(), ec)) {
      if (entry.path().filename().string().rfind("member-", 0) != 0) continue;
      members = true;
      alive = alive || memberAlive(entry.path());
    }
    if (members && !alive) fs::remove_all(folder.path(), ec);
  }
}

}  // namespace

CliqueFolder::CliqueFolder(const std::string& key) {
  const fs::path path = rootFolder() / key;
  fs::create_directories(path);
  m_path = path.string();
  removeAbandonedFolders(rootFolder(), path);
}

void CliqueFolder::join(int rank, const CliqueMember& member) {
  writeWhole(fs::path(m_path) / format("member-{}", rank), format("{} {}", member.pid, member.busId));
}

std::optional<std::vector<CliqueMember>> CliqueFolder::members(int ranks) const {
  std::vector<CliqueMember> out;
  for (int r = 0; r < ranks; ++r) {
    const auto text = readWhole(fs::path(m_path) / format("member-{}", r));
    if (!text) return std::nullopt;
    CliqueMember m;
    const size_t space = text->find(' ');
    m.pid = std::stol(text->substr(0, space));
    m.busId = space == std::string::npos ? "" : text->substr(space + 1);
    out.push_back(m);
  }
  return out;
}

void CliqueFolder::leave(int rank, bool keepEntry) {
  std::error_code ec;
  const std::string own = format("member-{}", rank);
  if (!keepEntry) fs::remove(fs::path(m_path) / own, ec);
  for (const auto& entry : fs::directory_iterator(m_path, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("member-", 0) != 0 || name == own) continue;
    // A member whose process is gone (killed) does not hold the folder.
    if (memberAlive(entry.path())) return;
  }
  fs::remove_all(m_path, ec);
}

void CliqueFolder::put(uint64_t seq, int rank, const RoundPart& part) {
  std::string bytes;
  append(bytes, static_cast<int32_t>(part.kind));
  append(bytes, part.count);
  append(bytes, static_cast<int32_t>(part.root));
  append(bytes, static_cast<uint64_t>(part.failure.size()));
  bytes += part.failure;
  append(bytes, static_cast<uint64_t>(part.data.size()));
  bytes.append(reinterpret_cast<const char*>(part.data.data()), part.data.size() * sizeof(float));
  writeWhole(fs::path(m_path) / roundFile(seq, rank), bytes);
}

std::optional<std::vector<RoundPart>> CliqueFolder::gather(uint64_t seq, int ranks) const {
  std::error_code ec;
  for (int r = 0; r < ranks; ++r)
    if (!fs::exists(fs::path(m_path) / roundFile(seq, r), ec)) return std::nullopt;
  std::vector<RoundPart> parts(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto bytes = readWhole(fs::path(m_path) / roundFile(seq, r));
    NS_CHECK(bytes, "simulated NCCL: round file {} of rank {} went away before it was read", seq, r);
    RoundPart& p = parts[static_cast<size_t>(r)];
    size_t at = 0;
    p.kind = take<int32_t>(*bytes, at);
    p.count = take<uint64_t>(*bytes, at);
    p.root = take<int32_t>(*bytes, at);
    const auto failureSize = take<uint64_t>(*bytes, at);
    NS_CHECK(at + failureSize <= bytes->size(), "simulated NCCL: a round file is cut short");
    p.failure = bytes->substr(at, failureSize);
    at += failureSize;
    const auto floats = take<uint64_t>(*bytes, at);
    NS_CHECK(at + floats * sizeof(float) == bytes->size(), "simulated NCCL: a round file has the wrong size");
    p.data.resize(floats);
    std::memcpy(p.data.data(), bytes->data() + at, floats * sizeof(float));
  }
  return parts;
}

void CliqueFolder::finish(uint64_t seq, int rank, int ranks) {
  writeWhole(fs::path(m_path) / doneFile(seq, rank), "");
  std::error_code ec;
  for (int r = 0; r < ranks; ++r)
    if (!fs::exists(fs::path(m_path) / doneFile(seq, r), ec)) return;
  for (int r = 0; r < ranks; ++r) {
    fs::remove(fs::path(m_path) / roundFile(seq, r), ec);
    fs::remove(fs::path(m_path) / doneFile(seq, r), ec);
  }
}

}  // namespace netsmith::cuda::sim
