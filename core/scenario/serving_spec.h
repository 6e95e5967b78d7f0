// The serving and speculative-decoding workloads (scenario `inference.serving` and
// `inference.speculative`): the request stream, the scheduler's limits and the draft.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "model/spec.h"

namespace optimus {

// Continuous-batching serving (inference.serving): a stream of requests through an in-flight
// batching scheduler with a paged KV cache and chunked prefill, as vLLM, SGLang and
// TensorRT-LLM run it (Kwon et al. 2023, "Efficient Memory Management for Large Language Model
// Serving with PagedAttention"; Yu et al. 2022, "Orca"; Agrawal et al. 2024, "Sarathi-Serve").
OPTIMUS_ENUM(Arrival, poisson, closed, offline);

// How the scheduler claims KV blocks: on demand as sequences grow, preempting (and later
// recomputing) the newest request when blocks run out (vLLM's default), or the whole
// prompt + output at admission so nothing is ever evicted (TensorRT-LLM's GUARANTEED_NO_EVICT).
OPTIMUS_ENUM(KvAdmission, on_demand, reserve);

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
  // The longest draw of a run is set to `max` (shaped only): RL reads a whole-number response_len
  // as the generation limit, and a step's longest response is one cut at it (core/rl/rl.cpp).
  bool longest_at_max = false;
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

// A runtime's scheduler defaults sized from the device it runs on and the server's tensor-parallel
// degree (a software profile's serving.sizing, docs/contract.md): the first rule whose conditions
// hold supplies what the scenario leaves unstated. SGLang sizes --chunked-prefill-size and
// --cuda-graph-max-bs so (python/sglang/srt/server_args.py, _handle_gpu_memory_settings: below 20
// GB of device memory 2048 tokens and 8 sequences; below 35 GB 2048 and 24, 80 at tp 4 or more;
// below 60 GB 4096 and 32 / 160; below 160 GB (H100, H200, H20) 8192 and 256 / 512; larger (B200,
// MI300X) 16384 and 512).
struct ServingSizing {
  double below_GiB = 0;                   // the device's memory below this (0: any)
  std::int64_t min_tp = 0;                // the server's tensor-parallel degree at least this (0: any)
  std::int64_t max_num_tokens = 0;        // its step budget (0: left as it is)
  std::int64_t cuda_graph_max_batch = 0;  // its largest captured graph (0: left as it is)
  bool holds(double device_GiB, std::int64_t tp) const {
    return (below_GiB <= 0 || device_GiB < below_GiB) && (min_tp <= 0 || tp >= min_tp);
  }
};

// What a step's size is counted in against the largest captured CUDA graph.
OPTIMUS_ENUM(GraphUnit, sequences, tokens);

struct ServingSpec {
  Arrival arrival = Arrival::offline;
  double requests_per_s = 0;     // poisson
  std::int64_t concurrency = 0;  // closed
  // A Poisson stream at a finite rate: arrivals spread over time ("inf" sends them all at once).
  bool spread_arrivals() const {
    return arrival == Arrival::poisson && requests_per_s < std::numeric_limits<double>::max();
  }
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
  // Whether that overlap also runs for a model with linear-attention layers. SGLang turns it off for
  // them: Qwen3-Next ran without it from its release (sgl-project/sglang PR #14792, 2025-12:
  // "qwen3-next doesn't support 1) overlap scheduler"), PR #13057 (2025-11) disables it whenever the
  // mamba radix cache is on, and its default mamba scheduler strategy (no_buffer) keeps it off
  // unless --mamba-scheduler-strategy extra_buffer is given (PR #27220, 2026-06: "auto resolves to
  // no_buffer - disables overlap scheduling"). false in the sglang profiles.
  bool linear_attention_overlap = true;
  // The step token budget (max_num_tokens) is the server's, divided over its attention-DP ranks:
  // under data-parallel attention each rank schedules max_num_tokens / dp_size tokens a step
  // (SGLang's server arguments, `_handle_data_parallelism`: chunked_prefill_size //= dp_size when
  // enable_dp_attention; its default chunk is divided the same way). dp_size is the ranks of one
  // expert group, which step together (expert_group_replicas). vLLM's data-parallel engines and
  // TensorRT-LLM's attention DP read their budgets per rank: false.
  bool budget_split_over_dp = false;
  // Static batching: a replica takes up to max_batch waiting requests together and admits none
  // until every one of them has finished, so each batch lasts as long as its longest response
  // (Hugging Face generate, FasterTransformer's and DeepSpeed-Chat's batches; the request-level
  // scheduling Orca's iteration-level scheduling replaces: Yu et al. 2022, OSDI, Sec. 2.2).
  // false: continuous batching, a finished request's slot refilled at the next step.
  bool static_batching = false;
  // Requests per shared prompt: consecutive requests in groups of this size are samples of one
  // prompt (an RL step's samples_per_prompt), dealt to one replica, with one prompt length. The
  // first admitted prefills the prompt; a later one, while a sample of its prompt holds the
  // prompt's KV blocks, takes the prompt's whole blocks from it (prefilled and stored once) and
  // prefills the rest. vLLM V0 forks the prompt's blocks for a request of n samples; vLLM V1's
  // parallel sampling sends n requests that hit its prefix cache (PR 10980 / 13421, prefix
  // caching on by default); SGLang caches the common prefix before the n samples
  // (tokenizer_manager, parallel sample) in its radix cache. 1: every request its own prompt.
  // Not read from a scenario's serving block: the RL rollout sets it (rl.rollout.prefix_caching).
  std::int64_t prompt_group = 1;
  // The simulation stops once a replica's clock passes this many seconds, refused as
  // serving.past_horizon: a caller that only needs to know whether a run ends before some time is
  // spared the rest of it (the RL placement search: a candidate whose rollout alone outlasts the
  // steps it has listed cannot rank; the RL rollout's chosen tp: a wider engine still serving when
  // the narrower one's rollout and swap are over cannot be the faster). Not read from a scenario's
  // serving block. Infinity: none.
  double horizon_s = std::numeric_limits<double>::infinity();
  // Requests per shared prompt as a count: prompt_group, at least 1.
  std::int64_t group_size() const { return prompt_group > 1 ? prompt_group : 1; }
  // Tokens at the start of every request's prompt that all requests share (a system prompt; vLLM
  // bench's --random-prefix-len): within a replica a request admitted while another holds the
  // prefix's blocks takes its whole blocks without prefilling or claiming them (the runtimes'
  // prefix caching: vLLM V1 and SGLang on by default, TensorRT-LLM's KV block reuse). 0: none.
  // With prompt_group > 1 the groups' whole prompts are shared instead.
  std::int64_t shared_prefix_len = 0;
  // The largest decode batch the runtime captured a CUDA graph for (0: every step replays one). A
  // step of more sequences runs without graph replay, each kernel issued from the host: vLLM V1
  // captures batches up to min(2 x max_num_seqs, 512) (vllm/config/vllm.py, set_cudagraph_sizes:
  // max_graph_size; its --max-cudagraph-capture-size) and runs larger ones eager; SGLang captures
  // up to cuda_graph_max_bs (server_args.py: 512 at tp 4 or more on 60-160 GB devices and on every
  // larger one, 256 below tp 4 on them) and falls back to its eager forward above it (SGLang
  // docs/advanced_features/cuda_graphs.md: "Larger batches fall back to normal execution").
  std::int64_t cuda_graph_max_batch = 0;
  // Whether a step that prefills a prompt chunk replays a graph too (up to cuda_graph_max_batch).
  // vLLM V1 captures mixed batches as piecewise graphs; SGLang runs its extend (prefill) batches
  // eager unless --enable-piecewise-cuda-graph is given (server_args.py: enable_piecewise_cuda_graph
  // False by default): false in the sglang profiles.
  bool prefill_cuda_graphs = true;
  // What cuda_graph_max_batch counts. sequences: a step's sequences (SGLang's cuda_graph_max_bs,
  // a batch size; TensorRT-LLM's cuda_graph_config.max_batch_size). tokens: a step's tokens, a
  // decoding sequence 1 + its draft tokens and a prompt chunk its own length, and never more than
  // max_num_tokens (vLLM V1 captures graphs by num_tokens: vllm/config/vllm.py,
  // _set_cudagraph_sizes, max_cudagraph_capture_size = min(max_num_seqs x (1 + num_speculative_
  // tokens) x 2, 512) and at most max_num_batched_tokens; its CUDA-graph dispatcher runs a step of
  // more tokens without one).
  GraphUnit cuda_graph_unit = GraphUnit::sequences;
  // The software profile's device-sized defaults (ServingSizing), less what the scenario states,
  // laid over by size_serving (parallel/plan.h) at each server's layout: the scenario's at read,
  // each deployment's in a serving search, each pool's when disaggregated, an RL rollout engine's.
  std::vector<ServingSizing> sizing;
  // Drops the rules' say over a key the scenario states.
  void keep_stated(bool tokens, bool graphs) {
    for (ServingSizing& r : sizing) {
      if (tokens) r.max_num_tokens = 0;
      if (graphs) r.cuda_graph_max_batch = 0;
    }
  }
  // Lays the first rule that holds over max_num_tokens and cuda_graph_max_batch.
  void apply_sizing(double device_GiB, std::int64_t tp) {
    for (const ServingSizing& r : sizing) {
      if (!r.holds(device_GiB, tp)) continue;
      if (r.max_num_tokens > 0) max_num_tokens = r.max_num_tokens;
      if (r.cuda_graph_max_batch > 0) cuda_graph_max_batch = r.cuda_graph_max_batch;
      return;
    }
  }
  std::optional<ServingSlo> slo;
  std::optional<ServingPool> prefill, decode;  // disaggregated: both set
  std::uint64_t seed = 1;
  // Not a scenario key: whether the run keeps the inter-token gaps' distribution (the itl
  // percentiles and the SLO's itl). An RL rollout reports none of them and leaves it off.
  bool gap_distribution = true;
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
  double acceptance_rate = 0.85;  // the first drafted token's (Leviathan et al.'s alpha)
  // Each drafted position past the draft's own (a draft model's first; an MTP draft's first
  // model.mtp_layers, at least one) is accepted, given the ones before it, at acceptance_rate x
  // acceptance_decay^(positions past them): 1 keeps Leviathan et al.'s independent alpha.
  // Absent: kMtpReuseDecay for an MTP draft, 1 for a draft model.
  std::optional<double> acceptance_decay;
  std::optional<ModelSpec> draft;  // absent: an MTP head ("mtp")
};

// The acceptance_decay of an MTP draft unless stated: an MTP module is trained to predict the
// token after the main model's (DeepSeek-V3, arXiv 2412.19437 Sec. 2.2); drafting further, a
// runtime feeds the same module its own hidden state (TensorRT-LLM's "MTP Eagle", SGLang's and
// vLLM's k > num_nextn_predict_layers), which it was not trained on, and each further position is
// accepted less often. FITTED on one published measurement, DeepSeek-V3-0324's own MTP module
// reused for K = 7 drafted tokens: mean acceptance length 3.20 at temperature 0 and 3.09 at 1
// over MT-bench, HumanEval and GSM8K (nebius/MTP-DeepSeek-V3-0324 model card, "Original MTP"):
// with the first position at 0.85, a decay of 0.85 gives 3.17 (0.86: 3.22); without a decay the
// closed form gives 4.85. Cross-checks, not fitted: DeepSeek-V4's module in vLLM on random
// 1,024-token prompts, k = 2, accepted 77% at the first position and 36-38% at both (a
// conditional 0.48 at the second; vLLM pull request 41044), and SGLang's DeepSeek-V4 checks ask
// at least 1.6 tokens a step for one drafted token and 2.8 for three (sglang pull request
// 28098), which a first position near 0.8 reaches only with a decay above 0.9: the decay is
// the model's and the text's, not a constant of nature (docs/serving.md, Speculative decoding).
inline constexpr double kMtpReuseDecay = 0.85;

// The drafted positions a draft owns (its acceptance_rate holds there): 1 for a draft model,
// max(1, model.mtp_layers) for an MTP draft (one module a position; a model without one is costed
// as having one).
std::int64_t speculative_own_positions(const Speculative& sp, std::int64_t mtp_layers);

// The conditional acceptance of each drafted position (1 to k): acceptance_rate for the draft's
// own positions, then acceptance_rate x acceptance_decay^(i - own) for position i past them.
std::vector<double> speculative_acceptance(const Speculative& sp, std::int64_t mtp_layers);

// Tokens a sequence gains per verification step: the target's own token plus each drafted
// token accepted with every one before it, 1 + sum over i of a_1 x ... x a_i with a_i the
// conditional acceptance above (Leviathan et al. 2023, Eq. 1, which is the case of one a for
// every position: (1 - a^(k+1)) / (1 - a)); k + 1 when every draft is accepted.
double speculative_tokens_per_step(const Speculative& sp, std::int64_t mtp_layers);

// The warning a software profile without a scheduler (no serving block) gets where its engine is
// simulated: `what` names the key, and the words say which scheduler ran instead (the serving
// defaults where the scenario states no key): inference.profile_not_serving, rl.rollout_not_serving.
std::string not_serving_words(const std::string& what, const ServingSpec& sv);

}  // namespace optimus
