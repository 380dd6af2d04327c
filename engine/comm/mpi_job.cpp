#include "engine/comm/mpi_job.h"

// The C API only: Open MPI's deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "engine/core/error.h"

namespace netsmith {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTagFloats = 1;
constexpr int kTagText = 2;

MPI_Comm asComm(void* c) { return reinterpret_cast<MPI_Comm>(c); }

// Polls until `ready()` or the deadline; a partner is usually microseconds away, so it spins
// briefly before sleeping between polls.
template <class Ready>
bool pollUntil(Clock::time_point deadline, Ready ready) {
  for (int i = 0;; ++i) {
    if (ready()) return true;
    if (Clock::now() >= deadline) return false;
    if (i > 2000) std::this_thread::sleep_for(std::chrono::microseconds(i > 20000 ? 1000 : 50));
  }
}

// Waits for every request until the deadline; returns the index of the first one that did not
// finish, or -1.
int firstUnfinished(std::vector<MPI_Request>& requests, Clock::time_point deadline) {
  std::vector<int> done(requests.size(), 0);
  const bool all = pollUntil(deadline, [&] {
    bool complete = true;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (!done[i]) MPI_Test(&requests[i], &done[i], MPI_STATUS_IGNORE);
      complete = complete && done[i];
    }
    return complete;
  });
  if (all) return -1;
  for (size_t i = 0; i < done.size(); ++i)
    if (!done[i]) return static_cast<int>(i);
  return -1;
}

Clock::time_point deadlineAfter(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(seconds, 1e7)));
}

}  // namespace

bool MpiJob::launchedByMpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

MpiJob& MpiJob::instance() {
  static MpiJob job;
  return job;
}

MpiJob::MpiJob() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  NS_CHECK(provided >= MPI_THREAD_MULTIPLE,
           "MPI: this Open MPI gives thread level {} but training needs MPI_THREAD_MULTIPLE (3): workers and the "
           "coordinating thread exchange data at once",
           provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m_size);
  MPI_Comm data = MPI_COMM_NULL, control = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &data);
  MPI_Comm_dup(MPI_COMM_WORLD, &control);
  m_data = reinterpret_cast<void*>(data);
  m_control = reinterpret_cast<void*>(control);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<size_t>(m_size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, control);
  for (int r = 0; r < m_size; ++r) m_hosts.emplace_back(all.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME);
}

void* MpiJob::comm(Channel c) const { return c == Channel::Data ? m_data : m_control; }

std::string MpiJob::describe(int rank) const { return format("rank {} ({})", rank, host(rank)); }

std::vector<std::vector<float>> MpiJob::gatherFloats(const std::vector<float>& mine, Channel channel, double timeoutS,
                                                     const std::string& what) {
  const MPI_Comm c = asComm(comm(channel));
  const auto deadline = deadlineAfter(timeoutS);
  const int count = static_cast<int>(mine.size());
  std::vector<std::vector<float>> out;
  if (m_rank != 0) {
    MPI_Request request;
    MPI_Isend(mine.data(), count, MPI_FLOAT, 0, kTagFloats, c, &request);
    int done = 0;
    if (!pollUntil(deadline, [&] { MPI_Test(&request, &done, MPI_STATUS_IGNORE); return done != 0; }))
      throw CommError(format("{} did not take part in the {} within {} s", describe(0), what, timeoutS), 0);
    return out;
  }
  out.resize(static_cast<size_t>(m_size));
  out[0] = mine;
  std::vector<MPI_Request> requests(static_cast<size_t>(m_size - 1));
  for (int r = 1; r < m_size; ++r) {
    out[static_cast<size_t>(r)].resize(mine.size());
    MPI_Irecv(out[static_cast<size_t>(r)].data(), count, MPI_FLOAT, r, kTagFloats, c, &requests[static_cast<size_t>(r - 1)]);
  }
  if (const int late = firstUnfinished(requests, deadline); late >= 0)
    throw CommError(format("{} did not reach the {} within {} s", describe(late + 1), what, timeoutS), late + 1);
  return out;
}

void MpiJob::broadcastFloats(std::vector<float>& data, Channel channel, double timeoutS, const std::string& what) {
  const MPI_Comm c = asComm(comm(channel));
  const auto deadline = deadlineAfter(timeoutS);
  const int count = static_cast<int>(data.size());
  if (m_rank == 0) {
    std::vector<MPI_Request> requests(static_cast<size_t>(m_size - 1));
    for (int r = 1; r < m_size; ++r) MPI_Isend(data.data(), count, MPI_FLOAT, r, kTagFloats, c, &requests[static_cast<size_t>(r - 1)]);
    if (const int late = firstUnfinished(requests, deadline); late >= 0)
      throw CommError(format("{} did not receive the {} within {} s", describe(late + 1), what, timeoutS), late + 1);
    return;
  }
  MPI_Request request;
  MPI_Irecv(data.data(), count, MPI_FLOAT, 0, kTagFloats, c, &request);
  int done = 0;
  if (!pollUntil(deadline, [&] { MPI_Test(&request, &done, MPI_STATUS_IGNORE); return done != 0; }))
    throw CommError(format("{} did not send the {} within {} s", describe(0), what, timeoutS), 0);
}

std::vector<std::string> MpiJob::gatherText(const std::string& mine, double timeoutS, const std::string& what) {
  const MPI_Comm c = asComm(m_control);
  const auto deadline = deadlineAfter(timeoutS);
  std::vector<std::string> out;
  if (m_rank != 0) {
    MPI_Request request;
    MPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, 0, kTagText, c, &request);
    int done = 0;
    if (!pollUntil(deadline, [&] { MPI_Test(&request, &done, MPI_STATUS_IGNORE); return done != 0; }))
      throw CommError(format("{} did not take part in the {} within {} s", describe(0), what, timeoutS), 0);
    return out;
  }
  out.resize(static_cast<size_t>(m_size));
  out[0] = mine;
  for (int r = 1; r < m_size; ++r) {
    MPI_Status status;
    int arrived = 0;
    if (!pollUntil(deadline, [&] { MPI_Iprobe(r, kTagText, c, &arrived, &status); return arrived != 0; }))
      throw CommError(format("{} did not reach the {} within {} s", describe(r), what, timeoutS), r);
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    out[static_cast<size_t>(r)].resize(static_cast<size_t>(length));
    MPI_Recv(out[static_cast<size_t>(r)].data(), length, MPI_CHAR, r, kTagText, c, MPI_STATUS_IGNORE);
  }
  return out;
}

void MpiJob::broadcastText(std::string& text, double timeoutS, const std::string& what) {
  const MPI_Comm c = asComm(m_control);
  const auto deadline = deadlineAfter(timeoutS);
  if (m_rank == 0) {
    std::vector<MPI_Request> requests(static_cast<size_t>(m_size - 1));
    for (int r = 1; r < m_size; ++r)
      MPI_Isend(text.data(), static_cast<int>(text.size()), MPI_CHAR, r, kTagText, c, &requests[static_cast<size_t>(r - 1)]);
    if (const int late = firstUnfinished(requests, deadline); late >= 0)
      throw CommError(format("{} did not receive the {} within {} s", describe(late + 1), what, timeoutS), late + 1);
    return;
  }
  MPI_Status status;
  int arrived = 0;
  if (!pollUntil(deadline, [&] { MPI_Iprobe(0, kTagText, c, &arrived, &status); return arrived != 0; }))
    throw CommError(format("{} did not send the {} within {} s", describe(0), what, timeoutS), 0);
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  text.resize(static_cast<size_t>(length));
  MPI_Recv(text.data(), length, MPI_CHAR, 0, kTagText, c, MPI_STATUS_IGNORE);
}

void MpiJob::finalize() {
  if (m_finalized) return;
  m_finalized = true;
  MPI_Finalize();
}

void MpiJob::abandon(int exitCode) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(exitCode);
}

}  // namespace netsmith
