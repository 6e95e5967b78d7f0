#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cost/collective.h"
#include "cost/op_timer.h"
#include "cost/roofline.h"
#include "io/presets.h"

namespace optimus::cost_test {
namespace {

DeviceSpec toy_device() {
  DeviceSpec d;
  d.name = "toy";
  d.peak[static_cast<std::size_t>(Precision::bf16)] = teraflops(100);
  d.vector_peak = teraflops(10);
  d.hbm_bandwidth = gigabytes_per_s(1000);
  d.hbm_capacity = gibibytes(16);
  d.compute_units = 10;
  d.matmul_efficiency = 1.0;
  d.memory_efficiency = 1.0;
  d.tile_overhead_k = 0;
  d.kernel_overhead = Seconds(0);
  return d;
}

TEST(Roofline, LargeMatmulReachesPeak) {
  const DeviceSpec d = toy_device();
  // 2560 x 1280 x 4096: 10 x 10 tiles of 256x128 = 100 tiles = 10 full waves, no L2 roof.
  const OpCost c = matmul_cost(d, {2560, 1280, 4096, 1}, Precision::bf16, 2, 2, 2);
  EXPECT_DOUBLE_EQ(c.flops.value, 2.0 * 2560 * 1280 * 4096);
  EXPECT_EQ(c.bound, Bound::compute);
  EXPECT_NEAR(c.time.value, c.flops.value / 100e12, 1e-12);
}

TEST(Roofline, WaveQuantization) {
  const DeviceSpec d = toy_device();
  // 11 tiles of 256x128 on 10 units would need two waves; 10 tiles need one. The best
  // alternative tiling (smaller tiles, split-K) softens the step as a BLAS library does, but
  // 10% more work still costs more than 10% more time.
  const OpCost ten = matmul_cost(d, {2560, 128, 8192, 1}, Precision::bf16, 2, 2, 2);
  const OpCost eleven = matmul_cost(d, {2816, 128, 8192, 1}, Precision::bf16, 2, 2, 2);
  EXPECT_GT(eleven.time.value / ten.time.value, 1.11);
  EXPECT_LT(eleven.efficiency, ten.efficiency);
}

// With stream-K the eleventh tile's work is shared out instead of run as a second wave. Toy
// device, 2816 x 128 x 8192 (2 x 2816 x 128 x 8192 = 5.905 GFLOP, 59.055 us at 100 TFLOP/s), best
// tiling 64 x 64: 44 x 2 = 88 tiles, 8 whole waves and a shared remainder, each unit computing
// 88 x 8192 / 10 = 72,090 K iterations of a 64 x 64 tile (59.055 us, no pipeline fill on this
// device), plus the shared tiles' fp32 partial sums written and read once: 10 x 64 x 64 x 8 B =
// 0.328 MB at 1000 GB/s = 0.328 us. 59.383 us against the ten tiles' 53.687 us: 1.106x for 1.1x
// the work, where the waves alone cost more than 1.11x (WaveQuantization).
TEST(Roofline, StreamKSharesThePartialWave) {
  DeviceSpec d = toy_device();
  d.stream_k = true;
  const OpCost ten = matmul_cost(d, {2560, 128, 8192, 1}, Precision::bf16, 2, 2, 2);
  const OpCost eleven = matmul_cost(d, {2816, 128, 8192, 1}, Precision::bf16, 2, 2, 2);
  EXPECT_NEAR(eleven.compute_time.value, 59.055e-6 + 0.328e-6, 0.002e-6);
  EXPECT_LT(eleven.time.value / ten.time.value, 1.11);
  EXPECT_GE(eleven.time.value / ten.time.value, 1.10);
  // Never slower than the waves: the library picks the faster of the two.
  DeviceSpec waves = d;
  waves.stream_k = false;
  for (const std::int64_t m : {64, 1024, 2816, 4096, 8192})
    EXPECT_LE(matmul_cost(d, {m, 1280, 8192, 1}, Precision::bf16, 2, 2, 2).time.value,
              matmul_cost(waves, {m, 1280, 8192, 1}, Precision::bf16, 2, 2, 2).time.value);
}

TEST(Roofline, GemvIsMemoryBound) {
  const DeviceSpec d = toy_device();
  // 1 x 8192 x 8192: reads 128 MiB of weights; 134 MFLOP would take 1.3 us at peak.
  const OpCost c = matmul_cost(d, {1, 8192, 8192, 1}, Precision::bf16, 2, 2, 2);
  EXPECT_EQ(c.bound, Bound::memory);
  EXPECT_NEAR(c.time.value, (8192.0 * 8192 * 2 + 8192 * 2 + 8192 * 2) / 1000e9, 1e-9);
}

// A skinny GEMM's few rows take the narrow side of a swapped tile (8 rows at least), not a padded
// 64-row tile: on the toy device (100 TFLOP/s over 10 units) one row against 8192 x 8192 weights
// is 8192 / 64 = 128 column tiles of 8 x 64 x 8192 multiply-adds, 13 waves of 0.84 us = 10.9 us,
// where a 64-row tile gave 8 times that (87 us); nine rows are padded to 16. Rows at or above the
// smallest tile keep the tile list as it is.
TEST(Roofline, SkinnyGemmPadsItsRowsToEightNotToATile) {
  DeviceSpec d = toy_device();
  d.split_k_max = 1;
  const OpCost one = matmul_cost(d, {1, 8192, 8192, 1}, Precision::bf16, 2, 2, 2);
  EXPECT_NEAR(one.compute_time.value, 13.0 * 2.0 * 8 * 64 * 8192 / 10e12, 1e-12);
  const OpCost nine = matmul_cost(d, {9, 8192, 8192, 1}, Precision::bf16, 2, 2, 2);  // padded to 16
  EXPECT_NEAR(nine.compute_time.value, 13.0 * 2.0 * 16 * 64 * 8192 / 10e12, 1e-12);
  const OpCost wide = matmul_cost(d, {64, 8192, 8192, 1}, Precision::bf16, 2, 2, 2);  // a 64-row tile
  EXPECT_GE(wide.compute_time.value, 2.0 * 64 * 8192 * 8192 / 100e12);
}

TEST(Roofline, QuantizedWeightsReadFewerBytes) {
  const DeviceSpec d = toy_device();
  const OpCost w16 = matmul_cost(d, {1, 8192, 8192, 1}, Precision::bf16, 2, 2, 2);
  const OpCost w4 = matmul_cost(d, {1, 8192, 8192, 1}, Precision::int4, 2, 0.5, 2);
  EXPECT_NEAR(w4.hbm_bytes.value / w16.hbm_bytes.value, 0.25, 0.01);
}

TEST(Roofline, PrecisionFallback) {
  const DeviceSpec d = toy_device();
  const MathRate r = math_rate(d, Precision::fp8);
  EXPECT_TRUE(r.fallback);
  EXPECT_EQ(r.used, Precision::bf16);
}

// A format without a rate of its own takes the fastest wider one, not the nearest: int4 on B300
// and GB300, whose int8 rate Blackwell Ultra cut to 150-165 TOPS, runs at fp8's (int4 on int8 was
// 30x slower than fp8); where the nearer is as fast (H100: int8 = fp8), the nearer.
TEST(Roofline, PrecisionFallbackTakesTheFastestWiderRate) {
  for (const char* id : {"b300", "gb300"}) {
    const auto d = device_preset(id, "/device");
    ASSERT_TRUE(d.ok()) << id;
    ASSERT_LT(d->peak_for(Precision::int8).value, d->peak_for(Precision::fp8).value) << id;
    const MathRate r = math_rate(*d, Precision::int4);
    EXPECT_TRUE(r.fallback) << id;
    EXPECT_EQ(r.used, Precision::fp8) << id;
    EXPECT_EQ(math_rate(*d, Precision::int8).used, Precision::int8) << id;  // its own rate, slow or not
  }
  const auto h100 = device_preset("h100-sxm5-80gb", "/device");
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(math_rate(*h100, Precision::int4).used, Precision::int8);
}

// A first-generation fused attention kernel (flash1: FlashAttention v1, Triton) takes
// kFlash1Slowdown (2, the FlashAttention-2 paper) times FlashAttention-2's matmul time, forward
// and backward; it keeps the fused kernel's other properties (no score traffic, five backward
// matmuls); standard attention runs four backward matmuls and moves the scores through HBM.
TEST(Attention, FirstGenerationFusedKernelIsHalfAsFast) {
  const auto dev = device_preset("a100-sxm4-80gb", "/device");
  ASSERT_TRUE(dev.ok());
  OpContext c;
  c.dev = &*dev;
  Op op;
  op.kind = OpKind::attention;
  op.m = 2048;
  op.n = 2048;
  op.k = 128;
  op.batch = 32;
  op.causal_fraction = 0.5;
  const TrainingAttention fa2 = training_attention(c, op, AttentionKernel::flash);
  const TrainingAttention fa1 = training_attention(c, op, AttentionKernel::flash1);
  const TrainingAttention std_ = training_attention(c, op, AttentionKernel::standard);
  EXPECT_DOUBLE_EQ(kFlash1Slowdown, 2.0);
  EXPECT_DOUBLE_EQ(fa1.fwd.matmuls.time.value, 2.0 * fa2.fwd.matmuls.time.value);
  EXPECT_DOUBLE_EQ(fa1.bwd.matmuls.time.value, 2.0 * fa2.bwd.matmuls.time.value);
  EXPECT_DOUBLE_EQ(fa1.fwd.matmuls.flops.value, fa2.fwd.matmuls.flops.value);
  // Backward: five matmuls for a fused kernel (P recomputed), four unfused.
  EXPECT_DOUBLE_EQ(fa2.bwd.matmuls.flops.value, 2.5 * fa2.fwd.matmuls.flops.value);
  EXPECT_DOUBLE_EQ(std_.bwd.matmuls.flops.value, 2.0 * std_.fwd.matmuls.flops.value);
  EXPECT_TRUE(fused_attention(AttentionKernel::flash1));
  EXPECT_FALSE(fused_attention(AttentionKernel::standard));
}

// Unfused prompt attention (inference, software.unfused_context_attention): three kernels, the
// batched QK^T GEMM over the full square (no causal block skipped), a softmax that reads and
// writes every score once, and the batched PV GEMM, between three layout kernels
// (FasterTransformer's GPT context attention: QKV bias + head split, K and V into the cache's
// layout, the heads merged back); each of the six held to the host launch interval.
TEST(Attention, UnfusedPromptAttentionIsTheFullSquareBetweenLayoutKernels) {
  const DeviceSpec d = toy_device();
  OpContext c;
  c.dev = &d;
  c.workload = Workload::inference;
  c.math = Precision::bf16;
  Op op;
  op.kind = OpKind::attention;
  op.m = 1024;   // prompt tokens of one sequence
  op.n = 1024;   // keys
  op.k = 128;    // head dim
  op.batch = 8;  // one sequence x 8 heads
  op.sequences = 1;
  op.kv_heads = 8;
  op.kv_bytes = 2.0 * 8 * 128 * 2;
  op.causal_fraction = 0.5;
  const OpCost fused = forward_cost(c, op);
  c.unfused_prompt_attention = true;
  const OpCost unfused = forward_cost(c, op);
  const OpCost qk = matmul_cost(d, {1024, 1024, 128, 8}, Precision::bf16, 2, 2, 2);
  const OpCost pv = matmul_cost(d, {1024, 128, 1024, 8}, Precision::bf16, 2, 2, 2);
  // Softmax: 8 x 1024 x 1024 scores of 2 bytes read and written, 33.55 MB at 1000 GB/s.
  const double softmax = 2.0 * 8 * 1024 * 1024 * 2 / 1000e9;
  EXPECT_NEAR(softmax, 33.554e-6, 1e-9);
  // Layout: Q, K and V each 8 heads x 1024 rows x 128 = 1,048,576 elements of 2 bytes. The split
  // reads and writes all three (12,582,912 B), the cache copy K and V (8,388,608 B), the merge
  // the output (4,194,304 B): 25,165,824 B, 25.166 us at 1000 GB/s (the split's 3,145,728 adds
  // take 0.31 us of the 10 TFLOP/s vector rate, under its memory time).
  const double layout = 25165824.0 / 1000e9;
  EXPECT_NEAR(unfused.time.value, qk.time.value + softmax + pv.time.value + layout, 1e-12);
  EXPECT_NEAR(unfused.hbm_bytes.value - qk.hbm_bytes.value - pv.hbm_bytes.value,
              2.0 * 8 * 1024 * 1024 * 2 + 25165824.0, 1.0);
  // The full square: twice the matmul FLOPs of the fused kernel's causal half.
  EXPECT_NEAR(unfused.flops.value - 5.0 * 8 * 1024 * 1024 - 3145728.0, 4.0 * 8 * 1024 * 1024 * 128, 1.0);
  EXPECT_GT(unfused.time.value, fused.time.value);
  // Decode (one query per sequence) keeps the fused kernel.
  op.m = 1;
  op.causal_fraction = 1.0;
  EXPECT_DOUBLE_EQ(forward_cost(c, op).time.value, [&] {
    OpContext f = c;
    f.unfused_prompt_attention = false;
    return forward_cost(f, op).time.value;
  }());
  // An eager host: each of the six kernels takes at least the launch interval.
  op.m = 4;
  op.n = 4;
  c.launch = Seconds(50e-6);
  EXPECT_DOUBLE_EQ(forward_cost(c, op).time.value, 300e-6);
}

TEST(Roofline, DevicePresetsReproduceTheirMamfMeasurement) {
  // matmul_efficiency is the measured MAMF ratio (kernels.csv); the model's tile and wave
  // losses come on top, so at the MAMF shape the model lands a few percent under it. B300's best
  // shape has K = 1024, where the per-tile overhead (tile_overhead_k 128) alone costs 11%.
  struct Row {
    const char* device;
    std::int64_t m, n, k;
    double tflops;
    double floor = 0.90;  // least share of the MAMF value the model must reach at that shape
  };
  for (const Row r : {Row{"a100-sxm4-80gb", 1024, 10240, 5120, 271.2},
                      Row{"h100-sxm5-80gb", 2048, 2048, 13312, 794.5}, Row{"b200", 1792, 16128, 3072, 1745.0},
                      Row{"mi300x", 10240, 15360, 8192, 668.4}, Row{"b300", 12288, 18432, 1024, 1769.0, 0.85},
                      Row{"mi325x", 13312, 10240, 8192, 784.9}, Row{"mi355x", 12288, 8192, 8192, 1565.0}}) {
    const auto preset = device_preset(r.device, "");
    ASSERT_TRUE(preset.ok());
    // MAMF is a short benchmark: compare without the sustained (power-limited) derating.
    DeviceSpec d = *preset;
    d.sustained_ratio = 1.0;
    const OpCost c = matmul_cost(d, {r.m, r.n, r.k, 1}, Precision::bf16, 2, 2, 2);
    const double got = c.flops.value / c.time.value / 1e12;
    EXPECT_LT(got, r.tflops * 1.001) << r.device;
    EXPECT_GT(got, r.tflops * r.floor) << r.device;
  }
}

struct RingTermsForTest {
  double bytes, steps;
};

NetworkTier plain_tier() {
  NetworkTier t;
  t.bandwidth = gigabytes_per_s(100);
  t.efficiency = 1.0;
  t.bulk_latency = microseconds(5);
  t.ll_efficiency = 0.01;
  t.latency = microseconds(1);
  t.domain_size = 8;
  return t;
}

struct RingCase {
  Collective c;
  std::int64_t p;
  double bytes;
  double expected_s;
};
class RingFormula : public ::testing::TestWithParam<RingCase> {};

// Ring all-reduce 2(P-1)/P S/BW + 2(P-1) alpha; all-gather / reduce-scatter (P-1)/P S/BW + (P-1) alpha.
TEST_P(RingFormula, Exact) {
  const auto c = GetParam();
  EXPECT_NEAR(ring_time(c.c, Bytes(c.bytes), c.p, plain_tier()).value, c.expected_s, 1e-12);
}
INSTANTIATE_TEST_SUITE_P(
    Collectives, RingFormula,
    ::testing::Values(RingCase{Collective::all_reduce, 8, 1e9, 2.0 * 7 / 8 * 1e9 / 100e9 + 14 * 5e-6},
                      RingCase{Collective::all_gather, 8, 1e9, 7.0 / 8 * 1e9 / 100e9 + 7 * 5e-6},
                      RingCase{Collective::reduce_scatter, 4, 4e8, 3.0 / 4 * 4e8 / 100e9 + 3 * 5e-6},
                      RingCase{Collective::p2p, 2, 1e8, 1e8 / 100e9 + 5e-6},
                      // small message: latency-optimised protocol wins
                      RingCase{Collective::all_reduce, 8, 1e3, 2.0 * 7 / 8 * 1e3 / 1e9 + 14 * 1e-6}));

// All-to-all of S bytes per rank: pairwise exchange (P-1)/P S/BW + (P-1) alpha on a switched
// tier; ring (P-1)/2 S/BW + (P-1) alpha where links join neighbours only.
TEST(Collective, AllToAllPairwiseAndRing) {
  NetworkTier t = plain_tier();
  // Pairwise: every peer's message in flight at once, one step's latency.
  EXPECT_NEAR(ring_time(Collective::all_to_all, Bytes(1e9), 8, t).value, 7.0 / 8 * 1e9 / 100e9 + 5e-6, 1e-12);
  EXPECT_NEAR(ring_time(Collective::all_to_all, Bytes(8e3), 64, t).value,
              ring_time(Collective::all_to_all, Bytes(8e3), 8, t).value, 1e-8);  // latency-bound: P-free
  t.all_to_all = AllToAll::ring;
  EXPECT_NEAR(ring_time(Collective::all_to_all, Bytes(1e9), 8, t).value, 7.0 / 2 * 1e9 / 100e9 + 7 * 5e-6,
              1e-12);
  // Across domains: 8 ranks per domain, 32 in all. Of 1 GB a rank sends 7/32 inside its domain
  // (pairwise among 8 over the 100 GB/s scale-up tier) while 24/32 leave it over a 50 GB/s NIC
  // in 24 messages sent together; the slower part sets the time.
  SystemSpec sys;
  sys.scale_up = plain_tier();
  sys.scale_out = plain_tier();
  sys.scale_out.bandwidth = gigabytes_per_s(50);
  const GroupPlacement g = place_group(32, 1, 8);
  const double inside = 7.0 / 8 * (1e9 * 8 / 32) / 100e9 + 5e-6;
  const double outside = 24.0 / 32 * 1e9 / 50e9 + 5e-6;
  EXPECT_NEAR(collective_time(Collective::all_to_all, Bytes(1e9), g, sys).value, std::max(inside, outside),
              1e-12);
}

// A system of two plain tiers, the scale-out one at `out_GBps`.
SystemSpec two_tiers(double out_GBps) {
  SystemSpec sys;
  sys.scale_up = plain_tier();
  sys.scale_out = plain_tier();
  sys.scale_out.bandwidth = gigabytes_per_s(out_GBps);
  return sys;
}

TEST(Collective, HierarchicalAllReduce) {
  const SystemSpec sys = two_tiers(25);
  // 16 ranks, 8 per domain, 2 domains: RS(8) + AR(2) on S/8 + AG(8).
  const GroupPlacement g = place_group(16, 1, 8);
  EXPECT_EQ(g.per_domain, 8);
  EXPECT_EQ(g.domains, 2);
  const double S = 8e9;
  const double expect = 2 * (7.0 / 8 * S / 100e9 + 7 * 5e-6) + (2.0 * 1 / 2 * (S / 8) / 25e9 + 2 * 5e-6);
  EXPECT_NEAR(collective_time(Collective::all_reduce, Bytes(S), g, sys).value, expect, 1e-9);
}

// All-gather across domains as NCCL's single ring over all ranks: the shard S/k over the NIC in
// N - 1 steps, (k - 1)/k of S over the scale-up links in P - N steps (NCCL tuning.cc: intra steps
// nRanks - nNodes), by hand: 64 ranks, 8 per domain, 8 domains.
TEST(Collective, AllGatherAcrossDomainsPaysTheFlatRingLatency) {
  const SystemSpec sys = two_tiers(25);
  const GroupPlacement g = place_group(64, 1, 8);
  const double S = 8e9;
  const double expect = (7.0 / 8 * (S / 8) / 25e9 + 7 * 5e-6) + (7.0 / 8 * S / 100e9 + (64 - 8) * 5e-6);
  EXPECT_NEAR(collective_time(Collective::all_gather, Bytes(S), g, sys).value, expect, 1e-9);
  EXPECT_NEAR(collective_time(Collective::reduce_scatter, Bytes(S), g, sys).value, expect, 1e-9);
  // One rank per domain: nothing moves inside one.
  const GroupPlacement spread = place_group(8, 8, 8);
  EXPECT_NEAR(collective_time(Collective::all_gather, Bytes(S), spread, sys).value,
              7.0 / 8 * S / 25e9 + 7 * 5e-6, 1e-9);
}

// The inference runtime's custom all-reduce (one_shot_all_reduce_time): one stage, a fixed
// synchronisation plus (P - 1) x bytes over the links, for small messages; the two-stage form
// (reduce-scatter then all-gather through the same buffers: twice the synchronisation, 2 (P - 1) / P
// x bytes) once that is faster, as vLLM's and SGLang's kernels switch over.
TEST(Collective, CustomAllReduceOneStageThenTwo) {
  SystemSpec sys;
  sys.scale_up = plain_tier();
  sys.software.custom_allreduce_latency = microseconds(6);
  const GroupPlacement g = place_group(8, 1, 8);
  const double rate = 100e9;
  const auto one = [&](double b) { return 6e-6 + 7.0 * b / rate; };
  const auto two = [&](double b) { return 12e-6 + 2.0 * 7.0 / 8.0 * b / rate; };
  for (double b : {1e3, 64e3, 114e3}) {  // crossover at 6 us x rate / 5.25 = 114.3 kB
    EXPECT_NEAR(one_shot_all_reduce_time(Bytes(b), g, sys).value, one(b), 1e-15) << b;
    EXPECT_LT(one(b), two(b)) << b;
  }
  for (double b : {115e3, 1e6, 8e6}) {
    EXPECT_NEAR(one_shot_all_reduce_time(Bytes(b), g, sys).value, two(b), 1e-15) << b;
    EXPECT_LT(two(b), one(b)) << b;
  }
}

TEST(Collective, PlacementByStride) {
  EXPECT_EQ(place_group(8, 8, 8).domains, 8);      // one member per node (dp across tp=8 nodes)
  EXPECT_EQ(place_group(32, 4, 8).per_domain, 2);  // stride 4 in 8-GPU nodes: 2 per node
  EXPECT_EQ(place_group(4, 1, 72).domains, 1);     // NVL72: fits
}

// A fully connected mesh (AMD xGMI): a device reaches each partner over one direct link, so a
// group of P gets (P-1) links, never more than the tier's rate; a switched tier is unchanged.
TEST(Collective, MeshLinksLimitSubgroups) {
  NetworkTier t = plain_tier();
  t.bandwidth = gigabytes_per_s(448);
  t.peer_link = gigabytes_per_s(64);
  const double S = 1e9;
  const auto ring = [&](Collective c, double p, double bw) {
    const RingTermsForTest r = c == Collective::p2p ? RingTermsForTest{1.0, 1.0}
                                                    : RingTermsForTest{2.0 * (p - 1.0) / p, 2.0 * (p - 1.0)};
    return r.bytes * S / bw + r.steps * 5e-6;
  };
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(S), 2, t).value, ring(Collective::all_reduce, 2, 64e9),
              1e-12);
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(S), 4, t).value, ring(Collective::all_reduce, 4, 192e9),
              1e-12);
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(S), 8, t).value, ring(Collective::all_reduce, 8, 448e9),
              1e-12);
  EXPECT_NEAR(ring_time(Collective::p2p, Bytes(S), 2, t).value, ring(Collective::p2p, 2, 64e9), 1e-12);
  // The measured sweep is over the whole mesh: a pair does not use it.
  t.allreduce_busbw = {{1e6, 300e9}, {1e10, 300e9}};
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(S), 8, t).value, 2.0 * 7 / 8 * S / 300e9, 1e-12);
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(S), 2, t).value, ring(Collective::all_reduce, 2, 64e9),
              1e-12);
  t.allreduce_busbw.clear();
  t.peer_link = Bandwidth(0);  // switched: a pair reaches the full rate
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(S), 2, t).value, ring(Collective::all_reduce, 2, 448e9),
              1e-12);
}

// The measured 8-GPU all-reduce sweep (dgx-h100) sets groups of other sizes by the protocol model's
// ratio of theirs to 8 ranks: continuous where the sweep starts (1 MiB), and a 2- or 4-GPU group
// of H100 never slower than H800's, whose links are less than half as fast and which has no sweep
// (the sweep's 1 MiB row, 8 GPUs' latency, had set them from 1 MiB on: a 16% step in a 7B
// model's decode at tp 2 and H100 decoding slower than H800).
TEST(Collective, AnEightGpuSweepScalesToSmallerGroupsContinuously) {
  const auto h100 = system_preset("dgx-h100", "/system");
  const auto h800 = system_preset("hgx-h800", "/system");
  ASSERT_TRUE(h100.ok() && h800.ok());
  const double first = h100->scale_up.allreduce_busbw.front().first;
  for (const std::int64_t p : {2, 4, 8}) {
    const auto t = [&](const optimus::SystemSpec& sys, double bytes) {
      return ring_time(Collective::all_reduce, Bytes(bytes), p, sys.scale_up).value;
    };
    const double below = t(*h100, first * 0.999), at = t(*h100, first);
    EXPECT_NEAR(at / below, 1.0, 0.05)
        << p << " GPUs: " << below << " s below the sweep, " << at << " s at it";
    for (const double bytes : {first * 0.5, first, first * 4, first * 64, first * 1024})
      EXPECT_LE(t(*h100, bytes), t(*h800, bytes) * 1.0001) << p << " GPUs, " << bytes << " B";
  }
}

// The MI300X platform preset against the two rows of the shared collectives.csv it comes from
// (all_reduce_bench.py, 4 GiB all-reduce on one 8-GPU node): 312.9 GB/s bus bandwidth on 8 GPUs
// (its efficiency was read from this row) and 47.7 GB/s on 2 (out of sample: one 64 GB/s link).
TEST(Collective, XgmiPresetReproducesMeasuredBusBandwidth) {
  const auto sys = system_preset("mi300x-8", "/system");
  ASSERT_TRUE(sys.ok()) << sys.error().message;
  const double S = 4294967296.0;
  for (const auto& [p, measured] : {std::pair<std::int64_t, double>{8, 312.912}, {2, 47.671}}) {
    const GroupPlacement g = place_group(p, 1, sys->devices_per_node);
    const double t = collective_time(Collective::all_reduce, Bytes(S), g, *sys).value;
    const double ranks = static_cast<double>(p);
    const double busbw = 2.0 * (ranks - 1.0) / ranks * S / t / 1e9;
    EXPECT_NEAR(busbw / measured, 1.0, 0.07) << p << " GPUs: " << busbw << " GB/s";
  }
}

TEST(Collective, MeasuredTableIsInterpolated) {
  NetworkTier t = plain_tier();
  t.allreduce_busbw = {{1e6, 10e9}, {1e8, 100e9}};
  // 1e7 bytes is halfway in log size: busbw 55 GB/s.
  EXPECT_NEAR(ring_time(Collective::all_reduce, Bytes(1e7), 8, t).value, 2.0 * 7 / 8 * 1e7 / 55e9, 1e-12);
}

// A sweep measured on another group size (allreduce_busbw_ranks, read from the system's JSON)
// sets that group's all-reduce exactly (nccl-tests: time = 2(P-1)/P x S / busbw at the sweep's
// P), and the 8-rank group then takes the protocol model's ratio to it; by default the sweep is
// an 8-GPU node's (the key's reading: Io.AllReduceSweepRanksAreReadAndWrittenBack).
TEST(Collective, ASweepOfAnotherGroupSizeSetsThatGroup) {
  auto sys = system_preset("dgx-h100", "/system");
  ASSERT_TRUE(sys.ok());
  EXPECT_EQ(sys->scale_up.allreduce_busbw_ranks, 8);
  NetworkTier t = sys->scale_up;
  t.allreduce_busbw = {{1e6, 100e9}, {1e10, 100e9}};
  const double S = 1e8;
  const auto at = [&](std::int64_t p) { return ring_time(Collective::all_reduce, Bytes(S), p, t).value; };
  EXPECT_NEAR(at(8), 2.0 * 7 / 8 * S / 100e9, 1e-12);
  EXPECT_NE(at(4), 2.0 * 3 / 4 * S / 100e9);
  t.allreduce_busbw_ranks = 4;
  EXPECT_NEAR(at(4), 2.0 * 3 / 4 * S / 100e9, 1e-12);
  EXPECT_NE(at(8), 2.0 * 7 / 8 * S / 100e9);
}

// The CUDA-core conversion of 4-bit float weights in a W4A16 GEMM, by hand on a device with a
// 64 TFLOP/s FP32 rate (16 T integer instructions per second), 1000 TFLOP/s bf16 at efficiency 1,
// no overhead: 21 / 8 instructions per weight per 128-row tile, then the row tiles' multiply-adds
// (rows padded to a power of two between 16 and 128).
TEST(Roofline, Fp4WeightDequantConvertsEachWeightOncePerRowTile) {
  DeviceSpec d;
  d.peak[static_cast<std::size_t>(Precision::bf16)] = FlopRate(1000e12);
  d.vector_peak = FlopRate(64e12);
  d.matmul_efficiency = 1.0;
  d.sustained_ratio = 1.0;
  d.kernel_overhead = Seconds(0);
  const auto path = [&](std::int64_t m, double memory_s) {
    OpCost r;
    r.flops = Flops(2.0 * double(m) * 4096 * 4096);
    r.memory_time = Seconds(memory_s);
    r.time = r.memory_time;
    r.bound = Bound::memory;
    return with_fp4_weight_dequant(d, {m, 4096, 4096, 1}, Precision::bf16, 1.0, r);
  };
  const double weights = 4096.0 * 4096.0, convert = weights * 21.0 / 8.0 / 16e12;
  // One row: a 16-row tile, the conversion and 16 rows of bf16 math.
  EXPECT_NEAR(path(1, 1e-9).time.value, convert + 2.0 * 16 * weights / 1000e12, 1e-12);
  EXPECT_EQ(path(1, 1e-9).bound, Bound::compute);
  // 100 rows: one 128-row tile; 300 rows: three, each converting the weights again.
  EXPECT_NEAR(path(100, 1e-9).time.value, convert + 2.0 * 128 * weights / 1000e12, 1e-12);
  EXPECT_NEAR(path(300, 1e-9).time.value, 3.0 * convert + 2.0 * 384 * weights / 1000e12, 1e-12);
  // A longer memory roof stands.
  const OpCost slow = path(1, 1.0);
  EXPECT_DOUBLE_EQ(slow.time.value, 1.0);
  EXPECT_EQ(slow.bound, Bound::memory);
}

// DeepGEMM's README speedups over a CUTLASS 3.6 implementation, per row count (hand-averaged
// from its table: 64 rows 10.7 / 6, 128 rows 10.6 / 6, masked 256 (1.1 + 1.2) / 2, ...), and
// linear in log2(rows) between the table's row counts.
TEST(Roofline, CutlassBlockFp8FactorFollowsDeepGemmsTable) {
  EXPECT_DOUBLE_EQ(cutlass_block_fp8_factor(64), 1.78);
  EXPECT_DOUBLE_EQ(cutlass_block_fp8_factor(8), 1.78);  // flat below the table
  EXPECT_DOUBLE_EQ(cutlass_block_fp8_factor(128), 1.77);
  EXPECT_DOUBLE_EQ(cutlass_block_fp8_factor(256), 1.15);
  EXPECT_NEAR(cutlass_block_fp8_factor(2048), 1.225, 1e-12);  // halfway from 1024 (1.2) to 4096 (1.25)
  EXPECT_NEAR(cutlass_block_fp8_factor(181), 1.77 + (1.15 - 1.77) * (std::log2(181.0) - 7.0), 1e-12);
  EXPECT_DOUBLE_EQ(cutlass_block_fp8_factor(1'000'000), 1.3);  // flat above
}

// fp8 casts by scaling recipe (SoftwareDefaults::fp8_scaling), hand-computed on the toy device
// (1000 GB/s, 10 TFLOP/s vector, no kernel overhead): a cast of 1e9 elements reads 2 bytes and
// writes two 1-byte copies, 4e9 bytes = 4 ms. Current scaling reads the 16-bit tensor once more
// for its amax first: 2e9 more bytes = 2 ms, 6 ms in all. Block-scaled mxfp8 and the delayed
// recipe stay at 4 ms; a context without a system (no software block) is costed as delayed.
TEST(Quantise, CurrentScalingReadsTheTensorOnceMoreForItsAmax) {
  const DeviceSpec d = toy_device();
  SystemSpec sys;
  OpContext c;
  c.dev = &d;
  c.in_bytes = 1.0;
  c.math = Precision::fp8;
  EXPECT_NEAR(quantise_cast(c, 1e9).time.value, 4e-3, 1e-12);  // no system: delayed
  c.sys = &sys;
  EXPECT_NEAR(quantise_cast(c, 1e9).time.value, 4e-3, 1e-12);
  sys.software.fp8_scaling = Fp8Scaling::current;
  const OpCost cs = quantise_cast(c, 1e9);
  EXPECT_NEAR(cs.time.value, 6e-3, 1e-12);
  EXPECT_NEAR(cs.hbm_bytes.value, 6e9, 1.0);
  EXPECT_EQ(cs.bound, Bound::memory);
  c.math = Precision::mxfp8;  // block scales are computed inside the one cast pass
  EXPECT_NEAR(quantise_cast(c, 1e9).time.value, 4e-3, 1e-12);
}

}  // namespace
}  // namespace optimus::cost_test
