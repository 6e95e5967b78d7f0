#include "cost/roofline.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

#include "base/math.h"

namespace optimus {

double cutlass_block_fp8_factor(std::int64_t m) {
  static constexpr std::array<std::pair<double, double>, 7> kTable = {
      {{64, 1.78}, {128, 1.77}, {256, 1.15}, {512, 1.2}, {1024, 1.2}, {4096, 1.25}, {8192, 1.3}}};
  const double x = std::log2(std::max(1.0, static_cast<double>(m)));
  if (x <= std::log2(kTable.front().first)) return kTable.front().second;
  for (std::size_t i = 1; i < kTable.size(); ++i) {
    const double x1 = std::log2(kTable[i].first);
    if (x <= x1) {
      const double x0 = std::log2(kTable[i - 1].first);
      return kTable[i - 1].second + (kTable[i].second - kTable[i - 1].second) * (x - x0) / (x1 - x0);
    }
  }
  return kTable.back().second;
}

namespace {
// The matmul rate a device sustains in `mr`'s format: its tensor-core rate times the measured
// efficiency (the 8-bit one for narrow formats where measured), the sustained ratio and the
// stack's share.
double sustained_matmul_rate(const DeviceSpec& d, const MathRate& mr, double rate_share) {
  const double eff =
      is_narrow(mr.used) && d.matmul_efficiency_8bit > 0 ? d.matmul_efficiency_8bit : d.matmul_efficiency;
  return mr.rate.value * eff * d.sustained_ratio * rate_share;
}
}  // namespace

OpCost with_fp4_weight_dequant(const DeviceSpec& d, const MatmulShape& s, Precision math, double rate_share,
                               OpCost r) {
  if (d.vector_peak.value <= 0) return r;
  constexpr double kInstructionsPerWeight = 21.0 / 8.0;
  const double rows = static_cast<double>(std::max<std::int64_t>(1, s.m));
  const double block_m = std::clamp(std::exp2(std::ceil(std::log2(rows))), 16.0, 128.0);
  const double row_tiles = std::ceil(rows / block_m);
  const double weights = static_cast<double>(s.n) * static_cast<double>(s.k) * static_cast<double>(s.batch);
  const double integer_rate = d.vector_peak.value / 4.0;
  const double dequant = weights * row_tiles * kInstructionsPerWeight / integer_rate;
  // The same warps then issue the multiply-adds of their row tiles (rows padded to block_m).
  const MathRate mr = math_rate(d, math);
  const double peak = sustained_matmul_rate(d, mr, rate_share);
  const double mma_flops = 2.0 * row_tiles * block_m * weights;
  const Seconds path(dequant + (peak > 0 ? mma_flops / peak : 0.0));
  if (path <= r.compute_time) return r;
  r.compute_time = path;
  const Seconds roof = max(r.compute_time, max(r.l2_time, r.memory_time));
  r.bound = roof == r.compute_time ? Bound::compute : (roof == r.memory_time ? Bound::memory : Bound::l2);
  r.time = roof + d.kernel_overhead;
  r.efficiency = r.flops.value / (r.time.value * mr.rate.value);
  return r;
}

OpCost matmul_cost(const DeviceSpec& d, const MatmulShape& s, Precision math, double in_bytes,
                   double weight_bytes, double out_bytes, double rate_share) {
  OpCost c;
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  const double batch = static_cast<double>(s.batch);
  c.flops = Flops(2.0 * m * n * k * batch);
  const MathRate mr = math_rate(d, math);
  const double peak = sustained_matmul_rate(d, mr, rate_share);
  const double sms = static_cast<double>(std::max<std::int64_t>(1, d.compute_units));
  const double per_sm = peak / sms;

  // Compute roof: for each tile shape (and split-K when there are too few tiles to fill the
  // device), the time is waves * time of one tile, where a tile computes tm x tn x (K + k0)
  // multiply-adds at one SM's share of the rate; k0 is the pipeline fill and epilogue.
  double best = std::numeric_limits<double>::infinity();
  double best_l2 = 0;
  const double split_max = static_cast<double>(d.split_k_max);
  const double split_min_k = static_cast<double>(d.split_k_min_k);
  // Skinny GEMMs (fewer rows than the smallest tile, as a decode step's tokens) run with the
  // operands swapped: the weights' columns take the MMA's wide M side and the few tokens its N side,
  // which is as narrow as 8 (Hopper wgmma m64nNk16, N a multiple of 8; Ampere mma.sync m16n8), so
  // the tokens are padded to the next power of two of at least 8, not to a 64-row tile. vLLM's
  // CUTLASS fp8 GEMMs dispatch small M to such swap_ab configurations
  // (csrc/quantization/cutlass_w8a8/c3x/scaled_mm_sm90_fp8_dispatch.cuh) and cuBLAS picks narrow
  // tiles for them; a 64-row pad made H20's batch-1 decode compute-bound, slower than H100's (a
  // probe's finding), where its 4.0 TB/s should make it faster.
  const auto consider = [&](const GemmTile& t) {
    const double row_tiles = ceil_div(m, static_cast<double>(t.m));
    const double col_tiles = ceil_div(n, static_cast<double>(t.n));
    const double tiles_mn = row_tiles * col_tiles * batch;
    // L2 -> SM traffic of this tiling: A is streamed once per column of tiles, B once per row
    // of tiles (the same for every split of K).
    const double l2_bytes = batch * (m * k * in_bytes * col_tiles + k * n * weight_bytes * row_tiles);
    const double l2_time = d.l2_bandwidth.value > 0 ? l2_bytes / d.l2_bandwidth.value : 0.0;
    const double tile_area = static_cast<double>(t.m) * static_cast<double>(t.n);
    // A kernel's compute time, kept when it and the L2 roof beat the best so far.
    const auto take = [&](double time) {
      const double t_total = std::max(time, l2_time);
      if (t_total < best) {
        best = t_total;
        best_l2 = l2_time;
        c.compute_time = Seconds(time);
      }
    };
    // Stream-K (Osama, Merrill, Cecka, Garland and Owens 2023, "Stream-K: Work-centric Parallel
    // Decomposition for Dense Matrix-Matrix Multiplication on the GPU", PPoPP; CUTLASS's
    // sm90 stream-K tile scheduler): the tiles' K iterations are dealt out evenly over the
    // compute units, so each computes tiles x K / units of depth whatever the tile count, paying
    // the pipeline fill once per tile or tile segment it starts (one per whole wave of tiles,
    // and two for the shared remainder, whose range may straddle two tiles), at most split_k_max
    // segments per tile, and the shared tiles' fp32 partial sums written and read back once
    // through memory. The faster of this and the waves below is taken, as the library's
    // heuristic picks a kernel; measured on one H200 (docs/method.md, stream-K).
    if (d.stream_k) {
      const double whole = std::floor(tiles_mn / sms);
      const bool shared = tiles_mn > whole * sms;
      const double depth = std::max(tiles_mn * k / sms, k / split_max);
      const double segments = whole + (shared ? 2.0 : 0.0);
      const double fixup =
          shared ? std::min(tiles_mn, sms) * tile_area * 4.0 * 2.0 / d.streaming_rate() : 0.0;
      take(2.0 * tile_area * (depth + segments * d.tile_overhead_k) / per_sm + fixup);
    }
    for (double split = 1; split <= split_max; split *= 2) {
      if (split > 1 && (tiles_mn * split > d.split_k_max_waves * sms || k / split < split_min_k)) break;
      const double waves = ceil_div(tiles_mn * split, sms);
      const double k_tile = k / split + d.tile_overhead_k;
      // Split-K partial sums are reduced in fp32 through memory.
      const double reduce = split > 1 ? (split * m * n * batch * 4.0 * 2.0) / d.streaming_rate() : 0.0;
      take(waves * 2.0 * tile_area * k_tile / per_sm + reduce);
    }
  };
  std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
  for (const GemmTile& t : d.gemm_tiles) {
    consider(t);
    smallest = std::min(smallest, t.m);
  }
  if (s.m < smallest) {
    const auto narrow =
        std::max<std::int64_t>(8, static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(s.m))));
    for (const GemmTile& t : d.gemm_tiles)
      if (narrow < t.m) consider(GemmTile{narrow, t.m});
  }
  c.l2_time = Seconds(best_l2);
  // HBM roof: compulsory traffic (each operand read once, result written once).
  c.hbm_bytes = Bytes(batch * (m * k * in_bytes + k * n * weight_bytes + m * n * out_bytes));
  c.memory_time = c.hbm_bytes / Bandwidth(d.hbm_bandwidth.value * d.memory_efficiency);
  Seconds roof = max(c.compute_time, max(c.l2_time, c.memory_time));
  c.bound = roof == c.compute_time ? Bound::compute : (roof == c.memory_time ? Bound::memory : Bound::l2);
  c.time = roof + d.kernel_overhead;
  c.efficiency = c.flops.value / (c.time.value * mr.rate.value);
  return c;
}

OpCost elementwise_cost(const DeviceSpec& d, Bytes bytes, Flops flops) {
  OpCost c;
  c.flops = flops;
  c.hbm_bytes = bytes;
  c.memory_time = bytes / Bandwidth(d.hbm_bandwidth.value * d.memory_efficiency);
  c.compute_time = d.vector_peak.value > 0 ? flops / d.vector_peak : Seconds(0);
  const Seconds roof = max(c.memory_time, c.compute_time);
  c.bound = roof == c.memory_time ? Bound::memory : Bound::compute;
  c.time = roof + d.kernel_overhead;
  c.efficiency = 0;
  return c;
}

}  // namespace optimus
