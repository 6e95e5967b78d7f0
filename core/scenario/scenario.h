// What is asked: the model, the system, the layout and the workloads of one scenario (the
// contract's input, docs/contract.md), read by io/ and predicted by the engine above.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/precision.h"
#include "base/result.h"
#include "hardware/calibration.h"
#include "hardware/spec.h"
#include "model/spec.h"
#include "run/run.h"
#include "scenario/layout.h"
#include "scenario/rl_spec.h"
#include "scenario/serving_spec.h"

namespace optimus {

// The precisions a workload accepts (the scenario's `precision` keys).
inline constexpr std::array<Precision, 8> kTrainingPrecisions = {
    Precision::fp32, Precision::tf32,  Precision::fp16,  Precision::bf16,
    Precision::fp8,  Precision::mxfp8, Precision::nvfp4, Precision::mxfp4};
inline constexpr std::array<Precision, 9> kInferencePrecisions = {
    Precision::fp32, Precision::fp16,  Precision::bf16,  Precision::fp8,  Precision::int8,
    Precision::int4, Precision::mxfp8, Precision::nvfp4, Precision::mxfp4};

// A later stage of a whole run (training.stages): `tokens` more after train_tokens, at its own
// sequence length and batch, on the scenario's layout with the keys given here changed (a
// context extension: longer sequences over more cp ranks, as Llama 3's and DeepSeek-V3's runs
// end). Unset keys keep the scenario's; dp, when not given, is what tp x pp x cp leave.
struct TrainingStage {
  double tokens = 0;
  std::int64_t seq_len = 0;       // 0 = the workload's
  std::int64_t global_batch = 0;  // 0 = the workload's
  std::optional<std::int64_t> tp, pp, cp, dp, micro_batch, interleave;
  std::optional<Recompute> recompute;
  // parallel: "auto": the layout search picks the stage's fastest layout that fits on its own
  // sequences (search/auto_layout.h resolves it into `plan` before anything is predicted).
  bool auto_layout = false;
  std::optional<ParallelPlan> plan;  // the stage's whole layout, once resolved
};
inline constexpr std::size_t kMaxTrainingStages = 32;

struct TrainingWorkload {
  std::int64_t global_batch = 0;  // sequences per optimizer step
  std::int64_t seq_len = 0;
  Precision precision = Precision::bf16;
  double train_tokens = 0;                   // 0 = not asked
  std::optional<AttentionKernel> attention;  // default: the system's software default
  std::optional<bool> overlap_grad_reduce;   // default: the system's software default
  std::optional<bool> tp_comm_overlap;       // default: the system's software default
  std::vector<RampStep> batch_ramp;          // steps before the steady global_batch (needs train_tokens)
  double checkpoint_interval_s = 0;          // compute between checkpoints; 0 = Young/Daly
  std::vector<TrainingStage> stages;         // after train_tokens, in order (needs train_tokens)
  // Multi-token-prediction modules trained beside the model (Megatron-Core --mtp-num-layers;
  // DeepSeek-V3 trained one); absent = none. The reader copies it into ModelSpec::mtp_trained,
  // which the graph, the pipeline stages and the memory read.
  std::optional<std::int64_t> mtp_layers;
};

struct InferenceWorkload {
  std::int64_t batch = 1;
  std::int64_t prompt_len = 0;
  std::int64_t output_len = 0;
  Precision precision = Precision::fp16;
  Precision kv_precision = Precision::fp16;
  // The runtime replays each step from a captured CUDA graph (torch.compile "reduce-overhead",
  // vLLM, TensorRT-LLM's cuda_graph_mode): no host launch bound. Default: the system's
  // software.launch_interval_us applies.
  std::optional<bool> cuda_graphs;
  std::optional<ServingSpec> serving;  // continuous batching over a request stream
  std::optional<Speculative> speculative;
  // Elements per quantisation group of integer (int4 / int8) weights; each group carries a
  // 16-bit scale and a 16-bit zero point. Absent: kDefaultInt4Group for int4, one scale per
  // output channel (a negligible share) for int8.
  std::optional<std::int64_t> weight_group_size;
  // fp8 weights and activations with fine-grained scales (128 x 128 weight blocks, 1 x 128
  // activation tiles: DeepSeek-V3's recipe, arXiv 2412.19437 Sec. 3.3, and the FP8 checkpoints
  // of DeepSeek-V3/R1 and Qwen3) instead of one scale per tensor or channel. On a device whose
  // tensor cores take no block scales (Hopper) the runtime's kernels apply them in the main loop
  // (SoftwareDefaults::block_fp8_gemm).
  bool fp8_block_scaled = false;
  // The matmuls' activation operand and math when they are wider than the weights: weight-only
  // quantisation (W4A16), where the kernel dequantises each weight tile in the main loop and
  // multiplies at the activation format's rate while reading the weights at `precision` size.
  // gpt-oss's MXFP4 experts on Hopper run so under TensorRT-LLM's Triton MoE backend (its GPT-OSS
  // deployment guide, "MoE Backend Support Matrix": H200, activation BF16, MoE weights MXFP4,
  // backend TRITON; Blackwell: MXFP8 x MXFP4 on its fp4 units). Absent: the weights' precision.
  std::optional<Precision> activation_precision;
  // precision (and fp8_block_scaled) not stated: the checkpoint's (model.checkpoint_precision).
  bool precision_from_checkpoint = false;
};

// The precision an inference workload's matmuls run in: the activations' when stated, else the
// weights'.
// int4 weights without stated activations are weight-only (W4A16): the int4 formats the runtimes
// serve (AWQ, Lin et al. 2023; GPTQ, Frantar et al. 2022; TensorRT-LLM's int4_awq and vLLM's
// Marlin kernels) dequantise the weights to 16 bits and multiply there, so the math is bf16's,
// not the device's int4 tensor rate (a probe found Llama 3 70B's prefill on A100 1.9x too fast).
constexpr Precision inference_math(const InferenceWorkload& w) {
  return w.activation_precision.value_or(w.precision == Precision::int4 ? Precision::bf16 : w.precision);
}

// Whether the weights outside the routed experts stay at 16 bits: the checkpoint is quantised in
// its experts only (model.checkpoint_experts_only) and served at its own precision, as the
// runtimes load it (vLLM and TensorRT-LLM read quantization_config's modules_to_not_convert).
// A precision other than the checkpoint's is a quantisation of every matrix.
constexpr bool dense_weights_16bit(const ModelSpec& m, const Precision served) {
  return m.checkpoint_experts_only && m.checkpoint_precision == served && bytes_per_element(served) < 2.0;
}
// The bytes of a weight outside the routed experts when the quantised ones take `quantised`: 2
// where dense_weights_16bit, else the same.
constexpr double dense_weight_bytes(const ModelSpec& m, const Precision served, const double quantised) {
  return dense_weights_16bit(m, served) ? std::max(2.0, quantised) : quantised;
}
// How a checkpoint's weights are served, in words (the checkpoint warnings of inference and RL):
// "fp8 with 128 x 128 block scales", "mxfp4 in the experts and 16-bit elsewhere".
std::string served_as_published(const ModelSpec& m, Precision served, bool block_scaled);
// The model as warnings name it: its name, or "the model" for an unnamed inline one.
std::string model_label(const ModelSpec& m);

// Weight-only int4 is stored in groups of 128 by default in AWQ (Lin et al. 2024, arXiv
// 2306.00978, Sec. 5.1: "group size 128"), GPTQ's released checkpoints and TensorRT-LLM's
// int4_awq; gpt-fast quantises in groups of 32 (its README: quantize.py --groupsize 32).
inline constexpr std::int64_t kDefaultInt4Group = 128;

// Bytes an inference kernel reads per matrix weight: the element at the inference precision plus,
// for integer weights, its share of the group's 16-bit scale and zero point, 4 / group bytes
// (tinygemm's and gpt-fast's scales_and_zeros layout: two bf16 values per group and output
// channel; AWQ and GPTQ pack the zero point in 4 bits, 2.5 bytes, under 1.2% of int4 weight
// bytes less at group 128).
double inference_weight_bytes(const InferenceWorkload& w);

// A software stack (scenario `software`: a presets/software id or an inline object): what
// differs between stacks, laid over the system's default software block, plus the defaults the
// stack gives an inference runtime (CUDA-graph replay) and a serving scheduler.
struct SoftwareProfile {
  std::string id;                   // preset id; empty for an inline profile
  std::string json;                 // the profile as given (written back by scenario_to_json)
  std::optional<bool> cuda_graphs;  // the runtime's default when inference.cuda_graphs is absent
  // The runtime's "auto" KV-cache dtype under 8-bit weights: the checkpoint's quantisation (true:
  // TensorRT-LLM reads kv_cache_quant_algo from the checkpoint) or the model's 16-bit dtype (false:
  // vLLM, SGLang, Hugging Face). io/json_io.cpp applies it where inference.kv_precision is absent.
  bool kv_cache_follows_weights = true;
  // Where the model does not state model.attention.linear_state_precision, whether the runtime keeps
  // linear attention's state in the model's 16-bit type (vLLM: mamba_ssm_cache_dtype "auto" is the
  // model's dtype for Qwen3-Next, vllm-project/vllm PR #34489) rather than fp32 (SGLang's
  // --mamba-ssm-dtype default). io/json_io.cpp applies it to an inference scenario.
  bool linear_state_follows_model = false;
  ServingSpec serving;     // the scheduler's defaults (arrival and lengths unused)
  bool schedules = false;  // the profile states a scheduler (a serving block)
  // A static batch's prompts are prefilled in steps of at most serving.max_num_tokens tokens
  // (chunked prefill: vLLM's max_num_batched_tokens, SGLang's chunked_prefill_size, TensorRT-LLM's
  // max_num_tokens): a runtime with a scheduler of its own that batches continuously.
  bool prefills_in_steps() const { return schedules && !serving.static_batching; }
};

struct Scenario {
  std::string name;
  std::optional<SoftwareProfile> software;
  ModelSpec model;
  SystemSpec system;
  std::int64_t num_devices = 1;
  ParallelPlan parallel;
  // parallel: "auto": the layout search picks the fastest layout that fits (search/auto_layout.h), and
  // `parallel` holds it once resolved.
  bool parallel_auto = false;
  std::optional<TrainingWorkload> training;
  std::optional<InferenceWorkload> inference;
  std::optional<RlWorkload> rl;  // RL post-training (alone: no training or inference beside it)
  Economics economics;           // prices of devices and energy (the default preset when absent)
  // Calibration to a measurement (hardware/calibration.h): when applied, `system` holds the
  // calibrated rates and the calibration the system before them.
  std::optional<Calibration> calibration;
};

// The draft as a scenario of its own on the target's devices (the target's system, tp and
// precision; one pipeline stage; its experts, if any, split as the target's): the draft model,
// or for an MTP head the target's model cut to one layer (every layer MoE when the target has
// experts). Its `inference.speculative` is cleared.
Scenario speculative_draft_scenario(const Scenario& s);

// The scenario an inference block runs on. Context parallelism splits training sequences only
// (docs/contract.md, parallel.cp): in a scenario that also trains with cp > 1, the inference's
// replicas (tp x pp each) take the cp ranks as more data-parallel replicas, dp x cp of them.
// Anything else: the scenario as given.
Scenario inference_view(const Scenario& s);

// The precision an inference's matmuls run at: inference_math, except a 4-bit float checkpoint
// on a device without 4-bit float tensor cores, which multiplies in bf16 (scenario.cpp).
Precision served_math(const Scenario& s);

// The software a scenario runs, as a calibration records it (hardware/calibration.h): its
// presets/software id, "inline" for an inline profile, "" for the system's own software block.
std::string software_identity(const Scenario& s);

// The scenario's calibration applied to its system, where the device and the software it was
// fitted on are the scenario's: `calibration->uncalibrated` keeps the system before the factors
// and `applied` is set. Fitted elsewhere, the system stays as it is and `not_applicable` says why
// (predict warns calibration.not_applicable). A factor outside its physical range on this system
// (hardware/calibration.h calibration_bounds) is the error calibration.factor_out_of_range at
// /calibration/factors/<name>. No calibration: nothing to do.
std::optional<Error> apply_calibration(Scenario& s);

}  // namespace optimus
