// Memory per device as sums over the task graph (model/graph.h): parameters, saved activations
// and KV bytes are what the operators say they own, keep and append.
#include "memory/footprint.h"

#include <algorithm>

#include "model/graph.h"

namespace optimus {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

// Bytes per parameter of weights, gradients and optimizer state for a training precision, from
// the software stack's widths (hardware/spec.h SoftwareDefaults): 16-bit (and fp8, whose
// weights stay bf16 in Transformer Engine) mixed precision keeps 2 + 4 + (4 + 8); fp32/tf32
// training keeps 4-byte weights and no master copy: 4 + 4 + 8.
struct StateBytes {
  double weight, gradient, optimizer;
};
StateBytes state_bytes(Precision p, const SoftwareDefaults& sw) {
  if (p == Precision::fp32 || p == Precision::tf32) return {4.0, sw.gradient_bytes, sw.optimizer_state_bytes};
  return {sw.weight_bytes, sw.gradient_bytes, sw.master_weight_bytes + sw.optimizer_state_bytes};
}

}  // namespace

StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, const ModelGraph& g, bool first,
                         bool last) {
  StageParams s;
  // End stages hold one layer less under the embedding/loss-as-a-layer split (plan.h).
  const bool end_stage = first || last;
  s.layers =
      sum_params(g.layer) * (stage_layers(m, p) - (end_stage && uneven_pipeline_split(m, p) ? 1.0 : 0.0));
  if (first) s.embedding = sum_params(g.embedding);
  if (last) s.output = sum_params(g.head);
  return s;
}

StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, std::int64_t seq_len, bool first,
                         bool last) {
  return stage_params(m, p, model_graph(m, param_shape(p, seq_len)), first, last);
}

Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, std::int64_t micro_batch,
                             std::int64_t seq_len, AttentionKernel attention, double activation_bytes) {
  LayerShape shape = param_shape(p, seq_len);
  shape.group = SeqGroup{micro_batch, seq_len / p.cp, seq_len};
  shape.sequence_parallel = p.sequence_parallel;
  shape.attention = attention;
  shape.saved_bytes = activation_bytes;
  return Bytes(sum_saved(layer_forward_ops(m, shape), p.recompute));
}

MemoryBreakdown training_memory(const Scenario& s, AttentionKernel attention) {
  return training_memory(s, model_graph(s.model, training_layer_shape(s, attention)), attention);
}

MemoryBreakdown training_memory(const Scenario& s, const ModelGraph& g, AttentionKernel attention) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.training;
  MemoryBreakdown out;
  const std::vector<Op>& layer = g.layer;
  const StageParams sp = stage_params(m, p, g, true, p.pp == 1);
  const StateBytes b = state_bytes(w.precision, s.system.software);
  const double shard = d(p.dp * p.cp);  // ZeRO shards over every replica of the weights
  const double params = sp.total();
  out.weights = Bytes(params * b.weight / (p.zero_stage >= 3 ? shard : 1.0));
  out.gradients = Bytes(params * b.gradient / (p.zero_stage >= 2 ? shard : 1.0));
  out.optimizer = Bytes(params * b.optimizer / (p.zero_stage >= 1 ? shard : 1.0));

  // Activations: 1F1B keeps min(pp, micro-batches) micro-batches in flight on the first
  // stage, each with layers/pp layers, i.e. up to all L layers' worth; the interleaved
  // schedule multiplies this by 1 + (pp-1)/(pp*v) (Korthikanti et al. Sec. 4.2.3).
  const std::int64_t mbs = micro_batches(p, w);
  const double in_flight = d(std::min(p.pp, mbs));
  // The first stage's layers (one less than a middle stage's under the uneven split).
  const double layers_stage = stage_layers(m, p) - (uneven_pipeline_split(m, p) ? 1.0 : 0.0);
  double factor = in_flight * layers_stage;
  if (p.interleave > 1) factor *= 1.0 + (d(p.pp) - 1.0) / (d(p.pp) * d(p.interleave));
  const Bytes per_layer(sum_saved(layer, p.recompute));
  Bytes act = per_layer * factor;
  // The embedding's saved activations (its dropout mask) per in-flight micro-batch.
  act += Bytes(sum_saved(g.embedding, p.recompute) * in_flight);
  // The backward rebuilds one layer at a time: under full recompute all of that layer's
  // activations come back (its input, the checkpoint, is already counted), under selective
  // recompute with unfused attention its attention-score tensors do. Counting that working set
  // for both modes gives the device's peak and keeps memory monotone none >= selective >= full
  // (tests/unit/property_test.cpp, RecomputeNeverIncreasesMemory); Korthikanti et al. 2022
  // Table 2 counts stored activations only, which is 1/L-per-stage less.
  const bool rebuilds = p.recompute == Recompute::full ||
                        (p.recompute == Recompute::selective && attention == AttentionKernel::standard);
  if (rebuilds) act += Bytes(sum_saved(layer, Recompute::none)) - per_layer;
  // Output layer on this stage too: its fp32 logits.
  if (p.pp == 1) act += Bytes(sum_saved(g.head, p.recompute));
  out.activations = act;
  return out;
}

Bytes kv_bytes_per_token(const ModelSpec& m, const ParallelPlan& p, Precision kv_precision) {
  LayerShape shape = param_shape(p, 0);
  shape.kv_elem_bytes = bytes_per_element(kv_precision);
  return Bytes(d(m.layers) / d(p.pp) * sum_kv_bytes(layer_forward_ops(m, shape)));
}

InferenceMemory inference_memory(const Scenario& s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.inference;
  InferenceMemory out;
  LayerShape shape = param_shape(p, std::max<std::int64_t>(m.max_seq_len, w.prompt_len + w.output_len));
  shape.kv_elem_bytes = bytes_per_element(w.kv_precision);
  const ModelGraph g = model_graph(m, shape);
  const StageParams sp = stage_params(m, p, g, true, p.pp == 1);
  // Quantized weights: matrices at the weight precision; embeddings and norms stay 16-bit.
  const double wb = bytes_per_element(w.precision);
  const double matrix_params = sp.layers;
  out.bytes.weights = Bytes(matrix_params * wb + (sp.embedding + sp.output) * std::max(2.0, wb));
  const double context = d(w.prompt_len + w.output_len);
  out.kv_per_sequence = Bytes(d(m.layers) / d(p.pp) * sum_kv_bytes(g.layer)) * context;
  out.bytes.kv_cache = out.kv_per_sequence * d(w.batch);
  // Working activations of the widest moment of prefill for one sequence: the residual
  // stream, the widest QKV or FFN-up output of one layer, and the fp32 logits of the last token.
  const double e = s.system.software.activation_bytes;
  const double up = widest_intermediate(layer_forward_ops(m, LayerShape{})) / d(p.tp);
  out.activation_per_sequence =
      Bytes(d(w.prompt_len) * e * (2.0 * d(m.hidden) + up) + 4.0 * d(m.vocab) / d(p.tp));
  out.bytes.activations = out.activation_per_sequence * d(w.batch);
  return out;
}

}  // namespace optimus
