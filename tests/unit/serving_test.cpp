// Continuous-batching serving (core/serving/, over core/predict/serving.cpp): properties a queueing
// simulation must have (Little's law, the static-batch bound, latency rising with the rate and exploding past
// saturation, the batch-1 latency at a vanishing rate, determinism), disaggregated pools, and
// every bad input with its code and path.
#include "predict/serving.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "base/math.h"
#include "io/api.h"
#include "io/json_io.h"
#include "io/schema.h"
#include "serving/request.h"

namespace serving_test {

namespace {

using json = nlohmann::json;

// Llama 3.1 8B on one H100 with CUDA graphs, fixed 512-token prompts and 128-token outputs.
json base(const json& serving) {
  return {{"model", "llama3.1-8b"},
          {"system", "dgx-h100"},
          {"num_devices", 1},
          {"inference",
           {{"batch", 1},
            {"prompt_len", 512},
            {"output_len", 128},
            {"cuda_graphs", true},
            {"serving", serving}}}};
}

json predict(const json& scenario) { return json::parse(optimus::api::predict(scenario.dump())); }

bool warns(const json& p, const std::string& code) {
  for (const json& w : p.value("warnings", json::array()))
    if (w["code"] == code) return true;
  return false;
}

json serve(const json& serving) {
  const json p = predict(base(serving));
  EXPECT_FALSE(p.contains("error")) << p.dump();
  return p.contains("serving") ? p["serving"] : json::object();
}

void expect_error(const json& scenario, const std::string& code, const std::string& path) {
  const json p = predict(scenario);
  ASSERT_TRUE(p.contains("error")) << scenario.dump();
  EXPECT_EQ(p["error"]["code"], code) << p.dump();
  EXPECT_EQ(p["error"]["path"], path) << p.dump();
}

// The served stream's energy is drawn at its own batch's mix, not at the static inference.batch's
// (which the stream does not use): the same stream at static batch 1 and 256 costs the same, and a
// busier stream (a closed loop of 64 clients: more compute-bound tokens per step) draws more power
// than one of 2 clients.
TEST(Serving, TheStreamsCostFollowsTheStreamNotTheStaticBatch) {
  const json serving = {{"arrival", "closed"}, {"concurrency", 64}, {"num_requests", 256}};
  json one = base(serving), many = base(serving);
  many["inference"]["batch"] = 256;
  const json a = predict(one), b = predict(many);
  ASSERT_FALSE(a.contains("error")) << a.dump().substr(0, 300);
  EXPECT_DOUBLE_EQ(a["serving"]["cost"]["device_power_W"].get<double>(),
                   b["serving"]["cost"]["device_power_W"].get<double>());
  EXPECT_NE(a["inference"]["cost"]["device_power_W"].get<double>(),
            b["inference"]["cost"]["device_power_W"].get<double>());
  const json few = predict(base({{"arrival", "closed"}, {"concurrency", 2}, {"num_requests", 64}}));
  EXPECT_GT(a["serving"]["cost"]["device_power_W"].get<double>(),
            few["serving"]["cost"]["device_power_W"].get<double>());
}

// A length's mean at its max (or min) is every request that long: the stream of the whole number.
TEST(Serving, AMeanAtEitherEndIsAFixedLength) {
  const json stream = {{"arrival", "offline"}, {"num_requests", 64}, {"output_len", 128}};
  json at_max = stream, at_min = stream, fixed = stream;
  fixed["input_len"] = 512;
  at_max["input_len"] = {{"mean", 512}, {"max", 512}};
  at_min["input_len"] = {{"mean", 512}, {"max", 2048}, {"min", 512}};
  const json want = predict(base(fixed));
  ASSERT_FALSE(want.contains("error")) << want.dump();
  for (const json& s : {at_max, at_min}) EXPECT_EQ(predict(base(s))["serving"], want["serving"]) << s.dump();
}

// A closed loop of C clients keeps C requests in the system: throughput x latency = C (Little's
// law), up to the ramp at the start and the drain at the end.
TEST(Serving, LittlesLawHoldsForAClosedLoop) {
  for (int clients : {4, 32}) {
    const json s = serve({{"arrival", "closed"}, {"concurrency", clients}, {"num_requests", 3000}});
    const double in_system = s["requests_per_s"].get<double>() * s["e2e_latency_s"]["mean"].get<double>();
    EXPECT_NEAR(in_system / clients, 1.0, 0.02) << clients;
  }
}

// No schedule beats running max_batch sequences together from start to end.
TEST(Serving, ThroughputNeverExceedsTheStaticBatchBound) {
  for (int batch : {8, 64}) {
    json st = base(json::object());
    st["inference"].erase("serving");
    st["inference"]["batch"] = batch;
    const double bound = predict(st)["inference"]["throughput_tokens_per_s"].get<double>();
    const json s = serve({{"arrival", "offline"}, {"num_requests", 512}, {"max_batch", batch}});
    EXPECT_LE(s["output_tokens_per_s"].get<double>(), bound * 1.0001) << batch;
    EXPECT_GT(s["output_tokens_per_s"].get<double>(), bound * 0.5) << batch;
  }
}

TEST(Serving, LatencyGrowsWithTheRateAndExplodesPastSaturation) {
  const double capacity =
      serve({{"arrival", "offline"}, {"num_requests", 400}})["requests_per_s"].get<double>();
  double last_ttft = 0, last_e2e = 0, first_ttft = 0;
  for (double share : {0.05, 0.3, 0.6, 0.9, 2.0, 8.0}) {
    const json s =
        serve({{"arrival", "poisson"}, {"requests_per_s", share * capacity}, {"num_requests", 400}});
    const double ttft = s["ttft_s"]["mean"].get<double>(), e2e = s["e2e_latency_s"]["mean"].get<double>();
    EXPECT_GE(ttft, last_ttft * 0.98) << share;
    EXPECT_GE(e2e, last_e2e * 0.98) << share;
    if (first_ttft == 0) first_ttft = ttft;
    last_ttft = ttft;
    last_e2e = e2e;
  }
  EXPECT_GT(last_ttft, 20 * first_ttft);  // past saturation the queue grows with every request
}

// A Poisson stream past the deployment's capacity is said to be one: the queue before the first
// token grows through the run (serving.overloaded), which a stream at 90% of the offline capacity
// does not get, nor a closed loop.
TEST(Serving, AStreamPastCapacityWarnsThatItsQueueGrows) {
  const double capacity =
      serve({{"arrival", "offline"}, {"num_requests", 1000}})["requests_per_s"].get<double>();
  const auto warned = [](const json& serving) {
    const json p = predict(base(serving));
    EXPECT_TRUE(p.contains("serving")) << p.dump().substr(0, 300);
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "serving.overloaded") return true;
    return false;
  };
  EXPECT_TRUE(warned({{"arrival", "poisson"}, {"requests_per_s", 2 * capacity}, {"num_requests", 1000}}));
  EXPECT_FALSE(warned({{"arrival", "poisson"}, {"requests_per_s", 0.9 * capacity}, {"num_requests", 1000}}));
  EXPECT_FALSE(warned({{"arrival", "poisson"}, {"requests_per_s", 0.3 * capacity}, {"num_requests", 1000}}));
  EXPECT_FALSE(warned({{"arrival", "closed"}, {"concurrency", 512}, {"num_requests", 1000}}));
}

// A closed loop of more clients than requests is an offline burst of the requests: the same
// numbers as a loop of exactly num_requests clients, and a warning that says so; a loop of fewer
// clients than requests has none.
TEST(Serving, ClientsBeyondTheRequestsAreSaidToBeIdle) {
  const json many = predict(base({{"arrival", "closed"}, {"concurrency", 100000}, {"num_requests", 500}}));
  const json all = predict(base({{"arrival", "closed"}, {"concurrency", 500}, {"num_requests", 500}}));
  EXPECT_TRUE(warns(many, "serving.clients_beyond_requests")) << many.dump().substr(0, 300);
  EXPECT_FALSE(warns(all, "serving.clients_beyond_requests"));
  EXPECT_DOUBLE_EQ(many["serving"]["output_tokens_per_s"].get<double>(),
                   all["serving"]["output_tokens_per_s"].get<double>());
}

// A software profile that states no scheduler (a training stack's) still runs a serving simulation
// with its kernels, and says which scheduler it assumed; a serving profile, or none, says nothing.
TEST(Serving, AProfileWithoutASchedulerSaysWhichItAssumed) {
  const auto warning = [](const json& software) -> std::string {
    json s = base({{"arrival", "offline"}, {"num_requests", 64}, {"max_batch", 32}});
    if (!software.is_null()) s["software"] = software;
    const json p = predict(s);
    EXPECT_TRUE(p.contains("serving")) << p.dump().substr(0, 300);
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "inference.profile_not_serving") return w["message"].get<std::string>();
    return "";
  };
  const std::string said = warning("megatron-bridge");
  EXPECT_NE(said.find("'megatron-bridge'"), std::string::npos) << said;
  EXPECT_NE(said.find("up to 32 sequences"), std::string::npos) << said;  // the stated max_batch
  EXPECT_EQ(warning("vllm"), "");
  EXPECT_EQ(warning(nullptr), "");
}

// One request at a time is the static batch of one (without the front end's own time).
TEST(Serving, AVanishingRateGivesTheBatchOneLatency) {
  json st = base(json::object());
  st["inference"].erase("serving");
  const json one = predict(st)["inference"];
  const json s = serve({{"arrival", "poisson"},
                        {"requests_per_s", 0.01},
                        {"num_requests", 20},
                        {"request_overhead_ms", 0},
                        {"step_overhead_ms", 0}});
  EXPECT_NEAR(s["ttft_s"]["mean"].get<double>() / one["ttft_s"].get<double>(), 1.0, 0.01);
  EXPECT_NEAR(s["tpot_s"]["mean"].get<double>() / one["tpot_s"].get<double>(), 1.0, 0.01);
  EXPECT_NEAR(s["mean_batch"].get<double>(), 1.0, 1e-9);
}

// The per-request host time of a step (step_overhead_us_per_request) is on the step's critical
// path: a lone request is scheduled in every step of its run, so the run lasts c x steps longer;
// with many requests every step pays c for each one it schedules, and throughput falls.
TEST(Serving, PerRequestHostTimeAddsToEveryStep) {
  const json sv = {{"arrival", "offline"}, {"num_requests", 1}};
  json with = sv;
  with["step_overhead_us_per_request"] = 50;
  const json a = serve(sv), b = serve(with);
  ASSERT_EQ(a["steps"], b["steps"]);
  EXPECT_NEAR(b["duration_s"].get<double>() - a["duration_s"].get<double>(), 50e-6 * a["steps"].get<double>(),
              1e-9);
  double last = 1e300;
  for (double us : {0.0, 5.0, 20.0}) {
    const json s =
        serve({{"arrival", "offline"}, {"num_requests", 256}, {"step_overhead_us_per_request", us}});
    EXPECT_LT(s["output_tokens_per_s"].get<double>(), last) << us;
    last = s["output_tokens_per_s"].get<double>();
  }
  // The TensorRT-LLM PyTorch profile carries the published 13.8 us; out of range is an error.
  json t = base({{"arrival", "offline"}, {"num_requests", 4}});
  t["software"] = "tensorrt-llm-pytorch";
  const json v = json::parse(optimus::api::validate(t.dump()));
  EXPECT_DOUBLE_EQ(v["scenario"]["inference"]["serving"]["step_overhead_us_per_request"].get<double>(), 13.8);
  t["inference"]["serving"]["step_overhead_us_per_request"] = -1;
  expect_error(t, "scenario.out_of_range", "/inference/serving/step_overhead_us_per_request");
}

// An overlap scheduler (overlap_schedule, SGLang's default) hides the scheduler's host time behind
// the GPU's step: a step takes the longer of the two, so a host time shorter than every step
// costs nothing and one longer than every step sets the pace alone; without it they add.
TEST(Serving, OverlapSchedulerHidesTheHostTimeBehindTheStep) {
  const json sv = {{"arrival", "offline"}, {"num_requests", 1}, {"request_overhead_ms", 0}};
  json none = sv, small = sv, large = sv, added = sv;
  none["step_overhead_ms"] = 0;
  small["step_overhead_ms"] = 1;
  small["overlap_schedule"] = true;
  large["step_overhead_ms"] = 1000;
  large["overlap_schedule"] = true;
  added["step_overhead_ms"] = 1;
  const json a = serve(none), b = serve(small), c = serve(large), e = serve(added);
  ASSERT_EQ(a["steps"], b["steps"]);
  EXPECT_GT(a["tpot_s"]["mean"].get<double>(), 2e-3);  // every GPU step of this request is over 1 ms...
  EXPECT_DOUBLE_EQ(b["duration_s"].get<double>(), a["duration_s"].get<double>());  // ... so 1 ms hides
  EXPECT_NEAR(c["tpot_s"]["mean"].get<double>(), 1.0, 1e-9);                       // 1 s sets the pace
  EXPECT_NEAR(e["duration_s"].get<double>() - a["duration_s"].get<double>(), 1e-3 * a["steps"].get<double>(),
              1e-9);
  // The SGLang profile overlaps; the default scheduler does not.
  json t = base({{"arrival", "offline"}, {"num_requests", 4}});
  EXPECT_FALSE(
      json::parse(optimus::api::validate(t.dump()))["scenario"]["inference"]["serving"]["overlap_schedule"]
          .get<bool>());
  t["software"] = "sglang";
  EXPECT_TRUE(
      json::parse(optimus::api::validate(t.dump()))["scenario"]["inference"]["serving"]["overlap_schedule"]
          .get<bool>());
  t["inference"]["serving"]["overlap_schedule"] = 1;
  expect_error(t, "scenario.wrong_type", "/inference/serving/overlap_schedule");
}

TEST(Serving, IsDeterministicForAScenarioAndFollowsTheSeed) {
  const json sv = {{"arrival", "poisson"},
                   {"requests_per_s", 5},
                   {"num_requests", 300},
                   {"input_len", {{"mean", 400}, {"max", 2000}}},
                   {"output_len", json::array({json::array({64, 1}), json::array({256, 3})})}};
  EXPECT_EQ(serve(sv).dump(), serve(sv).dump());
  json other = sv;
  other["seed"] = 7;
  EXPECT_NE(serve(sv)["ttft_s"].dump(), serve(other)["ttft_s"].dump());
}

// The {mean, max} shape draws lengths whose average is the mean.
TEST(Serving, LengthDistributionsHaveTheirMean) {
  for (double mean : {150.0, 500.0, 1600.0}) {
    const json s = serve({{"arrival", "offline"},
                          {"num_requests", 4000},
                          {"input_len", {{"mean", mean}, {"max", 2000}, {"min", 100}}},
                          {"output_len", 4}});
    const double drawn = s["input_tokens_per_s"].get<double>() / s["requests_per_s"].get<double>();
    EXPECT_NEAR(drawn / mean, 1.0, 0.03) << mean;
  }
}

// The token-weighted mean inter-token latency (every gap once) against the request-weighted TPOT
// mean: equal when every output has the same length; with long-tailed outputs run offline the
// long requests, which decode in the emptier end of the run, weigh more, so it is lower. It is a
// weighted mean of the requests' TPOTs: under a light Poisson stream it stays below the TPOT of
// the slowest 1% of requests (p99).
TEST(Serving, MeanItlWeighsEveryGapOnce) {
  const json fixed = serve({{"arrival", "offline"}, {"num_requests", 300}});
  EXPECT_NEAR(fixed["mean_itl_s"].get<double>(), fixed["tpot_s"]["mean"].get<double>(),
              1e-9 * fixed["tpot_s"]["mean"].get<double>());
  const json tail =
      serve({{"arrival", "offline"}, {"num_requests", 600}, {"output_len", {{"mean", 150}, {"max", 2000}}}});
  const double itl = tail["mean_itl_s"].get<double>();
  EXPECT_GT(itl, 0.0);
  EXPECT_LT(itl, 0.95 * tail["tpot_s"]["mean"].get<double>());
  const json poisson = serve({{"arrival", "poisson"},
                              {"requests_per_s", 4},
                              {"num_requests", 300},
                              {"output_len", {{"mean", 150}, {"max", 2000}}}});
  EXPECT_GT(poisson["mean_itl_s"].get<double>(), 0.0);
  EXPECT_LE(poisson["mean_itl_s"].get<double>(), poisson["tpot_s"]["p99"].get<double>() * 1.0001);
}
// The distribution of every inter-token gap (serving.itl_s) counts each gap once on the clock the
// run keeps: its mean is exactly the token-weighted mean of the requests' own first and last
// tokens in every kind of run (a long-tailed offline burst, a Poisson stream, a closed loop,
// preemptions and recomputation, speculative decoding, disaggregated pools, attention data
// parallel ranks in lockstep); a gap lost or counted twice anywhere would break it.
TEST(Serving, ItlDistributionCountsEveryGapOnce) {
  const auto check = [](const json& s, const std::string& what) {
    ASSERT_TRUE(s.contains("itl_s")) << what << s.dump();
    const json& itl = s["itl_s"];
    const double mean = s["mean_itl_s"].get<double>();
    EXPECT_NEAR(itl["mean"].get<double>(), mean, 1e-9 * mean) << what;
    EXPECT_GT(itl["p50"].get<double>(), 0.0) << what;
    EXPECT_LE(itl["p50"].get<double>(), itl["p90"].get<double>()) << what;
    EXPECT_LE(itl["p90"].get<double>(), itl["p99"].get<double>()) << what;
  };
  const json tail = {{"mean", 150}, {"max", 2000}};
  check(serve({{"arrival", "offline"}, {"num_requests", 600}, {"output_len", tail}}), "offline");
  check(serve({{"arrival", "poisson"}, {"requests_per_s", 20}, {"num_requests", 400}, {"output_len", tail}}),
        "poisson");
  check(serve({{"arrival", "closed"}, {"concurrency", 24}, {"num_requests", 400}, {"output_len", tail}}),
        "closed");
  const json preempting = serve({{"arrival", "offline"},
                                 {"num_requests", 300},
                                 {"kv_admission", "on_demand"},
                                 {"gpu_memory_utilization", 0.25},
                                 {"output_len", {{"mean", 600}, {"max", 2000}}}});
  EXPECT_GT(preempting["preemptions"].get<int>(), 0);
  check(preempting, "preemptions");
  json spec =
      base({{"arrival", "poisson"}, {"requests_per_s", 8}, {"num_requests", 300}, {"output_len", tail}});
  spec["inference"]["speculative"] = {{"draft_tokens", 3}, {"acceptance_rate", 0.7}};
  check(predict(spec)["serving"], "speculative");
  json split =
      base({{"arrival", "poisson"},
            {"requests_per_s", 6},
            {"num_requests", 300},
            {"output_len", tail},
            {"disaggregated",
             {{"prefill", {{"tp", 1}, {"replicas", 1}}}, {"decode", {{"tp", 1}, {"replicas", 1}}}}}});
  split["num_devices"] = 2;
  check(predict(split)["serving"], "disaggregated");
}

// One request alone: every gap is a decode step of one sequence, all but equal, so the binned
// percentiles sit within a bin (0.7%) of the mean. Prompt chunks batched into decode steps
// (Sarathi-Serve, Agrawal et al. 2024) lengthen the gaps of every sequence decoding beside them:
// the slowest gaps (p99) are the steps that also prefill, and a smaller token budget per step
// (smaller chunks) shortens them while the median gap hardly moves.
TEST(Serving, ItlPercentilesShowPrefillInterference) {
  const json one = serve({{"arrival", "offline"}, {"num_requests", 1}})["itl_s"];
  for (const char* q : {"p50", "p90", "p99"})
    EXPECT_NEAR(one[q].get<double>() / one["mean"].get<double>(), 1.0, 0.01) << q;
  const auto stream = [](int budget) {
    return serve({{"arrival", "poisson"},
                  {"requests_per_s", 3},
                  {"num_requests", 300},
                  {"max_num_tokens", budget},
                  {"input_len", {{"mean", 3000}, {"max", 8000}}},
                  {"output_len", 200}})["itl_s"];
  };
  const json big = stream(8192), small = stream(512);
  EXPECT_GT(big["p99"].get<double>(), 3.0 * big["p50"].get<double>());
  EXPECT_LT(small["p99"].get<double>(), 0.5 * big["p99"].get<double>());
  EXPECT_NEAR(small["p50"].get<double>() / big["p50"].get<double>(), 1.0, 0.2);
}

// An objective on the gap between tokens (Sarathi-Serve's P99 time between tokens) between the two
// budgets' p99 gaps: the large chunks miss it, the small ones meet it; its value at the percentile
// is the distribution's p99. It is over tokens, so it decides `met` and leaves goodput, a count of
// requests, to the TTFT and TPOT objectives (all requests without them).
TEST(Serving, ItlObjectiveHoldsOverTokens) {
  const auto stream = [](int budget, const json& slo) {
    return serve({{"arrival", "poisson"},
                  {"requests_per_s", 3},
                  {"num_requests", 300},
                  {"max_num_tokens", budget},
                  {"input_len", {{"mean", 3000}, {"max", 8000}}},
                  {"output_len", 200},
                  {"slo", slo}});
  };
  const json free_big = stream(8192, {{"ttft_s", 100}}), free_small = stream(512, {{"ttft_s", 100}});
  const double objective =
      std::sqrt(free_big["itl_s"]["p99"].get<double>() * free_small["itl_s"]["p99"].get<double>());
  const json big = stream(8192, {{"itl_s", objective}, {"percentile", 99}});
  const json small = stream(512, {{"itl_s", objective}, {"percentile", 99}});
  EXPECT_FALSE(big["slo"]["met"].get<bool>());
  EXPECT_TRUE(small["slo"]["met"].get<bool>());
  EXPECT_DOUBLE_EQ(big["slo"]["itl_at_percentile"].get<double>(), big["itl_s"]["p99"].get<double>());
  EXPECT_DOUBLE_EQ(big["goodput_requests_per_s"].get<double>(), big["requests_per_s"].get<double>());
  // With a TPOT objective beside it, goodput counts the requests that meet that one.
  const json both = stream(8192, {{"itl_s", objective}, {"tpot_s", 1e-5}, {"percentile", 99}});
  EXPECT_EQ(both["goodput_requests_per_s"].get<double>(), 0.0);
}

TEST(Serving, SlosGiveGoodputAndTheirPercentiles) {
  const json loose = serve({{"arrival", "poisson"},
                            {"requests_per_s", 4},
                            {"num_requests", 200},
                            {"slo", {{"ttft_s", 10}, {"tpot_s", 1}}}});
  EXPECT_TRUE(loose["slo"]["met"].get<bool>());
  EXPECT_DOUBLE_EQ(loose["goodput_requests_per_s"].get<double>(), loose["requests_per_s"].get<double>());
  const json tight = serve({{"arrival", "poisson"},
                            {"requests_per_s", 4},
                            {"num_requests", 200},
                            {"slo", {{"tpot_s", 1e-5}, {"percentile", 50}}}});
  EXPECT_FALSE(tight["slo"]["met"].get<bool>());
  EXPECT_EQ(tight["goodput_requests_per_s"].get<double>(), 0.0);
  EXPECT_GT(tight["slo"]["tpot_at_percentile"].get<double>(), 0.0);
}

// On-demand blocks overcommit the cache and preempt; reserving the whole output never does.
TEST(Serving, OnDemandKvPreemptsWhereReserveWaits) {
  const json common = {{"arrival", "offline"},
                       {"num_requests", 300},
                       {"input_len", 2000},
                       {"output_len", 2000},
                       {"gpu_memory_utilization", 0.3}};
  json demand = common, reserve = common;
  demand["kv_admission"] = "on_demand";
  reserve["kv_admission"] = "reserve";
  const json d = serve(demand);
  EXPECT_GT(d["preemptions"].get<int>(), 0);
  // Preempting means the blocks ran out: the peak is the whole pool, to a block per sequence.
  EXPECT_GT(d["kv_peak_utilisation"].get<double>(), 0.95);
  const json r = serve(reserve);
  EXPECT_EQ(r["preemptions"].get<int>(), 0);
  EXPECT_LE(r["kv_utilisation"].get<double>(), 1.0);
  EXPECT_LE(r["kv_peak_utilisation"].get<double>(), 1.0);
  EXPECT_GE(r["kv_peak_utilisation"].get<double>(), r["kv_utilisation"].get<double>());
  // The pool is what 30% of the device leaves beside the weights: under 30% of it, and equal in
  // both (it depends on the deployment, not on the stream).
  EXPECT_GT(r["kv_pool_bytes_per_device"].get<double>(), 0);
  EXPECT_LT(r["kv_pool_bytes_per_device"].get<double>(), 0.3 * 80 * 1024.0 * 1024 * 1024);
  EXPECT_EQ(r["kv_pool_bytes_per_device"], d["kv_pool_bytes_per_device"]);
}

// {"uniform": [min, max]}: every whole length in the range equally likely, mean (min + max) / 2,
// none outside; a range of one length is that length.
TEST(Serving, UniformLengthsCoverTheirRange) {
  const json s = serve({{"arrival", "offline"},
                        {"num_requests", 2000},
                        {"input_len", {{"uniform", {100, 300}}}},
                        {"output_len", {{"uniform", {16, 16}}}}});
  EXPECT_NEAR(s["input_tokens_per_s"].get<double>() / s["output_tokens_per_s"].get<double>(), 200.0 / 16.0,
              200.0 / 16.0 * 0.02);
  const json fixed =
      serve({{"arrival", "offline"}, {"num_requests", 2000}, {"input_len", 200}, {"output_len", 16}});
  EXPECT_NEAR(s["output_tokens_per_s"].get<double>() / fixed["output_tokens_per_s"].get<double>(), 1.0, 0.05);
  const json v = json::parse(optimus::api::validate(
      base({{"arrival", "offline"}, {"input_len", {{"uniform", {100, 300}}}}}).dump()));
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["input_len"], json({{"uniform", {100, 300}}}));
}

// TensorRT-LLM's free_gpu_memory_fraction takes its share of what the weights and workspace leave:
// f of the free memory against gpu_memory_utilization u of the device, equal where
// f (HBM - held) = u HBM - held. Llama 3.1 8B on an 80 GB H100: a fraction of 0.9 gives more KV
// than a utilisation of 0.9 (which also counts the weights), and the fraction scales the free part.
TEST(Serving, FreeMemoryFractionSharesWhatTheWeightsLeave) {
  const auto kv = [&](const json& extra) {
    json sv = {{"arrival", "offline"}, {"num_requests", 8}};
    sv.update(extra);
    return serve(sv)["kv_capacity_tokens"].get<double>();
  };
  const double u9 = kv({{"gpu_memory_utilization", 0.9}}), f9 = kv({{"free_gpu_memory_fraction", 0.9}});
  const double f45 = kv({{"free_gpu_memory_fraction", 0.45}});
  EXPECT_GT(f9, u9);
  EXPECT_NEAR(f45 / f9, 0.5, 0.001);
}

// A closed loop of clients over disaggregated pools keeps C requests in the deployment (Little's
// law, as colocated), every request completes, and more clients raise throughput and latency.
// Pool settings apply to their pool: a decode pool limited to one sequence at a time serves the
// clients one by one; drafting on the decode pool only changes nothing the prefill pool does.
TEST(Serving, ClosedLoopOverDisaggregatedPools) {
  const auto run = [&](int clients, const json& decode) {
    json s = base({{"arrival", "closed"},
                   {"concurrency", clients},
                   {"num_requests", 20 * clients},
                   {"request_overhead_ms", 0},
                   {"disaggregated", {{"prefill", {{"tp", 1}}}, {"decode", decode}}}});
    s["num_devices"] = 2;
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    for (const auto& w : p["warnings"]) ADD_FAILURE() << w.dump();
    return p["serving"];
  };
  double last_tput = 0, last_e2e = 0;
  for (int clients : {1, 4, 16}) {
    const json s = run(clients, {{"tp", 1}});
    EXPECT_EQ(s["completed"], 20 * clients);
    const double in_system = s["requests_per_s"].get<double>() * s["e2e_latency_s"]["mean"].get<double>();
    EXPECT_NEAR(in_system / clients, 1.0, 0.1) << clients;
    EXPECT_GT(s["output_tokens_per_s"].get<double>(), last_tput) << clients;
    EXPECT_GE(s["e2e_latency_s"]["mean"].get<double>(), last_e2e * 0.999) << clients;
    last_tput = s["output_tokens_per_s"].get<double>();
    last_e2e = s["e2e_latency_s"]["mean"].get<double>();
  }
  const json one_at_a_time = run(8, {{"tp", 1}, {"max_batch", 1}});
  const json single = run(1, {{"tp", 1}});
  // One sequence decoding at a time: the single client's rate, a little more as prompts are
  // prefilled while the decode pool works.
  const double ratio =
      one_at_a_time["output_tokens_per_s"].get<double>() / single["output_tokens_per_s"].get<double>();
  EXPECT_GE(ratio, 0.999);
  EXPECT_LT(ratio, 1.1);
  EXPECT_EQ(one_at_a_time["max_batch"], 1);
}

// Decode-only speculation: the prefill pool drafts nothing (its steps, and so every first token,
// are the plain model's), the decode pool drafts and verifies as colocated speculation does.
TEST(Serving, SpeculationOnTheDecodePoolOnly) {
  const auto run = [&](bool spec, const json& prefill) {
    json s = base({{"arrival", "closed"},
                   {"concurrency", 8},
                   {"num_requests", 160},
                   {"disaggregated", {{"prefill", prefill}, {"decode", {{"tp", 1}}}}}});
    s["num_devices"] = 2;
    s["model"] = "deepseek-v3";
    s["system"] = "dgx-b200";
    s["num_devices"] = 16;
    s["inference"]["precision"] = "fp8";
    s["inference"]["serving"]["disaggregated"] = {{"prefill", prefill}, {"decode", {{"tp", 8}}}};
    if (spec) s["inference"]["speculative"] = {{"draft_tokens", 2}, {"acceptance_rate", 0.7}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["serving"];
  };
  const json plain = run(false, {{"tp", 8}});
  const json both = run(true, {{"tp", 8}});
  const json decode_only = run(true, {{"tp", 8}, {"speculative", false}});
  EXPECT_LT(decode_only["tpot_s"]["mean"].get<double>(), plain["tpot_s"]["mean"].get<double>());
  EXPECT_LT(decode_only["ttft_s"]["p50"].get<double>(), both["ttft_s"]["p50"].get<double>());
}

TEST(Serving, ReplicasShareTheStream) {
  json one = base({{"arrival", "offline"}, {"num_requests", 1600}});
  json two = one;
  two["num_devices"] = 2;
  const double a = predict(one)["serving"]["output_tokens_per_s"].get<double>();
  const double b = predict(two)["serving"]["output_tokens_per_s"].get<double>();
  EXPECT_NEAR(b / a, 2.0, 0.1);
  EXPECT_EQ(predict(two)["serving"]["replicas"], 2);
}

// A closed loop of fewer clients than replicas: each client waits for its last answer, so one
// client on two replicas runs exactly as on one (the other replica idles), and no request is left
// without times (a request dealt to a replica no client sent it to once kept a negative TTFT).
TEST(Serving, FewerClientsThanReplicasLeaveReplicasIdle) {
  json one = base({{"arrival", "closed"}, {"concurrency", 1}, {"num_requests", 40}});
  json two = one;
  two["num_devices"] = 2;
  const json a = predict(one)["serving"], b = predict(two)["serving"];
  EXPECT_EQ(b["replicas"], 2);
  for (const char* key : {"ttft_s", "e2e_latency_s"})
    for (const char* stat : {"mean", "p50", "p90"}) {
      EXPECT_GT(b[key][stat].get<double>(), 0) << key << stat;
      EXPECT_DOUBLE_EQ(b[key][stat].get<double>(), a[key][stat].get<double>()) << key << stat;
    }
  EXPECT_NEAR(b["output_tokens_per_s"].get<double>(), a["output_tokens_per_s"].get<double>(), 1e-9);
  json four = base({{"arrival", "closed"}, {"concurrency", 3}, {"num_requests", 60}});
  four["num_devices"] = 4;
  const json c = predict(four)["serving"];
  EXPECT_GT(c["ttft_s"]["mean"].get<double>(), 0);
  EXPECT_GT(c["ttft_s"]["p50"].get<double>(), 0);
  EXPECT_EQ(c["completed"], 60);
}

// Pools that share a scale-up domain hand the cache over on its links (NIXL over CUDA IPC /
// multi-node NVLink), pools in different domains over the NIC: 8 + 8 H100 of two nodes move a
// prompt's cache about 450 / 50 GB/s times slower than 4 + 4 of one node (a probe found a GB200
// NVL72 rack's pools paying InfiniBand's 6.1 ms for 8,192 tokens, NVLink's 0.4).
TEST(Serving, PoolsInOneDomainHandTheCacheOverItsLinks) {
  const auto transfer = [](int per_pool) {
    json s = base({{"arrival", "poisson"},
                   {"requests_per_s", 2},
                   {"num_requests", 60},
                   {"disaggregated",
                    {{"prefill", {{"tp", 1}, {"replicas", per_pool}}},
                     {"decode", {{"tp", 1}, {"replicas", per_pool}}}}}});
    s["num_devices"] = 2 * per_pool;
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p["serving"]["kv_transfer_s"].get<double>();
  };
  EXPECT_GT(transfer(8), 5.0 * transfer(4));
}

// A run whose on-demand admission evicts more requests than it completes says so: long outputs
// on a cache that holds a few of them whole (Llama 3.1 8B on one H100 with 30% of its memory for
// the engine); the same run with reserve admission does not.
TEST(Serving, HeavyPreemptionIsSaid) {
  const auto run = [](const char* admission) {
    json s = base({{"arrival", "closed"},
                   {"concurrency", 64},
                   {"num_requests", 64},
                   {"input_len", 512},
                   {"output_len", 16384},
                   {"gpu_memory_utilization", 0.3},
                   {"kv_admission", admission}});
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p;
  };
  const json thrash = run("on_demand");
  EXPECT_GT(thrash["serving"]["preemptions"].get<int>(), 64) << thrash["serving"].dump().substr(0, 300);
  EXPECT_TRUE(warns(thrash, "serving.preemption_heavy"));
  EXPECT_FALSE(warns(run("reserve"), "serving.preemption_heavy"));
}

TEST(Serving, DisaggregatedPoolsHandTheCacheOver) {
  json s = base({{"arrival", "poisson"},
                 {"requests_per_s", 6},
                 {"num_requests", 300},
                 {"disaggregated",
                  {{"prefill", {{"tp", 1}, {"replicas", 1}}}, {"decode", {{"tp", 1}, {"replicas", 1}}}}}});
  s["num_devices"] = 2;
  const json p = predict(s);
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_GT(p["serving"]["kv_transfer_s"].get<double>(), 0.0);
  EXPECT_EQ(p["serving"]["devices"], 2);
  EXPECT_EQ(p["serving"]["completed"], 300);
  // Prefill no longer waits behind decode steps, so first tokens come no later than colocated.
  json colocated = base({{"arrival", "poisson"}, {"requests_per_s", 6}, {"num_requests", 300}});
  colocated["num_devices"] = 2;
  EXPECT_LE(p["serving"]["ttft_s"]["mean"].get<double>(),
            predict(colocated)["serving"]["ttft_s"]["mean"].get<double>() * 1.05);
}

TEST(Serving, AnInfiniteRateIsEveryRequestAtOnce) {
  const json inf = serve({{"arrival", "poisson"}, {"requests_per_s", "inf"}, {"num_requests", 100}});
  const json off = serve({{"arrival", "offline"}, {"num_requests", 100}});
  EXPECT_EQ(inf["output_tokens_per_s"], off["output_tokens_per_s"]);
  // Python's json module writes the rate as the bare literal Infinity.
  std::string text = base({{"arrival", "poisson"}, {"requests_per_s", 1}, {"num_requests", 100}}).dump();
  text.replace(text.find("\"requests_per_s\":1"), 18, "\"requests_per_s\":Infinity");
  const json p = json::parse(optimus::api::predict(text));
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["serving"]["output_tokens_per_s"], off["output_tokens_per_s"]);
  // Elsewhere a bare Infinity is out of range, and said as written (not as 1.797e+308).
  std::string tokens = text;
  tokens.replace(tokens.find("\"num_requests\":100"), 18, "\"num_requests\":Infinity");
  const json e = json::parse(optimus::api::predict(tokens))["error"];
  EXPECT_EQ(e["code"], "scenario.out_of_range") << e.dump();
  EXPECT_NE(e["message"].get<std::string>().find("= Infinity is outside"), std::string::npos) << e.dump();
}

TEST(Serving, BadInputGetsCodesAndPaths) {
  const std::string at = "/inference/serving";
  expect_error(base({{"arrival", "poisson"}}), "scenario.missing_key", at + "/requests_per_s");
  expect_error(base({{"arrival", "poisson"}, {"requests_per_s", 0}}), "scenario.out_of_range",
               at + "/requests_per_s");
  expect_error(base({{"arrival", "poisson"}, {"requests_per_s", 1e9}}), "scenario.out_of_range",
               at + "/requests_per_s");
  // A string other than "inf" is told both forms the key takes (it had said "must be a number").
  expect_error(base({{"arrival", "poisson"}, {"requests_per_s", "fast"}}), "scenario.wrong_type",
               at + "/requests_per_s");
  EXPECT_NE(predict(base({{"arrival", "poisson"}, {"requests_per_s", "fast"}}))["error"]["message"]
                .get<std::string>()
                .find("or \"inf\""),
            std::string::npos);
  expect_error(base({{"arrival", "closed"}}), "scenario.missing_key", at + "/concurrency");
  expect_error(base({{"arrival", "poisson"}, {"requests_per_s", 1}, {"concurrency", 4}}),
               "serving.key_for_other_arrival", at + "/concurrency");
  expect_error(base({{"arrival", "sometimes"}}), "scenario.invalid_value", at + "/arrival");
  // The message names the arrival the key belongs to, whatever the stream's (it had said
  // "poisson" for concurrency on an offline stream).
  const auto message = [](const json& s) { return predict(s)["error"]["message"].get<std::string>(); };
  EXPECT_EQ(message(base({{"arrival", "offline"}, {"concurrency", 16}})),
            "'concurrency' applies to arrival \"closed\" only; this stream is \"offline\"");
  EXPECT_EQ(message(base({{"arrival", "offline"}, {"requests_per_s", 2}})),
            "'requests_per_s' applies to arrival \"poisson\" only; this stream is \"offline\"");
  EXPECT_EQ(message(base({{"arrival", "closed"}, {"concurrency", 4}, {"requests_per_s", 2}})),
            "'requests_per_s' applies to arrival \"poisson\" only; this stream is \"closed\"");
  expect_error(base({{"input_len", json::array()}}), "scenario.out_of_range", at + "/input_len");
  expect_error(base({{"input_len", {{"mean", 50}, {"max", 40}}}}), "serving.length_mean_out_of_range",
               at + "/input_len/mean");
  expect_error(base({{"input_len", {{"mean", 50}, {"max", 400}, {"min", 60}}}}),
               "serving.length_mean_out_of_range", at + "/input_len/mean");
  expect_error(base({{"output_len", json::array({json::array({10, 0})})}}), "serving.zero_weights",
               at + "/output_len");
  expect_error(base({{"output_len", json::array({json::array({10})})}}), "scenario.wrong_type",
               at + "/output_len/0");
  expect_error(base({{"output_len", "long"}}), "scenario.wrong_type", at + "/output_len");
  expect_error(base({{"slo", {{"ttft_s", 0}}}}), "scenario.out_of_range", at + "/slo/ttft_s");
  expect_error(base({{"slo", {{"itl_s", -1}}}}), "scenario.out_of_range", at + "/slo/itl_s");
  expect_error(base({{"slo", {{"percentile", 99}}}}), "serving.slo_without_objective", at + "/slo");
  expect_error(base({{"slo", json::object()}}), "serving.slo_without_objective", at + "/slo");
  expect_error(base({{"max_batch", 0}}), "scenario.out_of_range", at + "/max_batch");
  expect_error(base({{"gpu_memory_utilization", 1.5}}), "scenario.out_of_range",
               at + "/gpu_memory_utilization");
  expect_error(base({{"gpu_memory_utilization", 0.15}}), "serving.kv_insufficient",
               at + "/gpu_memory_utilization");
  {
    // A short budget leaves some KV: the message weighs it against the request. Weights alone
    // over the budget (8B in bf16 is 16 GB, 0.15 of 80 GB is 12 GB) leave none: the message says
    // so instead of a 0.00 GiB budget against the request.
    const std::string some =
        predict(base({{"gpu_memory_utilization", 0.3}, {"input_len", 200000}}))["error"]["message"];
    EXPECT_NE(some.find("holds no request of"), std::string::npos) << some;
    const std::string none = predict(base({{"gpu_memory_utilization", 0.15}}))["error"]["message"];
    EXPECT_NE(none.find("no room is left for any KV cache"), std::string::npos) << none;
    EXPECT_EQ(none.find("0.00 GiB"), std::string::npos) << none;
  }
  expect_error(base({{"num_requests", 1000000}, {"output_len", 1000000}, {"max_batch", 4}}),
               "serving.too_many_steps", at + "/num_requests");
  expect_error(base({{"disaggregated", {{"prefill", {{"tp", 1}}}, {"decode", {{"tp", 1}}}}}}),
               "serving.disaggregated_devices", at + "/disaggregated");
  // The new keys' bad input: a uniform range upside down or malformed, both memory shares, pool
  // settings out of range or of the wrong type, an acceptance rate outside [0, 1].
  expect_error(base({{"input_len", {{"uniform", {900, 800}}}}}), "serving.uniform_reversed",
               at + "/input_len/uniform");
  expect_error(base({{"output_len", {{"uniform", {0, 800}}}}}), "scenario.out_of_range",
               at + "/output_len/uniform/0");
  expect_error(base({{"output_len", {{"uniform", {800}}}}}), "scenario.wrong_type",
               at + "/output_len/uniform");
  expect_error(base({{"output_len", {{"uniform", {1, 2}}, {"mean", 1}}}}), "scenario.unknown_key",
               at + "/output_len/mean");
  expect_error(base({{"free_gpu_memory_fraction", 0.9}, {"gpu_memory_utilization", 0.9}}),
               "serving.memory_share_twice", at + "/free_gpu_memory_fraction");
  expect_error(base({{"free_gpu_memory_fraction", 1.2}}), "scenario.out_of_range",
               at + "/free_gpu_memory_fraction");
  const auto pools = [&](const json& prefill, const json& decode) {
    json s = base({{"arrival", "closed"},
                   {"concurrency", 2},
                   {"disaggregated", {{"prefill", prefill}, {"decode", decode}}}});
    s["num_devices"] = 2;
    return s;
  };
  expect_error(pools({{"tp", 1}, {"max_batch", 0}}, {{"tp", 1}}), "scenario.out_of_range",
               at + "/disaggregated/prefill/max_batch");
  expect_error(
      pools({{"tp", 1}}, {{"tp", 1}, {"gpu_memory_utilization", 0.5}, {"free_gpu_memory_fraction", 0.5}}),
      "serving.memory_share_twice", at + "/disaggregated/decode/free_gpu_memory_fraction");
  expect_error(pools({{"tp", 1}, {"speculative", "no"}}, {{"tp", 1}}), "scenario.wrong_type",
               at + "/disaggregated/prefill/speculative");
  expect_error(pools({{"tp", 1}}, {{"tp", 1}, {"replicas", 2}}), "serving.disaggregated_devices",
               at + "/disaggregated");
  json budget = pools({{"tp", 1}}, {{"tp", 1}, {"max_num_tokens", 2}});
  budget["inference"]["speculative"] = {{"draft_tokens", 2}, {"acceptance_rate", 0.5}};
  expect_error(budget, "serving.budget_below_speculation", at + "/disaggregated/decode/max_num_tokens");
  json rate = base({{"arrival", "closed"}, {"concurrency", 2}});
  rate["inference"]["speculative"] = {{"draft_tokens", 2}, {"acceptance_rate", 1.5}};
  expect_error(rate, "scenario.out_of_range", "/inference/speculative/acceptance_rate");
  expect_error(base({{"x_unknown", 1}}), "scenario.unknown_key", at + "/x_unknown");
}

// The schema's serving keys are the reader's (its unknown-key message lists them).
TEST(Serving, SchemaKeysAreTheReaders) {
  const json schema =
      json::parse(optimus::api::schema())["scenario"]["$defs"]["inference"]["properties"]["serving"];
  std::set<std::string> keys;
  for (const auto& [k, v] : schema["properties"].items()) keys.insert(k);
  const json p = predict(base({{"x_unknown", 1}}));
  const std::string msg = p["error"]["message"];
  const std::string known = msg.substr(msg.find("known keys here: ") + 17);
  std::set<std::string> reader;
  std::stringstream ss(known.substr(0, known.size() - 1));
  for (std::string k; std::getline(ss, k, ',');) reader.insert(k.substr(k.find_first_not_of(' ')));
  EXPECT_EQ(keys, reader);
  // The resolved scenario carries the serving block and reads back to the same prediction.
  const json v = json::parse(optimus::api::validate(base({{"arrival", "poisson"},
                                                          {"requests_per_s", 3},
                                                          {"num_requests", 50},
                                                          {"input_len", {{"mean", 300}, {"max", 900}}}})
                                                        .dump()));
  ASSERT_TRUE(v["scenario"]["inference"].contains("serving")) << v.dump();
  const json again = predict(v["scenario"]);
  EXPECT_EQ(again["serving"]["ttft_s"],
            predict(base({{"arrival", "poisson"},
                          {"requests_per_s", 3},
                          {"num_requests", 50},
                          {"input_len", {{"mean", 300}, {"max", 900}}}}))["serving"]["ttft_s"]);
}

}  // namespace

namespace {

// The request generator's logarithm and exponential (base/math.h) agree with libm to a few ulps.
TEST(Serving, PortableLogAndExpMatchTheLibrary) {
  for (double x : {1e-300, 1e-12, 0.001, 0.3, 0.7071, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300}) {
    EXPECT_NEAR(optimus::portable_log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  for (double x : {-700.0, -20.0, -1.0, -1e-8, 0.0, 1e-8, 0.5, 1.0, 3.0, 50.0, 700.0}) {
    EXPECT_NEAR(optimus::portable_exp(x) / std::exp(x), 1.0, 4e-15) << x;
  }
}

}  // namespace

// The serving front end's time per request (request_overhead_ms) moves every request's first
// token and end by exactly that much and leaves the GPU's schedule, so throughput, alone.
TEST(Serving, FrontEndOverheadDelaysEachRequestByItself) {
  const json stream = {{"arrival", "poisson"}, {"requests_per_s", 20}, {"num_requests", 300}};
  json a = stream, b = stream;
  a["request_overhead_ms"] = 0;
  b["request_overhead_ms"] = 25;
  const json x = serve(a), y = serve(b);
  for (const char* k : {"ttft_s", "e2e_latency_s"})
    for (const char* q : {"mean", "p50", "p90", "p99"})
      EXPECT_NEAR(y[k][q].get<double>() - x[k][q].get<double>(), 0.025, 1e-12) << k << " " << q;
  EXPECT_EQ(x["output_tokens_per_s"], y["output_tokens_per_s"]);
  EXPECT_EQ(x["tpot_s"], y["tpot_s"]);
  // The default is the fitted one, written back by validate.
  const json v = json::parse(optimus::api::validate(base(stream).dump()));
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["request_overhead_ms"].get<double>(), 4.0);
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["step_overhead_ms"].get<double>(), 1.5);
  json bad = base(stream);
  bad["inference"]["serving"]["request_overhead_ms"] = -1;
  expect_error(bad, "scenario.out_of_range", "/inference/serving/request_overhead_ms");
}

// The scheduler's host time between steps (step_overhead_ms) lengthens every step: one request at
// a time, each of its steps (the prefill and every decode step) is that much longer.
TEST(Serving, StepOverheadLengthensEveryStep) {
  json a = {
      {"arrival", "poisson"}, {"requests_per_s", 0.01}, {"num_requests", 20}, {"request_overhead_ms", 0}};
  json b = a;
  a["step_overhead_ms"] = 0;
  b["step_overhead_ms"] = 5;
  const json x = serve(a), y = serve(b);
  EXPECT_NEAR(y["ttft_s"]["mean"].get<double>() - x["ttft_s"]["mean"].get<double>(), 0.005, 1e-9);
  EXPECT_NEAR(y["tpot_s"]["mean"].get<double>() - x["tpot_s"]["mean"].get<double>(), 0.005, 1e-9);
  json bad = base(a);
  bad["inference"]["serving"]["step_overhead_ms"] = -0.5;
  expect_error(bad, "scenario.out_of_range", "/inference/serving/step_overhead_ms");
}

// Attention data parallelism (parallel/plan.h attention_data_parallel): DeepSeek-V3 on H200,
// tp 1 and dp = ep = 8 (each rank attends to its own sequences with the whole attention and
// dense weights; the routed experts are split eight ways), against the tensor-parallel layout
// tp = ep = 8 on the same devices. The devices are the layout's tp x pp x dp.
json deepseek_h200(const json& parallel, const json& serving) {
  const auto degree = [&](const char* k) { return parallel.contains(k) ? parallel[k].get<int>() : 1; };
  json s = {{"model", "deepseek-v3"},
            {"system", "dgx-h200"},
            {"num_devices", degree("tp") * degree("pp") * degree("dp")},
            {"parallel", parallel},
            {"inference",
             {{"batch", 16},
              {"prompt_len", 1024},
              {"output_len", 256},
              {"precision", "fp8"},
              {"kv_precision", "fp8"},
              {"cuda_graphs", true}}}};
  if (!serving.is_null()) s["inference"]["serving"] = serving;
  return s;
}

TEST(Serving, AttentionDataParallelLayoutIsValidatedWithCodeAndPath) {
  const json dep = {{"tp", 1}, {"dp", 8}, {"ep", 8}};
  const json p = predict(deepseek_h200(dep, nullptr));
  EXPECT_FALSE(p.contains("error")) << p.dump();
  // ep must divide dp (here 16 does not divide 8), divide tp, or be a multiple of tp whose ep / tp
  // replicas divide dp (here 16 / 2 = 8 replicas of tp 2, but dp is 4).
  expect_error(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 16}}, nullptr), "parallel.ep_not_divisor_of_tp",
               "/parallel/ep");
  expect_error(deepseek_h200({{"tp", 2}, {"dp", 4}, {"ep", 16}}, nullptr), "parallel.ep_not_divisor_of_tp",
               "/parallel/ep");
  // SGLang's --tp 8 --dp 8 --enable-dp-attention written as its flags are: the error names the
  // layout that says it here, and that layout is the one predicted above.
  json flags = deepseek_h200({{"tp", 8}, {"dp", 8}, {"ep", 8}}, nullptr);
  flags["num_devices"] = 8;
  const json sglang = predict(flags);
  ASSERT_TRUE(sglang.contains("error")) << sglang.dump().substr(0, 300);
  EXPECT_EQ(sglang["error"]["code"], "parallel.product_mismatch");
  EXPECT_NE(sglang["error"]["message"].get<std::string>().find("is tp 1, dp 8 here"), std::string::npos)
      << sglang["error"]["message"];
  EXPECT_NE(sglang["error"]["message"].get<std::string>().find("with ep 8"), std::string::npos);
  // Each rank holds the whole model but the routed experts, of which it holds an eighth: the
  // weights per device are those of one device of the single-rank layout (ep 1) less 7/8 of the
  // routed experts' bytes (58 MoE layers x 256 experts x 3 x 7168 x 2048 fp8 weights).
  const json one = predict(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 1}}, nullptr));
  const double routed = 58.0 * 256 * 3 * 7168 * 2048;
  EXPECT_NEAR(one["memory"]["per_device_bytes"]["weights"].get<double>() -
                  p["memory"]["per_device_bytes"]["weights"].get<double>(),
              routed * 7.0 / 8.0, routed * 1e-9);
  // A prompt's expert GEMMs do the same work per rank as on one rank holding every expert
  // (balanced routing: a rank receives as many assignments as it sends), and the tokens now cross
  // the expert-parallel group.
  const auto op = [](const json& pred, const std::string& name, const std::string& key) {
    for (const json& o : pred["inference"]["operators"])
      if (o["name"] == name && o["phase"] == "prefill") return o[key].get<double>();
    return -1.0;
  };
  EXPECT_NEAR(op(p, "expert_up", "flops"), op(one, "expert_up", "flops"),
              op(one, "expert_up", "flops") * 0.05);
  EXPECT_GT(p["inference"]["prefill_s"]["communication"].get<double>(), 0.0);
  EXPECT_EQ(one["inference"]["prefill_s"]["communication"].get<double>(), 0.0);
}

// Attention data parallelism over tensor-parallel replicas (vLLM's --data-parallel-size 4
// --tensor-parallel-size 2 --enable-expert-parallel: ep = tp x dp = 8). Each replica of tp 2 splits
// its attention and dense weights in two and holds an eighth of the routed experts whole; each rank
// routes half of its replica's tokens (vLLM's sequence-parallel MoE) through the 8-rank expert group.
TEST(Serving, AttentionDataParallelOverTensorParallelReplicas) {
  const json p = predict(deepseek_h200({{"tp", 2}, {"dp", 4}, {"ep", 8}}, nullptr));
  ASSERT_FALSE(p.contains("error")) << p.dump();
  // Weights: the same tp 2 replica with every expert split over its two ranks (ep 1: etp = tp = 2)
  // holds half of the routed experts' bytes; with ep 8 it holds an eighth.
  const json half = predict(deepseek_h200({{"tp", 2}, {"dp", 4}, {"ep", 1}}, nullptr));
  ASSERT_FALSE(half.contains("error")) << half.dump();
  const double routed = 58.0 * 256 * 3 * 7168 * 2048;
  EXPECT_NEAR(half["memory"]["per_device_bytes"]["weights"].get<double>() -
                  p["memory"]["per_device_bytes"]["weights"].get<double>(),
              routed * (1.0 / 2.0 - 1.0 / 8.0), routed * 1e-9);
  // Routing: a rank scores a half of its replica's 16 x 1024 prompt tokens against the 256 experts
  // (2 x rows x experts x hidden), where the tp 1 layout scores all of its own.
  const auto op = [](const json& pred, const std::string& name, const std::string& key) {
    for (const json& o : pred["inference"]["operators"])
      if (o["name"] == name && o["phase"] == "prefill") return o[key].get<double>();
    return -1.0;
  };
  const json dep = predict(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 8}}, nullptr));
  EXPECT_NEAR(op(p, "moe_router", "flops"), 2.0 * (16.0 * 1024 / 2) * 256 * 7168, 1.0);
  EXPECT_NEAR(op(dep, "moe_router", "flops"), 2.0 * (16.0 * 1024) * 256 * 7168, 1.0);
  // The expert GEMMs do a tp-th of the tp 1 rank's work per rank (balanced routing: a rank receives
  // what it sends), and the replica's ranks exchange tokens over the expert group.
  EXPECT_NEAR(op(p, "expert_up", "flops"), op(dep, "expert_up", "flops") / 2.0,
              op(dep, "expert_up", "flops") * 0.05);
  EXPECT_GT(p["inference"]["prefill_s"]["communication"].get<double>(), 0.0);
  // Served: four replicas of two devices, and the two replicas of an expert group step together:
  // with lengths that differ, all at once (offline) each pair waits for its slower replica, which
  // replicas arriving spread out (each on its own clock) do not (as AttentionDataParallelRanksStepTogether).
  const auto serve = [](const json& arrival) {
    json stream = {{"num_requests", 400},
                   {"input_len", {{"mean", 800}, {"max", 4096}}},
                   {"output_len", {{"mean", 400}, {"max", 4096}}}};
    stream.update(arrival);
    const json served = predict(deepseek_h200({{"tp", 2}, {"dp", 4}, {"ep", 8}}, stream));
    EXPECT_FALSE(served.contains("error")) << served.dump();
    return served["serving"];
  };
  const json together = serve({{"arrival", "offline"}});
  const json own = serve({{"arrival", "poisson"}, {"requests_per_s", 1e6}});
  EXPECT_EQ(together["replicas"], 4);
  EXPECT_EQ(together["completed"], 400);
  EXPECT_GT(together["duration_s"].get<double>(), 1.01 * own["duration_s"].get<double>());
}

// A server's step budget split over its attention-DP ranks (budget_split_over_dp, SGLang's
// chunked_prefill_size // dp_size under --enable-dp-attention): each rank of an expert group
// schedules max_num_tokens / group tokens a step, so 4,096-token prompts take more steps, and its
// smaller prefill workspace leaves more memory for the KV cache. Layouts without attention data
// parallelism keep the whole budget, as does every rank when the flag is off.
TEST(Serving, AServersBudgetIsSplitOverItsAttentionDataParallelRanks) {
  const auto serve = [](const json& parallel, const json& flag, const char* software = nullptr) {
    json stream = {{"num_requests", 64}, {"input_len", 4096}, {"output_len", 16}, {"max_num_tokens", 8192}};
    if (!flag.is_null()) stream["budget_split_over_dp"] = flag;
    json s = deepseek_h200(parallel, stream);
    if (software) {
      s["software"] = software;
      s["inference"]["serving"].erase("max_num_tokens");
    }
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["serving"];
  };
  const json dep = {{"tp", 1}, {"dp", 8}, {"ep", 8}};
  const json split = serve(dep, true), whole = serve(dep, false);
  EXPECT_EQ(split["max_num_tokens"], 8192 / 8);
  EXPECT_EQ(whole["max_num_tokens"], 8192);
  EXPECT_GT(split["steps"].get<double>(), whole["steps"].get<double>());
  EXPECT_GT(split["kv_capacity_tokens"].get<double>(), whole["kv_capacity_tokens"].get<double>());
  // Over replicas of tp 2 the expert group is ep / tp = 4 replicas; tp 8 with ep 8 is no attention
  // data parallelism.
  EXPECT_EQ(serve({{"tp", 2}, {"dp", 4}, {"ep", 8}}, true)["max_num_tokens"], 8192 / 4);
  EXPECT_EQ(serve({{"tp", 8}, {"dp", 1}, {"ep", 8}}, true)["max_num_tokens"], 8192);
  // The sglang profile sets it: its default 8,192-token chunk over 8 ranks.
  EXPECT_EQ(serve(dep, nullptr, "sglang")["max_num_tokens"], 8192 / 8);
  EXPECT_EQ(serve(dep, nullptr, "vllm")["max_num_tokens"],
            serve({{"tp", 8}, {"dp", 1}, {"ep", 8}}, nullptr, "vllm")["max_num_tokens"]);
  // A rank's share must still hold one speculative verification: 16 tokens over 8 ranks is 2, under
  // the 4 that three drafts and their check take; the message names the share and the budget.
  json spec =
      deepseek_h200(dep, {{"num_requests", 8}, {"max_num_tokens", 16}, {"budget_split_over_dp", true}});
  spec["inference"]["speculative"] = {{"draft_tokens", 3}, {"acceptance_rate", 0.7}};
  expect_error(spec, "serving.budget_below_speculation", "/inference/serving/max_num_tokens");
  EXPECT_NE(predict(spec)["error"]["message"].get<std::string>().find("2, a rank's share of 16"),
            std::string::npos);
}

// MLA's compressed KV cache is replicated over the tensor-parallel ranks (each rank's heads read
// the whole latent), so tp 8 holds an eighth of the sequences per device that dp 8 does: the
// attention-data-parallel deployment keeps more requests running and serves more tokens per
// second (DeepSeek-V3 report Sec. 3.4.2 deploys its decoding this way).
TEST(Serving, AttentionDataParallelHoldsMoreOfAnMlaCache) {
  const json stream = {
      {"arrival", "offline"}, {"num_requests", 800}, {"input_len", 1024}, {"output_len", 256}};
  const json dep = predict(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 8}}, stream));
  const json tp = predict(deepseek_h200({{"tp", 8}, {"dp", 1}, {"ep", 8}}, stream));
  ASSERT_FALSE(dep.contains("error")) << dep.dump();
  ASSERT_FALSE(tp.contains("error")) << tp.dump();
  EXPECT_EQ(dep["serving"]["replicas"], 8);
  EXPECT_EQ(tp["serving"]["replicas"], 1);
  const double dep_tokens = dep["serving"]["kv_capacity_tokens"].get<double>() * 8;
  const double tp_tokens = tp["serving"]["kv_capacity_tokens"].get<double>();
  EXPECT_GT(dep_tokens, 4.0 * tp_tokens);
  EXPECT_GT(dep["serving"]["output_tokens_per_s"].get<double>(),
            tp["serving"]["output_tokens_per_s"].get<double>());
  EXPECT_EQ(dep["serving"]["completed"], 800);
}

// Attention data parallel ranks meet in every MoE layer, so a step takes as long as the slowest
// rank's (TensorRT-LLM tech blog 10). The common clock by hand: rank A's steps take 1, 2, 2.5 s
// (one step, then a stretch of two at 2 s + 0.5 s per step), rank B's 3 and 1 s and then it waits.
TEST(Serving, LockstepClockTakesTheSlowestRankEachStep) {
  const std::vector<optimus::StepSpan> a = {{1, 1.0, 0.0}, {2, 2.0, 0.5}};
  const std::vector<optimus::StepSpan> b = {{1, 3.0, 0.0}, {1, 1.0, 0.0}};
  const std::vector<double> clock = optimus::lockstep_clock({&a, &b});
  ASSERT_EQ(clock.size(), 4u);
  EXPECT_DOUBLE_EQ(clock[0], 0.0);
  EXPECT_DOUBLE_EQ(clock[1], 3.0);
  EXPECT_DOUBLE_EQ(clock[2], 5.0);
  EXPECT_DOUBLE_EQ(clock[3], 7.5);
  // One rank alone keeps its own clock.
  const std::vector<double> alone = optimus::lockstep_clock({&a});
  EXPECT_DOUBLE_EQ(alone.back(), 5.5);
}

// In a deployment: ranks given requests of different lengths (a long-tailed stream, assigned
// round robin) wait for each other, so the run takes longer than the ranks' own clocks, which
// a stream spread over time still keeps (a finite Poisson rate high enough to arrive within
// milliseconds); identical ranks (fixed lengths) lose nothing.
TEST(Serving, AttentionDataParallelRanksStepTogether) {
  const auto run = [](const json& input, const json& output, const json& arrival) {
    json stream = {{"num_requests", 400}, {"input_len", input}, {"output_len", output}};
    stream.update(arrival);
    const json p = predict(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 8}}, stream));
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["serving"];
  };
  const json offline = {{"arrival", "offline"}};
  const json spread = {{"arrival", "poisson"}, {"requests_per_s", 1e6}};
  const json in = {{"mean", 800}, {"max", 4096}}, out = {{"mean", 400}, {"max", 4096}};
  const json together = run(in, out, offline), own = run(in, out, spread);
  EXPECT_GT(together["duration_s"].get<double>(), 1.01 * own["duration_s"].get<double>());
  EXPECT_LT(together["output_tokens_per_s"].get<double>(), own["output_tokens_per_s"].get<double>());
  EXPECT_EQ(together["completed"], 400);
  // Every rank's gaps on the common clock: their mean is the requests' (moved) token times'.
  EXPECT_NEAR(together["itl_s"]["mean"].get<double>(), together["mean_itl_s"].get<double>(),
              1e-9 * together["mean_itl_s"].get<double>());
  // Fixed lengths: every rank runs the same schedule, so the common clock is each rank's own.
  const json same = run(800, 400, offline), same_own = run(800, 400, spread);
  EXPECT_NEAR(same["duration_s"].get<double>(), same_own["duration_s"].get<double>(),
              1e-3 * same_own["duration_s"].get<double>());
}

// A scenario-wide tp of 2 turns sequence parallelism on by default; disaggregated pools of tp 1
// drop it instead of failing validation (found by a random sweep of MoE serving layouts).
TEST(Serving, DisaggregatedPoolsOfTp1UnderAWiderScenarioTp) {
  json s = base({{"arrival", "offline"},
                 {"num_requests", 40},
                 {"disaggregated",
                  {{"prefill", {{"tp", 1}, {"replicas", 1}}}, {"decode", {{"tp", 1}, {"replicas", 1}}}}}});
  s["num_devices"] = 2;
  s["parallel"] = {{"tp", 2}, {"pp", 1}, {"dp", 1}};
  const json p = predict(s);
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["serving"]["completed"], 40);
}

// Disaggregated pools with their own expert parallelism (DeepSeek-V3's deployment: prefill and
// decode on different expert-parallel groups): DeepSeek-V3 on 16 H200, a prefill pool of 8 ranks
// and a decode pool of 8, each attention data parallel with the experts over its 8 ranks.
TEST(Serving, DisaggregatedPoolsTakeTheirOwnExpertParallelism) {
  const auto scenario = [](std::int64_t prefill_ep) {
    json pre = {{"tp", 1}, {"replicas", 8}, {"ep", prefill_ep}};
    return deepseek_h200(
        {{"tp", 1}, {"dp", 16}, {"ep", 16}},
        {{"arrival", "offline"},
         {"num_requests", 200},
         {"input_len", 1024},
         {"output_len", 128},
         {"disaggregated", {{"prefill", pre}, {"decode", {{"tp", 1}, {"replicas", 8}, {"ep", 8}}}}}});
  };
  const json s = scenario(8);
  const json p = predict(s);
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["serving"]["completed"], 200);
  EXPECT_GT(p["serving"]["kv_transfer_s"].get<double>(), 0.0);
  // The pool's ep is written back; one that fits neither its tp nor its replicas is refused at
  // the pool's own key.
  const json v = json::parse(optimus::api::validate(s.dump()));
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["disaggregated"]["prefill"]["ep"], 8);
  expect_error(scenario(16), "parallel.ep_not_divisor_of_tp", "/inference/serving/disaggregated/prefill/ep");
}

// Redundant experts (parallel.expert_slots, DeepSeek's EPLB): each of ep ranks holds slots / ep
// experts' weights, 288 slots on ep 8 are 36 experts a rank instead of 32, 4 more experts' bytes
// per MoE layer (58 x 4 x 3 x 7168 x 2048 fp8), and the routed rows spread over the copies. A
// disaggregated pool takes its own. Bad input: fewer slots than experts, slots ep does not divide,
// slots in training.
TEST(Serving, RedundantExpertSlotsHoldMoreWeights) {
  const json base8 = {{"tp", 1}, {"dp", 8}, {"ep", 8}};
  json slots = base8;
  slots["expert_slots"] = 288;
  const json a = predict(deepseek_h200(base8, nullptr)), b = predict(deepseek_h200(slots, nullptr));
  ASSERT_FALSE(b.contains("error")) << b.dump();
  EXPECT_NEAR(b["memory"]["per_device_bytes"]["weights"].get<double>() -
                  a["memory"]["per_device_bytes"]["weights"].get<double>(),
              58.0 * 4 * 3 * 7168 * 2048, 1e3);
  EXPECT_DOUBLE_EQ(b["params"]["total"].get<double>(), a["params"]["total"].get<double>());
  json low = base8;
  low["expert_slots"] = 200;
  expect_error(deepseek_h200(low, nullptr), "parallel.expert_slots_below_experts", "/parallel/expert_slots");
  json odd = base8;
  odd["expert_slots"] = 260;
  expect_error(deepseek_h200(odd, nullptr), "parallel.ep_not_divisor_of_expert_slots",
               "/parallel/expert_slots");
  // A decode pool of its own slots, and a bad one at its path.
  json s = deepseek_h200({{"tp", 8}, {"dp", 2}},
                         {{"arrival", "closed"},
                          {"concurrency", 16},
                          {"num_requests", 64},
                          {"disaggregated",
                           {{"prefill", {{"tp", 8}}},
                            {"decode", {{"tp", 1}, {"replicas", 8}, {"ep", 8}, {"expert_slots", 288}}}}}});
  const json ok = predict(s);
  EXPECT_FALSE(ok.contains("error")) << ok.dump();
  s["inference"]["serving"]["disaggregated"]["decode"]["expert_slots"] = 100;
  expect_error(s, "parallel.expert_slots_below_experts",
               "/inference/serving/disaggregated/decode/expert_slots");
  json train = {{"model", "deepseek-v3"},
                {"system", "dgx-h200"},
                {"num_devices", 64},
                {"parallel", {{"tp", 1}, {"dp", 64}, {"ep", 8}, {"expert_slots", 288}}},
                {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
  expect_error(train, "parallel.expert_slots_in_training", "/parallel/expert_slots");
}

// Attention data parallelism with tensor-parallel experts inside a worker (tp 1, etp 8: SGLang's
// --enable-dp-attention with MoE TP): each rank holds an eighth of every expert and the ranks
// gather each other's tokens around the experts, so the weights match ep 8's and the exchange is
// one copy per token. etp with tp > 1 and etp x ep not dividing dp are errors at /parallel/etp.
TEST(Serving, AttentionDataParallelWithTensorParallelExperts) {
  const json etp = predict(deepseek_h200({{"tp", 1}, {"dp", 8}, {"etp", 8}}, nullptr));
  const json ep = predict(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 8}}, nullptr));
  ASSERT_FALSE(etp.contains("error")) << etp.dump();
  EXPECT_NEAR(etp["memory"]["per_device_bytes"]["weights"].get<double>() /
                  ep["memory"]["per_device_bytes"]["weights"].get<double>(),
              1.0, 0.01);
  EXPECT_GT(etp["inference"]["decode_step_s"]["communication"].get<double>(), 0.0);
  json served = deepseek_h200({{"tp", 1}, {"dp", 8}, {"etp", 8}},
                              {{"arrival", "closed"}, {"concurrency", 32}, {"num_requests", 64}});
  const json sp = predict(served);
  EXPECT_FALSE(sp.contains("error")) << sp.dump();
  expect_error(deepseek_h200({{"tp", 2}, {"dp", 4}, {"etp", 2}}, nullptr),
               "parallel.etp_with_tensor_parallel_attention", "/parallel/etp");
  expect_error(deepseek_h200({{"tp", 1}, {"dp", 8}, {"ep", 4}, {"etp", 4}}, nullptr),
               "parallel.ep_etp_not_divisor_of_dp", "/parallel/etp");
}

// Replicas past the requests' count are dealt none and are not simulated (serving/serving.cpp,
// run_pool): 64 replicas for 8 requests serve them as 8 replicas do, and a pool of millions of
// devices costs what its requests cost.
// A pipeline-parallel replica keeps pp batches in flight (vLLM's virtual engines, each with 1/pp of
// the KV cache): Llama 3 70B fp8 on 8 H100, 512 requests at once, TP1 x PP8 serves at least as
// much as TP8 (taken as one batch through the stages it served 28% of it); one replica is
// reported, its KV capacity the engines' together (within the weights' difference of TP8's); a
// light stream waits one pass through the stages a token, more than TP8's step.
TEST(Serving, PipelineStagesKeepBatchesInFlight) {
  const auto run = [](std::int64_t tp, std::int64_t pp, const json& stream) {
    json s = {{"model", "llama3-70b"},
              {"system", "dgx-h100"},
              {"num_devices", 8},
              {"parallel", {{"tp", tp}, {"pp", pp}}},
              {"inference",
               {{"batch", 1},
                {"prompt_len", 1000},
                {"output_len", 250},
                {"precision", "fp8"},
                {"serving", stream}}}};
    const json p = predict(s);
    EXPECT_TRUE(p.contains("serving")) << p.dump().substr(0, 300);
    return p["serving"];
  };
  const json offline = {
      {"arrival", "offline"}, {"num_requests", 512}, {"input_len", 1000}, {"output_len", 250}};
  const json tp8 = run(8, 1, offline), pp8 = run(1, 8, offline);
  EXPECT_GE(pp8["output_tokens_per_s"].get<double>(), tp8["output_tokens_per_s"].get<double>());
  EXPECT_EQ(pp8["replicas"], 1);
  EXPECT_NEAR(pp8["kv_capacity_tokens"].get<double>() / tp8["kv_capacity_tokens"].get<double>(), 1.0, 0.05);
  json light = offline;
  light["arrival"] = "poisson";
  light["requests_per_s"] = 0.5;
  light["num_requests"] = 20;
  EXPECT_GT(run(1, 8, light)["tpot_s"]["mean"].get<double>(),
            run(8, 1, light)["tpot_s"]["mean"].get<double>());
  // A request longer than one engine's share of the KV is refused, and the message says whose.
  json s = {{"model", "llama3-70b"},
            {"system", "dgx-h100"},
            {"num_devices", 8},
            {"parallel", {{"tp", 1}, {"pp", 8}}},
            {"inference",
             {{"batch", 1},
              {"prompt_len", 1000},
              {"output_len", 250},
              {"precision", "fp8"},
              {"serving",
               {{"arrival", "offline"},
                {"num_requests", 4},
                {"input_len", 100000},
                {"output_len", 20000},
                {"gpu_memory_utilization", 0.3}}}}}};
  const json e = predict(s)["error"];
  EXPECT_EQ(e["code"], "serving.kv_insufficient") << e.dump();
  EXPECT_NE(e["message"].get<std::string>().find("one of its 8 pipeline engines"), std::string::npos)
      << e.dump();
}

TEST(Serving, ReplicasWithoutARequestChangeNothing) {
  const auto pool = [](std::int64_t replicas) {
    json s = base({{"arrival", "offline"}, {"num_requests", 8}, {"input_len", 512}, {"output_len", 64}});
    s["num_devices"] = replicas;
    s["parallel"] = {{"tp", 1}, {"dp", replicas}};
    return predict(s);
  };
  const json few = pool(8), many = pool(64), huge = pool(4'000'000);
  for (const json* p : {&few, &many, &huge}) ASSERT_FALSE(p->contains("error")) << p->dump().substr(0, 300);
  for (const char* k : {"requests_per_s", "output_tokens_per_s", "mean_batch", "duration_s"}) {
    EXPECT_DOUBLE_EQ(many["serving"][k].get<double>(), few["serving"][k].get<double>()) << k;
    EXPECT_DOUBLE_EQ(huge["serving"][k].get<double>(), few["serving"][k].get<double>()) << k;
  }
  EXPECT_DOUBLE_EQ(huge["serving"]["ttft_s"]["p99"].get<double>(),
                   few["serving"]["ttft_s"]["p99"].get<double>());
  EXPECT_EQ(huge["serving"]["replicas"], 4'000'000);
}

// Static batching (inference.serving.static_batching): a batch takes up to max_batch requests and
// admits none until all have finished. With every response the same length continuous batching
// forms the same batches (the four finish together and the next four start at the next step), so
// the two agree; with long-tailed lengths the static batch waits for its longest, and the second
// batch's first tokens for the first batch's end.
TEST(Serving, StaticBatchesLastAsLongAsTheirLongestResponse) {
  const auto run = [](const json& output_len, bool static_batching) {
    json s = base({{"arrival", "offline"},
                   {"num_requests", 64},
                   {"input_len", 128},
                   {"output_len", output_len},
                   {"max_batch", 8},
                   {"static_batching", static_batching}});
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p.contains("serving") ? p["serving"] : json::object();
  };
  const json even_static = run(64, true), even_continuous = run(64, false);
  for (const char* k : {"duration_s", "output_tokens_per_s", "mean_batch"})
    EXPECT_NEAR(even_static[k].get<double>(), even_continuous[k].get<double>(),
                1e-9 * even_continuous[k].get<double>())
        << k;
  // A quarter of the responses 256 tokens, the rest 8: nearly every static batch of 8 holds a long
  // one (1 - 0.75^8 = 90%) and runs about 256 steps, eight batches in all; continuous batching
  // keeps its 8 places busy with the 64 x (0.75 x 8 + 0.25 x 256) tokens, about 560 steps.
  const json tail = json::array({json::array({8, 0.75}), json::array({256, 0.25})});
  const json tail_static = run(tail, true), tail_continuous = run(tail, false);
  EXPECT_GT(tail_static["duration_s"].get<double>(), 2.0 * tail_continuous["duration_s"].get<double>());
  EXPECT_GT(tail_static["ttft_s"]["mean"].get<double>(), tail_continuous["ttft_s"]["mean"].get<double>());
  // The resolved scenario states it, and a scenario without it reads back without it.
  json s = base({{"arrival", "offline"}, {"num_requests", 8}, {"static_batching", true}});
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump().substr(0, 300);
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["static_batching"], true);
  s["inference"]["serving"].erase("static_batching");
  const json w = json::parse(optimus::api::validate(s.dump()));
  EXPECT_FALSE(w["scenario"]["inference"]["serving"].contains("static_batching"));
}

// A step of more sequences than the runtime's largest captured CUDA graph runs eager
// (inference.serving.cuda_graph_max_batch), and an eager step takes the longer of the GPU's work
// and the host's issue time (kernels x launch interval: the host runs ahead of the GPU through
// long kernels). Llama 3.2 1B on one H100.
//  - A burst of 1,536 equal requests at max_batch 1,024 with vLLM's 512: its steps past 512
//    sequences run eager, yet each reads 600-1,024 contexts of 512-640 tokens, GPU work longer
//    than issuing its couple of hundred kernels, so the run takes exactly as long as without a
//    limit, and no warning is given. (A per-kernel floor would have made it slower.)
//  - Twelve requests at max_batch 8 (steps of 8 sequences, then of 4), where a step's GPU work is
//    far shorter than its issue time: a capture size the batch never passes (8) is the unlimited
//    run, to the bit; a capture size of 1 makes every step eager, exactly the run with cuda_graphs
//    false; 4: the steps of 8 eager, slower than unlimited and faster than all eager.
//  - Host-bound steps scale with the interval: the eager run's time less the graphed run's grows
//    in proportion to the interval once the host binds every step.
TEST(Serving, StepsBeyondTheLargestCapturedGraphRunEager) {
  const auto run = [](std::int64_t requests, std::int64_t batch, const json& cap, bool graphs,
                      double launch_us = 0) {
    json s = base({{"arrival", "offline"}, {"num_requests", requests}, {"max_batch", batch}});
    s["model"] = "llama3.2-1b";
    s["inference"]["cuda_graphs"] = graphs;
    if (!cap.is_null()) s["inference"]["serving"]["cuda_graph_max_batch"] = cap;
    if (launch_us > 0) s["software"] = {{"software", {{"launch_interval_us", launch_us}}}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p;
  };
  const auto dur = [](const json& p) { return p["serving"]["duration_s"].get<double>(); };
  const auto eager_steps = [](const json& p) { return p["serving"]["eager_steps"].get<std::int64_t>(); };
  const json burst = run(1536, 1024, nullptr, true), burst_512 = run(1536, 1024, 512, true);
  EXPECT_GT(eager_steps(burst_512), 0);
  EXPECT_LT(eager_steps(burst_512), burst_512["serving"]["steps"].get<std::int64_t>());
  EXPECT_EQ(dur(burst_512), dur(burst));
  // Past the capture at no cost: nothing to warn of.
  EXPECT_FALSE(warns(burst_512, "serving.steps_beyond_cuda_graphs")) << burst_512["warnings"].dump();

  const json none = run(12, 8, nullptr, true), wide = run(12, 8, 8, true), one = run(12, 8, 1, true),
             eager = run(12, 8, nullptr, false), four = run(12, 8, 4, true);
  EXPECT_EQ(dur(wide), dur(none));
  EXPECT_EQ(none["serving"]["eager_steps"], 0);
  EXPECT_EQ(eager_steps(one), one["serving"]["steps"].get<std::int64_t>());
  EXPECT_GT(dur(one), dur(none));
  EXPECT_EQ(dur(one), dur(eager));
  EXPECT_TRUE(warns(one, "serving.steps_beyond_cuda_graphs")) << one["warnings"].dump();
  for (const json& w : one["warnings"]) {
    if (w["code"] == "serving.steps_beyond_cuda_graphs") {
      EXPECT_NE(w["message"].get<std::string>().find("the GPU waited on it for"), std::string::npos);
    }
  }
  EXPECT_FALSE(warns(eager, "serving.steps_beyond_cuda_graphs"));
  EXPECT_FALSE(warns(none, "serving.steps_beyond_cuda_graphs"));
  EXPECT_GT(eager_steps(four), 0);
  EXPECT_LT(eager_steps(four), eager_steps(one));
  EXPECT_GT(dur(four), dur(none));
  EXPECT_LT(dur(four), dur(one));
  // At 1, 2 and 4 ms an interval every step's kernels wait on: the eager part doubles with it.
  const double graphed = dur(run(8, 8, nullptr, true, 1000));
  const double at1 = dur(run(8, 8, nullptr, false, 1000)) - graphed;
  const double at2 = dur(run(8, 8, nullptr, false, 2000)) - graphed;
  const double at4 = dur(run(8, 8, nullptr, false, 4000)) - graphed;
  EXPECT_GT(at1, 0);
  EXPECT_NEAR(at4 - at2, 2.0 * (at2 - at1), 1e-9 * at4);
  // A runtime that prefills eager (SGLang's extend batches: prefill_cuda_graphs false) times every
  // step with a prompt chunk eager, within the capture size or not, and says nothing of it: the
  // warning is for steps past the captured batch.
  // Prompts of 16 tokens: a prefill step's GPU work is shorter than its issue time.
  json pre = base({{"arrival", "offline"}, {"num_requests", 8}, {"max_batch", 8}});
  pre["model"] = "llama3.2-1b";
  pre["inference"]["prompt_len"] = 16;
  const json prefill_graphed = predict(pre);
  pre["inference"]["serving"]["prefill_cuda_graphs"] = false;
  const json prefill_eager = predict(pre);
  ASSERT_FALSE(prefill_eager.contains("error")) << prefill_eager.dump();
  const std::int64_t eager_prefills = eager_steps(prefill_eager);
  EXPECT_GT(eager_prefills, 0);
  EXPECT_LT(eager_prefills, prefill_eager["serving"]["steps"].get<std::int64_t>());
  EXPECT_GT(dur(prefill_eager), dur(prefill_graphed));
  EXPECT_FALSE(warns(prefill_eager, "serving.steps_beyond_cuda_graphs"));
  // The vllm profile states vLLM's 512; a negative size is refused where it is.
  json s = base({{"arrival", "offline"}, {"num_requests", 8}});
  s["software"] = "vllm";
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump().substr(0, 300);
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["cuda_graph_max_batch"], 512);
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["prefill_cuda_graphs"], true);
  s["software"] = "sglang";
  const json g = json::parse(optimus::api::validate(s.dump()));
  EXPECT_EQ(g["scenario"]["inference"]["serving"]["prefill_cuda_graphs"], false);
  s["software"] = "vllm";
  s["inference"]["serving"]["cuda_graph_max_batch"] = -1;
  expect_error(s, "scenario.out_of_range", "/inference/serving/cuda_graph_max_batch");
}

// SGLang sizes its chunked prefill and its largest captured batch from the device's memory and
// the server's tp (the sglang profile's serving.sizing, server_args.py): 8192 tokens and 256
// sequences on an 80 GB H100 below tp 4, 512 at tp 4 or more (and under attention data
// parallelism, whose --tp counts the expert group's ranks), 16384 and 512 on a 180 GB B200. A
// stated key stays as stated, the other is sized; the validated scenario reads back to itself; a
// disaggregated pool is sized at its own tp.
TEST(Serving, SglangSizesItsBudgetAndGraphsFromTheDevice) {
  const auto resolved = [](json s) {
    const json v = json::parse(optimus::api::validate(s.dump()));
    EXPECT_TRUE(v.contains("scenario")) << v.dump().substr(0, 300);
    return v.contains("scenario") ? v["scenario"] : json::object();
  };
  const auto sized = [&](const json& s) {
    const json sv = resolved(s)["inference"]["serving"];
    return std::pair<std::int64_t, std::int64_t>{sv["max_num_tokens"].get<std::int64_t>(),
                                                 sv["cuda_graph_max_batch"].get<std::int64_t>()};
  };
  json s = base({{"arrival", "offline"}, {"num_requests", 8}});
  s["software"] = "sglang";
  EXPECT_EQ(sized(s), std::make_pair(std::int64_t{8192}, std::int64_t{256}));
  json tp4 = s;
  tp4["num_devices"] = 4;
  tp4["parallel"] = {{"tp", 4}};
  EXPECT_EQ(sized(tp4), std::make_pair(std::int64_t{8192}, std::int64_t{512}));
  json b200 = s;
  b200["system"] = "dgx-b200";
  EXPECT_EQ(sized(b200), std::make_pair(std::int64_t{16384}, std::int64_t{512}));
  json dp_attention = s;
  dp_attention["model"] = "qwen3-30b-a3b";
  dp_attention["num_devices"] = 8;
  dp_attention["parallel"] = {{"tp", 1}, {"ep", 8}, {"dp", 8}};
  EXPECT_EQ(sized(dp_attention), std::make_pair(std::int64_t{8192}, std::int64_t{512}));
  json stated = b200;
  stated["inference"]["serving"]["cuda_graph_max_batch"] = 96;
  EXPECT_EQ(sized(stated), std::make_pair(std::int64_t{16384}, std::int64_t{96}));
  stated["inference"]["serving"].erase("cuda_graph_max_batch");
  stated["inference"]["serving"]["max_num_tokens"] = 4096;
  EXPECT_EQ(sized(stated), std::make_pair(std::int64_t{4096}, std::int64_t{512}));
  const json once = resolved(s);
  EXPECT_EQ(resolved(once)["inference"]["serving"], once["inference"]["serving"]);
  // A disaggregated pool is a server of its own, sized at its tp: decode replicas at tp 1 under a
  // scenario-wide tp 4 capture 256 sequences, so their steps of ~300 run eager where a stated 512
  // replays them (the prefill steps are eager either way: SGLang prefills eager).
  const auto eager_steps = [](json sc) {
    const json p = predict(sc);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p.contains("serving") ? p["serving"]["eager_steps"].get<std::int64_t>() : -1;
  };
  json split =
      base({{"arrival", "closed"},
            {"concurrency", 1600},
            {"num_requests", 3200},
            {"disaggregated",
             {{"prefill", {{"tp", 4}, {"replicas", 1}}}, {"decode", {{"tp", 1}, {"replicas", 4}}}}}});
  split["software"] = "sglang";
  split["num_devices"] = 8;
  split["parallel"] = {{"tp", 4}};
  split["inference"]["prompt_len"] = 256;
  split["inference"]["output_len"] = 512;
  const std::int64_t pool_sized = eager_steps(split);
  split["inference"]["serving"]["cuda_graph_max_batch"] = 512;
  EXPECT_GT(pool_sized, 2 * eager_steps(split));
  // A scenario may carry rules of its own, first match wins; a malformed one is refused at its path.
  json own = base({{"arrival", "offline"},
                   {"num_requests", 8},
                   {"sizing", json::array({{{"below_GiB", 60}, {"cuda_graph_max_batch", 8}},
                                           {{"min_tp", 2}, {"cuda_graph_max_batch", 16}},
                                           {{"max_num_tokens", 1024}, {"cuda_graph_max_batch", 24}}})}});
  EXPECT_EQ(sized(own), std::make_pair(std::int64_t{1024}, std::int64_t{24}));
  own["inference"]["serving"]["sizing"][0]["below_GiB"] = -1;
  expect_error(own, "scenario.out_of_range", "/inference/serving/sizing/0/below_GiB");
}

// vLLM counts its captured graphs in tokens (the vllm profile's cuda_graph_unit): a decode step
// of speculative decoding with 3 draft tokens carries 4 tokens a sequence, so at 256 sequences
// (1,024 tokens) it is past vLLM's 512 and runs eager, where a runtime that counts sequences
// replays its graph; without a draft the same decode batch fits either way.
TEST(Serving, VllmCountsCapturedGraphsInTokens) {
  const auto run = [](const char* unit, bool draft) {
    json s = base({{"arrival", "closed"}, {"concurrency", 256}, {"num_requests", 512}, {"max_batch", 256}});
    s["model"] = "llama3.2-1b";
    s["inference"]["prompt_len"] = 16;
    s["inference"]["output_len"] = 64;
    s["inference"]["serving"]["cuda_graph_max_batch"] = 512;
    s["inference"]["serving"]["cuda_graph_unit"] = unit;
    if (draft)
      s["inference"]["speculative"] = {
          {"draft_tokens", 3}, {"acceptance_rate", 0.7}, {"draft", "llama3.2-1b"}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p.contains("serving") ? p["serving"]["eager_steps"].get<std::int64_t>() : -1;
  };
  EXPECT_EQ(run("sequences", true), 0);
  EXPECT_EQ(run("sequences", false), 0);
  // Counted in tokens, the steps that prefill the 256 prompts together (4,096 tokens) run eager with
  // or without a draft; the decode steps only with one.
  const std::int64_t prefills = run("tokens", false);
  EXPECT_GT(prefills, 0);
  EXPECT_GT(run("tokens", true), prefills + 10);
  json s = base({{"arrival", "offline"}, {"num_requests", 8}});
  s["software"] = "vllm";
  const json v = json::parse(optimus::api::validate(s.dump()));
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["cuda_graph_unit"], "tokens");
  s["inference"]["serving"]["cuda_graph_unit"] = "requests";
  expect_error(s, "scenario.invalid_value", "/inference/serving/cuda_graph_unit");
}

}  // namespace serving_test

namespace serving_test {

// Samples of one prompt (ServingSpec::prompt_group, which an RL rollout sets to samples_per_prompt)
// share the prompt's KV blocks and its prefill. Llama 3.1 8B on one H100, 256 requests of 4,096-token
// prompts in groups of 8, half of them answering in 64 tokens and half in 2,048, so that the
// sample holding a prompt's blocks often finishes before the others and hands them on: every
// request completes (a block leaked by a hand-off would leave the cache full and the run stuck),
// the cache is never over-full, and sharing takes less time at a larger batch than eight private
// copies of each prompt. At 128 KiB a token (32 layers x 8 KV heads x 128 x 2 x 2 bytes) the 256
// prompts are 128 GiB as private copies, 16 GiB shared, against an H100 cache of about 60 GiB:
// without sharing the engine runs fewer sequences at a time.
TEST(Serving, SamplesOfAPromptShareItsBlocksAndPrefill) {
  json j = base({{"arrival", "offline"},
                 {"num_requests", 256},
                 {"input_len", json::array({{4096, 1}})},
                 {"output_len", json::array({{64, 1}, {2048, 1}})}});
  const auto run = [&](std::int64_t group) {
    auto s = optimus::parse_scenario(j.dump());
    EXPECT_TRUE(s);
    if (!s) return optimus::ServingPrediction{};
    optimus::Scenario sc = s.value();
    sc.inference->serving->prompt_group = group;
    const auto p = optimus::predict(sc);
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    return p ? *p->serving : optimus::ServingPrediction{};
  };
  const optimus::ServingPrediction own = run(1), shared = run(8);
  EXPECT_EQ(own.completed, 256);
  EXPECT_EQ(shared.completed, 256);
  EXPECT_LE(shared.kv_peak_utilisation, 1.0 + 1e-9);
  EXPECT_LT(shared.duration_s, own.duration_s);
  EXPECT_GT(shared.mean_batch, own.mean_batch);
  // The stream draws one prompt length a group (its samples answer one prompt) and a length a
  // request without groups: with prompts of 256 or 4,096 tokens, every group of 8 is uniform, and
  // ungrouped requests are not (256 draws of two equally likely lengths).
  j["inference"]["serving"]["input_len"] = json::array({{256, 1}, {4096, 1}});
  auto s = optimus::parse_scenario(j.dump());
  ASSERT_TRUE(s);
  optimus::ServingSpec sv = *s.value().inference->serving;
  const auto uniform_groups = [&](std::int64_t group) {
    sv.prompt_group = group;
    const std::vector<optimus::Request> reqs = optimus::make_requests(sv);
    EXPECT_EQ(reqs.size(), 256U);
    std::set<std::int64_t> lengths;
    bool uniform = true;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      lengths.insert(reqs[i].input);
      if (i % 8 != 0 && reqs[i].input != reqs[i - i % 8].input) uniform = false;
    }
    EXPECT_EQ(lengths, (std::set<std::int64_t>{256, 4096}));
    return uniform;
  };
  EXPECT_TRUE(uniform_groups(8));
  EXPECT_FALSE(uniform_groups(1));
}

}  // namespace serving_test

namespace serving_test {

// inference.serving.shared_prefix_len: every prompt starts with the same tokens (a system prompt),
// which a replica prefills and stores once while a request holding them runs. 400 offline requests
// of 3,000 prompt and 200 output tokens on one H100: with 2,048 of the 3,000 shared each request
// prefills about a third of its prompt and stores a third of its prompt's blocks, so the stream
// ends sooner at a larger batch; a prefix longer than the prompt shares all but its last token, as
// a prefix of 2,999 does.
TEST(Serving, ASharedPrefixIsPrefilledAndStoredOnce) {
  const auto run = [](std::int64_t prefix) {
    json sv = {{"arrival", "offline"},
               {"num_requests", 400},
               {"input_len", json::array({{3000, 1}})},
               {"output_len", json::array({{200, 1}})}};
    if (prefix > 0) sv["shared_prefix_len"] = prefix;
    return serve(sv);
  };
  const json none = run(0), shared = run(2048), whole = run(2999), longer = run(5000);
  EXPECT_EQ(shared["completed"], 400);
  EXPECT_LT(shared["duration_s"].get<double>(), 0.8 * none["duration_s"].get<double>());
  EXPECT_GT(shared["mean_batch"].get<double>(), 1.5 * none["mean_batch"].get<double>());
  EXPECT_LT(whole["duration_s"].get<double>(), shared["duration_s"].get<double>());
  EXPECT_DOUBLE_EQ(longer["duration_s"].get<double>(), whole["duration_s"].get<double>());
  // One client at a time: no request holds the prefix when the next arrives, but its blocks are
  // the cache's most recently used and are found again, so every request after the first
  // prefills 952 tokens instead of 3,000.
  const auto alone = [](std::int64_t prefix) {
    json sv = {{"arrival", "closed"},
               {"concurrency", 1},
               {"num_requests", 20},
               {"input_len", json::array({{3000, 1}})},
               {"output_len", json::array({{200, 1}})}};
    if (prefix > 0) sv["shared_prefix_len"] = prefix;
    return serve(sv)["ttft_s"]["mean"].get<double>();
  };
  EXPECT_LT(alone(2048), 0.6 * alone(0));
  // Read back as written.
  json s = base({{"shared_prefix_len", 2048}});
  const json v = json::parse(optimus::api::validate(s.dump()));
  EXPECT_EQ(v["scenario"]["inference"]["serving"]["shared_prefix_len"], 2048) << v.dump().substr(0, 400);
}

}  // namespace serving_test
