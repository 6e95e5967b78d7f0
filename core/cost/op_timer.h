// The one operator timer: an operator of the task graph (model/graph.h) in a context (device,
// precision, operand widths, workload, group placement, launch policy) gives its time and what
// bounds it. Training (predict/training.cpp) and inference (predict/inference.cpp) both time
// their graphs through it.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "base/comm.h"
#include "base/flat_cache.h"
#include "cost/collective.h"
#include "cost/roofline.h"
#include "model/graph.h"

namespace optimus {

// Training times forward and backward passes of attention as matmuls over the score blocks;
// inference times attention as a roofline that also reads the KV cache.
enum class Workload { training, inference };

// Matmul rooflines remembered across the layouts of one search: layouts that differ in keys the
// GEMM shapes do not depend on (pipeline depth, data parallelism, recompute, ZeRO) time the same
// GEMMs, and the tile model (cost/roofline.cpp) is most of a search's time. Every argument of
// matmul_cost is in the key, the device by address, so a memo must not outlive the device it saw.
// MatmulCache (below) keys one fixed context by shape alone, cheaper where the context cannot
// change: inference through this memo instead was 11-13% slower per predict (2026-11-27).
class GemmMemo {
 public:
  OpCost cost(const DeviceSpec& d, const MatmulShape& s, Precision math, double in_bytes, double weight_bytes,
              double out_bytes, double rate_share);
  std::size_t size() const { return entries_.size(); }

 private:
  struct Key {
    const DeviceSpec* dev;
    std::int64_t m, n, k, batch;
    double in_bytes, weight_bytes, out_bytes, rate_share;
    Precision math;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& key) const;
  };
  FlatCache<Key, OpCost, Hash> entries_;
};

struct OpContext {
  GemmMemo* gemm_memo = nullptr;  // optional (a layout search's): matmul rooflines remembered
  const DeviceSpec* dev = nullptr;
  const SystemSpec* sys = nullptr;
  Workload workload = Workload::training;
  Precision math = Precision::bf16;  // matmul precision
  double in_bytes = 2;               // a matmul's activation operand
  double weight_bytes = 2;           // a matmul's weight operand (quantised in inference)
  double head_weight_bytes = 2;      // the LM head's weight (kept at 16 bits by quantised inference)
  double act_bytes = 2;              // activations written, attention operands
  double kv_bytes = 2;               // a KV-cache element (inference)
  std::array<GroupPlacement, kCommGroups> groups{};  // by CommGroup
  Seconds launch{};                // host launch interval per kernel (0: none, graph replay)
  double matmul_rate_share = 1.0;  // a training stack's share of the device's matmul rate
  bool kv_per_query_head = false;  // decode attention reads the cache once per query head
  // Prompt attention as three kernels that keep the score matrix in HBM (inference,
  // SoftwareDefaults::unfused_context_attention; op_timer.cpp, unfused_prompt_attention).
  bool unfused_prompt_attention = false;
  // Prompt attention at the fp8 rate (SoftwareDefaults::fp8_context_attention).
  bool fp8_prompt_attention = false;
  // Block-scaled fp8 GEMMs on CUTLASS-based kernels without block-scaled tensor cores (inference:
  // InferenceWorkload::fp8_block_scaled, SoftwareDefaults::block_fp8_gemm): every GEMM with fp8
  // weights takes cutlass_block_fp8_factor(rows) times the roofline's time.
  bool cutlass_block_fp8 = false;
  // Weight-only 4-bit float GEMMs (fp4 weights, 16-bit math, InferenceWorkload::
  // activation_precision) on a device without fp4 units: the weights are converted on the CUDA
  // cores in the kernel's main loop (with_fp4_weight_dequant, cost/roofline.h).
  bool fp4_weight_dequant = false;
  // The weights outside the routed experts stay at 16 bits and multiply in 16 bits (inference of a
  // checkpoint quantised in its experts only: scenario.h dense_weights_16bit): every weight GEMM
  // but the experts' (Op::expert) reads 2-byte weights at the 16-bit rate.
  bool dense_16bit = false;

  const GroupPlacement& group(CommGroup g) const { return groups[static_cast<std::size_t>(g)]; }
};

// A matmul's forward GEMM and its backward pair: input gradient dX = dY W^T and weight gradient
// dW = X^T dY.
struct MatmulCosts {
  OpCost fwd, dx, dw;
};
MatmulCosts matmul_costs(const OpContext& c, const Op& op, bool backward);

// The forward kernel(s) of a matmul, attention or element-wise operator, with the host launch
// bound of the context applied.
OpCost forward_cost(const OpContext& c, const Op& op);

// How much longer a first-generation fused kernel's matmuls take than FlashAttention-2's: Dao 2023
// (FlashAttention-2, arXiv 2307.08691), abstract: FlashAttention-2 yields "around 2x speedup
// compared to FlashAttention" (Sec. 4: 1.7-3.0x over FlashAttention, 1.3-2.5x over the Triton
// implementation, on A100; Sec. 4.1: about 2x over FlashAttention and xformers' cutlass kernel,
// 1.3-1.5x over Triton's forward and about 2x over its backward). One factor for both passes:
// a Triton forward is over-charged somewhat. The engine's `flash` costs are FlashAttention-2-class
// (its QK^T and PV matmuls at the device's matmul rate for those shapes, 45-55% of an A100's peak
// at head dimension 128, within FlashAttention-2's published 50-73% forward and lower backward).
inline constexpr double kFlash1Slowdown = 2.0;

// Attention in training: the forward (QK^T, PV) or the backward (dV, dP, dQ, dK, and the
// recomputed QK^T in a fused kernel) as matmuls, plus the score traffic of an unfused kernel.
struct AttentionCosts {
  OpCost matmuls, scores;  // scores: zero time when the kernel is fused
};
struct TrainingAttention {
  AttentionCosts fwd, bwd;
};
TrainingAttention training_attention(const OpContext& c, const Op& op, AttentionKernel kernel);

// An element-wise operator's backward kernel (one of `op.backward_kernels`).
OpCost elementwise_backward(const OpContext& c, const Op& op);

// Quantised GEMMs (fp8, MXFP8, NVFP4) take quantised operands: Transformer Engine casts the
// 16-bit input (forward) or the incoming gradient (backward) to the format and writes a
// transposed copy for the other GEMM of the pair: read 2 bytes, write 2 x the format's bytes
// (block scales included) per element; fp8: 2 + 1 + 1.
OpCost quantise_cast(const OpContext& c, double elements);

// A communication operator over its group's placement.
Seconds comm_cost(const OpContext& c, const Op& op);

// Forward matmul costs remembered by shape, for loops that time the same GEMMs again (the decode
// steps of one generation differ only in their attention). The context must stay the same.
// A serving simulation asks for thousands of distinct token counts, so shapes are hashed.
class MatmulCache {
 public:
  const OpCost& forward(const OpContext& c, const Op& op);

 private:
  struct Key {
    std::int64_t m, n, k, batch;
    bool head, dense_16bit;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  std::unordered_map<Key, OpCost, KeyHash> entries_;
};

// An eager runtime issues kernels one by one from the host; a kernel shorter than the host's
// issue interval costs the interval.
OpCost host_bound(OpCost c, Seconds launch);

}  // namespace optimus
