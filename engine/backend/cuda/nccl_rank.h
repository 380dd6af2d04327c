// One rank of an NcclGroup (nccl_group.h): its Communicator, made and attached through these
// functions over the group's shared state (nccl_group_state.h). nccl_group.cpp starts and ends the
// group (NCCL's communicators); nccl_rank.cpp is one rank's collectives (Note [NCCL collectives]).
#pragma once

#include <memory>

#include "engine/backend/cuda/nccl_group_state.h"
#include "engine/comm/communicator.h"

namespace netsmith::cuda {

class CudaDeviceContext;

// This process's rank number `local` of the group: Note [NCCL collectives].
std::unique_ptr<Communicator> makeNcclRank(std::shared_ptr<NcclGroupState> shared, int local);
// The worker's device for a rank made by makeNcclRank (its first collective, a warm-up, runs here).
void attachNcclRank(Communicator& rank, CudaDeviceContext& device);

}  // namespace netsmith::cuda
