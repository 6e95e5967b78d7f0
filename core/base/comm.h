// Communication vocabulary shared by the task graph (what an operator communicates, with which
// group) and the cost model (how long it takes): one enum of collectives, one of groups.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "base/enums.h"

namespace optimus {

// all_to_all: every rank sends a distinct 1/P of its buffer to every other rank (expert-parallel
// token dispatch and combine); the others are the usual ring collectives (cost/collective.h).
OPTIMUS_ENUM(Collective, all_reduce, all_gather, reduce_scatter, p2p, all_to_all);

// The parallel group an operator communicates with: tensor, context, expert, data or pipeline.
// etp: expert tensor parallel; edp: the expert layers' data-parallel replicas (gradients of the
// routed experts reduce there, Megatron-Core MoE parallel folding). zero_shard / zero_replica:
// under hybrid sharding (parallel.zero_shard) the data-parallel ranks sharing one copy of the
// ZeRO state, and the copies of one shard across those groups.
OPTIMUS_ENUM(CommGroup, tp, cp, ep, dp, pp, etp, edp, zero_shard, zero_replica);

inline constexpr std::size_t kCommGroups = EnumNames<CommGroup>::table.size();

}  // namespace optimus
