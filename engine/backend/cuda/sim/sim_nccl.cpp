// Note [Simulated NCCL]
// What the simulator holds NCCL to, because it is where multi-GPU code goes wrong:
// - Non-blocking communicators (ncclConfig_t.blocking = 0): ncclCommInitRank returns
//   ncclInProgress and the communicator becomes ready only once every rank has joined with the
//   same unique id, a little later, on NCCL's own thread (here: the proxy thread). A collective
//   may also return ncclInProgress — always the first one of a communicator (NCCL connects its
//   peers lazily), and with jitter now and then — and is queued on the stream only when the
//   communicator leaves that state. Until ncclCommGetAsyncError reports ncclSuccess, any further
//   call on the communicator fails with ncclInvalidArgument. A caller that records an event right
//   after an ncclInProgress return therefore records it before the collective: the event
//   completes at once and the gradients are read unsummed.
// - A collective runs on its stream's thread: it waits (in stream order) for the same collective
//   of every rank, checks they agree (kind, count, root; a mismatch is ncclInvalidUsage on every
//   rank, reported by ncclCommGetAsyncError, the buffers untouched), then writes its own result.
//   Sums are added in the order of NCCL's ring (ringSum), which does not depend on timing but is
//   not Note [Reduction tree]'s from 3 ranks on and differs between a buffer's chunks, so
//   reproducible mode holds on 4 simulated GPUs only through Note [Tree order over NCCL].
// - Buffers must be live device memory of the communicator's GPU, and the stream must be that
//   GPU's: otherwise ncclInvalidArgument at the call.
// - ncclCommAbort ends this rank's waiting collective; the other ranks keep waiting until they
//   abort too (as with NCCL, where only every rank's abort frees all of them).
// - NETSMITH_SIMULATED_NCCL_INIT_FAILS=N: the communicators of cuda:N fail to start (an error at
//   once, on that rank only); the other ranks wait for it, in progress, until aborted.
// - ncclGroupStart/End: calls between them are held and issued together at ncclGroupEnd (the
//   inits of several ranks from one thread, as ncclCommInitAll does).
// - Ranks of one unique id in several processes (mpirun) meet through a folder: Note [Simulated
//   NCCL across processes] (sim_nccl_folder.cpp).
#include "engine/backend/cuda/sim/sim_nccl.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "engine/backend/cuda/sim/sim_nccl_folder.h"
#include "engine/backend/cuda/sim/sim_nccl_state.h"
#include "engine/backend/cuda/sim/simulated_runtime.h"
#include "engine/core/error.h"

namespace netsmith::cuda::sim {

std::string& threadErrorDetail() {
  thread_local std::string detail;
  return detail;
}

namespace {

// The group calls of this thread: held until the outermost ncclGroupEnd.
struct GroupState {
  int depth = 0;
  std::vector<std::function<ncclResult_t()>> held;
  std::vector<std::shared_ptr<Comm>> blockingInits;  // ncclGroupEnd returns once they are ready
};
GroupState& group() {
  thread_local GroupState state;
  return state;
}

std::string keyOf(const ncclUniqueId& id) { return std::string(id.internal, sizeof id.internal); }

}  // namespace

SimNccl::SimNccl(SimulatedRuntime& runtime, bool jitter, uint64_t seed, int initFailure)
    : m_runtime(runtime), m_jitter(jitter), m_initFailure(initFailure), m_random(seed ^ 0x6e63636cULL) {
  m_proxy = std::thread([this] { runProxy(); });
}

SimNccl::~SimNccl() {
  {
    std::lock_guard lock(m_proxyMutex);
    m_stop = true;
  }
  m_proxyChanged.notify_all();
  m_proxy.join();
}

ncclResult_t SimNccl::fail(ncclResult_t status, std::string detail) {
  threadErrorDetail() = std::move(detail);
  return status;
}

double SimNccl::delay(double low, double high) {
  std::lock_guard lock(m_mutex);
  if (!m_jitter) return low;
  return std::uniform_real_distribution<double>(low, high)(m_random);
}

void SimNccl::later(double seconds, std::function<void()> task) {
  {
    std::lock_guard lock(m_proxyMutex);
    m_tasks.push({Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)),
                  ++m_taskOrder, std::move(task)});
  }
  m_proxyChanged.notify_all();
}

void SimNccl::runProxy() {
  std::unique_lock lock(m_proxyMutex);
  for (;;) {
    if (m_stop && m_tasks.empty()) return;
    if (m_tasks.empty()) {
      m_proxyChanged.wait(lock);
      continue;
    }
    const auto at = m_tasks.top().at;
    if (Clock::now() < at) {
      m_proxyChanged.wait_until(lock, at);
      continue;
    }
    Task task = m_tasks.top();
    m_tasks.pop();
    ++m_running;
    lock.unlock();
    task.run();
    lock.lock();
    --m_running;
    m_proxyChanged.notify_all();
  }
}

void SimNccl::flush() {
  std::unique_lock lock(m_proxyMutex);
  m_proxyChanged.wait(lock, [&] { return m_tasks.empty() && m_running == 0; });
}

ncclResult_t SimNccl::getUniqueId(ncclUniqueId* id) {
  if (!id) return fail(ncclInvalidArgument, "ncclGetUniqueId: null id");
  std::memset(id, 0, sizeof *id);
  std::lock_guard lock(m_mutex);
  // The process id: a unique id travels to other processes (mpirun), whose SimNccl numbers its own.
  const std::string text = format("netsmith-sim-nccl-{}-{}", static_cast<long>(getpid()), ++m_ids);
  std::memcpy(id->internal, text.data(), std::min(text.size(), sizeof id->internal));
  return ncclSuccess;
}

std::shared_ptr<Comm> SimNccl::find(ncclComm_t handle, const char* call) {
  std::lock_guard lock(m_mutex);
  const auto it = m_live.find(static_cast<void*>(handle));
  if (it == m_live.end()) {
    threadErrorDetail() = format("{}: {} is not a live communicator (never created, destroyed or aborted)", call,
                                 static_cast<void*>(handle));
    return nullptr;
  }
  return it->second;
}

ncclResult_t SimNccl::commInitRank(ncclComm_t* out, int ranks, const ncclUniqueId& id, int rank, bool blocking,
                                   Device& device) {
  if (!out || ranks < 1 || rank < 0 || rank >= ranks)
    return fail(ncclInvalidArgument, format("ncclCommInitRank: rank {} of {} ranks", rank, ranks));
  auto comm = std::make_shared<Comm>();
  comm->key = keyOf(id);
  comm->rank = rank;
  comm->ranks = ranks;
  comm->device = &device;
  comm->blocking = blocking;
  {
    std::lock_guard lock(m_mutex);
    m_live[comm.get()] = comm;
  }
  *out = reinterpret_cast<ncclComm_t>(comm.get());
  if (group().depth > 0) {
    group().held.push_back([this, comm] {
      join(comm);
      return comm->blocking ? ncclSuccess : ncclInProgress;
    });
    if (blocking) group().blockingInits.push_back(comm);
    return ncclSuccess;
  }
  join(comm);
  if (!blocking) return ncclInProgress;
  while (comm->state.load() == ncclInProgress) std::this_thread::sleep_for(std::chrono::microseconds(100));
  return comm->state.load();
}

void SimNccl::join(const std::shared_ptr<Comm>& comm) {
  if (comm->device->ordinal == m_initFailure) {
    // A rank whose start-up fails (no transport to its peers, say) reports it at once; it never
    // joins, so the others stay in progress, as NCCL's do, until they are aborted.
    later(delay(0.0002, 0.002), [comm] {
      comm->setAsyncError(ncclSystemError, format("NCCL could not start on cuda:{} (simulated start-up failure, "
                                                  "NETSMITH_SIMULATED_NCCL_INIT_FAILS)",
                                                  comm->device->ordinal));
      comm->state.store(ncclSystemError);
    });
    return;
  }
  std::shared_ptr<Clique> clique;
  {
    std::lock_guard lock(m_mutex);
    auto& slot = m_cliques[comm->key];
    if (!slot) {
      slot = std::make_shared<Clique>();
      slot->ranks = comm->ranks;
      slot->key = comm->key;
      slot->members.resize(static_cast<size_t>(comm->ranks));
      slot->inFolder.assign(static_cast<size_t>(comm->ranks), 0);
    }
    clique = slot;
    if (clique->joined + 1 == clique->ranks) m_cliques.erase(comm->key);  // a unique id serves one communicator
  }
  comm->clique = clique;
  std::vector<std::shared_ptr<Comm>> members;
  {
    std::lock_guard lock(clique->mutex);
    if (clique->ranks != comm->ranks)
      clique->broken = format("rank {} was created with {} ranks, another rank with {}", comm->rank, comm->ranks,
                              clique->ranks);
    else if (clique->members[static_cast<size_t>(comm->rank)])
      clique->broken = format("rank {} was created twice with one unique id", comm->rank);
    else
      clique->members[static_cast<size_t>(comm->rank)] = comm;
    for (const auto& other : clique->members)
      if (other && other != comm && other->device == comm->device)
        clique->broken = format("cuda:{} is both rank {} and rank {}: NCCL needs one GPU per rank",
                                comm->device->ordinal, other->rank, comm->rank);
    if (++clique->joined < clique->ranks) {
      // The other ranks may be in other processes: look for them in the folder, a moment later
      // (the ranks of this process made in one ncclGroupStart/End have joined by then).
      if (clique->joined == 1) later(0.002, [this, clique] { settleAcrossProcesses(clique); });
      return;
    }
    if (clique->settled) return;
    clique->settled = true;  // every rank is in this process: they meet in memory
    if (clique->folder)
      for (size_t r = 0; r < clique->inFolder.size(); ++r)
        if (clique->inFolder[r]) clique->folder->leave(static_cast<int>(r));
    members = clique->members;
  }
  announce(members, clique->broken);
}

// Every rank is in: NCCL's threads finish the set-up a moment later.
void SimNccl::announce(const std::vector<std::shared_ptr<Comm>>& members, const std::string& broken) {
  for (const auto& member : members) {
    if (!member) continue;
    later(delay(0.0002, 0.003), [member, broken] {
      if (broken.empty()) {
        member->state.store(ncclSuccess);
      } else {
        member->setAsyncError(ncclInvalidUsage, broken);
        member->state.store(ncclInvalidUsage);
      }
    });
  }
}

// Note [Simulated NCCL across processes]: this process's ranks of an id that has ranks elsewhere
// join its folder; once every rank is there the communicator works through it.
void SimNccl::settleAcrossProcesses(const std::shared_ptr<Clique>& clique) {
  {
    std::lock_guard lock(clique->mutex);
    if (clique->settled) return;
    bool live = false;
    for (const auto& m : clique->members) live = live || (m && !m->aborted.load());
    if (!live) return;  // every rank of this process was aborted: nothing waits any more
    if (!clique->folder) clique->folder = std::make_shared<CliqueFolder>(clique->key.substr(0, clique->key.find('\0')));
    for (const auto& m : clique->members) {
      if (!m || clique->inFolder[static_cast<size_t>(m->rank)]) continue;
      clique->folder->join(m->rank, {static_cast<long>(getpid()), m->device->busId});
      clique->inFolder[static_cast<size_t>(m->rank)] = 1;
    }
  }
  const auto all = clique->folder->members(clique->ranks);
  if (!all) {
    later(0.001, [this, clique] { settleAcrossProcesses(clique); });
    return;
  }
  std::string broken;
  for (size_t a = 0; a < all->size() && broken.empty(); ++a)
    for (size_t b = a + 1; b < all->size() && broken.empty(); ++b)
      if ((*all)[a].busId == (*all)[b].busId)
        broken = format("rank {} and rank {} are on one GPU (PCI bus {}; NCCL: duplicate GPU detected): give each "
                        "process of the job its own GPU",
                        a, b, (*all)[a].busId);
  std::vector<std::shared_ptr<Comm>> members;
  {
    std::lock_guard lock(clique->mutex);
    if (clique->settled) return;
    clique->settled = true;
    clique->acrossProcesses = true;
    if (clique->broken.empty()) clique->broken = broken;
    members = clique->members;
  }
  {
    std::lock_guard lock(m_mutex);
    const auto it = m_cliques.find(clique->key);
    if (it != m_cliques.end() && it->second == clique) m_cliques.erase(it);
  }
  announce(members, clique->broken);
}

ncclResult_t SimNccl::groupStart() {
  ++group().depth;
  return ncclSuccess;
}

ncclResult_t SimNccl::groupEnd() {
  GroupState& g = group();
  if (g.depth == 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--g.depth > 0) return ncclSuccess;
  std::vector<std::function<ncclResult_t()>> held;
  std::vector<std::shared_ptr<Comm>> blocking;
  held.swap(g.held);
  blocking.swap(g.blockingInits);
  ncclResult_t result = ncclSuccess;
  for (auto& call : held) {
    const ncclResult_t r = call();
    if (r == ncclInProgress && result == ncclSuccess) result = ncclInProgress;
    else if (r != ncclSuccess && r != ncclInProgress) result = r;
  }
  for (const auto& comm : blocking) {
    while (comm->state.load() == ncclInProgress) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (comm->state.load() != ncclSuccess) result = comm->state.load();
  }
  return result;
}

ncclResult_t SimNccl::collective(Kind kind, const float* send, float* recv, size_t count, int root, ncclComm_t handle,
                                 Stream& stream) {
  const char* call = kind == Kind::AllReduce ? "ncclAllReduce" : "ncclBroadcast";
  std::shared_ptr<Comm> comm = find(handle, call);
  if (!comm) return ncclInvalidArgument;
  if (comm->aborted.load()) return fail(ncclInvalidArgument, format("{}: the communicator was aborted", call));
  if (const ncclResult_t e = comm->asyncError.load(); e != ncclSuccess)
    return fail(e, format("{}: {} has an error: {}", call, comm->name(), lastError(handle)));
  if (comm->state.load() == ncclInProgress)
    return fail(ncclInvalidArgument,
                format("{} on {} while its previous call is still in progress (ncclInProgress): a non-blocking "
                       "communicator takes a new call only after ncclCommGetAsyncError reports ncclSuccess",
                       call, comm->name()));
  if (&stream.device() != comm->device)
    return fail(ncclInvalidArgument, format("{} on {}: the stream belongs to cuda:{}", call, comm->name(),
                                            stream.device().ordinal));
  if (kind == Kind::Broadcast && (root < 0 || root >= comm->ranks))
    return fail(ncclInvalidArgument, format("{}: root {} of {} ranks", call, root, comm->ranks));
  const size_t bytes = count * sizeof(float);
  for (const void* buffer : {static_cast<const void*>(send), static_cast<const void*>(recv)}) {
    if (kind == Kind::Broadcast && buffer == send && comm->rank != root && buffer != recv) continue;
    try {
      if (!comm->device->memory->inRange(buffer)) {
        Device* other = m_runtime.deviceOf(buffer);
        throw Fault(other ? format("{} is memory of cuda:{}", buffer, other->ordinal)
                          : format("{} is not device memory", buffer));
      }
      comm->device->memory->translate(buffer, bytes, call);
    } catch (const Fault& f) {
      return fail(ncclInvalidArgument, format("{} on {}: {}", call, comm->name(), f.what()));
    }
  }
  auto enqueue = [this, comm, kind, send, recv, count, root, &stream] {
    const uint64_t seq = comm->issued++;
    ++comm->pending;
    Stream::Op op;
    op.what = format("NCCL {} #{} of {}", kindName(kind), seq + 1, comm->name());
    op.marker = true;  // a faulted rank must still arrive, or its peers would wait for it forever
    op.run = [comm, kind, send, recv, count, root, seq, &stream, what = op.what] {
      runRound(*comm, kind, send, recv, count, root, seq, stream, what);
    };
    stream.enqueue(std::move(op));
  };
  if (group().depth > 0) {
    group().held.push_back([this, comm, enqueue] { return issue(comm, enqueue); });
    return ncclSuccess;
  }
  return issue(comm, enqueue);
}

ncclResult_t SimNccl::issue(const std::shared_ptr<Comm>& comm, std::function<void()> enqueue) {
  bool defer = false;
  if (!comm->blocking) {
    std::lock_guard lock(m_mutex);
    defer = !comm->connected || (m_jitter && std::uniform_real_distribution<double>(0, 1)(m_random) < 0.3);
    comm->connected = true;
  }
  if (!defer) {
    enqueue();
    return ncclSuccess;
  }
  comm->state.store(ncclInProgress);
  later(delay(0.0005, 0.004), [comm, enqueue] {
    if (!comm->aborted.load()) enqueue();
    comm->state.store(ncclSuccess);
  });
  return ncclInProgress;
}

ncclResult_t SimNccl::commGetAsyncError(ncclComm_t handle, ncclResult_t* state) {
  std::shared_ptr<Comm> comm = find(handle, "ncclCommGetAsyncError");
  if (!comm || !state) return ncclInvalidArgument;
  const ncclResult_t error = comm->asyncError.load();
  *state = error != ncclSuccess ? error : comm->state.load();
  return ncclSuccess;
}

ncclResult_t SimNccl::commAbort(ncclComm_t handle) {
  std::shared_ptr<Comm> comm;
  {
    std::lock_guard lock(m_mutex);
    const auto it = m_live.find(static_cast<void*>(handle));
    if (it == m_live.end())
      return fail(ncclInvalidArgument, format("ncclCommAbort: {} is not a live communicator", static_cast<void*>(handle)));
    comm = it->second;
    m_live.erase(it);
  }
  comm->aborted.store(true);
  if (comm->clique) {
    std::lock_guard lock(comm->clique->mutex);
    comm->clique->changed.notify_all();
  }
  leaveFolder(*comm);
  return ncclSuccess;
}

ncclResult_t SimNccl::commFinalize(ncclComm_t handle) {
  std::shared_ptr<Comm> comm = find(handle, "ncclCommFinalize");
  if (!comm) return ncclInvalidArgument;
  if (comm->state.load() == ncclInProgress)
    return fail(ncclInvalidArgument, "ncclCommFinalize while the communicator's last call is in progress");
  if (comm->blocking) {
    while (comm->pending.load() > 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
    return ncclSuccess;
  }
  comm->state.store(ncclInProgress);
  later(delay(0.0002, 0.002), [this, comm] { finishWhenIdle(comm); });
  return ncclInProgress;
}

void SimNccl::finishWhenIdle(const std::shared_ptr<Comm>& comm) {
  if (comm->pending.load() > 0 && !comm->aborted.load()) later(0.0002, [this, comm] { finishWhenIdle(comm); });
  else comm->state.store(ncclSuccess);
}

ncclResult_t SimNccl::commDestroy(ncclComm_t handle) {
  std::shared_ptr<Comm> comm;
  {
    std::lock_guard lock(m_mutex);
    const auto it = m_live.find(static_cast<void*>(handle));
    if (it == m_live.end())
      return fail(ncclInvalidArgument,
                  format("ncclCommDestroy: {} is not a live communicator", static_cast<void*>(handle)));
    comm = it->second;
    m_live.erase(it);
  }
  leaveFolder(*comm);
  return ncclSuccess;
}

void SimNccl::leaveFolder(Comm& comm) {
  if (!comm.clique) return;
  std::lock_guard lock(comm.clique->mutex);
  auto& inFolder = comm.clique->inFolder;
  if (!comm.clique->folder || !inFolder[static_cast<size_t>(comm.rank)]) return;
  inFolder[static_cast<size_t>(comm.rank)] = 0;
  comm.clique->folder->leave(comm.rank, !comm.clique->broken.empty());
}

std::string SimNccl::lastError(ncclComm_t handle) {
  if (handle) {
    std::lock_guard lock(m_mutex);
    const auto it = m_live.find(static_cast<void*>(handle));
    if (it != m_live.end()) {
      std::lock_guard errorLock(it->second->errorMutex);
      if (!it->second->error.empty()) return it->second->error;
    }
  }
  return threadErrorDetail();
}

}  // namespace netsmith::cuda::sim
