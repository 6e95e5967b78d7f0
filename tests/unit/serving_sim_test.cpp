// The serving simulator (core/serving/) on its own, over a StepModel of constant step times
// instead of the engine's: what its scheduler does can be counted by hand. Every step of a
// replica takes `step` seconds whatever it holds, so a request of output n alone takes n steps
// (its prefill gives the first token), and requests the KV budget or the batch keeps apart run
// one after the other.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "serving/request.h"
#include "serving/serving.h"
#include "serving/step_model.h"

namespace serving_sim_test {

namespace {

using optimus::PoolLimits;
using optimus::SeqGroup;
using optimus::ServingSpec;

class ConstantSteps final : public optimus::StepModel {
 public:
  ConstantSteps(PoolLimits limits, double step, double transfer)
      : StepModel(std::move(limits)), step_(step), transfer_(transfer) {}
  double step_s(const std::vector<SeqGroup>&) override {
    ++calls;
    return step_;
  }
  double draft_s(const std::vector<SeqGroup>&) override { return 0; }
  double kv_transfer_s(std::int64_t) const override { return transfer_; }
  int calls = 0;

 private:
  double step_, transfer_;
};

// `n` requests of a 100-token prompt and 10 output tokens, all at once, no host times.
ServingSpec spec(std::int64_t n) {
  ServingSpec sv;
  sv.arrival = optimus::Arrival::offline;
  sv.num_requests = n;
  sv.input_len.points = {{100, 1.0}};
  sv.output_len.points = {{10, 1.0}};
  sv.request_overhead_s = 0;
  sv.step_overhead_s = 0;
  return sv;
}

// One byte of KV per token in 16-token blocks, `capacity` bytes per device.
PoolLimits limits(const ServingSpec& sv, double capacity, std::int64_t replicas = 1) {
  PoolLimits p;
  p.sched = sv;
  p.replicas = replicas;
  p.devices = replicas;
  p.kv_capacity = capacity;
  p.per_token = 1;
  return p;
}

TEST(ServingSimulator, OneRequestTakesOneStepPerToken) {
  const ServingSpec sv = spec(1);
  ConstantSteps pool(limits(sv, 1e9), 0.01, 0);
  const auto r = optimus::simulate_serving(sv, pool, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->completed, 1);
  EXPECT_EQ(r->steps, 10);
  EXPECT_NEAR(r->duration_s, 0.10, 1e-12);
  EXPECT_NEAR(r->ttft.mean, 0.01, 1e-12);
  EXPECT_NEAR(r->tpot.mean, 0.01, 1e-12);
  EXPECT_NEAR(r->itl.mean, 0.01, 1e-12);
  EXPECT_NEAR(r->mean_batch, 1.0, 1e-12);
  // The nine decode steps after the first are one stretch: the prefill, the first decode step
  // and the stretch's last step are all the model is asked for.
  EXPECT_EQ(pool.calls, 3);
}

// `sv` over one pool of `replicas` with `capacity` bytes of KV per device, 10 ms a step.
optimus::ServingPrediction serve(const ServingSpec& sv, double capacity, std::int64_t replicas = 1) {
  ConstantSteps pool(limits(sv, capacity, replicas), 0.01, 0);
  auto r = optimus::simulate_serving(sv, pool, replicas);
  EXPECT_TRUE(r.ok()) << r.error().code;
  return r.ok() ? std::move(r).value() : optimus::ServingPrediction{};
}

TEST(ServingSimulator, TheKvBudgetAndTheBatchKeepRequestsApart) {
  const ServingSpec sv = spec(2);
  // Both fit: they run side by side.
  const auto both = serve(sv, 1e9);
  EXPECT_EQ(both.steps, 10);
  EXPECT_NEAR(both.duration_s, 0.10, 1e-12);
  // A request reserves its whole context (109 tokens, 112 in blocks): 150 bytes hold one.
  const auto one_by_one = serve(sv, 150);
  EXPECT_EQ(one_by_one.steps, 20);
  EXPECT_NEAR(one_by_one.duration_s, 0.20, 1e-12);
  EXPECT_NEAR(one_by_one.ttft.mean, (0.01 + 0.11) / 2, 1e-12);
  EXPECT_EQ(one_by_one.kv_capacity_tokens, 150);  // 150 bytes at one byte a token
  // A batch of one does the same.
  ServingSpec single = sv;
  single.max_batch = 1;
  EXPECT_EQ(serve(single, 1e9).steps, 20);
  // Two replicas take one request each, side by side.
  const auto apart = serve(sv, 150, 2);
  EXPECT_EQ(apart.steps, 20);
  EXPECT_NEAR(apart.duration_s, 0.10, 1e-12);
  EXPECT_NEAR(apart.output_tokens_per_s_per_gpu, 20 / 0.10 / 2, 1e-9);
}

// On-demand blocks (vLLM's default) over a cache that holds the two requests' first blocks but
// not their whole contexts: 16-token prompts, 40 tokens out (55 in the cache at the end, 4
// blocks each), 96 bytes (6 blocks). Steps 1-2: both prefill and decode once (17 tokens, 2 blocks
// each). The decode steps after it are taken as one stretch while the free blocks last: 31 more
// steps (48 tokens, 3 blocks each, the cache full). Step 34: the first needs a fourth block, so
// the second (the newest) is preempted and waits; the first decodes alone and finishes in a
// stretch of 6 (step 40). Step 41 recomputes the second's 16 + 33 tokens (its 34th token),
// step 42 and a stretch of 5 end it: 47 steps. The model is asked for 5 single steps and the last
// step of each of the 3 stretches.
TEST(ServingSimulator, AFullCacheEndsADecodeStretchWhereItsBlocksRunOut) {
  ServingSpec sv = spec(2);
  sv.input_len.points = {{16, 1.0}};
  sv.output_len.points = {{40, 1.0}};
  sv.kv_admission = optimus::KvAdmission::on_demand;
  ConstantSteps pool(limits(sv, 96), 0.01, 0);
  const auto r = optimus::simulate_serving(sv, pool, 1);
  ASSERT_TRUE(r.ok()) << r.error().code;
  EXPECT_EQ(r->completed, 2);
  EXPECT_EQ(r->preemptions, 1);
  EXPECT_EQ(r->steps, 47);
  EXPECT_NEAR(r->duration_s, 0.47, 1e-12);
  EXPECT_EQ(pool.calls, 8);
  // KV in use, bytes x steps: step 1 32, step 2 64, the first stretch 15 steps at 64 and 16 at 96
  // (the third blocks from its 16th step), step 34 and the stretch after it 64 x 7, the second
  // request's 7 steps 64 x 7.
  EXPECT_NEAR(r->kv_utilisation, (32 + 64 + 15 * 64 + 16 * 96 + 64 * 7 + 64 * 7) / (96.0 * 47), 1e-12);
  // The cache was full at the end of the first stretch; the pool is the whole 96 bytes.
  EXPECT_DOUBLE_EQ(r->kv_peak_utilisation, 1.0);
  EXPECT_DOUBLE_EQ(r->kv_pool_bytes_per_device, 96.0);
}

// A step whose time is affine in each group's context (attention reads the cache) plus a part
// per token, as the engine's decode steps are: decode stretches are then exact. A speculative
// draft's pass is affine in the context too.
class AffineSteps final : public optimus::StepModel {
 public:
  explicit AffineSteps(PoolLimits limits) : StepModel(std::move(limits)) {}
  double step_s(const std::vector<SeqGroup>& groups) override {
    ++calls;
    double t = 2e-3;
    for (const SeqGroup& g : groups)
      t += 1e-5 * static_cast<double>(g.sequences * g.new_tokens) +
           1e-8 * static_cast<double>(g.sequences * g.kv_len);
    return t;
  }
  double draft_s(const std::vector<SeqGroup>& groups) override {
    double t = 3e-4;
    for (const SeqGroup& g : groups) t += 2e-9 * static_cast<double>(g.sequences * g.kv_len);
    return t;
  }
  double kv_transfer_s(std::int64_t) const override { return 0; }
  std::int64_t calls = 0;
};

// A random stream for comparing decode stretches with the step-by-step loop: offline, Poisson
// and closed loops; reserved and on-demand KV blocks over budgets from one request's context to
// plenty, some past an attention window, some on replicas in lock-step or on disaggregated
// prefill and decode pools; continuous and static batching; batch and token limits.
struct Stream {
  ServingSpec sv;
  PoolLimits lim;
  std::int64_t replicas = 1;
  bool split = false;
};
Stream random_stream(std::mt19937_64& rng, int run) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  Stream s;
  ServingSpec& sv = s.sv;
  sv = spec(pick(1, 80));
  sv.arrival =
      std::array{optimus::Arrival::offline, optimus::Arrival::poisson, optimus::Arrival::closed}[run % 3];
  sv.requests_per_s = 50.0;
  sv.concurrency = pick(1, 32);
  sv.input_len.points.clear();
  sv.output_len.points.clear();
  std::int64_t longest = 0, out_max = 0;
  for (int k = 0; k < 3; ++k) {
    const std::int64_t in = pick(1, 400), out = pick(1, 300);
    sv.input_len.points.push_back({in, 1.0});
    sv.output_len.points.push_back({out, 1.0});
    longest = std::max(longest, in);
    out_max = std::max(out_max, out);
  }
  sv.kv_admission = run % 2 ? optimus::KvAdmission::on_demand : optimus::KvAdmission::reserve;
  sv.static_batching = run % 7 == 5;  // a batch forms only once the last one has finished
  sv.max_batch = pick(1, 64);
  sv.max_num_tokens = pick(longest, 2048);
  // From one longest request's whole context (in blocks) to about forty of them.
  const double one = static_cast<double>((longest + out_max + 15) / 16 * 16);
  const double capacity = one * static_cast<double>(pick(1, 40));
  // A quarter of the runs on two replicas that step together (attention data parallelism).
  s.replicas = run % 4 == 3 ? 2 : 1;
  s.lim = limits(sv, capacity, s.replicas);
  if (s.replicas > 1) s.lim.lockstep_group = 2;
  // A third of the runs with windowed layers: past a 16-400-token window a token costs a quarter.
  if (run % 3 == 1) {
    s.lim.window = pick(16, 400);
    s.lim.tail_per_token = 0.25;
  }
  // A fifth of the runs disaggregated: a prefill pool hands each prompt to the decode pool.
  s.split = run % 5 == 4;
  return s;
}

// The same stream simulated with decode stretches (a) and step by step (b), and the decode
// pool's step times each asked the model for.
struct BothWays {
  optimus::Result<optimus::ServingPrediction> a, b;
  std::int64_t calls_a = 0, calls_b = 0;
};
BothWays both_ways(const Stream& s) {
  PoolLimits lim = s.lim;
  AffineSteps stretched(lim), prefill(lim);
  lim.stretches = false;
  AffineSteps stepped(lim), prefill_stepped(lim);
  std::vector<optimus::Warning> warnings;
  auto a = s.split ? optimus::simulate_serving(s.sv, prefill, stretched, warnings)
                   : optimus::simulate_serving(s.sv, stretched, s.replicas);
  auto b = s.split ? optimus::simulate_serving(s.sv, prefill_stepped, stepped, warnings)
                   : optimus::simulate_serving(s.sv, stepped, s.replicas);
  return {std::move(a), std::move(b), stretched.calls, stepped.calls};
}

// Decode stretches change nothing but the cost of simulating: 80 random streams (random_stream)
// simulated with stretches and step by step give the same steps, preemptions, times and KV in use.
TEST(ServingSimulator, DecodeStretchesAgreeWithStepByStep) {
  std::mt19937_64 rng(7);
  int preempting = 0, disaggregated = 0;
  for (int run = 0; run < 80; ++run) {
    const Stream s = random_stream(rng, run);
    const auto [a, b, calls_a, calls_b] = both_ways(s);
    ASSERT_EQ(a.ok(), b.ok()) << run;
    if (!a.ok()) continue;
    SCOPED_TRACE(run);
    disaggregated += s.split;
    EXPECT_EQ(a->steps, b->steps);
    EXPECT_EQ(a->preemptions, b->preemptions);
    EXPECT_EQ(a->completed, b->completed);
    preempting += a->preemptions > 0;
    const auto near = [](double x, double y) { EXPECT_NEAR(x, y, 1e-9 * std::max(1.0, std::abs(y))); };
    near(a->duration_s, b->duration_s);
    near(a->ttft.mean, b->ttft.mean);
    near(a->tpot.mean, b->tpot.mean);
    near(a->itl.mean, b->itl.mean);
    near(a->e2e.mean, b->e2e.mean);
    near(a->mean_batch, b->mean_batch);
    near(a->kv_utilisation, b->kv_utilisation);
  }
  EXPECT_GE(preempting, 5);  // full caches, which a stretch now runs through, are among them
  EXPECT_GE(disaggregated, 10);
}

// Under speculative decoding (1-4 drafted tokens accepted at 0.3-0.95, so 1.3-4.6 tokens a
// step) a stretch takes the mean context as growing by the expected gain a step, where the
// step-by-step loop rounds the mean of the contexts to a whole token. The tokens each sequence
// gains are exact (its credit in closed form), so are the steps, the preemptions and the
// completions; times agree to the step time of that rounding (1e-8 s a sequence-token here,
// against steps of at least 2 ms), within 0.1%; the KV in use within 0.1% of the cache. The
// gaps of a stretch's tokens are spread evenly over its steps, so a percentile of them can move
// by a bin of the gap histogram (0.67%) or, where the gaps of n and n + 1 tokens a step meet at
// it, from one to the other: the token-weighted mean is compared.
TEST(ServingSimulator, SpeculativeDecodeStretchesAgreeWithStepByStep) {
  std::mt19937_64 rng(11);
  std::int64_t calls_stretched = 0, calls_stepped = 0;
  int preempting = 0;
  for (int run = 0; run < 80; ++run) {
    Stream s = random_stream(rng, run);
    const auto k = std::uniform_int_distribution<std::int64_t>(1, 4)(rng);
    const double accept = std::uniform_real_distribution<double>(0.3, 0.95)(rng);
    s.lim.draft = true;
    s.lim.spec_k = k;
    s.lim.spec_gain = (1 - std::pow(accept, static_cast<double>(k + 1))) / (1 - accept);
    const auto [a, b, calls_a, calls_b] = both_ways(s);
    ASSERT_EQ(a.ok(), b.ok()) << run;
    if (!a.ok()) continue;
    SCOPED_TRACE(run);
    EXPECT_EQ(a->steps, b->steps);
    EXPECT_EQ(a->preemptions, b->preemptions);
    EXPECT_EQ(a->completed, b->completed);
    preempting += a->preemptions > 0;
    calls_stretched += calls_a;
    calls_stepped += calls_b;
    const auto near = [](double x, double y, const char* what) {
      EXPECT_NEAR(x, y, 1e-3 * std::max(1e-3, std::abs(y))) << what;
    };
    near(a->duration_s, b->duration_s, "duration");
    near(a->ttft.mean, b->ttft.mean, "ttft");
    near(a->tpot.mean, b->tpot.mean, "tpot");
    near(a->itl.mean, b->itl.mean, "itl");
    near(a->e2e.mean, b->e2e.mean, "e2e");
    near(a->mean_batch, b->mean_batch, "batch");
    EXPECT_NEAR(a->kv_utilisation, b->kv_utilisation, 1e-3);
  }
  EXPECT_GE(preempting, 3);  // full caches: blocks claimed for the drafts' slots ahead
  // The stretches are taken: the decode pools ask for a fraction of the step times.
  EXPECT_LT(calls_stretched * 3, calls_stepped);
}

TEST(ServingSimulator, DisaggregatedPoolsAddTheHandOff) {
  const ServingSpec sv = spec(1);
  ConstantSteps prefill(limits(sv, 1e9), 0.01, 0.005), decode(limits(sv, 1e9), 0.01, 0);
  std::vector<optimus::Warning> warnings;
  const auto r = optimus::simulate_serving(sv, prefill, decode, warnings);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(warnings.empty());
  // The prefill pool's one step gives the first token at 10 ms, the cache lands 5 ms later and
  // the decode pool's nine steps give the rest.
  EXPECT_EQ(r->steps, 10);
  EXPECT_NEAR(r->ttft.mean, 0.01, 1e-12);
  EXPECT_NEAR(r->e2e.mean, 0.105, 1e-12);
  EXPECT_NEAR(r->kv_transfer_s, 0.005, 1e-15);
  EXPECT_EQ(r->replicas, 2);
  EXPECT_EQ(r->devices, 2);
}

TEST(ServingSimulator, TheStepBoundIsAnError) {
  // Two requests one after the other (a batch of one), each under the bound, together over it: a
  // decode stretch stops at the bound (it counts each step it skips), and the next step is
  // refused.
  ServingSpec sv = spec(2);
  sv.max_batch = 1;
  sv.output_len.points = {{optimus::kMaxServingSteps / 2 + 10, 1.0}};
  ConstantSteps plain(limits(sv, 1e12), 1e-3, 0);
  const auto r = optimus::simulate_serving(sv, plain, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "serving.too_many_steps");
  EXPECT_GT(plain.calls, 0);
}

// A pool whose replica's longest request alone takes more steps than the bound is refused before
// a step is simulated: one request past it (a request's tokens after its first take a step each;
// with 3 drafted tokens, at most 4 a step). The bound is each replica's: two requests of 0.6 of it
// on two replicas are simulated, and on one replica, one after the other (1.2 of it), refused.
TEST(ServingSimulator, APoolPastTheStepBoundIsRefusedBeforeItsFirstStep) {
  ServingSpec one = spec(1);
  one.output_len.points = {{optimus::kMaxServingSteps + 10, 1.0}};
  ConstantSteps alone(limits(one, 1e12), 1e-3, 0);
  const auto r = optimus::simulate_serving(one, alone, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "serving.too_many_steps");
  EXPECT_EQ(alone.calls, 0);
  ServingSpec two = spec(2);
  two.max_batch = 1;
  two.output_len.points = {{optimus::kMaxServingSteps * 6 / 10, 1.0}};
  ConstantSteps apart(limits(two, 1e12, 2), 1e-3, 0);
  EXPECT_TRUE(optimus::simulate_serving(two, apart, 2).ok());
  EXPECT_GT(apart.calls, 0);
  ConstantSteps shared(limits(two, 1e12, 1), 1e-3, 0);
  EXPECT_EQ(optimus::simulate_serving(two, shared, 1).error().code, "serving.too_many_steps");
  // Speculating 3 tokens a step, one request of 1.2 times the bound takes 0.3 of it: simulated.
  ServingSpec long_one = spec(1);
  long_one.output_len.points = {{optimus::kMaxServingSteps * 12 / 10, 1.0}};
  PoolLimits drafted = limits(long_one, 1e12);
  drafted.draft = true;
  drafted.spec_k = 3;
  drafted.spec_gain = 3.5;
  ConstantSteps fast(drafted, 1e-3, 0);
  EXPECT_TRUE(optimus::simulate_serving(long_one, fast, 1).ok());
  EXPECT_GT(fast.calls, 0);
}

// The work bound (set_serving_work_limit, which the fuzz targets set): four offline requests of ten
// tokens take two passes of the scheduler's loop, the prefill step of all four and a decode step
// of all four whose stretch takes the other eight, 4 + 1 units each. A bound of 6 lets the second
// pass start (5 spent) and the run end; a bound of 5 refuses it. Counted step by step, the run
// would be 50 units.
TEST(ServingSimulator, TheWorkBoundCountsPassesOfTheLoopAndIsAnError) {
  const ServingSpec sv = spec(4);
  ConstantSteps plain(limits(sv, 1e12), 1e-3, 0);
  optimus::set_serving_work_limit(6);
  const auto within = optimus::simulate_serving(sv, plain, 1);
  optimus::set_serving_work_limit(5);
  const auto past = optimus::simulate_serving(sv, plain, 1);
  optimus::set_serving_work_limit(0);
  ASSERT_TRUE(within.ok()) << within.error().message;
  EXPECT_EQ(within->steps, 10);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().code, "serving.too_many_steps");
  EXPECT_TRUE(optimus::simulate_serving(sv, plain, 1).ok());
}

// longest_at_max (RL's generation limit): the same draws, but the longest is the limit.
TEST(ServingRequests, LongestAtMaxCutsTheLongestDrawAtTheLimit) {
  ServingSpec sv = spec(500);
  sv.output_len = {};
  sv.output_len.shaped = true;
  sv.output_len.min = 1;
  sv.output_len.max = 20000;
  sv.output_len.mean = 300;
  sv.output_len.rate = optimus::truncated_exponential_rate(300, 1, 20000);
  const auto plain = optimus::make_requests(sv);
  sv.output_len.longest_at_max = true;
  const auto cut = optimus::make_requests(sv);
  ASSERT_EQ(plain.size(), cut.size());
  const auto longest = [](const auto& a, const auto& b) { return a.output < b.output; };
  const auto at = std::max_element(plain.begin(), plain.end(), longest) - plain.begin();
  EXPECT_LT(plain[at].output, 20000);  // the exponential's own tail stops far below the limit
  for (std::size_t i = 0; i < plain.size(); ++i)
    EXPECT_EQ(cut[i].output, static_cast<std::ptrdiff_t>(i) == at ? 20000 : plain[i].output) << i;
}

// The lengths are drawn one per stratum of the distribution (Latin hypercube): whatever the seed,
// 2,048 long-tailed responses of mean 2,048 make the stated number of tokens (independent draws
// with the default seed made 1,953: 4.6% short), and weighted points come in their proportions.
TEST(ServingRequests, DrawsMatchTheStatedMeanAndWeights) {
  ServingSpec sv = spec(2048);
  sv.output_len = {};
  sv.output_len.shaped = true;
  sv.output_len.min = 1;
  sv.output_len.max = 16384;
  sv.output_len.mean = 2048;
  sv.output_len.rate = optimus::truncated_exponential_rate(2048, 1, 16384);
  sv.input_len = {};
  sv.input_len.points = {{100, 1.0}, {1000, 3.0}};
  for (std::uint64_t seed : {0ull, 1ull, 7ull, 12345ull}) {
    sv.seed = seed;
    const auto reqs = optimus::make_requests(sv);
    double out = 0;
    std::int64_t short_inputs = 0;
    for (const auto& r : reqs) {
      out += static_cast<double>(r.output);
      short_inputs += r.input == 100;
    }
    EXPECT_NEAR(out / static_cast<double>(reqs.size()), 2048.0, 2048.0 * 0.005) << seed;
    EXPECT_EQ(short_inputs, 512) << seed;
  }
}

}  // namespace

}  // namespace serving_sim_test
