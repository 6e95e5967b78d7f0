#include "model/graph.h"

#include <algorithm>

namespace optimus {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

Op& matmul(std::vector<Op>& ops, const char* name, OpRole role, std::int64_t m, std::int64_t n,
           std::int64_t k) {
  Op& o = ops.emplace_back();
  o.name = name;
  o.kind = OpKind::matmul;
  o.role = role;
  o.m = m;
  o.n = n;
  o.k = k;
  o.weight = true;
  o.model_flops = 2.0 * d(m) * d(n) * d(k);  // one multiply-add = 2 FLOPs
  return o;
}

// An element-wise kernel whose backward reads the saved input and the incoming gradient and
// writes a gradient: one kernel of twice the traffic and math.
Op& elementwise(std::vector<Op>& ops, const char* name, OpRole role, double bytes, double flops) {
  Op& o = ops.emplace_back();
  o.name = name;
  o.kind = OpKind::elementwise;
  o.role = role;
  o.bytes = bytes;
  o.flops = flops;
  o.backward_bytes = bytes * 2.0;
  o.backward_flops = flops * 2.0;
  return o;
}

Op& comm(std::vector<Op>& ops, const char* name, CommGroup group, Collective kind, double bytes) {
  Op& o = ops.emplace_back();
  o.name = name;
  o.kind = OpKind::comm;
  o.role = OpRole::comm;
  o.group = group;
  o.comm = kind;
  o.comm_bytes = bytes;
  return o;
}

// The same bytes kept under every policy but full recompute (which keeps only the layer input).
SavedBytes kept(double bytes) { return SavedBytes{bytes, bytes, 0.0}; }

}  // namespace

std::int64_t LayerShape::tokens() const {
  std::int64_t t = 0;
  for (const SeqGroup& g : groups()) t += g.sequences * g.new_tokens;
  return t;
}

std::int64_t LayerShape::sequences() const {
  std::int64_t n = 0;
  for (const SeqGroup& g : groups()) n += g.sequences;
  return n;
}

std::vector<Op> layer_forward_ops(const ModelSpec& m, const LayerShape& s) {
  std::vector<Op> ops;
  layer_forward_ops(m, s, ops);
  return ops;
}

std::vector<Op> embedding_ops(const ModelSpec& m, const LayerShape& s) {
  std::vector<Op> ops;
  embedding_ops(m, s, ops);
  return ops;
}

std::vector<Op> head_ops(const ModelSpec& m, const LayerShape& s) {
  std::vector<Op> ops;
  head_ops(m, s, ops);
  return ops;
}

ModelGraph model_graph(const ModelSpec& m, const LayerShape& s) {
  ModelGraph g;
  layer_forward_ops(m, s, g.layer);
  embedding_ops(m, s, g.embedding);
  head_ops(m, s, g.head);
  return g;
}

void layer_forward_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& ops) {
  ops.clear();
  ops.reserve(18 + s.groups().size());  // at most 15 + groups: references below stay valid
  const std::int64_t t = s.tp;
  const double td = d(t);
  const double T = d(s.tokens());                        // tokens in the TP region
  const double sp_div = s.sequence_parallel ? td : 1.0;  // norm/dropout regions split with SP
  const double Tn = s.sequence_parallel ? T / td : T;    // tokens in norm/dropout regions
  const double h = d(m.hidden);
  const double e = s.act_bytes;
  const double es = s.saved_bytes;
  const std::int64_t heads_local = m.heads / t;
  const std::int64_t kv_local = std::max<std::int64_t>(1, m.kv_heads / t);
  const std::int64_t q_local = heads_local * m.head_dim;
  const std::int64_t kvd_local = kv_local * m.head_dim;
  const std::int64_t f_local = m.ffn_hidden / t;
  const std::int64_t tokens = s.tokens();
  // Whole-layer widths (saved activations divide them by tp, Korthikanti et al. Table 2).
  const double q = d(m.heads * m.head_dim);
  const double kv = d(m.kv_heads * m.head_dim);
  const double f = d(m.ffn_hidden);
  const double Tt = T;  // tokens of the micro-batch on this rank
  // Norm: read x, write y (+ statistics); ~5 FLOPs per element (mean, var, scale, shift).
  const double norm_bytes = 2.0 * e * Tn * h;
  // LayerNorm has a scale and a shift per channel, RMSNorm a scale only; replicated over tp.
  const double norm_params = (m.norm == NormType::layernorm ? 2.0 : 1.0) * h;
  // Bias + dropout + residual add (fused in Megatron): read x, residual, write y, mask.
  const double residual_bytes = (3.0 * e + (m.dropout ? 1.0 : 0.0)) * Tn * h;
  const bool tp_comm = t > 1;
  const double act_msg = e * T * h;  // the full (gathered) activation tensor
  // Inputs of a norm and of the matmul after it, kept in 16-bit (split over tp with SP).
  const double norm_input = Tt * h * es / sp_div;

  Op& norm_attn = elementwise(ops, "norm_attn", OpRole::norm, norm_bytes, 5.0 * Tn * h);
  norm_attn.params = norm_params;
  // Full recompute keeps only the layer's input (Korthikanti et al. Sec. 5: 2sbh per layer).
  norm_attn.saved = SavedBytes{norm_input, norm_input, Tt * es * h / sp_div};
  if (tp_comm && s.sequence_parallel)
    comm(ops, "sp_allgather_attn", CommGroup::tp, Collective::all_gather, act_msg);
  Op& qkv = matmul(ops, "qkv_proj", OpRole::qkv, tokens, q_local + 2 * kvd_local, m.hidden);
  // Column-parallel Q, K, V projections h x (q + 2 kv) (+ biases), split over tp.
  qkv.params = (h * (q + 2.0 * kv) + (m.bias ? q + 2.0 * kv : 0.0)) / td;
  qkv.saved = kept(norm_input);
  // Rotary position embedding (Su et al. 2021, RoFormer) on the queries and keys: read and
  // write q and k, ~3 FLOPs per element (two multiplies and an add against cached cos/sin).
  if (m.position == PositionKind::rotary) {
    const double qk = T * d(q_local + kvd_local);
    elementwise(ops, "rope", OpRole::rope, 2.0 * e * qk, 3.0 * qk);
  }

  // Attention core, one operator per group of sequences with the same lengths. Causal masking
  // lets a fused kernel skip blocks above the diagonal.
  for (const SeqGroup& g : s.groups()) {
    Op& att = ops.emplace_back();
    att.name = "attention";
    att.kind = OpKind::attention;
    att.role = OpRole::attention;
    att.m = g.new_tokens;  // queries per sequence
    att.n = g.kv_len;      // keys
    att.k = m.head_dim;
    att.batch = g.sequences * heads_local;
    att.sequences = g.sequences;
    att.weight = false;
    att.causal_fraction = (s.causal && s.attention == AttentionKernel::flash) ? 0.5 : 1.0;
    att.selective = true;
    // Standard (unfused) attention materialises the b*a*s*kv score matrix: the fused
    // scale-mask-softmax reads and writes it, dropout reads it and writes output and mask
    // (Korthikanti et al. 2022, Sec. 4.1 counts the stored parts: 5as^2b bytes).
    const double scores = d(g.sequences * heads_local) * d(g.new_tokens) * d(g.kv_len);
    const bool standard = s.attention == AttentionKernel::standard;
    att.bytes = standard ? scores * (2.0 * e + (m.dropout ? 2.0 * e + 1.0 : 0.0)) : 0.0;
    att.flops = 5.0 * scores;
    // Backward: softmax reads P and dP and writes dS (3 elements); dropout reads the incoming
    // gradient and the mask and writes a gradient.
    att.backward_bytes = standard ? scores * (3.0 * e + (m.dropout ? 2.0 * e + 1.0 : 0.0)) : 0.0;
    att.backward_flops = att.flops;
    // QK^T and PV over the full score matrix, 2 FLOPs per multiply-add each.
    att.model_flops = 4.0 * d(g.sequences) * d(g.new_tokens) * d(g.kv_len) * d(heads_local * m.head_dim);
    // K and V of every new token join the cache (GQA/MQA store kv_heads, not heads).
    att.kv_bytes = 2.0 * d(kvd_local) * s.kv_elem_bytes;
    // Saved: Q and K (for QK^T) and V, split over tp; unfused attention also keeps the softmax
    // output (2), dropout mask (1) and dropout output (2) per score, 5 a s^2 b, which selective
    // recompute drops (Korthikanti et al. Sec. 5); FlashAttention keeps an fp32 log-sum-exp per
    // query and head instead.
    const double Tg = d(g.sequences) * d(g.new_tokens);
    const double qkv_saved = Tg * (es * (q + kv) + es * kv);
    if (standard) {
      const double score_saved = Tg * d(m.heads) * d(g.kv_len) * (es + (m.dropout ? 1.0 + es : 0.0));
      att.saved = SavedBytes{(qkv_saved + score_saved) / td, qkv_saved / td, 0.0};
    } else {
      att.saved = kept((qkv_saved + Tg * d(m.heads) * 4.0) / td);
    }
  }
  // Context parallel: ring attention passes this rank's K and V block around the cp ranks
  // (Liu et al. 2023, ring attention; Megatron-core context parallelism).
  if (s.cp > 1) {
    const SeqGroup& g = s.groups().front();
    const double kv_width = d(kv_local) * d(m.head_dim);
    comm(ops, "cp_ring_kv", CommGroup::cp, Collective::p2p,
         2.0 * d(g.sequences) * d(g.new_tokens) * kv_width * e);
  }

  Op& out = matmul(ops, "attn_out_proj", OpRole::attn_out, tokens, m.hidden, q_local);
  out.params = (q * h + (m.bias ? h : 0.0)) / td;  // row-parallel q x h (+ bias)
  out.saved = kept(Tt * es * q / td);
  if (tp_comm)
    comm(ops, s.sequence_parallel ? "sp_reducescatter_attn" : "tp_allreduce_attn", CommGroup::tp,
         s.sequence_parallel ? Collective::reduce_scatter : Collective::all_reduce, act_msg);
  Op& res_attn = elementwise(ops, "residual_attn", OpRole::residual, residual_bytes, 2.0 * Tn * h);
  res_attn.saved = kept(m.dropout ? Tt * h / sp_div : 0.0);  // the 1-byte dropout mask
  Op& norm_mlp = elementwise(ops, "norm_mlp", OpRole::norm, norm_bytes, 5.0 * Tn * h);
  norm_mlp.params = norm_params;
  norm_mlp.saved = kept(norm_input);
  if (tp_comm && s.sequence_parallel)
    comm(ops, "sp_allgather_mlp", CommGroup::tp, Collective::all_gather, act_msg);
  const bool gated = m.ffn_type == FfnType::swiglu;
  const std::int64_t up = (gated ? 2 : 1) * f_local;
  Op& mlp_up = matmul(ops, "mlp_up", OpRole::ffn_up, tokens, up, m.hidden);
  // Column-parallel h x f (SwiGLU: gate and up, h x 2f) (+ bias).
  mlp_up.params = ((gated ? 2.0 : 1.0) * h * f + (m.bias ? f : 0.0)) / td;
  mlp_up.saved = kept(norm_input);
  // Activation: GeLU reads and writes f; SwiGLU reads gate and up, writes f.
  const double fT = T * d(f_local);
  Op& act = elementwise(ops, "mlp_act", OpRole::ffn_act, (gated ? 3.0 : 2.0) * e * fT, 8.0 * fT);
  act.saved = kept(Tt * (gated ? 2.0 : 1.0) * es * f / td);  // the activation's input(s)
  Op& down = matmul(ops, "mlp_down", OpRole::ffn_down, tokens, m.hidden, f_local);
  down.params = (h * f + (m.bias ? h : 0.0)) / td;  // row-parallel f x h (+ bias)
  down.saved = kept(Tt * es * f / td);
  if (tp_comm)
    comm(ops, s.sequence_parallel ? "sp_reducescatter_mlp" : "tp_allreduce_mlp", CommGroup::tp,
         s.sequence_parallel ? Collective::reduce_scatter : Collective::all_reduce, act_msg);
  Op& res_mlp = elementwise(ops, "residual_mlp", OpRole::residual, residual_bytes, 2.0 * Tn * h);
  res_mlp.saved = kept(m.dropout ? Tt * h / sp_div : 0.0);
}

void embedding_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& ops) {
  const double T = d(s.tokens());
  const double h = d(m.hidden);
  // Lookup: read the rows, write the activations. Backward: the gradient scatter-add and the
  // embedding dropout, one kernel of the same traffic each.
  ops.clear();
  Op& emb = elementwise(ops, "embedding", OpRole::embedding, 2.0 * s.act_bytes * T * h, 0.0);
  emb.backward_bytes = emb.bytes;
  emb.backward_flops = 0.0;
  emb.backward_kernels = 2.0;
  // Vocab-parallel word embedding split over tp, plus a learned position table (replicated).
  emb.params = d(m.vocab) * h / d(s.tp);
  if (m.position == PositionKind::learned) emb.params += d(s.position_rows) * h;
  // Embedding dropout mask, one byte per element (split over tp with SP).
  const double mask = m.dropout ? T * h / (s.sequence_parallel ? d(s.tp) : 1.0) : 0.0;
  emb.saved = SavedBytes{mask, mask, mask};
}

void head_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& ops) {
  ops.clear();
  ops.reserve(3);  // references below stay valid
  const double h = d(m.hidden);
  const std::int64_t vocab_local = m.vocab / s.tp;
  // Training computes logits for every token; inference for the last position of each sequence.
  const std::int64_t rows = s.loss ? s.tokens() : s.sequences();
  const double T = d(rows);
  Op& head = matmul(ops, "lm_head", OpRole::lm_head, rows, vocab_local, m.hidden);
  // Untied: the LM head. Tied with pp > 1: Megatron keeps a copy of the embedding on the last
  // stage. Either way vocab-parallel over tp.
  if (!m.tied_embeddings || s.pp > 1) head.params = d(m.vocab) * h / d(s.tp);
  // fp32 logits kept for the cross-entropy backward (Korthikanti et al. Sec. 4.3: 4 s b v / t).
  if (s.loss) {
    const double logits = 4.0 * T * d(m.vocab) / d(s.tp);
    head.saved = SavedBytes{logits, logits, logits};
  }
  if (s.loss) {
    // Vocab-parallel cross-entropy: logits read, fp32 softmax written and read back (forward
    // and backward together).
    Op& ce = elementwise(ops, "cross_entropy", OpRole::loss, T * d(vocab_local) * (s.act_bytes + 8.0 + 4.0),
                         5.0 * T * d(vocab_local));
    ce.backward_kernels = 0.0;
  }
  Op& norm = elementwise(ops, "final_norm", OpRole::final_norm, 2.0 * s.act_bytes * T * h, 5.0 * T * h);
  norm.params = (m.norm == NormType::layernorm ? 2.0 : 1.0) * h;
  // Its traffic is counted once for forward and backward together; an inference step does not
  // time it (one row per sequence).
  norm.backward_kernels = 0.0;
  norm.timed = s.loss;
}

double layer_model_flops(const ModelSpec& m, std::int64_t tokens, std::int64_t kv_len) {
  LayerShape s;
  s.group = SeqGroup{1, tokens, kv_len};
  thread_local std::vector<Op> ops;  // storage reused across calls (a search makes many)
  layer_forward_ops(m, s, ops);
  double sum = 0;
  for (const Op& o : ops) sum += o.model_flops;
  return sum;
}

double sum_params(const std::vector<Op>& ops) {
  double sum = 0;
  for (const Op& o : ops) sum += o.params;
  return sum;
}

double sum_kv_bytes(const std::vector<Op>& ops) {
  double sum = 0;
  for (const Op& o : ops) sum += o.kv_bytes;
  return sum;
}

double sum_saved(const std::vector<Op>& ops, Recompute policy) {
  double sum = 0;
  for (const Op& o : ops) sum += o.saved.under(policy);
  return sum;
}

double widest_intermediate(const std::vector<Op>& ops) {
  double widest = 0;
  for (const Op& o : ops)
    if (o.role == OpRole::qkv || o.role == OpRole::ffn_up) widest = std::max(widest, d(o.n));
  return widest;
}

}  // namespace optimus
