// Which attention kernel a layer runs: what the model's operator graph (model/graph.cpp) and the
// memory model need to know of it. The costs of each kernel are cost/op_timer.cpp's; which one a
// software stack runs by default is hardware/spec.h's SoftwareDefaults.
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "base/enums.h"

namespace optimus {

// Attention kernel: fused (FlashAttention-2-class, Dao 2023), a first-generation fused kernel
// (FlashAttention v1, Dao et al. 2022, and the Triton FlashAttention of the same era) or unfused
// (scores in HBM).
OPTIMUS_ENUM(AttentionKernel, flash, standard, flash1);
// Fused kernels keep the scores on chip (no score matrix in HBM, only a log-sum-exp per query)
// and skip the blocks above a causal diagonal.
constexpr bool fused_attention(AttentionKernel k) { return k != AttentionKernel::standard; }

}  // namespace optimus
