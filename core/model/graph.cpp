#include "model/graph.h"

#include <algorithm>

namespace optimus {

namespace {

Op matmul(const char* name, std::int64_t m, std::int64_t n, std::int64_t k) {
  Op o;
  o.name = name;
  o.kind = OpKind::matmul;
  o.m = m;
  o.n = n;
  o.k = k;
  o.weight = true;
  return o;
}

Op elementwise(const char* name, double bytes, double flops) {
  Op o;
  o.name = name;
  o.kind = OpKind::elementwise;
  o.bytes = bytes;
  o.flops = flops;
  return o;
}

Op comm(const char* name, CommKind kind, double bytes) {
  Op o;
  o.name = name;
  o.kind = OpKind::comm;
  o.group = CommGroup::tp;
  o.comm = kind;
  o.comm_bytes = bytes;
  return o;
}

}  // namespace

std::vector<Op> layer_forward_ops(const ModelSpec& m, const LayerShape& s) {
  std::vector<Op> ops;
  ops.reserve(20);
  const std::int64_t t = s.tp;
  const double T = static_cast<double>(s.batch * s.tokens);                // tokens in the TP region
  const double Tn = s.sequence_parallel ? T / static_cast<double>(t) : T;  // tokens in norm/dropout regions
  const double h = static_cast<double>(m.hidden);
  const double e = s.act_bytes;
  const std::int64_t heads_local = m.heads / t;
  const std::int64_t kv_local = std::max<std::int64_t>(1, m.kv_heads / t);
  const std::int64_t q_local = heads_local * m.head_dim;
  const std::int64_t kvd_local = kv_local * m.head_dim;
  const std::int64_t f_local = m.ffn_hidden / t;
  const std::int64_t tokens = s.batch * s.tokens;
  const bool dropout = has_dropout(m);
  // Norm: read x, write y (+ statistics); ~5 FLOPs per element (mean, var, scale, shift).
  const double norm_bytes = 2.0 * e * Tn * h;
  // Bias + dropout + residual add (fused in Megatron): read x, residual, write y, mask.
  const double residual_bytes = (3.0 * e + (dropout ? 1.0 : 0.0)) * Tn * h;
  const bool tp_comm = t > 1;
  const double act_msg = e * T * h;  // the full (gathered) activation tensor

  ops.push_back(elementwise("norm_attn", norm_bytes, 5.0 * Tn * h));
  if (tp_comm && s.sequence_parallel) ops.push_back(comm("sp_allgather_attn", CommKind::all_gather, act_msg));
  ops.push_back(matmul("qkv_proj", tokens, q_local + 2 * kvd_local, m.hidden));
  // Rotary position embedding (Su et al. 2021, RoFormer) on the queries and keys of models
  // without learned positions (Llama-style): read and write q and k, ~3 FLOPs per element
  // (two multiplies and an add against cached cos/sin).
  if (!has_biases(m)) {
    const double qk = T * static_cast<double>(q_local + kvd_local);
    ops.push_back(elementwise("rope", 2.0 * e * qk, 3.0 * qk));
  }

  // Attention core. Causal masking lets a fused kernel skip blocks above the diagonal.
  Op att;
  att.name = "attention";
  att.kind = OpKind::attention;
  att.m = s.tokens;  // queries per sequence
  att.n = s.kv_len;  // keys
  att.k = m.head_dim;
  att.batch = s.batch * heads_local;
  att.weight = false;
  att.causal_fraction = (s.causal && s.attention == AttentionKernel::flash) ? 0.5 : 1.0;
  att.selective = true;
  // Standard (unfused) attention materialises the b*a*s*kv score matrix: the fused
  // scale-mask-softmax reads and writes it, dropout reads it and writes output and mask
  // (Korthikanti et al. 2022, Sec. 4.1 counts the stored parts: 5as^2b bytes).
  const double scores = static_cast<double>(s.batch * heads_local) * static_cast<double>(s.tokens) *
                        static_cast<double>(s.kv_len);
  att.bytes =
      s.attention == AttentionKernel::standard ? scores * (2.0 * e + (dropout ? 2.0 * e + 1.0 : 0.0)) : 0.0;
  att.flops = 5.0 * scores;
  // Backward: softmax reads P and dP and writes dS (3 elements); dropout reads the incoming
  // gradient and the mask and writes a gradient.
  att.backward_bytes =
      s.attention == AttentionKernel::standard ? scores * (3.0 * e + (dropout ? 2.0 * e + 1.0 : 0.0)) : 0.0;
  ops.push_back(att);

  ops.push_back(matmul("attn_out_proj", tokens, m.hidden, q_local));
  if (tp_comm)
    ops.push_back(comm(s.sequence_parallel ? "sp_reducescatter_attn" : "tp_allreduce_attn",
                       s.sequence_parallel ? CommKind::reduce_scatter : CommKind::all_reduce, act_msg));
  ops.push_back(elementwise("residual_attn", residual_bytes, 2.0 * Tn * h));
  ops.push_back(elementwise("norm_mlp", norm_bytes, 5.0 * Tn * h));
  if (tp_comm && s.sequence_parallel) ops.push_back(comm("sp_allgather_mlp", CommKind::all_gather, act_msg));
  const std::int64_t up = (m.ffn_type == FfnType::swiglu ? 2 : 1) * f_local;
  ops.push_back(matmul("mlp_up", tokens, up, m.hidden));
  // Activation: GeLU reads and writes f; SwiGLU reads gate and up, writes f.
  const double fT = T * static_cast<double>(f_local);
  ops.push_back(elementwise("mlp_act", (m.ffn_type == FfnType::swiglu ? 3.0 : 2.0) * e * fT, 8.0 * fT));
  ops.push_back(matmul("mlp_down", tokens, m.hidden, f_local));
  if (tp_comm)
    ops.push_back(comm(s.sequence_parallel ? "sp_reducescatter_mlp" : "tp_allreduce_mlp",
                       s.sequence_parallel ? CommKind::reduce_scatter : CommKind::all_reduce, act_msg));
  ops.push_back(elementwise("residual_mlp", residual_bytes, 2.0 * Tn * h));
  return ops;
}

double layer_model_flops(const ModelSpec& m, std::int64_t tokens, std::int64_t kv_len) {
  const double T = static_cast<double>(tokens);
  const double h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.heads * m.head_dim);
  const double kv = static_cast<double>(m.kv_heads * m.head_dim);
  const double f = static_cast<double>(m.ffn_hidden);
  const double proj = h * (q + 2.0 * kv) + q * h + static_cast<double>(ffn_matrices(m)) * h * f;
  // 2 FLOPs per multiply-add; QK^T and attention-weighted V each 2 * T * kv_len * q.
  return 2.0 * T * proj + 4.0 * T * static_cast<double>(kv_len) * q;
}

}  // namespace optimus
