// CliqueFolder: how the simulated NCCL ranks of several processes (an mpirun job on simulated
// GPUs) find each other and exchange each collective's buffers — files in one folder per unique id
// (Note [Simulated NCCL across processes] in sim_nccl_folder.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace netsmith::cuda::sim {

// One rank's part of a collective: what it asked for and, for the ranks whose buffer counts, the
// buffer (an all-reduce's every rank, a broadcast's root).
struct RoundPart {
  int kind = -1;
  uint64_t count = 0;
  int root = -1;
  std::string failure;  // why this rank could not take part (its bad buffer), or empty
  std::vector<float> data;
};

struct CliqueMember {
  long pid = 0;
  std::string busId;  // the GPU's PCI bus id: two ranks on one GPU is NCCL's "duplicate GPU"
};

class CliqueFolder {
 public:
  // key: the unique id's text (netsmith-sim-nccl-PID-N); the folder is made when absent.
  explicit CliqueFolder(const std::string& key);

  void join(int rank, const CliqueMember& member);
  // Every rank's membership once all `ranks` have joined; nullopt before.
  std::optional<std::vector<CliqueMember>> members(int ranks) const;
  // This rank leaves; the last to leave removes the folder. `keepEntry`: a communicator that
  // failed to form (a duplicate GPU) keeps its member file, so a rank still settling sees the
  // whole clique and fails as its peer did, as NCCL's ranks all see a duplicate GPU during their
  // set-up; without it the peer waited for a member that had gone, and mpirun ended it before
  // it could say why (the simulator's own race: a real NCCL does not have it).
  void leave(int rank, bool keepEntry = false);

  // Collective #seq: this rank's part, then every rank's once all are there (nullopt before).
  void put(uint64_t seq, int rank, const RoundPart& part);
  std::optional<std::vector<RoundPart>> gather(uint64_t seq, int ranks) const;
  // This rank has read round #seq; the last of the ranks removes its files.
  void finish(uint64_t seq, int rank, int ranks);

 private:
  std::string m_path;
};

}  // namespace netsmith::cuda::sim
