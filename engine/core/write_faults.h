// Injected write faults: a test-only hook that makes one write of a chosen file fail as on a full
// disk, or kills the process in the middle of it, and can fake the free space a run sees. Tests
// use it to check that every write is checked and that a folder left by a failure resumes.
// netsmith-cli reads it from the NETSMITH_WRITE_FAULT environment variable:
//
//   enospc:NAME:N     the N-th write of a file whose name contains NAME fails with ENOSPC
//                     ("No space left on device") after half of its first chunk reached the disk
//   enospc:NAME:N+    ... and every later write of such a file too (a disk that stays full)
//   kill:NAME:N       the process sends itself SIGKILL after half of that chunk (kill -9 inside
//                     a write: a temporary file or a torn line is left behind)
//   free:BYTES        the free-space probe (atomic_file.h freeDiskBytes) reports BYTES
//
// Several specs are separated by commas. A "write" is one atomic file write or one appended
// line (atomic_file.h); N counts from 1 per spec. NAME "*" matches every file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace netsmith {

enum class WriteFault { None, NoSpace, Kill };

// Replaces the faults in force (an empty spec clears them). Throws Error naming
// NETSMITH_WRITE_FAULT and what is expected when the spec is malformed. Thread-safe.
void setWriteFaults(const std::string& spec);

// Called by the atomic-file helpers as a write of `target` begins: counts it and returns the
// fault it must suffer. Thread-safe.
WriteFault takeWriteFault(const std::filesystem::path& target);

// The free space the hook imposes, if any.
std::optional<uint64_t> injectedFreeBytes();

}  // namespace netsmith
