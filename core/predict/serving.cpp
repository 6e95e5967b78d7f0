// Continuous-batching serving simulated step by step (see serving.h for the sources). Each step
// the scheduler (vLLM's, as of its v1 engine; TensorRT-LLM's in-flight batching forms the same
// mixed steps) first gives every running request its next tokens — one for a decoding sequence,
// the next prompt chunk for one still in prefill — under the step's token budget, claiming KV
// blocks as the contexts grow and preempting the newest running request when none are free (its
// blocks freed, its prompt and generated tokens recomputed later, vLLM's default); then admits
// waiting requests while sequences, tokens and free blocks allow. The step then costs what the
// engine's step time says for that mix of prefill chunks and decode tokens.
#include "predict/serving.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>

#include "base/math.h"
#include "memory/footprint.h"
#include "predict/predict.h"

namespace optimus {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

std::string gib(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / kGiB);
  return buf;
}

// SplitMix64 (Steele, Lea and Flood 2014, "Fast splittable pseudorandom number generators"):
// integer arithmetic only, so native and WebAssembly builds draw the same requests.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1): 53 random bits, never 0.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
};

// Draws lengths from one distribution; what does not depend on the draw is computed once.
class LengthSampler {
 public:
  explicit LengthSampler(const LengthDist& dist) : dist_(dist) {
    for (const auto& p : dist.points) total_ += p.second;
    if (dist.shaped) {
      width_ = d(dist.max - dist.min);
      // Inverse CDF of the truncated exponential on [min, max] with the reader's rate:
      // x = min - ln(1 - u (1 - e^(-rate w))) / rate; uniform where rate w is negligible.
      exponential_ = std::fabs(dist.rate * width_) > 1e-6;
      if (exponential_) mass_ = 1.0 - portable_exp(-dist.rate * width_);
    }
  }
  std::int64_t operator()(Rng& rng) const {
    const LengthDist& dist = dist_;
    if (dist.shaped) {
      const double u = rng.uniform();
      const double x =
          exponential_ ? d(dist.min) - portable_log(1.0 - u * mass_) / dist.rate : d(dist.min) + u * width_;
      return std::clamp<std::int64_t>(std::llround(x), dist.min, dist.max);
    }
    if (dist.uniform) {
      // Each of the max - min + 1 whole lengths with the same probability.
      const double x = d(dist.min) + std::floor(rng.uniform() * d(dist.max - dist.min + 1));
      return std::clamp<std::int64_t>(static_cast<std::int64_t>(x), dist.min, dist.max);
    }
    if (dist.points.size() == 1) return dist.points.front().first;
    double u = rng.uniform() * total_;
    for (const auto& p : dist.points) {
      if (u < p.second) return p.first;
      u -= p.second;
    }
    return dist.points.back().first;
  }

 private:
  const LengthDist& dist_;
  double total_ = 0, width_ = 0, mass_ = 0;
  bool exponential_ = false;
};

struct Request {
  // Scheduler state, read every step (first, so that it shares a cache line): tokens in the KV
  // cache, tokens to prefill before the next output token (the prompt, plus what was generated
  // before a preemption), tokens generated, tokens the claimed blocks hold and their bytes.
  std::int64_t kv = 0, target = 0, generated = 0, output = 1;
  std::int64_t claimed = 0;  // kv_bytes = bytes_for(claimed)
  double kv_bytes = 0;
  double first_token = -1;
  double credit = 0;   // speculative decoding: expected tokens not yet emitted (a fraction)
  std::size_t id = 0;  // position in the deployment's stream
  double arrival = 0;
  std::int64_t input = 1;
  double done = -1;
  double ready = 0;  // disaggregated decode: when the KV hand-off lands
  // The step (of its replica) that ended with the request's last token, and that token's time once
  // the request stops getting one every step (kept up to date only then: a request that got a
  // token the step before needs no time, its gap is the step's).
  std::int64_t last_step = -2;
  double last_time = 0;
};

// Percentiles by linear interpolation between closest ranks. Each call selects the two ranks it
// needs (std::nth_element, linear time) instead of sorting the whole sample; v is reordered.
double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q / 100.0 * d(static_cast<std::int64_t>(v.size()) - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto at_lo = v.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(v.begin(), at_lo, v.end());
  const double a = *at_lo;
  // The next rank is the smallest value above position lo.
  const double b = lo + 1 < v.size() ? *std::min_element(at_lo + 1, v.end()) : a;
  return a + (b - a) * (pos - std::floor(pos));
}

LatencyStats stats(std::vector<double>& v) {
  LatencyStats out;
  if (v.empty()) return out;
  double sum = 0;
  for (double x : v) sum += x;
  out.mean = sum / d(static_cast<std::int64_t>(v.size()));
  out.p50 = percentile(v, 50);
  out.p90 = percentile(v, 90);
  out.p99 = percentile(v, 99);
  return out;
}

// A token-weighted distribution of inter-token gaps in log-spaced bins (100 ns to 1e5 s, 4096
// bins of 0.67%), so that its memory and time do not grow with the run's steps. Bin edges are
// computed once with portable_exp, so native and WebAssembly builds bin alike.
class GapHistogram {
 public:
  static constexpr std::size_t kBins = 4096;
  void add(double v, double weight) {
    if (!(weight > 0)) return;
    w_[bin(v)] += weight;
    note(v, v, weight);
  }
  // `weight` gaps spread evenly over [a, b] (a decode stretch: steps whose time grows linearly).
  void add_even(double a, double b, double weight) {
    if (!(weight > 0)) return;
    if (b < a) std::swap(a, b);
    if (!(b > a)) return add(a, weight);
    const auto& e = edges();
    for (std::size_t i = bin(a), last = bin(b); i <= last; ++i) {
      const double lo = i == 0 ? a : std::max(a, e[i]), hi = i + 1 == kBins ? b : std::min(b, e[i + 1]);
      if (hi > lo) w_[i] += weight * (hi - lo) / (b - a);
    }
    note(a, b, weight);
  }
  double percentile(double q) const { return total_ > 0 ? quantile(q / 100.0) : 0.0; }
  LatencyStats stats() const {
    LatencyStats out;
    if (!(total_ > 0)) return out;
    out.mean = sum_ / total_;
    out.p50 = quantile(0.50);
    out.p90 = quantile(0.90);
    out.p99 = quantile(0.99);
    return out;
  }

 private:
  static const std::array<double, kBins + 1>& edges() {
    static const std::array<double, kBins + 1> e = [] {
      std::array<double, kBins + 1> out{};
      for (std::size_t i = 0; i <= kBins; ++i)
        out[i] =
            1e-7 * portable_exp(static_cast<double>(i) * portable_log(1e12) / static_cast<double>(kBins));
      return out;
    }();
    return e;
  }
  static std::size_t bin(double v) {
    const auto& e = edges();
    const auto it = std::upper_bound(e.begin() + 1, e.end() - 1, v);
    return static_cast<std::size_t>(it - e.begin()) - 1;
  }
  void note(double a, double b, double weight) {
    lo_ = std::min(lo_, a);
    hi_ = std::max(hi_, b);
    total_ += weight;
    sum_ += weight * (a + b) / 2.0;
  }
  // The value below which a share q of the weight lies: linear within the bin that crosses it,
  // clamped to the smallest and largest gap seen.
  double quantile(double q) const {
    const auto& e = edges();
    const double target = q * total_;
    double below = 0;
    for (std::size_t i = 0; i < kBins; ++i) {
      if (w_[i] <= 0) continue;
      if (below + w_[i] >= target) {
        const double v = e[i] + (e[i + 1] - e[i]) * (target - below) / w_[i];
        return std::clamp(v, lo_, hi_);
      }
      below += w_[i];
    }
    return hi_;
  }
  std::vector<double> w_ = std::vector<double>(kBins, 0.0);
  double total_ = 0, sum_ = 0;
  double lo_ = std::numeric_limits<double>::infinity(), hi_ = 0;
};

// What one replica of a pool can hold and how it is timed.
struct Pool {
  Scenario s;              // the pool's layout (tp, pp; dp = its replicas)
  ServingSpec sched;       // its scheduler: inference.serving with the pool's own settings over it
  double kv_capacity = 0;  // bytes of KV blocks per device
  // KV bytes per device of a context, piecewise linear: full rate up to the window, `tail`
  // per token beyond it (windowed layers stop growing).
  double per_token = 0, tail_per_token = 0;
  std::int64_t window = 0;
  std::int64_t block = 16;
  // Speculative decoding: the draft on the pool's devices, tokens drafted per step and the
  // expected tokens a decoding sequence gains per step.
  std::optional<Scenario> draft;
  std::int64_t spec_k = 0;
  double spec_gain = 1;
  // Tokens in the whole blocks that hold `tokens`.
  std::int64_t covered(std::int64_t tokens) const { return (tokens + block - 1) / block * block; }
  double bytes_for(std::int64_t tokens) const {
    const double t = d(covered(tokens));
    if (window <= 0 || t <= d(window)) return per_token * t;
    return per_token * d(window) + tail_per_token * (t - d(window));
  }
};

// Builds a pool's scenario and its KV budget: device memory x gpu_memory_utilization less the
// weights and a prefill workspace of one max_num_tokens step (or free_gpu_memory_fraction of what
// those two leave). `own`: a disaggregated pool's settings, laid over inference.serving's.
Result<Pool> make_pool(const Scenario& base, std::int64_t tp, std::int64_t pp, std::int64_t replicas,
                       std::int64_t ep, const char* path, const ServingPool* own = nullptr) {
  Pool pool;
  pool.sched = *base.inference->serving;
  ServingSpec& sv = pool.sched;
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
  pool.block = sv.kv_block_tokens;
  if (const auto& sp = pool.s.inference->speculative) {
    pool.draft = speculative_draft_scenario(pool.s);
    pool.spec_k = sp->draft_tokens;
    pool.spec_gain = speculative_tokens_per_step(*sp);
  }
  pool.window = pool.s.model.window;
  pool.per_token = inference_kv_bytes(pool.s, 1.0).value;
  if (pool.window > 0) {
    const double at_window = inference_kv_bytes(pool.s, d(pool.window)).value;
    pool.per_token = at_window / d(pool.window);
    pool.tail_per_token =
        (inference_kv_bytes(pool.s, 2.0 * d(pool.window)).value - at_window) / d(pool.window);
  }
  Scenario work = pool.s;
  work.inference->batch = 1;
  work.inference->prompt_len = sv.max_num_tokens;
  work.inference->output_len = 1;
  const InferenceMemory mem = inference_memory(work);
  const double held = mem.bytes.weights.value + mem.activation_per_sequence.value;
  const double hbm = base.system.device.hbm_capacity.value;
  pool.kv_capacity = sv.free_gpu_memory_fraction > 0 ? sv.free_gpu_memory_fraction * (hbm - held)
                                                     : hbm * sv.gpu_memory_utilization - held;
  return pool;
}

struct ReplicaRun {
  std::int64_t steps = 0, preemptions = 0;
  double busy_batch = 0, busy_kv = 0, busy_time = 0;  // time-weighted sums
  std::vector<ServingStepSample> timeline;
  std::int64_t sample_every = 1;
  // The replica's steps as runs of consecutive steps whose time is affine in the step (`first`
  // for the first, `slope` more for each next; a single step has slope 0) and the replica's own
  // clock at their end: kept for replicas that step in lockstep (see lockstep()).
  bool record_steps = false;
  std::vector<StepSpan> spans;
  std::vector<double> span_ends;
  // Inter-token gaps: straight into `gaps` on the replica's own clock; with record_steps, the
  // regular ones (one step long) in the spans and the rest here by step, for lockstep()'s clock.
  GapHistogram* gaps = nullptr;
  struct LongGap {
    std::int64_t from = 0, to = 0;  // the steps that ended with the previous token and with these
    std::int64_t tokens = 1;
  };
  std::vector<LongGap> long_gaps;
};

enum class Mode { whole, prefill_only, decode_only };

// Simulates one replica over its requests (sorted by arrival; closed-loop clients start one
// request each at time 0 and send the next when one ends). Returns false past the step bound.
// The replicas of a pool share its step timers (and what they remember).
struct PoolTimers {
  StepTimer target;
  std::optional<StepTimer> draft;
  explicit PoolTimers(const Pool& pool) : target(pool.s) {
    if (pool.draft) draft.emplace(*pool.draft);
  }
};

bool simulate(const Pool& pool, PoolTimers& timers, const ServingSpec& sv, Mode mode,
              std::vector<Request>& reqs, std::int64_t clients, bool keep_timeline, ReplicaRun& run,
              std::int64_t step_budget) {
  StepTimer& timer = timers.target;
  std::optional<StepTimer>& draft_timer = timers.draft;
  // Loop invariants as locals (the compiler cannot keep fields behind references in registers
  // across the stores to requests).
  const std::int64_t spec_k = pool.spec_k;
  const double capacity = pool.kv_capacity;
  // A decoding sequence's query tokens per step: its next token, or the k drafts and the token
  // after them when the target verifies a speculation (they count against the token budget and
  // claim KV slots ahead, as vLLM's lookahead slots do).
  const std::int64_t decode_step_tokens = 1 + spec_k;
  const bool first_token_ends = mode == Mode::prefill_only;
  std::vector<SeqGroup> draft_groups;
  const bool closed = clients > 0;
  std::size_t next = 0;  // next request not yet arrived (closed: not yet sent)
  std::int64_t in_flight = 0;
  double t = 0, used = 0;
  std::deque<std::size_t> waiting;
  std::vector<std::size_t> running;
  std::vector<SeqGroup> groups;
  std::vector<std::size_t> first_tokens;  // requests whose first token lands this step
  const auto arrive_time = [&](const Request& r) { return mode == Mode::decode_only ? r.ready : r.arrival; };
  // Prefill-only pools finish a request at its first token.
  const auto is_done = [&](const Request& r) { return r.generated >= (first_token_ends ? 1 : r.output); };
  if (closed) {
    for (; next < reqs.size() && in_flight < clients; ++next, ++in_flight) {
      reqs[next].arrival = 0;
      waiting.push_back(next);
    }
  }
  const auto finish = [&](std::size_t i) {
    Request& r = reqs[i];
    r.done = t;
    used -= r.kv_bytes;
    r.kv_bytes = 0;
    r.claimed = 0;
    if (closed && next < reqs.size()) {
      reqs[next].arrival = t;
      waiting.push_back(next++);
    }
  };
  // A request that got a token the step before and gets none in this one: its last token came at
  // t, which the gap to its next token starts from.
  std::int64_t step_no = 0;  // this step's index (run.steps, as a local: see above)
  const auto pause = [&](Request& r) {
    if (r.last_step == step_no - 1) r.last_time = t;
  };
  const auto preempt = [&](std::size_t i) {
    Request& r = reqs[i];
    pause(r);
    used -= r.kv_bytes;
    r.kv_bytes = 0;
    r.claimed = 0;
    r.kv = 0;
    r.target = r.input + r.generated;  // recompute the prompt and what was generated
    ++run.preemptions;
  };
  // Claims blocks for `tokens` tokens of a request's context (claims only grow).
  const auto claim = [&](Request& r, std::int64_t tokens) {
    if (tokens <= r.claimed) return;
    const double need = pool.bytes_for(tokens);
    used += need - r.kv_bytes;
    r.kv_bytes = need;
    r.claimed = pool.covered(tokens);
  };
  // A request scheduled in a step: its part of the step's groups (all decoding sequences as one
  // group at their mean context, since decode attention reads the whole cache, linear in the
  // summed context; one group per prompt chunk), and its tokens, which land at the end of the
  // step. Nothing between scheduling and the step's end reads a scheduled request (preemption
  // only takes requests not yet scheduled), so they land here; only the time of a first token
  // waits for the step's duration. Noted on the way: whether any request is done (the retiring
  // pass runs only then) and the fewest tokens any has left to generate.
  std::int64_t decode_n = 0, decode_ctx = 0, prefill_tokens = 0, scheduled = 0;
  // Tokens this step that follow a token of the step before (each such gap is the step), and the
  // others (after a pause, or a speculation's several), with where their gap starts.
  std::int64_t regular_gaps = 0;
  struct Emitted {
    std::int64_t tokens, from_step;
    double from_time;
  };
  std::vector<Emitted> other_gaps;
  const auto emitted = [&](Request & r, std::int64_t n) __attribute__((always_inline)) {
    if (n == 1 && r.last_step == step_no - 1) {
      ++regular_gaps;
    } else if (n > 0) {
      other_gaps.push_back({n, r.last_step, r.last_step == step_no - 1 ? t : r.last_time});
    } else {
      pause(r);
      return;
    }
    r.last_step = step_no;
  };
  bool any_done = false;
  std::int64_t fewest_left = 0;
  // (Inlined into both loops that schedule: called for every running request every step.)
  const auto schedule = [&](std::size_t i, std::int64_t tokens, bool prefill) __attribute__((always_inline)) {
    ++scheduled;
    Request& r = reqs[i];
    if (prefill) {
      groups.push_back({1, tokens, r.kv + tokens});
      prefill_tokens += tokens;
    } else {
      ++decode_n;
      decode_ctx += r.kv + 1;
    }
    if (prefill || spec_k == 0) {
      r.kv += prefill ? tokens : 1;
      if (!prefill || r.kv >= r.target) {  // else more chunks to come
        ++r.generated;
        if (r.first_token < 0) {
          first_tokens.push_back(i);
          r.last_step = step_no;
        } else {
          emitted(r, 1);
        }
      }
    } else {
      // A verified speculation: the expected tokens per step, emitted whole (the remainder
      // carried to the next step, so a request's total follows the mean exactly).
      r.credit += pool.spec_gain;
      const auto n = std::min(static_cast<std::int64_t>(std::floor(r.credit)), r.output - r.generated);
      r.credit -= std::floor(r.credit);
      r.kv += n;
      r.generated += n;
      emitted(r, n);
    }
    any_done = any_done || is_done(r);
    fewest_left = std::min(fewest_left, r.output - r.generated);
  };
  while (true) {
    if (!closed)
      for (; next < reqs.size() && arrive_time(reqs[next]) <= t; ++next)
        // A disaggregated decode pool receives requests whose only token came with the prefill.
        if (!(mode == Mode::decode_only && reqs[next].generated >= reqs[next].output))
          waiting.push_back(next);
    if (running.empty() && waiting.empty()) {
      if (closed || next >= reqs.size()) break;
      t = arrive_time(reqs[next]);
      continue;
    }
    if (run.steps >= step_budget) return false;
    // Running requests first, in admission order.
    std::int64_t budget = sv.max_num_tokens;
    scheduled = 0;
    step_no = run.steps;
    regular_gaps = 0;
    other_gaps.clear();
    first_tokens.clear();
    any_done = false;
    fewest_left = std::numeric_limits<std::int64_t>::max();
    groups.clear();
    decode_n = decode_ctx = prefill_tokens = 0;
    for (std::size_t k = 0; k < running.size(); ++k) {
      const std::size_t i = running[k];
      Request& r = reqs[i];
      const bool prefill = r.kv < r.target;
      const std::int64_t tokens = prefill ? std::min(r.target - r.kv, budget) : decode_step_tokens;
      if (tokens <= 0 || tokens > budget) {
        pause(r);
        continue;
      }
      // Claims only grow (a reserved request already holds its whole context).
      const std::int64_t upto = r.kv + tokens;
      const double need = upto <= r.claimed ? r.kv_bytes : std::max(r.kv_bytes, pool.bytes_for(upto));
      bool self = false;
      while (used - r.kv_bytes + need > capacity) {
        // Preempt the newest running request not yet scheduled this step (possibly this one).
        const std::size_t victim = running.back();
        preempt(victim);
        running.pop_back();
        waiting.push_front(victim);
        if (victim == i) {
          self = true;
          break;
        }
      }
      if (self) break;
      claim(r, upto);
      schedule(i, tokens, prefill);
      budget -= tokens;
    }
    // Then waiting requests, first come first served.
    while (!waiting.empty() && static_cast<std::int64_t>(running.size()) < sv.max_batch && budget > 0) {
      const std::size_t i = waiting.front();
      Request& r = reqs[i];
      const std::int64_t tokens = std::min(r.target - r.kv, budget);
      const bool prefill = tokens > 0;
      const std::int64_t now = r.kv + std::max<std::int64_t>(tokens, 1);
      const std::int64_t whole = mode == Mode::prefill_only ? r.target : r.input + r.output - 1;
      const std::int64_t claim_tokens = sv.kv_admission == KvAdmission::reserve ? std::max(now, whole) : now;
      const double need = pool.bytes_for(claim_tokens);
      if (used - r.kv_bytes + need > capacity) break;
      claim(r, claim_tokens);
      waiting.pop_front();
      running.push_back(i);
      schedule(i, prefill ? tokens : decode_step_tokens, prefill);
      budget -= prefill ? tokens : decode_step_tokens;
    }
    if (scheduled == 0) {
      // Nothing fits and nothing runs: the first waiting request needs more KV than the
      // replica has (checked before the run) or the budget is spent: advance to an arrival.
      if (!closed && next < reqs.size()) {
        t = std::max(t, arrive_time(reqs[next]));
        continue;
      }
      return false;
    }
    const std::int64_t decode_mean =
        decode_n > 0 ? std::max<std::int64_t>(1, (decode_ctx + decode_n / 2) / decode_n) : 0;
    if (decode_n > 0) groups.push_back({decode_n, decode_step_tokens, decode_mean + spec_k});
    // The scheduler's own host time between steps (ServingSpec::step_overhead_s) and its
    // per-request part (step_overhead_per_request_s, every scheduled request), GPU idle.
    const double host_s = sv.step_overhead_s + sv.step_overhead_per_request_s * d(scheduled);
    // With an overlap scheduler (ServingSpec::overlap_schedule) the host's work for this step ran
    // while the GPU ran the step before: the longer of the two sets the pace.
    const auto with_host = [&](double gpu) {
      return sv.overlap_schedule ? std::max(gpu, host_s) : gpu + host_s;
    };
    double dt = with_host(timer(groups).value);
    if (draft_timer) {
      // The draft reads the step's prompt chunks and drafts the first token for every decoding
      // sequence in one pass, then k - 1 more passes of one token each.
      draft_groups.assign(groups.begin(), groups.end() - (decode_n > 0 ? 1 : 0));
      if (decode_n > 0) draft_groups.push_back({decode_n, 1, decode_mean});
      dt += (*draft_timer)(draft_groups).value;
      if (decode_n > 0 && spec_k > 1) {
        draft_groups.assign(1, SeqGroup{decode_n, 1, decode_mean});
        dt += (*draft_timer)(draft_groups).value * d(spec_k - 1);
      }
    }
    t += dt;
    if (run.record_steps) {
      run.spans.push_back({1, dt, 0.0, d(regular_gaps)});
      run.span_ends.push_back(t);
      for (const Emitted& e : other_gaps) run.long_gaps.push_back({e.from_step, run.steps, e.tokens});
    } else if (run.gaps) {
      run.gaps->add(dt, d(regular_gaps));
      for (const Emitted& e : other_gaps) run.gaps->add((t - e.from_time) / d(e.tokens), d(e.tokens));
    }
    ++run.steps;
    run.busy_batch += d(scheduled) * dt;
    run.busy_kv += used / capacity * dt;
    run.busy_time += dt;
    for (std::size_t i : first_tokens) reqs[i].first_token = t;
    // Decode-only stretches: while every running sequence decodes, nothing can be admitted and
    // nobody finishes, consecutive steps differ only in their contexts (one token longer each)
    // and their time is affine in the mean context (the KV read of decode attention), so k steps
    // cost k times the mean of the first and last (trapezoid, exact for an affine time).
    // (A request that just finished ends any stretch before it starts.)
    if (prefill_tokens == 0 && mode != Mode::prefill_only &&
        scheduled == static_cast<std::int64_t>(running.size()) && !draft_timer && !any_done) {
      // Waiting requests stay out until a completion when the batch is full or the first of them
      // does not fit the free KV blocks (which only shrink while sequences grow).
      bool blocked = waiting.empty() || static_cast<std::int64_t>(running.size()) >= sv.max_batch;
      if (!blocked) {
        const Request& r = reqs[waiting.front()];
        const std::int64_t whole =
            std::max(r.kv + 1, sv.kv_admission == KvAdmission::reserve ? r.input + r.output - 1 : 0);
        blocked = used + pool.bytes_for(
                             std::max<std::int64_t>(whole, std::min(r.target, r.kv + sv.max_num_tokens))) >
                  capacity;
      }
      // Every running request was scheduled: the fewest tokens left is over all of them.
      std::int64_t extra = std::min(fewest_left, step_budget - run.steps);
      double next_arrival = std::numeric_limits<double>::infinity();
      if (!closed && next < reqs.size()) next_arrival = arrive_time(reqs[next]);
      if (!blocked) extra = 0;
      if (extra >= 2 && sv.kv_admission == KvAdmission::on_demand) {
        double grow = 0;
        for (std::size_t i : running) grow += pool.bytes_for(reqs[i].kv + extra) - reqs[i].kv_bytes;
        if (used + grow > capacity) extra = 0;
      }
      if (extra >= 2) {
        const SeqGroup first = groups.back();
        groups.back().kv_len = first.kv_len + extra;
        const double last = with_host(timer(groups).value);  // the same host time as dt's
        const double slope = (last - dt) / d(extra);
        // Stop where the next arrival joins: at the first step that starts at or after it, as the
        // step-by-step loop admits it. Stretch step j (j = 1, 2, ...) takes dt + slope j, so the
        // first i of them take C(i) = i dt + slope i (i + 1) / 2 and step j starts at t + C(j - 1);
        // the stretch keeps the steps that start before the arrival.
        if (next_arrival <= t) {
          extra = 0;
        } else if (t + d(extra) * dt + slope * d(extra) * d(extra + 1) / 2.0 > next_arrival) {
          const double gap = next_arrival - t;
          const auto elapsed = [&](std::int64_t i) { return d(i) * dt + slope * d(i) * d(i + 1) / 2.0; };
          std::int64_t lo = 0, hi = extra;  // elapsed(lo) < gap <= elapsed(hi)
          while (hi - lo > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            (elapsed(mid) < gap ? lo : hi) = mid;
          }
          extra = lo + 1;
        }
        if (extra >= 1) {
          const double end = dt + slope * d(extra);
          const double total = d(extra) * (dt + end) / 2.0 + (end - dt) / 2.0;
          t += total;
          run.steps += extra;
          const double batch = d(static_cast<std::int64_t>(running.size()));
          if (run.record_steps) {
            run.spans.push_back({extra, dt + slope, slope, batch});
            run.span_ends.push_back(t);
          } else if (run.gaps) {
            // Step j of the stretch takes dt + slope j: evenly spread, as many at each.
            run.gaps->add_even(dt + slope * 0.5, dt + slope * (d(extra) + 0.5), batch * d(extra));
          }
          run.busy_batch += d(static_cast<std::int64_t>(running.size())) * total;
          run.busy_kv += used / capacity * total;
          run.busy_time += total;
          const std::int64_t last_step = run.steps - 1;
          for (std::size_t i : running) {
            Request& r = reqs[i];
            r.kv += extra;
            r.generated += extra;
            r.last_step = last_step;
            if (sv.kv_admission == KvAdmission::on_demand) claim(r, r.kv);
            any_done = any_done || is_done(r);
          }
        }
      }
    }
    // Retire finished requests, in admission order.
    if (any_done) {
      std::size_t w = 0;
      for (std::size_t k = 0; k < running.size(); ++k) {
        const std::size_t i = running[k];
        if (is_done(reqs[i]))
          finish(i);
        else
          running[w++] = i;
      }
      running.resize(w);
    }
    if (keep_timeline && (run.steps - 1) % run.sample_every == 0) {
      run.timeline.push_back({t, dt, static_cast<std::int64_t>(running.size()),
                              static_cast<std::int64_t>(waiting.size()), prefill_tokens, decode_n,
                              used / capacity});
      if (run.timeline.size() >= 256) {  // keep every other sample, sample half as often
        std::size_t k = 0;
        for (std::size_t j = 0; j < run.timeline.size(); j += 2) run.timeline[k++] = run.timeline[j];
        run.timeline.resize(k);
        run.sample_every *= 2;
      }
    }
  }
  return true;
}

// A replica's inter-token gaps on `clock` (entry j: the end of step j - 1): each step's regular
// gaps last the step, the others from the end of the step with the previous token.
void clock_gaps(const ReplicaRun& run, const std::vector<double>& clock) {
  if (!run.gaps) return;
  std::size_t j = 0;
  for (const StepSpan& span : run.spans)
    for (std::int64_t k = 0; k < span.steps; ++k, ++j) run.gaps->add(clock[j + 1] - clock[j], span.gaps);
  for (const ReplicaRun::LongGap& g : run.long_gaps) {
    const double from = clock[static_cast<std::size_t>(std::max<std::int64_t>(g.from, -1) + 1)];
    run.gaps->add((clock[static_cast<std::size_t>(g.to + 1)] - from) / d(g.tokens), d(g.tokens));
  }
}

// Attention data parallelism (tp 1, the experts over ep of the dp ranks): the ranks of an
// expert-parallel group meet in every MoE layer's dispatch and combine, so they step together and
// a step takes as long as its slowest rank's (TensorRT-LLM tech blog 10, "ADP Balance Strategy":
// time_i = max over ranks m of time_{i,m}; a rank that prefills a prompt while the others decode
// holds them all; with its round-robin assignment DeepSeek-V3 on 8 GB200 ran at a balance ratio of
// 54%). Each rank schedules its own requests as simulate() does; with offline or closed-loop
// arrivals its choices depend on its steps, not on the clock, so the group's clock is exact: step
// j of every rank ends at the sum over steps 0..j of the slowest rank's time (a rank that has
// finished waits). Every request's first-token and end times, and the chart's samples, move to
// that clock. `runs[k]` is replica `reps[k]`; a group is ep consecutive replicas (the ep ranks
// are placed next to each other at tp 1, pp 1).
void lockstep(std::vector<ReplicaRun*>& runs, const std::vector<std::int64_t>& reps, std::int64_t replicas,
              std::int64_t ep, std::vector<Request>& all) {
  for (std::int64_t g = 0; g * ep < replicas; ++g) {
    std::vector<ReplicaRun*> group;
    std::vector<std::int64_t> members;
    std::vector<const std::vector<StepSpan>*> spans;
    for (std::size_t k = 0; k < runs.size(); ++k)
      if (reps[k] / ep == g) {
        group.push_back(runs[k]);
        members.push_back(reps[k]);
        spans.push_back(&runs[k]->spans);
      }
    const std::vector<double> clock = lockstep_clock(spans);
    for (const ReplicaRun* run : group) clock_gaps(*run, clock);
    if (group.size() < 2) continue;  // its own clock: nothing moves
    for (std::size_t m = 0; m < group.size(); ++m) {
      const std::vector<double>& ends = group[m]->span_ends;
      if (ends.empty()) continue;
      std::vector<std::int64_t> steps;  // the replica's steps by the end of each span
      std::int64_t n = 0;
      for (const StepSpan& span : group[m]->spans) steps.push_back(n += span.steps);
      // Events land at the end of a step (a first token, a request's end, a closed-loop client's
      // next request, a chart sample): the step that ended at `local` on the replica's own clock.
      const auto span_at = [&](double local) {
        const auto it = std::lower_bound(ends.begin(), ends.end(), local);
        return it == ends.end() ? ends.size() - 1 : static_cast<std::size_t>(it - ends.begin());
      };
      const auto common = [&](double local) {
        return local <= 0 ? 0.0 : clock[static_cast<std::size_t>(steps[span_at(local)])];
      };
      for (auto i = static_cast<std::size_t>(members[m]); i < all.size();
           i += static_cast<std::size_t>(replicas)) {
        Request& r = all[i];
        r.arrival = common(r.arrival);
        if (r.first_token >= 0) r.first_token = common(r.first_token);
        if (r.done >= 0) r.done = common(r.done);
      }
      // A sample's step time is its iteration's first step (a decode stretch's steps follow it).
      for (ServingStepSample& sample : group[m]->timeline) {
        const std::size_t k = span_at(sample.t_s);
        const auto first = static_cast<std::size_t>(
            group[m]->spans[k].steps > 1 && k > 0 ? steps[k - 1] : steps[k] - group[m]->spans[k].steps + 1);
        sample.t_s = clock[static_cast<std::size_t>(steps[k])];
        sample.step_s = clock[first] - clock[first - 1];
      }
    }
  }
}

// The requests of the whole deployment: lengths and (poisson) arrival times from the seed.
std::vector<Request> make_requests(const ServingSpec& sv) {
  Rng rng{sv.seed};
  const LengthSampler input(sv.input_len), output(sv.output_len);
  std::vector<Request> out(static_cast<std::size_t>(sv.num_requests));
  double t = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    Request& r = out[i];
    r.id = i;
    r.input = input(rng);
    r.output = output(rng);
    if (sv.arrival == Arrival::poisson) {
      t += -portable_log(rng.uniform()) / sv.requests_per_s;  // exponential gaps (a Poisson process)
      r.arrival = t;
    }
    r.target = r.input;
  }
  return out;
}

Error kv_error(const Pool& pool, std::int64_t tokens, const char* role) {
  return make_error("serving.kv_insufficient", "/inference/serving/gpu_memory_utilization",
                    std::string("the KV budget of a ") + role + " replica (" +
                        gib(std::max(0.0, pool.kv_capacity)) +
                        " per device after weights and the prefill workspace) holds no request of " +
                        std::to_string(tokens) + " tokens (" + gib(pool.bytes_for(tokens)) +
                        "); raise gpu_memory_utilization, shorten the requests or spread the model "
                        "over more devices (tp, pp)");
}

}  // namespace

std::optional<Error> check_serving(const Scenario& s) {
  const ServingSpec& sv = *s.inference->serving;
  const bool disaggregated = sv.prefill && sv.decode;
  const std::int64_t longest = sv.input_len.largest() + sv.output_len.largest() - 1;
  // A run that cannot take fewer steps than the bound is refused before it starts: every step
  // produces at most max_batch tokens per replica.
  const double replicas_total = d(disaggregated ? sv.decode->replicas : s.parallel.dp);
  const std::int64_t per_step = 1 + (s.inference->speculative ? s.inference->speculative->draft_tokens : 0);
  // A verification of k drafts takes k + 1 tokens of the step's budget.
  if (sv.max_num_tokens < per_step)
    return make_error("serving.budget_below_speculation", "/inference/serving/max_num_tokens",
                      "max_num_tokens (" + std::to_string(sv.max_num_tokens) +
                          ") is smaller than one speculative verification (draft_tokens + 1 = " +
                          std::to_string(per_step) + " tokens per sequence)");
  const double fewest_steps =
      d(sv.num_requests) * sv.output_len.expected() / (d(sv.max_batch * per_step) * replicas_total);
  if (fewest_steps > d(kMaxServingSteps))
    return make_error("serving.too_many_steps", "/inference/serving/num_requests",
                      "the simulation would take at least " +
                          std::to_string(static_cast<std::int64_t>(fewest_steps)) +
                          " scheduler steps (more than " + std::to_string(kMaxServingSteps) +
                          "); simulate fewer requests or shorter outputs");
  if (!disaggregated) {
    auto pool = make_pool(s, s.parallel.tp, s.parallel.pp, s.parallel.dp, 0, "");
    if (!pool) return pool.error();
    if (pool->bytes_for(longest) > pool->kv_capacity) return kv_error(*pool, longest, "serving");
    return std::nullopt;
  }
  auto pre = make_pool(s, sv.prefill->tp, sv.prefill->pp, sv.prefill->replicas, sv.prefill->ep,
                       "/inference/serving/disaggregated/prefill", &*sv.prefill);
  if (!pre) return pre.error();
  auto dec = make_pool(s, sv.decode->tp, sv.decode->pp, sv.decode->replicas, sv.decode->ep,
                       "/inference/serving/disaggregated/decode", &*sv.decode);
  if (!dec) return dec.error();
  // A pool's own token budget must hold one speculative verification where the pool drafts.
  for (const auto* pool : {&*pre, &*dec}) {
    const std::int64_t need = 1 + pool->spec_k;
    if (pool->sched.max_num_tokens < need)
      return make_error("serving.budget_below_speculation",
                        std::string("/inference/serving/disaggregated/") +
                            (pool == &*pre ? "prefill" : "decode") + "/max_num_tokens",
                        "the pool's max_num_tokens (" + std::to_string(pool->sched.max_num_tokens) +
                            ") is smaller than one speculative verification (draft_tokens + 1 = " +
                            std::to_string(need) + " tokens per sequence)");
  }
  if (pre->bytes_for(sv.input_len.largest()) > pre->kv_capacity)
    return kv_error(*pre, sv.input_len.largest(), "prefill");
  if (dec->bytes_for(longest) > dec->kv_capacity) return kv_error(*dec, longest, "decode");
  return std::nullopt;
}

std::vector<double> lockstep_clock(const std::vector<const std::vector<StepSpan>*>& replicas) {
  std::int64_t longest = 0;
  for (const auto* spans : replicas) {
    std::int64_t n = 0;
    for (const StepSpan& span : *spans) n += span.steps;
    longest = std::max(longest, n);
  }
  std::vector<double> clock(static_cast<std::size_t>(longest) + 1, 0.0);
  std::vector<std::size_t> at(replicas.size(), 0);     // each replica's current span
  std::vector<std::int64_t> into(replicas.size(), 0);  // and its step within it
  for (std::size_t j = 0; j < static_cast<std::size_t>(longest); ++j) {
    double slowest = 0;
    for (std::size_t m = 0; m < replicas.size(); ++m) {
      const std::vector<StepSpan>& spans = *replicas[m];
      if (at[m] >= spans.size()) continue;  // finished: it waits
      const StepSpan& span = spans[at[m]];
      slowest = std::max(slowest, span.first + span.slope * d(into[m]));
      if (++into[m] >= span.steps) {
        ++at[m];
        into[m] = 0;
      }
    }
    clock[j + 1] = clock[j] + slowest;
  }
  return clock;
}

Result<ServingPrediction> predict_serving(const Scenario& s, std::vector<Warning>& warnings) {
  const ServingSpec& sv = *s.inference->serving;
  const bool disaggregated = sv.prefill && sv.decode;
  ServingPrediction out;
  out.max_batch = sv.max_batch;
  out.max_num_tokens = sv.max_num_tokens;

  if (auto err = check_serving(s)) return *err;
  std::vector<Request> reqs = make_requests(sv);
  std::vector<ReplicaRun> runs;
  GapHistogram gaps;  // every inter-token gap of the deployment
  // spread: arrivals spread over time (set on the requests), whatever sv.arrival says.
  const auto run_pool = [&](const Pool& pool, Mode mode, std::vector<Request>& all, std::int64_t clients,
                            bool spread = false) -> std::optional<Error> {
    const std::int64_t replicas = pool.s.parallel.dp;
    std::int64_t budget = kMaxServingSteps;
    PoolTimers timers(pool);
    // Ranks of attention data parallelism step together (lockstep()). With arrivals spread over
    // time (a finite Poisson rate; a disaggregated decode pool, whose requests arrive when their
    // caches land) a rank's schedule would depend on the common clock, which ranks simulated one
    // by one do not see: those runs keep each rank's own clock (docs/method.md, Inference and serving).
    const bool at_once = !spread && (sv.arrival != Arrival::poisson || std::isinf(sv.requests_per_s));
    const bool together = attention_data_parallel(pool.s.parallel) && at_once && mode != Mode::decode_only;
    const std::size_t first_run = runs.size();
    std::vector<std::int64_t> reps;
    std::vector<Request> mine;  // one replica's requests (the buffer is reused)
    mine.reserve(all.size() / static_cast<std::size_t>(replicas) + 1);
    for (std::int64_t rep = 0; rep < replicas; ++rep) {
      // Round-robin load balancing: replica r takes requests r, r + replicas, ...
      mine.clear();
      for (std::size_t i = static_cast<std::size_t>(rep); i < all.size();
           i += static_cast<std::size_t>(replicas))
        mine.push_back(all[i]);
      if (mode == Mode::decode_only)
        std::stable_sort(mine.begin(), mine.end(),
                         [](const Request& a, const Request& b) { return a.ready < b.ready; });
      const std::int64_t c = clients > 0 ? clients / replicas + (rep < clients % replicas ? 1 : 0) : 0;
      if (clients > 0 && c == 0) continue;
      ReplicaRun run;
      run.record_steps = together;
      if (mode != Mode::prefill_only) run.gaps = &gaps;
      if (!simulate(pool, timers, pool.sched, mode, mine, c, rep == 0, run, budget))
        return make_error("serving.too_many_steps", "/inference/serving/num_requests",
                          "the simulation would take more than " + std::to_string(kMaxServingSteps) +
                              " scheduler steps; simulate fewer requests or shorter outputs");
      budget -= run.steps;
      for (const Request& r : mine) all[r.id] = r;  // back in the deployment's order
      runs.push_back(std::move(run));
      reps.push_back(rep);
    }
    if (together) {
      std::vector<ReplicaRun*> mine_runs;
      for (std::size_t k = first_run; k < runs.size(); ++k) mine_runs.push_back(&runs[k]);
      lockstep(mine_runs, reps, replicas, pool.s.parallel.ep * inference_expert_tp(pool.s.parallel), all);
      for (std::size_t k = first_run; k < runs.size(); ++k) {
        runs[k].spans = {};
        runs[k].span_ends = {};
        runs[k].long_gaps = {};
      }
    }
    return std::nullopt;
  };

  double devices = d(s.num_devices);
  if (!disaggregated) {
    auto pool = make_pool(s, s.parallel.tp, s.parallel.pp, s.parallel.dp, 0, "");
    if (!pool) return pool.error();
    out.kv_capacity_tokens =
        static_cast<std::int64_t>(std::max(0.0, pool->kv_capacity / pool->bytes_for(1) * d(pool->block)));
    const std::int64_t clients = sv.arrival == Arrival::closed ? sv.concurrency : 0;
    if (auto err = run_pool(*pool, Mode::whole, reqs, clients)) return *err;
    out.replicas = s.parallel.dp;
  } else {
    auto pre = make_pool(s, sv.prefill->tp, sv.prefill->pp, sv.prefill->replicas, sv.prefill->ep,
                         "/inference/serving/disaggregated/prefill", &*sv.prefill);
    if (!pre) return pre.error();
    auto dec = make_pool(s, sv.decode->tp, sv.decode->pp, sv.decode->replicas, sv.decode->ep,
                         "/inference/serving/disaggregated/decode", &*sv.decode);
    if (!dec) return dec.error();
    out.kv_capacity_tokens =
        static_cast<std::int64_t>(std::max(0.0, dec->kv_capacity / dec->bytes_for(1) * d(dec->block)));
    out.max_batch = dec->sched.max_batch;
    out.max_num_tokens = dec->sched.max_num_tokens;
    // Both pools over the request stream: the prefill pool gives each request its first token, its
    // cache moves to the decode pool, which generates the rest.
    const std::vector<Request> fresh = reqs;
    double transfer_sum = 0;
    const auto both_pools = [&](bool spread) -> std::optional<Error> {
      runs.clear();
      gaps = GapHistogram{};
      transfer_sum = 0;
      if (auto err = run_pool(*pre, Mode::prefill_only, reqs, 0, spread)) return err;
      // The prompt's KV moves from each prefill device to its decode counterpart over the
      // scale-out network (one NIC per device; NIXL/UCX-style transfers, Zhong et al. 2024
      // "DistServe" Sec. 4): the prefill device's share of the prompt's cache at link rate.
      const NetworkTier& net = s.system.scale_out;
      for (Request& r : reqs) {
        const double bytes = inference_kv_bytes(pre->s, d(r.input)).value;
        const double xfer = net.latency.value + bytes / (net.bandwidth.value * net.efficiency);
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
      return run_pool(*dec, Mode::decode_only, reqs, 0, spread);
    };
    if (sv.arrival != Arrival::closed) {
      if (auto err = both_pools(false)) return *err;
    } else {
      // A closed loop of C clients (benchmark_serving's --max-concurrency: request C + k is sent
      // when the k-th request ends, whichever client it was) over the two pools, which run at the
      // same time and are simulated one after the other: a fixed point of the arrival times. From
      // every request at once (the earliest any can come), each pass sends request C + k at the
      // k-th end of the pass before. The ends only move later when the arrivals do, so the passes
      // climb to the closed loop's arrivals; an end depends only on what arrived before it, so each
      // pass settles at least the next wave of C requests, and the loop stops where nothing moves.
      const std::size_t clients = static_cast<std::size_t>(sv.concurrency);
      std::vector<double> ends;
      for (int pass = 0;; ++pass) {
        if (auto err = both_pools(pass > 0)) return *err;
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
    }
    out.kv_transfer_s = reqs.empty() ? 0 : transfer_sum / d(static_cast<std::int64_t>(reqs.size()));
    devices = d(pre->s.num_devices + dec->s.num_devices);
    out.replicas = sv.prefill->replicas + sv.decode->replicas;
  }

  // Statistics over the completed requests.
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
  out.itl = gaps.stats();
  out.e2e = stats(e2e);
  if (sv.slo) {
    ServingSloReport r;
    r.ttft_s = sv.slo->ttft_s;
    r.tpot_s = sv.slo->tpot_s;
    r.percentile = sv.slo->percentile;
    r.ttft_at_percentile = percentile(ttft, r.percentile);
    r.tpot_at_percentile = percentile(tpot, r.percentile);
    r.itl_s = sv.slo->itl_s;
    r.itl_at_percentile = gaps.percentile(r.percentile);
    r.met = (r.ttft_s <= 0 || r.ttft_at_percentile <= r.ttft_s) &&
            (r.tpot_s <= 0 || r.tpot_at_percentile <= r.tpot_s) &&
            (r.itl_s <= 0 || r.itl_at_percentile <= r.itl_s);
    out.slo = r;
  }
  double batch = 0, kv = 0, busy = 0;
  for (const ReplicaRun& r : runs) {
    out.steps += r.steps;
    out.preemptions += r.preemptions;
    batch += r.busy_batch;
    kv += r.busy_kv;
    busy += r.busy_time;
  }
  out.mean_batch = busy > 0 ? batch / busy : 0;
  out.kv_utilisation = busy > 0 ? kv / busy : 0;
  // The chart follows the first replica (of the decode pool when disaggregated).
  if (!runs.empty())
    out.timeline =
        disaggregated ? runs[static_cast<std::size_t>(sv.prefill->replicas)].timeline : runs.front().timeline;
  return out;
}

}  // namespace optimus
