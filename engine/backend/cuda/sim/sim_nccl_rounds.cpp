// Simulated NCCL's collectives: one rank's part of a round, met with the other ranks' in memory
// or, across processes, in the clique's folder (Note [Simulated NCCL] in sim_nccl.cpp).
#include <chrono>
#include <cstring>
#include <thread>

#include "engine/backend/cuda/sim/sim_nccl_state.h"
#include "engine/backend/cuda/sim/simulated_runtime.h"

namespace netsmith::cuda::sim {

const char* kindName(SimNccl::Kind kind) { return kind == SimNccl::Kind::AllReduce ? "all-reduce" : "broadcast"; }

namespace {

// NCCL's ring all-reduce: the buffer is cut into one chunk per rank, and chunk c is added going
// round the ring from rank c: ((x_c + x_c+1) + ...) + x_c-1. With 2 ranks every order gives the
// same sum; from 3 on it is not Note [Reduction tree]'s, and it differs from chunk to chunk.
void ringSum(const std::vector<std::vector<float>>& parts, size_t count, std::vector<float>& out) {
  const size_t n = parts.size();
  const size_t chunk = (count + n - 1) / n;
  out.assign(count, 0.0f);
  for (size_t i = 0; i < count; ++i) {
    const size_t c = i / chunk;
    float s = parts[c % n][i];
    for (size_t k = 1; k < n; ++k) s += parts[(c + k) % n][i];
    out[i] = s;
  }
}

// Why the ranks' parts of collective #seq cannot be combined, or empty.
std::string roundMismatch(const std::vector<int>& kind, const std::vector<size_t>& count, const std::vector<int>& root,
                          const std::vector<std::string>& failure, uint64_t seq) {
  for (size_t q = 0; q < kind.size(); ++q) {
    if (!failure[q].empty()) return format("rank {} could not take part: {}", q, failure[q]);
    if (kind[q] != kind[0] || count[q] != count[0] || root[q] != root[0])
      return format("collective #{} does not match across ranks: rank 0 made a {} of {} floats, rank {} a {} of {} "
                    "floats",
                    seq + 1, kindName(static_cast<SimNccl::Kind>(kind[0])), count[0], q,
                    kindName(static_cast<SimNccl::Kind>(kind[q])), count[q]);
  }
  return {};
}

// This rank's result of a round whose parts are all in: the sum in the ring's order, the root's
// buffer, or the mismatch as the communicator's error (the buffer untouched).
void writeResult(Comm& comm, SimNccl::Kind kind, size_t count, int root, const std::vector<std::vector<float>>& data,
                 const std::string& problem, float* out) {
  if (!problem.empty()) {
    comm.setAsyncError(ncclInvalidUsage, problem);
  } else if (kind == SimNccl::Kind::AllReduce) {
    std::vector<float> sum;
    ringSum(data, count, sum);
    std::memcpy(out, sum.data(), count * sizeof(float));
  } else {
    std::memcpy(out, data[static_cast<size_t>(root)].data(), count * sizeof(float));
  }
}

// runRound across processes: the parts meet in the clique's folder.
void runRoundInFolder(Comm& comm, SimNccl::Kind kind, std::vector<float> mine, float* out, size_t count, int root,
                      uint64_t seq, Stream& stream, const std::string& failure) {
  CliqueFolder& folder = *comm.clique->folder;
  RoundPart part;
  part.kind = static_cast<int>(kind);
  part.count = count;
  part.root = root;
  part.failure = failure;
  part.data = std::move(mine);
  folder.put(seq, comm.rank, part);
  std::optional<std::vector<RoundPart>> parts;
  while (!(parts = folder.gather(seq, comm.ranks))) {
    if (comm.aborted.load() || stream.stopping()) {  // this rank's collective ends unfinished
      --comm.pending;
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const auto n = static_cast<size_t>(comm.ranks);
  std::vector<int> kinds(n), roots(n);
  std::vector<size_t> counts(n);
  std::vector<std::string> failures(n);
  std::vector<std::vector<float>> data(n);
  for (size_t q = 0; q < n; ++q) {
    RoundPart& p = (*parts)[q];
    kinds[q] = p.kind;
    counts[q] = p.count;
    roots[q] = p.root;
    failures[q] = p.failure;
    data[q] = std::move(p.data);
  }
  const std::string problem = roundMismatch(kinds, counts, roots, failures, seq);
  if (out) writeResult(comm, kind, count, root, data, problem, out);
  folder.finish(seq, comm.rank, comm.ranks);
  --comm.pending;
  if (!failure.empty()) throw Fault(failure);
}

}  // namespace

void runRound(Comm& comm, SimNccl::Kind kind, const float* send, float* recv, size_t count, int root, uint64_t seq,
              Stream& stream, const std::string& what) {
  Device& device = stream.device();
  std::vector<float> mine;
  std::string failure;
  float* out = nullptr;
  try {
    if (device.faulted.load()) throw Fault("the GPU has a sticky error: " + device.faultMessage());
    if (kind == SimNccl::Kind::AllReduce || comm.rank == root) {
      const float* in = static_cast<const float*>(device.memory->translate(send, count * sizeof(float), what));
      mine.assign(in, in + count);
    }
    out = static_cast<float*>(device.memory->translate(recv, count * sizeof(float), what));
  } catch (const Fault& f) {
    failure = f.what();
  }
  Clique& clique = *comm.clique;
  if (clique.acrossProcesses) return runRoundInFolder(comm, kind, std::move(mine), out, count, root, seq, stream, failure);
  std::unique_lock lock(clique.mutex);
  Round& round = clique.rounds[seq];
  if (round.data.empty()) {
    const auto n = static_cast<size_t>(clique.ranks);
    round.data.resize(n);
    round.kind.assign(n, -1);
    round.count.assign(n, 0);
    round.root.assign(n, -1);
    round.failure.resize(n);
  }
  const auto r = static_cast<size_t>(comm.rank);
  round.data[r] = std::move(mine);
  round.kind[r] = static_cast<int>(kind);
  round.count[r] = count;
  round.root[r] = root;
  round.failure[r] = failure;
  ++round.arrived;
  clique.changed.notify_all();
  clique.changed.wait(lock, [&] {
    return round.arrived == clique.ranks || comm.aborted.load() || stream.stopping();
  });
  if (round.arrived < clique.ranks) {  // aborted: this rank's collective ends unfinished
    --comm.pending;
    return;
  }
  const std::string problem = roundMismatch(round.kind, round.count, round.root, round.failure, seq);
  lock.unlock();
  writeResult(comm, kind, count, root, round.data, problem, out);
  lock.lock();
  if (++round.left == clique.ranks) clique.rounds.erase(seq);
  lock.unlock();
  --comm.pending;
  if (!failure.empty()) throw Fault(failure);  // this GPU's own bad buffer: its sticky error
}

}  // namespace netsmith::cuda::sim
