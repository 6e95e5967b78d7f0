// What is run: a decoder-only transformer. Fields mirror the scenario's model object
// (docs/contract.md), so names here are the JSON keys. The layer itself (its operators, their
// parameters, saved activations and KV cache) is described once, by the task graph in
// model/graph.h; everything here is the configuration that graph is built from.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "base/precision.h"
#include "base/result.h"

namespace optimus {

// Dense FFN activation: GeLU (two matrices), SwiGLU (gate + up + down), squared ReLU.
OPTIMUS_ENUM(FfnType, gelu, swiglu, relu2);
OPTIMUS_ENUM(NormType, layernorm, rmsnorm);
// How positions enter: learned absolute embeddings (GPT-2/3), rotary embeddings applied to q and
// k in every layer (Su et al. 2021, RoFormer; Llama), or none (e.g. ALiBi-style biases folded
// into attention, or NoPE layers).
OPTIMUS_ENUM(PositionKind, learned, rotary, none);
// Attention variant. MHA: one K/V head per query head; GQA: groups of query heads share one
// (Ainslie et al. 2023); MQA: a single K/V head (Shazeer 2019). The variant follows kv_heads.
// MLA: multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, Sec. 2.1): keys and values
// come from a compressed per-token latent, which is what the KV cache stores.
OPTIMUS_ENUM(AttentionType, mha, gqa, mqa, mla);
// How evenly a router spreads tokens over the expert-parallel ranks: "balanced" (forced even
// split, as vendor benchmarks run) or "measured" (a real router: the busiest rank gets
// `imbalance` times the mean).
OPTIMUS_ENUM(RouterBalance, balanced, measured);
// How attention and the FFN are arranged in a layer. Sequential: the FFN reads the attention
// block's output (GPT-2/3, Llama). Parallel: both read the same normalised input and their outputs
// are summed into the residual, y = x + Attn(LN(x)) + FFN(LN(x)) (GPT-J; GPT-NeoX and Pythia's
// use_parallel_residual; PaLM, Chowdhery et al. 2022, Sec. 2 "Parallel Layers"; Falcon's
// parallel_attn): one tensor-parallel reduction per layer instead of two.
OPTIMUS_ENUM(BlockKind, sequential, parallel);

// Mixture-of-experts FFN (model.moe): `experts` routed experts of width expert_ffn_hidden, each
// token going to top_k of them, plus shared experts every token passes through; the first
// first_dense_layers layers keep the dense FFN and after them every layer_freq-th layer is MoE.
// latent_size (LatentMoE, Elango et al. 2026, arXiv 2601.18089; Nemotron 3 Super's
// moe_latent_size): the routed experts work in a latent_size-wide space, entered and left through
// two projections every rank holds whole; 0 = at the hidden size.
struct MoeSpec {
  std::int64_t experts = 0, top_k = 0, expert_ffn_hidden = 0;
  std::int64_t shared_experts = 0, shared_expert_ffn_hidden = 0;
  std::int64_t latent_size = 0;
  std::int64_t first_dense_layers = 0, layer_freq = 1;
  double capacity_factor = 0;  // 0 = dropless; else a busiest expert takes at most this x the mean
  RouterBalance router_balance = RouterBalance::measured;
  double imbalance = 1.0;  // busiest expert-parallel rank's routed tokens / the mean
};

// The busiest expert-parallel rank's share of routed tokens over the mean under a real router
// (`router_balance` "measured" without an `imbalance`). ASSUMED: no public per-rank load figure
// for current routers was found; state `imbalance` from the router's own statistics.
inline constexpr double kMeasuredImbalance = 1.2;

// MLA dimensions (model.attention with type "mla"; DeepSeek-V3 config.json names).
struct MlaSpec {
  std::int64_t q_lora_rank = 0;  // 0: queries projected from the hidden state directly
  std::int64_t kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
};

// DeepSeek Sparse Attention (DSA; DeepSeek-V3.2-Exp report, github.com/deepseek-ai/DeepSeek-V3.2-Exp,
// Sec. 2.1; its config.json index_n_heads 64, index_head_dim 128, index_topk 2048): a lightning
// indexer scores every earlier token for each query (index_heads small FP8 query heads against one
// cached FP8 index key per token, ReLU, a weighted sum over the heads) and the attention then reads
// only the top_k best-scoring tokens' latent entries. model.attention's index_* keys; top_k 0 = none.
struct SparseAttentionSpec {
  std::int64_t index_heads = 0, index_head_dim = 0, top_k = 0;
};

// Linear attention with a matrix state: the layers that are not global (global_every) replace
// softmax attention by a recurrence that keeps one key_head_dim x value_head_dim state per value
// head, whatever the context (Gated DeltaNet: Yang, Kautz & Hatamizadeh 2024, arXiv 2412.06464;
// Qwen3-Next's config.json linear_num_value_heads 32, linear_num_key_heads 16, linear_key_head_dim
// 128, linear_value_head_dim 128, linear_conv_kernel_dim 4, full_attention_interval 4).
// model.attention's linear_* keys; heads 0 = none.
struct LinearAttentionSpec {
  std::int64_t heads = 0;      // value heads, one state each
  std::int64_t key_heads = 0;  // query/key heads, each shared by heads / key_heads value heads
  std::int64_t key_head_dim = 0, value_head_dim = 0;
  std::int64_t conv_kernel = 0;  // the short causal convolution over q, k and v (0: none)
  // The state's elements: stated with the model, or the runtime's default (fp32, SGLang's; a
  // profile with linear_state_follows_model, vLLM's, keeps it in the model's 16-bit type).
  Precision state = Precision::fp32;
  bool state_stated = false;
};

struct ModelSpec {
  std::string name;
  std::string source;
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  // == heads for MHA, fewer for GQA, 1 for MQA
  std::int64_t head_dim = 0;  // usually hidden / heads
  std::int64_t ffn_hidden = 0;
  std::int64_t vocab = 0;
  AttentionType attention = AttentionType::mha;  // follows kv_heads (complete_model), or "mla"
  MlaSpec mla;                                   // when attention == mla
  SparseAttentionSpec sparse;                    // DSA over MLA (top_k > 0)
  LinearAttentionSpec linear;                    // the non-global layers' recurrence (heads > 0)
  // Sliding-window (or chunked) attention: windowed layers attend to at most `window` keys; every
  // global_every-th layer (layers k-1, 2k-1, ...) attends to the whole context; 0 = all windowed.
  std::int64_t window = 0;  // 0 = full attention everywhere
  std::int64_t global_every = 0;
  // Gated attention (Qiu et al. 2025, arXiv 2505.06708; Qwen3-Next's and Qwen3.5's full-attention
  // layers, config.json attn_output_gate): the query projection also writes one gate per output
  // channel, and sigmoid(gate) scales the heads' output before the output projection.
  bool output_gate = false;
  // A hybrid's layers one by one (model.layer_pattern, Megatron-Core's hybrid notation as
  // Nemotron-H's config.json hybrid_override_pattern writes it: NVIDIA, arXiv 2504.03624): '*' a
  // global attention sublayer, 'M' a local one (the linear recurrence above, or a window), '-' a
  // dense FFN, 'E' an MoE FFN. A mixer and the FFN right after it make one layer; a mixer or an
  // FFN alone is a layer of its own. layer_kinds holds each layer's kind (layer_kind below), read
  // from the pattern (write_layer_pattern gives it back); empty = every layer a mixer and an FFN,
  // placed by the periodic rules.
  std::vector<std::uint8_t> layer_kinds;
  std::optional<MoeSpec> moe;
  FfnType ffn_type = FfnType::gelu;  // the FFN variant is dense; MoE arrives as a variant
  NormType norm = NormType::layernorm;
  BlockKind block = BlockKind::sequential;
  // Traits. When a scenario does not state them they follow the norm, as GPT-style (LayerNorm:
  // biases, dropout, learned positions) and Llama-style (RMSNorm: none, none, rotary) models do.
  bool bias = true;     // biases on the QKV, output and FFN projections and their residual adds
  bool dropout = true;  // dropout after attention and FFN (and on the embedding) in training
  PositionKind position = PositionKind::learned;
  bool tied_embeddings = true;
  std::int64_t max_seq_len = 0;  // 0 = not stated
  // Multi-token-prediction modules the checkpoint ships (Hugging Face num_nextn_predict_layers;
  // DeepSeek-V3, arXiv 2412.19437 Sec. 2.2): what inference.speculative's "mtp" draft runs.
  std::int64_t mtp_layers = 0;
  // Multi-token-prediction modules trained with the model (training.mtp_layers), each on the last
  // pipeline stage (Megatron-Core's placement of MTP layers): one more layer of the last layer's
  // kind (stage_kinds) and the module's projection, norms and pass of the shared output head with
  // its loss (the head operators, model/graph.cpp). 0 outside training.
  std::int64_t mtp_trained = 0;
  // The precision of the published checkpoint's weights (DeepSeek-V3/R1 and Kimi K2 ship FP8
  // weights with 128 x 128 block scales: their Hugging Face config.json quantization_config,
  // quant_method fp8, weight_block_size [128, 128]). An inference or RL rollout that states no
  // precision serves the checkpoint as published (io/json_io.cpp); absent: 16-bit.
  std::optional<Precision> checkpoint_precision;
  bool checkpoint_block_scaled = false;
  // The checkpoint's precision covers the routed experts' weights only; the rest (attention,
  // router, shared experts, dense layers, embeddings) is 16-bit. gpt-oss ships its MoE weights in
  // MXFP4 and the rest in bf16 (config.json quantization_config: quant_method mxfp4,
  // modules_to_not_convert self_attn, router, embed_tokens, lm_head; OpenAI's model card, arXiv
  // 2508.10925, Sec. 2: "we quantize the MoE weights to MXFP4").
  bool checkpoint_experts_only = false;
};

// The traits a model has when the scenario does not state them (ModelSpec above).
struct ModelTraits {
  bool bias, dropout;
  PositionKind position;
};
constexpr ModelTraits default_traits(NormType norm) {
  return norm == NormType::layernorm ? ModelTraits{true, true, PositionKind::learned}
                                     : ModelTraits{false, false, PositionKind::rotary};
}

// Parameter counts of the whole model (no parallelism), summed over the task graph
// (model/graph.h): Megatron-LM's closed form for GPT (Narayanan et al. 2021, arXiv 2104.04473,
// Eq. 2), P = 12 L h^2 (1 + 13/(12h) + (V + s)/(12 L h)), is that sum for MHA with biases,
// learned positions and f = 4h.
struct ParamCounts {
  double attention = 0;  // per layer: QKV and output projections (+ biases)
  double mlp = 0;        // per layer: up/gate/down projections (+ biases)
  double norms = 0;      // per layer: two norms
  double per_layer = 0;  // attention + mlp + norms
  double embedding = 0;  // word (+ learned position) embedding
  double output = 0;     // LM head when untied, else 0
  double final_norm = 0;
  double total = 0;
  double experts = 0;     // routed experts, all layers
  double active = 0;      // per token: the routed experts' top_k / experts share of them
  double moe_layers = 0;  // layers with a mixture-of-experts FFN
};

ParamCounts count_params(const ModelSpec& m, std::int64_t seq_len);

// Whether some layers' attention is not global: windowed (model.window) or linear (model.linear).
inline bool has_local_layers(const ModelSpec& m) { return m.window > 0 || m.linear.heads > 0; }
// Layer i (0-based): MoE or dense FFN, local (windowed or linear) or global attention.
bool is_moe_layer(const ModelSpec& m, std::int64_t i);
bool is_windowed_layer(const ModelSpec& m, std::int64_t i);
// The layer kinds the graph builds: a mixer and an FFN, kind_of(moe, local) = the FFN (dense 0,
// MoE 1) plus the attention (global 0, local 2: windowed or linear, a model has one or the other,
// io/objects.cpp refuses the pair); a mixer alone (kMixerOnly, + 1 local); an FFN alone (kFfnOnly,
// + 1 MoE). Without a layer_pattern only the first four occur.
inline constexpr std::size_t kLayerKinds = 8;
inline constexpr std::size_t kMixerOnly = 4, kFfnOnly = 6;
constexpr std::size_t kind_of(bool moe, bool local) { return (moe ? 1u : 0u) + (local ? 2u : 0u); }
constexpr bool kind_has_mixer(std::size_t kind) { return kind < kFfnOnly; }
constexpr bool kind_has_ffn(std::size_t kind) { return kind < kMixerOnly || kind >= kFfnOnly; }
constexpr bool kind_is_moe(std::size_t kind) {
  return kind < kMixerOnly ? (kind & 1u) != 0 : kind == kFfnOnly + 1;
}
constexpr bool kind_is_local(std::size_t kind) {
  return kind < kMixerOnly ? (kind & 2u) != 0 : kind == kMixerOnly + 1;
}
inline std::size_t layer_kind(const ModelSpec& m, std::int64_t i) {
  if (!m.layer_kinds.empty()) return m.layer_kinds[static_cast<std::size_t>(i)];
  return kind_of(is_moe_layer(m, i), is_windowed_layer(m, i));
}
// Every layer the same kind: a dense model of global attention layers without a pattern.
inline bool uniform_layers(const ModelSpec& m) {
  return !m.moe && !has_local_layers(m) && m.layer_kinds.empty();
}
// A kind's name in the operator reports (inference.operators[].layer_kind): the FFN, then the
// attention where it is windowed or linear; a layer with one sublayer is named by it.
inline constexpr std::size_t kLayerKindNames = 11;
inline constexpr std::array<const char*, kLayerKindNames> kLayerKindNameList = {
    "dense",          "moe",           "dense_windowed", "moe_windowed", "dense_linear", "moe_linear",
    "attention_only", "windowed_only", "linear_only",    "dense_only",   "moe_only"};
// Where the list's groups start: a mixer and an FFN with linear attention, a mixer alone (global,
// windowed, linear), an FFN alone (dense, MoE).
inline constexpr std::size_t kLinearNames = 4, kMixerOnlyNames = 6, kFfnOnlyNames = 9;
constexpr const char* layer_kind_name(std::size_t kind, bool linear = false) {
  if (kind < kMixerOnly)
    return kLayerKindNameList[linear && kind_is_local(kind) ? kLinearNames + kind - kind_of(false, true)
                                                            : kind];
  if (kind < kFfnOnly) {
    const std::size_t local = kind_is_local(kind) ? (linear ? 2 : 1) : 0;
    return kLayerKindNameList[kMixerOnlyNames + local];
  }
  return kind < kLayerKinds ? kLayerKindNameList[kFfnOnlyNames + kind - kFfnOnly] : "";
}
// model.layer_pattern read into layer kinds (one per layer, ModelSpec::layer_kinds): -1, or the
// index of the first character that is none of '*', 'M', '-', 'E' (0 for an empty pattern).
std::int64_t read_layer_pattern(const std::string& pattern, std::vector<std::uint8_t>& kinds);
// The pattern the kinds were read from.
std::string write_layer_pattern(const std::vector<std::uint8_t>& kinds);
// Layers of each kind, on a stage or in the whole model.
using KindCounts = std::array<double, kLayerKinds>;
KindCounts model_kinds(const ModelSpec& m);
// The layers among them whose kind satisfies `has` (kind_is_moe, kind_is_local, ...).
template <class Has>
double count_kinds(const KindCounts& n, Has has) {
  double sum = 0;
  for (std::size_t k = 0; k < kLayerKinds; ++k)
    if (has(k)) sum += n[k];
  return sum;
}
// The MoE layers among them.
inline double moe_count(const KindCounts& n) { return count_kinds(n, kind_is_moe); }
// Layers of each kind among layers [begin, end), counted from the two periodic rules (MoE every
// layer_freq-th after first_dense_layers, a global layer every global_every-th) rather than layer
// by layer: the layout search asks this for every stage of every candidate.
KindCounts kinds_in_range(const ModelSpec& m, std::int64_t begin, std::int64_t end);

// A model as read, completed and checked (spec.cpp): head_dim from hidden / heads where not given,
// kv_heads from the stated attention variant (`stated`: mha = heads, mqa = 1; absent: heads), the
// variant from kv_heads (mla kept); and refused where it cannot be built: top_k above the experts,
// no MoE layer left, a layer_pattern that numbers other layers or contradicts a periodic rule, a
// variant that kv_heads contradicts, kv_heads or linear_key_heads that divide nothing. Errors carry
// `path` (the model object's JSON Pointer) and the key's.
Result<ModelSpec> complete_model(ModelSpec m, std::optional<AttentionType> stated, const std::string& path);

}  // namespace optimus
