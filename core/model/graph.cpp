#include "model/graph.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "base/math.h"

namespace optimus {

namespace {

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

// Context parallel: ring attention passes this rank's block of the keys and values the attention
// runs on around the cp ranks, `per_token` elements a token (Liu et al. 2023, ring attention;
// Megatron-core context parallelism); layer_costs overlaps each step with the block's attention.
void add_cp_ring_kv(std::vector<Op>& ops, const LayerShape& s, double per_token, double e) {
  if (s.cp <= 1) return;
  const SeqGroup& g = s.groups().front();
  comm(ops, "cp_ring_kv", CommGroup::cp, Collective::p2p, d(g.sequences) * d(g.new_tokens) * per_token * e);
}

// Whether layers of `kind` (kind_of) are linear attention: the local layers of a model with them.
bool linear_kind(const ModelSpec& m, std::size_t kind) { return kind_is_local(kind) && m.linear.heads > 0; }

// An attention-kind operator over one group of sequences: its new tokens are the queries.
Op& attention_op(std::vector<Op>& ops, const char* name, const SeqGroup& g) {
  Op& o = ops.emplace_back();
  o.name = name;
  o.kind = OpKind::attention;
  o.role = OpRole::attention;
  o.m = g.new_tokens;
  o.sequences = g.sequences;
  return o;
}

// The same bytes kept under every policy but full recompute (which keeps only the layer input).
SavedBytes kept(double bytes) { return SavedBytes{bytes, bytes, 0.0}; }
// Bytes kept under every policy: an operator outside the recomputed layers (the embedding, the head).
SavedBytes always(double bytes) { return SavedBytes{bytes, bytes, bytes}; }

// A checkpointed module (normal checkpointing: RecomputeModule core_attn, mlp, moe, shared_experts)
// made of ops[from..]: each of its operators runs again in the backward, and what they saved
// is not kept except by `input`, the operator whose saved bytes are the module's input (the
// checkpoint keeps it). Megatron-Core: tensor_parallel.checkpoint around the submodule
// (transformer_layer.py, mlp.py, moe_layer.py).
void checkpointed(std::vector<Op>& ops, std::size_t from, RecomputeModule mod, const Op* input) {
  for (std::size_t i = from; i < ops.size(); ++i) {
    ops[i].rerun |= module_bit(mod);
    if (&ops[i] != input) ops[i].inside |= module_bit(mod);
  }
}

// An output-discarding module's output, saved by `consumer` (CheckpointWithoutOutput, Megatron-Core
// tensor_parallel/random.py): `bytes` of what the consumer keeps are freed after the forward.
void drops_output(Op& consumer, RecomputeModule mod, double bytes) {
  consumer.drops |= module_bit(mod);
  consumer.dropped = bytes;
}

// A fused causal kernel skips the blocks above the diagonal: half the scores when every query
// sees all earlier keys; a windowed layer visits a band of `keys` per query, which is
// 1 - keys / (2 tokens) of the tokens x keys rectangle when the window is shorter than the
// sequence.
double causal_fraction(const LayerShape& s, const SeqGroup& g, std::int64_t keys) {
  if (!(s.causal && fused_attention(s.attention))) return 1.0;
  if (keys < g.kv_len && keys < g.new_tokens) return 1.0 - d(keys) / (2.0 * d(g.new_tokens));
  // An inference group whose m queries are the last of its n keys (a prefill chunk after earlier
  // chunks, a decoding sequence in a mixed step): query i sees n - m + i + 1 keys, a share of
  // 1 - (m - 1) / (2 n) of the rectangle. Training's context-parallel groups (seq_len / cp queries
  // over seq_len keys, balanced across ranks) keep one half.
  if (!s.loss && g.new_tokens < keys) return 1.0 - (d(g.new_tokens) - 1.0) / (2.0 * d(keys));
  return 0.5;
}

// The layer's widths and token counts on this device, shared by the blocks below.
struct Widths {
  double td, T, Tn, Tt, h, e, es, act_msg, sp_div;
  std::int64_t tokens;
  bool tp_comm;
};

Widths widths(const ModelSpec& m, const LayerShape& s) {
  Widths w{};
  w.td = d(s.tp);
  w.T = d(s.tokens());
  w.sp_div = s.sequence_parallel ? w.td : 1.0;
  w.Tn = s.sequence_parallel ? w.T / w.td : w.T;
  w.Tt = w.T;
  w.h = d(m.hidden);
  w.e = s.act_bytes;
  w.es = s.saved_bytes;
  w.act_msg = w.e * w.T * w.h;
  w.tokens = s.tokens();
  w.tp_comm = s.tp > 1;
  return w;
}

// A dense FFN of width `ffn`, column-parallel up and row-parallel down over tp (Shoeybi et al.
// 2019), with sequence parallelism's all-gather before and reduce-scatter after (or an
// all-reduce after, without SP) unless `reduce` is off (the caller reduces) or `gather` is off
// (a parallel block's FFN reads the input the attention branch gathered).
void add_dense_ffn(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, const char* up_name,
                   const char* act_name, const char* down_name, std::int64_t ffn, double norm_input,
                   RecomputeModule module, bool reduce = true, bool gather = true) {
  const std::size_t first = ops.size();
  const Widths w = widths(m, s);
  const double td = w.td, T = w.T, Tt = w.Tt, h = w.h, e = w.e, es = w.es, act_msg = w.act_msg;
  const std::int64_t tokens = w.tokens;
  const bool tp_comm = w.tp_comm;
  const std::int64_t f_local = ffn / s.tp;
  const double f = d(ffn);
  if (tp_comm && s.sequence_parallel && gather)
    comm(ops, "sp_allgather_mlp", CommGroup::tp, Collective::all_gather, act_msg);
  const bool gated = m.ffn_type == FfnType::swiglu;
  const std::int64_t up = (gated ? 2 : 1) * f_local;
  Op& mlp_up = matmul(ops, up_name, OpRole::ffn_up, tokens, up, m.hidden);
  // Column-parallel h x f (SwiGLU: gate and up, h x 2f) (+ bias).
  mlp_up.params = ((gated ? 2.0 : 1.0) * h * f + (m.bias ? f : 0.0)) / td;
  mlp_up.saved = kept(norm_input);
  drops_output(mlp_up, RecomputeModule::layernorm, norm_input);  // the pre-MLP norm's output
  // Activation: GeLU reads and writes f; SwiGLU reads gate and up, writes f.
  const double fT = T * d(f_local);
  Op& act = elementwise(ops, act_name, OpRole::ffn_act, (gated ? 3.0 : 2.0) * e * fT, 8.0 * fT);
  act.saved = kept(Tt * (gated ? 2.0 : 1.0) * es * f / td);  // the activation's input(s)
  Op& down = matmul(ops, down_name, OpRole::ffn_down, tokens, m.hidden, f_local);
  down.params = (h * f + (m.bias ? h : 0.0)) / td;  // row-parallel f x h (+ bias)
  down.saved = kept(Tt * es * f / td);
  if (tp_comm && reduce)
    comm(ops, s.sequence_parallel ? "sp_reducescatter_mlp" : "tp_allreduce_mlp", CommGroup::tp,
         s.sequence_parallel ? Collective::reduce_scatter : Collective::all_reduce, act_msg);
  checkpointed(ops, first, module, &ops[first + (ops[first].kind == OpKind::comm ? 1 : 0)]);
}

// A mixture-of-experts FFN (Shazeer et al. 2017; GShard, Lepikhin et al. 2020; Megatron-Core's
// all-to-all token dispatcher and "MoE parallel folding", arXiv 2504.14960). The router scores
// every expert, each token's hidden state is copied to its top_k experts (permute), sent to the
// expert-parallel ranks that hold them (all-to-all dispatch), run through the local experts as
// one grouped GEMM, sent back (combine) and summed with the gate weights (unpermute). Shared
// experts are a dense FFN every token passes through.
//
// Tokens: in training (sequence parallel, or tp 1) each rank routes its own shard of the
// sequence, T/tp tokens, and with balanced routing receives as many assignments as it sends,
// T/tp x top_k; in inference (no SP) the tp ranks hold the same tokens and split the experts:
// ep ranks by expert, etp = tp / ep within an expert, each receiving T x top_k / ep.
// Per local expert that is a mean of mu = assignments x ep / experts; the busiest rank sees
// `imbalance` x mu (capped by the capacity factor when tokens are dropped). When mu is small
// (decode), only the experts that receive a token run: each with probability 1 - exp(-mu)
// (Poisson arrivals), which is why a decode step of a large MoE reads only part of its experts.
// Where a rank's routed tokens go (the comment above): how many it routes, how many assignments its
// experts receive, over how many local experts, the busiest's rows and how many experts run.
struct MoeRoute {
  bool split = false, local_tokens = false;
  double tokens_in = 0, received = 0, experts_local = 0, load = 1;
  std::int64_t per_expert = 0, active = 0;
};

MoeRoute route_tokens(const MoeSpec& moe, const LayerShape& s, const Widths& w) {
  MoeRoute r;
  // Each rank routes its own tokens in training (sequence parallel, or tp 1) and under attention data
  // parallelism; in tensor-parallel inference the tp ranks hold the same tokens. A replica of tp
  // ranks whose experts span other replicas routes a tp-th of them from each rank
  // (LayerShape::moe_token_split).
  r.split = s.moe_token_split;  // set with tp > 1 only (inference_layer_shape)
  r.local_tokens = s.sequence_parallel || s.tp == 1 || r.split;
  r.tokens_in = r.split ? std::ceil(w.T / w.td) : r.local_tokens ? w.Tn : w.T;  // the busiest rank's
  const double ep = d(s.ep), k = d(moe.top_k);
  const double assignments = r.local_tokens ? r.tokens_in * k : r.tokens_in * k / ep;  // arriving per rank
  // Expert tensor parallelism in training: the etp ranks of an expert gather each other's
  // assignments before its GEMMs and each computes every row on its f / etp slice (Megatron-Core's
  // all-to-all dispatcher all-gathers over the expert tensor-parallel group after the dispatch and
  // reduce-scatters after the experts), so a rank's expert GEMMs see etp x its own assignments and
  // its FLOPs do not shrink with etp. In inference the tp ranks already hold the same tokens.
  r.received = r.local_tokens ? assignments * d(s.etp) : assignments;
  // Slots, not experts, over the ep ranks where redundant copies are placed (LayerShape::expert_slots):
  // the assignments of a rank spread over its slots / ep local GEMMs.
  r.experts_local = (s.expert_slots > 0 ? d(s.expert_slots) : d(moe.experts)) / ep;
  const double mu = r.received / r.experts_local;
  const double hit = mu > 30.0 ? 1.0 : 1.0 - std::exp(-mu);
  r.load = moe.imbalance;
  if (moe.capacity_factor > 0) r.load = std::min(r.load, moe.capacity_factor);
  r.per_expert = static_cast<std::int64_t>(std::ceil(std::max(1.0, mu * r.load / hit)));
  r.active = static_cast<std::int64_t>(std::ceil(r.experts_local * hit));
  return r;
}

void add_moe_ffn(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, double norm_input) {
  const MoeSpec& moe = *m.moe;
  const Widths w = widths(m, s);
  const double e = w.e, es = w.es;
  // The routed path's width: the latent (LatentMoE) or the hidden size. Everything between the two
  // latent projections (the permute, the dispatch and combine, the experts, the unpermute) moves and
  // multiplies rows this wide (Elango et al. 2026, arXiv 2601.18089, Fig. 1: routing bytes and expert
  // weights shrink by hidden / latent); the router and the shared experts read the hidden state.
  const std::int64_t x = moe.latent_size > 0 ? moe.latent_size : m.hidden;
  const double h = d(x);
  const MoeRoute r = route_tokens(moe, s, w);
  const double ep = d(s.ep), etp = d(s.etp);
  const double k = d(moe.top_k), E = d(moe.experts);
  const std::int64_t f_e = moe.expert_ffn_hidden;
  const std::int64_t f_local = std::max<std::int64_t>(1, f_e / s.etp);
  const bool gated = m.ffn_type == FfnType::swiglu;
  const auto rows = static_cast<std::int64_t>(r.tokens_in);

  // Router: logits over all experts (replicated weights), then top-k and softmax in fp32.
  const std::size_t first = ops.size();
  Op& router = matmul(ops, "moe_router", OpRole::router, rows, moe.experts, m.hidden);
  router.params = w.h * E;
  // The router's input: the layer's normalised input, which a parallel block's QKV projection keeps
  // already (norm_input 0 there).
  router.saved = kept(norm_input);
  drops_output(router, RecomputeModule::layernorm, norm_input);
  elementwise(ops, "moe_topk", OpRole::router, r.tokens_in * E * 4.0 * 2.0, 5.0 * r.tokens_in * E);
  // LatentMoE's projections are held whole by every rank (Megatron-Core's fc1_latent_proj /
  // fc2_latent_proj, TELinear "duplicated"; vLLM's ReplicatedLinear) and run on the rank's tokens;
  // the one into the latent reads the router's input.
  if (moe.latent_size > 0) matmul(ops, "moe_latent_in", OpRole::ffn_up, rows, x, m.hidden).params = w.h * h;
  // Permute: each token's hidden state copied once per chosen expert, grouped by expert.
  const double routed = r.tokens_in * k * h;  // elements leaving this rank
  elementwise(ops, "moe_permute", OpRole::moe_permute, 2.0 * e * routed, 0.0);
  const double copies_sent = r.local_tokens ? routed : routed / ep;  // elements
  const double sent = copies_sent * e;
  const bool exchange = s.ep > 1 && (r.local_tokens || s.ep > s.tp);
  // An all-gather exchange (LayerShape::moe_allgather) moves every token of the group, not its
  // routed copies: each rank gathers ep x its tokens before the experts and reduce-scatters the
  // experts' partial sums of all of them after (the collectives' size is the gathered tensor).
  const bool allgather = exchange && s.moe_allgather;
  const double gathered = r.tokens_in * ep * h * e;
  // The all-to-all ends with its busiest rank, which receives (dispatch) and sends back (combine)
  // `load` x the mean of the routed copies, as its grouped GEMM takes `load` x the mean rows below
  // (SGLang team, large-scale EP blog 2025-05-05: imbalance "forces the system to wait for the
  // slowest GPU computation or communication").
  if (allgather)
    comm(ops, "ep_allgather", CommGroup::ep, Collective::all_gather, gathered);
  else if (exchange)
    comm(ops, "ep_dispatch", CommGroup::ep, Collective::all_to_all,
         copies_sent * (s.dispatch_bytes > 0 ? s.dispatch_bytes : e) * r.load)
        .copies = k;
  // Local experts as one grouped GEMM: `active` experts of per_expert rows each.
  Op& up = matmul(ops, "expert_up", OpRole::expert_up, r.per_expert, (gated ? 2 : 1) * f_local, x);
  up.batch = r.active;
  up.expert = true;
  up.params = r.experts_local * (gated ? 2.0 : 1.0) * h * d(f_e) / etp;
  up.model_flops = 2.0 * r.received * d((gated ? 2 : 1) * f_local) * h;
  up.saved = kept(r.received * h * es);
  const double fT = d(r.per_expert) * d(r.active) * d(f_local);
  Op& act = elementwise(ops, "expert_act", OpRole::ffn_act, (gated ? 3.0 : 2.0) * e * fT, 8.0 * fT);
  act.saved = kept(r.received * d(f_local) * (gated ? 2.0 : 1.0) * es);
  act.rerun |= module_bit(RecomputeModule::moe_act);
  Op& down = matmul(ops, "expert_down", OpRole::expert_down, r.per_expert, x, f_local);
  down.batch = r.active;
  down.expert = true;
  down.params = r.experts_local * h * d(f_e) / etp;
  down.model_flops = 2.0 * r.received * d(f_local) * h;
  down.saved = kept(r.received * d(f_local) * es);
  drops_output(down, RecomputeModule::moe_act, down.saved.none);  // the activation's output
  // Expert tensor parallelism splits each expert's FFN; the gather of the group's rows before it and
  // the reduce-scatter of its partial sums after it move as much as one all-reduce of the gathered
  // rows, 2 (etp - 1) / etp of it (training; in inference the layer's closing all-reduce over tp
  // does it).
  // With attention data parallelism and tensor-parallel experts in inference the gathered rows are
  // the tokens, not their routed copies (LayerShape::gather_before_routing).
  if (s.etp > 1 && r.local_tokens)
    comm(ops, "etp_allreduce", CommGroup::etp, Collective::all_reduce,
         (s.gather_before_routing ? r.tokens_in * etp : r.received) * h * e);
  if (allgather)
    comm(ops, "ep_reducescatter", CommGroup::ep, Collective::reduce_scatter, gathered);
  else if (exchange)
    comm(ops, "ep_combine", CommGroup::ep, Collective::all_to_all, sent * r.load).copies = k;
  // Unpermute: read the top_k outputs and gate weights of each token, write the sum.
  Op& un =
      elementwise(ops, "moe_unpermute", OpRole::moe_permute, e * routed + e * r.tokens_in * h, 2.0 * routed);
  un.saved = kept(r.tokens_in * k * 4.0);  // gate probabilities
  if (moe.latent_size > 0) {
    // Back to the hidden size, on the tensor-parallel partial sums (the layer's closing all-reduce
    // sums the result: vLLM's NemotronHMoE.forward).
    Op& out = matmul(ops, "moe_latent_out", OpRole::ffn_down, rows, m.hidden, x);
    out.params = h * w.h;
    out.saved = kept(r.tokens_in * h * es);
  }
  if (moe.shared_experts > 0)
    add_dense_ffn(ops, m, s, "shared_up", "shared_act", "shared_down",
                  moe.shared_experts * moe.shared_expert_ffn_hidden, norm_input,
                  RecomputeModule::shared_experts, r.local_tokens && !r.split);
  if (!r.local_tokens && s.tp > 1)
    comm(ops, "tp_allreduce_mlp", CommGroup::tp, Collective::all_reduce, w.act_msg);
  // Split routing: the routed rows come back a tp-th per rank and are gathered over the replica;
  // with shared experts (tensor-parallel partial sums of every row) their reduce-scatter and the
  // gather move as much as one all-reduce.
  if (r.split) {
    const bool shared = moe.shared_experts > 0;
    comm(ops, shared ? "tp_allreduce_mlp" : "tp_allgather_moe", CommGroup::tp,
         shared ? Collective::all_reduce : Collective::all_gather, w.act_msg);
  }
  checkpointed(ops, first, RecomputeModule::moe, &ops[first]);
}

// Attention cores of standard (MHA/GQA/MQA) attention, one operator per group of sequences with
// the same lengths.
void mha_attention_cores(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, bool windowed) {
  const double td = d(s.tp), e = s.act_bytes, es = s.saved_bytes;
  const std::int64_t heads_local = m.heads / s.tp;
  const std::int64_t kv_local = std::max<std::int64_t>(1, m.kv_heads / s.tp);
  const std::int64_t kvd_local = kv_local * m.head_dim;
  const double q = d(m.heads * m.head_dim);
  const double kv = d(m.kv_heads * m.head_dim);
  // Causal masking lets a fused kernel skip blocks above the diagonal.
  for (const SeqGroup& g : s.groups()) {
    Op& att = ops.emplace_back();
    att.name = "attention";
    att.kind = OpKind::attention;
    att.role = OpRole::attention;
    att.m = g.new_tokens;  // queries per sequence
    const std::int64_t keys = windowed ? std::min(g.kv_len, m.window) : g.kv_len;
    att.n = keys;  // keys (a windowed layer sees at most `window`)
    att.k = m.head_dim;
    att.batch = g.sequences * heads_local;
    att.sequences = g.sequences;
    att.weight = false;
    att.causal_fraction = causal_fraction(s, g, keys);
    // Standard (unfused) attention materialises the b*a*s*kv score matrix: the fused
    // scale-mask-softmax reads and writes it, dropout reads it and writes output and mask
    // (Korthikanti et al. 2022, Sec. 4.1 counts the stored parts: 5as^2b bytes).
    const double scores = d(g.sequences * heads_local) * d(g.new_tokens) * d(keys);
    const bool standard = s.attention == AttentionKernel::standard;
    att.bytes = standard ? scores * (2.0 * e + (m.dropout ? 2.0 * e + 1.0 : 0.0)) : 0.0;
    att.flops = 5.0 * scores;
    // Backward: softmax reads P and dP and writes dS (3 elements); dropout reads the incoming
    // gradient and the mask and writes a gradient.
    att.backward_bytes = standard ? scores * (3.0 * e + (m.dropout ? 2.0 * e + 1.0 : 0.0)) : 0.0;
    att.backward_flops = att.flops;
    // QK^T and PV over the full score matrix, 2 FLOPs per multiply-add each.
    att.model_flops = 4.0 * d(g.sequences) * d(g.new_tokens) * d(keys) * d(heads_local * m.head_dim);
    // K and V of every new token join the cache (GQA/MQA store kv_heads, not heads).
    att.kv_bytes = 2.0 * d(kvd_local) * s.kv_elem_bytes;
    att.v_dim = m.head_dim;
    att.kv_heads = kvd_local / m.head_dim;
    // Saved: Q and K (for QK^T) and V, split over tp; unfused attention also keeps the softmax
    // output (2), dropout mask (1) and dropout output (2) per score, 5 a s^2 b, which selective
    // recompute drops (Korthikanti et al. Sec. 5); FlashAttention keeps an fp32 log-sum-exp per
    // query and head instead.
    const double Tg = d(g.sequences) * d(g.new_tokens);
    const double qkv_saved = Tg * (es * (q + kv) + es * kv);
    if (standard) {
      const double score_saved = Tg * d(m.heads) * d(keys) * (es + (m.dropout ? 1.0 + es : 0.0));
      att.saved = SavedBytes{(qkv_saved + score_saved) / td, qkv_saved / td, 0.0};
    } else {
      att.saved = kept((qkv_saved + Tg * d(m.heads) * 4.0) / td);
    }
  }
}

// Forward FLOPs per token and value head of the chunked gated delta rule over chunks of c tokens
// (Yang, Wang, Zhang, Shen & Kim 2024, "Parallelizing Linear Transformers with the Delta Rule over
// Sequence Length", arXiv 2406.06484, Sec. 3.3: O(L C d + L d^2) per head; the WY form of Sec. 3.2).
// Inside a chunk: K K^T, W = T K and Q K^T over c keys of dk (2 c dk each), U = T V and the masked
// scores times the new values over c values of dv (2 c dv each); across chunks: the new values
// U - W S, the state update K^T U' and the output Q S, each dk x dv (2 dk dv each). A token of
// decoding (c = 1) updates and reads the state directly: the decay, S^T k, the rank-one update
// and S^T q, 7 dk dv (Yang, Kautz & Hatamizadeh 2024, arXiv 2412.06464, Eq. 10).
double linear_flops_per_token(std::int64_t c, std::int64_t dk, std::int64_t dv) {
  if (c <= 1) return 7.0 * d(dk) * d(dv);
  return 2.0 * d(c) * (3.0 * d(dk) + 2.0 * d(dv)) + 6.0 * d(dk) * d(dv);
}

// Linear attention in a layer that is not global (model/spec.h LinearAttentionSpec), as Qwen3-Next's
// Gated DeltaNet lays it out (transformers' modeling_qwen3_next.py Qwen3NextGatedDeltaNet; vLLM's
// qwen3_next.py splits its heads over tensor parallel ranks): one column-parallel projection to
// q, k (key_heads x key_head_dim each), v and the output gate z (heads x value_head_dim each) and
// the per-head write strength beta and decay alpha; a depthwise causal convolution of conv_kernel
// taps over q, k and v; the recurrence; a gated RMSNorm (norm(o) x SiLU(z)); and a row-parallel
// output projection, reduced over tp as attention's is.
// A linear layer's widths on one tensor-parallel rank: its value heads, q and k channels, v channels
// and the convolution's channels (q, k and v).
struct LinearWidths {
  std::int64_t hv, v_local, conv_local;
};

LinearWidths linear_widths(const ModelSpec& m, const LayerShape& s) {
  const LinearAttentionSpec& L = m.linear;
  const std::int64_t hv = std::max<std::int64_t>(1, L.heads / s.tp);
  const std::int64_t hk = std::max<std::int64_t>(1, L.key_heads / s.tp);
  const std::int64_t v_local = hv * L.value_head_dim;
  return {hv, v_local, 2 * hk * L.key_head_dim + v_local};
}

// The recurrence of a linear layer, one operator per group of sequences (the layer's attention
// cores: what a serving step's context-dependent part reads, attention_core_ops).
void linear_attention_cores(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s) {
  const LinearAttentionSpec& L = m.linear;
  const auto [hv, v_local, conv_local] = linear_widths(m, s);
  const double state = d(L.key_head_dim) * d(L.value_head_dim) * bytes_per_element(L.state);
  for (const SeqGroup& g : s.groups()) {
    Op& core = attention_op(ops, "linear_attention", g);
    core.recurrent = true;
    core.n = 1;  // no keys: the state stands for the context
    core.k = L.key_head_dim;
    core.v_dim = L.value_head_dim;
    core.batch = g.sequences * hv;
    core.bytes = d(g.sequences * hv) * state;
    const std::int64_t chunk = std::min(kLinearChunk, g.new_tokens);
    core.model_flops = d(g.sequences) * d(g.new_tokens) * d(hv) *
                       linear_flops_per_token(chunk, L.key_head_dim, L.value_head_dim);
    // The cache: each value head's state and the convolution's last conv_kernel - 1 inputs
    // (vLLM's MambaStateShapeCalculator.gated_delta_net_state_shape: conv (kernel - 1) x channels,
    // the temporal state heads x dk x dv; the convolution's inputs in the KV cache's type, vLLM
    // PR #22928: "the conv state will take whatever value is set by kv_cache_dtype").
    core.state_bytes =
        d(hv) * state + d(std::max<std::int64_t>(0, L.conv_kernel - 1) * conv_local) * s.kv_elem_bytes;
    // Saved for the backward: q, k, v, beta, the decay and the output (the chunk states are
    // recomputed, FLA's chunk_gated_delta_rule_bwd).
    const double Tg = d(g.sequences) * d(g.new_tokens);
    core.saved = kept(Tg * s.saved_bytes * (d(conv_local) + d(v_local) + 2.0 * d(hv)));
  }
}

void add_linear_attention(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, double norm_input) {
  const LinearAttentionSpec& L = m.linear;
  const Widths w = widths(m, s);
  const auto [hv, v_local, conv_local] = linear_widths(m, s);
  const std::int64_t in_columns = conv_local + v_local + 2 * hv;  // q, k, v; the gate z; beta and the decay
  Op& in = matmul(ops, "linear_in_proj", OpRole::qkv, w.tokens, in_columns, m.hidden);
  // h x (2 qk + 2 v + 2 heads), plus the convolution's taps and the heads' decay and bias terms
  // (A_log, dt_bias), all split by heads over tp: a rank's share, with a key head that every rank
  // holds (one key head over tp > 1) counted whole on each.
  in.params = w.h * d(in_columns) + d(L.conv_kernel) * d(conv_local) + 2.0 * d(hv);
  in.saved = kept(norm_input);
  drops_output(in, RecomputeModule::layernorm, norm_input);
  const double conv_elems = w.T * d(conv_local);
  if (L.conv_kernel > 0) {
    // Read and write the channels, conv_kernel multiply-adds and a SiLU per element; it keeps its
    // input for the backward.
    Op& conv = elementwise(ops, "linear_conv", OpRole::attention, 2.0 * w.e * conv_elems,
                           (2.0 * d(L.conv_kernel) + 4.0) * conv_elems);
    conv.saved = kept(w.es * conv_elems);
  }
  // Context parallel (Megatron-Core's gated delta net, NVIDIA/Megatron-LM PR 2614 / 2642, after
  // Mamba's scheme): the recurrence runs along the whole sequence, so an all-to-all turns the
  // projections' output (q, k, v, the gate, beta and the decay: in_proj's columns) from a cp-th of
  // the sequence on every head into the whole sequence on a cp-th of the heads, and another turns
  // the heads' output back; neither overlaps compute, and the backward runs both again, reversed.
  // (Placed before the convolution, which then sees the whole sequence and needs no halo.)
  const bool cp_exchange = s.cp > 1;
  if (cp_exchange) comm(ops, "cp_heads_in", CommGroup::cp, Collective::all_to_all, w.T * d(in_columns) * w.e);
  linear_attention_cores(ops, m, s);
  if (cp_exchange) comm(ops, "cp_heads_out", CommGroup::cp, Collective::all_to_all, w.T * d(v_local) * w.e);
  // Gated RMSNorm: read o and z, write the product; one weight of value_head_dim shared by the heads.
  const double v_elems = w.T * d(v_local);
  Op& gate = elementwise(ops, "linear_gated_norm", OpRole::norm, 3.0 * w.e * v_elems, 8.0 * v_elems);
  gate.params = d(L.value_head_dim);
  gate.saved = kept(2.0 * w.es * v_elems);
  Op& out = matmul(ops, "linear_out_proj", OpRole::attn_out, w.tokens, m.hidden, v_local);
  out.params = d(v_local) * w.h;  // row-parallel
  out.saved = kept(w.Tt * w.es * d(v_local));
}

// DeepSeek Sparse Attention's lightning indexer for one group of sequences (DeepSeek-V3.2-Exp
// report Sec. 2.1; its inference code, inference/model.py Indexer): each query's index_heads
// heads of index_head_dim, in FP8, against one cached FP8 index key per earlier token (MQA-like:
// every head reads the same key), then ReLU and a weighted sum over the heads give one fp32 logit
// per (query, key), which the top-k selection reads back. The indexer is replicated on every
// tensor-parallel rank (plain Linear layers; the ranks check they chose the same tokens). The
// cache holds per token the FP8 key and one fp32 scale per 128 of its elements (k_cache and
// k_scale_cache, block_size 128).
void add_indexer_scores(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, const SeqGroup& g) {
  const SparseAttentionSpec& x = m.sparse;
  Op& ix = attention_op(ops, "indexer", g);
  ix.index_scores = true;
  ix.n = g.kv_len;
  ix.k = x.index_head_dim;  // no PV product: v_dim stays 0
  ix.batch = g.sequences * x.index_heads;
  ix.kv_heads = 0;  // one key per token shared by the heads
  ix.causal_fraction = causal_fraction(s, g, g.kv_len);
  const double logits = d(g.sequences) * d(g.new_tokens) * d(g.kv_len) * ix.causal_fraction;
  ix.bytes = 8.0 * logits;                     // fp32 logits written, then read by the top-k
  ix.flops = 3.0 * d(x.index_heads) * logits;  // ReLU, weight, sum per head
  ix.backward_bytes = ix.bytes;
  ix.backward_flops = ix.flops;
  ix.model_flops = 2.0 * d(g.sequences) * d(g.new_tokens) * d(g.kv_len) * d(x.index_heads * x.index_head_dim);
  ix.kv_bytes = d(x.index_head_dim) + 4.0 * d((x.index_head_dim + 127) / 128);
  const double Tg = d(g.sequences) * d(g.new_tokens);
  ix.saved = kept(Tg * d(x.index_heads * x.index_head_dim + x.index_head_dim) * s.saved_bytes);
}

// The indexer's projections (context-independent), replicated over tensor parallelism: queries
// from MLA's query latent (q_lora_rank) or the hidden state, one key and the per-head weights
// from the hidden state; then the key's LayerNorm, rotary embedding on the rotary part and a
// Hadamard rotation and FP8 quantisation of queries and keys (element-wise passes over both).
void add_indexer_projections(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s) {
  const SparseAttentionSpec& x = m.sparse;
  const Widths w = widths(m, s);
  const std::int64_t q_in = m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : m.hidden;
  const std::int64_t width = x.index_heads * x.index_head_dim;
  Op& q = matmul(ops, "index_q_proj", OpRole::qkv, w.tokens, width, q_in);
  q.params = d(q_in) * d(width);  // its input is the tensor q_up_proj already keeps (nothing saved twice)
  Op& k = matmul(ops, "index_k_proj", OpRole::qkv, w.tokens, x.index_head_dim, m.hidden);
  k.params = w.h * d(x.index_head_dim);
  Op& wp = matmul(ops, "index_weights_proj", OpRole::qkv, w.tokens, x.index_heads, m.hidden);
  wp.params = w.h * d(x.index_heads);
  const double kd = w.T * d(x.index_head_dim);
  Op& norm = elementwise(ops, "index_k_norm", OpRole::norm, 2.0 * w.e * kd, 5.0 * kd);
  norm.params = 2.0 * d(x.index_head_dim);  // LayerNorm: a scale and a shift
  // Rotary embedding, Hadamard rotation and FP8 quantisation of the queries and the key: read in
  // 16 bits, written in 8 (one fused pass; O(d log d) FLOPs per row, about 8 per element).
  const double qk = w.T * d(width + x.index_head_dim);
  elementwise(ops, "index_quant", OpRole::attention, (w.e + 1.0) * qk, 8.0 * qk);
}

// MLA's attention cores, one operator per group of sequences (see add_mla_attention). Under
// DeepSeek Sparse Attention a query whose context is longer than top_k attends to the indexer's
// top_k tokens alone, in MLA's MQA (absorbed) form, each selected latent entry shared by all heads
// (DeepSeek-V3.2-Exp report Sec. 2.1: DSA is instantiated on the MQA mode of MLA; per-head keys
// and values gathered token by token would not share tiles between queries); a context within
// top_k selects every token, and the layer runs as dense MLA. A prompt runs in whichever form
// multiplies less: dense MHA-form attention over every earlier key, or the MQA form over the
// selected ones, whose keys are 3-4x wider (the report: a masked MHA mode for short prefills).
void mla_attention_cores(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, bool windowed) {
  const MlaSpec& a = m.mla;
  const double td = d(s.tp), es = s.saved_bytes;
  const std::int64_t heads_local = m.heads / s.tp;
  const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
  const double heads = d(m.heads);
  const std::int64_t latent = a.kv_lora_rank + a.qk_rope_head_dim;
  const bool sparse = m.sparse.top_k > 0;
  for (const SeqGroup& g : s.groups()) {
    if (sparse) add_indexer_scores(ops, m, s, g);
    const std::int64_t all_keys = windowed ? std::min(g.kv_len, m.window) : g.kv_len;
    const bool decode = !s.loss && g.new_tokens == 1;
    bool selects = sparse && all_keys > m.sparse.top_k;
    if (selects && !decode) {
      const double dense = d(qk + a.v_head_dim) * causal_fraction(s, g, all_keys) * d(all_keys);
      const double sparse_form =
          d(latent + a.kv_lora_rank) * causal_fraction(s, g, m.sparse.top_k) * d(m.sparse.top_k);
      selects = sparse_form < dense;
    }
    const bool absorbed = selects || decode;
    const std::int64_t keys = selects ? m.sparse.top_k : all_keys;
    Op& att = ops.emplace_back();
    att.name = "attention";
    att.kind = OpKind::attention;
    att.role = OpRole::attention;
    att.m = g.new_tokens;
    att.n = keys;
    att.k = absorbed ? latent : qk;
    att.v_dim = absorbed ? a.kv_lora_rank : a.v_head_dim;
    att.batch = g.sequences * heads_local;
    att.sequences = g.sequences;
    att.causal_fraction = causal_fraction(s, g, keys);
    const double scores = d(g.sequences * heads_local) * d(g.new_tokens) * d(keys);
    att.flops = 5.0 * scores;
    att.backward_flops = att.flops;
    att.model_flops =
        2.0 * d(g.sequences) * d(g.new_tokens) * d(keys) * d(heads_local) * d(att.k + att.v_dim);
    att.kv_bytes = d(latent) * s.kv_elem_bytes;  // the latent and the rope key, shared by the heads
    const double Tg = d(g.sequences) * d(g.new_tokens);
    // Saved: per-head Q, K (qk dim) and V, and FlashAttention's fp32 log-sum-exp; Q, K and V are
    // the up-projections' (and rotary embedding's) output, which mla_up_proj discards.
    att.saved = kept(Tg * heads * (es * (2.0 * d(qk) + d(a.v_head_dim)) + 4.0) / td);
    drops_output(att, RecomputeModule::mla_up_proj, Tg * heads * es * (2.0 * d(qk) + d(a.v_head_dim)) / td);
  }
}

// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, Sec. 2.1; DeepSeek-V3 config):
// queries through a low-rank down and up projection (q_lora_rank), keys and values from a
// per-token latent of kv_lora_rank (plus a shared rotary key of qk_rope_head_dim), which is what
// the KV cache holds. The down projections and their norms are replicated over tp, the up
// projections and the output projection split by heads (Megatron-Core MLA). Training and prefill
// expand the latent to per-head keys and values (qk head dim nope + rope, v head dim); decode
// uses the absorbed form (FlashMLA, DeepSeek's inference kernels): queries are mapped into the
// latent space, attention runs over the cached latent (dim kv_lora + rope, values kv_lora) like
// MQA, and the same up-projection weights map the result back, so a step reads the compact
// cache once instead of expanding it. The up-projection matmul below costs what the two absorbed
// products cost (same FLOPs and weights).
void add_mla_attention(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, bool windowed,
                       double norm_input) {
  const MlaSpec& a = m.mla;
  const Widths w = widths(m, s);
  const double td = w.td, T = w.T, h = w.h, e = w.e, es = w.es;
  const std::int64_t tokens = w.tokens;
  const std::int64_t heads_local = m.heads / s.tp;
  const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
  const double heads = d(m.heads);
  if (a.q_lora_rank > 0) {
    Op& qd = matmul(ops, "q_down_proj", OpRole::qkv, tokens, a.q_lora_rank, m.hidden);
    qd.params = h * d(a.q_lora_rank);
    qd.saved = kept(norm_input);
    drops_output(qd, RecomputeModule::layernorm, norm_input);
    Op& qn =
        elementwise(ops, "q_norm", OpRole::norm, 2.0 * e * T * d(a.q_lora_rank), 5.0 * T * d(a.q_lora_rank));
    qn.params = d(a.q_lora_rank);
    qn.saved = kept(T * d(a.q_lora_rank) * es);
    Op& qu = matmul(ops, "q_up_proj", OpRole::qkv, tokens, heads_local * qk, a.q_lora_rank);
    qu.params = d(a.q_lora_rank) * heads * d(qk) / td;
    qu.saved = kept(T * d(a.q_lora_rank) * es);
    qu.rerun |= module_bit(RecomputeModule::mla_up_proj);
  } else {
    Op& qp = matmul(ops, "q_proj", OpRole::qkv, tokens, heads_local * qk, m.hidden);
    qp.params = h * heads * d(qk) / td;
    qp.saved = kept(norm_input);
    drops_output(qp, RecomputeModule::layernorm, norm_input);
    qp.rerun |= module_bit(RecomputeModule::mla_up_proj);
  }
  const std::int64_t latent = a.kv_lora_rank + a.qk_rope_head_dim;
  Op& kvd = matmul(ops, "kv_down_proj", OpRole::qkv, tokens, latent, m.hidden);
  kvd.params = h * d(latent);
  Op& kvn =
      elementwise(ops, "kv_norm", OpRole::norm, 2.0 * e * T * d(a.kv_lora_rank), 5.0 * T * d(a.kv_lora_rank));
  kvn.params = d(a.kv_lora_rank);
  kvn.saved = kept(T * d(a.kv_lora_rank) * es);
  Op& kvu = matmul(ops, "kv_up_proj", OpRole::qkv, tokens, heads_local * (a.qk_nope_head_dim + a.v_head_dim),
                   a.kv_lora_rank);
  kvu.params = d(a.kv_lora_rank) * heads * d(a.qk_nope_head_dim + a.v_head_dim) / td;
  kvu.saved = kept(T * d(a.kv_lora_rank) * es);
  kvu.rerun |= module_bit(RecomputeModule::mla_up_proj);
  // Rotary embedding on the rope part of every query head and the shared rope key.
  const double rope = T * d(heads_local * a.qk_rope_head_dim + a.qk_rope_head_dim);
  elementwise(ops, "rope", OpRole::rope, 2.0 * e * rope, 3.0 * rope).rerun |=
      module_bit(RecomputeModule::mla_up_proj);
  if (m.sparse.top_k > 0) add_indexer_projections(ops, m, s);
  mla_attention_cores(ops, m, s, windowed);
  // Context parallel: the attention runs on per-head keys and values (the up-projections'
  // output, not the shared latent), so the ring passes this rank's block of them, heads_local x
  // (qk + v_head_dim) elements a token where grouped-query attention passes 2 x kv heads x
  // head_dim: 20 times Llama 3 70B's per token for DeepSeek-V3 at tp 1. (Transformer Engine's
  // ring concatenates K and V, which MLA's different head dims first prevented: TransformerEngine
  // issue 1552, PR 1729; its all-to-all form, cp_comm_type a2a as Megatron-Core's MLA recipes set
  // it, moves Q, K, V and the output once, exposed, and is not modelled. Either way the per-head
  // tensors move, not the latent.)
  add_cp_ring_kv(ops, s, d(heads_local) * d(qk + a.v_head_dim), e);
  Op& out = matmul(ops, "attn_out_proj", OpRole::attn_out, tokens, m.hidden, heads_local * a.v_head_dim);
  out.params = heads * d(a.v_head_dim) * h / td;
  out.saved = kept(T * es * heads * d(a.v_head_dim) / td);
}
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
  g.first = layer_kind(m, 0);
  g.present[g.first] = true;
  layer_forward_ops(m, s, g.first, g.kinds[g.first]);
  if (!uniform_layers(m))
    for (std::int64_t i = 1; i < m.layers; ++i) {
      const std::size_t k = layer_kind(m, i);
      if (g.present[k]) continue;
      g.present[k] = true;
      layer_forward_ops(m, s, k, g.kinds[k]);
    }
  embedding_ops(m, s, g.embedding);
  head_ops(m, s, g.head);
  return g;
}

void attention_core_ops(const ModelSpec& m, const LayerShape& s, std::size_t kind, std::vector<Op>& ops) {
  ops.clear();
  if (!kind_has_mixer(kind)) return;
  const bool windowed = kind_is_local(kind) && m.window > 0;
  if (linear_kind(m, kind))
    linear_attention_cores(ops, m, s);
  else if (m.attention == AttentionType::mla)
    mla_attention_cores(ops, m, s, windowed);
  else
    mha_attention_cores(ops, m, s, windowed);
}

void layer_forward_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& ops) {
  layer_forward_ops(m, s, kind_of(false, false), ops);
}

// The element-wise operators as chains of PyTorch primitives instead of fused kernels
// (SoftwareDefaults::fused_elementwise false, or those unfused_elementwise names), each primitive one kernel
// with its own pass over memory, as Hugging Face's eager Llama code writes them (transformers
// modeling_llama.py), per element of e-byte activations:
// - RMSNorm (LlamaRMSNorm): cast to fp32 (read e, write 4), square (4 + 4), mean over the row
//   (read 4), multiply by rsqrt (4 + 4), cast back (4 + e), multiply by the weight (e + e):
//   4e + 28 bytes in 6 kernels, against 2e in one. LayerNorm is one native PyTorch kernel.
// - SwiGLU (LlamaMLP): SiLU of the gate (e + e), times up (2e + e): 5e in 2 kernels, against 3e.
// - Rotary embedding (apply_rotary_pos_emb): q * cos (e + e), rotate_half as a negated half
//   (e/2 + e/2) and a concatenation (e + e), times sin (e + e), sum (2e + e): 10e in 5 kernels per
//   tensor (queries and keys: 10 kernels), against 2e.
// - Dropout before the residual add (training): its own kernel (read e, write e and a 1-byte
//   mask) beside the add (2e + e): 5e + 1 in 2 kernels, against 3e + 1. Without dropout the add
//   alone is fused or not alike.
// The backward keeps twice the forward's traffic, over as many kernels.
// Which of them (LayerShape::unfused_elementwise) an operator is: the norm named norm_mlp is the
// pre-MLP norm, every other norm of a layer (norm_attn, MLA's q_norm and kv_norm) is on the
// attention path.
ElementwiseOp elementwise_kind(const Op& o) {
  switch (o.role) {
    case OpRole::norm:
      return o.name == std::string_view("norm_mlp") ? ElementwiseOp::mlp_norm : ElementwiseOp::attn_norm;
    case OpRole::final_norm:
      return ElementwiseOp::final_norm;
    case OpRole::ffn_act:
      return ElementwiseOp::activation;
    case OpRole::rope:
      return ElementwiseOp::rope;
    default:
      return ElementwiseOp::dropout_add;
  }
}

void unfuse_elementwise(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s) {
  const double e = s.act_bytes;
  for (Op& o : ops) {
    if (o.kind != OpKind::elementwise) continue;
    if (!(s.unfused_elementwise & elementwise_bit(elementwise_kind(o)))) continue;
    double factor = 1.0, kernels = 1.0;
    switch (o.role) {
      case OpRole::norm:
      case OpRole::final_norm:
        if (m.norm == NormType::rmsnorm) factor = (4.0 * e + 28.0) / (2.0 * e), kernels = 6.0;
        break;
      case OpRole::ffn_act:
        if (m.ffn_type == FfnType::swiglu) factor = 5.0 / 3.0, kernels = 2.0;
        break;
      case OpRole::rope:
        factor = 10.0 / 2.0, kernels = 10.0;
        break;
      case OpRole::residual:
        if (m.dropout && s.loss) factor = (5.0 * e + 1.0) / (3.0 * e + 1.0), kernels = 2.0;  // training
        break;
      default:
        break;
    }
    if (kernels == 1.0) continue;
    o.bytes *= factor;
    o.kernels = kernels;
    if (o.backward_kernels > 0) {
      o.backward_bytes = 2.0 * o.bytes / kernels;
      o.backward_flops = 2.0 * o.flops / kernels;
      o.backward_kernels = kernels;
    }
  }
}

// Inference runtimes whose kernels absorb element-wise neighbours (SoftwareDefaults::
// fused_residual_norm, rope_in_attention). A norm after a residual add (the layer's two, or its
// one in a parallel block, and the final norm) becomes part of the add's kernel: no kernel of its
// own, and of its 2e bytes per element only the normalised output's write (e) is left, since the
// add writes the new residual the norm would have read. MLA's latent norms follow a projection
// and keep their kernels. A rotary embedding applied inside the decode attention kernel costs
// neither a kernel nor a pass over q and k for the decoding sequences.
void fuse_neighbours(std::vector<Op>& ops, const LayerShape& s) {
  for (Op& o : ops) {
    const std::string_view name = o.name;
    const bool fused = s.fused_residual_norm && (name == "norm_attn" || name == "final_norm");
    if (fused || ((s.fused_residual_norm || s.fused_attention_residual_norm) && name == "norm_mlp")) {
      o.bytes *= 0.5;
      o.kernels = 0.0;
    }
    if (s.rope_in_attention && o.role == OpRole::rope) {
      // Decoding sequences only: TensorRT-LLM's context phase still runs one kernel that applies
      // the rotation and writes the KV cache (invokeApplyBiasRopeUpdateKVCache) before its fused
      // multi-head attention, so prompt tokens keep their pass and the kernel.
      double prompt = 0.0;
      for (const SeqGroup& g : s.groups())
        if (g.new_tokens > 1) prompt += static_cast<double>(g.sequences * g.new_tokens);
      const double share = prompt / static_cast<double>(std::max<std::int64_t>(1, s.tokens()));
      o.bytes *= share;
      o.flops *= share;
      o.kernels = prompt > 0.0 ? 1.0 : 0.0;
    }
  }
}

// Under an 8- or 4-bit training format Transformer Engine's linear layers keep the quantised copy of
// their input for the weight gradient, not the 16-bit one (transformer_engine/pytorch/module/
// linear.py: the quantised input is saved with column-wise usage only, "Discard row-wise data since
// it is not needed in backward pass"; row-wise where sequence parallelism re-gathers it, still
// quantised), so a projection's saved input takes the format's bytes, block scales included. The
// router and the output layer run outside the quantised autocast in Megatron-Core and keep 16
// bits; the attention core's Q, K, V and the norms' inputs are not GEMM inputs.
void quantise_saved_inputs(std::vector<Op>& ops, const LayerShape& s) {
  if (!(s.gemm_saved_bytes > 0) || s.gemm_saved_bytes == s.saved_bytes) return;
  const double f = s.gemm_saved_bytes / s.saved_bytes;
  for (Op& o : ops)
    if (o.kind == OpKind::matmul && o.weight && o.role != OpRole::router && o.role != OpRole::lm_head) {
      o.saved = SavedBytes{o.saved.none * f, o.saved.selective * f, o.saved.full * f};
      // What such a projection keeps is its own quantised copy, not the 16-bit output of the module
      // before it: discarding that output (layernorm, moe_act) frees none of it.
      o.dropped = 0.0;
    }
}

// torchtitan's op-level selective checkpointing (RecomputeModule::alternate_matmuls, graph.h): every
// element-wise operator of the layer runs again, and of the matmuls the second, fourth and sixth in
// the Llama code's order (wq, wk, wv, wo, w1, w3, w2): the key projection (kv / (q + 2 kv) of the
// fused QKV projection), the attention output projection and w3, the up half of the fused gate and
// up projection; without a gate (wq, wk, wv, wo, up, down) the down projection instead of the up.
// Dense layers with their own query, key and value projections: an MLA layer's and the routed
// experts' matmuls are not marked (their point-wise operators are).
void mark_alternate_matmuls(std::vector<Op>& ops, const ModelSpec& m) {
  const bool gated = m.ffn_type == FfnType::swiglu;
  for (Op& op : ops) {
    if (op.kind == OpKind::elementwise) op.rerun |= module_bit(RecomputeModule::alternate_matmuls);
    if (op.kind != OpKind::matmul || op.expert) continue;
    if (op.role == OpRole::qkv && m.attention != AttentionType::mla)
      op.alternate_share = d(m.kv_heads) / d(m.heads + 2 * m.kv_heads);
    else if (op.role == OpRole::attn_out && m.attention != AttentionType::mla)
      op.alternate_share = 1.0;
    else if (op.role == OpRole::ffn_up)
      op.alternate_share = gated ? 0.5 : 0.0;
    else if (op.role == OpRole::ffn_down)
      op.alternate_share = gated ? 0.0 : 1.0;
  }
}

// The last pass over a layer's (or the head's) operators: projection inputs saved at the quantised
// width, then the element-wise operators as the stack runs them: chains of primitives (unfused), or,
// in inference, merged into their neighbours where the runtime does so.
void finish_elementwise(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s) {
  quantise_saved_inputs(ops, s);
  if (s.unfused_elementwise != 0)
    unfuse_elementwise(ops, m, s);
  else if (!s.loss && (s.fused_residual_norm || s.fused_attention_residual_norm || s.rope_in_attention))
    fuse_neighbours(ops, s);
}

// The FFN branch of a parallel block (BlockKind::parallel), after the attention branch: it reads
// the same normalised (and, with SP, gathered) input, whose saved copy the QKV projection already
// keeps, so there is no second norm and no second all-gather. A dense FFN's row-parallel down
// projection accumulates into the attention projection's output (a GEMM with beta = 1), both
// being partial sums over tp, and the sum is reduced once (GPT-NeoX's parallel residual defers
// the reduction to the sum; PaLM, Chowdhery et al. 2022, Sec. 2 "Parallel Layers": the two
// branches' input matmuls can be fused): one exchange per layer in place of two. A
// mixture-of-experts FFN routes the sequence-parallel shard through its own exchanges, so the
// attention branch is reduced alone first and the residual add reads both branches. The residual
// add reads x and the branch sum and writes y; with dropout each branch has its own 1-byte mask.
template <class Reduce>
void parallel_block_ffn(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, bool moe_layer,
                        const Reduce& reduce_tp) {
  const Widths w = widths(m, s);
  const double masks = m.dropout ? 2.0 : 0.0;
  double reads = 2.0;
  if (moe_layer) {
    reduce_tp("sp_reducescatter_attn", "tp_allreduce_attn");
    add_moe_ffn(ops, m, s, 0.0);
    reads = 3.0;
  } else {
    add_dense_ffn(ops, m, s, "mlp_up", "mlp_act", "mlp_down", m.ffn_hidden, 0.0, RecomputeModule::mlp, false,
                  false);
    reduce_tp("sp_reducescatter_block", "tp_allreduce_block");
  }
  Op& res = elementwise(ops, "residual_block", OpRole::residual, ((reads + 1.0) * w.e + masks) * w.Tn * w.h,
                        reads * w.Tn * w.h);
  res.saved = kept(masks * w.Tt * w.h / w.sp_div);
}

void layer_forward_ops(const ModelSpec& m, const LayerShape& s, std::size_t kind, std::vector<Op>& ops) {
  ops.clear();
  ops.reserve(max_layer_ops(s));  // references below stay valid
  const bool moe_layer = kind_is_moe(kind) && m.moe.has_value();
  const bool windowed = kind_is_local(kind) && m.window > 0;
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
  const std::int64_t tokens = s.tokens();
  // Whole-layer widths (saved activations divide them by tp, Korthikanti et al. Table 2).
  const double q = d(m.heads * m.head_dim);
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
  // Full recompute keeps only the layer's input (Korthikanti et al. Sec. 5: 2sbh per layer), at
  // the layer's first norm.
  const SavedBytes layer_input{norm_input, norm_input, Tt * es * h / sp_div};
  const auto reduce_tp = [&](const char* sp_name, const char* name) {
    if (tp_comm)
      comm(ops, s.sequence_parallel ? sp_name : name, CommGroup::tp,
           s.sequence_parallel ? Collective::reduce_scatter : Collective::all_reduce, act_msg);
  };
  // A layer without a mixer (an FFN alone in a layer_pattern) starts at its FFN's norm.
  if (kind_has_mixer(kind)) {
    Op& norm_attn = elementwise(ops, "norm_attn", OpRole::norm, norm_bytes, 5.0 * Tn * h);
    norm_attn.params = norm_params;
    norm_attn.saved = layer_input;
    norm_attn.rerun |= module_bit(RecomputeModule::layernorm);
    if (tp_comm && s.sequence_parallel)
      comm(ops, "sp_allgather_attn", CommGroup::tp, Collective::all_gather, act_msg);
    if (linear_kind(m, kind)) {
      add_linear_attention(ops, m, s, norm_input);
    } else if (m.attention == AttentionType::mla) {
      add_mla_attention(ops, m, s, windowed, norm_input);
    } else {
      // The output gate's columns sit beside the queries' (transformers' Qwen3NextAttention: q_proj
      // writes heads x head_dim x 2).
      const std::int64_t gates = m.output_gate ? 2 : 1;
      Op& qkv = matmul(ops, "qkv_proj", OpRole::qkv, tokens, gates * q_local + 2 * kvd_local, m.hidden);
      // Column-parallel Q, K, V projections h x (q + 2 kv) (+ biases), split over tp; with more
      // ranks than KV heads each rank holds one whole KV head, replicated (vLLM's and TensorRT-LLM's
      // KV-head replication): h x (q / tp + 2 head_dim) on every rank, as the GEMM computes.
      const double columns = d(gates) * q / td + 2.0 * d(kvd_local);
      qkv.params = h * columns + (m.bias ? columns : 0.0);
      qkv.saved = kept(norm_input);
      drops_output(qkv, RecomputeModule::layernorm, norm_input);
      // Rotary position embedding (Su et al. 2021, RoFormer) on the queries and keys: read and
      // write q and k, ~3 FLOPs per element (two multiplies and an add against cached cos/sin).
      if (m.position == PositionKind::rotary) {
        const double qk = T * d(q_local + kvd_local);
        elementwise(ops, "rope", OpRole::rope, 2.0 * e * qk, 3.0 * qk);
      }

      mha_attention_cores(ops, m, s, windowed);
      // Context parallel: the ring passes this rank's K and V, kv heads x head_dim each a token.
      add_cp_ring_kv(ops, s, 2.0 * d(kv_local) * d(m.head_dim), e);

      if (m.output_gate) {
        // sigmoid(gate) x output: read both, write the product (~5 FLOPs an element); the backward
        // needs the gate and the heads' output.
        const double gated = T * d(q_local);
        elementwise(ops, "attn_gate", OpRole::attention, 3.0 * e * gated, 5.0 * gated).saved =
            kept(2.0 * Tt * es * q / td);
      }
      Op& out = matmul(ops, "attn_out_proj", OpRole::attn_out, tokens, m.hidden, q_local);
      out.params = (q * h + (m.bias ? h : 0.0)) / td;  // row-parallel q x h (+ bias)
      out.saved = kept(Tt * es * q / td);
    }
    if (m.block == BlockKind::parallel) {
      parallel_block_ffn(ops, m, s, moe_layer, reduce_tp);
      finish_elementwise(ops, m, s);
      mark_alternate_matmuls(ops, m);
      return;
    }
    reduce_tp("sp_reducescatter_attn", "tp_allreduce_attn");
    Op& res_attn = elementwise(ops, "residual_attn", OpRole::residual, residual_bytes, 2.0 * Tn * h);
    res_attn.saved = kept(m.dropout ? Tt * h / sp_div : 0.0);  // the 1-byte dropout mask
  }
  if (kind_has_ffn(kind)) {
    Op& norm_mlp = elementwise(ops, "norm_mlp", OpRole::norm, norm_bytes, 5.0 * Tn * h);
    norm_mlp.params = norm_params;
    norm_mlp.saved = kind_has_mixer(kind) ? kept(norm_input) : layer_input;
    norm_mlp.rerun |= module_bit(RecomputeModule::layernorm);
    if (moe_layer)
      add_moe_ffn(ops, m, s, norm_input);
    else
      add_dense_ffn(ops, m, s, "mlp_up", "mlp_act", "mlp_down", m.ffn_hidden, norm_input,
                    RecomputeModule::mlp);
    Op& res_mlp = elementwise(ops, "residual_mlp", OpRole::residual, residual_bytes, 2.0 * Tn * h);
    res_mlp.saved = kept(m.dropout ? Tt * h / sp_div : 0.0);
  }
  finish_elementwise(ops, m, s);
  mark_alternate_matmuls(ops, m);
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
  emb.saved = always(mask);
}

namespace {
// The output head over `rows` rows (vocab-parallel over tp, `params` its weights on this stage)
// and, in training, its loss: the fp32 logits kept for the cross-entropy backward (Korthikanti et
// al. Sec. 4.3: 4 s b v / t), then the vocab-parallel cross-entropy, which reads the logits and
// writes and reads back the fp32 softmax (forward and backward together).
void add_output_head(std::vector<Op>& ops, const ModelSpec& m, const LayerShape& s, std::int64_t rows,
                     double params, const char* head_name, const char* loss_name) {
  const double T = d(rows);
  const std::int64_t vocab_local = m.vocab / s.tp;
  Op& head = matmul(ops, head_name, OpRole::lm_head, rows, vocab_local, m.hidden);
  head.params = params;
  if (!s.loss) return;
  head.saved = always(4.0 * T * d(m.vocab) / d(s.tp));
  Op& ce = elementwise(ops, loss_name, OpRole::loss, T * d(vocab_local) * (s.act_bytes + 8.0 + 4.0),
                       5.0 * T * d(vocab_local));
  ce.backward_kernels = 0.0;
}

// Operators of one trained multi-token-prediction module besides its transformer layer (which
// stage_kinds counts on the last stage), DeepSeek-V3 (arXiv 2412.19437 Sec. 2.2, Eq. 21-23): the
// embedding of the tokens one position further, RMSNorm of it and of the previous depth's hidden
// state, their concatenation projected from 2h to h (M_k), and after the layer the output head
// the main model shares, with its own loss over every token. Megatron-Core's MTP block: the
// projection column-parallel over tp (its output gather not charged here), and the last stage
// holds the input embedding (GPTModel builds it where mtp_process), a copy of its own where the
// output head is untied and the embedding lives on the first stage.
constexpr std::size_t kMtpHeadOps = 5;
void mtp_module_ops(const ModelSpec& m, const LayerShape& s, double T, std::vector<Op>& ops) {
  const double h = d(m.hidden), e = s.act_bytes;
  Op& emb = elementwise(ops, "mtp_embedding", OpRole::embedding, 2.0 * e * T * h, 0.0);
  if (s.pp > 1 && !m.tied_embeddings) emb.params = d(m.vocab) * h / d(s.tp);
  emb.backward_kernels = 0.0;
  Op& norms = elementwise(ops, "mtp_norms", OpRole::norm, 2.0 * 2.0 * e * T * h, 2.0 * 5.0 * T * h);
  norms.params = 2.0 * (m.norm == NormType::layernorm ? 2.0 : 1.0) * h;
  norms.saved = always(2.0 * e * T * h);
  Op& proj = matmul(ops, "mtp_proj", OpRole::ffn_down, s.tokens(), m.hidden / s.tp, 2 * m.hidden);
  proj.params = 2.0 * h * h / d(s.tp);
  proj.saved = always(2.0 * e * T * h);
  // The shared output head: no parameters of its own.
  add_output_head(ops, m, s, s.tokens(), 0.0, "mtp_lm_head", "mtp_cross_entropy");
}
}  // namespace

void head_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& ops) {
  ops.clear();
  // References below stay valid.
  const std::int64_t mtp = s.loss ? m.mtp_trained : 0;
  ops.reserve(3 + kMtpHeadOps * static_cast<std::size_t>(std::max<std::int64_t>(0, mtp)));
  const double h = d(m.hidden);
  // Training computes logits for every token; inference for the last position of each sequence.
  const std::int64_t rows = s.loss ? s.tokens() : s.sequences();
  const double T = d(rows);
  // Untied: the LM head. Tied with pp > 1: Megatron keeps a copy of the embedding on the last
  // stage. Either way vocab-parallel over tp.
  add_output_head(ops, m, s, rows, !m.tied_embeddings || s.pp > 1 ? d(m.vocab) * h / d(s.tp) : 0.0, "lm_head",
                  "cross_entropy");
  Op& norm = elementwise(ops, "final_norm", OpRole::final_norm, 2.0 * s.act_bytes * T * h, 5.0 * T * h);
  norm.params = (m.norm == NormType::layernorm ? 2.0 : 1.0) * h;
  // Its traffic is counted once for forward and backward together; an inference step does not
  // time it (one row per sequence).
  norm.backward_kernels = 0.0;
  norm.timed = s.loss;
  for (std::int64_t i = 0; i < mtp; ++i) mtp_module_ops(m, s, T, ops);
  finish_elementwise(ops, m, s);
}

double layer_model_flops(const ModelSpec& m, std::size_t kind, std::int64_t tokens, std::int64_t kv_len) {
  LayerShape s;
  s.group = SeqGroup{1, tokens, kv_len};
  thread_local std::vector<Op> ops;  // storage reused across calls (a search makes many)
  layer_forward_ops(m, s, kind, ops);
  double sum = 0;
  for (const Op& o : ops) sum += o.model_flops;
  return sum;
}

double model_layers_flops(const ModelSpec& m, std::int64_t tokens, std::int64_t kv_len) {
  const KindCounts kinds = model_kinds(m);
  double sum = 0;
  for (std::size_t k = 0; k < kLayerKinds; ++k)
    if (kinds[k] != 0) sum += layer_model_flops(m, k, tokens, kv_len) * kinds[k];
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

double sum_state_bytes(const std::vector<Op>& ops) {
  double sum = 0;
  for (const Op& o : ops) sum += o.state_bytes;
  return sum;
}

double saved_under(const Op& o, Recompute policy, ModuleSet modules) {
  if (policy != Recompute::selective) return o.saved.under(policy);
  if (o.inside & modules) return 0.0;
  const double kept_bytes = (modules & kCoreAttnOnly) ? o.saved.selective : o.saved.none;
  return (o.drops & modules) ? std::max(0.0, kept_bytes - o.dropped) : kept_bytes;
}

double sum_saved(const std::vector<Op>& ops, Recompute policy, ModuleSet modules) {
  double sum = 0;
  for (const Op& o : ops) sum += saved_under(o, policy, modules);
  return sum;
}

double widest_intermediate(const std::vector<Op>& ops) {
  double widest = 0;
  for (const Op& o : ops)
    if (o.role == OpRole::qkv || o.role == OpRole::ffn_up) widest = std::max(widest, d(o.n));
  return widest;
}

}  // namespace optimus
