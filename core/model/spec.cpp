#include "model/spec.h"

#include "model/graph.h"

namespace optimus {

// Sums over the task graph of the whole model on one device without parallelism.
ParamCounts count_params(const ModelSpec& m, std::int64_t seq_len) {
  LayerShape s;
  s.position_rows = seq_len;
  ParamCounts p;
  for (const Op& o : layer_forward_ops(m, s)) {
    if (o.role == OpRole::qkv || o.role == OpRole::attn_out) p.attention += o.params;
    if (o.role == OpRole::ffn_up || o.role == OpRole::ffn_down) p.mlp += o.params;
    if (o.role == OpRole::norm) p.norms += o.params;
  }
  p.per_layer = p.attention + p.mlp + p.norms;
  p.embedding = sum_params(embedding_ops(m, s));
  for (const Op& o : head_ops(m, s)) {
    if (o.role == OpRole::lm_head) p.output = o.params;
    if (o.role == OpRole::final_norm) p.final_norm = o.params;
  }
  p.total = p.per_layer * static_cast<double>(m.layers) + p.embedding + p.output + p.final_norm;
  return p;
}

}  // namespace optimus
