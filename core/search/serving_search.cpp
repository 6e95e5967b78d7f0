// Serving deployment search (serving_search.h): enumerate, simulate, rank.
#include "search/serving_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>

#include "parallel/plan.h"

namespace optimus {

namespace {

std::vector<std::int64_t> divisors_of(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t k = 1; k <= n; ++k)
    if (n % k == 0) out.push_back(k);
  return out;
}

bool better(const ServingCandidate& a, const ServingCandidate& b) {
  if (a.score != b.score) return a.score > b.score;
  if (a.result->e2e.p90 != b.result->e2e.p90) return a.result->e2e.p90 < b.result->e2e.p90;
  const ServingDeployment &x = a.deployment, &y = b.deployment;
  return std::make_tuple(x.disaggregated(), x.tp * x.pp, x.tp, -x.max_batch, x.ep,
                         x.prefill ? x.prefill->tp : 0, x.prefill ? x.prefill->replicas : 0) <
         std::make_tuple(y.disaggregated(), y.tp * y.pp, y.tp, -y.max_batch, y.ep,
                         y.prefill ? y.prefill->tp : 0, y.prefill ? y.prefill->replicas : 0);
}

}  // namespace

Result<std::vector<ServingDeployment>> serving_deployments(const Scenario& s, std::optional<std::int64_t> tp,
                                                           std::optional<std::int64_t> pp,
                                                           std::optional<std::int64_t> ep) {
  if (!s.inference || !s.inference->serving)
    return make_error("search.serving_needs_serving", "/inference/serving",
                      "a serving search needs inference.serving (the request stream to serve)");
  const ServingSpec& sv = *s.inference->serving;
  const std::int64_t n = s.num_devices;
  // A closed loop of c clients never runs more than c sequences at once on any replica, so a
  // smaller cap at or above c runs the same deployment as the stated one and is not tried (a
  // 16-client stream had simulated max_batch 2048, 512 and 128 to one result).
  const std::int64_t most = sv.arrival == Arrival::closed ? sv.concurrency : sv.max_batch;
  std::vector<std::int64_t> batches = {sv.max_batch};
  for (std::int64_t b : {sv.max_batch / 4, sv.max_batch / 16})
    if (b >= 8 && b < most) batches.push_back(b);
  std::vector<ServingDeployment> out;
  // The list stops one past the cap: a large device count has millions of splits into pools
  // (fuzzing found one that ran out of memory listing them), and the answer is the same error.
  const auto full = [&] { return static_cast<std::int64_t>(out.size()) > kMaxServingDeployments; };
  const auto list = [&] {
    for (std::int64_t t : tp ? std::vector<std::int64_t>{*tp} : divisors_of(n)) {
      if (n % t != 0) continue;
      for (std::int64_t p : pp ? std::vector<std::int64_t>{*pp} : divisors_of(n / t)) {
        if ((n / t) % p != 0 || p > s.model.layers) continue;
        std::vector<std::int64_t> eps = {1};
        if (ep) {
          eps = {*ep};
        } else if (s.model.moe) {
          eps.clear();
          // Experts split over the tp ranks, or over the replicas (attention data parallelism,
          // parallel/plan.h: with tp 1 over some of them, with tp > 1 over ep / tp whole replicas).
          ParallelPlan spread;
          spread.tp = t;
          spread.pp = p;
          spread.dp = n / (t * p);
          for (std::int64_t e : divisors_of(s.model.moe->experts)) {
            spread.ep = e;
            if (t % e == 0 || attention_data_parallel(spread)) eps.push_back(e);
          }
        }
        for (std::int64_t e : eps)
          for (std::int64_t b : batches) {
            ServingDeployment d;
            d.tp = t;
            d.pp = p;
            d.ep = e;
            d.replicas = n / (t * p);
            d.max_batch = b;
            out.push_back(d);
            if (full()) return;
          }
      }
    }
    // Disaggregated prefill and decode pools (a closed loop cannot be split: docs/contract.md).
    if (sv.arrival == Arrival::closed || n < 2 || pp) return;
    const std::int64_t domain = std::max<std::int64_t>(1, s.system.scale_up.domain_size);
    for (std::int64_t tp_p : divisors_of(n)) {
      if (tp_p > domain || (tp && *tp != tp_p)) continue;
      for (std::int64_t tp_d : divisors_of(n)) {
        if (tp_d > domain || (tp && *tp != tp_d)) continue;
        for (std::int64_t r_p = 1; r_p * tp_p < n; ++r_p) {
          const std::int64_t rest = n - r_p * tp_p;
          if (rest % tp_d != 0) continue;
          ServingDeployment d;
          d.tp = tp_d;
          d.replicas = rest / tp_d;
          d.max_batch = sv.max_batch;
          d.prefill = ServingPool{};
          d.prefill->tp = tp_p;
          d.prefill->replicas = r_p;
          d.decode = ServingPool{};
          d.decode->tp = tp_d;
          d.decode->replicas = rest / tp_d;
          out.push_back(d);
          if (full()) return;
        }
      }
    }
  };
  list();
  const auto count = static_cast<std::int64_t>(out.size());
  if (full() || count * sv.num_requests > kMaxServingSearchRequests)
    return make_error(
        "search.space_too_large", "/num_devices",
        (full() ? "more than " + std::to_string(kMaxServingDeployments) : std::to_string(count)) +
            " deployments of " + std::to_string(sv.num_requests) +
            " requests each is more than a search simulates (at most " +
            std::to_string(kMaxServingDeployments) + " deployments and " +
            std::to_string(kMaxServingSearchRequests) +
            " requests in all); fix tp or pp in `parallel`, or simulate fewer requests");
  return out;
}

Scenario with_deployment(const Scenario& s, const ServingDeployment& d) {
  Scenario c = s;
  c.training.reset();
  ServingSpec& sv = *c.inference->serving;
  sv.max_batch = d.max_batch;
  sv.prefill = d.prefill;
  sv.decode = d.decode;
  if (d.disaggregated()) {
    // The pools carry the layouts; the scenario-wide layout only has to be a valid split.
    c.parallel.tp = 1;
    c.parallel.pp = 1;
    c.parallel.dp = c.num_devices;
    c.parallel.ep = 1;
  } else {
    c.parallel.tp = d.tp;
    c.parallel.pp = d.pp;
    c.parallel.dp = d.replicas;
    c.parallel.ep = d.ep;
    // The runtime's device-sized defaults at this deployment's tp (ServingSpec::sizing).
    size_serving(sv, c.system, c.parallel);
  }
  c.parallel.cp = 1;
  c.parallel.interleave = 1;
  c.parallel.sequence_parallel = false;
  return c;
}

namespace {

// The goodput objective: requests per second per device meeting the objectives, the stream as given.
Result<ServingPrediction> score_goodput(const Scenario& c, double& score) {
  std::vector<Warning> warnings;
  auto r = predict_serving(c, warnings);
  if (!r) return r.error();
  score = goodput_per_device(*c.inference->serving, *r, c.num_devices);
  return r;
}

// The capacity objective's first run: the deployment's requests all at once. Its rate bounds the
// largest Poisson rate the deployment can take (the bisection's upper end, capacity_bound).
Result<ServingPrediction> offline_run(const Scenario& c) {
  Scenario probe = c;
  probe.inference->serving->arrival = Arrival::offline;
  std::vector<Warning> warnings;
  return predict_serving(probe, warnings);
}

// The offline run's rate includes its drain at the end, so the true bound lies above: the
// bisection's first upper end.
double capacity_bound(const ServingPrediction& offline) { return 1.25 * offline.requests_per_s; }

// Requests a capacity probe at `rate` runs to judge the steady state, given the p99 end-to-end
// latency `e2e_s` seen: a Poisson run's batch fills only once its longest requests have been in it
// from arrival to their end (until then requests leave slower than they come) and empties over the
// same time at the end; a run of kSteadyRunLengths times the arrivals of that time keeps the two
// ends to about two fifths of its requests, each at about half the load. On the two streams below
// (2 x TP4), capacities found with 5 times came out 0-2.3% above those with 20 times, with 4 times
// up to 5.7% above, 3 times 3-7%, 2 times 5-10%; 20 times takes four times as long. A run of the scenario's
// 500 requests at 22.5 requests/s (Llama 3 70B on 2 x TP4 H100, outputs up to 2,000 tokens, p99 latency 48 s)
// ended before it filled: TPOT p90 49.0 ms against 57.3 ms at 5,000 requests and 56.7 ms at 20,000 (mean
// batch 45, 110, 124), so a 50 ms objective was met there and missed in the steady state; with outputs of
// 2,000 tokens on average (up to 4,000) runs of 500 put the capacity at 43 requests/s, where 20,000 requests
// wait 75 s for a first token, against about 7 in the steady state. At most `longest`
// (capacity_probe_requests).
std::int64_t steady_run_requests(double rate, double e2e_s, std::int64_t longest) {
  const double n = std::ceil(kSteadyRunLengths * rate * e2e_s);
  return std::isfinite(n) ? static_cast<std::int64_t>(std::min(n, static_cast<double>(longest))) : longest;
}

// The longest run a capacity probe takes in a search of `deployments`: kMaxCapacityProbeRequests, and
// no more than the search's request budget shared by them (a search of many deployments judges each
// on shorter runs, its capacities a little high), never fewer than the scenario's own num_requests.
std::int64_t capacity_probe_requests(std::int64_t num_requests, std::size_t deployments) {
  const std::int64_t share =
      kMaxServingSearchRequests / std::max<std::int64_t>(1, static_cast<std::int64_t>(deployments));
  return std::max(num_requests, std::min(kMaxCapacityProbeRequests, share));
}

// The capacity objective: the largest Poisson rate meeting the objectives, in `capacity`, and per
// device in `score`. The offline run's rate counts its drain (the longest responses decoding
// nearly alone at the end), which a stream of long-tailed outputs makes long: Llama 3 70B on
// 8 H100 with outputs of up to 2,000 tokens met its objectives at 31 requests/s in runs of 2,000
// requests (26 in the steady state) against an offline rate of 20.3, and a bracket fixed at 1.25 x
// that reported 25 (a probe's finding). So the upper
// end is tried first and doubled while the objectives hold there (kCapacityGrowth times at most:
// the capacity is then reported at that rate with `at_least` set, a lower bound); then 2% of it, below which
// the deployment meets them at no rate; then kCapacitySteps - 1 halvings between the two. Stops early, with
// `below` set, once the upper end is known to bound the capacity and is at most `floor` per device (the
// search's last listed score: the deployment cannot be listed), or before any of that once a run of the
// scenario's own length misses them at `floor` per device. The runs and the capacity found do not
// depend on `floor`, only whether they all run.
Result<ServingPrediction> bisect_capacity(const Scenario& c, const ServingPrediction& offline, double floor,
                                          std::int64_t longest, double& score, double& capacity, bool& below,
                                          bool& at_least) {
  Scenario probe = c;
  probe.inference->serving->arrival = Arrival::poisson;
  auto runner = ServingRunner::plan(probe);  // one plan for every rate: its step times kept
  if (!runner) return runner.error();
  std::vector<Warning> warnings;
  const double n = static_cast<double>(c.num_devices);
  // A run of num_requests at `rate` that met the objectives is run again longer while it is shorter
  // than the steady state needs (steady_run_requests), four times at most: its first latency estimate
  // comes from a run that had not filled up. A run that fails them fails longer too (a longer run
  // only adds steady-state load), so it is not rerun. A longer run refused by the step bound leaves
  // the last run that ran standing.
  const std::int64_t shortest = c.inference->serving->num_requests;
  double met_p99 = 0;  // the longest p99 latency of a rate met so far: a higher rate's is longer
  const auto meets = [&](double rate) -> Result<std::optional<ServingPrediction>> {
    std::int64_t requests = std::max(shortest, steady_run_requests(rate, met_p99, longest));
    std::optional<ServingPrediction> met;
    for (int pass = 0; pass <= 4; ++pass) {
      auto r = runner.value().run(rate, requests, warnings);
      if (!r && (met || requests > shortest)) {
        if (met) break;
        requests = shortest;
        continue;
      }
      if (!r) return r.error();
      if (!r->slo || !r->slo->met) return std::optional<ServingPrediction>();
      met = std::move(*r);
      const std::int64_t steady = steady_run_requests(rate, met->e2e.p99, longest);
      if (requests >= steady) break;
      requests = std::min(steady, 4 * requests);
    }
    if (!met) return std::optional<ServingPrediction>();  // every pass refused past the step bound
    met_p99 = std::max(met_p99, met->e2e.p99);
    return met;
  };
  // A deployment that misses the objectives at the last listed score in a run of the scenario's own
  // length misses them in a longer one too: it cannot be listed (one short run, not a bisection).
  if (floor > 0 && floor * n < capacity_bound(offline)) {
    auto r = runner.value().run(floor * n, shortest, warnings);
    if (!r) return r.error();
    if (!r->slo || !r->slo->met) {
      below = true;
      return offline;
    }
  }
  double lo = 0, hi = capacity_bound(offline);
  std::optional<ServingPrediction> at_lo;
  bool bounded = false;  // hi is a rate the objectives fail at
  for (int g = 0; g <= kCapacityGrowth && !bounded; ++g) {
    auto r = meets(hi);
    if (!r) return r.error();
    if (!*r) {
      bounded = true;
    } else {
      lo = hi;
      at_lo = std::move(**r);
      if (g < kCapacityGrowth) hi *= 2.0;
    }
  }
  if (bounded) {
    if (hi / n <= floor) {
      below = true;
      return offline;
    }
    if (!at_lo) {
      auto r = meets(0.02 * hi);
      if (!r) return r.error();
      if (!*r) {  // not even at 2% of its throughput
        capacity = score = 0;
        return offline;  // meets the objectives at no rate tried: the offline run stands for it
      }
      lo = 0.02 * hi;
      at_lo = std::move(**r);
    }
    for (int i = 1; i < kCapacitySteps; ++i) {
      if (hi / n <= floor) {
        below = true;
        return offline;
      }
      const double rate = 0.5 * (lo + hi);
      auto r = meets(rate);
      if (!r) return r.error();
      if (*r) {
        lo = rate;
        at_lo = std::move(**r);
      } else {
        hi = rate;
      }
    }
  }
  capacity = lo;
  score = lo / n;
  at_least = !bounded;  // the objectives held at every rate tried: the capacity is at least this
  return *at_lo;
}

// A deployment that differs from a better one only in max_batch and comes out the same adds
// nothing to the list.
bool same_listing(const ServingCandidate& a, const ServingCandidate& b) {
  ServingDeployment x = a.deployment, y = b.deployment;
  x.max_batch = y.max_batch = 0;
  const bool pools =
      x.disaggregated() == y.disaggregated() &&
      (!x.disaggregated() || (x.prefill->tp == y.prefill->tp && x.prefill->replicas == y.prefill->replicas &&
                              x.decode->tp == y.decode->tp));
  return pools && x.tp == y.tp && x.pp == y.pp && x.ep == y.ep && x.replicas == y.replicas &&
         a.score == b.score && a.result->e2e.p90 == b.result->e2e.p90 &&
         a.result->tpot.p90 == b.result->tpot.p90;
}

// The indices of `ok` listed, best first, at most `top`: each unless a better one listed is the
// same (same_listing). Indices, so that ranking moves no prediction.
std::vector<std::size_t> listed(const std::vector<ServingCandidate>& ok, std::size_t top) {
  std::vector<std::size_t> order(ok.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return better(ok[a], ok[b]); });
  std::vector<std::size_t> best;
  for (std::size_t i : order) {
    if (best.size() >= top) break;
    if (std::none_of(best.begin(), best.end(), [&](std::size_t b) { return same_listing(ok[b], ok[i]); }))
      best.push_back(i);
  }
  return best;
}

// A candidate that ran, its timeline dropped (the search lists no timelines).
ServingCandidate ran(const ServingDeployment& d, ServingPrediction pred, double score, double capacity,
                     bool at_least = false) {
  ServingCandidate cand;
  cand.deployment = d;
  cand.score = score;
  cand.capacity_requests_per_s = capacity;
  cand.capacity_at_least = at_least;
  pred.timeline.clear();
  cand.result = std::move(pred);
  return cand;
}

// The goodput objective: every deployment of `space` simulated with the stream as given.
void search_goodput(const Scenario& s, const std::vector<ServingDeployment>& space,
                    const std::function<bool(double)>& progress, ServingSearchResult& out,
                    std::vector<ServingCandidate>& ok) {
  const double total = static_cast<double>(space.size());
  for (const ServingDeployment& d : space) {
    if (progress && !progress(static_cast<double>(out.evaluated) / total)) {
      out.cancelled = true;
      return;
    }
    ++out.evaluated;
    const Scenario c = with_deployment(s, d);
    if (auto err = validate_plan(c)) {
      ++out.rejected[err->code];
      continue;
    }
    double score = 0;
    auto r = score_goodput(c, score);
    if (!r) {
      ++out.rejected[r.error().code];
      continue;
    }
    ++out.feasible;
    ok.push_back(ran(d, std::move(*r), score, 0));
  }
}

// The capacity objective, in two passes: every deployment's offline run (its bound), then the
// bisections, highest bound first. Once `top` deployments are listed, a deployment whose bound
// per device, or whose bisection's upper end, is at most the last listed score cannot enter the
// list (its capacity lies below either) and is not bisected further: the same list as bisecting
// all of them, in a fraction of the runs. It counts as feasible: its offline run served every
// request.
void search_capacity(const Scenario& s, const std::vector<ServingDeployment>& space, std::size_t top,
                     const std::function<bool(double)>& progress, ServingSearchResult& out,
                     std::vector<ServingCandidate>& ok) {
  const double runs_each = 1.0 + kCapacitySteps + kCapacityGrowth;
  const double total = static_cast<double>(space.size()) * runs_each;
  double done = 0;
  const auto go_on = [&] {
    if (progress && !progress(done / total)) out.cancelled = true;
    return !out.cancelled;
  };
  // The deployments whose offline run held every request: their index in `space`, that run.
  std::vector<std::size_t> index;
  std::vector<ServingPrediction> offline;
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (!go_on()) return;
    ++out.evaluated;
    done += 1;
    const Scenario c = with_deployment(s, space[i]);
    if (auto err = validate_plan(c)) {
      ++out.rejected[err->code];
      done += kCapacitySteps + kCapacityGrowth;
      continue;
    }
    auto r = offline_run(c);
    if (!r) {
      ++out.rejected[r.error().code];
      done += kCapacitySteps + kCapacityGrowth;
      continue;
    }
    index.push_back(i);
    offline.push_back(std::move(*r));
  }
  std::vector<std::size_t> order(index.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return capacity_bound(offline[a]) > capacity_bound(offline[b]);
  });
  double floor = -1;  // the last listed score once `top` are listed (listed() anew as `ok` grows)
  const std::int64_t longest = capacity_probe_requests(s.inference->serving->num_requests, space.size());
  for (std::size_t k : order) {
    if (!go_on()) return;
    done += kCapacitySteps + kCapacityGrowth;
    const ServingDeployment& d = space[index[k]];
    double score = 0, capacity = 0;
    bool below = false, at_least = false;
    auto r =
        bisect_capacity(with_deployment(s, d), offline[k], floor, longest, score, capacity, below, at_least);
    if (!r) {
      ++out.rejected[r.error().code];
      continue;
    }
    ++out.feasible;
    if (below) continue;
    ok.push_back(ran(d, std::move(*r), score, capacity, at_least));
    if (top > 0 && ok.size() >= top) {
      const std::vector<std::size_t> best = listed(ok, top);
      if (best.size() >= top) floor = ok[best.back()].score;
    }
  }
}

}  // namespace

double goodput_per_device(const ServingSpec& sv, const ServingPrediction& r, std::int64_t devices) {
  const double n = static_cast<double>(devices);
  if (!sv.spread_arrivals()) return r.goodput_requests_per_s / n;
  const double good = std::round(r.goodput_requests_per_s * r.duration_s);
  return good / static_cast<double>(sv.num_requests) * sv.requests_per_s / n;
}

Result<ServingSearchResult> search_serving(const Scenario& s, std::optional<std::int64_t> tp,
                                           std::optional<std::int64_t> pp, std::optional<std::int64_t> ep,
                                           std::size_t top, ServingObjective objective,
                                           const std::function<bool(double)>& progress) {
  if (objective == ServingObjective::capacity && s.inference && s.inference->serving &&
      (!s.inference->serving->slo || s.inference->serving->arrival == Arrival::closed))
    return make_error(
        "search.capacity_needs_objectives", "/inference/serving/slo",
        "the capacity objective finds the largest Poisson rate that meets inference.serving.slo; "
        "give ttft_s, tpot_s or itl_s, and an open stream (poisson or offline)");
  auto space = serving_deployments(s, tp, pp, ep);
  if (!space) return space.error();
  ServingSearchResult out;
  std::vector<ServingCandidate> ok;
  if (objective == ServingObjective::capacity)
    search_capacity(s, *space, top, progress, out, ok);
  else
    search_goodput(s, *space, progress, out, ok);
  for (std::size_t i : listed(ok, top)) out.best.push_back(std::move(ok[i]));
  if (progress && !out.cancelled) progress(1.0);
  return out;
}

}  // namespace optimus
