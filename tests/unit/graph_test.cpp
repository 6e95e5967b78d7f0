// The task graph, operator family by operator family, against numbers worked out by hand for
// a GPT-3 175B training layer and a Llama 3 70B decode step (the presets' shapes).
#include "model/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "io/presets.h"
#include "memory/footprint.h"
#include "parallel/plan.h"

namespace optimus::graph_test {
namespace {

const Op& find(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& o : ops)
    if (o.name == name) return o;
  ADD_FAILURE() << "no operator " << name;
  static const Op none;
  return none;
}

ModelSpec preset(const char* id) {
  auto m = model_preset(id, "/model");
  EXPECT_TRUE(m.ok()) << id;
  return *m;
}

// One training micro-batch of 4096 tokens through a mixture-of-experts layer of `m` on tp 1, ep 64.
std::vector<Op> moe_layer_ep64(const ModelSpec& m) {
  LayerShape s;
  s.group = SeqGroup{1, 4096, 4096};
  s.ep = 64;
  s.loss = true;
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, false), ops);
  return ops;
}

// GPT-3 175B: h 12288, 96 heads of 128, f 49152 (GeLU), LayerNorm, biases, dropout, learned
// positions. One training micro-batch of 1 x 2048 tokens on tp 8 with sequence parallelism and
// FlashAttention, 16-bit activations.
class Gpt3Layer : public ::testing::Test {
 protected:
  void SetUp() override {
    m = preset("gpt3-175b");
    s.group = SeqGroup{1, 2048, 2048};
    s.tp = 8;
    s.sequence_parallel = true;
    s.attention = AttentionKernel::flash;
    s.position_rows = 2048;
    s.loss = true;
    ops = layer_forward_ops(m, s);
  }
  ModelSpec m;
  LayerShape s;
  std::vector<Op> ops;
  const double T = 2048, h = 12288, t = 8, e = 2;
};

TEST_F(Gpt3Layer, Matmuls) {
  const Op& qkv = find(ops, "qkv_proj");
  // 12 local heads x 128 x (Q, K, V) = 4608 columns.
  EXPECT_EQ(qkv.m, 2048);
  EXPECT_EQ(qkv.n, 4608);
  EXPECT_EQ(qkv.k, 12288);
  EXPECT_DOUBLE_EQ(qkv.model_flops, 2.0 * 2048 * 4608 * 12288);
  EXPECT_DOUBLE_EQ(qkv.params, (h * 3 * h + 3 * h) / t);  // h x 3h weights + 3h biases, over tp
  const Op& up = find(ops, "mlp_up");
  EXPECT_EQ(up.n, 49152 / 8);
  EXPECT_DOUBLE_EQ(up.params, (h * 4 * h + 4 * h) / t);
  const Op& down = find(ops, "mlp_down");
  EXPECT_EQ(down.k, 6144);
  EXPECT_DOUBLE_EQ(down.params, (4 * h * h + h) / t);
  EXPECT_DOUBLE_EQ(find(ops, "attn_out_proj").params, (h * h + h) / t);
}

TEST_F(Gpt3Layer, ElementwiseAndComm) {
  // Norms on the sequence-parallel shard: read and write 2048/8 tokens x h in 16 bits.
  const Op& norm = find(ops, "norm_attn");
  EXPECT_DOUBLE_EQ(norm.bytes, 2.0 * e * (T / t) * h);
  EXPECT_DOUBLE_EQ(norm.params, 2 * h);  // scale and shift, replicated
  // Bias-dropout-add reads x and the residual, writes y (16-bit) and a 1-byte mask.
  EXPECT_DOUBLE_EQ(find(ops, "residual_attn").bytes, (3 * e + 1) * (T / t) * h);
  // GeLU reads and writes the local f.
  EXPECT_DOUBLE_EQ(find(ops, "mlp_act").bytes, 2 * e * T * 6144);
  // Sequence parallelism: all-gather before and reduce-scatter after each block, of the whole
  // 2048 x h activation.
  const Op& ag = find(ops, "sp_allgather_attn");
  EXPECT_EQ(ag.comm, Collective::all_gather);
  EXPECT_EQ(ag.group, CommGroup::tp);
  EXPECT_DOUBLE_EQ(ag.comm_bytes, e * T * h);
  EXPECT_EQ(find(ops, "sp_reducescatter_mlp").comm, Collective::reduce_scatter);
  // Learned positions: no rotary operator.
  for (const Op& o : ops) EXPECT_NE(std::string(o.name), "rope");
}

TEST_F(Gpt3Layer, SavedActivations) {
  // Korthikanti et al. 2022, Table 2 with sequence parallelism: 34 s b h / t per layer, plus
  // FlashAttention's fp32 log-sum-exp (4 bytes per query and head) instead of the 5 a s^2 b
  // score tensors; full recompute keeps the 2 s b h / t input.
  const double lse = T * 96 * 4 / t;
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::none), 34.0 * T * h / t + lse);
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::selective), 34.0 * T * h / t + lse);
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::full), 2.0 * T * h / t);
  // Unfused attention adds the scores (5 a s^2 b / t), which selective recompute drops.
  s.attention = AttentionKernel::standard;
  const auto std_ops = layer_forward_ops(m, s);
  EXPECT_DOUBLE_EQ(sum_saved(std_ops, Recompute::none), 34.0 * T * h / t + 5.0 * 96 * T * T / t);
  EXPECT_DOUBLE_EQ(sum_saved(std_ops, Recompute::selective), 34.0 * T * h / t);
}

// Selective recompute by modules (Megatron-Core recompute_modules), on the same layer (16-bit):
// layernorm discards both norms' outputs, which the QKV and MLP-up projections saved (2 s b h / t
// each); mlp checkpoints the MLP, keeping its input and dropping the activation's input (4 s b h /
// t: GeLU's f = 4h) and the down projection's (4 s b h / t); core_attn alone is the spec's
// selective. Under an 8-bit format the projections keep their own quantised copies, so discarding
// the norms' 16-bit outputs frees nothing of them.
TEST_F(Gpt3Layer, RecomputeModules) {
  const double none = sum_saved(ops, Recompute::none);
  const auto mods = [](std::initializer_list<RecomputeModule> l) {
    ModuleSet set = 0;
    for (RecomputeModule x : l) set |= module_bit(x);
    return set;
  };
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::selective, mods({RecomputeModule::core_attn})),
                   sum_saved(ops, Recompute::selective));
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::selective, mods({RecomputeModule::layernorm})),
                   none - 2.0 * (2.0 * T * h / t));
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::selective, mods({RecomputeModule::mlp})),
                   none - 2.0 * (8.0 * T * h / t));
  EXPECT_DOUBLE_EQ(
      sum_saved(ops, Recompute::selective, mods({RecomputeModule::mlp, RecomputeModule::layernorm})),
      none - 2.0 * (8.0 * T * h / t) - 2.0 * (2.0 * T * h / t));
  // The modules a dense MHA layer lacks change nothing.
  EXPECT_DOUBLE_EQ(sum_saved(ops, Recompute::selective,
                             mods({RecomputeModule::moe, RecomputeModule::moe_act,
                                   RecomputeModule::mla_up_proj, RecomputeModule::shared_experts})),
                   none);
  // Recomputed operators: the two norms under layernorm; the MLP's GEMMs, activation and its two
  // sequence-parallel collectives under mlp.
  std::string layernorm_ops, mlp_ops;
  for (const Op& o : ops) {
    if (o.rerun & module_bit(RecomputeModule::layernorm)) layernorm_ops += std::string(o.name) + " ";
    if (o.rerun & module_bit(RecomputeModule::mlp)) mlp_ops += std::string(o.name) + " ";
  }
  EXPECT_EQ(layernorm_ops, "norm_attn norm_mlp ");
  EXPECT_EQ(mlp_ops, "sp_allgather_mlp mlp_up mlp_act mlp_down sp_reducescatter_mlp ");
  LayerShape q = s;
  q.gemm_saved_bytes = 1.0;  // fp8: the projections keep one byte per element of their input
  const auto fp8 = layer_forward_ops(m, q);
  EXPECT_DOUBLE_EQ(sum_saved(fp8, Recompute::selective, mods({RecomputeModule::layernorm})),
                   sum_saved(fp8, Recompute::none));
}

// DeepSeek-V3's MoE layer (tp 1, ep 64, 16-bit, balanced router): mla_up_proj discards the per-head
// Q, K and V the attention core saved, 4096 tokens x 128 heads x (192 + 192 + 128) x 2 bytes, and
// keeps its log-sum-exp; moe_act discards the experts' activation output, the down projection's
// input (received rows x 2048 x 2); moe checkpoints the whole MoE layer, keeping only the router's
// input (the normalised hidden state).
TEST(DeepSeekV3, RecomputeModules) {
  ModelSpec m = preset("deepseek-v3");
  m.moe->imbalance = 1.0;
  const std::vector<Op> ops = moe_layer_ep64(m);
  const double none = sum_saved(ops, Recompute::none);
  EXPECT_DOUBLE_EQ(none - sum_saved(ops, Recompute::selective, module_bit(RecomputeModule::mla_up_proj)),
                   4096.0 * 128 * (192 + 192 + 128) * 2);
  const Op& down = find(ops, "expert_down");
  EXPECT_DOUBLE_EQ(none - sum_saved(ops, Recompute::selective, module_bit(RecomputeModule::moe_act)),
                   4096.0 * 8 * 2048 * 2);
  EXPECT_DOUBLE_EQ(down.dropped, 4096.0 * 8 * 2048 * 2);
  double moe_internal = 0, router_input = 0;
  bool in_moe = false;
  for (const Op& o : ops) {
    if (o.name == std::string("moe_router")) in_moe = true, router_input = o.saved.none;
    if (in_moe) moe_internal += o.saved.none;
  }
  EXPECT_DOUBLE_EQ(none - sum_saved(ops, Recompute::selective, module_bit(RecomputeModule::moe)),
                   moe_internal - router_input);
  EXPECT_DOUBLE_EQ(router_input, 4096.0 * 7168 * 2);
}

// A parallel block (GPT-J, GPT-NeoX, PaLM, Falcon): attention and FFN read one normalised,
// gathered input; the FFN's down projection accumulates into the attention projection's partial
// sum and one reduce-scatter follows it. Saved: 34 s b h / t less the second norm's input and the
// FFN's own copy of its input (2 + 2), with both dropout masks kept.
TEST_F(Gpt3Layer, ParallelBlock) {
  m.block = BlockKind::parallel;
  const auto par = layer_forward_ops(m, s);
  int gathers = 0, scatters = 0, norms = 0;
  for (std::size_t i = 0; i < par.size(); ++i) {
    const Op& o = par[i];
    if (o.role == OpRole::norm) ++norms;
    if (o.kind != OpKind::comm || o.group != CommGroup::tp) continue;
    if (o.comm == Collective::all_gather) ++gathers;
    if (o.comm == Collective::reduce_scatter) {
      ++scatters;
      ASSERT_GT(i, 0u);
      EXPECT_EQ(std::string(par[i - 1].name), "mlp_down");  // the GEMM it overlaps with
      EXPECT_DOUBLE_EQ(o.comm_bytes, e * T * h);
    }
  }
  EXPECT_EQ(gathers, 1);
  EXPECT_EQ(scatters, 1);
  EXPECT_EQ(norms, 1);
  const double lse = T * 96 * 4 / t;
  EXPECT_DOUBLE_EQ(sum_saved(par, Recompute::none), 30.0 * T * h / t + lse);
  EXPECT_DOUBLE_EQ(sum_saved(par, Recompute::full), 2.0 * T * h / t);
  // One residual add: reads x and the reduced branch sum, writes y and two dropout masks.
  EXPECT_DOUBLE_EQ(find(par, "residual_block").bytes, (3 * e + 2) * (T / t) * h);
  // The matmuls are the sequential layer's.
  for (const char* name : {"qkv_proj", "attn_out_proj", "mlp_up", "mlp_down"}) {
    EXPECT_EQ(find(par, name).n, find(ops, name).n) << name;
    EXPECT_DOUBLE_EQ(find(par, name).params, find(ops, name).params) << name;
  }
}

TEST_F(Gpt3Layer, AttentionAndKv) {
  const Op& att = find(ops, "attention");
  EXPECT_EQ(att.batch, 12);  // 1 sequence x 12 local heads
  EXPECT_DOUBLE_EQ(att.causal_fraction, 0.5);
  EXPECT_DOUBLE_EQ(att.model_flops, 4.0 * T * T * 12 * 128);  // QK^T and PV, full matrix
  // K and V of 12 local heads x 128 per token, 2 bytes each.
  EXPECT_DOUBLE_EQ(sum_kv_bytes(ops), 2.0 * 12 * 128 * 2);
}

TEST_F(Gpt3Layer, EmbeddingAndHead) {
  const auto emb = embedding_ops(m, s);
  // The vocab-parallel word embedding over tp, plus 2048 learned positions (replicated).
  EXPECT_DOUBLE_EQ(sum_params(emb), static_cast<double>(m.vocab) * h / t + 2048 * h);
  const auto head = head_ops(m, s);
  // Tied embedding on one stage: the head owns only the final LayerNorm; fp32 logits saved.
  EXPECT_DOUBLE_EQ(sum_params(head), 2 * h);
  EXPECT_DOUBLE_EQ(sum_saved(head, Recompute::full), 4.0 * T * static_cast<double>(m.vocab) / t);
  s.pp = 4;  // with pipeline stages Megatron keeps a copy of the tied embedding on the last one
  EXPECT_DOUBLE_EQ(sum_params(head_ops(m, s)), static_cast<double>(m.vocab) * h / t + 2 * h);
}

TEST(GraphSums, Gpt3ParametersAre175B) {
  const ParamCounts p = count_params(preset("gpt3-175b"), 2048);
  // Megatron Eq. 2 per layer: 12 h^2 + 13 h.
  EXPECT_DOUBLE_EQ(p.per_layer, 12.0 * 12288 * 12288 + 13.0 * 12288);
  EXPECT_NEAR(p.total / 1e9, 174.6, 0.1);
}

// Llama 3 70B: h 8192, 64 heads and 8 KV heads of 128, SwiGLU 28672, RMSNorm, no biases, rotary
// positions, untied 128256-token vocabulary. One decode step of 4 sequences over 1000 cached
// tokens on tp 8, 16-bit weights, fp8 KV cache.
class Llama3Decode : public ::testing::Test {
 protected:
  void SetUp() override {
    m = preset("llama3-70b");
    s.group = SeqGroup{4, 1, 1000};
    s.tp = 8;
    s.causal = false;
    s.kv_elem_bytes = 1;
    ops = layer_forward_ops(m, s);
  }
  ModelSpec m;
  LayerShape s;
  std::vector<Op> ops;
};

TEST_F(Llama3Decode, Operators) {
  ASSERT_EQ(m.attention, AttentionType::gqa);
  const Op& qkv = find(ops, "qkv_proj");
  EXPECT_EQ(qkv.m, 4);
  EXPECT_EQ(qkv.n, 8 * 128 + 2 * 128);  // 8 local query heads, 1 local KV head (K and V)
  EXPECT_DOUBLE_EQ(qkv.params, 8192.0 * (8192 + 2 * 1024) / 8);  // no biases
  // Rotary embedding on the local q and k: read and write 4 x (1024 + 128) elements.
  const Op& rope = find(ops, "rope");
  EXPECT_DOUBLE_EQ(rope.bytes, 2.0 * 2 * 4 * (1024 + 128));
  EXPECT_DOUBLE_EQ(rope.flops, 3.0 * 4 * (1024 + 128));
  // SwiGLU: gate and up together, 2 x 28672 / 8 columns; the activation reads both, writes one.
  EXPECT_EQ(find(ops, "mlp_up").n, 7168);
  EXPECT_DOUBLE_EQ(find(ops, "mlp_up").params, 2.0 * 8192 * 28672 / 8);
  EXPECT_DOUBLE_EQ(find(ops, "mlp_act").bytes, 3.0 * 2 * 4 * 3584);
  EXPECT_DOUBLE_EQ(find(ops, "norm_mlp").params, 8192);  // RMSNorm: scale only
  // No dropout: residual adds read x and the residual and write y.
  EXPECT_DOUBLE_EQ(find(ops, "residual_mlp").bytes, 3.0 * 2 * 4 * 8192);
  // Two all-reduces of the 4 x 8192 activation per layer.
  const Op& ar = find(ops, "tp_allreduce_attn");
  EXPECT_EQ(ar.comm, Collective::all_reduce);
  EXPECT_DOUBLE_EQ(ar.comm_bytes, 2.0 * 4 * 8192);
  const Op& att = find(ops, "attention");
  EXPECT_EQ(att.m, 1);
  EXPECT_EQ(att.n, 1000);
  EXPECT_EQ(att.batch, 4 * 8);
  EXPECT_DOUBLE_EQ(att.causal_fraction, 1.0);
}

TEST_F(Llama3Decode, KvCacheAndParameters) {
  // One KV head per rank, K and V of 128 at 1 byte: 256 bytes per token per layer.
  EXPECT_DOUBLE_EQ(sum_kv_bytes(ops), 2.0 * 128 * 1);
  ParallelPlan p;
  p.tp = 8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, p, Precision::fp8).value, 80.0 * 256);
  const ParamCounts c = count_params(m, 8192);
  EXPECT_DOUBLE_EQ(c.attention, 8192.0 * (8192 + 2048) + 8192.0 * 8192);
  EXPECT_DOUBLE_EQ(c.mlp, 3.0 * 8192 * 28672);
  EXPECT_DOUBLE_EQ(c.norms, 2.0 * 8192);
  EXPECT_DOUBLE_EQ(c.embedding, 128256.0 * 8192);  // rotary: no position table
  EXPECT_DOUBLE_EQ(c.output, 128256.0 * 8192);     // untied
  EXPECT_NEAR(c.total / 1e9, 70.55, 0.01);         // Meta's "70B": 70.6e9 parameters
}

TEST(GraphMixedBatch, GroupsShareGemmsButNotAttention) {
  // A continuous-batching step: one prompt chunk of 512 tokens and 6 decoding sequences.
  const ModelSpec m = preset("llama3-70b");
  const std::vector<SeqGroup> groups = {{1, 512, 512}, {6, 1, 2000}};
  LayerShape s;
  s.tp = 8;
  s.mixed = &groups;
  const auto ops = layer_forward_ops(m, s);
  EXPECT_EQ(find(ops, "qkv_proj").m, 512 + 6);
  int attention = 0;
  for (const Op& o : ops) attention += o.kind == OpKind::attention;
  EXPECT_EQ(attention, 2);
  EXPECT_EQ(head_ops(m, s).front().m, 7);  // one logit row per sequence
}

}  // namespace
}  // namespace optimus::graph_test

namespace optimus::graph_test {
namespace {

// DeepSeek-V3 (the preset: 61 layers, h 7168, MLA with q rank 1536, kv rank 512, qk 128 + 64,
// v 128; 256 routed experts of 2048, top 8, one shared expert, 3 dense layers of 18432).
TEST(DeepSeekV3, ParametersAre671BTotal37BActive) {
  const ModelSpec m = preset("deepseek-v3");
  ASSERT_EQ(m.attention, AttentionType::mla);
  const ParamCounts c = count_params(m, 4096);
  // Per MoE layer by hand: MLA 7168*1536 + 1536 + 1536*128*192 + 7168*576 + 512 + 512*128*256
  // + 128*128*7168 = 187,107,328; router 7168*256; 257 experts of 3*7168*2048; 2 norms.
  const double mla =
      7168.0 * 1536 + 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
  const double expert = 3.0 * 7168 * 2048;
  const double moe_layer = mla + 7168.0 * 256 + 257 * expert + 2 * 7168;
  const double dense_layer = mla + 3.0 * 7168 * 18432 + 2 * 7168;
  const double embed = 129280.0 * 7168;
  EXPECT_DOUBLE_EQ(c.total, 58 * moe_layer + 3 * dense_layer + 2 * embed + 7168);
  EXPECT_DOUBLE_EQ(c.experts, 58 * 256 * expert);
  // Active: 8 of the 256 routed experts (plus the shared one) per token.
  EXPECT_NEAR(c.active, c.total - 58 * 248 * expert, 1.0);
  EXPECT_NEAR(c.total / 1e9, 671.0, 0.5);  // published: 671B (without the 14B MTP module)
  EXPECT_NEAR(c.active / 1e9, 37.6, 0.3);  // published: 37B
}

TEST(DeepSeekV3, MlaCachesTheLatentPerToken) {
  const ModelSpec m = preset("deepseek-v3");
  ParallelPlan p;
  p.tp = 8;
  // The 512-dim latent and the 64-dim rope key, 2 bytes each, on every rank (shared by the heads).
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, p, Precision::bf16).value, 61.0 * (512 + 64) * 2);
  // A decode step attends over the latent (absorbed form): qk dim 576, value dim 512.
  LayerShape s;
  s.tp = 8;
  s.group = SeqGroup{4, 1, 2000};
  s.causal = false;
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, false), ops);
  const Op& att = find(ops, "attention");
  EXPECT_EQ(att.k, 576);
  EXPECT_EQ(att.v_dim, 512);
  EXPECT_EQ(att.batch, 4 * 16);  // 16 local heads
  // Training expands the latent per head: qk 192, v 128.
  s.loss = true;
  s.group = SeqGroup{1, 4096, 4096};
  layer_forward_ops(m, s, kind_of(true, false), ops);
  EXPECT_EQ(find(ops, "attention").k, 192);
  EXPECT_EQ(find(ops, "attention").v_dim, 128);
}

// Context parallelism over MLA: the ring passes the per-head keys (qk 192) and values (v 128) of
// this rank's block, not the 576-dim latent. Training, tp 2 (64 local heads), cp 4: one sequence
// of 16,384 tokens, 4,096 on this rank, 2 bytes each. Grouped-query attention (Llama 3 70B, 8 key
// heads of 128, tp 1) passes 2 x 8 x 128 a token.
TEST(DeepSeekV3, ContextParallelRingPassesThePerHeadKeysAndValues) {
  const auto ring_bytes = [](const ModelSpec& m, std::int64_t tp) {
    LayerShape s;
    s.tp = tp;
    s.cp = 4;
    s.loss = true;
    s.group = SeqGroup{1, 4096, 16384};
    std::vector<Op> ops;
    layer_forward_ops(m, s, kind_of(m.moe.has_value(), false), ops);
    const Op& ring = find(ops, "cp_ring_kv");
    EXPECT_EQ(ring.group, CommGroup::cp);
    EXPECT_EQ(ring.comm, Collective::p2p);
    return ring.comm_bytes;
  };
  EXPECT_DOUBLE_EQ(ring_bytes(preset("deepseek-v3"), 2), 4096.0 * 64 * (192 + 128) * 2);
  EXPECT_DOUBLE_EQ(ring_bytes(preset("llama3-70b"), 1), 4096.0 * 2 * 8 * 128 * 2);
}
// A trained MTP module is a layer of the last layer's kind (DeepSeek-V3's: MoE) on the last pipeline
// stage, laid out as Megatron-Bridge's DeepSeek-V3 recipes do (61 layers + the loss + 2 slots for
// the module: pp 4 16, 16, 16, 13; pp 8 8 a stage, 5 on the last; pp 16 4 a stage, 1 on the last,
// each last stage with the module); without it 61 layers split 3 / 4 ... / 3 at pp 16. The head's
// operators gain the module's embedding, norms, projection and head pass: at pp 16 the embedding
// is a copy of its own on the last stage (untied), at pp 1 the first stage's.
TEST(DeepSeekV3, TrainedMtpModuleJoinsTheLastStage) {
  ModelSpec m = preset("deepseek-v3");
  const auto layers = [&](std::int64_t pp, std::int64_t stage) {
    ParallelPlan p;
    p.pp = pp;
    double n = 0;
    for (double k : stage_kinds_at(m, p, stage)) n += k;
    return n;
  };
  EXPECT_EQ(layers(16, 0), 3.0);
  EXPECT_EQ(layers(16, 15), 3.0);
  m.mtp_trained = 1;
  EXPECT_EQ(layers(4, 0), 16.0);
  EXPECT_EQ(layers(4, 3), 13.0 + 1.0);
  EXPECT_EQ(layers(8, 0), 8.0);
  EXPECT_EQ(layers(8, 7), 5.0 + 1.0);
  EXPECT_EQ(layers(16, 0), 4.0);
  EXPECT_EQ(layers(16, 7), 4.0);
  EXPECT_EQ(layers(16, 15), 1.0 + 1.0);
  ParallelPlan p;
  p.pp = 16;
  EXPECT_TRUE(mtp_pipeline_split(m, p));
  EXPECT_EQ(moe_count(stage_kinds_at(m, p, 15)), 2.0);
  // 61 + 1 + 2 slots do not fill 6 stages: the balanced split, the module after the last stage's.
  p.pp = 6;
  EXPECT_FALSE(mtp_pipeline_split(m, p));
  EXPECT_EQ(layers(6, 5), 10.0 + 1.0);
  LayerShape s;
  s.loss = true;
  s.group = SeqGroup{1, 4096, 4096};
  const double h = 7168, vocab = 129280;
  const double without = sum_params(head_ops(preset("deepseek-v3"), s));
  s.pp = 16;
  const double split = sum_params(head_ops(m, s)) - sum_params(head_ops(preset("deepseek-v3"), s));
  EXPECT_DOUBLE_EQ(split, vocab * h + 2 * h + 2 * h * h);
  s.pp = 1;
  EXPECT_DOUBLE_EQ(sum_params(head_ops(m, s)) - without, 2 * h + 2 * h * h);
  // Inference never builds them.
  s.loss = false;
  EXPECT_DOUBLE_EQ(sum_params(head_ops(m, s)), sum_params(head_ops(preset("deepseek-v3"), s)));
}

// DeepSeek-V3.2-Exp (the preset: DeepSeek-V3 plus DSA's indexer, 64 heads of 128, top 2048).
// The index key adds 128 FP8 bytes and one fp32 scale per token and layer to MLA's latent.
TEST(DeepSeekV32, IndexKeyJoinsTheCache) {
  const ModelSpec v3 = preset("deepseek-v3");
  const ModelSpec v32 = preset("deepseek-v3.2-exp");
  ParallelPlan p;
  p.tp = 8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(v32, p, Precision::bf16).value,
                   kv_bytes_per_token(v3, p, Precision::bf16).value + 61.0 * (128 + 4));
  // The indexer's projections, replicated on every tensor-parallel rank, per layer by hand:
  // q 1536 x 64*128, k 7168 x 128 (+ its LayerNorm's 2 x 128), weights 7168 x 64.
  const double indexer = 1536.0 * 8192 + 7168.0 * 128 + 256 + 7168.0 * 64;
  EXPECT_NEAR(count_params(v32, 4096).total - count_params(v3, 4096).total, 61.0 * indexer, 1.0);
}

// Decoding past top_k: the indexer reads every earlier token's index key; the attention reads the
// 2,048 selected latent entries (MQA form). Within top_k, every token, as DeepSeek-V3.
TEST(DeepSeekV32, DecodeReadsTopKLatentsAndEveryIndexKey) {
  const ModelSpec m = preset("deepseek-v3.2-exp");
  LayerShape s;
  s.tp = 8;
  s.causal = false;
  s.group = SeqGroup{4, 1, 100000};
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, false), ops);
  const Op& ix = find(ops, "indexer");
  EXPECT_TRUE(ix.index_scores);
  EXPECT_EQ(ix.n, 100000);
  EXPECT_EQ(ix.k, 128);
  EXPECT_EQ(ix.batch, 4 * 64);  // every index head on every rank
  EXPECT_DOUBLE_EQ(ix.kv_bytes, 132.0);
  const Op& att = find(ops, "attention");
  EXPECT_EQ(att.n, 2048);
  EXPECT_EQ(att.k, 576);
  EXPECT_EQ(att.v_dim, 512);
  s.group = SeqGroup{4, 1, 1500};
  layer_forward_ops(m, s, kind_of(true, false), ops);
  EXPECT_EQ(find(ops, "attention").n, 1500);
  // attention_core_ops (a serving step's context-dependent part) holds the indexer too.
  attention_core_ops(m, s, kind_of(true, false), ops);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_STREQ(ops[0].name, "indexer");
  EXPECT_STREQ(ops[1].name, "attention");
}

// A prompt runs in the cheaper form: at 4,096 tokens dense MLA over every earlier key (per head
// 192 + 128 wide, half the square) multiplies less than the MQA form over 2,048 (576 + 512 wide);
// at 65,536 the MQA form over the selected tokens does. The indexer scores half the square either
// way and writes a fp32 logit per pair, read back by the top-k.
TEST(DeepSeekV32, PromptTakesTheCheaperForm) {
  const ModelSpec m = preset("deepseek-v3.2-exp");
  LayerShape s;
  s.causal = true;
  std::vector<Op> ops;
  s.group = SeqGroup{1, 4096, 4096};
  layer_forward_ops(m, s, kind_of(true, false), ops);
  EXPECT_EQ(find(ops, "attention").k, 192);
  EXPECT_EQ(find(ops, "attention").n, 4096);
  s.group = SeqGroup{1, 65536, 65536};
  layer_forward_ops(m, s, kind_of(true, false), ops);
  const Op& att = find(ops, "attention");
  EXPECT_EQ(att.k, 576);
  EXPECT_EQ(att.n, 2048);
  EXPECT_DOUBLE_EQ(att.causal_fraction, 1.0 - 2048.0 / (2.0 * 65536.0));
  const Op& ix = find(ops, "indexer");
  EXPECT_DOUBLE_EQ(ix.causal_fraction, 0.5);
  EXPECT_DOUBLE_EQ(ix.bytes, 8.0 * 65536.0 * 65536.0 * 0.5);
}

// Qwen3-Next: every 4th layer full attention, the other 36 Gated DeltaNet. The checkpoint holds
// 79,674,391,296 parameters; the engine leaves out the shared expert's one-column sigmoid gate
// (48 x 2048). The full-attention layers' output gate makes their q_proj twice as wide.
TEST(Qwen3Next, ParametersAndLayerPattern) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  const KindCounts k = model_kinds(m);
  EXPECT_DOUBLE_EQ(k[kind_of(true, false)], 12.0);
  EXPECT_DOUBLE_EQ(k[kind_of(true, true)], 36.0);
  EXPECT_FALSE(is_windowed_layer(m, 3));
  EXPECT_TRUE(is_windowed_layer(m, 4));
  EXPECT_NEAR(count_params(m, 4096).total + 48.0 * 2048, 79'674'391'296.0, 1e6);
  // A linear layer by hand: in_proj 2048 x (2 x 2048 + 2 x 4096 + 64), the convolution's 4 taps
  // over 8,192 channels, A_log and dt_bias (32 each), the gated norm's 128, out_proj 4096 x 2048.
  LayerShape s;
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, true), ops);
  const double linear = 2048.0 * 12352 + 4.0 * 8192 + 64 + 128 + 4096.0 * 2048;
  EXPECT_DOUBLE_EQ(find(ops, "linear_in_proj").params + find(ops, "linear_gated_norm").params +
                       find(ops, "linear_out_proj").params,
                   linear);
}

// Context parallelism over a linear layer (Megatron-Core's gated delta net): an all-to-all takes
// in_proj's 12,352 columns a token (q and k 2 x 2,048, v and the gate 2 x 4,096, beta and the decay
// 2 x 32) from this rank's 4,096 of the 8,192 tokens to half the heads over all of them, and
// another takes the heads' 4,096 outputs a token back; bf16, tp 1, cp 2. Both exposed, fwd and bwd.
TEST(Qwen3Next, ContextParallelTradesTheSequenceForTheHeads) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  LayerShape s;
  s.cp = 2;
  s.loss = true;
  s.group = SeqGroup{1, 4096, 8192};
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, true), ops);
  const Op& in = find(ops, "cp_heads_in");
  EXPECT_EQ(in.group, CommGroup::cp);
  EXPECT_EQ(in.comm, Collective::all_to_all);
  EXPECT_DOUBLE_EQ(in.comm_bytes, 4096.0 * 12352 * 2);
  EXPECT_DOUBLE_EQ(find(ops, "cp_heads_out").comm_bytes, 4096.0 * 4096 * 2);
  // The full-attention layers keep the ring.
  layer_forward_ops(m, s, kind_of(true, false), ops);
  EXPECT_EQ(find(ops, "cp_ring_kv").comm, Collective::p2p);
}

// layer_forward_ops reserves room for every operator a layer can have (max_layer_ops), so
// that the references its blocks hold stay valid: every preset model, every layer kind, training
// with tp, sequence parallelism, cp and ep, and a decode step of two groups, stays within it.
TEST(Graph, EveryLayerFitsTheOperatorsReserved) {
  for (const std::string& id : preset_ids("models")) {
    const ModelSpec m = preset(id.c_str());
    for (std::size_t kind = 0; kind < kLayerKinds; ++kind)
      for (const bool training : {true, false}) {
        LayerShape s;
        s.tp = 2;
        s.sequence_parallel = training;
        s.cp = training ? 2 : 1;
        s.ep = m.moe ? 2 : 1;
        s.loss = training;
        const std::vector<SeqGroup> two{{4, 1, 3000}, {1, 512, 512}};
        if (training)
          s.group = SeqGroup{1, 2048, 4096};
        else
          s.mixed = &two;
        std::vector<Op> ops;
        layer_forward_ops(m, s, kind, ops);
        EXPECT_LE(ops.size(), max_layer_ops(s)) << id << " kind " << kind;
      }
  }
}

// The cache of a linear layer is a state per sequence: 32 heads x 128 x 128 fp32 and the
// convolution's last 3 inputs of 8,192 channels, whatever the context; split over tp by heads.
// A decode step reads and writes it; a prompt runs the chunked form's products.
TEST(Qwen3Next, LinearLayerKeepsAStateNotATokenCache) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  LayerShape s;
  s.tp = 4;
  s.kv_elem_bytes = 2;
  s.group = SeqGroup{8, 1, 100000};
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, true), ops);
  const Op& core = find(ops, "linear_attention");
  EXPECT_TRUE(core.recurrent);
  EXPECT_DOUBLE_EQ(core.kv_bytes, 0.0);
  EXPECT_DOUBLE_EQ(core.state_bytes, 8.0 * 128 * 128 * 4 + 3.0 * 2048 * 2);
  EXPECT_EQ(core.batch, 8 * 8);
  EXPECT_DOUBLE_EQ(core.model_flops, 8.0 * 8 * 7 * 128 * 128);  // the recurrent update
  EXPECT_DOUBLE_EQ(sum_kv_bytes(ops), 0.0);
  s.group = SeqGroup{1, 4096, 4096};
  layer_forward_ops(m, s, kind_of(true, true), ops);
  // Per token and head: 2 x 64 x (3 x 128 + 2 x 128) inside the chunk and 6 x 128 x 128 across.
  EXPECT_DOUBLE_EQ(find(ops, "linear_attention").model_flops,
                   4096.0 * 8 * (2.0 * 64 * 640 + 6.0 * 128 * 128));
  // attention_core_ops (a serving step's context-dependent part) is the recurrence alone.
  attention_core_ops(m, s, kind_of(true, true), ops);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_STREQ(ops[0].name, "linear_attention");
}

// model.layer_pattern in Megatron-Core's hybrid notation: a mixer takes the FFN right after it;
// a mixer before another mixer, or an FFN after an FFN, is a layer alone.
TEST(LayerPattern, GroupsSublayersIntoLayers) {
  std::vector<std::uint8_t> k;
  ASSERT_EQ(read_layer_pattern("M-M*--E", k), -1);
  const std::vector<std::uint8_t> want = {
      static_cast<std::uint8_t>(kind_of(false, true)), static_cast<std::uint8_t>(kMixerOnly + 1),
      static_cast<std::uint8_t>(kind_of(false, false)), static_cast<std::uint8_t>(kFfnOnly),
      static_cast<std::uint8_t>(kFfnOnly + 1)};
  EXPECT_EQ(k, want);
  EXPECT_EQ(write_layer_pattern(k), "M-M*--E");
  EXPECT_TRUE(kind_is_moe(kFfnOnly + 1));
  EXPECT_FALSE(kind_is_moe(kMixerOnly + 1));
  EXPECT_TRUE(kind_is_local(kMixerOnly + 1));
  EXPECT_FALSE(kind_is_local(kFfnOnly + 1));
  EXPECT_EQ(read_layer_pattern("M-x", k), 2);
  EXPECT_EQ(read_layer_pattern("", k), 0);
  EXPECT_STREQ(layer_kind_name(kMixerOnly + 1, true), "linear_only");
  EXPECT_STREQ(layer_kind_name(kMixerOnly + 1), "windowed_only");
  EXPECT_STREQ(layer_kind_name(kFfnOnly), "dense_only");
  EXPECT_STREQ(layer_kind_name(kMixerOnly), "attention_only");
  EXPECT_STREQ(layer_kind_name(kFfnOnly + 1), "moe_only");
}

// Nemotron 3 Nano: 52 sublayers, 23 Mamba-2, 6 attention, 23 MoE; NVIDIA gives 31.6B parameters,
// 3.2B active (3.6B with the embeddings: 3.2B is without the input embedding's 131,072 x 2,688). A layer
// without an FFN has no FFN operators and a layer without a mixer no attention and no cache.
TEST(LayerPattern, NemotronThreeNano) {
  const ModelSpec m = preset("nemotron-3-nano-30b-a3b");
  const KindCounts k = model_kinds(m);
  EXPECT_DOUBLE_EQ(k[kind_of(true, true)], 17.0);
  EXPECT_DOUBLE_EQ(k[kMixerOnly + 1], 6.0);
  EXPECT_DOUBLE_EQ(k[kind_of(true, false)], 6.0);
  EXPECT_DOUBLE_EQ(moe_count(k), 23.0);
  const ParamCounts p = count_params(m, 4096);
  EXPECT_NEAR(p.total / 31.6e9, 1.0, 0.005);
  EXPECT_NEAR(p.active, 3.6e9, 0.05e9);
  EXPECT_NEAR(p.active - p.embedding, 3.2e9, 0.05e9);
  LayerShape s;
  std::vector<Op> ops;
  layer_forward_ops(m, s, kMixerOnly + 1, ops);
  for (const Op& o : ops) EXPECT_NE(o.role, OpRole::ffn_up) << o.name;
  EXPECT_TRUE(find(ops, "linear_attention").recurrent);
  layer_forward_ops(m, s, kFfnOnly + 1, ops);
  for (const Op& o : ops) EXPECT_NE(o.kind, OpKind::attention) << o.name;
  EXPECT_DOUBLE_EQ(sum_kv_bytes(ops) + sum_state_bytes(ops), 0.0);
  attention_core_ops(m, s, kFfnOnly + 1, ops);
  EXPECT_TRUE(ops.empty());
  // Stages of a 2-stage split hold the layers as the pattern places them.
  ParallelPlan pp;
  pp.pp = 2;
  const KindCounts first = stage_kinds_at(m, pp, 0), last = stage_kinds_at(m, pp, 1);
  for (std::size_t j = 0; j < kLayerKinds; ++j) EXPECT_DOUBLE_EQ(first[j] + last[j], k[j]) << j;
}

// One key head (Mamba-2 with one group) over tp 4: every rank holds the key head's B and C
// projections whole and a quarter of the 16 value heads: in-projection 2048 x (2 x 128 + 256 +
// 256 + 2 x 4), the convolution's 4 taps over its 512 channels, 2 x 4 decay and bias terms.
TEST(LayerPattern, OneKeyHeadIsHeldWholeByEveryRank) {
  ModelSpec m = preset("nemotron-h-8b");
  m.hidden = 2048;
  m.linear.heads = 16;
  m.linear.key_heads = 1;
  LayerShape s;
  s.tp = 4;
  std::vector<Op> ops;
  layer_forward_ops(m, s, kMixerOnly + 1, ops);
  EXPECT_DOUBLE_EQ(find(ops, "linear_in_proj").params, 2048.0 * 776 + 4.0 * 512 + 8);
  EXPECT_EQ(find(ops, "linear_in_proj").n, 776);
}

// Gated attention (Qwen3-Next's full-attention layers: 16 heads of 256, 2 KV heads): the query
// projection writes 16 x 256 gates beside the queries, 2048 x (2 x 4096 + 2 x 512) weights, and
// one element-wise pass reads the gates and the heads' output and writes their product.
TEST(GatedAttention, QueryProjectionWritesTheGates) {
  ModelSpec m = preset("qwen3-next-80b-a3b");
  LayerShape s;
  s.group = SeqGroup{1, 4096, 4096};
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, false), ops);
  const Op& qkv = find(ops, "qkv_proj");
  EXPECT_EQ(qkv.n, 2 * 4096 + 2 * 512);
  EXPECT_DOUBLE_EQ(qkv.params, 2048.0 * (2 * 4096 + 2 * 512));
  EXPECT_DOUBLE_EQ(find(ops, "attn_gate").bytes, 3.0 * 2 * 4096 * 4096);
  m.output_gate = false;
  ops.clear();
  layer_forward_ops(m, s, kind_of(true, false), ops);
  EXPECT_EQ(find(ops, "qkv_proj").n, 4096 + 2 * 512);
  EXPECT_TRUE(
      std::none_of(ops.begin(), ops.end(), [](const Op& o) { return std::string(o.name) == "attn_gate"; }));
}

// LatentMoE (Nemotron 3 Super: hidden 4096, latent 1024, 512 experts of 2688 with squared ReLU,
// top 22, one shared expert of 5376): the routed experts read and write 1024-wide rows, the
// dispatch and combine carry them, and two 4096 x 1024 projections every rank holds whole wrap the
// routed path; the router and the shared expert read the 4096-wide hidden state.
TEST(LatentMoe, RoutedPathRunsAtTheLatentWidth) {
  ModelSpec m = preset("nemotron-3-super-120b-a12b");
  m.moe->imbalance = 1.0;
  std::vector<Op> ops = moe_layer_ep64(m);
  // 4096 tokens x 22 copies of 1024 elements at 2 bytes leave the rank; 512 / 64 = 8 local experts
  // receive 4096 x 22 / 8 = 11264 rows each.
  EXPECT_DOUBLE_EQ(find(ops, "ep_dispatch").comm_bytes, 4096.0 * 22 * 1024 * 2);
  EXPECT_DOUBLE_EQ(find(ops, "ep_combine").comm_bytes, 4096.0 * 22 * 1024 * 2);
  const Op& up = find(ops, "expert_up");
  EXPECT_EQ(up.m, 11264);
  EXPECT_EQ(up.k, 1024);
  EXPECT_DOUBLE_EQ(up.params, 8.0 * 1024 * 2688);
  EXPECT_EQ(find(ops, "expert_down").n, 1024);
  EXPECT_EQ(find(ops, "moe_router").k, 4096);
  const Op& in = find(ops, "moe_latent_in");
  EXPECT_EQ(in.m, 4096);
  EXPECT_EQ(in.n, 1024);
  EXPECT_EQ(in.k, 4096);
  EXPECT_DOUBLE_EQ(in.params, 4096.0 * 1024);
  EXPECT_DOUBLE_EQ(find(ops, "moe_latent_out").params, 1024.0 * 4096);
  EXPECT_EQ(find(ops, "shared_up").k, 4096);
  // Without the latent every routed row is 4096 wide: four times the bytes on the wire.
  m.moe->latent_size = 0;
  ops = moe_layer_ep64(m);
  EXPECT_DOUBLE_EQ(find(ops, "ep_dispatch").comm_bytes, 4096.0 * 22 * 4096 * 2);
  EXPECT_EQ(find(ops, "expert_up").k, 4096);
  EXPECT_TRUE(std::none_of(ops.begin(), ops.end(),
                           [](const Op& o) { return std::string(o.name) == "moe_latent_in"; }));
}

// The whole model's parameters: the latent takes each expert from 2 x 4096 x 2688 to
// 2 x 1024 x 2688 and adds the two projections, 40 MoE layers of 512 experts.
TEST(LatentMoe, ParametersCountTheLatentExpertsAndTheProjections) {
  ModelSpec m = preset("nemotron-3-super-120b-a12b");
  const ParamCounts latent = count_params(m, 4096);
  m.moe->latent_size = 0;
  const ParamCounts full = count_params(m, 4096);
  EXPECT_DOUBLE_EQ(full.total - latent.total, 40.0 * (512 * 2 * 2688 * (4096.0 - 1024) - 2 * 4096.0 * 1024));
  EXPECT_DOUBLE_EQ(full.active - latent.active, 40.0 * (22 * 2 * 2688 * (4096.0 - 1024) - 2 * 4096.0 * 1024));
  // NVIDIA names it 120B total, 12B active.
  EXPECT_NEAR(latent.total / 1e9, 120.7, 0.05);
  EXPECT_NEAR(latent.active / 1e9, 12.8, 0.05);
}

TEST(DeepSeekV3, AllToAllAndExpertGemms) {
  const ModelSpec m = preset("deepseek-v3");
  // One micro-batch of 4096 tokens, tp 1, ep 64: every rank sends each token's hidden state to 8
  // experts, 4096 x 8 x 7168 x 2 bytes, and holds 256 / 64 = 4 experts, each receiving
  // 4096 x 8 x 64 / 256 = 8192 tokens (balanced router).
  ModelSpec balanced = m;
  balanced.moe->imbalance = 1.0;
  std::vector<Op> ops = moe_layer_ep64(balanced);
  const Op& dispatch = find(ops, "ep_dispatch");
  EXPECT_EQ(dispatch.comm, Collective::all_to_all);
  EXPECT_EQ(dispatch.group, CommGroup::ep);
  EXPECT_DOUBLE_EQ(dispatch.comm_bytes, 4096.0 * 8 * 7168 * 2);
  EXPECT_DOUBLE_EQ(find(ops, "ep_combine").comm_bytes, dispatch.comm_bytes);
  const Op& up = find(ops, "expert_up");
  EXPECT_EQ(up.batch, 4);
  EXPECT_EQ(up.m, 8192);
  EXPECT_EQ(up.n, 2 * 2048);
  EXPECT_EQ(up.k, 7168);
  EXPECT_DOUBLE_EQ(up.params, 4.0 * 2 * 7168 * 2048);
  // A measured router's busiest rank gets 1.2 x the mean (the default imbalance).
  ops = moe_layer_ep64(m);
  EXPECT_EQ(find(ops, "expert_up").m, 9831);  // ceil(8192 * 1.2)
}

// Inference without attention data parallelism: the tensor-parallel ranks hold the same tokens
// and ep of them split the experts (SGLang's and TensorRT-LLM's expert parallelism inside the
// tensor-parallel group, no all-to-all backend), so every rank already has every token its experts
// need and the layer's closing all-reduce sums the experts' outputs: no dispatch or combine. With
// attention data parallelism (tp 1) each rank holds its own tokens and sends them to the experts'
// ranks. An ep group wider than tp spans ranks with different tokens and exchanges them too.
TEST(DeepSeekV3, NoAllToAllWhereTheTensorParallelRanksShareTheTokens) {
  const ModelSpec m = preset("deepseek-v3");
  const auto ops_for = [&](std::int64_t tp, std::int64_t ep) {
    LayerShape s;
    s.group = SeqGroup{64, 1, 1000};
    s.tp = tp;
    s.ep = ep;
    s.etp = std::max<std::int64_t>(1, tp / ep);
    std::vector<Op> ops;
    layer_forward_ops(m, s, kind_of(true, false), ops);
    return ops;
  };
  const auto has = [](const std::vector<Op>& ops, const std::string& name) {
    for (const Op& o : ops)
      if (o.name == name) return true;
    return false;
  };
  for (auto [tp, ep] : {std::pair<std::int64_t, std::int64_t>{8, 8}, {8, 4}, {4, 4}}) {
    const std::vector<Op> ops = ops_for(tp, ep);
    EXPECT_FALSE(has(ops, "ep_dispatch")) << tp << " " << ep;
    EXPECT_FALSE(has(ops, "ep_combine")) << tp << " " << ep;
    EXPECT_TRUE(has(ops, "tp_allreduce_mlp")) << tp << " " << ep;
  }
  EXPECT_TRUE(has(ops_for(1, 8), "ep_dispatch"));
  EXPECT_TRUE(has(ops_for(1, 8), "ep_combine"));
  EXPECT_TRUE(has(ops_for(4, 8), "ep_dispatch"));
}

// Attention data parallelism under an all-gather exchange (LayerShape::moe_allgather, TensorRT-LLM's
// PyTorch backend without a multi-node NVLink domain): 64 decoding tokens per rank, ep 8, bf16.
// Every rank gathers the group's 8 x 64 tokens (the collective's size is the gathered tensor,
// 512 x 7168 x 2 bytes) and reduce-scatters as much after the experts, in place of the two
// all-to-alls of the routed copies; the experts see the same rows either way.
TEST(DeepSeekV3, AllGatherExchangeMovesEveryTokenOfTheGroup) {
  const ModelSpec m = preset("deepseek-v3");
  LayerShape s;
  s.group = SeqGroup{64, 1, 1000};
  s.ep = 8;
  std::vector<Op> a2a, ag;
  layer_forward_ops(m, s, kind_of(true, false), a2a);
  s.moe_allgather = true;
  layer_forward_ops(m, s, kind_of(true, false), ag);
  const Op& gather = find(ag, "ep_allgather");
  EXPECT_EQ(gather.comm, Collective::all_gather);
  EXPECT_EQ(gather.group, CommGroup::ep);
  EXPECT_DOUBLE_EQ(gather.comm_bytes, 8.0 * 64 * 7168 * 2);
  const Op& scatter = find(ag, "ep_reducescatter");
  EXPECT_EQ(scatter.comm, Collective::reduce_scatter);
  EXPECT_DOUBLE_EQ(scatter.comm_bytes, 8.0 * 64 * 7168 * 2);
  for (const Op& o : ag) EXPECT_NE(o.comm, Collective::all_to_all) << o.name;
  EXPECT_DOUBLE_EQ(find(ag, "expert_up").model_flops, find(a2a, "expert_up").model_flops);
  EXPECT_EQ(find(ag, "expert_up").m, find(a2a, "expert_up").m);
}

// Redundant expert slots spread a rank's rows over more local experts (LayerShape::expert_slots), and
// with attention data parallelism and tensor-parallel experts the etp ranks exchange the tokens
// once each, not their routed copies (LayerShape::gather_before_routing).
TEST(DeepSeekV3, ExpertSlotsAndGatheredTokens) {
  const ModelSpec m = preset("deepseek-v3");
  LayerShape s;
  s.group = SeqGroup{1, 4096, 4096};
  s.ep = 8;
  s.expert_slots = 288;
  std::vector<Op> ops;
  layer_forward_ops(m, s, kind_of(true, false), ops);
  EXPECT_DOUBLE_EQ(find(ops, "expert_up").params, 36.0 * 2 * 7168 * 2048);
  LayerShape g;
  g.group = SeqGroup{64, 1, 1000};
  g.etp = 8;
  g.gather_before_routing = true;
  ops.clear();
  layer_forward_ops(m, g, kind_of(true, false), ops);
  EXPECT_DOUBLE_EQ(find(ops, "etp_allreduce").comm_bytes, 64.0 * 8 * 7168 * 2);
}

// Expert tensor parallelism in training (Megatron-Core's folding): tp 4 with sequence parallelism,
// ep 8 over Grok-1's 8 experts. Each rank routes 8192 / 4 tokens to 2 experts; the etp ranks of
// an expert gather each other's rows, so its GEMMs run etp x 4096 rows on 32768 / etp columns: the
// rows grow and the width shrinks with etp, and the rank's expert FLOPs stay the same.
TEST(Grok1, ExpertTensorParallelKeepsTheFlops) {
  ModelSpec m = preset("grok-1");
  m.moe->imbalance = 1.0;
  double flops_etp1 = 0;
  for (const std::int64_t etp : {1, 2, 4}) {
    LayerShape s;
    s.group = SeqGroup{1, 8192, 8192};
    s.tp = 4;
    s.sequence_parallel = true;
    s.ep = 8;
    s.etp = etp;
    s.loss = true;
    std::vector<Op> ops;
    layer_forward_ops(m, s, kind_of(true, false), ops);
    const Op& up = find(ops, "expert_up");
    EXPECT_EQ(up.m, 4096 * etp) << etp;
    EXPECT_EQ(up.n, 2 * 32768 / etp) << etp;
    const double flops = up.model_flops + find(ops, "expert_down").model_flops;
    if (etp == 1) flops_etp1 = flops;
    EXPECT_DOUBLE_EQ(flops, flops_etp1) << etp;
    // The gather and reduce-scatter over the etp group move one all-reduce of the gathered rows.
    if (etp > 1) {
      EXPECT_DOUBLE_EQ(find(ops, "etp_allreduce").comm_bytes, 4096.0 * static_cast<double>(etp) * 6144 * 2)
          << etp;
    }
  }
}

TEST(DeepSeekV3, ExpertMemoryPerGpu) {
  // 256 GPUs, pp 2 (a balanced split of 61 layers: 30 + 31), ep 32, dp 128: the first stage holds
  // layers 0-29 (3 dense, 27 MoE), each device 8 of the 256 experts of every MoE layer.
  Scenario s;
  s.model = preset("deepseek-v3");
  s.parallel.pp = 2;
  s.parallel.dp = 128;
  s.parallel.ep = 32;
  const StageKinds sk = stage_kinds(s.model, s.parallel);
  EXPECT_DOUBLE_EQ(sk.first[kind_of(false, false)], 3);
  EXPECT_DOUBLE_EQ(sk.first[kind_of(true, false)], 27);
  EXPECT_DOUBLE_EQ(sk.last[kind_of(true, false)], 31);
  const StageParams first = stage_params(s.model, s.parallel, 4096, true, false);
  EXPECT_DOUBLE_EQ(first.experts, 27.0 * 8 * 3 * 7168 * 2048);
}

// Element-wise operators as PyTorch primitives (SoftwareDefaults::fused_elementwise false), worked
// out by hand from Hugging Face's eager Llama code for 16-bit activations (e = 2): RMSNorm
// 4e + 28 = 36 bytes per element in 6 kernels against 2e = 4 (x9), SwiGLU 5e against 3e in 2
// kernels, rotary 10e against 2e in 10 kernels (5 for the queries, 5 for the keys); the residual
// add (no dropout in Llama) and the attention core are untouched. GPT-3's LayerNorm is one
// PyTorch kernel either way; its dropout beside the residual add is a second kernel, 5e + 1
// against 3e + 1 bytes per element.
// Inference runtimes that fuse a residual add with the norm after it keep only the norm's output
// write (e of its 2e bytes per element) and no kernel of its own; MLA's latent norms and the
// training graph keep theirs. A rotary embedding inside the attention kernel costs nothing apart.
TEST(Graph, FusedNeighboursInInference) {
  ModelSpec m = preset("llama3-8b");
  LayerShape s;
  s.group = SeqGroup{4, 1, 1000};
  const std::vector<Op> plain = layer_forward_ops(m, s);
  s.fused_residual_norm = true;
  s.rope_in_attention = true;
  const std::vector<Op> fused = layer_forward_ops(m, s);
  for (const char* name : {"norm_attn", "norm_mlp"}) {
    EXPECT_DOUBLE_EQ(find(fused, name).bytes, find(plain, name).bytes / 2) << name;
    EXPECT_DOUBLE_EQ(find(fused, name).kernels, 0.0) << name;
  }
  EXPECT_DOUBLE_EQ(find(fused, "rope").bytes, 0.0);
  EXPECT_DOUBLE_EQ(find(fused, "rope").kernels, 0.0);
  EXPECT_DOUBLE_EQ(find(fused, "residual_attn").bytes, find(plain, "residual_attn").bytes);
  // A prompt keeps the kernel that rotates it and writes the cache.
  s.group = SeqGroup{1, 512, 512};
  EXPECT_DOUBLE_EQ(find(layer_forward_ops(m, s), "rope").kernels, 1.0);
  EXPECT_GT(find(layer_forward_ops(m, s), "rope").bytes, 0.0);
  s.group = SeqGroup{1, 4096, 4096};
  s.loss = true;
  const std::vector<Op> train = layer_forward_ops(m, s);
  EXPECT_DOUBLE_EQ(find(train, "norm_mlp").kernels, 1.0);
  EXPECT_GT(find(train, "rope").bytes, 0.0);
}

// FasterTransformer's GPT layer (ParallelGptDecoder.cc; v4.0's open_decoder.h the same): a layer
// norm, attention, one kernel that adds the output bias and the residual and normalises for the
// MLP, the MLP, and the bias + residual add. Only the norm after attention is absorbed (its
// kernel gone, of its 2e bytes per element the output write e left); the layer's first norm and
// the final norm keep theirs. GPT-3 175B (hidden 12288), one decoding token: the MLP norm reads
// and writes 12288 x 2 bytes, 49,152 B, of which 24,576 are left.
TEST(Graph, FasterTransformerFusesOnlyTheNormAfterAttention) {
  const ModelSpec m = preset("gpt3-175b");
  // The layer's operators with the two flags (attention-only fusion, every norm fused).
  const auto ops = [&](bool after_attention, bool every, SeqGroup g, bool loss) {
    LayerShape s;
    s.group = g;
    s.loss = loss;
    s.fused_attention_residual_norm = after_attention;
    s.fused_residual_norm = every;
    return layer_forward_ops(m, s);
  };
  const auto kernels = [](const std::vector<Op>& v) {
    double k = 0;
    for (const Op& o : v)
      if (o.kind == OpKind::elementwise) k += o.kernels;
    return k;
  };
  const SeqGroup decode{1, 1, 1000};
  const std::vector<Op> plain = ops(false, false, decode, false), ft = ops(true, false, decode, false);
  EXPECT_DOUBLE_EQ(find(plain, "norm_mlp").bytes, 49152.0);
  EXPECT_DOUBLE_EQ(find(ft, "norm_mlp").bytes, 24576.0);
  EXPECT_DOUBLE_EQ(find(ft, "norm_mlp").kernels, 0.0);
  EXPECT_DOUBLE_EQ(find(ft, "norm_attn").kernels, 1.0);
  EXPECT_DOUBLE_EQ(find(ft, "norm_attn").bytes, find(plain, "norm_attn").bytes);
  EXPECT_DOUBLE_EQ(kernels(plain) - kernels(ft), 1.0);
  // fused_residual_norm implies it; training graphs keep the kernel.
  EXPECT_DOUBLE_EQ(find(ops(false, true, decode, false), "norm_mlp").kernels, 0.0);
  EXPECT_DOUBLE_EQ(find(ops(true, false, SeqGroup{1, 2048, 2048}, true), "norm_mlp").kernels, 1.0);
}

TEST(Graph, UnfusedElementwiseOperatorsAreChainsOfPrimitives) {
  ModelSpec m = preset("llama3-8b");
  LayerShape s;
  s.group = SeqGroup{1, 4096, 4096};
  s.tp = 1;
  const std::vector<Op> fused = layer_forward_ops(m, s);
  s.unfused_elementwise = kAllElementwise;
  const std::vector<Op> eager = layer_forward_ops(m, s);
  ASSERT_EQ(fused.size(), eager.size());
  const auto ratio = [&](const char* name) { return find(eager, name).bytes / find(fused, name).bytes; };
  EXPECT_DOUBLE_EQ(ratio("norm_attn"), 9.0);
  EXPECT_DOUBLE_EQ(find(eager, "norm_attn").kernels, 6.0);
  EXPECT_DOUBLE_EQ(ratio("norm_mlp"), 9.0);
  EXPECT_DOUBLE_EQ(ratio("mlp_act"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(find(eager, "mlp_act").kernels, 2.0);
  EXPECT_DOUBLE_EQ(ratio("rope"), 5.0);
  EXPECT_DOUBLE_EQ(find(eager, "rope").kernels, 10.0);
  EXPECT_DOUBLE_EQ(ratio("residual_attn"), 1.0);
  EXPECT_DOUBLE_EQ(find(eager, "residual_attn").kernels, 1.0);
  // The backward keeps twice the forward's traffic, spread over as many kernels.
  const Op& n = find(eager, "norm_attn");
  EXPECT_DOUBLE_EQ(n.backward_bytes * n.backward_kernels, 2.0 * n.bytes);
  for (std::size_t i = 0; i < fused.size(); ++i) {
    if (fused[i].kind != OpKind::elementwise) {
      EXPECT_DOUBLE_EQ(eager[i].bytes, fused[i].bytes) << fused[i].name;
    }
  }

  ModelSpec g = preset("gpt3-175b");
  LayerShape t;
  t.group = SeqGroup{1, 2048, 2048};
  t.position_rows = 2048;
  t.loss = true;  // training: dropout runs
  const std::vector<Op> g_fused = layer_forward_ops(g, t);
  t.unfused_elementwise = kAllElementwise;
  const std::vector<Op> g_eager = layer_forward_ops(g, t);
  EXPECT_DOUBLE_EQ(find(g_eager, "norm_attn").bytes, find(g_fused, "norm_attn").bytes);
  ASSERT_TRUE(g.dropout);
  EXPECT_DOUBLE_EQ(find(g_eager, "residual_attn").bytes / find(g_fused, "residual_attn").bytes, 11.0 / 7.0);
  EXPECT_DOUBLE_EQ(find(g_eager, "mlp_act").bytes, find(g_fused, "mlp_act").bytes);  // GeLU: one kernel
}

// A stack that fuses some element-wise operators and not others: only the named ones become chains
// of primitives (nanotron's Qwen2 code: the input norm and SwiGLU; its post-attention norm and
// rotary embedding stay fused).
TEST(Graph, OnlyTheNamedElementwiseOperatorsAreUnfused) {
  ModelSpec m = preset("llama3-8b");
  LayerShape s;
  s.group = SeqGroup{1, 4096, 4096};
  s.tp = 1;
  const std::vector<Op> fused = layer_forward_ops(m, s);
  s.unfused_elementwise =
      elementwise_bit(ElementwiseOp::attn_norm) | elementwise_bit(ElementwiseOp::activation);
  const std::vector<Op> some = layer_forward_ops(m, s);
  const auto ratio = [&](const char* name) { return find(some, name).bytes / find(fused, name).bytes; };
  EXPECT_DOUBLE_EQ(ratio("norm_attn"), 9.0);
  EXPECT_DOUBLE_EQ(find(some, "norm_attn").kernels, 6.0);
  EXPECT_DOUBLE_EQ(ratio("mlp_act"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(ratio("norm_mlp"), 1.0);
  EXPECT_DOUBLE_EQ(find(some, "norm_mlp").kernels, 1.0);
  EXPECT_DOUBLE_EQ(ratio("rope"), 1.0);
  EXPECT_DOUBLE_EQ(find(some, "rope").kernels, 1.0);
}

// torchtitan's op-level selective checkpointing (recompute_modules "alternate_matmuls"): of the
// Llama code's matmuls wq, wk, wv, wo, w1, w3, w2 the second, fourth and sixth run again. Llama 3
// 8B (32 heads, 8 KV heads of 128): the key projection is 8 / (32 + 2 x 8) = 1/6 of the fused QKV
// projection, the output projection all of it, w3 half of the fused gate and up, w2 none; every
// element-wise operator (norms, rotary embedding, SwiGLU, residual adds) runs again. GPT-3's GeLU
// MLP (wq, wk, wv, wo, up, down): the key projection is 1/3 of QKV and the down projection reruns
// instead of the up. The saved bytes stay what the layer keeps without recompute (an upper bound).
TEST(Graph, AlternateMatmulsAsTorchtitanCountsThem) {
  LayerShape s;
  s.group = SeqGroup{1, 8192, 8192};
  s.attention = AttentionKernel::flash;
  s.loss = true;
  const auto llama = layer_forward_ops(preset("llama3-8b"), s);
  EXPECT_DOUBLE_EQ(find(llama, "qkv_proj").alternate_share, 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(find(llama, "attn_out_proj").alternate_share, 1.0);
  EXPECT_DOUBLE_EQ(find(llama, "mlp_up").alternate_share, 0.5);
  EXPECT_DOUBLE_EQ(find(llama, "mlp_down").alternate_share, 0.0);
  // Per token: 2 x 4096 x (1024 + 4096 + 14336) FLOPs run again.
  double rerun_flops = 0;
  for (const Op& o : llama) {
    if (o.kind == OpKind::matmul) rerun_flops += o.model_flops * o.alternate_share;
    EXPECT_EQ(o.kind == OpKind::elementwise, (o.rerun & module_bit(RecomputeModule::alternate_matmuls)) != 0)
        << o.name;
  }
  EXPECT_DOUBLE_EQ(rerun_flops, 8192.0 * 2 * 4096 * (1024 + 4096 + 14336));
  EXPECT_DOUBLE_EQ(sum_saved(llama, Recompute::selective, module_bit(RecomputeModule::alternate_matmuls)),
                   sum_saved(llama, Recompute::none));
  const auto gpt3 = layer_forward_ops(preset("gpt3-175b"), s);
  EXPECT_DOUBLE_EQ(find(gpt3, "qkv_proj").alternate_share, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(find(gpt3, "mlp_up").alternate_share, 0.0);
  EXPECT_DOUBLE_EQ(find(gpt3, "mlp_down").alternate_share, 1.0);
}

}  // namespace
}  // namespace optimus::graph_test
