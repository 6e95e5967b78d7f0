// What is run: a decoder-only transformer. Fields mirror the scenario's model object
// (spec/scenario.md), so names here are the JSON keys.
#pragma once

#include <cstdint>
#include <string>

namespace optimus {

enum class FfnType { gelu, swiglu, relu2 };
enum class NormType { layernorm, rmsnorm };

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
  FfnType ffn_type = FfnType::gelu;
  NormType norm = NormType::layernorm;
  bool tied_embeddings = true;
  std::int64_t max_seq_len = 0;  // 0 = not stated
};

// Parameter counts. Megatron-LM's closed form for GPT (Narayanan et al. 2021, arXiv
// 2104.04473, Eq. 2) is P = 12 L h^2 (1 + 13/(12h) + (V + s)/(12 L h)); the terms below
// are that sum written per tensor so GQA, SwiGLU, RMSNorm and untied embeddings change
// exactly the tensors they change.
struct ParamCounts {
  double attention = 0;  // per layer: QKV and output projections (+ biases for GPT-style)
  double mlp = 0;        // per layer: up/gate/down projections (+ biases)
  double norms = 0;      // per layer: two norms
  double per_layer = 0;  // attention + mlp + norms
  double embedding = 0;  // word embedding (+ learned positions when GPT-style)
  double output = 0;     // LM head when untied, else 0
  double final_norm = 0;
  double total = 0;
};

ParamCounts count_params(const ModelSpec& m, std::int64_t seq_len);

// True for GPT-style models that carry biases and learned position embeddings
// (LayerNorm models); Llama-style (RMSNorm) models have neither.
inline bool has_biases(const ModelSpec& m) { return m.norm == NormType::layernorm; }

inline std::int64_t ffn_matrices(const ModelSpec& m) { return m.ffn_type == FfnType::swiglu ? 3 : 2; }

}  // namespace optimus
