#include "engine/comm/hierarchical_communicator.h"

#include <cstring>

#include "engine/core/error.h"

namespace netsmith {

HierarchicalCommunicator::HierarchicalCommunicator(Communicator& local, MpiJob& job, std::vector<std::string> globalNames,
                                                   int firstGlobalRank, double timeoutS)
    : m_local(local), m_job(job), m_names(std::move(globalNames)), m_firstGlobalRank(firstGlobalRank), m_timeoutS(timeoutS) {}

void HierarchicalCommunicator::allReduceSum(float* data, int64_t count) {
  m_local.allReduceSum(data, count);
  if (m_job.size() > 1 && m_local.rank() == 0) {
    try {
      m_buffer.assign(data, data + count);
      auto parts = m_job.gatherFloats(m_buffer, MpiJob::Channel::Data, m_timeoutS, "all-reduce");
      if (m_job.rank() == 0) treeSum(parts, 0, m_job.size(), m_buffer);
      m_job.broadcastFloats(m_buffer, MpiJob::Channel::Data, m_timeoutS, "all-reduce");
      std::memcpy(data, m_buffer.data(), static_cast<size_t>(count) * sizeof(float));
    } catch (const CommError& e) {
      // The process's other workers wait in the broadcast below: release them with the reason.
      m_local.abort(e.what());
      throw;
    }
  }
  m_local.broadcast(data, count, 0);
}

void HierarchicalCommunicator::broadcast(float* data, int64_t count, int root) {
  NS_CHECK(root == 0, "a broadcast across processes must come from global rank 0, not {}", root);
  if (m_job.size() > 1 && m_local.rank() == 0) {
    try {
      m_buffer.assign(data, data + count);
      m_job.broadcastFloats(m_buffer, MpiJob::Channel::Data, m_timeoutS, "broadcast");
      std::memcpy(data, m_buffer.data(), static_cast<size_t>(count) * sizeof(float));
    } catch (const CommError& e) {
      m_local.abort(e.what());
      throw;
    }
  }
  m_local.broadcast(data, count, 0);
}

void HierarchicalCommunicator::barrier() {
  float nothing = 0;
  allReduceSum(&nothing, 1);
}

}  // namespace netsmith
