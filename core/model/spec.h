// What is run: a decoder-only transformer. Fields mirror the scenario's model object
// (spec/scenario.md), so names here are the JSON keys. The layer itself (its operators, their
// parameters, saved activations and KV cache) is described once, by the task graph in
// model/graph.h; everything here is the configuration that graph is built from.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/enums.h"

namespace optimus {

// Dense FFN activation: GeLU (two matrices), SwiGLU (gate + up + down), squared ReLU.
enum class FfnType { gelu, swiglu, relu2 };
enum class NormType { layernorm, rmsnorm };
// How positions enter: learned absolute embeddings (GPT-2/3), rotary embeddings applied to q and
// k in every layer (Su et al. 2021, RoFormer; Llama), or none (e.g. ALiBi-style biases folded
// into attention, or NoPE layers).
enum class PositionKind { learned, rotary, none };
// Attention variant. MHA: one K/V head per query head; GQA: groups of query heads share one
// (Ainslie et al. 2023); MQA: a single K/V head (Shazeer 2019). The variant follows kv_heads.
enum class AttentionType { mha, gqa, mqa };

template <>
struct EnumNames<FfnType> {
  static constexpr std::array<std::pair<FfnType, std::string_view>, 3> table = {
      {{FfnType::gelu, "gelu"}, {FfnType::swiglu, "swiglu"}, {FfnType::relu2, "relu2"}}};
};
template <>
struct EnumNames<NormType> {
  static constexpr std::array<std::pair<NormType, std::string_view>, 2> table = {
      {{NormType::layernorm, "layernorm"}, {NormType::rmsnorm, "rmsnorm"}}};
};
template <>
struct EnumNames<PositionKind> {
  static constexpr std::array<std::pair<PositionKind, std::string_view>, 3> table = {
      {{PositionKind::learned, "learned"}, {PositionKind::rotary, "rotary"}, {PositionKind::none, "none"}}};
};
template <>
struct EnumNames<AttentionType> {
  static constexpr std::array<std::pair<AttentionType, std::string_view>, 3> table = {
      {{AttentionType::mha, "mha"}, {AttentionType::gqa, "gqa"}, {AttentionType::mqa, "mqa"}}};
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
  AttentionType attention = AttentionType::mha;  // follows kv_heads (io/json_io.cpp)
  FfnType ffn_type = FfnType::gelu;              // the FFN variant is dense; MoE arrives as a variant
  NormType norm = NormType::layernorm;
  // Traits. When a scenario does not state them they follow the norm, as GPT-style (LayerNorm:
  // biases, dropout, learned positions) and Llama-style (RMSNorm: none, none, rotary) models do.
  bool bias = true;     // biases on the QKV, output and FFN projections and their residual adds
  bool dropout = true;  // dropout after attention and FFN (and on the embedding) in training
  PositionKind position = PositionKind::learned;
  bool tied_embeddings = true;
  std::int64_t max_seq_len = 0;  // 0 = not stated
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
};

ParamCounts count_params(const ModelSpec& m, std::int64_t seq_len);

}  // namespace optimus
