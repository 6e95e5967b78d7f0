// A deployment's request stream over its pools (see serving.h for the sources): requests are
// dealt round-robin to the replicas of a pool, each replica simulated on its own
// (replica.cpp) or, under attention data parallelism, on a common clock; disaggregated pools
// hand each request's cache from the prefill pool to the decode pool; then the statistics over
// the completed requests.
#include "serving/serving.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "base/math.h"
#include "serving/latency.h"
#include "serving/replica.h"
#include "serving/request.h"

namespace optimus {

namespace {

// The replicas' runs of a deployment, in the order they ran, and every inter-token gap.
struct Runs {
  std::vector<ReplicaRun> runs;
  GapHistogram gaps;
};

Error too_many_steps() {
  return make_error("serving.too_many_steps", "/inference/serving/num_requests",
                    "the simulation would take more than " + std::to_string(kMaxServingSteps) +
                        " scheduler steps on one replica; simulate fewer requests or shorter outputs");
}

// Replica `rep` of `replicas` takes its requests (replica_of) in order; a decode pool takes them in
// the order their caches land.
void deal(const std::vector<Request>& all, std::int64_t rep, std::int64_t replicas, std::int64_t group,
          Mode mode, std::vector<Request>& mine) {
  mine.clear();
  for_each_of_replica(static_cast<std::size_t>(rep), group, replicas, all.size(),
                      [&](std::size_t i) { mine.push_back(all[i]); });
  if (mode == Mode::decode_only)
    std::stable_sort(mine.begin(), mine.end(),
                     [](const Request& a, const Request& b) { return a.ready < b.ready; });
}

// Steps the replicas of a pool take at least: each replica decodes its longest request's tokens
// after the first, at most 1 + the drafted tokens a step; `together`, the replicas' sum (they are
// simulated against one budget), else the busiest replica's (each has its own). A pool past the
// step bound by this count is refused before any step is simulated (a search of a million-device
// RL job tried hundreds of such pools, each simulated up to the bound, 6 s in all), as the
// simulation would refuse it. Prefill-only pools: none counted.
std::int64_t steps_at_least(const PoolLimits& pool, Mode mode, const std::vector<Request>& all,
                            std::int64_t group, std::int64_t active, bool together) {
  if (mode == Mode::prefill_only) return 0;
  std::vector<std::int64_t> longest(static_cast<std::size_t>(active), 0);
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto& l = longest[replica_of(i, group, active)];
    l = std::max(l, all[i].output - all[i].generated - 1);
  }
  std::int64_t sum = 0, most = 0;
  for (std::int64_t l : longest) {
    sum += l / (1 + pool.spec_k);
    most = std::max(most, l / (1 + pool.spec_k));
  }
  return together ? sum : most;
}

// The samples a replica takes together (ServingSpec::prompt_group): a prompt's samples go to one
// replica, where they share its prefill and blocks (vLLM's and SGLang's n samples of a request),
// while the prompts are at least as many as the replicas. With fewer, the RL frameworks spread the
// samples over their engines rather than leave engines idle. verl repeats each prompt n times in
// order (ray_trainer.py: gen_batch.repeat(repeat_times=rollout.n, interleave=True)) and hands
// each data-parallel rank a contiguous chunk (Dispatch.DP_COMPUTE_PROTO: DataProto.chunk over the
// ranks, verl/single_controller/base/decorator.py); OpenRLHF repeats each prompt
// n_samples_per_prompt times and slices the list into ceil(len / engines) per vLLM engine. So
// the group is split into the largest equal parts, g dividing it, that give every replica some
// (ceil(requests / g) >= replicas); each part shares its prompt on its replica. 1 for a stream
// without groups.
std::int64_t deal_group(std::int64_t group, std::size_t requests, std::int64_t replicas) {
  const auto r = static_cast<std::int64_t>(requests);
  for (std::int64_t g = group; g > 1; --g)
    if (group % g == 0 && (r + g - 1) / g >= replicas) return g;
  return 1;
}

// Simulates every replica of `pool` over the requests `all` (back in the deployment's order
// after), `clients` closed-loop clients dealt over them. spread: arrivals spread over time (set
// on the requests), whatever sv.arrival says.
std::optional<Error> run_pool(const ServingSpec& sv, StepModel& pool, Mode mode, std::vector<Request>& all,
                              std::int64_t clients, bool spread, Runs& out) {
  const std::int64_t replicas = pool.limits().replicas;
  // The step bound holds for each replica's simulation: a step that changes nothing is skipped in
  // bulk (ReplicaRun), so the count measures a replica's run, not the time to simulate it, and
  // summed over replicas it refused a job that more GPUs served (262,144 RL responses ran on 256
  // GPUs and were refused on 1,024). Replicas that step together (lockstep, below) record every
  // step of all of them, so theirs is one budget for all. The work bound (the fuzz targets') is
  // the simulation's, summed.
  SimBudget budget;
  budget.steps = kMaxServingSteps;
  if (serving_work_limit() > 0) budget.work = serving_work_limit();
  budget.horizon_s = sv.horizon_s;
  // Ranks of attention data parallelism step together (lockstep()). With arrivals spread over
  // time (a finite Poisson rate; a disaggregated decode pool, whose requests arrive when their
  // caches land) a rank's schedule would depend on the common clock, which ranks simulated one
  // by one do not see: those runs keep each rank's own clock (docs/method.md, Inference and serving).
  const bool at_once = !spread && !sv.spread_arrivals();
  const bool together = pool.limits().lockstep_group > 0 && at_once && mode != Mode::decode_only;
  const std::size_t first_run = out.runs.size();
  // A closed loop of fewer clients than replicas keeps only that many replicas busy: each client
  // sends its next request when the last one ends, so the requests are dealt over the replicas
  // that have a client (dealt over all of them, a replica without a client would never see its
  // share, and those requests would keep no times at all).
  // Replicas past the requests' count are dealt none (round-robin) and run no step: they are not
  // simulated, so that a pool of millions of devices costs what its requests cost.
  const std::int64_t takers =
      clients > 0 ? std::min(replicas, clients) : replicas;  // replicas with work to take
  const std::int64_t group = deal_group(pool.limits().sched.group_size(), all.size(), takers);
  const auto parts = (static_cast<std::int64_t>(all.size()) + group - 1) / group;
  const std::int64_t active = std::min(takers, std::max<std::int64_t>(1, parts));
  if (steps_at_least(pool.limits(), mode, all, group, active, together) > budget.steps)
    return too_many_steps();
  std::vector<std::int64_t> reps;
  std::vector<Request> mine;  // one replica's requests (the buffer is reused)
  mine.reserve(all.size() / static_cast<std::size_t>(active) + 1);
  for (std::int64_t rep = 0; rep < active; ++rep) {
    deal(all, rep, active, group, mode, mine);
    const std::int64_t c = clients > 0 ? clients / active + (rep < clients % active ? 1 : 0) : 0;
    ReplicaRun run;
    run.record_steps = together;
    if (mode != Mode::prefill_only && sv.gap_distribution) run.gaps = &out.gaps;
    if (!together) budget.steps = kMaxServingSteps;
    if (!simulate_replica(pool, mode, mine, group, c, rep == 0, run, budget))
      return run.past_horizon ? past_horizon() : too_many_steps();
    budget.steps -= run.steps;
    budget.work -= run.work;
    for (const Request& r : mine) all[r.id] = r;  // back in the deployment's order
    out.runs.push_back(std::move(run));
    reps.push_back(rep);
  }
  if (together) {
    std::vector<ReplicaRun*> mine_runs;
    for (std::size_t k = first_run; k < out.runs.size(); ++k) mine_runs.push_back(&out.runs[k]);
    lockstep(mine_runs, reps, active, pool.limits().lockstep_group, group, all);
    for (std::size_t k = first_run; k < out.runs.size(); ++k) {
      out.runs[k].spans = {};
      out.runs[k].span_ends = {};
      out.runs[k].long_gaps = {};
    }
  }
  return std::nullopt;
}

// Both pools over the request stream: the prefill pool gives each request its first token, its
// cache moves to the decode pool, which generates the rest. `transfer_sum`: the hand-offs' time.
std::optional<Error> both_pools(const ServingSpec& sv, StepModel& pre, StepModel& dec,
                                std::vector<Request>& reqs, bool spread, Runs& runs, double& transfer_sum) {
  runs.runs.clear();
  runs.gaps = GapHistogram{};
  transfer_sum = 0;
  if (auto err = run_pool(sv, pre, Mode::prefill_only, reqs, 0, spread, runs)) return err;
  for (Request& r : reqs) {
    const double xfer = pre.kv_transfer_s(r.input);
    transfer_sum += xfer;
    r.ready = r.first_token + xfer;
    r.last_step = -2;  // its first token came from the prefill pool
    r.last_time = r.first_token;
    r.kv = r.input;
    r.target = r.input;
    r.kv_bytes = 0;
    r.claimed = 0;
  }
  // The decode pool holds each request's cache from its hand-off (claimed at admission).
  return run_pool(sv, dec, Mode::decode_only, reqs, 0, spread, runs);
}

// A closed loop of C clients (benchmark_serving's --max-concurrency: request C + k is sent when
// the k-th request ends, whichever client it was) over the two pools, which run at the same time
// and are simulated one after the other: a fixed point of the arrival times. From every request
// at once (the earliest any can come), each pass sends request C + k at the k-th end of the pass
// before. The ends only move later when the arrivals do, so the passes climb to the closed loop's
// arrivals; an end depends only on what arrived before it, so each pass settles at least the next
// wave of C requests, and the loop stops where nothing moves.
std::optional<Error> closed_loop(const ServingSpec& sv, StepModel& pre, StepModel& dec,
                                 std::vector<Request>& reqs, Runs& runs, double& transfer_sum,
                                 std::vector<Warning>& warnings) {
  const std::vector<Request> fresh = reqs;
  const std::size_t clients = static_cast<std::size_t>(sv.concurrency);
  std::vector<double> ends;
  for (int pass = 0;; ++pass) {
    if (auto err = both_pools(sv, pre, dec, reqs, pass > 0, runs, transfer_sum)) return err;
    ends.clear();
    for (const Request& r : reqs) ends.push_back(r.done);
    std::sort(ends.begin(), ends.end());
    double moved = 0;
    std::vector<Request> next = fresh;
    for (std::size_t i = 0; i < next.size(); ++i) {
      next[i].arrival = i < clients ? 0.0 : ends[i - clients];
      moved = std::max(moved, std::fabs(next[i].arrival - reqs[i].arrival));
    }
    if (pass > 0 && moved <= 1e-9 * std::max(1.0, ends.back())) break;
    if (pass + 1 >= kMaxClosedLoopPasses) {
      warnings.push_back({"serving.closed_loop_unsettled",
                          "the closed loop over disaggregated pools did not settle in " +
                              std::to_string(kMaxClosedLoopPasses) + " passes (arrivals still moved by " +
                              std::to_string(moved) + " s); fewer requests per client settle sooner"});
      break;
    }
    reqs = std::move(next);
  }
  return std::nullopt;
}

// Whole tokens the KV blocks of a replica as deployed hold: its engines' together (PoolLimits::engines).
// The blocks' bytes alone: linear attention's per-sequence states are not tokens.
std::int64_t capacity_tokens(const PoolLimits& pool) {
  const double block_bytes = pool.bytes_for(1) - pool.per_sequence;
  if (!(block_bytes > 0)) return 0;  // every layer linear: no KV blocks at all
  return static_cast<std::int64_t>(std::max(0.0, pool.kv_capacity / block_bytes * d(pool.block))) *
         pool.engines;
}

// Whether every service objective given holds at the percentile.
ServingSloReport slo_report(const ServingSlo& slo, std::vector<double>& ttft, std::vector<double>& tpot,
                            const GapHistogram& gaps) {
  ServingSloReport r;
  r.ttft_s = slo.ttft_s;
  r.tpot_s = slo.tpot_s;
  r.percentile = slo.percentile;
  r.ttft_at_percentile = percentile(ttft, r.percentile);
  r.tpot_at_percentile = percentile(tpot, r.percentile);
  r.itl_s = slo.itl_s;
  r.itl_at_percentile = gaps.percentile(r.percentile);
  r.met = (r.ttft_s <= 0 || r.ttft_at_percentile <= r.ttft_s) &&
          (r.tpot_s <= 0 || r.tpot_at_percentile <= r.tpot_s) &&
          (r.itl_s <= 0 || r.itl_at_percentile <= r.itl_s);
  return r;
}

// Statistics over the completed requests (on `devices` in all) and the replicas' steps.
void summarise(const ServingSpec& sv, const std::vector<Request>& reqs, const Runs& runs, double devices,
               ServingPrediction& out) {
  std::vector<double> ttft, tpot, e2e;
  double in_tokens = 0, out_tokens = 0, end = 0, start = reqs.empty() ? 0 : reqs.front().arrival;
  double decode_time = 0, gap_count = 0;  // over every inter-token gap of every request
  std::int64_t good = 0;
  // The front end's own time per request (ServingSpec::request_overhead_s) comes on top of the
  // scheduler's: first token and end move by it, the GPU's steps do not.
  const double front = sv.request_overhead_s;
  for (const Request& r : reqs) {
    ttft.push_back(r.first_token - r.arrival + front);
    e2e.push_back(r.done - r.arrival + front);
    const double per_token = r.output > 1 ? (r.done - r.first_token) / d(r.output - 1) : 0.0;
    tpot.push_back(per_token);
    if (r.output > 1) {
      decode_time += r.done - r.first_token;
      gap_count += d(r.output - 1);
    }
    in_tokens += d(r.input);
    out_tokens += d(r.output);
    end = std::max(end, r.done);
    start = std::min(start, r.arrival);
    const bool ok = !sv.slo || ((sv.slo->ttft_s <= 0 || ttft.back() <= sv.slo->ttft_s) &&
                                (sv.slo->tpot_s <= 0 || per_token <= sv.slo->tpot_s));
    good += ok ? 1 : 0;
  }
  out.completed = static_cast<std::int64_t>(reqs.size());
  out.duration_s = end - start;
  const double dur = out.duration_s > 0 ? out.duration_s : 1.0;
  out.requests_per_s = d(out.completed) / dur;
  out.input_tokens_per_s = in_tokens / dur;
  out.output_tokens_per_s = out_tokens / dur;
  out.output_tokens_per_s_per_gpu = out.output_tokens_per_s / devices;
  out.goodput_requests_per_s = d(good) / dur;
  out.devices = static_cast<std::int64_t>(devices);
  out.ttft = stats(ttft);
  out.tpot = stats(tpot);
  out.mean_itl_s = gap_count > 0 ? decode_time / gap_count : 0.0;
  out.itl = runs.gaps.stats();
  out.e2e = stats(e2e);
  if (sv.slo) out.slo = slo_report(*sv.slo, ttft, tpot, runs.gaps);
  double batch = 0, kv = 0, busy = 0;
  for (const ReplicaRun& r : runs.runs) {
    out.steps += r.steps;
    out.preemptions += r.preemptions;
    out.eager_steps += r.eager_steps;
    out.beyond_graphs += r.beyond_graphs;
    out.beyond_graphs_wait_s += r.beyond_graphs_wait_s;
    batch += r.busy_batch;
    kv += r.busy_kv;
    busy += r.busy_time;
  }
  out.step_s = busy;
  out.mean_batch = busy > 0 ? batch / busy : 0;
  out.kv_utilisation = busy > 0 ? kv / busy : 0;
  for (const ReplicaRun& r : runs.runs)
    out.kv_peak_utilisation = std::max(out.kv_peak_utilisation, r.peak_kv);
  // The queue in front of the first token at the middle and at the last arrival: a stream the
  // deployment keeps up with holds about the same queue at both (Little's law: rate x the wait),
  // an overloaded one a queue that grows with every arrival.
  if (reqs.empty()) return;
  std::vector<double> arrivals;
  for (const Request& r : reqs) arrivals.push_back(r.arrival);
  std::sort(arrivals.begin(), arrivals.end());
  const double mid = arrivals[arrivals.size() / 2], last = arrivals.back();
  for (const Request& r : reqs) {
    out.waiting_at_mid_arrival += r.arrival <= mid && r.first_token > mid ? 1 : 0;
    out.waiting_at_last_arrival += r.first_token > last ? 1 : 0;
  }
}

// What the prediction says of the pool that holds the requests to their end (the only one, or the
// decode pool): its scheduler's limits in effect (max_num_tokens a rank's share where split,
// budget_split_over_dp) and its KV cache.
ServingPrediction described_pool(const PoolLimits& lim) {
  ServingPrediction out;
  out.max_batch = lim.sched.max_batch;
  out.max_num_tokens = lim.sched.max_num_tokens;
  out.static_batching = lim.sched.static_batching;
  out.kv_capacity_tokens = capacity_tokens(lim);
  out.kv_pool_bytes_per_device = std::max(0.0, lim.kv_capacity);
  return out;
}

}  // namespace

Result<ServingPrediction> simulate_serving(const ServingSpec& sv, StepModel& pool, std::int64_t devices) {
  ServingPrediction out = described_pool(pool.limits());
  std::vector<Request> reqs = make_requests(sv);
  Runs runs;
  const std::int64_t clients = sv.arrival == Arrival::closed ? sv.concurrency : 0;
  if (auto err = run_pool(sv, pool, Mode::whole, reqs, clients, false, runs)) return *err;
  out.replicas = pool.limits().deployed_replicas();
  summarise(sv, reqs, runs, d(devices), out);
  // The chart follows the first replica.
  if (!runs.runs.empty()) out.timeline = std::move(runs.runs.front().timeline);
  return out;
}

Result<ServingPrediction> simulate_serving(const ServingSpec& sv, StepModel& pre, StepModel& dec,
                                           std::vector<Warning>& warnings) {
  ServingPrediction out = described_pool(dec.limits());
  std::vector<Request> reqs = make_requests(sv);
  Runs runs;
  double transfer_sum = 0;
  if (sv.arrival != Arrival::closed) {
    if (auto err = both_pools(sv, pre, dec, reqs, false, runs, transfer_sum)) return *err;
  } else if (auto err = closed_loop(sv, pre, dec, reqs, runs, transfer_sum, warnings)) {
    return *err;
  }
  out.kv_transfer_s = reqs.empty() ? 0 : transfer_sum / d(static_cast<std::int64_t>(reqs.size()));
  out.replicas = pre.limits().deployed_replicas() + dec.limits().deployed_replicas();
  summarise(sv, reqs, runs, d(pre.limits().devices + dec.limits().devices), out);
  // The chart follows the first replica of the decode pool.
  if (!runs.runs.empty())
    out.timeline = std::move(runs.runs[static_cast<std::size_t>(pre.limits().replicas)].timeline);
  return out;
}

namespace {
std::atomic<std::int64_t> g_work_limit{0};
}  // namespace

void set_serving_work_limit(std::int64_t units) { g_work_limit.store(std::max<std::int64_t>(0, units)); }
std::int64_t serving_work_limit() { return g_work_limit.load(std::memory_order_relaxed); }

Error past_horizon() {
  return make_error("serving.past_horizon", "/inference/serving",
                    "the run passed the horizon its caller set");
}

}  // namespace optimus
