#include "model/spec.h"

namespace optimus {

ParamCounts count_params(const ModelSpec& m, std::int64_t seq_len) {
  const double h = static_cast<double>(m.hidden);
  const double q_out = static_cast<double>(m.heads * m.head_dim);
  const double kv_out = static_cast<double>(m.kv_heads * m.head_dim);
  const double f = static_cast<double>(m.ffn_hidden);
  const bool bias = has_biases(m);
  ParamCounts p;
  // Q, K, V projections h x (q + 2 kv) and output projection q x h (Megatron Eq. 2 counts
  // 4h^2 + 4h for MHA with biases).
  p.attention = h * (q_out + 2.0 * kv_out) + q_out * h;
  if (bias) p.attention += (q_out + 2.0 * kv_out) + h;
  // MLP: two matrices h x f and f x h (8h^2 + 5h with f = 4h and biases), SwiGLU three.
  p.mlp = static_cast<double>(ffn_matrices(m)) * h * f;
  if (bias) p.mlp += f + h;
  // Two norms per layer: LayerNorm has scale and shift (4h), RMSNorm scale only (2h).
  p.norms = (m.norm == NormType::layernorm ? 4.0 : 2.0) * h;
  p.per_layer = p.attention + p.mlp + p.norms;
  p.embedding = static_cast<double>(m.vocab) * h;
  if (bias) p.embedding += static_cast<double>(seq_len) * h;  // learned positions
  p.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;
  p.final_norm = (m.norm == NormType::layernorm ? 2.0 : 1.0) * h;
  p.total = p.per_layer * static_cast<double>(m.layers) + p.embedding + p.output + p.final_norm;
  return p;
}

}  // namespace optimus
