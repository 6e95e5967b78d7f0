// Continuous-batching serving of a scenario (serving/serving.h simulates it): the pools that
// inference.serving describes, each a layout of the scenario with its KV budget, offered to the
// simulator as its StepModel over the engine's step time (StepTimer, predict/inference.cpp).
#include "predict/serving.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "base/math.h"
#include "memory/footprint.h"
#include "predict/predict.h"

namespace optimus {

namespace {

std::string gib(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / kGiB);
  return buf;
}

// A pool of replicas planned from the scenario: its layout (tp, pp; dp = its replicas), the
// draft's where it speculates, and what the simulator needs of a replica.
struct PoolPlan {
  Scenario s;
  std::optional<Scenario> draft;
  PoolLimits limits;
};

// Builds a pool's scenario and its KV budget: device memory x gpu_memory_utilization less the
// weights and a prefill workspace of one max_num_tokens step (or free_gpu_memory_fraction of what
// those two leave). `own`: a disaggregated pool's settings, laid over inference.serving's.
Result<PoolPlan> plan_pool(const Scenario& base, std::int64_t tp, std::int64_t pp, std::int64_t replicas,
                           std::int64_t ep, const char* path, const ServingPool* own = nullptr) {
  PoolPlan pool;
  PoolLimits& lim = pool.limits;
  lim.sched = *base.inference->serving;
  lim.replicas = replicas;
  ServingSpec& sv = lim.sched;
  if (base.model.linear.heads > 0 && !sv.linear_attention_overlap) sv.overlap_schedule = false;
  if (own) {
    if (own->max_batch) sv.max_batch = *own->max_batch;
    if (own->max_num_tokens) sv.max_num_tokens = *own->max_num_tokens;
    if (own->gpu_memory_utilization) {
      sv.gpu_memory_utilization = *own->gpu_memory_utilization;
      sv.free_gpu_memory_fraction = 0;
    }
    if (own->free_gpu_memory_fraction) sv.free_gpu_memory_fraction = *own->free_gpu_memory_fraction;
  }
  pool.s = base;
  if (own && own->speculative && !*own->speculative) pool.s.inference->speculative.reset();
  if (own && own->expert_slots) pool.s.parallel.expert_slots = *own->expert_slots;
  // Serving engines replay captured CUDA graphs for their steps (vLLM unless enforce_eager,
  // SGLang, TensorRT-LLM), so no kernel waits for the host unless the scenario says otherwise.
  if (!pool.s.inference->cuda_graphs) pool.s.inference->cuda_graphs = true;
  pool.s.parallel.tp = tp;
  pool.s.parallel.pp = pp;
  pool.s.parallel.dp = replicas;
  pool.s.num_devices = tp * pp * replicas;
  // Inference does not use sequence parallelism; a pool of tp 1 must not inherit the flag a wider
  // scenario-wide tp defaulted to (validate_plan refuses it without tp).
  if (tp == 1) pool.s.parallel.sequence_parallel = false;
  if (tp > 1) pool.s.parallel.etp = 1;  // etp is attention data parallelism's (tp 1) alone
  if (ep > 0)
    pool.s.parallel.ep = ep;  // the pool's own, checked below
  else if (pool.s.parallel.ep > 1 && tp % pool.s.parallel.ep != 0 &&
           !attention_data_parallel(pool.s.parallel))
    pool.s.parallel.ep = 1;
  if (auto err = validate_plan(pool.s)) {
    Error e = *err;
    if (path[0] != '\0') {
      const bool own_slots = own && own->expert_slots && e.path == "/parallel/expert_slots";
      e.path = std::string(path) + (ep > 0 && e.path == "/parallel/ep" ? "/ep"
                                    : own_slots                        ? "/expert_slots"
                                                                       : "");
    }
    return e;
  }
  lim.devices = pool.s.num_devices;
  lim.lockstep_group = expert_group_replicas(pool.s.parallel);
  // A disaggregated pool is a server of its own: the runtime's device-sized defaults at its tp
  // (ServingSpec::sizing, less what inference.serving states), under the pool's own settings.
  if (own) {
    size_serving(sv, base.system, pool.s.parallel);
    if (own->max_num_tokens) sv.max_num_tokens = *own->max_num_tokens;
  }
  // A budget that is the server's (SGLang) is split over the attention-DP ranks that step together
  // (ServingSpec::budget_split_over_dp): each rank's steps, and its prefill workspace below, take
  // that share.
  if (sv.budget_split_over_dp && lim.lockstep_group > 1)
    sv.max_num_tokens = std::max<std::int64_t>(1, sv.max_num_tokens / lim.lockstep_group);
  lim.block = sv.kv_block_tokens;
  if (const auto& sp = pool.s.inference->speculative) {
    pool.draft = speculative_draft_scenario(pool.s);
    lim.draft = true;
    lim.spec_k = sp->draft_tokens;
    lim.spec_gain = speculative_tokens_per_step(*sp, pool.s.model.mtp_layers);
  }
  lim.window = cached_window(pool.s);
  lim.per_sequence = inference_kv_bytes(pool.s, 0.0).value;
  lim.per_token = inference_kv_bytes(pool.s, 1.0).value - lim.per_sequence;
  if (lim.window > 0) {
    const double at_window = inference_kv_bytes(pool.s, d(lim.window)).value;
    lim.per_token = (at_window - lim.per_sequence) / d(lim.window);
    lim.tail_per_token = (inference_kv_bytes(pool.s, 2.0 * d(lim.window)).value - at_window) / d(lim.window);
  }
  Scenario work = pool.s;
  work.inference->batch = 1;
  work.inference->prompt_len = sv.max_num_tokens;
  work.inference->output_len = 1;
  const InferenceMemory mem = inference_memory(work);
  const double held = mem.bytes.weights.value + mem.bytes.activations.value;
  const double hbm = base.system.device.hbm_capacity.value;
  lim.kv_capacity = sv.free_gpu_memory_fraction > 0 ? sv.free_gpu_memory_fraction * (hbm - held)
                                                    : hbm * sv.gpu_memory_utilization - held;
  // Pipeline-parallel serving keeps pp batches in flight: vLLM runs pipeline_parallel_size virtual
  // engines, each with a scheduler of its own (max_num_seqs each) and the KV blocks divided by pp
  // (vllm/core/scheduler.py, Scheduler.__init__: num_gpu_blocks //= pipeline_parallel_size), and
  // while one engine's batch is on a stage the others' are on the others. So a replica of pp stages
  // is pp engines, each stepping at its own batch's pass through every stage (the step model's
  // time: the stages one after another, and the hand-offs between them), with 1/pp of the KV each.
  // Taken as one engine through the stages, a TP1 x PP8 Llama 3 70B served a 6 requests/s stream
  // at 449 ms a token against TP8's 20 (a probe's finding). Not under attention data
  // parallelism, whose replicas step in lockstep groups.
  if (pp > 1 && lim.lockstep_group <= 0) {
    lim.engines = pp;
    lim.replicas = replicas * pp;
    lim.kv_capacity /= d(pp);
  }
  return pool;
}

// The scenario's one pool of replicas (serving without disaggregation).
Result<PoolPlan> plan_aggregated(const Scenario& s) {
  return plan_pool(s, s.parallel.tp, s.parallel.pp, s.parallel.dp, 0, "");
}

struct PoolPlans {
  PoolPlan prefill, decode;
};

// The prefill and decode pools of inference.serving.disaggregated.
Result<PoolPlans> plan_disaggregated(const Scenario& s) {
  const ServingSpec& sv = *s.inference->serving;
  auto pre = plan_pool(s, sv.prefill->tp, sv.prefill->pp, sv.prefill->replicas, sv.prefill->ep,
                       "/inference/serving/disaggregated/prefill", &*sv.prefill);
  if (!pre) return pre.error();
  auto dec = plan_pool(s, sv.decode->tp, sv.decode->pp, sv.decode->replicas, sv.decode->ep,
                       "/inference/serving/disaggregated/decode", &*sv.decode);
  if (!dec) return dec.error();
  return PoolPlans{std::move(pre).value(), std::move(dec).value()};
}

}  // namespace

// Named rather than anonymous: ServingRunner::Pools, declared in the header, holds it.
namespace serving_pools {

// A planned pool as the simulator's StepModel: its layout's step time (and its draft's), and the
// scale-out link its prompts' caches leave by.
class ScenarioPool final : public StepModel {
 public:
  // `job_devices`: every device of the deployment (both pools), which decides the tier the caches
  // cross.
  explicit ScenarioPool(PoolPlan plan, std::int64_t job_devices = 0)
      : StepModel(plan.limits),
        s_(std::move(plan.s)),
        graphed_(graphed(s_)),
        draft_scenario_(std::move(plan.draft)),
        target_(graphed_),
        job_devices_(job_devices) {
    if (draft_scenario_) draft_.emplace(*draft_scenario_);
    // A step that replays no graph (every step of a runtime run eager, inference.cuda_graphs
    // false; beyond the largest captured batch, ServingSpec::cuda_graph_max_batch; or prefilling
    // on a runtime that prefills eager, prefill_cuda_graphs) issues its kernels from the host one
    // by one, software.launch_interval_us apart. Launches are asynchronous (CUDA C++ Programming
    // Guide, "Asynchronous Concurrent Execution": control returns to the host before the device
    // completes the kernel), so the host runs ahead while the GPU works through long kernels and
    // the GPU waits while the host issues short ones: two stages in a pipeline, and the step takes
    // the longer of the GPU's work (the step timed as a graph replay) and the host's issue time
    // (its kernels x the interval). The kernels are counted by the same step timed at a one-second
    // launch interval, where host_bound (cost/op_timer.h) makes every kernel's time its launch. A
    // static batch (predict/inference.cpp) keeps the per-kernel floor its interval was fitted with.
    always_eager_ = !s_.inference->cuda_graphs.value_or(true);
    launch_s_ = s_.system.software.launch_interval.value;
    if ((always_eager_ || limits().has_eager_steps()) && launch_s_ > 0) {
      counting_ = s_;
      counting_->inference->cuda_graphs = false;
      counting_->system.software.launch_interval = Seconds(kCountingLaunchS);
      kernels_.emplace(*counting_);
    }
  }
  double step_s(const std::vector<SeqGroup>& groups) override {
    const double gpu = target_(groups).value;
    return issued_eager(groups) ? std::max(gpu, issue_s(groups)) : gpu;
  }
  double host_wait_s(const std::vector<SeqGroup>& groups) override {
    return issued_eager(groups) ? std::max(0.0, issue_s(groups) - target_(groups).value) : 0.0;
  }
  double draft_s(const std::vector<SeqGroup>& groups) override { return (*draft_)(groups).value; }
  // The prompt's KV moves from each prefill device to its decode counterpart over the scale-out
  // network (one NIC per device; NIXL/UCX-style transfers, Zhong et al. 2024 "DistServe" Sec. 4):
  // the prefill device's share of the prompt's cache at link rate. Both pools inside one scale-up
  // domain (a GB200 NVL72 rack, an 8-GPU node) move it over the scale-up links instead: NIXL's UCX
  // backend takes CUDA IPC / multi-node NVLink between GPUs that share the fabric.
  double kv_transfer_s(std::int64_t tokens) const override {
    const bool inside = job_devices_ > 0 && job_devices_ <= s_.system.scale_up.domain_size;
    const NetworkTier& net = inside ? s_.system.scale_up : s_.system.scale_out;
    const double bytes = inference_kv_bytes(s_, d(tokens)).value;
    return net.latency.value + bytes / (net.bandwidth.value * net.efficiency);
  }

 private:
  Scenario s_;  // outlives the timers, which keep a reference
  // The launch interval at which kernels_ times a step: longer than any kernel, so its time is
  // the step's kernel count in seconds.
  static constexpr double kCountingLaunchS = 1.0;
  static Scenario graphed(Scenario s) {
    s.inference->cuda_graphs = true;
    return s;
  }
  Scenario graphed_;  // s_ replaying graphs: the GPU's work of a step
  std::optional<Scenario> draft_scenario_, counting_;
  StepTimer target_;
  std::optional<StepTimer> draft_, kernels_;  // kernels_: a step's kernel count, in seconds
  bool always_eager_ = false;                 // inference.cuda_graphs false: every step eager
  double launch_s_ = 0;                       // the eager runtime's launch interval
  std::int64_t job_devices_ = 0;
  // Whether the step's kernels are issued from the host one by one (and an interval is paid).
  bool issued_eager(const std::vector<SeqGroup>& groups) const {
    return kernels_ && (always_eager_ || !limits().replays_graph(groups));
  }
  // The host's time to issue an eager step's kernels.
  double issue_s(const std::vector<SeqGroup>& groups) {
    return (*kernels_)(groups).value / kCountingLaunchS * launch_s_;
  }
};

}  // namespace serving_pools

using serving_pools::ScenarioPool;

namespace {

Error kv_error(const PoolLimits& pool, std::int64_t tokens, const char* role) {
  // No room at all: the weights and the workspace alone take the memory the engine may use, so no
  // shorter request would fit either.
  if (!(pool.kv_capacity > 0))
    return make_error("serving.kv_insufficient", "/inference/serving/gpu_memory_utilization",
                      std::string("the weights and the prefill workspace of a ") + role +
                          " replica already fill the memory it may use (gpu_memory_utilization of each "
                          "device): no room is left for any KV cache; spread the model over more devices "
                          "(tp, pp), store its weights in fewer bits (precision) or raise "
                          "gpu_memory_utilization");
  // A pipeline-parallel replica's engines each hold 1/pp of its KV (plan_pool).
  const std::string engine = pool.engines > 1 ? " replica's engine (one of its " +
                                                    std::to_string(pool.engines) + " pipeline engines, "
                                              : " replica (";
  return make_error("serving.kv_insufficient", "/inference/serving/gpu_memory_utilization",
                    std::string("the KV budget of a ") + role + engine +
                        gib(std::max(0.0, pool.kv_capacity)) +
                        " per device after weights and the prefill workspace) holds no request of " +
                        std::to_string(tokens) + " tokens (" + gib(pool.bytes_for(tokens)) +
                        "); raise gpu_memory_utilization, shorten the requests or spread the model "
                        "over more devices (tp, pp)");
}

// A run that cannot take fewer steps than the simulation's bound is refused before it starts.
// The bound counts one replica's steps (run_pool's budget; replicas in lockstep, all of theirs
// together), and a replica's step produces at most max_batch x (1 + drafts) tokens, so the output
// tokens over that, shared by the replicas, is the fewest steps the busiest one can take. The
// sampled lengths' total may fall a little below num_requests x the mean: 5% is left for it.
std::optional<Error> step_bound(const ServingSpec& sv, const PoolLimits& gen) {
  const double sharing = gen.lockstep_group > 0 ? 1.0 : d(std::max<std::int64_t>(1, gen.replicas));
  const double per_step = d(gen.sched.max_batch) * d(1 + gen.spec_k) * sharing;
  const double fewest_steps = 0.95 * d(sv.num_requests) * sv.output_len.expected() / per_step;
  if (fewest_steps <= d(kMaxServingSteps)) return std::nullopt;
  return make_error("serving.too_many_steps", "/inference/serving/num_requests",
                    "the simulation would take at least " +
                        std::to_string(static_cast<std::int64_t>(fewest_steps)) +
                        " scheduler steps on a replica (more than " + std::to_string(kMaxServingSteps) +
                        "); simulate fewer requests or shorter outputs");
}

// The checks of a planned deployment (check_serving): a token budget that holds a speculative
// verification, the step bound at the stream's num_requests, KV room for the longest request.
std::optional<Error> check_plans(const Scenario& s, const PoolPlan* one, const PoolPlans* two) {
  const ServingSpec& sv = *s.inference->serving;
  const std::int64_t longest = sv.input_len.largest() + sv.output_len.largest() - 1;
  const std::int64_t per_step = 1 + (s.inference->speculative ? s.inference->speculative->draft_tokens : 0);
  // A verification of k drafts takes k + 1 tokens of the step's budget (a rank's share where the
  // budget is split over attention-DP ranks).
  const std::int64_t budget = one ? one->limits.sched.max_num_tokens : sv.max_num_tokens;
  if (budget < per_step)
    return make_error(
        "serving.budget_below_speculation", "/inference/serving/max_num_tokens",
        "max_num_tokens (" + std::to_string(budget) +
            (budget != sv.max_num_tokens ? ", a rank's share of " + std::to_string(sv.max_num_tokens)
                                         : std::string()) +
            ") is smaller than one speculative verification (draft_tokens + 1 = " + std::to_string(per_step) +
            " tokens per sequence)");
  if (one) {
    const PoolLimits& lim = one->limits;
    if (auto err = step_bound(sv, lim)) return err;
    if (lim.bytes_for(longest) > lim.kv_capacity) return kv_error(lim, longest, "serving");
    return std::nullopt;
  }
  const PoolLimits &pre = two->prefill.limits, &dec = two->decode.limits;
  // A pool's own token budget must hold one speculative verification where the pool drafts.
  for (const PoolLimits* pool : {&pre, &dec}) {
    const std::int64_t need = 1 + pool->spec_k;
    if (pool->sched.max_num_tokens < need)
      return make_error("serving.budget_below_speculation",
                        std::string("/inference/serving/disaggregated/") +
                            (pool == &pre ? "prefill" : "decode") + "/max_num_tokens",
                        "the pool's max_num_tokens (" + std::to_string(pool->sched.max_num_tokens) +
                            ") is smaller than one speculative verification (draft_tokens + 1 = " +
                            std::to_string(need) + " tokens per sequence)");
  }
  if (auto err = step_bound(sv, dec)) return err;
  if (pre.bytes_for(sv.input_len.largest()) > pre.kv_capacity)
    return kv_error(pre, sv.input_len.largest(), "prefill");
  if (dec.bytes_for(longest) > dec.kv_capacity) return kv_error(dec, longest, "decode");
  return std::nullopt;
}

// A Poisson stream faster than the deployment serves: the queue before the first token grows
// through the run (half as many again at the last arrival as at the middle one, and a tenth of
// the requests), so the latencies grow with num_requests and describe this run, not a steady
// state, and requests_per_s is the deployment's capacity rather than the offered rate.
void warn_overload(const ServingSpec& sv, const ServingPrediction& p, std::vector<Warning>& warnings) {
  if (!sv.spread_arrivals()) return;
  const double mid = static_cast<double>(p.waiting_at_mid_arrival);
  const double last = static_cast<double>(p.waiting_at_last_arrival);
  if (!(last > 1.5 * mid + 10 && last > 0.1 * static_cast<double>(p.completed))) return;
  char rates[160];
  std::snprintf(rates, sizeof rates,
                "the stream offers %.3g requests/s and the deployment completes %.3g/s: %lld requests were",
                sv.requests_per_s, p.requests_per_s, static_cast<long long>(p.waiting_at_last_arrival));
  warnings.push_back(
      {"serving.overloaded",
       std::string(rates) + " still waiting for their first token when the last one arrived (" +
           std::to_string(p.waiting_at_mid_arrival) +
           " at the middle arrival), so the latencies grow with num_requests and describe this "
           "run, not a steady state; lower requests_per_s or add replicas, and read "
           "requests_per_s as the capacity"});
}

// More preemptions than requests: on-demand admission fills the KV cache with more sequences than
// it holds at their full lengths, and the newest are evicted and recomputed again and again. The
// engines throttle that (vLLM V1 admits nothing in a step that preempted; SGLang raises its
// new_token_ratio after a retraction), so the prediction describes a thrashing engine more than
// a real one; a probe found gpt-oss-120b on one H100 at 8k/8k evicting each request 47 times (412
// output tokens/s against 978-1,011 with reserve admission).
void warn_preemption(const ServingSpec& sv, const ServingPrediction& p, std::vector<Warning>& warnings) {
  if (sv.kv_admission != KvAdmission::on_demand || p.completed <= 0 || p.preemptions <= p.completed) return;
  char what[200];
  std::snprintf(what, sizeof what, "%lld preemptions for %lld requests (%.3g each)",
                static_cast<long long>(p.preemptions), static_cast<long long>(p.completed),
                static_cast<double>(p.preemptions) / static_cast<double>(p.completed));
  warnings.push_back(
      {"serving.preemption_heavy",
       std::string(what) +
           ": the KV cache holds fewer sequences at their full length than on-demand admission "
           "lets in, and each eviction recomputes its context; engines throttle admission "
           "instead, so read the throughput as a lower bound: lower max_batch, or state "
           "kv_admission \"reserve\", or give the cache more memory"});
}

// Steps larger than the largest captured CUDA graph ran eager (PoolLimits::within_graphs): where
// they are a tenth of the run or more and waiting on the host cost
// them a hundredth of the run's step time or more, the person is told, with the runtime's knob,
// since nothing else in the output says why a larger batch got slower per token.
void warn_eager(const PoolLimits& lim, bool graphs, const ServingPrediction& p,
                std::vector<Warning>& warnings) {
  if (!graphs || p.beyond_graphs <= 0 || 10 * p.beyond_graphs < p.steps) return;
  if (!(p.beyond_graphs_wait_s >= 0.01 * p.step_s)) return;
  const bool tokens = lim.sched.cuda_graph_unit == GraphUnit::tokens;
  char share[32];
  std::snprintf(share, sizeof share, "%.0f%%", 100.0 * p.beyond_graphs_wait_s / p.step_s);
  char what[240];
  std::snprintf(what, sizeof what,
                "%lld of %lld steps (%.0f%%) ran more %s than the largest captured CUDA graph "
                "(cuda_graph_max_batch %lld %s)",
                static_cast<long long>(p.beyond_graphs), static_cast<long long>(p.steps),
                100.0 * d(p.beyond_graphs) / d(std::max<std::int64_t>(1, p.steps)),
                tokens ? "tokens" : "sequences", static_cast<long long>(lim.graph_limit()),
                tokens ? "tokens" : "sequences");
  warnings.push_back(
      {"serving.steps_beyond_cuda_graphs",
       std::string(what) +
           ", so their kernels were issued one by one from the host, and the GPU waited on it for " +
           std::string(share) +
           " of the run's step time; raise the runtime's "
           "capture size (vLLM --max-cudagraph-capture-size, SGLang --cuda-graph-max-bs) "
           "and state it as cuda_graph_max_batch, or lower max_batch"});
}

// A closed loop of more clients than requests: client k sends request k at time 0 and no client
// beyond num_requests ever sends, so the run is num_requests requests sent at once (an offline
// burst), not a steady state of `concurrency` users. Benchmarks send several requests per client
// (InferenceX's sweeps ten: conc 32 with num_prompts 320, tests/validation/data/inferencemax_public.csv).
void warn_idle_clients(const ServingSpec& sv, std::vector<Warning>& warnings) {
  if (sv.arrival != Arrival::closed || sv.concurrency <= sv.num_requests) return;
  warnings.push_back({"serving.clients_beyond_requests",
                      std::to_string(sv.concurrency) + " concurrent clients but " +
                          std::to_string(sv.num_requests) +
                          " requests: the clients beyond the requests never send, so the run is " +
                          std::to_string(sv.num_requests) + " requests sent at once, not a steady load of " +
                          std::to_string(sv.concurrency) +
                          " users; raise num_requests (benchmarks send about ten per client)"});
}

}  // namespace

// The pools of a planned deployment: one, or a prefill and a decode pool.
struct ServingRunner::Pools {
  Scenario s;
  std::optional<ScenarioPool> pool, pre, dec;
};

ServingRunner::ServingRunner(std::unique_ptr<Pools> pools) : pools_(std::move(pools)) {}
ServingRunner::ServingRunner(ServingRunner&&) noexcept = default;
ServingRunner& ServingRunner::operator=(ServingRunner&&) noexcept = default;
ServingRunner::~ServingRunner() = default;

Result<ServingRunner> ServingRunner::plan(const Scenario& s) {
  auto p = std::make_unique<Pools>();
  p->s = s;
  const ServingSpec& sv = *s.inference->serving;
  if (!(sv.prefill && sv.decode)) {
    auto plan = plan_aggregated(s);
    if (!plan) return plan.error();
    if (auto err = check_plans(s, &*plan, nullptr)) return *err;
    p->pool.emplace(std::move(plan).value());
  } else {
    auto plans = plan_disaggregated(s);
    if (!plans) return plans.error();
    if (auto err = check_plans(s, nullptr, &*plans)) return *err;
    p->pre.emplace(std::move(plans.value().prefill), s.num_devices);
    p->dec.emplace(std::move(plans.value().decode), s.num_devices);
  }
  return ServingRunner(std::move(p));
}

Result<ServingPrediction> ServingRunner::run(double requests_per_s, std::int64_t num_requests,
                                             std::vector<Warning>& warnings) {
  ServingSpec& sv = *pools_->s.inference->serving;
  sv.requests_per_s = requests_per_s;
  sv.num_requests = num_requests;
  // Only the step bound depends on the stream's length (the pools' limits do not).
  if (auto err = step_bound(sv, pools_->pool ? pools_->pool->limits() : pools_->dec->limits())) return *err;
  auto out = pools_->pool ? simulate_serving(sv, *pools_->pool, pools_->s.num_devices)
                          : simulate_serving(sv, *pools_->pre, *pools_->dec, warnings);
  if (!out) return out;
  warn_overload(sv, *out, warnings), warn_preemption(sv, *out, warnings), warn_idle_clients(sv, warnings);
  warn_eager(pools_->pool ? pools_->pool->limits() : pools_->dec->limits(),
             pools_->s.inference->cuda_graphs.value_or(true), *out, warnings);
  return out;
}

std::optional<Error> check_serving(const Scenario& s) {
  const ServingSpec& sv = *s.inference->serving;
  if (!(sv.prefill && sv.decode)) {
    auto plan = plan_aggregated(s);
    if (!plan) return plan.error();
    return check_plans(s, &*plan, nullptr);
  }
  auto plans = plan_disaggregated(s);
  if (!plans) return plans.error();
  return check_plans(s, nullptr, &*plans);
}

Result<ServingPrediction> predict_serving(const Scenario& s, std::vector<Warning>& warnings) {
  auto runner = ServingRunner::plan(s);
  if (!runner) return runner.error();
  const ServingSpec& sv = *s.inference->serving;
  return runner.value().run(sv.requests_per_s, sv.num_requests, warnings);
}

}  // namespace optimus
