#include "cost/op_timer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/math.h"

namespace optimus {

namespace {

// matmul_cost through the context's memo when it has one.
OpCost roofline_matmul(const OpContext& c, const MatmulShape& s, Precision math, double in_bytes,
                       double weight_bytes, double out_bytes, double rate_share) {
  if (c.gemm_memo) return c.gemm_memo->cost(*c.dev, s, math, in_bytes, weight_bytes, out_bytes, rate_share);
  return matmul_cost(*c.dev, s, math, in_bytes, weight_bytes, out_bytes, rate_share);
}

OpCost gemm(const OpContext& c, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
            double b_bytes) {
  OpCost r = roofline_matmul(c, MatmulShape{m, n, k, batch}, c.math, c.in_bytes, b_bytes, c.act_bytes,
                             c.matmul_rate_share);
  // Only the GEMMs with fp8 weights (the 16-bit LM head is not block-scaled).
  if (c.cutlass_block_fp8 && b_bytes <= 1.0) {
    r.time = r.time * cutlass_block_fp8_factor(m);
    r.efficiency = r.flops.value / (r.time.value * math_rate(*c.dev, c.math).rate.value);
  }
  // Only the GEMMs with 4-bit weights (the 16-bit LM head is not quantised).
  if (c.fp4_weight_dequant && b_bytes < 1.0)
    r = with_fp4_weight_dequant(*c.dev, MatmulShape{m, n, k, batch}, c.math, c.matmul_rate_share, r);
  return r;
}

// Attention score and context matmuls run in 16-bit even in fp8 training and inference
// (Transformer Engine and the inference runtimes keep attention in bf16).
Precision attention_precision(Precision math) { return quantised_training(math) ? Precision::bf16 : math; }

std::int64_t visited_keys(const Op& op) {
  return std::max<std::int64_t>(1, std::llround(d(op.n) * op.causal_fraction));
}

// Unfused prompt attention (inference, SoftwareDefaults::unfused_context_attention): three kernels
// that keep the score matrix in HBM. A batched QK^T GEMM writes the b x h x m x n scores, a masked
// softmax reads and writes them, and a batched PV GEMM reads them back, each a kernel of its own
// (FasterTransformer v4-v5.0's GPT context attention, src/fastertransformer/layers/
// attention_layers/GptContextAttentionLayer.cc @a44c381: stridedBatchedGemm, invokeMaskedSoftMax,
// stridedBatchedGemm; Hugging Face's eager attention: matmul, softmax, matmul). The mask is applied
// to the finished product, so the whole square is computed: no causal block is skipped.
// Around the three, the same layer runs three layout kernels, each a pass over the heads' rows:
// one adds the QKV bias and splits the fused projection into per-head Q, K and V
// (invokeAddFusedQKVBiasTranspose: reads and writes Q, K and V), one copies K and V into the
// KV cache's layout (invokeTranspose4dBatchMajor: reads and writes K and V), and one merges the
// heads of the attention output back into rows for the output projection (invokeTransposeQKV:
// reads and writes the output). A fused prompt-attention kernel reads the fused projection and
// writes the cache itself.
OpCost unfused_prompt_attention(const OpContext& c, const Op& op) {
  const Precision p = attention_precision(c.math);
  const double e = c.act_bytes;
  const OpCost qk = host_bound(matmul_cost(*c.dev, {op.m, op.n, op.k, op.batch}, p, e, e, e), c.launch);
  const OpCost pv = host_bound(matmul_cost(*c.dev, {op.m, op.k, op.n, op.batch}, p, e, e, e), c.launch);
  const double scores = d(op.batch) * d(op.m) * d(op.n);
  // Softmax: read and write each score (max, exponential, sum, scale: about 5 FLOPs each).
  const OpCost softmax =
      host_bound(elementwise_cost(*c.dev, Bytes(2.0 * scores * e), Flops(5.0 * scores)), c.launch);
  // The layout kernels: q elements of Q (and of the output), kv of K (and of V) per layer.
  const double q = d(op.batch) * d(op.m) * d(op.k);
  const double kv = op.kv_heads > 0 ? d(op.sequences) * d(op.kv_heads) * d(op.m) * d(op.k) : q;
  const OpCost split =
      host_bound(elementwise_cost(*c.dev, Bytes(2.0 * e * (q + 2.0 * kv)), Flops(q + 2.0 * kv)), c.launch);
  const OpCost cache = host_bound(elementwise_cost(*c.dev, Bytes(2.0 * e * 2.0 * kv), Flops(0)), c.launch);
  const OpCost merge = host_bound(elementwise_cost(*c.dev, Bytes(2.0 * e * q), Flops(0)), c.launch);
  OpCost r;
  r.flops = Flops(4.0 * d(op.batch) * d(op.m) * d(op.n) * d(op.k)) + softmax.flops + split.flops;
  r.hbm_bytes =
      qk.hbm_bytes + softmax.hbm_bytes + pv.hbm_bytes + split.hbm_bytes + cache.hbm_bytes + merge.hbm_bytes;
  r.compute_time = qk.compute_time + softmax.compute_time + pv.compute_time + split.compute_time;
  r.memory_time = qk.memory_time + softmax.memory_time + pv.memory_time + split.memory_time +
                  cache.memory_time + merge.memory_time;
  r.time = qk.time + softmax.time + pv.time + split.time + cache.time + merge.time;
  r.bound = r.compute_time > r.memory_time ? Bound::compute : Bound::memory;
  return r;
}

// Kernels of the chunked forward: chunk_local_cumsum, chunk_scaled_dot_kkt_fwd, solve_tril,
// recompute_w_u_fwd, chunk_gated_delta_rule_fwd_h and chunk_fwd_o (fla-org/flash-linear-attention,
// fla/ops/gated_delta_rule/chunk.py chunk_gated_delta_rule_fwd; vLLM's copy in
// vllm/model_executor/layers/fla/ops runs the same six).
constexpr double kChunkedKernels = 6;
// The block of the value dimension one thread block of the state kernel owns (BV, 64 at a head
// dimension of 128: chunk_delta_h.py's configurations).
constexpr std::int64_t kStateBlock = 64;

// Linear attention's recurrence (Op::recurrent, model/graph.cpp add_linear_attention) over
// `flops`. One token per sequence (decoding): a fused recurrent kernel reads each head's state,
// updates it and writes it back, beside q, k, v and o, on the vector units (FLA's
// fused_recurrent_gated_delta_rule; vLLM and SGLang call it for decode). Prompts and training:
// the chunked kernels' products on the matrix units, each a chunk x value_head_dim x
// key_head_dim product at the tile model's rate, against the traffic of q, k, v and o, of the
// intermediates w, u and the new values (written, then read back: the six kernels pass them
// through HBM), of one state per chunk (written and read) and of the sequences' states (read and
// written once). The states are also a chain: the state kernel gives each (sequence, head, value
// block) one thread block that walks the chunks in order, loading a chunk's k, w and u and
// writing its state and new values before the next. With fewer chains than compute units the
// others idle, and a chain moves its bytes at one unit's share of the HBM bandwidth, in waves of
// compute_units chains. Checked against vLLM PR #38981's B200 timings of the whole forward
// (docs/method.md, linear attention).
OpCost recurrent_core(const OpContext& c, const Op& op, double flops) {
  const double e = c.act_bytes, dk = d(op.k), dv = d(op.v_dim);
  const double token_heads = d(op.batch) * d(op.m);
  if (op.m <= 1)
    return elementwise_cost(*c.dev, Bytes(2.0 * op.bytes + token_heads * (2.0 * dk + 2.0 * dv) * e),
                            Flops(flops));
  const std::int64_t chunk = std::min(kLinearChunk, op.m);
  const std::int64_t chunks = (op.m + chunk - 1) / chunk;
  OpCost r;
  r.flops = Flops(flops);
  r.hbm_bytes = Bytes(2.0 * op.bytes + token_heads * e * (2.0 * dk + 2.0 * dv + 2.0 * (dk + 2.0 * dv)) +
                      2.0 * d(op.batch) * d(chunks) * dk * dv * e);
  const OpCost tile = matmul_cost(*c.dev, {chunk, op.v_dim, op.k, op.batch * chunks},
                                  attention_precision(c.math), e, e, e, c.matmul_rate_share);
  r.compute_time = tile.compute_time * (flops / std::max(1.0, tile.flops.value));
  r.memory_time = r.hbm_bytes / Bandwidth(c.dev->streaming_rate());
  const std::int64_t bv = std::min(kStateBlock, op.v_dim);
  const double chains = d(op.batch) * d((op.v_dim + bv - 1) / bv);
  const double units = d(std::max<std::int64_t>(1, c.dev->compute_units));
  const double step = e * (2.0 * d(chunk) * dk + 2.0 * d(chunk) * d(bv) + dk * d(bv));
  const Seconds chain(std::ceil(chains / units) * d(chunks) * step * units / c.dev->streaming_rate());
  r.memory_time = max(r.memory_time, chain);
  const Seconds roof = max(r.compute_time, r.memory_time);
  r.bound = roof == r.compute_time ? Bound::compute : roof == chain ? Bound::latency : Bound::memory;
  r.time = roof + c.dev->kernel_overhead * kChunkedKernels;
  return host_bound(r, c.launch * kChunkedKernels);
}

// Attention over the KV cache in inference: QK^T and PV for `m` new queries per sequence against
// `n` keys. The cache is read once per layer (all query heads of a KV group share it: GQA/MQA
// read kv_heads, not heads); fused kernels never write the score matrix (Pope et al. 2022,
// "Efficiently Scaling Transformer Inference", Sec. 2-3).
OpCost inference_attention(const OpContext& c, const Op& op) {
  if (op.recurrent) return recurrent_core(c, op, op.model_flops);
  if (op.m > 1 && c.unfused_prompt_attention) return unfused_prompt_attention(c, op);
  const double frac = op.causal_fraction;
  const double heads_local = d(op.batch) / d(std::max<std::int64_t>(1, op.sequences));
  OpCost r;
  // The indexer computes QK^T alone (2 FLOPs per multiply-add, one product) and writes its logits.
  const double products = op.index_scores ? 1.0 : 2.0;
  r.flops = Flops(2.0 * products * d(op.batch) * d(op.m) * d(op.n) * d(op.k) * frac);
  // A decode kernel that reads the cache once per query head (SoftwareDefaults::
  // decode_kv_per_query_head) reads a GQA/MQA group's keys and values heads / kv_heads times.
  const double kv_reads =
      c.kv_per_query_head && op.m == 1 && op.kv_heads > 0 ? std::max(1.0, heads_local / d(op.kv_heads)) : 1.0;
  r.hbm_bytes = Bytes(d(op.sequences) * (d(op.n) * op.kv_bytes * kv_reads +
                                         2.0 * d(op.m) * heads_local * d(op.k) * c.act_bytes) +
                      (op.index_scores ? op.bytes : 0.0));
  if (op.m > 1) {
    // Prefill: the two matmuls per head dominate; time them with the tile model. A fused kernel
    // (FlashAttention 2 and 3, cuDNN's, TensorRT-LLM's fMHA) gives each thread block a tile of
    // queries and loops over the visited keys, issuing QK^T and PV for every key block from one
    // software pipeline (Dao 2023, FlashAttention-2, Algorithm 1): the pipeline fills once per
    // query tile, over a reduction as long as the keys, not once per 128-wide block of the head
    // dimension. Both products then take the shape of PV, m x head_dim over the visited keys, as
    // QK^T has the same multiply-adds. Timing QK^T as a GEMM of depth head_dim charged a pipeline
    // fill per head-dimension block (tile_overhead_k against a depth of 128: twice the work):
    // prompt attention on one H200 at 4K tokens (tests/validation/data/attention_h200.csv) came
    // out 1.54 ms against cuDNN's 0.94 ms. Each pass streams one of K and V from L2 per query
    // tile, the tile model's L2 roof for that shape, so a pass takes the longer of the two.
    const Precision p =
        c.fp8_prompt_attention || op.index_scores ? Precision::fp8 : attention_precision(c.math);
    const std::int64_t kv_eff = visited_keys(op);
    const OpCost pv =
        matmul_cost(*c.dev, {op.m, op.k, kv_eff, op.batch}, p, c.act_bytes, c.act_bytes, c.act_bytes);
    r.compute_time = products * max(pv.compute_time, pv.l2_time);
    // Exponentials of the visited scores on the special-function units (FlashAttention-3 Sec. 3.1);
    // the indexer takes a ReLU instead.
    if (c.dev->exp_rate > 0 && !op.index_scores)
      r.compute_time += Seconds(d(op.batch) * d(op.m) * d(kv_eff) / c.dev->exp_rate);
  } else {
    const MathRate mr = math_rate(*c.dev, op.index_scores ? Precision::fp8 : Precision::fp16);
    r.compute_time = r.flops / FlopRate(mr.rate.value * c.dev->matmul_efficiency);
  }
  r.memory_time = r.hbm_bytes / Bandwidth(c.dev->streaming_rate());
  const Seconds roof = max(r.compute_time, r.memory_time);
  r.bound = roof == r.compute_time ? Bound::compute : Bound::memory;
  r.time = roof + c.dev->kernel_overhead;
  return r;
}

}  // namespace

OpCost host_bound(OpCost c, Seconds launch) {
  if (launch > c.time) {
    c.time = launch;
    c.bound = Bound::host;
  }
  return c;
}

MatmulCosts matmul_costs(const OpContext& c, const Op& op, bool backward) {
  if (c.dense_16bit && op.weight && !op.expert) {
    // A 16-bit matrix beside quantised experts: 16-bit math and weights, no quantised kernel.
    OpContext dense = c;
    dense.dense_16bit = false;
    dense.math = Precision::bf16;
    dense.weight_bytes = dense.head_weight_bytes = 2.0;
    dense.cutlass_block_fp8 = dense.fp4_weight_dequant = false;
    return matmul_costs(dense, op, backward);
  }
  const double w = op.role == OpRole::lm_head ? c.head_weight_bytes : c.weight_bytes;
  MatmulCosts r;
  r.fwd = host_bound(gemm(c, op.m, op.n, op.k, op.batch, w), c.launch);
  if (backward) {
    r.dx = gemm(c, op.m, op.k, op.n, op.batch, w);
    r.dw = gemm(c, op.k, op.n, op.m, op.batch, c.act_bytes);
  }
  return r;
}

TrainingAttention training_attention(const OpContext& c, const Op& op, AttentionKernel kernel) {
  if (op.recurrent) {
    // The backward takes two products for each of the forward's (the gradients of both operands)
    // and first recomputes the chunk states, W S and K^T U (FLA's chunk_gated_delta_rule_bwd runs
    // chunk_gated_delta_rule_fwd_h again): 4 dk dv per token and head more.
    const double recompute = 4.0 * d(op.k) * d(op.v_dim) * d(op.batch) * d(op.m);
    return TrainingAttention{{recurrent_core(c, op, op.model_flops), {}},
                             {recurrent_core(c, op, 2.0 * op.model_flops + recompute), {}}};
  }
  const std::int64_t kv = visited_keys(op);
  const Precision p = op.index_scores ? Precision::fp8 : attention_precision(c.math);
  const OpCost qk = roofline_matmul(c, MatmulShape{op.m, kv, op.k, op.batch}, p, c.act_bytes, c.act_bytes,
                                    c.act_bytes, c.matmul_rate_share);
  const OpCost pv = roofline_matmul(c, MatmulShape{op.m, op.k, kv, op.batch}, p, c.act_bytes, c.act_bytes,
                                    c.act_bytes, c.matmul_rate_share);
  // Forward: QK^T and PV. Backward: dV, dP, dQ, dK, plus the recomputed QK^T in a fused
  // kernel (FlashAttention's backward; five matmuls), four unfused; halves of each shape.
  const auto pass = [&](int count) {
    AttentionCosts r;
    const double pairs = count / 2.0;
    r.matmuls.time = (qk.time + pv.time) * pairs;
    // A fused kernel also exponentiates every visited score on the special-function units,
    // in the forward and again when the backward recomputes P; FlashAttention-2 does not
    // overlap this with the matmuls (FlashAttention-3, Sec. 3.1).
    if (c.dev->exp_rate > 0 && op.causal_fraction < 1.0 && !op.index_scores)
      r.matmuls.time += Seconds(d(op.batch) * d(op.m) * d(kv) / c.dev->exp_rate);
    r.matmuls.flops = (qk.flops + pv.flops) * pairs;
    // The bytes the roofline above charges (reported in training.operators; the time is set).
    r.matmuls.hbm_bytes = (qk.hbm_bytes + pv.hbm_bytes) * pairs;
    // A first-generation fused kernel (FlashAttention v1, Triton) runs its matmuls at about half
    // FlashAttention-2's rate (kFlash1Slowdown, FlashAttention-2 paper).
    if (kernel == AttentionKernel::flash1) r.matmuls.time = r.matmuls.time * kFlash1Slowdown;
    r.matmuls.bound = qk.bound;
    return r;
  };
  // The indexer: QK^T forward; dQ and dK backward (its KL loss's gradient of the logits).
  TrainingAttention r = op.index_scores ? TrainingAttention{pass(1), pass(2)}
                                        : TrainingAttention{pass(2), pass(fused_attention(kernel) ? 5 : 4)};
  if (op.bytes > 0) {
    r.fwd.scores = elementwise_cost(*c.dev, Bytes(op.bytes), Flops(op.flops));
    r.bwd.scores = elementwise_cost(*c.dev, Bytes(op.backward_bytes), Flops(op.backward_flops));
  }
  return r;
}

OpCost forward_cost(const OpContext& c, const Op& op) {
  switch (op.kind) {
    case OpKind::matmul:
      return matmul_costs(c, op, false).fwd;
    case OpKind::attention:
      if (c.workload == Workload::inference) return host_bound(inference_attention(c, op), c.launch);
      return training_attention(c, op, AttentionKernel::flash).fwd.matmuls;
    case OpKind::elementwise: {
      // `kernels` kernels in all: each pays the kernel overhead and, from an eager host, the
      // launch interval.
      OpCost k = elementwise_cost(*c.dev, Bytes(op.bytes), Flops(op.flops));
      k.time = k.time + c.dev->kernel_overhead * (op.kernels - 1.0);
      return host_bound(k, c.launch * op.kernels);
    }
    case OpKind::comm:
      break;
  }
  return OpCost{};
}

std::size_t GemmMemo::Hash::operator()(const Key& key) const {
  // Each field times its own odd constant, summed: independent multiplies (no dependency chain),
  // and FlatCache finalises the sum with fmix64 so every bit reaches the table index.
  // The double's bits (std::memcpy: Emscripten 3.1.6's libc++ has no std::bit_cast).
  const auto u = [](double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
  };
  const std::uint64_t h =
      static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key.dev)) +
      static_cast<std::uint64_t>(key.m) * 0x9e3779b97f4a7c15ull +
      static_cast<std::uint64_t>(key.n) * 0xbf58476d1ce4e5b9ull +
      static_cast<std::uint64_t>(key.k) * 0x94d049bb133111ebull +
      static_cast<std::uint64_t>(key.batch) * 0xff51afd7ed558ccdull +
      u(key.in_bytes) * 0xc4ceb9fe1a85ec53ull + u(key.weight_bytes) * 0x2545f4914f6cdd1dull +
      u(key.out_bytes) * 0x9fb21c651e98df25ull + u(key.rate_share) * 0xd6e8feb86659fd93ull +
      static_cast<std::uint64_t>(key.math) * 0xa0761d6478bd642full;
  return static_cast<std::size_t>(h);
}

OpCost GemmMemo::cost(const DeviceSpec& d, const MatmulShape& s, Precision math, double in_bytes,
                      double weight_bytes, double out_bytes, double rate_share) {
  const Key key{&d, s.m, s.n, s.k, s.batch, in_bytes, weight_bytes, out_bytes, rate_share, math};
  if (const OpCost* hit = entries_.find(key)) return *hit;
  return entries_.insert(key, matmul_cost(d, s, math, in_bytes, weight_bytes, out_bytes, rate_share));
}

std::size_t MatmulCache::KeyHash::operator()(const Key& key) const {
  // FNV-1a style mixing of the fields (any good mix will do: the cache is per run).
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t v :
       {static_cast<std::uint64_t>(key.m), static_cast<std::uint64_t>(key.n),
        static_cast<std::uint64_t>(key.k), static_cast<std::uint64_t>(key.batch),
        static_cast<std::uint64_t>(key.head) + 2u * static_cast<std::uint64_t>(key.dense_16bit)}) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 1099511628211ull;
  }
  return static_cast<std::size_t>(h);
}

const OpCost& MatmulCache::forward(const OpContext& c, const Op& op) {
  const Key key{op.m, op.n, op.k, op.batch, op.role == OpRole::lm_head, c.dense_16bit && !op.expert};
  const auto it = entries_.find(key);
  if (it != entries_.end()) return it->second;
  return entries_.emplace(key, matmul_costs(c, op, false).fwd).first->second;
}

OpCost elementwise_backward(const OpContext& c, const Op& op) {
  return elementwise_cost(*c.dev, Bytes(op.backward_bytes), Flops(op.backward_flops));
}

OpCost quantise_cast(const OpContext& c, double elements) {
  OpCost r = elementwise_cost(*c.dev, Bytes((2.0 + 2.0 * c.in_bytes) * elements), Flops(2.0 * elements));
  // Per-tensor current scaling (SoftwareDefaults::fp8_scaling): a first kernel reads the 16-bit
  // tensor for its amax before the cast can start (Transformer Engine Float8CurrentScaling), so
  // 2 more bytes per element and one more kernel. Delayed scaling records the amax inside the
  // cast; block-scaled formats (mxfp8, nvfp4) compute each block's scale in the same pass.
  if (c.math == Precision::fp8 && c.sys && c.sys->software.fp8_scaling == Fp8Scaling::current) {
    const OpCost amax = elementwise_cost(*c.dev, Bytes(2.0 * elements), Flops(elements));
    r.time += amax.time;
    r.memory_time += amax.memory_time;
    r.compute_time += amax.compute_time;
    r.hbm_bytes += amax.hbm_bytes;
    r.flops += amax.flops;
  }
  return r;
}

Seconds comm_cost(const OpContext& c, const Op& op) {
  if (op.comm == Collective::all_to_all && op.group == CommGroup::ep)
    return moe_all_to_all_time(Bytes(op.comm_bytes), op.copies,
                               c.sys->software.moe_dispatcher == MoeDispatcher::deepep, c.group(op.group),
                               *c.sys);
  const GroupPlacement& g = c.group(op.group);
  const Seconds nccl = collective_time(op.comm, Bytes(op.comm_bytes), g, *c.sys);
  // Small inference all-reduces inside one domain: the runtime's one-shot kernel when faster
  // (SoftwareDefaults::custom_allreduce_max_bytes).
  if (c.workload == Workload::inference && op.comm == Collective::all_reduce && g.size > 1 &&
      !g.crosses_scale_out() && op.comm_bytes <= c.sys->software.custom_allreduce_max_bytes)
    return min(nccl, one_shot_all_reduce_time(Bytes(op.comm_bytes), g, *c.sys));
  return nccl;
}

}  // namespace optimus
