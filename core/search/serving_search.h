// Serving deployment search (issue 12): for a serving scenario's request stream and its total of
// devices, every deployment in a bounded space is simulated (predict/serving.h) and ranked by
// goodput per device under the scenario's objectives. Pure: no I/O, no clock.
//
// The space. Colocated deployments: tp over the divisors of num_devices, pp over the divisors of
// num_devices / tp, replicas the rest; for a mixture-of-experts model ep over the divisors of tp
// that divide the experts (inference splits experts within the tp group); max_batch the
// scenario's, a quarter and a sixteenth of it (at least 8; for a closed loop only those below its
// clients, as a replica never runs more sequences than that). Disaggregated deployments (not for a
// closed loop): a prefill pool and a decode pool of pp 1, each tp a divisor of num_devices no
// larger than the scale-up domain, their replicas filling the devices between them, at the
// scenario's max_batch. Keys the scenario's `parallel` gives (tp, pp, ep) are fixed for the
// colocated deployments. A deployment that cannot run (a layout validate_plan rejects, a KV budget
// that holds no request, too many steps) is counted under its error code.
//
// Objectives. `goodput` (default): each deployment serves the scenario's stream as given and is
// scored by its goodput per device: for a Poisson stream the offered rate times the share of
// requests meeting both objectives (a deployment that keeps up with the stream and meets them all
// scores the rate; the drain at the end of a finite run does not count), else goodput requests
// per second as predict reports it. `capacity` (needs a Poisson stream and objectives): the
// largest Poisson rate at which the deployment still meets the objectives at their percentile,
// found by bisection (kCapacitySteps runs, between 2% of its offline
// throughput and 1.25 times it, that upper end doubled up to kCapacityGrowth times while the
// objectives hold there; met at the last, the capacity is marked `capacity_at_least`), per
// device; deployments are bisected
// highest bound first, and once `top` are listed one that can no longer reach the last listed
// score is not bisected further (the same list, in a fraction of the runs). A rate is judged on a run
// long enough for the steady state (steady_run_requests, serving_search.cpp), at least the scenario's
// num_requests: what "how many requests per second can this take while p90 TTFT stays under 2 s"
// asks of a service that keeps running. Ties (equal scores) go to the lower
// p90 end-to-end latency, then the smaller tp x pp, colocated before disaggregated, the larger max_batch;
// deterministic. Deployments that differ only in max_batch and come out the same are listed once.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "base/result.h"
#include "predict/serving.h"
#include "scenario/scenario.h"

namespace optimus {

// Deployments one search may simulate, and requests over all of them: a larger space is refused
// (search.space_too_large) so that a browser tab never waits minutes.
inline constexpr std::int64_t kMaxServingDeployments = 400;
inline constexpr std::int64_t kMaxServingSearchRequests = 2'000'000;
inline constexpr int kCapacitySteps = 7;
// Doublings of the capacity bisection's upper end while the objectives still hold there
// (serving_search.cpp, bisect_capacity): up to 8 x its first value, 10 x the offline run's rate.
inline constexpr int kCapacityGrowth = 3;
// A capacity probe's run: at least kSteadyRunLengths x rate x the p99 end-to-end latency requests
// (the batch fills over about the longest requests' latency), at most kMaxCapacityProbeRequests
// and a share of kMaxServingSearchRequests (serving_search.cpp, steady_run_requests).
inline constexpr double kSteadyRunLengths = 5;
inline constexpr std::int64_t kMaxCapacityProbeRequests = 20'000;

OPTIMUS_ENUM(ServingObjective, goodput, capacity);

struct ServingDeployment {
  std::int64_t tp = 1, pp = 1, ep = 1, replicas = 1;
  std::int64_t max_batch = 1;
  std::optional<ServingPool> prefill, decode;  // disaggregated: both set
  bool disaggregated() const { return prefill && decode; }
};

struct ServingCandidate {
  ServingDeployment deployment;
  std::optional<ServingPrediction> result;  // set when it ran
  std::string reason;                       // the error code when it could not
  double score = 0;                         // requests per second per device (the objective's)
  double capacity_requests_per_s = 0;       // capacity objective: the largest rate meeting them
  bool capacity_at_least = false;           // ... and met at the highest rate tried: a lower bound
};

struct ServingSearchResult {
  std::int64_t evaluated = 0, feasible = 0;
  std::map<std::string, std::int64_t> rejected;
  std::vector<ServingCandidate> best;  // best first, at most `top`
  bool cancelled = false;
};

// The deployments of the space in enumeration order (colocated first).
Result<std::vector<ServingDeployment>> serving_deployments(const Scenario& s, std::optional<std::int64_t> tp,
                                                           std::optional<std::int64_t> pp,
                                                           std::optional<std::int64_t> ep);

// The goodput objective's score: requests per second per device meeting the objectives (all of
// them without any). A Poisson stream scores the offered rate times the share that met them (a
// deployment that keeps up and meets them all scores the rate; the drain at the end of a finite
// run does not count); any other stream its goodput requests per second as predicted.
double goodput_per_device(const ServingSpec& sv, const ServingPrediction& r, std::int64_t devices);

// The scenario with the deployment in place (parallel, serving pools, max_batch).
Scenario with_deployment(const Scenario& s, const ServingDeployment& d);

// progress(fraction done) returning false cancels; the result keeps what was found.
Result<ServingSearchResult> search_serving(const Scenario& s, std::optional<std::int64_t> tp,
                                           std::optional<std::int64_t> pp, std::optional<std::int64_t> ep,
                                           std::size_t top, ServingObjective objective,
                                           const std::function<bool(double)>& progress = {});

}  // namespace optimus
