// Inference latency as steps: prefill is one step over batch x prompt tokens (large GEMMs,
// compute-bound); each decode step runs every layer for one new token per sequence, reading
// all weights and the KV cache so far (GEMVs, memory-bound), with two tensor-parallel
// all-reduces per layer that are latency-bound at small batch (Kundu et al. 2024, Sec. V;
// Pope et al. 2022, "Efficiently Scaling Transformer Inference", Sec. 2-3). step_time times any
// mix of prefill and decode sequences on the one operator timer (cost/op_timer.h); the static
// batch below is composed from it.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "base/flat_cache.h"
#include "base/math.h"
#include "cost/op_timer.h"
#include "memory/footprint.h"
#include "model/graph.h"
#include "predict/predict.h"

namespace optimus {

OperatorReport operator_report(const char* name, const char* phase, const OpCost& c, double count) {
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

namespace {

// Weights at the inference precision, activations 16-bit (32-bit for fp32), the KV cache at its
// own precision; an eager runtime pays the host launch interval per kernel (the host-bound
// regime of CPU launch overhead, e.g. PyTorch's "reduce-overhead" rationale and vLLM's v0.6
// CPU-overhead analysis; the interval is fitted by scripts/fit_launch_interval.py).
OpContext inference_context(const Scenario& s) {
  const auto& w = *s.inference;
  OpContext c;
  c.dev = &s.system.device;
  c.sys = &s.system;
  c.workload = Workload::inference;
  c.math = served_math(s);
  c.act_bytes = c.math == Precision::fp32 ? 4.0 : s.system.software.activation_bytes;
  c.in_bytes = c.act_bytes;
  c.weight_bytes = inference_weight_bytes(w);
  // The LM head (the embedding matrix) stays at 16 bits under weight quantisation.
  c.head_weight_bytes = std::max(2.0, c.weight_bytes);
  c.kv_bytes = bytes_per_element(w.kv_precision);
  c.kv_per_query_head = s.system.software.decode_kv_per_query_head;
  // FP8 prompt attention needs an fp8 cache and 8-bit or narrower weights (the quantised path).
  c.fp8_prompt_attention = s.system.software.fp8_context_attention && w.kv_precision == Precision::fp8 &&
                           bytes_per_element(w.precision) <= 1.0 && !integer_weights(w.precision) &&
                           bytes_per_element(c.math) <= 1.0;
  // Block-scaled fp8 on a device whose tensor cores take no block scales: those of the
  // microscaling generation (fp4 units, Blackwell, MI355X) do.
  c.cutlass_block_fp8 = w.fp8_block_scaled && s.system.software.block_fp8_gemm == BlockFp8Gemm::cutlass &&
                        s.system.device.peak_for(Precision::fp4).value <= 0;
  // 4-bit float weights multiplied in 16 bits on a device without fp4 units: converted in the
  // kernel's main loop (OpContext::fp4_weight_dequant).
  c.fp4_weight_dequant = rate_format(w.precision) == Precision::fp4 && bytes_per_element(c.math) >= 2.0 &&
                         s.system.device.peak_for(Precision::fp4).value <= 0;
  c.dense_16bit = dense_weights_16bit(s.model, w.precision);
  const std::int64_t domain = s.system.scale_up.domain_size;
  c.groups[static_cast<std::size_t>(CommGroup::tp)] = place_group(s.parallel.tp, 1, domain);
  c.groups[static_cast<std::size_t>(CommGroup::pp)] = place_group(2, s.parallel.tp, domain);
  // Experts split over the tp ranks: ep groups of stride tp / ep; under attention data parallelism
  // over the replicas, tp x pp devices apart.
  // With tensor-parallel experts under attention data parallelism, an expert's etp ranks are
  // neighbouring replicas and the ep groups stride over them.
  // With tensor-parallel replicas under attention data parallelism, the ep group is the tp ranks of
  // ep / tp neighbouring replicas: stage by stage, tp of every tp x pp devices.
  const std::int64_t etp = inference_expert_tp(s.parallel);
  const bool adp = attention_data_parallel(s.parallel);
  const std::int64_t replica = s.parallel.tp * s.parallel.pp;
  const std::int64_t ep_stride = !adp ? etp : s.parallel.tp == 1 ? replica * etp : s.parallel.pp;
  c.groups[static_cast<std::size_t>(CommGroup::ep)] = place_group(s.parallel.ep, ep_stride, domain);
  c.groups[static_cast<std::size_t>(CommGroup::etp)] = place_group(etp, adp ? replica : 1, domain);
  c.launch = w.cuda_graphs.value_or(false) ? Seconds(0) : s.system.software.launch_interval;
  // A runtime without fused prompt attention writes the score matrix to HBM (op_timer.cpp).
  c.unfused_prompt_attention = s.system.software.unfused_context_attention;
  c.matmul_rate_share = s.system.software.inference_matmul_share;
  return c;
}

LayerShape inference_shape(const Scenario& s, const OpContext& c) {
  LayerShape shape = inference_layer_shape(s, 0);
  shape.act_bytes = c.act_bytes;
  shape.kv_elem_bytes = c.kv_bytes;
  return shape;
}

}  // namespace

// Named rather than anonymous: StepTimer::Impl, declared in the header, holds these two.
namespace step_parts {

// The operator lists of a step, reused from step to step.
struct Scratch {
  std::vector<Op> layer, head, embedding;
  MatmulCache gemms;
  // GEMM costs are remembered by shape where steps repeat shapes (the decode steps of one
  // generation), not under StepTimer's memo of the parts by token and sequence count, where a
  // part that misses brings new shapes.
  bool memo_gemms = true;
  OpCost cost(const OpContext& c, const Op& op) {
    if (op.kind != OpKind::matmul) return forward_cost(c, op);
    return memo_gemms ? gemms.forward(c, op) : forward_cost(c, op);
  }
};

// A step's parts. Its token count alone sets every layer's operators but the attention cores
// (which depend on each group's context), the pipeline hops and the embedding lookup; its
// sequence count alone sets the LM head (the last position of each sequence). `ops`, when given,
// receives a report per timed operator.
struct LayerPart {
  Seconds compute, comm;
};

}  // namespace step_parts

using step_parts::LayerPart;
using step_parts::Scratch;

namespace {

// The parts summed into a step, in the order step() has always summed them.
StepCost compose(const LayerPart& layers, Seconds head, Seconds embedding) {
  StepCost st;
  st.compute = layers.compute + (head + embedding);
  st.comm = layers.comm;
  return st;
}

LayerPart layer_part(const Scenario& s, const OpContext& c, const LayerShape& shape, Scratch& g,
                     bool attention, const char* phase, std::vector<OperatorReport>* ops) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  LayerPart st;
  // Every layer of every kind (dense or MoE FFN, global or windowed attention) runs once.
  const KindCounts kinds = model_kinds(m);
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    const double layers = kinds[k];
    if (layers == 0) continue;
    layer_forward_ops(m, shape, k, g.layer);
    for (const Op& op : g.layer) {
      if (op.kind == OpKind::attention && !attention) continue;
      if (op.kind == OpKind::comm) {
        st.comm += comm_cost(c, op) * layers;
        continue;
      }
      const OpCost cost = g.cost(c, op);
      st.compute += cost.time * layers;
      if (ops) {
        ops->push_back(operator_report(op.name, phase, cost, layers));
        ops->back().layer_kind = layer_kind_name(k, m.linear.heads > 0);
      }
    }
  }
  // Pipeline stages hand the activations on: pp-1 hops.
  if (p.pp > 1)
    st.comm += collective_time(Collective::p2p, Bytes(c.act_bytes * d(shape.tokens()) * d(m.hidden)),
                               c.group(CommGroup::pp), s.system) *
               (d(p.pp) - 1.0);
  return st;
}

// The LM head on the last position of each sequence (vocab-parallel; the all-gather of the
// logits' argmax/top-k is negligible).
Seconds head_time(const Scenario& s, const OpContext& c, const LayerShape& shape, Scratch& g,
                  const char* phase, std::vector<OperatorReport>* ops) {
  head_ops(s.model, shape, g.head);
  Seconds t{};
  for (const Op& op : g.head) {
    if (!op.timed) continue;
    const OpCost cost = g.cost(c, op);
    t += cost.time;
    if (ops) ops->push_back(operator_report(op.name, phase, cost, 1));
  }
  return t;
}

// The embedding lookup.
Seconds embedding_time(const Scenario& s, const OpContext& c, const LayerShape& shape, Scratch& g) {
  embedding_ops(s.model, shape, g.embedding);
  Seconds t{};
  for (const Op& op : g.embedding) t += forward_cost(c, op).time;
  return t;
}

StepCost step(const Scenario& s, const OpContext& c, LayerShape& shape, Scratch& g, bool keep_ops,
              const char* phase) {
  // A step with prompt tokens is causal; a decode step attends to the whole cache.
  const auto groups = shape.groups();
  shape.causal =
      std::any_of(groups.begin(), groups.end(), [](const SeqGroup& x) { return x.new_tokens > 1; });
  std::vector<OperatorReport> ops;
  std::vector<OperatorReport>* kept = keep_ops ? &ops : nullptr;
  const LayerPart layers = layer_part(s, c, shape, g, true, phase, kept);
  const Seconds head = head_time(s, c, shape, g, phase, kept);
  StepCost st = compose(layers, head, embedding_time(s, c, shape, g));
  st.ops = std::move(ops);
  return st;
}

// The attention cores of the one group in `shape` (shape.group), every layer: what a step spends
// on them, summed in the order step() sums them.
Seconds attention_time(const Scenario& s, const OpContext& c, LayerShape& shape, const KindCounts& kinds,
                       std::vector<Op>& ops) {
  shape.mixed = nullptr;
  shape.causal = shape.group.new_tokens > 1;  // as step() sets the mask for one group
  Seconds t{};
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (kinds[k] == 0) continue;
    attention_core_ops(s.model, shape, k, ops);
    for (const Op& op : ops) t += forward_cost(c, op).time * kinds[k];
  }
  return t;
}

// One group of sequences through a step.
StepCost uniform_step(const Scenario& s, const OpContext& c, LayerShape& shape, Scratch& g, SeqGroup group,
                      bool keep_ops, const char* phase) {
  shape.group = group;
  shape.mixed = nullptr;
  return step(s, c, shape, g, keep_ops, phase);
}

}  // namespace

StepCost step_time(const Scenario& s, const std::vector<SeqGroup>& groups, bool report, const char* phase) {
  const OpContext c = inference_context(s);
  LayerShape shape = inference_shape(s, c);
  if (groups.size() == 1)
    shape.group = groups.front();
  else
    shape.mixed = &groups;
  Scratch g;
  return step(s, c, shape, g, report, phase);
}

struct StepTimer::Impl {
  OpContext c;
  LayerShape shape;
  Scratch g;
  KindCounts kinds{};
  std::vector<Op> attention_ops;
  // The parts of a step that do not depend on the contexts, by the count each depends on: a
  // serving run revisits the same counts thousands of times while only the contexts change.
  struct TokensPart {
    LayerPart layers;
    Seconds embedding;
  };
  FlatCache<std::int64_t, TokensPart, std::hash<std::int64_t>> by_tokens;
  FlatCache<std::int64_t, Seconds, std::hash<std::int64_t>> by_sequences;
  // The attention cores of a prompt chunk (one sequence) by its new tokens and context: the
  // pairs recur across a run's steps and its replicas. A decoding group's (its size and mean
  // context) are timed every step: the mean context moves with nearly every step, so the pairs
  // seldom recur, and a memo of them cost more (hashing, inserting, rehashing as it grew) than
  // the roofline it saved. Measured on the 64-GPU MoE RL placement search (tests/bench/rl_bench.cpp):
  // 39% of 800,000 lookups hit, tables of up to 23,000 entries; the search about 7% faster
  // without the memo, the 8-H100 serving capacity search about 15%.
  struct PairKey {
    std::int64_t new_tokens, kv_len;
    bool operator==(const PairKey&) const = default;
  };
  struct PairHash {
    std::size_t operator()(const PairKey& k) const {
      return static_cast<std::size_t>(static_cast<std::uint64_t>(k.kv_len) * 0x9e3779b97f4a7c15ull ^
                                      static_cast<std::uint64_t>(k.new_tokens));
    }
  };
  FlatCache<PairKey, Seconds, PairHash> chunk_attention;
};

StepTimer::StepTimer(const Scenario& s) : s_(s), impl_(std::make_unique<Impl>()) {
  impl_->c = inference_context(s);
  impl_->shape = inference_shape(s, impl_->c);
  impl_->kinds = model_kinds(s.model);
  impl_->g.memo_gemms = false;
}
StepTimer::~StepTimer() = default;

Seconds StepTimer::operator()(const std::vector<SeqGroup>& groups) {
  Impl& x = *impl_;
  x.shape.mixed = &groups;
  const std::int64_t tokens = x.shape.tokens(), sequences = x.shape.sequences();
  const Impl::TokensPart* part = x.by_tokens.find(tokens);
  if (!part)
    part = &x.by_tokens.insert(tokens, {layer_part(s_, x.c, x.shape, x.g, false, "step", nullptr),
                                        embedding_time(s_, x.c, x.shape, x.g)});
  const Impl::TokensPart layers = *part;
  const Seconds* head = x.by_sequences.find(sequences);
  if (!head) head = &x.by_sequences.insert(sequences, head_time(s_, x.c, x.shape, x.g, "step", nullptr));
  const Seconds tokens_part = compose(layers.layers, *head, layers.embedding).total();
  // The attention cores, one operator per group (model/graph.cpp), so a step's attention is the
  // sum over its groups. Each group is timed with the mask step() would derive from it alone: a
  // prompt chunk is causal either way, and a decoding group's one query per sequence sees every
  // key whether or not the step is causal. So the time depends on the group alone.
  Seconds att{};
  for (const SeqGroup& g : groups) {
    x.shape.group = g;
    const bool decode = g.new_tokens == 1, chunk = g.sequences == 1;
    if (decode || !chunk) {
      att += attention_time(s_, x.c, x.shape, x.kinds, x.attention_ops);
      continue;
    }
    const Impl::PairKey key{g.new_tokens, g.kv_len};
    if (const Seconds* hit = x.chunk_attention.find(key))
      att += *hit;
    else
      att += x.chunk_attention.insert(key, attention_time(s_, x.c, x.shape, x.kinds, x.attention_ops));
  }
  x.shape.mixed = nullptr;
  return tokens_part + att;
}

namespace {

// Speculative decoding's draft model, set up once per prediction.
struct DraftModel {
  Scenario s;
  OpContext c;
  LayerShape shape;
  Scratch g;
};

// The decode phase of a static batch (output_len > 1): tpot and its split, the speculative
// report with a draft, and the operators of the middle step (out.operators).
void decode_phase(const Scenario& s, const OpContext& c, LayerShape& shape, Scratch& g, DraftModel* draft,
                  InferencePrediction& out) {
  const auto& w = *s.inference;
  const std::int64_t k = w.speculative ? w.speculative->draft_tokens : 0;
  const double gain = w.speculative ? speculative_tokens_per_step(*w.speculative, s.model.mtp_layers) : 1.0;
  // Decode steps see contexts prompt_len+1 ... prompt_len+output_len-1 (the step producing
  // token i attends to the prompt and the i-1 tokens before it). Time is affine in the
  // context between roofline switches, so a trapezoid over up to 32 samples is exact for
  // short generations and within a fraction of a percent otherwise.
  const std::int64_t steps = w.output_len - 1;
  const std::int64_t first = w.prompt_len + 1;
  const std::int64_t last = w.prompt_len + steps;
  const std::int64_t samples = std::min<std::int64_t>(steps, 32);
  Seconds sum_compute{}, sum_comm{}, sum_plain{}, sum_draft{};
  double weight_sum = 0;
  for (std::int64_t i = 0; i < samples; ++i) {
    const std::int64_t ctx = samples == 1 ? first : first + (last - first) * i / (samples - 1);
    // Without a KV cache the step recomputes the whole context for every sequence.
    const SeqGroup group =
        s.system.software.kv_cache ? SeqGroup{w.batch, 1, ctx} : SeqGroup{w.batch, ctx, ctx};
    const double wgt = (samples > 1 && (i == 0 || i == samples - 1)) ? 0.5 : 1.0;
    StepCost ph = uniform_step(s, c, shape, g, group, false, "decode");
    if (draft) {
      sum_plain += ph.total() * wgt;
      // Per output token: one step (k draft passes, one verification of k + 1 tokens over the
      // context and the drafts) over the tokens it yields.
      const StepCost verify = uniform_step(s, c, shape, g, {w.batch, k + 1, ctx + k}, false, "decode");
      const StepCost one =
          uniform_step(draft->s, draft->c, draft->shape, draft->g, {w.batch, 1, ctx}, false, "draft");
      ph.compute = (verify.compute + one.compute * d(k)) / gain;
      ph.comm = (verify.comm + one.comm * d(k)) / gain;
      sum_draft += one.total() * d(k) * wgt;
    }
    sum_compute += ph.compute * wgt;
    sum_comm += ph.comm * wgt;
    weight_sum += wgt;
  }
  out.decode_compute = sum_compute / weight_sum;
  out.decode_comm = sum_comm / weight_sum;
  out.tpot = out.decode_compute + out.decode_comm;
  if (draft) {
    SpeculativeReport r;
    r.tokens_per_step = gain;
    r.acceptance = speculative_acceptance(*w.speculative, s.model.mtp_layers);
    r.step = out.tpot * gain;
    r.draft = sum_draft / weight_sum;
    r.verify = r.step - r.draft;
    r.tpot_without = sum_plain / weight_sum;
    r.speedup = r.tpot_without.value / out.tpot.value;
    out.speculative = r;
  }
  const std::int64_t mid_ctx = (first + last) / 2;
  const StepCost mid = uniform_step(
      s, c, shape, g, {w.batch, s.system.software.kv_cache ? 1 : mid_ctx, mid_ctx}, true, "decode");
  out.operators = mid.ops;
}

}  // namespace

InferencePrediction predict_inference(const Scenario& s, std::vector<Warning>& warnings) {
  const auto& w = *s.inference;
  const auto& dev = s.system.device;
  InferencePrediction out;
  const Precision math = served_math(s);
  const MathRate rate = math_rate(dev, math);
  out.math_precision = rate.used;
  if (math != inference_math(w))
    warnings.push_back(
        {"device.precision_fallback",
         std::string(to_string(w.precision)) + " has no native rate on " + dev.name +
             "; its weights are dequantised to bf16 in the GEMMs (weight-only kernels, as vLLM's "
             "Marlin) and the math runs at the bf16 rate (state inference.activation_precision "
             "for another)"});
  if (rate.fallback)
    warnings.push_back({"device.precision_fallback",
                        std::string(to_string(math)) + " has no native rate on " + dev.name +
                            "; weights are read at " + std::string(to_string(w.precision)) +
                            " size and the math runs at the " + std::string(to_string(rate.used)) + " rate"});
  // A native rate far below a wider format's (Blackwell Ultra, B300 / GB300, cut int8 to 150-165
  // TOPS beside 4.5-5 PFLOPS of fp8): the math runs at the rate stated, and the faster format is
  // named, as a runtime would rather take it.
  for (std::optional<Precision> q = rate.fallback ? std::nullopt : wider(math); q; q = wider(*q))
    if (dev.peak_for(*q).value > 4.0 * rate.rate.value) {
      warnings.push_back({"device.slow_precision",
                          std::string(to_string(math)) + " runs at " +
                              std::to_string(std::lround(rate.rate.value / 1e12)) + " T ops/s on " +
                              dev.name + ", " +
                              std::to_string(std::lround(dev.peak_for(*q).value / rate.rate.value)) +
                              " times slower than its " + std::string(to_string(*q)) +
                              " rate: the math is timed at the rate stated"});
      break;
    }
  const OpContext c = inference_context(s);
  out.launch_interval = c.launch;
  if (c.group(CommGroup::tp).crosses_scale_out())
    warnings.push_back(
        {"parallel.tp_crosses_scale_out", "inference: tp=" + std::to_string(s.parallel.tp) +
                                              " spans more than one scale-up domain of " +
                                              std::to_string(s.system.scale_up.domain_size) +
                                              " devices; its all-reduces run on the scale-out network"});

  LayerShape shape = inference_shape(s, c);
  Scratch g;
  const StepCost prefill =
      uniform_step(s, c, shape, g, {w.batch, w.prompt_len, w.prompt_len}, true, "prefill");
  out.prefill_compute = prefill.compute;
  out.prefill_comm = prefill.comm;
  out.ttft = prefill.compute + prefill.comm;

  // Speculative decoding: the draft reads the prompt too (its own prefill, before the first
  // draft), then every step drafts k tokens one at a time and the target verifies k + 1 query
  // tokens per sequence; a sequence gains tokens_per_step tokens per step on average.
  std::optional<DraftModel> draft;
  if (w.speculative) {
    draft.emplace();
    draft->s = speculative_draft_scenario(s);
    draft->c = inference_context(draft->s);
    draft->shape = inference_shape(draft->s, draft->c);
    const StepCost dp = uniform_step(draft->s, draft->c, draft->shape, draft->g,
                                     {w.batch, w.prompt_len, w.prompt_len}, false, "prefill");
    out.prefill_compute += dp.compute;
    out.prefill_comm += dp.comm;
    out.ttft += dp.compute + dp.comm;
  }

  const std::int64_t steps = w.output_len - 1;
  if (steps > 0) decode_phase(s, c, shape, g, draft ? &*draft : nullptr, out);
  out.operators.insert(out.operators.begin(), prefill.ops.begin(), prefill.ops.end());
  out.e2e_latency = out.ttft + out.tpot * d(steps);
  out.throughput_tokens_per_s = d(w.batch) * d(w.output_len) / out.e2e_latency.value;

  // Largest batch whose weights, KV cache and working activations fit on one device beside the
  // runtime's own memory (runtime_reserve, memory/footprint.h): the batch predict would not warn
  // about (memory.little_headroom), as the layout search admits.
  const InferenceMemory mem = inference_memory(s);
  const double room = usable_capacity(dev.hbm_capacity, s.num_devices).value - mem.bytes.weights.value;
  out.max_batch = mem.max_batch(room, w.prompt_len);
  return out;
}

}  // namespace optimus
