#include <gtest/gtest.h>

#include <vector>

#include "base/comm.h"
#include "base/precision.h"
#include "io/presets.h"
#include "model/graph.h"
#include "model/spec.h"

namespace optimus::model_test {
namespace {

ModelSpec gpt(std::int64_t L, std::int64_t h, std::int64_t a, std::int64_t V) {
  ModelSpec m;
  m.layers = L;
  m.hidden = h;
  m.heads = a;
  m.kv_heads = a;
  m.head_dim = h / a;
  m.ffn_hidden = 4 * h;
  m.vocab = V;
  return m;
}

struct ParamCase {
  std::int64_t L, h, a, V, s;
};
class MegatronParams : public ::testing::TestWithParam<ParamCase> {};

// Narayanan et al. 2021, Eq. 2: P = 12 L h^2 (1 + 13/(12h) + (V + s)/(12 L h)).
TEST_P(MegatronParams, MatchesEquation2) {
  const auto c = GetParam();
  const ModelSpec m = gpt(c.L, c.h, c.a, c.V);
  const double L = static_cast<double>(c.L), h = static_cast<double>(c.h);
  const double eq2 =
      12.0 * L * h * h * (1.0 + 13.0 / (12.0 * h) + static_cast<double>(c.V + c.s) / (12.0 * L * h));
  // Eq. 2 omits the final LayerNorm (2h).
  EXPECT_DOUBLE_EQ(count_params(m, c.s).total, eq2 + 2.0 * h);
}
INSTANTIATE_TEST_SUITE_P(Table1, MegatronParams,
                         ::testing::Values(ParamCase{24, 2304, 24, 51200, 2048},
                                           ParamCase{96, 12288, 96, 51200, 2048},
                                           ParamCase{128, 25600, 160, 51200, 2048}));

// A model built natively is completed and checked by the engine as the JSON reader's is: head_dim
// and kv_heads filled in, the attention variant following kv_heads, a contradiction refused with its
// path.
TEST(Model, CompleteModelFillsAndChecks) {
  ModelSpec m = gpt(4, 4096, 32, 32000);
  m.kv_heads = 0;  // as read: not stated
  m.head_dim = 0;
  auto plain = complete_model(m, std::nullopt, "/model");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->head_dim, 128);
  EXPECT_EQ(plain->kv_heads, 32);
  EXPECT_EQ(plain->attention, AttentionType::mha);

  auto mqa = complete_model(m, AttentionType::mqa, "/model");
  ASSERT_TRUE(mqa.ok());
  EXPECT_EQ(mqa->kv_heads, 1);
  EXPECT_EQ(mqa->attention, AttentionType::mqa);

  ModelSpec grouped = m;
  grouped.kv_heads = 8;
  auto gqa = complete_model(grouped, std::nullopt, "/model");
  ASSERT_TRUE(gqa.ok());
  EXPECT_EQ(gqa->attention, AttentionType::gqa);
  auto mismatch = complete_model(grouped, AttentionType::mha, "/model");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().code, "model.attention_mismatch");
  EXPECT_EQ(mismatch.error().path, "/model/attention/type");

  auto unsized = complete_model(m, AttentionType::gqa, "/model");
  ASSERT_FALSE(unsized.ok());
  EXPECT_EQ(unsized.error().path, "/model/kv_heads");

  ModelSpec odd = m;
  odd.hidden = 4000;
  odd.heads = 48;
  auto fraction = complete_model(odd, std::nullopt, "/model");
  ASSERT_FALSE(fraction.ok());
  EXPECT_EQ(fraction.error().code, "model.head_dim_not_integer");

  ModelSpec routed = m;
  routed.moe = MoeSpec{};
  routed.moe->experts = 4;
  routed.moe->top_k = 8;
  auto topk = complete_model(routed, std::nullopt, "/model");
  ASSERT_FALSE(topk.ok());
  EXPECT_EQ(topk.error().code, "model.moe_top_k_exceeds_experts");
  EXPECT_EQ(topk.error().path, "/model/moe/top_k");
}

TEST(Model, LlamaStyleCounts) {
  // Llama 2 70B: 80 layers, h 8192, 64 heads, 8 KV heads, SwiGLU 28672, vocab 32000, untied.
  ModelSpec m = gpt(80, 8192, 64, 32000);
  m.kv_heads = 8;
  m.ffn_hidden = 28672;
  m.ffn_type = FfnType::swiglu;
  m.norm = NormType::rmsnorm;
  m.bias = false;  // Llama-style traits: no biases, no dropout, rotary positions
  m.dropout = false;
  m.position = PositionKind::rotary;
  m.tied_embeddings = false;
  const ParamCounts p = count_params(m, 4096);
  // attention: h*(q + 2 kv) + q*h = 8192*(8192+2048) + 8192^2; mlp 3*h*f; norms 2h.
  EXPECT_DOUBLE_EQ(p.attention, 8192.0 * (8192 + 2048) + 8192.0 * 8192);
  EXPECT_DOUBLE_EQ(p.mlp, 3.0 * 8192 * 28672);
  EXPECT_DOUBLE_EQ(p.norms, 2.0 * 8192);
  EXPECT_NEAR(p.total / 1e9, 68.98, 0.01);  // the published "70B" is 68.98e9 parameters
}

TEST(Model, LayerFlopsMatchMegatron) {
  // 24 b s h^2 + 4 b s^2 h per layer forward for GPT (Narayanan et al. 2021, Appendix).
  const ModelSpec m = gpt(96, 12288, 96, 51200);
  const double s = 2048, h = 12288;
  EXPECT_DOUBLE_EQ(model_layers_flops(m, 2048, 2048), 96 * (24.0 * s * h * h + 4.0 * s * s * h));
}

// A mixture-of-experts layer's model FLOPs count its top_k routed experts (and its shared ones),
// whatever the dense ffn_hidden says: Grok-1 (8 experts of 32768, top 2) and Mixtral 8x7B (8 of
// 14336, top 2) per token and layer 2 x (attention projections + top_k x 3 h f) + the scores.
TEST(Model, MoeLayerFlopsCountTheRoutedExperts) {
  for (const char* id : {"grok-1", "mixtral-8x7b"}) {
    auto m = model_preset(id, "/model");
    ASSERT_TRUE(m.ok()) << id;
    const double h = static_cast<double>(m->hidden), f = static_cast<double>(m->moe->expert_ffn_hidden);
    const double q = static_cast<double>(m->heads * m->head_dim),
                 kv = static_cast<double>(m->kv_heads * m->head_dim);
    const double s = 4096, k = static_cast<double>(m->moe->top_k), L = static_cast<double>(m->layers);
    const double proj = 2.0 * s * (h * (q + 2 * kv) + q * h);
    const double experts = 2.0 * s * k * 3.0 * h * f;
    const double router = 2.0 * s * h * static_cast<double>(m->moe->experts);
    const double scores = 4.0 * s * s * q;
    EXPECT_NEAR(model_layers_flops(*m, 4096, 4096) / (L * (proj + experts + router + scores)), 1.0, 1e-9)
        << id;
  }
}

TEST(Model, ForwardOpsShapesUnderTensorParallel) {
  const ModelSpec m = gpt(2, 4096, 32, 50000);
  LayerShape s;
  s.group = SeqGroup{2, 1024, 1024};
  s.tp = 4;
  const auto ops = layer_forward_ops(m, s);
  int matmuls = 0, allreduce = 0;
  for (const auto& o : ops) {
    if (o.kind == OpKind::matmul) {
      ++matmuls;
      EXPECT_EQ(o.m, 2048);
    }
    if (o.kind == OpKind::comm) {
      ++allreduce;
      EXPECT_EQ(o.comm, Collective::all_reduce);
      EXPECT_DOUBLE_EQ(o.comm_bytes, 2.0 * 2048 * 4096);
    }
    if (std::string(o.name) == "qkv_proj") {
      EXPECT_EQ(o.n, 3 * 4096 / 4);
    }
    if (std::string(o.name) == "mlp_down") {
      EXPECT_EQ(o.k, 4 * 4096 / 4);
    }
  }
  EXPECT_EQ(matmuls, 4);
  EXPECT_EQ(allreduce, 2);  // two all-reduces per layer forward (Shoeybi et al. 2019)
  s.sequence_parallel = true;
  int ag = 0, rs = 0;
  for (const auto& o : layer_forward_ops(m, s)) {
    ag += o.kind == OpKind::comm && o.comm == Collective::all_gather;
    rs += o.kind == OpKind::comm && o.comm == Collective::reduce_scatter;
  }
  EXPECT_EQ(ag, 2);
  EXPECT_EQ(rs, 2);
}

// The periodic count the layout search uses equals counting layer by layer (layer_kind), for
// every range of every mix of MoE spacing and sliding windows, and for every model preset.
TEST(Model, KindsInRangeMatchLayerByLayer) {
  const auto by_layer = [](const ModelSpec& m, std::int64_t begin, std::int64_t end) {
    KindCounts k{};
    for (std::int64_t i = begin; i < end; ++i) k[layer_kind(m, i)] += 1.0;
    return k;
  };
  std::vector<ModelSpec> models;
  for (std::int64_t first : {0, 1, 3})
    for (std::int64_t freq : {1, 2, 3})
      for (std::int64_t window : {0, 128})
        for (std::int64_t every : {0, 1, 2, 4, 6}) {
          ModelSpec m;
          m.layers = 23;
          m.window = window;
          m.global_every = every;
          m.moe = MoeSpec{};
          m.moe->first_dense_layers = first;
          m.moe->layer_freq = freq;
          models.push_back(m);
          m.moe.reset();
          models.push_back(m);
        }
  for (const auto& p : list_presets("models")) models.push_back(*model_preset(p.id, "/model"));
  for (const ModelSpec& m : models)
    for (std::int64_t b = 0; b <= m.layers; ++b)
      for (std::int64_t e = b; e <= m.layers; ++e)
        ASSERT_EQ(kinds_in_range(m, b, e), by_layer(m, b, e))
            << m.name << " layers [" << b << ", " << e << ") window " << m.window << " every "
            << m.global_every << " moe " << (m.moe ? m.moe->layer_freq : 0);
  const ModelSpec& last = models.back();
  EXPECT_EQ(model_kinds(last), by_layer(last, 0, last.layers));
}

TEST(Model, EveryModelPresetParses) {
  for (const auto& p : list_presets("models")) {
    auto m = model_preset(p.id, "/model");
    ASSERT_TRUE(m.ok()) << p.id << ": " << m.error().message;
    EXPECT_GT(count_params(*m, 2048).total, 1e8) << p.id;
  }
}

// Parameter counts against the sizes the model cards publish (Meta's Llama 3.2 / 3.3 cards,
// Mistral 7B paper, Qwen2.5 and Qwen3 technical reports, the Qwen2.5-Math and DeepSeek-R1-Distill
// cards), within 1%: a wrong width or a wrong
// tie of the embeddings shows up here.
TEST(Model, PresetSizesMatchTheirModelCards) {
  const std::pair<const char*, double> published[] = {{"llama3.3-70b", 70.6e9},
                                                      {"llama3.2-1b", 1.235e9},
                                                      {"llama3.2-3b", 3.21e9},
                                                      {"mistral-7b", 7.24e9},
                                                      {"qwen2.5-7b", 7.61e9},
                                                      {"qwen2.5-72b", 72.7e9},
                                                      {"qwen3-8b", 8.19e9},
                                                      {"qwen3-32b", 32.8e9},
                                                      {"qwen2.5-14b", 14.7e9},
                                                      {"qwen2.5-32b", 32.5e9},
                                                      {"qwen2.5-math-7b", 7.62e9},
                                                      {"qwen3-14b", 14.8e9},
                                                      {"deepseek-r1-distill-qwen-1.5b", 1.78e9},
                                                      {"deepseek-r1-distill-qwen-7b", 7.62e9},
                                                      {"deepseek-r1-distill-qwen-14b", 14.8e9},
                                                      {"deepseek-r1-distill-qwen-32b", 32.8e9}};
  for (const auto& [id, size] : published) {
    auto m = model_preset(id, "/model");
    ASSERT_TRUE(m.ok()) << id;
    EXPECT_NEAR(count_params(*m, 2048).total / size, 1.0, 0.01) << id;
  }
}

}  // namespace
}  // namespace optimus::model_test

// OPTIMUS_ENUM (base/enums.h): names are the enumerators' spellings, in declaration order,
// including the first, the last and one with an explicit underlying type.
static_assert(optimus::EnumNames<optimus::CommGroup>::table.size() == 9);
static_assert(optimus::name_of(optimus::CommGroup::tp) == "tp");
static_assert(optimus::name_of(optimus::CommGroup::zero_replica) == "zero_replica");
static_assert(optimus::parse_enum<optimus::RecomputeModule>("mla_up_proj") ==
              optimus::RecomputeModule::mla_up_proj);
static_assert(!optimus::parse_enum<optimus::RecomputeModule>(" mlp").has_value());
static_assert(optimus::enum_values<optimus::Precision>().back() == optimus::Precision::mxfp4);
