#include <gtest/gtest.h>

#include <vector>

#include "memory/footprint.h"

namespace optimus::memory_test {
namespace {

ModelSpec gpt22b() {
  ModelSpec m;
  m.layers = 48;
  m.hidden = 6144;
  m.heads = 64;
  m.kv_heads = 64;
  m.head_dim = 96;
  m.ffn_hidden = 4 * 6144;
  m.vocab = 51200;
  return m;
}

struct ActCase {
  std::int64_t tp;
  bool sp;
  Recompute rc;
  double expected_per_sbh;  // Korthikanti et al. 2022 Table 2, in units of s*b*h bytes
};
class Korthikanti : public ::testing::TestWithParam<ActCase> {};

TEST_P(Korthikanti, Table2) {
  const auto c = GetParam();
  const ModelSpec m = gpt22b();
  ParallelPlan p;
  p.tp = c.tp;
  p.sequence_parallel = c.sp;
  p.recompute = c.rc;
  const double s = 2048, b = 4, h = 6144;
  const Bytes got = layer_activation_bytes(m, p, 4, 2048, AttentionKernel::standard, 2.0);
  EXPECT_NEAR(got.value / (s * b * h), c.expected_per_sbh, 1e-9);
}
// a = 64, s = 2048, h = 6144: 5as/h = 106.667.
constexpr double k5ash = 5.0 * 64 * 2048 / 6144;
INSTANTIATE_TEST_SUITE_P(Formulas, Korthikanti,
                         ::testing::Values(ActCase{1, false, Recompute::none, 34 + k5ash},  // sbh(34 + 5as/h)
                                           ActCase{8, false, Recompute::none,
                                                   10 + 24.0 / 8 + k5ash / 8},  // sbh(10 + 24/t + 5as/(ht))
                                           ActCase{8, true, Recompute::none,
                                                   34.0 / 8 + k5ash / 8},  // sbh(34/t + 5as/(ht))
                                           ActCase{8, true, Recompute::selective, 34.0 / 8},  // 34 sbh / t
                                           ActCase{8, false, Recompute::selective, 10 + 24.0 / 8},
                                           ActCase{8, false, Recompute::full, 2},      // 2 sbh
                                           ActCase{8, true, Recompute::full, 2.0 / 8}  // 2 sbh / t
                                           ));

// Megatron-LM's embedding/loss-as-a-layer split: 126 layers (Llama 3.1 405B) over pp=8, v=8
// gives (126+2)/64 = 2 slots per chunk, 16 layers on a middle stage and 15 on the end stages.
TEST(Memory, UnevenPipelineSplitCountsEmbeddingAndLossAsLayers) {
  ModelSpec m = gpt22b();
  m.layers = 126;
  ParallelPlan p;
  p.pp = 8;
  p.interleave = 8;
  EXPECT_TRUE(uneven_pipeline_split(m, p));
  EXPECT_DOUBLE_EQ(stage_layers(m, p), 16.0);
  const StageParams first = stage_params(m, p, 2048, true, false);
  const StageParams middle = stage_params(m, p, 2048, false, false);
  EXPECT_NEAR(first.layers / middle.layers, 15.0 / 16.0, 1e-12);
  p.pp = 5;  // 126 % 5 and 128 % 5 are both non-zero: still an error
  p.interleave = 1;
  EXPECT_FALSE(uneven_pipeline_split(m, p));
  m.layers = 48;  // an even split never takes the uneven rule
  p.pp = 8;
  EXPECT_FALSE(uneven_pipeline_split(m, p));
  EXPECT_DOUBLE_EQ(stage_layers(m, p), 6.0);
}

// One slot per chunk (Megatron-Bridge's Llama 3.1 405B on 256 GB200: pp 16 x interleave 8 = 128
// chunks for 126 layers): the first chunk is the embedding alone, the last the loss alone; the
// end stages hold 7 layers, the middle ones 8. Without interleaving one slot per stage would leave
// an end stage no layer at all, which stays an error.
TEST(Memory, OneSlotPerChunkKeepsALayerOnEachEndStage) {
  ModelSpec m = gpt22b();
  m.layers = 126;
  ParallelPlan p;
  p.pp = 16;
  p.interleave = 8;
  EXPECT_TRUE(uneven_pipeline_split(m, p));
  EXPECT_DOUBLE_EQ(stage_layers(m, p), 8.0);
  const StageParams first = stage_params(m, p, 2048, true, false);
  const StageParams middle = stage_params(m, p, 2048, false, false);
  EXPECT_NEAR(first.layers / middle.layers, 7.0 / 8.0, 1e-12);
  EXPECT_FALSE(uneven_chunk_split(126, 128, 1));
  EXPECT_TRUE(uneven_chunk_split(126, 64, 2));
}

// A balanced split of layers that pp does not divide puts the stages with one layer fewer first,
// where 1F1B keeps the most micro-batches in flight: 60 layers on pp 16 hold 3 layers on stages
// 0-2 and 15 and 4 on stages 3-14. The timing's middle stage is the first with 4 (mid_index 3).
TEST(Memory, BalancedSplitPutsTheShorterStagesFirst) {
  ModelSpec m = gpt22b();
  m.layers = 60;
  ParallelPlan p;
  p.pp = 16;
  ASSERT_TRUE(balanced_pipeline_split(m, p));
  std::vector<double> layers;
  for (std::int64_t s = 0; s < p.pp; ++s) {
    double n = 0;
    for (double k : stage_kinds_at(m, p, s)) n += k;
    layers.push_back(n);
  }
  const std::vector<double> expected{3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3};
  EXPECT_EQ(layers, expected);
  EXPECT_EQ(stage_kinds(m, p).mid_index, 3);
  EXPECT_DOUBLE_EQ(stage_layers(m, p), 4.0);
}

TEST(Memory, FlashAttentionDropsScoreMatrix) {
  const ModelSpec m = gpt22b();
  ParallelPlan p;
  const Bytes std_att = layer_activation_bytes(m, p, 1, 2048, AttentionKernel::standard, 2.0);
  const Bytes flash = layer_activation_bytes(m, p, 1, 2048, AttentionKernel::flash, 2.0);
  EXPECT_NEAR(std_att.value - flash.value, 2048.0 * 6144 * k5ash - 2048.0 * 64 * 4, 1.0);
}

// Megatron-Core's interleaved schedule never warms up more than the step's m x v chunks: with as
// many micro-batches as stages it runs them all forward first and the first stage holds m
// micro-batches whole, as 1F1B does (a probe found +44% activations at v 2, a fitting layout
// reported as not fitting); with more micro-batches the warm-up's 2 (pp - 1) + (v - 1) pp + 1
// chunks of a v-th of the stage each.
TEST(Memory, InterleavedWarmUpIsCappedByTheStepsChunks) {
  Scenario s;
  s.model = gpt22b();
  s.num_devices = 8;
  s.parallel.pp = 8;
  TrainingWorkload w;
  w.seq_len = 2048;
  const auto activations = [&](std::int64_t v, std::int64_t batch) {
    s.parallel.interleave = v;
    w.global_batch = batch;
    s.training = w;
    return training_memory(s, AttentionKernel::flash).activations.value;
  };
  EXPECT_NEAR(activations(2, 8), activations(1, 8), 1e-6 * activations(1, 8));
  EXPECT_NEAR(activations(3, 8), activations(1, 8), 1e-6 * activations(1, 8));
  // 64 micro-batches: 14 + 8 + 1 = 23 chunks of half a stage against 1F1B's 8 micro-batches.
  EXPECT_NEAR(activations(2, 64) / activations(1, 64), 23.0 / 16.0, 0.02);
}

// ZeRO-3 holds two layers whole (the one computed and the next, prefetched) beside its shards: a
// probe found Llama 3.1 405B under FSDP on 2,048 H100 at 24.6 GB a device, its 3.2 B-parameter
// layers uncounted. Stages 2 and 3 hold, in the backward, one layer's gradient whole until its
// reduce-scatter: 1/64 of the model's gradients plus one layer's (4 bytes a parameter here).
TEST(Memory, ZeroHoldsTheGatheredLayersAndALayersGradientBesideItsShards) {
  Scenario s;
  s.model = gpt22b();
  s.num_devices = 64;
  s.parallel.dp = 64;
  TrainingWorkload w;
  w.global_batch = 64;
  w.seq_len = 2048;
  s.training = w;
  s.parallel.zero_stage = 1;
  const MemoryBreakdown z1 = training_memory(s, AttentionKernel::flash);
  s.parallel.zero_stage = 2;
  const MemoryBreakdown z2 = training_memory(s, AttentionKernel::flash);
  s.parallel.zero_stage = 3;
  const MemoryBreakdown z3 = training_memory(s, AttentionKernel::flash);
  const double layer = 12.0 * 6144.0 * 6144.0 + 13.0 * 6144.0;  // 4 h^2 + 8 h^2 weights, biases and norms
  EXPECT_NEAR(z3.weights.value, z2.weights.value / 64.0 + 2.0 * 2.0 * layer, 0.01 * layer);
  EXPECT_NEAR(z2.gradients.value, z1.gradients.value / 64.0 + 4.0 * layer, 0.01 * layer);
  EXPECT_DOUBLE_EQ(z3.gradients.value, z2.gradients.value);
}

TEST(Memory, StatesAreEighteenBytesPerParameter) {
  Scenario s;
  s.model = gpt22b();
  s.num_devices = 8;
  s.parallel.tp = 8;
  TrainingWorkload w;
  w.global_batch = 4;
  w.seq_len = 2048;
  s.training = w;
  const MemoryBreakdown m = training_memory(s, AttentionKernel::standard);
  const double params = stage_params(s.model, s.parallel, 2048, true, true).total();
  EXPECT_DOUBLE_EQ((m.weights + m.gradients + m.optimizer).value, 18.0 * params);
  // Distributed optimizer: 6 + 12/d bytes (Korthikanti Sec. 2).
  s.parallel.dp = 4;
  s.parallel.zero_stage = 1;
  const MemoryBreakdown z = training_memory(s, AttentionKernel::standard);
  EXPECT_DOUBLE_EQ((z.weights + z.gradients + z.optimizer).value, (6.0 + 12.0 / 4) * params);
}

TEST(Memory, KvCacheGqaMqa) {
  ModelSpec m = gpt22b();
  ParallelPlan p;
  // 2 * L * kv_heads * head_dim * bytes per token.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, p, Precision::fp16).value, 2.0 * 48 * 64 * 96 * 2);
  m.kv_heads = 8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, p, Precision::fp16).value, 2.0 * 48 * 8 * 96 * 2);
  m.kv_heads = 1;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, p, Precision::fp8).value, 2.0 * 48 * 1 * 96 * 1);
  p.tp = 8;
  m.kv_heads = 64;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, p, Precision::fp16).value, 2.0 * 48 * 8 * 96 * 2);
}

}  // namespace
}  // namespace optimus::memory_test
