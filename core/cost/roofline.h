// Time of one operator on one device: a hierarchical roofline (compute, L2, HBM) where the
// compute roof of a matrix multiply is lowered by tile quantization, wave quantization and the
// per-tile pipeline fill, all from the device's geometry (DeepFlow, arXiv 2211.03309, Sec. 4;
// the NVIDIA "Matrix Multiplication Background" guide for tile/wave quantization).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "base/precision.h"
#include "base/units.h"
#include "hardware/spec.h"

namespace optimus {

// host: the kernel is shorter than the runtime's host launch interval, so the host sets its
// pace (inference with an eager runtime, core/predict/inference.cpp).
OPTIMUS_ENUM(Bound, compute, memory, l2, latency, host);

// The bound's name as the JSON output and the studies spell it.
inline const char* to_string(Bound b) { return name_of(b).data(); }

struct OpCost {
  Seconds time{};
  Seconds compute_time{};  // FLOPs at the achievable (shape-dependent) rate
  Seconds memory_time{};   // HBM bytes at achievable bandwidth
  Seconds l2_time{};       // L2 bytes at L2 bandwidth
  Flops flops{};
  Bytes hbm_bytes{};
  Bound bound = Bound::compute;
  double efficiency = 1.0;  // achieved fraction of the precision's dense peak
};

struct MatmulShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;  // independent matmuls of this shape in one kernel (batched GEMM)
};

// Matrix multiply C[m,n] = A[m,k] B[k,n], `batch` times, inputs in `in`, output in `out`.
// `weight_bytes_per_element` overrides the size of B (weight-only quantized inference).
// `rate_share` scales the device's matmul rate for a software stack whose kernels reach only that
// share of it (SoftwareDefaults::training_matmul_share in training; 1 = the device's calibrated rate).
OpCost matmul_cost(const DeviceSpec& d, const MatmulShape& s, Precision math, double in_bytes,
                   double weight_bytes, double out_bytes, double rate_share = 1.0);

// A memory-bound element-wise / reduction kernel moving `bytes` through HBM with `flops`
// of vector math (norms, softmax, activations, residuals, optimizer).
OpCost elementwise_cost(const DeviceSpec& d, Bytes bytes, Flops flops);

// How much longer a CUTLASS-based block-scaled FP8 GEMM with `m` rows per group (per expert in a
// grouped GEMM) takes on Hopper than the engine's roofline, which reproduces DeepGEMM (tests/
// validation/data/kernels_deepgemm.csv): the speedups DeepGEMM's README published over DeepSeek's
// CUTLASS 3.6 implementation of the same GEMMs on H800 (deepseek-ai/DeepGEMM @327ec92f,
// "Performance"), averaged per row count: 1.78 at 64 rows and 1.77 at 128 (12 dense shapes; the
// fine-grained scales are applied and partial sums promoted on the CUDA cores in the main loop,
// DeepSeek-V3 report Sec. 3.3.2, which costs most when few rows share each weight tile), 1.15,
// 1.2 and 1.2 at 256, 512 and 1024 rows per group (masked grouped GEMMs, the decode layout),
// 1.25 at 4096 and 1.3 at 8192 (dense and contiguous grouped); linear in log2(m) between, flat
// beyond.
double cutlass_block_fp8_factor(std::int64_t m);

// A weight-only GEMM with 4-bit float weights (MXFP4 weights, 16-bit activations: W4A16) on a
// device without fp4 units, from its roofline cost `r`: the weights are converted to bf16 on the
// CUDA cores in the kernel's main loop, for every weight tile and every row tile that reads it,
// as Triton's MoE kernel does (triton_kernels matmul_ogs: TensorRT-LLM's and vLLM's gpt-oss MoE
// backend on Hopper). Per 8 weights the e2m1 -> bf16 conversion is 17 integer instructions
// (Triton's NVIDIA backend, FP4ToBP16Ptx in third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/
// Fp4ToFpOpToLLVM.cpp: 2 masks, 3 shifts, 10 byte permutes and 2 ors; Hopper has no
// conversion instruction for e2m1) and 4 packed bf16x2 multiplies apply the E8M0 block scale:
// 21 / 8 instructions per weight, issued at the integer pipe's rate, 64 lanes per SM and clock
// against 128 FP32 lanes (CUDA C++ Programming Guide, "Arithmetic Instructions" throughput
// table, compute capability 8.x-9.0: 32-bit bitwise and shift 64, FP32 multiply-add 128), so a
// quarter of the device's FP32 FLOP rate (two FLOPs per multiply-add). Row tiles: triton_kernels'
// default block_m, max(16, min(next_pow2(rows), 128)) (matmul_ogs_details/opt_flags.py), so every
// 128 rows beyond the first convert the weights again. The warps that convert also issue the
// multiply-adds of the rows present (no warp specialisation): the compute path is the conversion
// plus the row tiles' FLOPs at the achievable rate, when longer than the roofline's; loads of the next
// stage overlap it. Shared-memory round trips and address arithmetic are left out: a lower bound.
OpCost with_fp4_weight_dequant(const DeviceSpec& d, const MatmulShape& s, Precision math, double rate_share,
                               OpCost r);

}  // namespace optimus
