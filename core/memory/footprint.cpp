// Memory per device as sums over the task graph (model/graph.h): parameters, saved activations
// and KV bytes are what the operators say they own, keep and append.
#include "memory/footprint.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "base/math.h"
#include "model/graph.h"

namespace optimus {

namespace {

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

namespace {
// One layer's dense and routed-expert parameters, by layer kind.
struct KindParams {
  std::array<double, kLayerKinds> dense{}, experts{};
};
KindParams kind_params(const ModelGraph& g) {
  KindParams kp;
  for (std::size_t k = 0; k < kLayerKinds; ++k)
    if (g.present[k])
      for (const Op& o : g.kinds[k]) (o.expert ? kp.experts[k] : kp.dense[k]) += o.params;
  return kp;
}

// The parameters of a stage holding `n` layers of each kind, with the embedding on the first and
// the LM head on the last.
StageParams params_of(const ModelGraph& g, const KindParams& kp, const KindCounts& n, bool first, bool last) {
  StageParams s;
  bool any = false;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!g.present[k]) continue;
    s.layers = any ? s.layers + kp.dense[k] * n[k] : kp.dense[k] * n[k];
    s.experts += kp.experts[k] * n[k];
    any = true;
  }
  if (first) s.embedding = sum_params(g.embedding);
  if (last) s.output = sum_params(g.head);
  return s;
}
}  // namespace

StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, const ModelGraph& g, bool first,
                         bool last) {
  // End stages hold one layer less under the embedding/loss-as-a-layer split (plan.h); with
  // several layer kinds each stage holds its own mix.
  const StageKinds sk = stage_kinds(m, p);
  return params_of(g, kind_params(g), first ? sk.first : last ? sk.last : sk.mid, first, last);
}

StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, std::int64_t seq_len, bool first,
                         bool last) {
  return stage_params(m, p, model_graph(m, param_shape(p, seq_len)), first, last);
}

namespace {
// The activations one layer keeps for its backward under the plan's recompute policy; with
// full recompute on a fraction f of the layers (parallel.recompute_fraction), the average
// layer keeps f of the checkpointed amount and 1 - f of everything.
double layer_saved(const std::vector<Op>& ops, const ParallelPlan& p) {
  if (p.recompute != Recompute::full || p.recompute_fraction >= 1.0)
    return sum_saved(ops, p.recompute, p.recompute_modules);
  return p.recompute_fraction * sum_saved(ops, Recompute::full) +
         (1.0 - p.recompute_fraction) * sum_saved(ops, Recompute::none);
}
}  // namespace

Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, std::int64_t micro_batch,
                             std::int64_t seq_len, AttentionKernel attention, double activation_bytes) {
  LayerShape shape = param_shape(p, seq_len);
  shape.group = SeqGroup{micro_batch, seq_len / p.cp, seq_len};
  shape.sequence_parallel = p.sequence_parallel;
  shape.attention = attention;
  shape.saved_bytes = activation_bytes;
  return Bytes(layer_saved(layer_forward_ops(m, shape), p));
}

Bytes offloaded_activations(const Scenario& s, const ModelGraph& g) {
  const auto& p = s.parallel;
  if (p.offload_layers <= 0) return Bytes(0);
  const StageKinds sk = stage_kinds(s.model, p);
  double bytes = 0, layers = 0;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!g.present[k]) continue;
    bytes += layer_saved(g.kinds[k], p) * sk.first[k];
    layers += sk.first[k];
  }
  return Bytes(layers > 0 ? bytes / layers * d(p.offload_layers) : 0.0);
}

MemoryBreakdown training_memory(const Scenario& s, AttentionKernel attention) {
  return training_memory(s, model_graph(s.model, training_layer_shape(s, attention)));
}

namespace {

struct InFlight {
  double micro_batches = 1;  // kept whole
  double interleaved = 1;    // the interleaved warm-up's extra chunks, as a factor
};
InFlight in_flight(const ParallelPlan& p, std::int64_t micro_batches, std::int64_t stage) {
  const double pp = d(p.pp), v = d(p.interleave), i = d(stage);
  InFlight f{d(std::min(p.pp - stage, micro_batches)), 1.0};
  if (p.interleave > 1) {
    // Megatron-Core's interleaved schedule (schedules.py, forward_backward_pipelining_with_interleaving)
    // runs 2 (pp - i - 1) + (v - 1) pp warm-up chunks on stage i, then one more before the first
    // backward, each a v-th of the stage; never more than the step's m x v chunks (with m = pp it
    // runs them all forward first: all_warmup_microbatches), where the stage holds m micro-batches
    // whole, as in 1F1B.
    const double chunks = v * d(micro_batches);
    const double held = std::min(2.0 * (pp - i - 1.0) + (v - 1.0) * pp + 1.0, chunks);
    f.interleaved = held / (v * f.micro_batches);
  }
  return f;
}

// What one layer of each kind holds, computed once for the stages compared.
struct KindMemory {
  KindParams params;
  std::array<Bytes, kLayerKinds> saved{}, rebuilt{};  // activations kept; rebuilt in the backward
  Bytes embedding_saved{}, head_saved{};
};

KindMemory kind_memory(const ModelGraph& g, const ParallelPlan& p) {
  KindMemory km;
  km.params = kind_params(g);
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!g.present[k]) continue;
    km.saved[k] = Bytes(layer_saved(g.kinds[k], p));
    km.rebuilt[k] = Bytes(sum_saved(g.kinds[k], Recompute::none) -
                          sum_saved(g.kinds[k], p.recompute, p.recompute_modules));
  }
  km.embedding_saved = Bytes(sum_saved(g.embedding, p.recompute));
  km.head_saved = Bytes(sum_saved(g.head, p.recompute));
  return km;
}

MemoryBreakdown stage_training_memory(const Scenario& s, const ModelGraph& g, const KindMemory& km,
                                      const KindCounts& n, std::int64_t index) {
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const bool first = index == 0, last = index == p.pp - 1;
  MemoryBreakdown out;
  const StageParams sp = params_of(g, km.params, n, first, last);
  const StateBytes b = state_bytes(w.precision, s.system.software);
  // ZeRO shards the dense weights over every replica of them (dp x cp; the shard group under
  // hybrid sharding, parallel.zero_shard) and the routed experts'
  // over the expert-data-parallel replicas.
  const double shard = d(zero_shard_ranks(p));
  const double eshard = d(expert_dp(p));
  const double params = sp.layers + sp.embedding + sp.output;
  const auto state = [&](double per_param, int stage) {
    return Bytes(params * per_param / (p.zero_stage >= stage ? shard : 1.0)) +
           Bytes(sp.experts * per_param / (p.zero_stage >= stage ? eshard : 1.0));
  };
  // ZeRO-3 without resharding after the forward (SoftwareDefaults::zero3_reshard_after_forward
  // false) keeps every layer's gathered 16-bit weights until its backward: when the backward
  // starts, the stage holds them all whole (stage 4: no ZeRO stage shards them).
  const bool reshard = s.system.software.zero3_reshard_after_forward;
  out.weights = state(b.weight, reshard ? 3 : 4);
  out.gradients = state(b.gradient, 2);
  out.optimizer = state(b.optimizer, 1);
  // ZeRO-3 gathers each layer whole for its passes: the layer being computed and the next one,
  // prefetched (PyTorch FSDP's forward/backward prefetch; DeepSpeed's stage3_prefetch_bucket_size).
  // A probe found Llama 3.1 405B under FSDP on 2,048 H100 at 24.6 GB a device, where its
  // 3.2 B-parameter layers alone gather 6.4 GB each. Stages 2 and 3 both produce a layer's
  // gradient whole in the backward and hold it until its reduce-scatter leaves the shard: FSDP
  // reduce-scatters per wrapped unit under SHARD_GRAD_OP (ZeRO-2) as under FULL_SHARD (PyTorch
  // FSDP docs, ShardingStrategy), DeepSpeed's stage 2 fills reduce buckets (reduce_bucket_size,
  // 5e8 elements by default) before reducing them (Rajbhandari et al. 2020, Sec. 5.2).
  if (p.zero_stage >= 2 && shard > 1) {
    double unit = 0;  // the largest layer on this stage, per device before ZeRO's sharding
    for (std::size_t k = 0; k < kLayerKinds; ++k)
      if (g.present[k] && n[k] > 0) unit = std::max(unit, km.params.dense[k] + km.params.experts[k]);
    if (p.zero_stage >= 3 && reshard) out.weights = out.weights + Bytes(2.0 * unit * b.weight);
    out.gradients = out.gradients + Bytes(unit * b.gradient);
  }
  // A host-memory optimizer (parallel.optimizer_offload) keeps the master weights and moments in
  // host memory: reported beside the offloaded activations, not in the device's total.
  if (p.optimizer_offload) {
    out.host = out.optimizer;
    out.optimizer = Bytes(0);
  }

  // Activations: the stage's layers of each kind times the micro-batches in flight on it
  // (in_flight: on the first stage up to all L layers' worth).
  const InFlight kept = in_flight(p, micro_batches(p, w), index);
  Bytes act{};
  Bytes rebuild{};
  Bytes widest{};  // the largest layer's saved activations
  bool any = false;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!g.present[k]) continue;
    double factor = kept.micro_batches * n[k];
    if (p.interleave > 1) factor *= kept.interleaved;
    act = any ? act + km.saved[k] * factor : km.saved[k] * factor;
    widest = max(widest, km.saved[k]);
    // The backward rebuilds one layer at a time: under full recompute all of that layer's
    // activations come back (its input, the checkpoint, is already counted), under selective
    // recompute with unfused attention its attention-score tensors do. Counting that working
    // set for both modes gives the device's peak and keeps memory monotone none >= selective >=
    // full (tests/unit/property_test.cpp, RecomputeNeverIncreasesMemory); Korthikanti et al.
    // 2022 Table 2 counts stored activations only, which is 1/L-per-stage less.
    // (A checkpointed layer rebuilds what its checkpoint left out, also when only a fraction of
    // the layers are checkpointed.) Only the kinds of layer this stage holds are rebuilt on it.
    if (n[k] > 0) rebuild = max(rebuild, km.rebuilt[k]);
    any = true;
  }
  // Offloaded layers (pp 1, one micro-batch in flight) keep their activations in host memory
  // between forward and backward; the device holds one layer's more while a layer is copied
  // back ahead of its backward (Transformer Engine's CPU offload handler double-buffers).
  if (p.offload_layers > 0) {
    const Bytes offloaded = offloaded_activations(s, g);
    out.host += offloaded;
    act = act - offloaded + widest;
  }
  // The embedding's saved activations (its dropout mask) per in-flight micro-batch.
  if (first) act += km.embedding_saved * kept.micro_batches;
  // (Under selective recompute the difference is zero when nothing is recomputed: the attention
  // core alone with fused attention, which keeps no scores.)
  if (p.recompute != Recompute::none) act += rebuild;
  // The output layer's fp32 logits, on the last stage.
  if (last) act += km.head_saved;
  out.activations = act;
  return out;
}

}  // namespace

// Every device holds its own pipeline stage: the footprint is the heaviest of the stages that can
// hold the peak (plan.h peak_stages).
MemoryBreakdown training_memory(const Scenario& s, const ModelGraph& g) {
  const KindMemory km = kind_memory(g, s.parallel);
  std::optional<MemoryBreakdown> out;
  for (const auto& [i, n] : peak_stages(s.model, s.parallel)) {
    MemoryBreakdown stage = stage_training_memory(s, g, km, n, i);
    if (s.parallel.pp > 1) stage.stage = i;
    if (!out || stage.total().value > out->total().value) out = stage;
  }
  return *out;
}

namespace {

// KV-cache bytes per sequence on one device for `context` tokens: every layer kind's bytes per
// token times its layers on the device's stage, windowed layers keeping at most `window` tokens,
// plus (`with_state`) what a sequence keeps whatever its length (linear attention's states).
// `window`: the tokens a windowed layer caches (cached_window; 0: the whole context).
Bytes kv_per_sequence(const ModelSpec& m, const ParallelPlan& p, const ModelGraph& g, double context,
                      std::int64_t window, bool with_state = true) {
  const auto stage_kv = [&](const KindCounts& n) {
    Bytes out{};
    bool any = false;
    for (std::size_t k = 0; k < kLayerKinds; ++k) {
      if (!g.present[k]) continue;
      const bool windowed = kind_is_local(k) && window > 0;
      const double tokens = windowed ? std::min(context, d(window)) : context;
      const double state = with_state ? sum_state_bytes(g.kinds[k]) : 0.0;
      const Bytes b = Bytes(n[k] * sum_kv_bytes(g.kinds[k])) * tokens + Bytes(n[k] * state);
      out = any ? out + b : b;
      any = true;
    }
    return out;
  };
  // Every device keeps the cache of its own stage's layers: the most of the stages that can
  // hold the peak (a middle stage's one layer more under the embedding/loss or a balanced split,
  // a stage with more global-attention layers).
  Bytes out{};
  for (const auto& [i, n] : peak_stages(m, p)) out = max(out, stage_kv(n));
  return out;
}

}  // namespace

Bytes kv_bytes_per_token(const ModelSpec& m, const ParallelPlan& p, Precision kv_precision) {
  LayerShape shape = param_shape(p, 0);
  shape.kv_elem_bytes = bytes_per_element(kv_precision);
  return kv_per_sequence(m, p, model_graph(m, shape), 1.0, m.window, false);
}

std::int64_t cached_window(const Scenario& s) {
  return s.system.software.windowed_layers_full_kv ? 0 : s.model.window;
}

Bytes inference_kv_bytes(const Scenario& s, double context) {
  const LayerShape shape = inference_layer_shape(s, s.model.max_seq_len);
  const Bytes own =
      kv_per_sequence(s.model, s.parallel, model_graph(s.model, shape), context, cached_window(s));
  // A speculative draft keeps a cache of its own for the same context (vLLM's draft-model and
  // MTP proposers do), on the same devices.
  if (!s.inference->speculative) return own;
  return own + inference_kv_bytes(speculative_draft_scenario(s), context);
}

namespace {

// The device memory a speculative draft adds: a draft model's weights, or an MTP head's one
// layer (it shares the target's embedding and LM head; DeepSeek-V3 Sec. 2.2), and its KV cache.
struct DraftMemory {
  Bytes weights{}, kv_per_sequence{};
};
DraftMemory draft_memory(const Scenario& s, double context) {
  DraftMemory out;
  if (!s.inference->speculative) return out;
  Scenario d = speculative_draft_scenario(s);
  out.kv_per_sequence = inference_kv_bytes(d, context);
  const Bytes weights = inference_memory(d).bytes.weights;
  if (s.inference->speculative->draft) {
    out.weights = weights;
  } else {
    d.model.layers = 2;  // one layer's weights: two layers' less one's (the ends cancel)
    out.weights = inference_memory(d).bytes.weights - weights;
  }
  return out;
}

// The widest moment of an MoE layer in a prompt step, in activation elements per prompt token of
// this rank: every token's top_k routed copies of the hidden state, or of the latent under LatentMoE
// (the expanded input, and the second GEMM's output in its place), beside their gated first-GEMM
// output, 2 x the expert's width on this rank. TensorRT-LLM's CUTLASS MoE workspace is these two buffers for
// experts_per_token x num_rows rows (CutlassMoeFCRunner::getWorkspaceDeviceBufferSizes:
// overlapped_gemm1_gemm2_inputs, the larger of the permuted input and fc2_result at hidden wide;
// overlapped_gemm1_gemm2_outputs, glu_inter_result at 2 x inter_size); vLLM's and SGLang's fused MoE keep the
// same rows in their intermediate caches. Under attention data parallelism with software.moe_group_workspace
// the rank's MoE takes its whole group's tokens (TensorRT-LLM's moe_max_num_tokens = max_num_tokens x
// dp_size); a replica of tp ranks whose experts span other replicas routes a tp-th of its tokens from each
// rank (LayerShape::moe_token_split, model/graph.cpp).
double moe_rows_per_token(const Scenario& s) {
  if (!s.model.moe) return 0;
  const MoeSpec& moe = *s.model.moe;
  const ParallelPlan& p = s.parallel;
  const bool adp = attention_data_parallel(p);
  const double group = s.system.software.moe_group_workspace && adp ? d(expert_group_replicas(p)) : 1.0;
  const double split = adp ? d(p.tp) : 1.0;
  const double width = d(moe.expert_ffn_hidden) / d(inference_expert_tp(p));
  const double rows = d(moe.latent_size > 0 ? moe.latent_size : s.model.hidden);  // LatentMoE's width
  return group / split * d(moe.top_k) * (rows + 2.0 * width);
}

}  // namespace

InferenceMemory inference_memory(const Scenario& s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.inference;
  InferenceMemory out;
  const LayerShape shape =
      inference_layer_shape(s, std::max<std::int64_t>(m.max_seq_len, w.prompt_len + w.output_len));
  const ModelGraph g = model_graph(m, shape);
  // Quantized weights: matrices at the weight precision (integer ones with their group scales);
  // embeddings and norms stay 16-bit, and so does all but the experts of a checkpoint quantised in
  // its experts alone (dense_weights_16bit). Every device holds its stage's: the heaviest of
  // peak_stages.
  const double wb = inference_weight_bytes(w);
  const double dense = dense_weight_bytes(m, w.precision, wb);
  const KindParams kp = kind_params(g);
  double weights = 0;
  for (const auto& [i, n] : peak_stages(m, p)) {
    const StageParams sp = params_of(g, kp, n, i == 0, i == p.pp - 1);
    weights = std::max(weights,
                       sp.layers * dense + sp.experts * wb + (sp.embedding + sp.output) * std::max(2.0, wb));
  }
  out.bytes.weights = Bytes(weights);
  const double context = d(w.prompt_len + w.output_len);
  out.kv_per_sequence = kv_per_sequence(m, p, g, context, cached_window(s));
  out.bytes.kv_cache = out.kv_per_sequence * d(w.batch);
  // Working activations of the widest moment of prefill for one sequence: the residual
  // stream, the widest QKV or FFN-up output of one layer, and the fp32 logits of the last token.
  const double e = s.system.software.activation_bytes;
  const ModelGraph whole = model_graph(m, LayerShape{});
  double widest = 0;
  for (std::size_t k = 0; k < kLayerKinds; ++k)
    if (whole.present[k]) widest = std::max(widest, widest_intermediate(whole.kinds[k]));
  const double up = widest / d(p.tp);
  // Unfused prompt attention keeps one layer's score matrix, heads / tp x prompt^2 elements per
  // sequence (FasterTransformer's qk_buf_, batch x local heads x seq_len^2 in
  // GptContextAttentionLayer::allocateBuffer @a44c381).
  const double scores = s.system.software.unfused_context_attention
                            ? d(m.heads) / d(p.tp) * d(w.prompt_len) * d(w.prompt_len) * e
                            : 0.0;
  const double per_token = e * (2.0 * d(m.hidden) + std::max(up, moe_rows_per_token(s)));
  const double logits = 4.0 * d(m.vocab) / d(p.tp);
  // A runtime with a scheduler (vLLM, SGLang, TensorRT-LLM: the profile's serving block) prefills
  // the batch's prompts in steps of at most max_num_tokens tokens (chunked prefill: vLLM's
  // max_num_batched_tokens, SGLang's chunked_prefill_size, TensorRT-LLM's max_num_tokens), so its
  // working activations are those of one step's tokens, not of every prompt at once; it profiles
  // exactly that step before sizing its KV cache (the serving pool's workspace, predict/serving.cpp).
  const bool chunked = s.software && s.software->prefills_in_steps();
  out.prefill_budget =
      chunked ? (w.serving ? w.serving->max_num_tokens : s.software->serving.max_num_tokens) : 0;
  if (out.prefill_budget > 0) {
    out.activation_per_token = Bytes(per_token);
    out.activation_per_sequence = Bytes(logits);
    const double tokens = std::min(d(w.batch) * d(w.prompt_len), d(out.prefill_budget));
    out.bytes.activations = Bytes(tokens * per_token + logits * d(w.batch));
  } else {
    out.activation_per_sequence = Bytes(d(w.prompt_len) * per_token + logits + scores);
    out.bytes.activations = out.activation_per_sequence * d(w.batch);
  }
  const DraftMemory draft = draft_memory(s, context);
  out.bytes.weights = out.bytes.weights + draft.weights;
  out.kv_per_sequence = out.kv_per_sequence + draft.kv_per_sequence;
  out.bytes.kv_cache = out.kv_per_sequence * d(w.batch);
  return out;
}

std::int64_t InferenceMemory::max_batch(double room, std::int64_t prompt_len) const {
  const double per_seq = kv_per_sequence.value + activation_per_sequence.value;
  if (room <= 0 || per_seq <= 0) return 0;
  if (prefill_budget <= 0) return static_cast<std::int64_t>(std::floor(room / per_seq));
  // One step's tokens are the whole batch's prompts while they fit in the budget, else the budget.
  const double budget = d(prefill_budget), prompt = d(std::max<std::int64_t>(1, prompt_len));
  const double full = std::floor((room - budget * activation_per_token.value) / per_seq);
  if (full * prompt >= budget) return static_cast<std::int64_t>(std::max(0.0, full));
  return static_cast<std::int64_t>(std::floor(room / (per_seq + prompt * activation_per_token.value)));
}

}  // namespace optimus
