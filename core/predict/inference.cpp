// Inference latency: prefill is one forward pass over batch x prompt tokens (large GEMMs,
// compute-bound); each decode step runs every layer for one new token per sequence, reading
// all weights and the KV cache so far (GEMVs, memory-bound), with two tensor-parallel
// all-reduces per layer that are latency-bound at small batch (Kundu et al. 2024, Sec. V;
// Pope et al. 2022, "Efficiently Scaling Transformer Inference", Sec. 2-3).
#include <algorithm>
#include <cmath>
#include <string>

#include "cost/collective.h"
#include "cost/roofline.h"
#include "model/graph.h"
#include "predict/predict.h"

namespace optimus {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

struct Phase {
  Seconds compute{}, comm{};
  std::vector<OperatorReport> ops;  // per layer, filled when asked
};

struct InferContext {
  const Scenario& s;
  const DeviceSpec& dev;
  Precision math;
  double weight_bytes;  // per weight element (quantized)
  double act_bytes;
  double kv_bytes;
  GroupPlacement tp_group;
  Seconds launch;  // host launch interval per kernel (0: graph replay)
};

// An eager runtime issues kernels one by one from the host; when a kernel runs shorter than
// the host's issue interval the GPU waits, so the kernel costs the interval (the host-bound
// regime of CPU launch overhead, e.g. PyTorch's "reduce-overhead" rationale and vLLM's
// v0.6 CPU-overhead analysis; the interval is fitted by scripts/fit_launch_interval.py).
OpCost host_bound(OpCost c, Seconds launch) {
  if (launch > c.time) {
    c.time = launch;
    c.bound = Bound::host;
  }
  return c;
}

OperatorReport report(const char* name, const char* phase, const OpCost& c, double count) {
  OperatorReport r;
  r.name = name;
  r.phase = phase;
  r.flops = c.flops.value;
  r.bytes = c.hbm_bytes.value;
  r.intensity = r.bytes > 0 ? r.flops / r.bytes : 0.0;
  r.time = c.time;
  r.achieved_flops_per_s = c.time.value > 0 ? r.flops / c.time.value : 0.0;
  r.bound = c.bound;
  r.count = count;
  return r;
}

// Attention over the KV cache: QK^T and PV for `tokens` new queries per sequence against
// `kv_len` keys. The cache is read once per layer (all query heads of a KV group share it:
// GQA/MQA read kv_heads, not heads); fused kernels never write the score matrix.
OpCost attention_cost(const InferContext& c, const ModelSpec& m, std::int64_t batch, std::int64_t tokens,
                      std::int64_t kv_len, bool causal) {
  const std::int64_t t = c.s.parallel.tp;
  const double heads_local = d(m.heads / t);
  const double kv_local = d(std::max<std::int64_t>(1, m.kv_heads / t));
  const double frac = causal && tokens > 1 ? 0.5 : 1.0;
  OpCost r;
  r.flops = Flops(4.0 * d(batch) * heads_local * d(tokens) * d(kv_len) * d(m.head_dim) * frac);
  r.hbm_bytes = Bytes(d(batch) * (2.0 * d(kv_len) * kv_local * d(m.head_dim) * c.kv_bytes +
                                  2.0 * d(tokens) * heads_local * d(m.head_dim) * c.act_bytes));
  if (tokens > 1) {
    // Prefill: the two matmuls per head dominate; time them with the tile model.
    const Precision p = c.math == Precision::fp8 ? Precision::bf16 : c.math;
    const auto kv_eff = std::max<std::int64_t>(1, std::llround(d(kv_len) * frac));
    const std::int64_t bh = batch * (m.heads / t);
    const OpCost qk =
        matmul_cost(c.dev, {tokens, kv_eff, m.head_dim, bh}, p, c.act_bytes, c.act_bytes, c.act_bytes);
    const OpCost pv =
        matmul_cost(c.dev, {tokens, m.head_dim, kv_eff, bh}, p, c.act_bytes, c.act_bytes, c.act_bytes);
    r.compute_time = qk.compute_time + pv.compute_time;
    // Exponentials of the visited scores on the special-function units (FlashAttention-3 Sec. 3.1).
    if (c.dev.exp_rate > 0) r.compute_time += Seconds(d(bh) * d(tokens) * d(kv_eff) / c.dev.exp_rate);
  } else {
    const MathRate mr = math_rate(c.dev, Precision::fp16);
    r.compute_time = r.flops / FlopRate(mr.rate.value * c.dev.matmul_efficiency);
  }
  r.memory_time = r.hbm_bytes / Bandwidth(c.dev.hbm_bandwidth.value * c.dev.memory_efficiency);
  const Seconds roof = max(r.compute_time, r.memory_time);
  r.bound = roof == r.compute_time ? Bound::compute : Bound::memory;
  r.time = roof + c.dev.kernel_overhead;
  return r;
}

// One forward pass of every layer on the critical path (all pipeline stages in sequence)
// for `tokens` new tokens per sequence with `kv_len` context.
Phase forward_pass(const InferContext& c, std::int64_t batch, std::int64_t tokens, std::int64_t kv_len,
                   const char* phase_name, bool keep_ops) {
  const auto& m = c.s.model;
  const auto& p = c.s.parallel;
  const auto& sys = c.s.system;
  LayerShape shape;
  shape.batch = batch;
  shape.tokens = tokens;
  shape.kv_len = kv_len;
  shape.tp = p.tp;
  shape.sequence_parallel = false;
  shape.causal = tokens > 1;
  shape.attention = AttentionKernel::flash;
  shape.act_bytes = c.act_bytes;
  const std::vector<Op> ops = layer_forward_ops(m, shape);
  Phase ph;
  const double layers = d(m.layers);
  for (const Op& op : ops) {
    OpCost cost;
    switch (op.kind) {
      case OpKind::matmul:
        cost = matmul_cost(c.dev, {op.m, op.n, op.k, op.batch}, c.math, c.act_bytes, c.weight_bytes,
                           c.act_bytes);
        break;
      case OpKind::attention:
        cost = attention_cost(c, m, batch, tokens, kv_len, shape.causal);
        break;
      case OpKind::elementwise:
        cost = elementwise_cost(c.dev, Bytes(op.bytes), Flops(op.flops));
        break;
      case OpKind::comm:
        ph.comm += collective_time(Collective::all_reduce, Bytes(op.comm_bytes), c.tp_group, sys) * layers;
        continue;
    }
    cost = host_bound(cost, c.launch);
    ph.compute += cost.time * layers;
    if (keep_ops) ph.ops.push_back(report(op.name, phase_name, cost, layers));
  }
  // LM head on the last position of each sequence (vocab-parallel, then an all-gather of the
  // logits' argmax/top-k is negligible), final norm and the embedding lookup.
  const OpCost head = host_bound(matmul_cost(c.dev, {batch, m.vocab / p.tp, m.hidden, 1}, c.math, c.act_bytes,
                                             std::max(2.0, c.weight_bytes), c.act_bytes),
                                 c.launch);
  const OpCost emb = host_bound(
      elementwise_cost(c.dev, Bytes(2.0 * c.act_bytes * d(batch * tokens) * d(m.hidden)), Flops(0)),
      c.launch);
  ph.compute += head.time + emb.time;
  if (keep_ops) ph.ops.push_back(report("lm_head", phase_name, head, 1));
  // Pipeline stages hand the activations on: pp-1 hops.
  if (p.pp > 1) {
    const GroupPlacement pair = place_group(2, p.tp, sys.scale_up.domain_size);
    ph.comm +=
        collective_time(Collective::p2p, Bytes(c.act_bytes * d(batch * tokens) * d(m.hidden)), pair, sys) *
        (d(p.pp) - 1.0);
  }
  return ph;
}

}  // namespace

InferencePrediction predict_inference(const Scenario& s, std::vector<Warning>& warnings) {
  const auto& w = *s.inference;
  const auto& dev = s.system.device;
  InferencePrediction out;
  const MathRate rate = math_rate(dev, w.precision);
  out.math_precision = rate.used;
  if (rate.fallback)
    warnings.push_back({"device.precision_fallback",
                        std::string(to_string(w.precision)) + " has no native rate on " + dev.name +
                            "; weights are read at " + std::string(to_string(w.precision)) +
                            " size and the math runs at the " + std::string(to_string(rate.used)) + " rate"});
  InferContext c{s,
                 dev,
                 w.precision,
                 bytes_per_element(w.precision),
                 2.0,
                 bytes_per_element(w.kv_precision),
                 place_group(s.parallel.tp, 1, s.system.scale_up.domain_size),
                 w.cuda_graphs.value_or(false) ? Seconds(0) : s.system.software.launch_interval};
  out.launch_interval = c.launch;
  if (w.precision == Precision::fp32) c.act_bytes = 4.0;
  if (c.tp_group.crosses_scale_out())
    warnings.push_back(
        {"parallel.tp_crosses_scale_out",
         "tp spans more than one scale-up domain; its all-reduces run on the scale-out network"});

  const Phase prefill = forward_pass(c, w.batch, w.prompt_len, w.prompt_len, "prefill", true);
  out.prefill_compute = prefill.compute;
  out.prefill_comm = prefill.comm;
  out.ttft = prefill.compute + prefill.comm;

  // Decode steps see contexts prompt_len+1 ... prompt_len+output_len-1 (the step producing
  // token i attends to the prompt and the i-1 tokens before it). Time is affine in the
  // context between roofline switches, so a trapezoid over up to 32 samples is exact for
  // short generations and within a fraction of a percent otherwise.
  const std::int64_t steps = w.output_len - 1;
  if (steps > 0) {
    const std::int64_t first = w.prompt_len + 1;
    const std::int64_t last = w.prompt_len + steps;
    const std::int64_t samples = std::min<std::int64_t>(steps, 32);
    Seconds sum_compute{}, sum_comm{};
    double weight_sum = 0;
    for (std::int64_t i = 0; i < samples; ++i) {
      const std::int64_t ctx = samples == 1 ? first : first + (last - first) * i / (samples - 1);
      const Phase ph = forward_pass(c, w.batch, 1, ctx, "decode", false);
      const double wgt = (samples > 1 && (i == 0 || i == samples - 1)) ? 0.5 : 1.0;
      sum_compute += ph.compute * wgt;
      sum_comm += ph.comm * wgt;
      weight_sum += wgt;
    }
    out.decode_compute = sum_compute / weight_sum;
    out.decode_comm = sum_comm / weight_sum;
    out.tpot = out.decode_compute + out.decode_comm;
    const Phase mid = forward_pass(c, w.batch, 1, (first + last) / 2, "decode", true);
    out.operators = prefill.ops;
    out.operators.insert(out.operators.end(), mid.ops.begin(), mid.ops.end());
  } else {
    out.operators = prefill.ops;
  }
  out.e2e_latency = out.ttft + out.tpot * d(steps);
  out.throughput_tokens_per_s = d(w.batch) * d(w.output_len) / out.e2e_latency.value;

  // Largest batch whose weights, KV cache and working activations fit on one device.
  const InferenceMemory mem = inference_memory(s);
  const double per_seq = mem.kv_per_sequence.value + mem.activation_per_sequence.value;
  const double room = dev.hbm_capacity.value - mem.bytes.weights.value;
  out.max_batch = room > 0 && per_seq > 0 ? static_cast<std::int64_t>(std::floor(room / per_seq)) : 0;
  return out;
}

}  // namespace optimus
