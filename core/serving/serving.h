// Continuous-batching serving: a stream of requests through an in-flight batching scheduler
// (Yu et al. 2022, "Orca"), a paged KV cache that admits and preempts by free blocks (Kwon et
// al. 2023, vLLM / PagedAttention) and chunked prefill under a per-step token budget (Agrawal et
// al. 2024, "Sarathi-Serve"), simulated step by step over the engine's step time. Attention data
// parallel ranks step together, each step as long as the slowest rank's (TensorRT-LLM tech blog
// 10, "ADP Balance Strategy"). Deterministic: request lengths and arrivals come from a seeded
// generator of our own (the same sequence natively and in WebAssembly).
//
// The simulator reaches the rest of the engine through one interface, StepModel (step_model.h):
// predict/ builds one per pool of replicas from the scenario (predict/serving.cpp) and calls
// simulate_serving.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/result.h"
#include "scenario/serving_spec.h"
#include "serving/step_model.h"

namespace optimus {

// A latency distribution over the completed requests.
struct LatencyStats {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

// One simulated step of the first replica (sampled for a chart).
struct ServingStepSample {
  double t_s = 0;     // end of the step since the first arrival
  double step_s = 0;  // its duration
  std::int64_t running = 0, waiting = 0;
  std::int64_t prefill_tokens = 0, decode_tokens = 0;
  double kv_utilisation = 0;  // share of the KV blocks in use
};

struct ServingSloReport {
  double ttft_s = 0, tpot_s = 0, itl_s = 0, percentile = 90;
  // TTFT and TPOT over the requests, the inter-token gap over every token (ServingSlo::itl_s).
  double ttft_at_percentile = 0, tpot_at_percentile = 0, itl_at_percentile = 0;
  bool met = false;  // every objective given holds at the percentile
};

struct ServingPrediction {
  double requests_per_s = 0;
  double input_tokens_per_s = 0, output_tokens_per_s = 0, output_tokens_per_s_per_gpu = 0;
  LatencyStats ttft, tpot, e2e;
  // Token-weighted mean inter-token latency: every gap between two output tokens of every request
  // counts once, sum(end - first token) / sum(output - 1) ("Mean ITL" in TensorRT-LLM's and
  // vLLM's benchmark reports). tpot.mean weights each request once instead; with unequal output
  // lengths the long requests, which also decode in the emptier end of a burst, weigh more here.
  double mean_itl_s = 0;
  // The inter-token gaps themselves, token-weighted: every gap between two output tokens of every
  // request once (the gap a request waits out while preempted or queued included; a verified
  // speculation's n tokens are n gaps of a 1/n share each). mean equals mean_itl_s; the percentiles
  // come from log-spaced bins 0.7% wide, interpolated within a bin ("Median / P99 ITL" of vLLM's
  // benchmark_serving).
  LatencyStats itl;
  double mean_batch = 0;           // time-weighted sequences per step, per replica
  double kv_utilisation = 0;       // time-weighted share of KV blocks in use
  double kv_peak_utilisation = 0;  // the largest share in use at the end of a step, over the replicas
  // Bytes of KV blocks a device of a replica sets aside (the decode pool's when disaggregated): the
  // engine allocates them whole at start (vLLM's and SGLang's block pools), whatever the stream uses.
  double kv_pool_bytes_per_device = 0;
  std::int64_t preemptions = 0;
  // Steps run without a CUDA graph: larger than the runtime's largest captured graph
  // (PoolLimits::within_graphs), or prefilling where the runtime prefills eager
  // (ServingSpec::prefill_cuda_graphs); beyond_graphs counts the first kind alone.
  std::int64_t eager_steps = 0, beyond_graphs = 0;
  // Seconds the beyond_graphs steps of every replica waited on the host, and the replicas' step
  // time in all: what capturing them would have saved, against what the run took.
  double beyond_graphs_wait_s = 0, step_s = 0;
  double goodput_requests_per_s = 0;  // requests meeting both SLOs (all of them without an slo)
  double duration_s = 0;              // first arrival to last completion
  std::int64_t completed = 0, steps = 0, replicas = 1, devices = 1;
  std::int64_t kv_capacity_tokens = 0;  // per replica (the decode pool's when disaggregated)
  std::int64_t max_batch = 0, max_num_tokens = 0;
  bool static_batching = false;  // the replicas batched statically (ServingSpec::static_batching)
  double kv_transfer_s = 0;      // disaggregated: mean prefill -> decode KV hand-off
  // Requests that had arrived and not yet got their first token when the middle and the last of
  // the stream's arrivals came (a Poisson stream's queue; the overload check, predict_serving).
  std::int64_t waiting_at_mid_arrival = 0, waiting_at_last_arrival = 0;
  std::optional<ServingSloReport> slo;
  std::vector<ServingStepSample> timeline;
};

// Simulates the request stream of `sv` over one pool of replicas that each prefill and decode
// (`devices` in all). Error: a run that would need more than the step bound.
Result<ServingPrediction> simulate_serving(const ServingSpec& sv, StepModel& pool, std::int64_t devices);

// The same over a prefill pool that gives each request its first token and a decode pool that
// generates the rest once the request's cache has moved (disaggregated serving). A closed loop
// of clients over the two is a fixed point of the arrival times; one that does not settle in
// kMaxClosedLoopPasses passes warns (serving.closed_loop_unsettled).
Result<ServingPrediction> simulate_serving(const ServingSpec& sv, StepModel& prefill, StepModel& decode,
                                           std::vector<Warning>& warnings);

// Consecutive steps of one replica whose time is affine in the step: `first` for the first,
// `slope` more for each next (a single step has slope 0).
struct StepSpan {
  std::int64_t steps = 0;
  double first = 0, slope = 0;
  double gaps = 0;  // inter-token gaps each of its steps ends (a sequence's token after one the step before)
  // Speculative decoding: tokens each step ends that came `ReplicaRun::shared_n` (shared[0]) or one
  // more (shared[1]) at once to a sequence that had a token the step before, each gap the step's
  // time over their count.
  double shared[2] = {0, 0};
};

// The common clock of replicas that step together (attention data parallelism: each step takes
// as long as the slowest replica's; a replica that has finished waits): entry j is when step j - 1
// ends (entry 0 is 0), up to the longest replica's last step.
std::vector<double> lockstep_clock(const std::vector<const std::vector<StepSpan>*>& replicas);

// Steps one serving simulation may take before it is refused (serving.too_many_steps).
inline constexpr std::int64_t kMaxServingSteps = 4'000'000;

// A bound on one simulation's work (ReplicaRun::work over its replicas), refused past it as
// serving.too_many_steps like the step bound; none unless set (0). The step bound limits how long
// a simulation runs, not how wide its steps are (a step of 2,048 sequences costs about as much as
// 2,048 steps of one): the fuzz targets (tests/fuzz) set one so that an input's time under the
// sanitizers, some twenty times slower, stays within their timeout. Not to be changed while a
// simulation runs.
void set_serving_work_limit(std::int64_t units);
std::int64_t serving_work_limit();

// The refusal of a run that passed its ServingSpec::horizon_s (serving.past_horizon).
Error past_horizon();

// Passes of the fixed point that a closed loop of clients over disaggregated pools takes at most
// (simulate_serving; each pass settles at least one more wave of `concurrency` requests).
inline constexpr int kMaxClosedLoopPasses = 64;

}  // namespace optimus
