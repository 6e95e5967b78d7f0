#include "memory/footprint.h"

#include <algorithm>

#include "model/graph.h"

namespace optimus {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

// Bytes per parameter in mixed-precision training with Adam (Korthikanti et al. 2022 Sec. 2:
// 16-bit weight 2 + fp32 gradient 4 + fp32 master, momentum and variance 12 = 18 bytes).
struct StateBytes {
  double weight, gradient, optimizer;
};
StateBytes state_bytes(Precision p) {
  if (p == Precision::fp32 || p == Precision::tf32) return {4.0, 4.0, 8.0};  // no master copy
  return {2.0, 4.0, 12.0};  // fp8 training keeps bf16 weights (Transformer Engine)
}

}  // namespace

StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, std::int64_t seq_len, bool first,
                         bool last) {
  const ParamCounts c = count_params(m, seq_len);
  StageParams s;
  // Column/row-parallel matrices are split over tp; norms (and row-parallel biases) are
  // replicated on every tensor-parallel rank.
  const double per_layer = (c.attention + c.mlp) / d(p.tp) + c.norms;
  // End stages hold one layer less under the embedding/loss-as-a-layer split (plan.h).
  const bool end_stage = first || last;
  s.layers = per_layer * (stage_layers(m, p) - (end_stage && uneven_pipeline_split(m, p) ? 1.0 : 0.0));
  const double word = d(m.vocab) * d(m.hidden) / d(p.tp);                    // vocab-parallel embedding
  if (first) s.embedding = word + (c.embedding - d(m.vocab) * d(m.hidden));  // + positions
  if (last) {
    // Untied: the LM head. Tied with pp > 1: Megatron keeps a copy on the last stage.
    if (!m.tied_embeddings || (p.pp > 1)) s.output = word;
    s.output += c.final_norm;
  }
  return s;
}

Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, std::int64_t micro_batch,
                             std::int64_t seq_len, AttentionKernel attention) {
  const double e = 2.0;  // 16-bit activations
  const double t = d(p.tp);
  const double T = d(micro_batch) * d(seq_len / p.cp);  // tokens of the micro-batch on this rank
  const double h = d(m.hidden);
  const double q = d(m.heads * m.head_dim);
  const double kv = d(m.kv_heads * m.head_dim);
  const double f = d(m.ffn_hidden);
  const bool dropout = has_dropout(m);
  const double sp_div = p.sequence_parallel ? t : 1.0;

  if (p.recompute == Recompute::full) return Bytes(T * e * h / sp_div);  // the layer's input only

  // Replicated over tp (split with SP): inputs of the two norms and of the QKV and first MLP
  // matmuls (2 bytes each), and the two dropout masks (1 byte each): 10 sbh for GPT.
  const double replicated = T * h * (4.0 * e + (dropout ? 2.0 : 0.0));
  // Split over tp: Q and K (for QK^T), V, the output projection input, and the MLP's
  // activation input and output: 24 sbh for GPT with f = 4h.
  const double mlp = (m.ffn_type == FfnType::swiglu ? 3.0 : 2.0) * e * f;
  double split = T * (e * (q + kv) + e * kv + e * q + mlp);
  const double kv_len = d(seq_len);  // each query's keys, over the whole ring under CP
  if (attention == AttentionKernel::standard) {
    // Softmax output (2), dropout mask (1) and dropout output (2) per score: 5 a s^2 b.
    // Selective recompute drops exactly these (Korthikanti et al. Sec. 5).
    if (p.recompute != Recompute::selective)
      split += T * d(m.heads) * kv_len * (e + (dropout ? 1.0 + e : 0.0));
  } else {
    split += T * d(m.heads) * 4.0;  // fp32 log-sum-exp per query and head (FlashAttention)
  }
  return Bytes(replicated / sp_div + split / t);
}

MemoryBreakdown training_memory(const Scenario& s, AttentionKernel attention) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.training;
  MemoryBreakdown out;
  const StageParams sp = stage_params(m, p, w.seq_len, true, p.pp == 1);
  const StateBytes b = state_bytes(w.precision);
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
  const Bytes per_layer = layer_activation_bytes(m, p, p.micro_batch, w.seq_len, attention);
  Bytes act = per_layer * factor;
  const double T = d(p.micro_batch) * d(w.seq_len / p.cp);
  const double sp_div = p.sequence_parallel ? d(p.tp) : 1.0;
  // Embedding dropout mask, one byte per element per in-flight micro-batch.
  if (has_dropout(m)) act += Bytes(T * d(m.hidden) / sp_div * in_flight);
  // The backward rebuilds one layer at a time: under full recompute all of that layer's
  // activations come back (its input, the checkpoint, is already counted), under selective
  // recompute with unfused attention its attention-score tensors do. Counting that working set
  // for both modes gives the device's peak and keeps memory monotone none >= selective >= full
  // (tests/unit/property_test.cpp, RecomputeNeverIncreasesMemory); Korthikanti et al. 2022
  // Table 2 counts stored activations only, which is 1/L-per-stage less.
  const bool rebuilds = p.recompute == Recompute::full ||
                        (p.recompute == Recompute::selective && attention == AttentionKernel::standard);
  if (rebuilds) {
    ParallelPlan no_rc = p;
    no_rc.recompute = Recompute::none;
    act += layer_activation_bytes(m, no_rc, p.micro_batch, w.seq_len, attention) - per_layer;
  }
  if (p.pp == 1) {
    // Output layer on this stage too: fp32 logits kept for the cross-entropy backward
    // (Korthikanti et al. Sec. 4.3: 4 s b v / t).
    act += Bytes(4.0 * T * d(m.vocab) / d(p.tp));
  }
  out.activations = act;
  return out;
}

Bytes kv_bytes_per_token(const ModelSpec& m, const ParallelPlan& p, Precision kv_precision) {
  const double kv_local = d(std::max<std::int64_t>(1, m.kv_heads / p.tp));
  return Bytes(2.0 * d(m.layers) / d(p.pp) * kv_local * d(m.head_dim) * bytes_per_element(kv_precision));
}

InferenceMemory inference_memory(const Scenario& s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.inference;
  InferenceMemory out;
  const StageParams sp =
      stage_params(m, p, std::max<std::int64_t>(m.max_seq_len, w.prompt_len + w.output_len), true, p.pp == 1);
  // Quantized weights: matrices at the weight precision; embeddings and norms stay 16-bit.
  const double wb = bytes_per_element(w.precision);
  const double matrix_params = sp.layers;
  out.bytes.weights = Bytes(matrix_params * wb + (sp.embedding + sp.output) * std::max(2.0, wb));
  const double context = d(w.prompt_len + w.output_len);
  out.kv_per_sequence = kv_bytes_per_token(m, p, w.kv_precision) * context;
  out.bytes.kv_cache = out.kv_per_sequence * d(w.batch);
  // Working activations of the widest moment of prefill for one sequence: the residual
  // stream, the QKV or MLP-up output of one layer, and the fp32 logits of the last token.
  const double e = 2.0;
  const double up = std::max(d((m.heads + 2 * m.kv_heads) * m.head_dim),
                             d(ffn_matrices(m) == 3 ? 2 * m.ffn_hidden : m.ffn_hidden)) /
                    d(p.tp);
  out.activation_per_sequence =
      Bytes(d(w.prompt_len) * e * (2.0 * d(m.hidden) + up) + 4.0 * d(m.vocab) / d(p.tp));
  out.bytes.activations = out.activation_per_sequence * d(w.batch);
  return out;
}

}  // namespace optimus
