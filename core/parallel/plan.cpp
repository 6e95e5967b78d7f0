#include "parallel/plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "base/math.h"
#include "base/words.h"

namespace optimus {

std::int64_t micro_batches(const ParallelPlan& p, const TrainingWorkload& w) {
  return w.global_batch / (p.dp * p.micro_batch);
}

namespace {
std::string str(std::int64_t v) { return std::to_string(v); }

// The divisors of n up to `most` in words ("1, 2, 4 or 8"; at most 8 named, the largest last), for
// errors that say what would divide.
std::string divisors(std::int64_t n, std::int64_t most) {
  std::vector<std::string> d;
  for (std::int64_t k = 1; k <= std::min(n, most) && k <= 1'000'000; ++k)
    if (n % k == 0) d.push_back(str(k));
  if (d.size() > 8) d.erase(d.begin() + 7, d.end() - 1);
  return or_list(d);
}

// Whether the device can time matmuls at `p` (its own rate, a wider format's or the vector
// units'). Without one every time at p would be infinite.
bool has_rate(const DeviceSpec& d, Precision p) { return math_rate(d, p).rate.value > 0; }

// The precisions a workload's matmuls run at: its own, bf16 for attention under fp8 (training
// and prefill), fp16 for decode attention (predict/training.cpp, predict/inference.cpp).
std::optional<Error> check_rates(const DeviceSpec& d, Precision p, bool decode) {
  for (Precision q : {p, quantised_training(p) ? Precision::bf16 : p, decode ? Precision::fp16 : p})
    if (!has_rate(d, q))
      return make_error("device.no_rate_for_precision", "/system/device/peak_tflops",
                        d.name + " has no peak rate for " + std::string(to_string(q)) +
                            " or any wider format, and no vector_tflops; add one to peak_tflops");
  return std::nullopt;
}

// The degrees against the device count and the model's shape, whatever the workload.
std::optional<Error> check_degrees(const Scenario& s) {
  const auto& p = s.parallel;
  const auto& m = s.model;
  // In double: four degrees of up to 1e8 overflow int64, and a product equal to num_devices
  // (at most 1e8) is exact.
  const double product = static_cast<double>(p.tp) * static_cast<double>(p.pp) * static_cast<double>(p.dp) *
                         static_cast<double>(p.cp);
  if (product != static_cast<double>(s.num_devices)) {
    std::string hint;
    // SGLang's --tp counts every device of a server run with --enable-dp-attention (--tp 8 --dp 8:
    // eight attention replicas of one device each, the experts over all eight); here tp is the
    // tensor parallelism within one replica.
    if (p.dp > 1 && p.tp % p.dp == 0 &&
        static_cast<double>(p.tp) * static_cast<double>(p.pp) * static_cast<double>(p.cp) ==
            static_cast<double>(s.num_devices))
      hint = "; SGLang's --tp " + str(p.tp) + " --dp " + str(p.dp) + " --enable-dp-attention is tp " +
             str(p.tp / p.dp) + ", dp " + str(p.dp) +
             " here (tp counts the devices of one attention replica)" +
             (m.moe ? ", with ep " + str(p.tp) + " to spread the experts over all " + str(p.tp) : "");
    return make_error("parallel.product_mismatch", "/parallel",
                      "tp*pp*dp*cp = " + str(p.tp) + "*" + str(p.pp) + "*" + str(p.dp) + "*" + str(p.cp) +
                          " = " + (product < 9e18 ? str(static_cast<std::int64_t>(product)) : "over 9e18") +
                          " but num_devices = " + str(s.num_devices) +
                          "; choose degrees whose product is num_devices" + hint);
  }
  if (m.heads % p.tp != 0)
    return make_error("parallel.tp_not_divisor_of_heads", "/parallel/tp",
                      "tp=" + str(p.tp) + " does not divide heads=" + str(m.heads) +
                          "; tensor parallelism splits attention heads evenly (tp " +
                          divisors(m.heads, p.tp * 4) + " would)");
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    return make_error("parallel.tp_not_divisor_of_kv_heads", "/parallel/tp",
                      "tp=" + str(p.tp) + " and kv_heads=" + str(m.kv_heads) +
                          " must divide one another (KV heads are split or replicated evenly)");
  // Tensor parallelism splits linear attention's value heads evenly, and its key heads too unless
  // there is one, which every rank then holds (vLLM's MambaMixer2 asserts n_groups % tp == 0 or
  // n_groups == 1, vllm/model_executor/layers/mamba/mamba_mixer2.py; Granite 4.0-H has one group).
  const std::int64_t split_heads =
      m.linear.key_heads == 1 ? m.linear.heads : std::gcd(m.linear.key_heads, m.linear.heads);
  if (m.linear.heads > 0 && split_heads % p.tp != 0)
    return make_error("parallel.tp_not_divisor_of_linear_heads", "/parallel/tp",
                      "tp=" + str(p.tp) + " does not split linear attention's heads evenly (tp " +
                          divisors(split_heads, p.tp * 4) + " would)");
  // Layers with a dense FFN (a pattern's '-' too) split ffn_hidden over tp.
  const KindCounts kinds = model_kinds(m);
  const bool dense_ffn =
      count_kinds(kinds, [](std::size_t k) { return kind_has_ffn(k) && !kind_is_moe(k); }) > 0;
  if (m.ffn_hidden % p.tp != 0 && dense_ffn)
    return make_error("parallel.tp_not_divisor_of_ffn_hidden", "/parallel/tp",
                      "tp=" + str(p.tp) + " does not divide ffn_hidden=" + str(m.ffn_hidden));
  if (p.pp > m.layers)
    return make_error("parallel.pp_exceeds_layers", "/parallel/pp",
                      "pp=" + str(p.pp) + " is larger than layers=" + str(m.layers) +
                          "; a pipeline stage holds at least one layer (pp at most " + str(m.layers) + ")");
  if (p.interleave < 1)
    return make_error("parallel.invalid_interleave", "/parallel/interleave", "interleave must be at least 1");
  if (p.pp * p.interleave > m.layers && !uneven_pipeline_split(m, p))
    return make_error("parallel.layers_not_divisible", "/parallel/pp",
                      "layers=" + str(m.layers) + " cannot fill pp*interleave=" + str(p.pp * p.interleave) +
                          " model chunks (nor can layers+2, counting the embedding and the loss as a layer "
                          "each as Megatron-LM can); every model chunk needs at least one layer");
  if (p.interleave > 1 && p.pp == 1)
    return make_error("parallel.interleave_without_pp", "/parallel/interleave",
                      "interleave=" + str(p.interleave) + " needs pp > 1");
  if (p.sequence_parallel && p.tp == 1)
    return make_error(
        "parallel.sequence_parallel_without_tp", "/parallel/sequence_parallel",
        "sequence_parallel needs tp > 1 (it splits the tensor-parallel region's norms and dropouts)");
  if (p.ep != 1 && !m.moe)
    return make_error("parallel.ep_without_moe", "/parallel/ep",
                      "ep=" + str(p.ep) + " needs a mixture-of-experts model; use ep=1");
  if (p.etp != 1 && !m.moe)
    return make_error("parallel.etp_without_moe", "/parallel/etp",
                      "etp=" + str(p.etp) + " needs a mixture-of-experts model; use etp=1");
  if (p.expert_slots > 0 && !m.moe)
    return make_error("parallel.expert_slots_without_moe", "/parallel/expert_slots",
                      "expert_slots=" + str(p.expert_slots) +
                          " places experts of a mixture-of-experts model; this model is dense: leave it out");
  return std::nullopt;
}

// Expert parallelism, expert tensor parallelism and the expert slots against a mixture-of-experts
// model's experts and the workload (training folds the expert layers over the same ranks;
// inference splits the experts over the tp ranks or, with tp 1, the data-parallel ones).
std::optional<Error> check_experts(const Scenario& s) {
  const auto& p = s.parallel;
  const MoeSpec& e = *s.model.moe;
  if (p.expert_slots > 0 && s.training)
    return make_error("parallel.expert_slots_in_training", "/parallel/expert_slots",
                      "expert_slots places redundant copies of experts for inference; training keeps one "
                      "copy of each expert");
  if (p.expert_slots > 0 && p.expert_slots < e.experts)
    return make_error("parallel.expert_slots_below_experts", "/parallel/expert_slots",
                      "expert_slots=" + str(p.expert_slots) + " is below the model's " + str(e.experts) +
                          " experts; every expert needs a slot (redundant copies come on top)");
  if (p.expert_slots > 0 && p.expert_slots % p.ep != 0)
    return make_error("parallel.ep_not_divisor_of_expert_slots", "/parallel/expert_slots",
                      "ep=" + str(p.ep) + " does not divide expert_slots=" + str(p.expert_slots) +
                          "; every expert-parallel rank holds the same number of slots");
  if (p.expert_slots == 0 && e.experts % p.ep != 0)
    return make_error("parallel.ep_not_divisor_of_experts", "/parallel/ep",
                      "ep=" + str(p.ep) + " does not divide experts=" + str(e.experts) +
                          "; every expert-parallel rank holds the same number of experts");
  if (e.expert_ffn_hidden % p.etp != 0)
    return make_error("parallel.etp_not_divisor_of_expert_ffn_hidden", "/parallel/etp",
                      "etp=" + str(p.etp) + " does not divide expert_ffn_hidden=" + str(e.expert_ffn_hidden));
  if (e.shared_experts > 0 && (e.shared_experts * e.shared_expert_ffn_hidden) % p.tp != 0)
    return make_error("parallel.tp_not_divisor_of_shared_experts", "/parallel/tp",
                      "tp=" + str(p.tp) + " does not divide the shared experts' width " +
                          str(e.shared_experts * e.shared_expert_ffn_hidden));
  const std::int64_t stage_ranks = p.tp * p.cp * p.dp;
  if (s.training && stage_ranks % (p.ep * p.etp) != 0)
    return make_error("parallel.expert_layout_mismatch", "/parallel/ep",
                      "ep*etp=" + str(p.ep * p.etp) + " must divide tp*cp*dp=" + str(stage_ranks) +
                          ": the expert layers fold the same ranks as etp x ep x expert-data-parallel "
                          "(Megatron-Core MoE parallel folding)");
  if (s.training && p.tp > 1 && !p.sequence_parallel)
    return make_error("parallel.moe_needs_sequence_parallel", "/parallel/sequence_parallel",
                      "MoE layers with tp > 1 route each rank's share of the sequence; turn "
                      "sequence_parallel on (Megatron-Core requires it)");
  if (s.inference && !s.training && p.etp > 1 && p.tp > 1)
    return make_error("parallel.etp_with_tensor_parallel_attention", "/parallel/etp",
                      "in inference with tp > 1 the experts' tensor parallelism is tp / ep; etp applies to "
                      "attention data parallelism (tp 1), where etp data-parallel ranks split each expert: "
                      "etp=" +
                          str(p.etp) + ", tp=" + str(p.tp));
  if (s.inference && !s.training && p.tp == 1 && p.etp > 1 && p.dp % (p.ep * p.etp) != 0)
    return make_error("parallel.ep_etp_not_divisor_of_dp", "/parallel/etp",
                      "with attention data parallelism the experts span ep x etp data-parallel ranks, which "
                      "must divide dp: ep=" +
                          str(p.ep) + ", etp=" + str(p.etp) + ", dp=" + str(p.dp));
  if (s.inference && !s.training && p.tp % p.ep != 0 && !attention_data_parallel(p))
    return make_error("parallel.ep_not_divisor_of_tp", "/parallel/ep",
                      "in inference the experts are split over the tp ranks (ep must divide tp) or over "
                      "data-parallel replicas that run attention on their own sequences (ep a multiple of tp "
                      "whose ep / tp replicas divide dp; with tp = 1, ep dividing dp): ep=" +
                          str(p.ep) + ", tp=" + str(p.tp) + ", dp=" + str(p.dp));
  return std::nullopt;
}

// Activation offloading (parallel.offload_layers > 0) in training.
std::optional<Error> check_offload(const Scenario& s) {
  const auto& p = s.parallel;
  // Megatron-Core's TransformerConfig refuses the same combinations (cpu_offloading with
  // pipeline parallelism, with recomputation, or with every layer).
  if (p.pp > 1)
    return make_error("parallel.offload_with_pipeline", "/parallel/offload_layers",
                      "activation offloading runs with pp=1 only (Megatron-Core has no pipeline "
                      "schedule for it); pp=" +
                          str(p.pp));
  if (p.recompute != Recompute::none)
    return make_error("parallel.offload_with_recompute", "/parallel/offload_layers",
                      "activation offloading and recomputation are alternatives; set recompute to "
                      "\"none\"");
  if (p.offload_layers >= s.model.layers)
    return make_error("parallel.offload_too_many_layers", "/parallel/offload_layers",
                      "offload_layers=" + str(p.offload_layers) + " must be below the model's " +
                          str(s.model.layers) + " layers: the last layer's activations are used at once");
  if (!(s.system.host_link.value > 0))
    return make_error("parallel.offload_without_host_link", "/parallel/offload_layers",
                      "the system states no host_link_GBps, the device-host copy rate the "
                      "offloaded activations travel at");
  return std::nullopt;
}

// Training: the sequence splits, the batch over the data-parallel ranks and micro-batches, the
// interleaved schedule, ZeRO, activation offloading and the device's rates at the precision.
std::optional<Error> check_training(const Scenario& s) {
  const auto& p = s.parallel;
  const auto& w = *s.training;
  if (w.seq_len % p.cp != 0)
    return make_error("parallel.cp_not_divisor_of_seq_len", "/parallel/cp",
                      "cp=" + str(p.cp) + " does not divide seq_len=" + str(w.seq_len) + " (cp " +
                          divisors(w.seq_len, std::max<std::int64_t>(p.cp * 4, 8)) + " would)");
  // Linear attention carries its state from one token to the next, so its layers trade the split
  // of the sequence for a split of the heads (model/graph.cpp, add_linear_attention: Megatron-Core's
  // all-to-all): the tp x cp ranks must share the value and key heads out evenly.
  if (const auto& L = s.model.linear; p.cp > 1 && L.heads > 0) {
    const std::int64_t ranks = p.tp * p.cp;
    if (L.heads % ranks != 0 || L.key_heads % ranks != 0)
      return make_error("parallel.cp_with_linear_attention", "/parallel/cp",
                        "context parallelism gives the linear attention layers' heads out over tp x cp = " +
                            str(ranks) + " ranks, which does not divide its " + str(L.heads) + " value and " +
                            str(L.key_heads) + " key heads; a cp (or tp) whose product with tp (or cp) does");
  }
  if (p.cp > 1 && (w.seq_len / p.cp) % 2 != 0)
    return make_error("parallel.cp_chunk_odd", "/parallel/cp",
                      "context parallelism splits each sequence into 2*cp chunks; seq_len=" + str(w.seq_len) +
                          " is not divisible by " + str(2 * p.cp));
  if (p.sequence_parallel && (w.seq_len / p.cp) % p.tp != 0)
    return make_error("parallel.tp_not_divisor_of_seq_len", "/parallel/tp",
                      "sequence parallelism splits the sequence over tp=" + str(p.tp) +
                          " ranks; seq_len/cp=" + str(w.seq_len / p.cp) +
                          " is not divisible (a seq_len that is, or sequence_parallel false)");
  if (const std::int64_t unit = p.dp * p.micro_batch; w.global_batch % unit != 0) {
    const std::int64_t below = w.global_batch / unit * unit, above = below + unit;
    return make_error("training.batch_not_divisible", "/training/global_batch",
                      "global_batch=" + str(w.global_batch) + " is not divisible by dp*micro_batch=" +
                          str(unit) + " (" + (below > 0 ? str(below) + " or " : "") + str(above) +
                          " would, or a micro_batch that divides global_batch / dp)");
  }
  const std::int64_t mb = micro_batches(p, w);
  if (p.interleave > 1 && mb % p.pp != 0)
    return make_error("parallel.interleave_microbatches", "/parallel/interleave",
                      "the interleaved schedule needs the micro-batch count (" + str(mb) +
                          ") to be a multiple of pp=" + str(p.pp));
  if (p.zero_stage < 0 || p.zero_stage > 3)
    return make_error("parallel.invalid_zero_stage", "/parallel/zero_stage",
                      "zero_stage must be 0, 1, 2 or 3");
  if (p.zero_shard > 0) {
    if (p.zero_stage == 0)
      return make_error("parallel.zero_shard_without_zero", "/parallel/zero_shard",
                        "zero_shard groups the ranks that shard the ZeRO state; it needs zero_stage >= 1");
    if ((p.dp * p.cp) % p.zero_shard != 0)
      return make_error("parallel.zero_shard_not_divisor", "/parallel/zero_shard",
                        "zero_shard=" + str(p.zero_shard) +
                            " must divide the data-parallel ranks dp*cp=" + str(p.dp * p.cp));
  }
  if (p.offload_layers > 0)
    if (auto e = check_offload(s)) return e;
  if (p.optimizer_offload && !(s.system.host_link.value > 0))
    return make_error("parallel.optimizer_offload_without_host_link", "/parallel/optimizer_offload",
                      "the system states no host_link_GBps, the device-host copy rate the gradients "
                      "and updated weights of a host-memory optimizer travel at");
  if (auto e = check_rates(s.system.device, w.precision, false)) return e;
  return std::nullopt;
}

// Inference: no context parallelism or offloading, the device's rates, and the draft model of
// speculative decoding on the target's tensor-parallel devices.
std::optional<Error> check_inference(const Scenario& s) {
  const auto& p = s.parallel;
  if (p.cp != 1)
    return make_error("parallel.cp_in_inference", "/parallel/cp",
                      "context parallelism is modelled for training only; use cp=1 for inference");
  if (!s.training && p.offload_layers > 0)
    return make_error("parallel.offload_in_inference", "/parallel/offload_layers",
                      "activation offloading keeps training activations until their backward pass; "
                      "inference has none to keep");
  if (!s.training && p.optimizer_offload)
    return make_error("parallel.optimizer_offload_in_inference", "/parallel/optimizer_offload",
                      "inference has no optimizer state to keep in host memory");
  if (auto e = check_rates(s.system.device, inference_math(*s.inference), true)) return e;
  // The draft runs on the target's tensor-parallel devices, so its heads must split as theirs.
  if (s.inference->speculative && s.inference->speculative->draft)
    if (auto e = validate_plan(speculative_draft_scenario(s))) {
      e->path = "/inference/speculative/draft";
      e->message = "the draft model on the target's tp = " + str(p.tp) + ": " + e->message;
      return e;
    }
  return std::nullopt;
}
}  // namespace

std::optional<Error> validate_plan(const Scenario& s) {
  if (auto e = check_degrees(s)) return e;
  if (s.model.moe)
    if (auto e = check_experts(s)) return e;
  if (s.training)
    if (auto e = check_training(s)) return e;
  // With training beside it, cp is the training's: the inference runs on inference_view.
  if (s.inference) return check_inference(inference_view(s));
  return std::nullopt;
}

LayerShape param_shape(const ParallelPlan& p, std::int64_t position_rows) {
  LayerShape shape;
  shape.tp = p.tp;
  shape.pp = p.pp;
  shape.ep = p.ep;
  shape.etp = p.etp;
  shape.expert_slots = p.expert_slots;
  shape.position_rows = position_rows;
  return shape;
}

Precision training_format(const DeviceSpec& d, Precision p) {
  if (!quantised_training(p)) return p;
  // Its own native rate: trained as asked. Else the narrow float format its matmuls fall back to
  // (nvfp4 on Hopper or MI355X, mxfp8 on Hopper: fp8), whose casts, saved inputs and rate a stack
  // there trains with (Transformer Engine has no NVFP4 or MXFP8 recipe before Blackwell); an
  // emulated format cannot beat the one it is emulated on. Without a narrow float rate (Ampere:
  // fp8 falls back to fp16), 16-bit training.
  const MathRate r = math_rate(d, p);
  if (!r.fallback) return p;
  if (r.used == Precision::fp8 || r.used == Precision::fp4) return r.used;
  for (const Precision q : {Precision::bf16, Precision::fp16})
    if (d.peak_for(q).value > 0) return q;
  return p;
}

LayerShape training_layer_shape(const Scenario& s, AttentionKernel attention) {
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const auto& sw = s.system.software;
  LayerShape shape = param_shape(p, w.seq_len);
  shape.group = SeqGroup{p.micro_batch, w.seq_len / p.cp, w.seq_len};
  shape.cp = p.cp;
  shape.sequence_parallel = p.sequence_parallel;
  shape.causal = true;
  shape.attention = attention;
  const bool wide = w.precision == Precision::fp32 || w.precision == Precision::tf32;
  shape.act_bytes = wide ? 4.0 : sw.activation_bytes;
  // fp32 / tf32 training keeps its activations at 4 bytes (saved for the backward too).
  shape.saved_bytes = shape.act_bytes;
  const Precision format = training_format(s.system.device, w.precision);
  if (sw.quantized_saved_inputs && quantised_training(format))
    shape.gemm_saved_bytes = bytes_per_element(format);
  shape.kv_elem_bytes = shape.act_bytes;
  shape.loss = true;
  shape.unfused_elementwise = sw.unfused_operators();
  return shape;
}

std::int64_t expert_dp(const ParallelPlan& p) {
  return std::max<std::int64_t>(1, p.tp * p.cp * p.dp / (p.ep * p.etp));
}

// A balanced custom split (Megatron-Core's uneven first/last stage options and pipeline layouts,
// as Megatron-Bridge's DeepSeek-V3 recipes use): layers / pp on every stage, the remainder one
// each on the last middle stages, then on the last and the first. The stages with one layer
// fewer come first, where 1F1B keeps the most micro-batches in flight: Meta's Llama 3 405B
// takes a layer off its first stage for that reason (Llama 3 paper, arXiv 2407.21783,
// Sec. 3.3.2, "memory imbalance"). Layers of stage s: [begin, end).
namespace {
// The first middle stage of a balanced split that holds one layer more (pp - 1 when none does).
std::int64_t first_longer_middle(const ModelSpec& m, const ParallelPlan& p) {
  return p.pp - 1 - std::min(m.layers % p.pp, std::max<std::int64_t>(0, p.pp - 2));
}
}  // namespace

std::pair<std::int64_t, std::int64_t> balanced_stage_range(const ModelSpec& m, const ParallelPlan& p,
                                                           std::int64_t stage) {
  const std::int64_t base = m.layers / p.pp, extra = m.layers % p.pp;
  const std::int64_t middles = std::max<std::int64_t>(0, p.pp - 2);
  const std::int64_t longer_from = first_longer_middle(m, p);
  const auto layers_of = [&](std::int64_t s) {
    const bool middle = s > 0 && s + 1 < p.pp;
    if (middle) return base + (s >= longer_from ? 1 : 0);
    if (s == p.pp - 1) return base + (extra > middles ? 1 : 0);
    return base + (extra > middles + 1 ? 1 : 0);
  };
  // The stages before `stage`: the first, then the middles below it, of which those from
  // longer_from on hold one more.
  std::int64_t begin = 0;
  if (stage > 0) {
    const std::int64_t before = std::min(stage, p.pp - 1) - 1;  // middle stages before it
    begin = layers_of(0) + before * base + std::max<std::int64_t>(0, std::min(stage, p.pp - 1) - longer_from);
  }
  return {begin, begin + layers_of(stage)};
}

namespace {
// Layer slots per model chunk under the split of a run that trains MTP modules (0: that split does
// not apply). Megatron-Bridge's DeepSeek-V3 recipes lay the pipeline out so (recipes/deepseek:
// _get_deepseek_v3_pipeline_layout; pp 4: 16, 16, 16, 13 layers; pp 8: 8 a stage, 5 on the last;
// pp 16: 4 a stage, 1 on the last, each last stage with the MTP module and the loss): every chunk
// holds layers + 1 + 2 D slots / chunks, where the loss takes one slot, each MTP module two (its
// layer and its pass of the output head) and the embedding none. The layers fill the slots in
// order; the modules and the loss follow them on the last chunk.
std::int64_t mtp_chunk_slots(const ModelSpec& m, const ParallelPlan& p) {
  if (m.mtp_trained <= 0 || p.pp <= 1) return 0;
  const std::int64_t chunks = p.pp * p.interleave, after = 1 + 2 * m.mtp_trained;
  const std::int64_t slots = m.layers + after;
  if (slots % chunks != 0 || slots / chunks < after) return 0;
  return slots / chunks;
}

// The layers of the model chunks on `stage` (chunk c of pp x v sits on stage c % pp), chunk c
// holding the layers range(c) gives, [begin, end).
template <class Range>
KindCounts chunks_on_stage(const ModelSpec& m, const ParallelPlan& p, std::int64_t stage, Range range) {
  KindCounts k{};
  for (std::int64_t c = stage; c < p.pp * p.interleave; c += p.pp) {
    const auto [begin, end] = range(c);
    const KindCounts chunk = kinds_in_range(m, begin, end);
    for (std::size_t j = 0; j < kLayerKinds; ++j) k[j] += chunk[j];
  }
  return k;
}

KindCounts model_layers_at(const ModelSpec& m, const ParallelPlan& p, std::int64_t stage) {
  if (const std::int64_t slots = mtp_chunk_slots(m, p))
    return chunks_on_stage(m, p, stage, [&](std::int64_t c) {
      return std::make_pair(c * slots, std::min((c + 1) * slots, m.layers));
    });
  if (balanced_pipeline_split(m, p)) {
    const auto [begin, end] = balanced_stage_range(m, p, stage);
    return kinds_in_range(m, begin, end);
  }
  const double mid_layers = stage_layers(m, p);
  const bool uneven = uneven_pipeline_split(m, p);
  const bool end_stage = stage == 0 || stage == p.pp - 1;
  if (uniform_layers(m)) {
    KindCounts k{};
    k[kind_of(false, false)] = uneven && end_stage ? mid_layers - 1.0 : mid_layers;
    return k;
  }
  // Chunk c of pp * v holds a contiguous run of layers and sits on stage c % pp; under the
  // embedding/loss split every chunk has (layers + 2) / chunks slots and the first and last
  // chunk give one slot to the embedding and the loss.
  const std::int64_t chunks = p.pp * p.interleave;
  const std::int64_t slots = uneven ? (m.layers + 2) / chunks : m.layers / chunks;
  return chunks_on_stage(m, p, stage, [&](std::int64_t c) {
    const std::int64_t begin = c * slots - (uneven && c > 0 ? 1 : 0);
    const std::int64_t end = c == chunks - 1 ? m.layers : (c + 1) * slots - (uneven ? 1 : 0);
    return std::make_pair(begin, end);
  });
}
}  // namespace

KindCounts stage_kinds_at(const ModelSpec& m, const ParallelPlan& p, std::int64_t stage) {
  KindCounts k = model_layers_at(m, p, stage);
  // Trained MTP modules sit after the last layer, on the last stage, each a transformer layer of
  // the model's own spec (DeepSeek-V3, arXiv 2412.19437 Sec. 2.2: "TRM_k", a MoE layer there;
  // Megatron-Core builds it from the decoder's layer spec and places it on the last pipeline
  // stage).
  if (stage == p.pp - 1 && m.mtp_trained > 0 && m.layers > 0)
    k[layer_kind(m, m.layers - 1)] += static_cast<double>(m.mtp_trained);
  return k;
}

StageKinds stage_kinds(const ModelSpec& m, const ParallelPlan& p) {
  StageKinds out;
  out.first = stage_kinds_at(m, p, 0);
  out.last = stage_kinds_at(m, p, p.pp - 1);
  out.mid = out.first;
  if (p.pp <= 2) {
    // No middle stage: the timing reports the first stage's layers (all of a one-kind model's
    // stage_layers, the last stage's under a balanced split).
    if (balanced_pipeline_split(m, p)) out.mid = out.last;
    if (uniform_layers(m)) out.mid[kind_of(false, false)] = stage_layers(m, p);
    return out;
  }
  // One kind of layer: the middle stages differ only in their count, the first with the most
  // layers is the first of the balanced split's longer ones.
  if (uniform_layers(m)) {
    out.mid_index = balanced_pipeline_split(m, p) && m.layers % p.pp > 0 ? first_longer_middle(m, p) : 1;
    out.mid = stage_kinds_at(m, p, out.mid_index);
    return out;
  }
  // The middle stage with the most layers, of them the most MoE layers; the first such (the
  // most micro-batches in flight).
  const auto weight = [](const KindCounts& k) {
    double layers = 0;
    for (double x : k) layers += x;
    return std::make_pair(layers, moe_count(k));
  };
  std::pair<double, double> most{-1, -1};
  for (std::int64_t s = 1; s + 1 < p.pp; ++s) {
    const KindCounts k = stage_kinds_at(m, p, s);
    if (weight(k) > most) most = weight(k), out.mid = k, out.mid_index = s;
  }
  return out;
}

std::vector<std::pair<std::int64_t, KindCounts>> peak_stages(const ModelSpec& m, const ParallelPlan& p) {
  const StageKinds sk = stage_kinds(m, p);
  std::vector<std::pair<std::int64_t, KindCounts>> out{{0, sk.first}};
  for (const std::int64_t i : {std::int64_t{1}, sk.mid_index, p.pp - 1}) {
    if (i <= 0 || i >= p.pp ||
        std::any_of(out.begin(), out.end(), [&](const auto& st) { return st.first == i; }))
      continue;
    out.emplace_back(i, i == p.pp - 1 ? sk.last : i == sk.mid_index ? sk.mid : stage_kinds_at(m, p, i));
  }
  return out;
}

bool uneven_chunk_split(std::int64_t layers, std::int64_t pp, std::int64_t interleave) {
  const std::int64_t chunks = pp * interleave;
  if (chunks <= 0 || layers % chunks == 0 || (layers + 2) % chunks != 0) return false;
  // The end stages hold (layers + 2) / chunks slots per chunk, one of them the embedding or the
  // loss; each keeps at least one transformer layer. With one slot per chunk the first chunk is
  // the embedding alone and the last the loss alone (Megatron-Bridge runs Llama 3.1 405B's 126
  // layers as pp 16 x interleave 8).
  return (layers + 2) / chunks * interleave >= 2;
}

bool uneven_pipeline_split(const ModelSpec& m, const ParallelPlan& p) {
  return p.pp > 1 && !mtp_pipeline_split(m, p) && uneven_chunk_split(m.layers, p.pp, p.interleave);
}

bool mtp_pipeline_split(const ModelSpec& m, const ParallelPlan& p) { return mtp_chunk_slots(m, p) > 0; }

bool attention_data_parallel(const ParallelPlan& p) {
  if (p.tp == 1) return p.ep * p.etp > 1 && p.dp % (p.ep * p.etp) == 0;
  return p.etp == 1 && p.ep > p.tp && p.ep % p.tp == 0 && p.dp % (p.ep / p.tp) == 0;
}

std::int64_t expert_group_replicas(const ParallelPlan& p) {
  if (!attention_data_parallel(p)) return 0;
  return p.tp == 1 ? p.ep * p.etp : p.ep / p.tp;
}

void size_serving(ServingSpec& sv, const SystemSpec& system, const ParallelPlan& p) {
  const std::int64_t server_tp = p.tp * std::max<std::int64_t>(1, expert_group_replicas(p));
  sv.apply_sizing(system.device.hbm_capacity.value / kGiB, server_tp);
}

std::int64_t inference_expert_tp(const ParallelPlan& p) {
  if (p.tp == 1 && p.etp > 1) return p.etp;  // attention data parallelism with tensor-parallel experts
  return std::max<std::int64_t>(1, p.tp / p.ep);
}

LayerShape inference_layer_shape(const Scenario& s, std::int64_t position_rows) {
  const auto& p = s.parallel;
  LayerShape shape = param_shape(p, position_rows);
  shape.etp = inference_expert_tp(p);
  shape.gather_before_routing = p.tp == 1 && shape.etp > 1;
  shape.moe_allgather = s.system.software.moe_dispatcher == MoeDispatcher::allgather &&
                        attention_data_parallel(p) && shape.etp == 1;
  shape.moe_token_split = attention_data_parallel(p) && p.tp > 1;
  shape.sequence_parallel = false;
  shape.attention = AttentionKernel::flash;
  const auto& w = *s.inference;
  shape.act_bytes = w.precision == Precision::fp32 ? 4.0 : s.system.software.activation_bytes;
  // A quantised dispatch (SoftwareDefaults::quantized_dispatch): the experts' 8- or 4-bit float
  // input with its scales (DeepEP's FP8: a fp32 scale per 128 channels; the block formats' own; a
  // plain fp4 activation, which carries no scale of its own, as NVFP4's blocks).
  const Precision math = served_math(s);
  if (s.system.software.quantized_dispatch && bytes_per_element(math) < 2.0 && !integer_weights(math))
    shape.dispatch_bytes = math == Precision::fp8   ? 1.0 + 4.0 / 128.0
                           : math == Precision::fp4 ? bytes_per_element(Precision::nvfp4)
                                                    : bytes_per_element(math);
  shape.kv_elem_bytes = bytes_per_element(w.kv_precision);
  shape.unfused_elementwise = s.system.software.unfused_operators();
  shape.fused_residual_norm = s.system.software.fused_residual_norm;
  shape.fused_attention_residual_norm = s.system.software.fused_attention_residual_norm;
  shape.rope_in_attention = s.system.software.rope_in_attention;
  return shape;
}

bool balanced_pipeline_split(const ModelSpec& m, const ParallelPlan& p) {
  const std::int64_t chunks = p.pp * p.interleave;
  return p.pp > 1 && m.layers % chunks != 0 && !uneven_pipeline_split(m, p) && !mtp_pipeline_split(m, p);
}

double stage_layers(const ModelSpec& m, const ParallelPlan& p) {
  // Middle stages hold a chunk's slots per chunk under the split of a run that trains MTP modules.
  if (const std::int64_t slots = mtp_chunk_slots(m, p)) return static_cast<double>(slots * p.interleave);
  // Middle stages hold (layers + 2) / pp layers under the embedding/loss-as-a-layer split.
  if (uneven_pipeline_split(m, p)) return static_cast<double>(m.layers + 2) / static_cast<double>(p.pp);
  // A balanced custom split: the busiest stages hold one layer more than layers / pp.
  if (balanced_pipeline_split(m, p)) return static_cast<double>((m.layers + p.pp - 1) / p.pp);
  return static_cast<double>(m.layers) / static_cast<double>(p.pp);
}

}  // namespace optimus
