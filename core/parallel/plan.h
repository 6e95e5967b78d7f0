// How it is split: the Megatron-style parallel layout and the workloads it runs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/precision.h"
#include "base/result.h"
#include "hardware/calibration.h"
#include "hardware/spec.h"
#include "model/graph.h"
#include "model/spec.h"
#include "run/run.h"

namespace optimus {

struct ParallelPlan {
  std::int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  bool sequence_parallel = false;
  std::int64_t micro_batch = 1;
  std::int64_t interleave = 1;  // model chunks per pipeline stage (1 = plain 1F1B)
  Recompute recompute = Recompute::none;
  int zero_stage = 0;
  // Hybrid sharding: the data-parallel ranks (dp x cp) that share one copy of the ZeRO state;
  // the others hold replicas of it (PyTorch FSDP HYBRID_SHARD, MiCS's partition groups: Zhang
  // et al. 2022, arXiv 2205.00119). 0 = every replica shares it (plain ZeRO / FULL_SHARD).
  std::int64_t zero_shard = 0;
  // Expert tensor parallel. Expert layers fold the same ranks differently (Megatron-Core MoE
  // parallel folding, arXiv 2504.14960): etp x ep x edp = tp x cp x dp per pipeline stage.
  std::int64_t etp = 1;
  // Inference: expert slots over the ep ranks, beyond the model's experts when the serving runtime
  // replicates hot experts (DeepSeek's EPLB, arXiv 2412.19437 Sec. 3.4: 32 redundant experts in
  // decode, 288 slots for 256 experts; SGLang --ep-num-redundant-experts, TensorRT-LLM's
  // num_slots). Each ep rank holds slots / ep experts' weights, and a token's expert is one of the
  // copies, so the routed rows spread over more local GEMMs. The router's skew that remains is
  // the model's moe.imbalance, as stated. 0 = one slot per expert.
  std::int64_t expert_slots = 0;
  // Under full recompute, the share of each stage's layers that are checkpointed and rebuilt in
  // the backward; the others keep every activation (OLMo's activation_checkpointing one_in_two =
  // 0.5, torchtitan's layer-selective checkpointing, Megatron-LM's --recompute-method block with
  // --recompute-num-layers n = n / layers per stage). 1 = every layer (Korthikanti et al. 2022).
  double recompute_fraction = 1.0;
  // Layers whose saved activations wait in host memory between their forward and their backward
  // (Megatron-Core cpu_offloading with cpu_offloading_num_layers; Megatron-Bridge's GB200 Llama 3
  // 70B recipes offload 20 or 40 of the 80). Needs pp 1 and no recompute, as Megatron-Core does.
  std::int64_t offload_layers = 0;
  // Under selective recompute, the modules recomputed (Megatron-Core recompute_modules; the
  // default, the attention core, is the spec's selective recompute).
  ModuleSet recompute_modules = kCoreAttnOnly;
};

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
  // sequences (io/api.cpp resolves it into `plan` before anything is predicted).
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
};

// Continuous-batching serving (inference.serving): a stream of requests through an in-flight
// batching scheduler with a paged KV cache and chunked prefill, as vLLM, SGLang and
// TensorRT-LLM run it (Kwon et al. 2023, "Efficient Memory Management for Large Language Model
// Serving with PagedAttention"; Yu et al. 2022, "Orca"; Agrawal et al. 2024, "Sarathi-Serve").
enum class Arrival { poisson, closed, offline };
template <>
struct EnumNames<Arrival> {
  static constexpr std::array<std::pair<Arrival, std::string_view>, 3> table = {
      {{Arrival::poisson, "poisson"}, {Arrival::closed, "closed"}, {Arrival::offline, "offline"}}};
};

// How the scheduler claims KV blocks: on demand as sequences grow, preempting (and later
// recomputing) the newest request when blocks run out (vLLM's default), or the whole
// prompt + output at admission so nothing is ever evicted (TensorRT-LLM's GUARANTEED_NO_EVICT).
enum class KvAdmission { on_demand, reserve };
template <>
struct EnumNames<KvAdmission> {
  static constexpr std::array<std::pair<KvAdmission, std::string_view>, 2> table = {
      {{KvAdmission::on_demand, "on_demand"}, {KvAdmission::reserve, "reserve"}}};
};

// A request length: one value, a {mean, max (, min)} truncated-exponential shape (long-tailed
// like chat traces when the mean is below the midpoint), or weighted [length, weight] points.
struct LengthDist {
  std::vector<std::pair<std::int64_t, double>> points;  // fixed: one point of weight 1
  bool shaped = false;                                  // the {mean, max} form
  bool from_number = false;  // given as one whole number (RL reads it as the longest response)
  double mean = 0;
  std::int64_t min = 1, max = 1;
  double rate = 0;  // the truncated exponential's rate giving `mean` (solved by the reader)
  // {"uniform": [min, max]}: every whole length in [min, max] equally likely (vLLM's
  // benchmark_serving random dataset with --random-range-ratio r draws lengths uniform over
  // [r L, L], as InferenceX runs it); mean (min + max) / 2. Not `shaped`.
  bool uniform = false;
  double expected() const;
  std::int64_t largest() const;
};

// The rate of the truncated exponential on [lo, hi] whose mean is `mean`.
double truncated_exponential_rate(double mean, std::int64_t lo, std::int64_t hi);

struct ServingSlo {
  double ttft_s = 0, tpot_s = 0;  // 0 = no objective on that metric
  // On the gaps between tokens, every token's (Sarathi-Serve's P99 time between tokens, Agrawal et
  // al. 2024): decides whether the objectives are met, not which requests count towards goodput.
  double itl_s = 0;
  double percentile = 90;
};

// One pool of a disaggregated deployment: replicas of tp x pp devices.
struct ServingPool {
  std::int64_t tp = 1, pp = 1, replicas = 1;
  // Expert parallelism of the pool's MoE layers: 0 = the scenario's parallel.ep where the pool
  // admits it (else 1); with tp 1 an ep dividing the replicas is attention data parallelism
  // (DeepSeek-V3's deployment: prefill on EP32, decode on EP144, arXiv 2412.19437 Sec. 3.4).
  std::int64_t ep = 0;
  // The pool's own scheduler settings (absent: inference.serving's): SGLang's and Dynamo's
  // disaggregated recipes give each worker its own --max-running-requests, --chunked-prefill-size
  // and --mem-fraction-static (TensorRT-LLM: max_batch_size, max_num_tokens and
  // free_gpu_memory_fraction per context / generation server).
  std::optional<std::int64_t> max_batch, max_num_tokens;
  std::optional<double> gpu_memory_utilization, free_gpu_memory_fraction;
  // false: the pool runs no speculation although inference.speculative is given (drafting on the
  // decode pool only: a prefill pool emits one token per request, which no draft speeds up).
  std::optional<bool> speculative;
  // The pool's expert slots (ParallelPlan::expert_slots; absent: parallel.expert_slots).
  std::optional<std::int64_t> expert_slots;
};

struct ServingSpec {
  Arrival arrival = Arrival::offline;
  double requests_per_s = 0;     // poisson
  std::int64_t concurrency = 0;  // closed
  std::int64_t num_requests = 1000;
  LengthDist input_len, output_len;
  // Scheduler limits. Defaults describe TensorRT-LLM's in-flight batching as its benchmarks run
  // it (BuildConfig max_batch_size 2048 and max_num_tokens 8192, 64-token KV blocks, the
  // GUARANTEED_NO_EVICT capacity policy); vLLM's are max_num_seqs 256, 16-token blocks and
  // on-demand blocks with preemption. gpu_memory_utilization is vLLM's: the share of device
  // memory for weights, workspace and KV cache.
  std::int64_t max_batch = 2048;
  std::int64_t max_num_tokens = 8192;
  std::int64_t kv_block_tokens = 64;
  double gpu_memory_utilization = 0.9;
  // TensorRT-LLM's KvCacheConfig.free_gpu_memory_fraction: the KV cache takes this share of the
  // memory the weights and the runtime's activation workspace leave free (measured after loading
  // the model and a profiling step of max_num_tokens), instead of gpu_memory_utilization's share of
  // the whole device. 0 = not given (gpu_memory_utilization applies).
  double free_gpu_memory_fraction = 0;
  KvAdmission kv_admission = KvAdmission::reserve;
  // Host time the serving front end adds to every request outside the GPU's steps: receiving and
  // tokenising the request, handing it to the scheduler, detokenising and streaming the first
  // token back (HTTP / gRPC server, tokenizer, response queue). It delays each request's first
  // token (and so its end) but takes no GPU time, so throughput is unchanged.
  double request_overhead_s = 0.004;
  // Host time the scheduler spends between two steps while the GPU waits: forming the batch,
  // preparing its inputs, sampling bookkeeping and handing each new token to its response stream
  // (an executor loop that does not overlap it with the next step, as TensorRT-LLM's before its
  // overlap scheduler; 0 for one that does). Added to every step.
  // Both FITTED together (scripts/fit_serving_overheads.py, a grid over the 216 online rows of
  // TensorRT-LLM v0.14 in serve_public.jsonl: TTFT, inter-token latency, throughput): 4 ms and
  // 1.5 ms (online rows 15.0% -> 10.4%). Out of the fit, the 126 offline v0.17 throughput rows go
  // from 8.9% to 8.2%.
  double step_overhead_s = 0.0015;
  // Host time the runtime spends per scheduled request in every step, on the step's critical path
  // (a Python executor's per-request work: sampling bookkeeping, stop checks, handing each token to
  // its request): the step takes that times the requests it schedules on top of the GPU's time.
  // Default 0 (the C++ runtime's per-step host time is step_overhead_s alone); the
  // tensorrt-llm-pytorch profile takes 13.8 us from a published measurement (its source).
  double step_overhead_per_request_s = 0;
  // The scheduler prepares the next step on the host while the GPU runs this one (SGLang's overlap
  // scheduler, on by default since v0.4: "zero-overhead batch scheduler", SGLang v0.4 release blog,
  // 2024-12, and python/sglang/srt/managers/scheduler.py event_loop_overlap): the host time above is
  // hidden behind the GPU's step, so a step takes the longer of the two instead of their sum.
  bool overlap_schedule = false;
  std::optional<ServingSlo> slo;
  std::optional<ServingPool> prefill, decode;  // disaggregated: both set
  std::uint64_t seed = 1;
};

// Speculative decoding (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative
// Decoding", arXiv 2211.17192; Chen et al. 2023, arXiv 2302.01318): a cheap draft proposes
// draft_tokens tokens per sequence, autoregressively, and the target verifies them all in one
// step of draft_tokens + 1 query tokens, keeping the accepted prefix and one token of its own.
// The draft is a smaller model sharing the tokenizer or, without one, a multi-token-prediction
// head: one transformer layer of the target's shape on the target's embedding and LM head
// (DeepSeek-V3's MTP module, arXiv 2412.19437 Sec. 2.2, used for speculation in Sec. 5.4.3).
struct Speculative {
  std::int64_t draft_tokens = 1;
  double acceptance_rate = 0.85;   // per drafted token, independent (Leviathan et al.'s alpha)
  std::optional<ModelSpec> draft;  // absent: an MTP head ("mtp")
};

// Tokens a sequence gains per verification step when each of k drafted tokens is accepted with
// probability a, independently, until the first rejection: (1 - a^(k+1)) / (1 - a) (Leviathan
// et al. 2023, Eq. 1); k + 1 when every draft is accepted.
double speculative_tokens_per_step(const Speculative& sp);

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
};

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
  ServingSpec serving;              // the scheduler's defaults (arrival and lengths unused)
};

// RL post-training (scenario `rl`, core/rl/): one step of a GRPO or PPO job as the stacks run it
// (verl, OpenRLHF, NeMo-RL, AReaL): generate responses on an inference engine, score them,
// recompute log-probabilities, train, push the new weights to the engine.
enum class RlAlgorithm { grpo, ppo };
template <>
struct EnumNames<RlAlgorithm> {
  static constexpr std::array<std::pair<RlAlgorithm, std::string_view>, 2> table = {
      {{RlAlgorithm::grpo, "grpo"}, {RlAlgorithm::ppo, "ppo"}}};
};
// colocated: one pool time-shares the engine and the trainer (verl's hybrid engine); split: a
// rollout pool and a training pool of their own.
enum class RlPlacement { colocated, split };
template <>
struct EnumNames<RlPlacement> {
  static constexpr std::array<std::pair<RlPlacement, std::string_view>, 2> table = {
      {{RlPlacement::colocated, "colocated"}, {RlPlacement::split, "split"}}};
};
enum class RlWeightSync { nccl, checkpoint };
template <>
struct EnumNames<RlWeightSync> {
  static constexpr std::array<std::pair<RlWeightSync, std::string_view>, 2> table = {
      {{RlWeightSync::nccl, "nccl"}, {RlWeightSync::checkpoint, "checkpoint"}}};
};

// The rollout engine: its layout (0 = chosen: the smallest tp that holds the longest response,
// dp = what is left of the pool), its software stack (the system's software block with the
// profile laid over it, and the profile's scheduler) and precision.
struct RlRollout {
  std::int64_t tp = 0, pp = 1, ep = 0, dp = 0;
  std::string software_id = "vllm";
  SoftwareDefaults software;  // the rollout's kernels (system software + profile)
  std::optional<bool> cuda_graphs;
  ServingSpec scheduler;  // max_batch, gpu_memory_utilization, blocks (profile + keys)
  Precision precision = Precision::bf16;
};

struct RlWorkload {
  RlAlgorithm algorithm = RlAlgorithm::grpo;
  std::optional<ModelSpec> critic;  // ppo: absent = the policy's shape
  std::int64_t prompts_per_step = 512, samples_per_prompt = 16;
  LengthDist prompt_len, response_len;
  bool reference = true;
  std::optional<ModelSpec> reward_model;  // absent: a rule-based reward (no GPU time)
  bool old_logprob = true;
  std::int64_t mini_batches = 1;
  RlPlacement placement = RlPlacement::colocated;
  std::int64_t rollout_devices = 0, train_devices = 0;  // split: both given, summing to num_devices
  RlRollout rollout;
  bool train_auto = false;  // train: "auto" (the layout search picks the trainer's layout)
  ParallelPlan train;       // the trainer's layout (dp 0 = what is left of the pool)
  Precision train_precision = Precision::bf16;
  std::int64_t staleness = 0;  // async: rollouts may lag the policy by this many steps
  RlWeightSync weight_sync = RlWeightSync::nccl;
  std::int64_t train_steps = 0;  // 0 = one step only (no whole-run block)
};

struct Scenario {
  std::string name;
  std::optional<SoftwareProfile> software;
  ModelSpec model;
  SystemSpec system;
  std::int64_t num_devices = 1;
  ParallelPlan parallel;
  // parallel: "auto": the layout search picks the fastest layout that fits (io/api.cpp), and
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

// The software a scenario runs, as a calibration records it (hardware/calibration.h): its
// presets/software id, "inline" for an inline profile, "" for the system's own software block.
std::string software_identity(const Scenario& s);

// Transformer layers on the most loaded pipeline stage. Layers split evenly over pp*interleave
// model chunks; when they do not, Megatron-LM can count the embedding and the loss as one layer
// each (`--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split`), so
// (layers + 2) split evenly and the first and last stages hold one layer less per end
// (e.g. Llama 3.1 405B: 126 layers over pp*v = 64 chunks of 2 slots). Returns layers/pp when
// the split is even.
double stage_layers(const ModelSpec& m, const ParallelPlan& p);
// Whether the plan relies on that embedding/loss-as-a-layer split.
bool uneven_pipeline_split(const ModelSpec& m, const ParallelPlan& p);
// Whether the layers fit the chunks only unevenly, with neither split (a custom layout: the
// busiest stages hold ceil(layers / pp), stage_kinds says which).
bool balanced_pipeline_split(const ModelSpec& m, const ParallelPlan& p);
// Layers of each kind (model/spec.h kind_of: MoE or dense FFN, windowed or global attention) on
// the first, the heaviest middle (most MoE layers) and the last pipeline stage, for the layout's
// chunks (interleave) and the embedding/loss split. A model of one kind has its whole stage_layers
// count (one less on the end stages under the split) in that kind.
struct StageKinds {
  KindCounts first{}, mid{}, last{};
};
StageKinds stage_kinds(const ModelSpec& m, const ParallelPlan& p);
// Expert-data-parallel replicas: tp x cp x dp / (ep x etp).
std::int64_t expert_dp(const ParallelPlan& p);

// Whether `layers` fill pp x interleave model chunks only with that split (not evenly, but
// layers + 2 evenly, with at least one transformer layer left on each end stage).
bool uneven_chunk_split(std::int64_t layers, std::int64_t pp, std::int64_t interleave = 1);

// Which network tier a communication group runs on. Ranks are laid out Megatron-style,
// tensor-parallel fastest, then context, data and pipeline parallel (Megatron-LM
// `--rank-order tp-cp-ep-dp-pp`), so a group with stride `stride` and `size` members
// spans stride*size consecutive ranks.
struct GroupPlacement {
  std::int64_t size = 1;
  std::int64_t per_domain = 1;  // members sharing one scale-up domain
  std::int64_t domains = 1;     // scale-up domains the group spans
  bool crosses_scale_out() const { return domains > 1; }
};

GroupPlacement place_group(std::int64_t size, std::int64_t stride, std::int64_t domain_size);

// The layer as one device of this layout sees it. Training: one micro-batch of seq_len/cp query
// tokens per sequence over seq_len keys, with the stack's activation widths (4-byte kernels for
// fp32/tf32 training). The embedding and head shapes are the same object.
LayerShape training_layer_shape(const Scenario& s, AttentionKernel attention);
// Inference splits the experts over the tp ranks: ep of them by expert, tp / ep within one.
std::int64_t inference_expert_tp(const ParallelPlan& p);
// Attention data parallelism in inference (tp 1, ep > 1 dividing dp): each of ep data-parallel
// ranks runs attention and the dense layers on its own sequences with the whole weights, and the
// MoE layers exchange the routed tokens over the ep group, each rank holding experts / ep experts
// (DeepSeek-V3's decoding deployment, arXiv 2412.19437 Sec. 3.4.2; TensorRT-LLM's
// enable_attention_dp, SGLang's and vLLM's data-parallel attention with expert parallelism).
bool attention_data_parallel(const ParallelPlan& p);
// Inference: experts split over the tp ranks (ep by expert, tp / ep within one), no sequence
// parallelism, the workload's activation and KV widths; groups are set per step.
LayerShape inference_layer_shape(const Scenario& s, std::int64_t position_rows);
// A shape for parameter counts only (tp, pp, ep and etp split; no tokens).
LayerShape param_shape(const ParallelPlan& p, std::int64_t position_rows);

// Checks a layout against the model, the workloads and the device count. Returns the first
// problem found, with the JSON Pointer of the key to change.
std::optional<Error> validate_plan(const Scenario& s);

// Micro-batches per iteration per data-parallel replica: B / (dp * b).
std::int64_t micro_batches(const ParallelPlan& p, const TrainingWorkload& w);

// The data-parallel ranks one copy of the ZeRO state is sharded over: zero_shard when hybrid
// sharding is set, else all dp x cp replicas of the dense weights.
inline std::int64_t zero_shard_ranks(const ParallelPlan& p) {
  return p.zero_shard > 0 ? p.zero_shard : p.dp * p.cp;
}
// The copies of the ZeRO state across the data-parallel ranks: 1 without hybrid sharding.
inline std::int64_t zero_replicas(const ParallelPlan& p) { return p.dp * p.cp / zero_shard_ranks(p); }

}  // namespace optimus
