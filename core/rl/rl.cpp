// One RL post-training step composed of the engine's own predictions (issue 40). The step's
// structure follows the stacks' documented loops:
// - verl (Sheng et al. 2024, "HybridFlow: A Flexible and Efficient RLHF Framework", arXiv
//   2409.19256): generate -> reward -> reference / old log-prob forwards -> actor (and critic)
//   update -> weight resharding to the engine, on one pool (the hybrid engine) or on separate
//   pools; verl's one_step_off_policy and fully_async recipes overlap the rollout of step n + 1
//   with the update of step n on separate rollout and trainer GPUs.
// - OpenRLHF (Hu et al. 2024, arXiv 2405.11143): PPO with actor, critic, reference and reward
//   models, vLLM engines receiving the actor's weights by torch.distributed.broadcast of every
//   parameter from trainer rank 0 to all engine ranks (vllm-project/vllm issue 5723 quotes it).
// - AReaL (Fu et al. 2025, arXiv 2505.24298): asynchronous RL on disjoint rollout and trainer
//   GPUs, staleness bounded by eta versions.
// - NeMo-RL's weight synchronisers: an NCCL broadcast between separate clusters, IPC with
//   offload / restore phases when colocated (docs.nvidia.com/nemo/rl, nemo_rl.weight_sync).
// - vLLM sleep mode (docs.vllm.ai, features/sleep_mode): level 1 offloads the weights to host
//   memory and discards the KV cache, wake_up copies the weights back.
#include "rl/rl.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/math.h"
#include "base/units.h"
#include "base/words.h"
#include "cost/collective.h"
#include "memory/footprint.h"
#include "model/spec.h"
#include "parallel/plan.h"
#include "search/search.h"
#include "serving/serving.h"

namespace optimus {

namespace {

std::int64_t requests(const RlWorkload& rl) { return rl.prompts_per_step * rl.samples_per_prompt; }

std::int64_t rollout_pool(const Scenario& s) {
  return s.rl->placement == RlPlacement::split ? s.rl->rollout_devices : s.num_devices;
}
std::int64_t train_pool(const Scenario& s) {
  return s.rl->placement == RlPlacement::split ? s.rl->train_devices : s.num_devices;
}

// The rollout as an offline serving scenario on tp x pp x dp devices.
Scenario rollout_at(const Scenario& s, std::int64_t tp) {
  const RlWorkload& rl = *s.rl;
  Scenario ro = s;
  ro.rl.reset();
  ro.training.reset();
  ro.system.software = rl.rollout.software;
  ro.num_devices = rollout_pool(s);
  ParallelPlan p;
  p.tp = tp;
  p.pp = rl.rollout.pp;
  p.ep = rl.rollout.ep > 0 ? rl.rollout.ep : 1;
  p.dp = rl.rollout.dp > 0 ? rl.rollout.dp : std::max<std::int64_t>(1, ro.num_devices / (tp * p.pp));
  p.sequence_parallel = false;
  ro.parallel = p;
  InferenceWorkload w;
  w.batch = 1;
  w.prompt_len = std::max<std::int64_t>(1, std::llround(rl.prompt_len.expected()));
  w.output_len = std::max<std::int64_t>(1, std::llround(rl.response_len.expected()));
  w.precision = rl.rollout.precision;
  // vLLM's kv_cache_dtype "auto" keeps the cache at the model's 16-bit dtype under quantised
  // weights (docs.vllm.ai, Engine Arguments).
  const bool sixteen =
      w.precision == Precision::bf16 || w.precision == Precision::fp16 || w.precision == Precision::fp32;
  w.kv_precision = sixteen ? w.precision : Precision::bf16;
  w.cuda_graphs = rl.rollout.cuda_graphs;
  w.speculative = rl.rollout.speculative;
  ServingSpec sv = rl.rollout.scheduler;
  // The engine's device-sized defaults (ServingSpec::sizing) at this tp; the rollout block states
  // no step budget, and a cuda_graph_max_batch it states has left the rules (io, read_rollout).
  size_serving(sv, s.system, p);
  sv.arrival = Arrival::offline;  // every prompt of the step is handed over at once
  sv.num_requests = requests(rl);
  // The samples of a prompt are served by one engine and share its prompt's blocks and prefill.
  sv.prompt_group = rl.rollout.prefix_caching ? rl.samples_per_prompt : 1;
  sv.input_len = rl.prompt_len;
  sv.output_len = rl.response_len;
  sv.slo.reset();
  sv.prefill.reset();
  sv.decode.reset();
  sv.gap_distribution = false;  // the rollout block reports no inter-token percentiles
  w.serving = sv;
  ro.inference = w;
  return ro;
}

// The error at /rl/rollout for a layout that does not run the model.
Error rollout_error(const Error& e) {
  Error out = e;
  out.path = "/rl/rollout";
  if (e.code == "serving.kv_insufficient" || e.code == "memory.does_not_fit")
    out.code = "rl.rollout_does_not_fit";
  else if (e.code.rfind("parallel.", 0) == 0)
    out.code = "rl.rollout_layout_invalid";
  out.message = "rollout engine: " + e.message;
  // The simulation's bound, met by a very large step: what an RL planner can change instead.
  if (e.code == "serving.too_many_steps")
    out.message +=
        " (for an RL step: fewer prompts_per_step or samples_per_prompt, then scale; once "
        "the engines run full batches a rollout's time grows about in proportion to its "
        "responses)";
  return out;
}

// Forward-only time of a training step's passes: the step less its optimizer, gradient reduction
// and recomputation, scaled by the forward's share of a micro-batch's forward + backward through
// the busiest stage (the backward of a matmul is twice its forward: Narayanan et al. 2021, Sec. 5.1).
double forward_only(const TrainingPrediction& t) {
  const TrainingBreakdown& b = t.breakdown;
  const double body = (t.iteration_time - b.optimizer - b.dp_comm - b.recompute).value;
  const double f = t.stage_forward.value, bw = t.stage_backward.value;
  if (!(f + bw > 0)) return std::max(0.0, body) / 3.0;
  return std::max(0.0, body) * f / (f + bw);
}

// The truncated exponential's unnormalised density at x (serving/request.cpp draws from it), taken
// from the end where it is largest so that the exponent is never positive.
double truncated_exponential_weight(const LengthDist& l, double x) {
  const double anchor = l.rate >= 0 ? d(l.min) : d(l.max);
  return portable_exp(-l.rate * (x - anchor));
}

// E[X^2] of a length distribution: over its weighted points, or for the truncated exponential
// on [min, max] (serving/request.cpp draws it) by Simpson's rule over 2,000 intervals of
// x^2 e^(-rate x), shifted so that the exponent is never positive.
double second_moment(const LengthDist& l) {
  if (l.uniform) {
    // Every whole length of [min, max] equally likely: variance ((max - min + 1)^2 - 1) / 12.
    const double n = d(l.max - l.min + 1), mid = 0.5 * d(l.min + l.max);
    return (n * n - 1.0) / 12.0 + mid * mid;
  }
  if (!l.shaped) {
    double sum = 0, weight = 0;
    for (const auto& [len, w] : l.points) {
      sum += d(len) * d(len) * w;
      weight += w;
    }
    return weight > 0 ? sum / weight : 0;
  }
  // The last two distributions' moments, remembered: a placement search asks again for every
  // layout it times, of the step's two distributions, and the sum is 2,001 exponentials.
  struct Memo {
    std::int64_t min = -1, max = -1;
    double rate = 0, m2 = 0;
  };
  thread_local std::array<Memo, 2> memo{};
  thread_local std::size_t next = 0;
  for (const Memo& m : memo)
    if (m.min == l.min && m.max == l.max && m.rate == l.rate) return m.m2;
  const double a = d(l.min), b = d(l.max);
  constexpr int kIntervals = 2000;
  const double h = (b - a) / kIntervals;
  double mass = 0, m2 = 0;
  for (int i = 0; i <= kIntervals; ++i) {
    const double x = a + h * i;
    const double w = (i == 0 || i == kIntervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    const double f = w * truncated_exponential_weight(l, x);
    mass += f;
    m2 += f * x * x;
  }
  const double out = mass > 0 ? m2 / mass : l.mean * l.mean;
  memo[next] = {l.min, l.max, l.rate, out};
  next = 1 - next;
  return out;
}

// A length distribution as weighted points (weights summing to 1): its own points; a uniform range
// or the truncated exponential as at most `cells` cells of equal width over its whole lengths,
// each at its centre, weighted equally or by the density there (as second_moment integrates it).
std::vector<std::pair<double, double>> as_points(const LengthDist& l, int cells) {
  std::vector<std::pair<double, double>> out;
  if (l.uniform || l.shaped) {
    const double a = d(l.min), b = d(l.max);
    const double n = std::min(d(cells), b - a + 1.0);
    const double width = (b - a + 1.0) / n;
    for (int i = 0; i < static_cast<int>(n); ++i) {
      const double x = a - 0.5 + width * (i + 0.5);
      out.emplace_back(x, l.shaped ? truncated_exponential_weight(l, x) : 1.0);
    }
  } else {
    for (const auto& [len, w] : l.points)
      if (w > 0) out.emplace_back(d(len), w);
  }
  double total = 0;
  for (const auto& pw : out) total += pw.second;
  for (auto& pw : out) pw.second = total > 0 ? pw.second / total : 0;
  return out;
}

// The expected longest prompt + response among n sequences drawn independently: the joint
// distribution of the two (128 cells each) binned into 1,024 cells of equal width over the sums'
// range, each at the mean of its sums; then E[max] = sum of x (F(x)^n - F(x-)^n), F the
// cumulative share up to each cell (the largest of n draws is at most x with probability F(x)^n).
double expected_longest_sequence(const LengthDist& prompt, const LengthDist& response, std::int64_t n) {
  const auto ps = as_points(prompt, 128), rs = as_points(response, 128);
  if (ps.empty() || rs.empty()) return prompt.expected() + response.expected();
  // The sums' range (a weights list need not be in ascending order).
  const auto first = [](const auto& a, const auto& b) { return a.first < b.first; };
  const auto [p_lo, p_hi] = std::minmax_element(ps.begin(), ps.end(), first);
  const auto [r_lo, r_hi] = std::minmax_element(rs.begin(), rs.end(), first);
  const double lo = p_lo->first + r_lo->first, hi = p_hi->first + r_hi->first;
  constexpr int kCells = 1024;
  std::array<double, kCells> mass{}, moment{};
  const double width = hi > lo ? (hi - lo) / kCells : 1.0;
  for (const auto& [p, wp] : ps)
    for (const auto& [r, wr] : rs) {
      const int i = std::clamp(static_cast<int>((p + r - lo) / width), 0, kCells - 1);
      mass[i] += wp * wr;
      moment[i] += wp * wr * (p + r);
    }
  double cumulative = 0, below = 0, e = 0;
  for (int i = 0; i < kCells; ++i) {
    if (!(mass[i] > 0)) continue;
    cumulative = std::min(1.0, cumulative + mass[i]);
    const double at = portable_exp(d(n) * portable_log(cumulative));
    e += moment[i] / mass[i] * (at - below);
    below = at;
  }
  return e;
}

// The expected largest of n independent standard normal draws, by Blom's order-statistic
// approximation (Blom 1958, "Statistical Estimates and Transformed Beta-Variables": the i-th of n
// at the normal quantile of (i - 0.375) / (n + 0.25)): Phi^-1((n - 0.375) / (n + 0.25)). Exactly 0
// for one draw; against the exact expectation (the integral of x n Phi^(n-1) phi) 0.589 for
// 0.564 at n = 2, 1.434 for 1.424 at 8, 2.067 for 2.070 at 32, 2.815 for 2.827 at 256. The
// quantile by Abramowitz and Stegun 26.2.23 (|error| < 4.5e-4).
double expected_max_standard_normal(std::int64_t n) {
  if (n <= 1) return 0.0;
  const double q = 1.0 - (d(n) - 0.375) / (d(n) + 0.25);  // upper tail, below 0.5
  const double t = std::sqrt(-2.0 * portable_log(q));
  return t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
                 (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
}

}  // namespace

// The data-parallel straggler of the update: how much more work the heaviest data-parallel rank
// of an optimizer step has than the mean rank, as a share of the mean, averaged over the step's
// mini-batches. verl balances the ranks by token count over the whole step
// (ray_trainer._balance_batch: seqlen_balancing.get_seqlen_balanced_partitions, Karmarkar-Karp
// into equal-sized partitions, each returned sorted by sample index), but each rank then splits
// its share into mini-batches in that index order (dp_actor.update_policy: data.split of
// ppo_mini_batch_size), so a mini-batch's n = responses / (mini_batches x dp) sequences on a rank
// are a draw of the step's lengths, not a balanced one; every rank runs the same number of
// micro-batches (rearrange_micro_batches all-reduces their count with MAX) and the optimizer
// step waits for the last. A rank's tokens are then the sum of n draws of prompt + response
// length L: mean n E[L], standard deviation sqrt(n Var L) (the central limit theorem), and the
// heaviest of dp ranks expects n E[L] + z_dp sqrt(n Var L) (z: expected_max_standard_normal):
// a share z_dp CV(L) / sqrt(n), with CV = sqrt(Var L) / E[L]. Exactly zero for fixed lengths
// or one rank; it vanishes as the responses per rank grow. When the step's longest response is
// cut at the limit (LengthDist::longest_at_max), the mini-batch that holds it waits for at least
// its rank: that response plus n - 1 mean ones (the largest item over the mean load: Graham
// 1969's bound for greedy partitioning); that one mini-batch's share is the larger of the two.
// Tokens, not attention's squared lengths: verl balances tokens (attention_mask sums). The
// forward passes (old log-probs, reference, reward) take a rank's whole balanced share of the
// step and have no straggler here.
RlOffload effective_offload(const RlWorkload& rl, const ParallelPlan& trainer) {
  return rl.offload == RlOffload::none && trainer.optimizer_offload ? RlOffload::cpu_optimizer : rl.offload;
}

double rl_straggler_share(const RlWorkload& rl, std::int64_t dp) {
  if (dp <= 1) return 0.0;
  const double p1 = rl.prompt_len.expected(), r1 = rl.response_len.expected();
  const double mean = p1 + r1;
  const double var = std::max(0.0, second_moment(rl.prompt_len) - p1 * p1) +
                     std::max(0.0, second_moment(rl.response_len) - r1 * r1);
  if (!(mean > 0) || !(var > 0)) return 0.0;
  const double mb = d(std::max<std::int64_t>(1, rl.mini_batches));
  const double n = std::max(1.0, d(requests(rl)) / (mb * d(dp)));
  const double spread = expected_max_standard_normal(dp) * std::sqrt(var) / (mean * std::sqrt(n));
  if (!rl.response_len.longest_at_max) return spread;
  const double longest = std::max(spread, (p1 + d(rl.response_len.max) - mean) / (n * mean));
  return ((mb - 1.0) * spread + longest) / mb;
}

namespace {

// RL recipes configure the longest response a rollout may generate (verl's
// data.max_response_length, OpenRLHF's --generate_max_len, AReaL's max_new_tokens) and generation
// stops at each response's end-of-sequence token, so a step's responses are long-tailed below that
// limit while the longest reach it. A whole-number response_len is read as that limit, the
// responses as the truncated exponential on [1, limit] (the serving simulator's long tail) with
// mean min(share x limit, cap), the share and the cap set by the kind of responses the policy
// writes (rl.response_style; absent, read from the model's name: long_cot_model below). ASSUMED
// priors, fitted on no validation row, each from runs that publish their mean response length
// beside their limit. A weights list states exact lengths, {"mean", "max"} a known mean.
struct ResponsePrior {
  double share, cap;
};
// short_cot, a base or instruct policy (zero-RL from a base model, RLHF of an instruct model):
// Ai2's open-instruct Qwen2.5-7B GRPO-zero report (wandb ai2-llm/open_instruct_public, "Qwen2.5 7B
// GRPO Fast Zero": val/sequence_lengths between 400 and 1,200 tokens over training) puts a 7B
// policy's mean near a thousand tokens whatever the limit: the response is the model's and the
// task's, and recipes raise the limit for the tail. A quarter of the limit up to a limit of 4,096,
// 1,024 tokens above it. Larger base models write longer (DAPO's Qwen2.5-32B run, arXiv
// 2503.14476: a few thousand tokens under 20,480): under-predicted.
constexpr ResponsePrior kShortCotPrior{0.25, 1024};
// long_cot, a model distilled or trained to reason at length: DeepScaleR (Luo et al. 2025,
// "DeepScaleR: Surpassing O1-Preview with a 1.5B Model by Scaling RL", Agentica blog) measured
// DeepSeek-R1-Distill-Qwen-1.5B's mean response at 5,500 tokens before RL and 3,500 after its
// 8,192-token stage (0.43-0.67 of that limit), its wrong answers about three times longer than
// its right ones, and lengthened the limit to 16K and 24K for the responses it truncated. Half the
// limit, at most 5,500 tokens (the distilled model's own mean).
constexpr ResponsePrior kLongCotPrior{0.5, 5500};

// Whether a model's name marks a long chain-of-thought reasoning model: a name token (split at
// every character that is not a letter or digit, case ignored) that the releases of such models
// use: DeepSeek-R1 and its R1-Distill-* models, QwQ, the *-Thinking models (Qwen3, Kimi),
// *-Reasoner / Reasoning, DeepScaleR, Skywork-OR1, OpenThinker. Anything else reads as short_cot.
bool long_cot_model(const std::string& name) {
  static constexpr std::array<std::string_view, 8> kMarkers{
      "r1", "qwq", "thinking", "reasoner", "reasoning", "deepscaler", "or1", "openthinker"};
  std::string token;
  const auto marked = [&] {
    const bool hit = std::find(kMarkers.begin(), kMarkers.end(), token) != kMarkers.end();
    token.clear();
    return hit;
  };
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      token += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (marked())
      return true;
  }
  return marked();
}

// Prompts the same way: the recipes configure the longest prompt (verl's data.max_prompt_length,
// with filter_overlong_prompts dropping longer ones; OpenRLHF's --prompt_max_len) with headroom
// above the dataset's prompts, which are short questions (a math problem and its answer-format
// instruction). A whole-number prompt_len is read as that limit, the prompts as the truncated
// exponential on [1, limit] with mean kPromptMeanShare x limit. ASSUMED prior, fitted on no row,
// from a public log that states both the limit and the prompts' lengths: verl's GSM8K PPO
// quickstart (docs/start/quickstart.rst: data.max_prompt_length=512; its example log's
// prompt_length/mean 104.9 and 102.4, i.e. 0.20 of the limit, /min 68 and 70, /max 175 and 185:
// 0.13-0.36 of it, the band the warning states). Other datasets and limits move it either way.
constexpr double kPromptMeanShare = 0.2;
constexpr std::int64_t kShortestTail = 8;  // below this a limit is read as the length itself
// Responses one serving simulation takes at most (io's bound on num_requests).
constexpr std::int64_t kMaxRolloutRequests = 1'000'000;

// A whole number read as a limit: the truncated exponential on [1, limit] with mean share x limit.
// Any other form (a weights list, {mean, max}, {uniform}) is used as given.
LengthDist limit_distribution(const LengthDist& l, double share, double cap) {
  if (l.shaped || l.uniform || l.points.size() != 1 || !l.from_number ||
      l.points.front().first < kShortestTail)
    return l;
  LengthDist out;
  out.shaped = true;
  out.min = 1;
  out.max = l.points.front().first;
  out.mean = std::min(share * d(out.max), cap);
  out.rate = truncated_exponential_rate(out.mean, out.min, out.max);
  return out;
}

// Step 0: whole-number lengths read as the recipes' limits, each assumption stated.
void read_length_limits(const Scenario& s, const RlWorkload& given, RlWorkload& rl,
                        std::vector<Warning>& warnings) {
  const auto tokens = [](double v) { return std::to_string(static_cast<std::int64_t>(std::llround(v))); };
  const RlResponseStyle style = given.response_style.value_or(
      long_cot_model(s.model.name) ? RlResponseStyle::long_cot : RlResponseStyle::short_cot);
  const bool long_cot = style == RlResponseStyle::long_cot;
  const ResponsePrior prior = long_cot ? kLongCotPrior : kShortCotPrior;
  rl.response_len = limit_distribution(given.response_len, prior.share, prior.cap);
  // The step's longest response is cut at the limit: RL recipes set max_response_length for the
  // tail, and responses reach it (DAPO, arXiv 2503.14476, Sec. 3.4 "Overlong Reward Shaping":
  // overlong samples are truncated at the maximum generation length, and DAPO shapes their reward
  // because there are such samples; verl logs their share as response_length/clip_ratio). One of
  // the step's responses at the limit is the least that says; the exponential's own tail below
  // the limit is kept for the rest.
  rl.response_len.longest_at_max = rl.response_len.shaped && !given.response_len.shaped;
  if (rl.response_len.shaped && !given.response_len.shaped)
    warnings.push_back(
        {"rl.response_len_assumed",
         "response_len " + std::to_string(rl.response_len.max) +
             " is read as the longest response a rollout may generate (max_response_length); the "
             "responses' mean is assumed at " +
             tokens(rl.response_len.mean) + " tokens for a " +
             (long_cot ? std::string("long chain-of-thought reasoning model (half the limit, at most 5,500: "
                                     "DeepScaleR's R1-Distill-Qwen-1.5B wrote 3,500-5,500 under 8,192)")
                       : std::string("base or instruct model (a quarter of the limit, at most 1,024: "
                                     "published 7B GRPO runs' means sit at 0.4-1.2 thousand tokens "
                                     "whatever their limits)")) +
             (given.response_style ? std::string(", as rl.response_style states")
                                   : ", read from the model's name (rl.response_style states it)") +
             ". Give {\"mean\", \"max\"} when the mean is known, or a weights list for exact "
             "lengths: rollout, forward passes and update scale with the tokens generated"});
  rl.prompt_len = limit_distribution(given.prompt_len, kPromptMeanShare, d(given.prompt_len.largest()));
  if (rl.prompt_len.shaped && !given.prompt_len.shaped)
    warnings.push_back(
        {"rl.prompt_len_assumed",
         "prompt_len " + std::to_string(rl.prompt_len.max) +
             " is read as the longest prompt (max_prompt_length); the prompts' mean is assumed at " +
             tokens(rl.prompt_len.mean) +
             " tokens (a fifth of it: verl's GSM8K example's prompts run 0.13-0.36 of their limit, "
             "mean 0.20; other datasets and limits differ). Give {\"mean\", \"max\"} when the dataset's "
             "mean prompt is known"});
}

// What predict meets first when it serves the rollout (predict/serving.cpp): the engine's layout,
// then the serving run's bounds.
std::optional<Error> check_rollout(const Scenario& ro) {
  if (auto err = validate_plan(ro)) return err;
  return check_serving(ro);
}

}  // namespace

namespace {
// The tensor-parallel degrees whose engines of `pp` stages tile a pool of `pool` devices, in
// words ("1, 2, 4 or 8"; at most 8 named), for the layout errors.
std::string tp_choices(std::int64_t pool, std::int64_t pp) {
  std::vector<std::string> ok;
  for (std::int64_t t = 1; t <= pool && ok.size() < 8; ++t)
    if (pool % (t * pp) == 0) ok.push_back(std::to_string(t));
  return ok.empty() ? "none" : or_list(ok);
}
}  // namespace

Result<Scenario> rl_rollout_scenario(const Scenario& s) {
  const RlWorkload& rl = *s.rl;
  const std::int64_t pool = rollout_pool(s);
  if (rl.rollout.tp > 0) {
    Scenario ro = rollout_at(s, rl.rollout.tp);
    const std::int64_t engine = ro.parallel.tp * ro.parallel.pp;
    const std::int64_t used = engine * ro.parallel.dp;
    if (rl.rollout.dp == 0 && pool % engine != 0)
      return make_error("rl.rollout_layout_mismatch", "/rl/rollout",
                        "a rollout engine of tp " + std::to_string(ro.parallel.tp) + " x pp " +
                            std::to_string(ro.parallel.pp) + " = " + std::to_string(engine) +
                            " devices does not divide its pool of " + std::to_string(pool) +
                            " devices; with pp " + std::to_string(ro.parallel.pp) + ", tp " +
                            tp_choices(pool, ro.parallel.pp) + " would");
    if (used != pool)
      return make_error("rl.rollout_layout_mismatch", "/rl/rollout",
                        "the rollout engines' tp x pp x dp = " + std::to_string(ro.parallel.tp) + " x " +
                            std::to_string(ro.parallel.pp) + " x " + std::to_string(ro.parallel.dp) + " = " +
                            std::to_string(used) + " devices is not their pool of " + std::to_string(pool) +
                            (pool % engine == 0 ? "; dp " + std::to_string(pool / engine) + " would" : ""));
    if (auto err = check_rollout(ro)) return rollout_error(*err);
    return ro;
  }
  // tp chosen: the smallest power of two whose replica holds the longest response; run_rollout
  // then doubles it while the rollout gets faster. Past a scale-up domain when none within one
  // holds it (DeepSeek-V3 at 8 bits on 80 GB devices: SGLang's two-node tp 16 engines,
  // docs.sglang.ai, DeepSeek usage guide).
  std::optional<Error> last;
  std::int64_t widest = 0, shown = 0;
  for (std::int64_t tp = 1; tp <= pool; tp *= 2) {
    if (pool % (tp * rl.rollout.pp) != 0) continue;
    Scenario ro = rollout_at(s, tp);
    if (rl.rollout.dp > 0 && tp * rl.rollout.pp * rl.rollout.dp != pool) continue;
    auto err = check_rollout(ro);
    if (!err) return ro;
    // The step bound counts the steps of all the engines together: no tp changes it.
    if (err->code == "serving.too_many_steps") return rollout_error(*err);
    // The widest tp the model takes says why nothing runs: memory (a tiny gpu_memory_utilization),
    // not a wider tp that the heads refuse (a probe's 0.01 was told tp 8 does not divide 28 heads).
    const bool memory = err->code == "serving.kv_insufficient" || err->code == "memory.does_not_fit";
    const bool last_memory =
        last && (last->code == "serving.kv_insufficient" || last->code == "memory.does_not_fit");
    if (memory || !last_memory) last = err, shown = tp;
    widest = tp;
  }
  if (last) {
    Error e = rollout_error(*last);
    e.message = "no power-of-two tensor parallelism up to tp " + std::to_string(widest) +
                " (the widest that divides the pool of " + std::to_string(pool) +
                " devices) runs this rollout; at tp " + std::to_string(shown) + ", " + e.message +
                "; or state rl.rollout.tp and pp";
    return e;
  }
  if (rl.rollout.dp > 0 && pool % (rl.rollout.dp * rl.rollout.pp) != 0)
    return make_error("rl.rollout_layout_mismatch", "/rl/rollout",
                      "dp " + std::to_string(rl.rollout.dp) + " x pp " + std::to_string(rl.rollout.pp) +
                          " does not divide the rollout pool of " + std::to_string(pool) +
                          " devices (tp x pp x dp is the pool); leave dp out and the engines fill it");
  return make_error("rl.rollout_layout_mismatch", "/rl/rollout",
                    "no power-of-two rollout tensor parallelism divides the pool of " + std::to_string(pool) +
                        " devices" +
                        (rl.rollout.dp > 0 ? " into " + std::to_string(rl.rollout.dp) + " engines" : "") +
                        "; state rl.rollout.tp (" + tp_choices(pool, rl.rollout.pp) + " tile it)");
}

namespace {

// The RL trainers pack a rank's sequences into micro-batches of a token budget instead of a
// fixed count (verl's actor.use_dynamic_bsz with ppo_max_token_len_per_gpu, multiplied by the
// Ulysses size, verl/workers/actor/dp_actor.py; NeMo-RL's sequence packing with train_mb_tokens;
// OpenRLHF's --packing_samples; AReaL's mb_spec.max_tokens_per_mb): a micro-batch holds as many
// sequences as fit the budget, so the per-micro-batch costs (launches, a dropless MoE layer's
// host issue, pipeline exchanges) are paid once per pack, not once per sequence. The budget per
// device is micro_batch_tokens, absent = 2 x (longest prompt + longest response): verl's DAPO
// and fully_async recipes set actor_ppo_max_token_len = (max_prompt_length +
// max_response_length) x 2 (recipe/dapo, recipe/fully_async_policy); a sequence split over cp
// ranks puts seq_len / cp tokens on each. Stated train.micro_batch (and no budget) keeps fixed
// micro-batches. The rank's sequences are then spread evenly over the fewest packs that hold
// them (the last pack is not padded out).
std::int64_t micro_batch_packed(const RlWorkload& rl, const ParallelPlan& p, std::int64_t seq_len,
                                std::int64_t per_rank) {
  const double budget = rl.micro_batch_tokens ? d(*rl.micro_batch_tokens)
                        : rl.micro_batch_given || rl.padding == RlPadding::longest
                            ? 0.0
                            : 2.0 * (d(rl.prompt_len.largest()) + d(rl.response_len.largest()));
  if (!(budget > 0) || per_rank <= 1) return p.micro_batch;
  const double fit = std::max(1.0, std::floor(budget * d(p.cp) / d(std::max<std::int64_t>(1, seq_len))));
  const double packs = std::ceil(d(per_rank) / std::min(fit, d(per_rank)));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(d(per_rank) / packs)));
}

// The trainer's scenario of `model` on `devices` with layout p (dp 0 = what tp x pp x cp leave):
// one mini-batch of the step's sequences.
// Packed sequences split evenly over the layout (parallel/plan.cpp's checks: 2 cp chunks per
// sequence under context parallelism, seq_len / cp over the tp ranks under sequence
// parallelism): a length rounded up to that multiple, as the stacks pad it.
std::int64_t padded_to_layout(std::int64_t seq_len, const ParallelPlan& p) {
  const std::int64_t quantum = (p.cp > 1 ? 2 * p.cp : 1) * (p.sequence_parallel ? p.tp : 1);
  return round_up(seq_len, quantum);
}

// One optimizer step's batch on layout p (its tp, cp, dp, sequence parallelism and stated
// micro-batch): the sequence trained, the sequences a rank packs into a micro-batch and the
// mini-batch rounded up to whole micro-batches on every rank. `max_pack` caps the packs.
struct TrainBatch {
  std::int64_t seq_len = 1, micro_batch = 1, global_batch = 1;
  std::int64_t mini = 1;  // the mini-batch's sequences before the rounding
};

TrainBatch train_batch(const RlWorkload& rl, const ParallelPlan& p, std::int64_t max_pack = 0) {
  TrainBatch b;
  // Sequences as trained: prompt + response, padding removed (verl's use_remove_padding,
  // OpenRLHF's packing). Their lengths L differ; the matmuls cost in proportion to the tokens,
  // sum L, and attention in proportion to sum L^2 (causal: L^2 / 2 score pairs per sequence).
  // Sequences of E[L^2] / E[L] tokens, E[L]^2 / E[L^2] as many as there are, have both sums of
  // the real ones (fixed lengths: the lengths themselves).
  const double p1 = rl.prompt_len.expected(), r1 = rl.response_len.expected();
  const double mean = p1 + r1;
  const double square = second_moment(rl.prompt_len) + 2 * p1 * r1 + second_moment(rl.response_len);
  b.seq_len = std::max<std::int64_t>(1, std::llround(square / mean));
  double share = std::min(1.0, mean * mean / square);
  // Unpacked micro-batches padded to their longest sequence (rl.train.padding "longest"): every
  // sequence of a micro-batch of n is computed at the expected longest of n draws, its matmuls
  // and its attention alike, so each counts whole at that length.
  if (rl.padding == RlPadding::longest && p.micro_batch > 1) {
    b.seq_len = std::max<std::int64_t>(
        1, std::llround(expected_longest_sequence(rl.prompt_len, rl.response_len, p.micro_batch)));
    share = 1.0;
  }
  // The mean sequence padded to the layout's multiple.
  b.seq_len = padded_to_layout(b.seq_len, p);
  // One optimizer step takes a mini-batch of the step's sequences; each data-parallel rank takes
  // whole micro-batches, so the mini-batch is rounded up to them (a rank with fewer waits).
  const double responses_per_mini = d(requests(rl)) / d(rl.mini_batches);
  b.mini = std::max<std::int64_t>(1, std::llround(responses_per_mini * share));
  // Packed micro-batches (micro_batch_packed): the sequences a rank takes per micro-batch.
  b.micro_batch = micro_batch_packed(rl, p, b.seq_len, (b.mini + p.dp - 1) / p.dp);
  if (max_pack > 0) b.micro_batch = std::min(b.micro_batch, max_pack);
  b.global_batch = round_up(b.mini, p.dp * b.micro_batch);
  return b;
}

Result<Scenario> train_scenario_on(const Scenario& s, const ModelSpec& model, std::int64_t devices,
                                   ParallelPlan p, std::int64_t max_pack = 0) {
  const RlWorkload& rl = *s.rl;
  Scenario t = s;
  t.rl.reset();
  t.inference.reset();
  t.model = model;
  t.num_devices = devices;
  const std::int64_t model_ranks = p.tp * p.pp * p.cp;
  if (p.dp == 0) {
    if (t.num_devices % model_ranks != 0)
      return make_error("rl.train_layout_mismatch", "/rl/train",
                        "the trainer's tp x pp x cp = " + std::to_string(model_ranks) +
                            " does not divide its pool of " + std::to_string(t.num_devices) + " devices");
    p.dp = t.num_devices / model_ranks;
  }
  if (model_ranks * p.dp != t.num_devices)
    return make_error("rl.train_layout_mismatch", "/rl/train",
                      "the trainer's tp x pp x cp x dp = " + std::to_string(model_ranks * p.dp) +
                          " is not its pool of " + std::to_string(t.num_devices) + " devices");
  if (rl.offload == RlOffload::cpu_optimizer) p.optimizer_offload = true;
  t.parallel = p;
  const TrainBatch b = train_batch(rl, p, max_pack);
  t.parallel.micro_batch = b.micro_batch;
  TrainingWorkload w;
  w.precision = rl.train_precision;
  w.seq_len = b.seq_len;
  w.global_batch = b.global_batch;
  t.training = w;
  if (auto err = validate_plan(t)) {
    Error e = *err;
    e.code = "rl.train_layout_invalid";
    e.message = "trainer: " + e.message;
    e.path = "/rl/train";
    return e;
  }
  return t;
}

// Roles "separate": each model of the trainer on devices of its own (OpenRLHF's Ray placement:
// actor, critic, reference and reward model each a group of GPUs, e.g. its benchmark's
// 1:1:2:2:2 of reference : reward : actor : critic : vLLM). The roles the job has, in the order
// actor, critic, reference, reward; `work` is the role's forward-pass equivalents per token times
// its active parameters (a forward 2 N FLOPs per token, a backward twice that: Narayanan et al.
// 2021, Sec. 5.1): the actor's update 3 (+1 with old_logprob), the critic's values and update 4,
// the reference's and the reward model's forwards 1.
struct RoleSlot {
  const char* name = "";
  bool present = false;
  std::int64_t given = 0, devices = 0;
  double work = 0;
};
using RoleSlots = std::array<RoleSlot, 4>;

RoleSlots role_slots(const Scenario& s) {
  const RlWorkload& rl = *s.rl;
  const std::int64_t seq = s.model.max_seq_len > 0 ? s.model.max_seq_len : 4096;
  const auto active = [&](const ModelSpec& m) { return count_params(m, seq).active; };
  const double policy = active(s.model);
  const bool ppo = rl.algorithm == RlAlgorithm::ppo;
  const RlRoleDevices& g = rl.role_devices;
  RoleSlots r;
  r[0] = {"actor", true, g.actor, 0, policy * (3.0 + (rl.old_logprob ? 1.0 : 0.0))};
  r[1] = {"critic", ppo, g.critic, 0, ppo ? 4.0 * active(rl.critic ? *rl.critic : s.model) : 0.0};
  r[2] = {"reference", rl.reference, g.reference, 0, policy};
  r[3] = {"reward", rl.reward_model.has_value(), g.reward, 0,
          rl.reward_model ? active(*rl.reward_model) : 0.0};
  return r;
}

// The devices of each role: the counts given, the rest of the pool over the roles without one in
// whole model replicas (unit = tp x pp x cp), at least one each, in proportion to their work
// (largest work per device first, so that the slowest role is as fast as the split allows).
Result<RoleSlots> split_roles(const Scenario& s, std::int64_t unit) {
  RoleSlots r = role_slots(s);
  const std::int64_t pool = train_pool(s);
  std::int64_t given = 0, free_roles = 0;
  double free_work = 0;
  for (const RoleSlot& x : r) {
    if (!x.present && x.given > 0)
      return make_error("rl.roles_role_absent", std::string("/rl/roles/") + x.name,
                        std::string("the job has no ") + x.name +
                            " (ppo has a critic, reference true a reference, reward_model a reward model)");
    if (!x.present) continue;
    if (x.given % unit != 0)
      return make_error(
          "rl.train_layout_mismatch", std::string("/rl/roles/") + x.name,
          "the " + std::string(x.name) + "'s " + std::to_string(x.given) +
              " devices are not whole replicas of the trainer's tp x pp x cp = " + std::to_string(unit));
    given += x.given;
    if (x.given == 0) ++free_roles, free_work += x.work;
  }
  const std::int64_t rest = pool - given;
  if (free_roles == 0 ? rest != 0 : rest < free_roles * unit)
    return make_error(
        "rl.roles_devices_mismatch", "/rl/roles",
        "the roles' devices (" + std::to_string(given) + " given" +
            (free_roles ? ", at least " + std::to_string(free_roles * unit) + " more needed" : "") +
            ") do not make the training pool of " + std::to_string(pool) + " devices");
  if (free_roles == 0) {
    for (RoleSlot& x : r) x.devices = x.given;
    return r;
  }
  if (rest % unit != 0)
    return make_error("rl.train_layout_mismatch", "/rl/roles",
                      "the " + std::to_string(rest) +
                          " devices left to the roles without a count are not whole "
                          "replicas of the trainer's tp x pp x cp = " +
                          std::to_string(unit));
  const std::int64_t units = rest / unit;
  std::int64_t used = 0;
  for (RoleSlot& x : r) {
    if (!x.present) continue;
    if (x.given > 0) {
      x.devices = x.given;
      continue;
    }
    const double quota = free_work > 0 ? d(units) * x.work / free_work : d(units) / d(free_roles);
    x.devices = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(quota)));
    used += x.devices;
  }
  // At most one unit per role away from the total either way: move it where it helps most.
  const auto ratio = [](const RoleSlot& x, std::int64_t n) { return n > 0 ? x.work / d(n) : 1e300; };
  while (used != units) {
    RoleSlot* pick = nullptr;
    for (RoleSlot& x : r) {
      if (!x.present || x.given > 0 || (used > units && x.devices <= 1)) continue;
      const bool better = !pick || (used < units ? ratio(x, x.devices) > ratio(*pick, pick->devices)
                                                 : ratio(x, x.devices - 1) < ratio(*pick, pick->devices - 1));
      if (better) pick = &x;
    }
    pick->devices += used < units ? 1 : -1;
    used += used < units ? 1 : -1;
  }
  for (RoleSlot& x : r)
    if (x.present && x.given == 0) x.devices *= unit;
  return r;
}

}  // namespace

Result<Scenario> rl_train_scenario(const Scenario& s, const ModelSpec& model) {
  return train_scenario_on(s, model, train_pool(s), s.rl->train);
}

std::optional<Error> check_rl(const Scenario& s) {
  const RlWorkload& rl = *s.rl;
  if (rl.weight_sync == RlWeightSync::host && !(s.system.host_link.value > 0))
    return make_error("rl.host_sync_needs_host_link", "/rl/weight_sync",
                      "weight_sync \"host\" reads the weights from host memory over each device's host link; "
                      "the system states no host_link_GBps");
  if (rl.placement == RlPlacement::split) {
    if (rl.rollout_devices + rl.train_devices != s.num_devices)
      return make_error("rl.devices_mismatch", "/rl/rollout_devices",
                        "rollout_devices + train_devices = " + std::to_string(rl.rollout_devices) + " + " +
                            std::to_string(rl.train_devices) +
                            " is not num_devices = " + std::to_string(s.num_devices));
  } else if (rl.staleness > 0) {
    // verl's one_step_off_policy and fully_async recipes and AReaL overlap rollout and training
    // only on separate rollout and trainer GPUs.
    return make_error("rl.async_needs_split", "/rl/async/staleness",
                      "asynchronous RL (staleness " + std::to_string(rl.staleness) +
                          ") overlaps the rollout of one step with the training of another on separate "
                          "GPUs; set placement \"split\" with rollout_devices and train_devices");
  }
  // Layouts larger than their pool, checked in floating point before any integer product of
  // them is formed (each key may be up to 1e8).
  const double rollout_used = d(std::max<std::int64_t>(1, rl.rollout.tp)) * d(rl.rollout.pp) *
                              d(std::max<std::int64_t>(1, rl.rollout.dp));
  const auto count = [](double x) {
    return x < 1e15 ? std::to_string(static_cast<std::int64_t>(x)) : "over 1e15";
  };
  if (rollout_used > d(rollout_pool(s)))
    return make_error("rl.rollout_layout_mismatch", "/rl/rollout",
                      "the rollout engine's tp x pp x dp = " + count(rollout_used) +
                          " devices, more than its pool of " + std::to_string(rollout_pool(s)) + " devices");
  const ParallelPlan& tp = rl.train;
  const double train_used = d(tp.tp) * d(tp.pp) * d(tp.cp) * d(std::max<std::int64_t>(1, tp.dp));
  if (!rl.train_auto && train_used > d(train_pool(s))) {
    const double model = d(tp.tp) * d(tp.pp) * d(tp.cp);
    const std::int64_t n = train_pool(s);
    return make_error("rl.train_layout_mismatch", "/rl/train",
                      "the trainer's tp x pp x cp x dp = " + count(train_used) +
                          " devices, more than its pool of " + std::to_string(n) + " devices" +
                          (model <= d(n) && n % static_cast<std::int64_t>(model) == 0
                               ? "; with tp x pp x cp = " + count(model) + ", dp " +
                                     std::to_string(n / static_cast<std::int64_t>(model)) + " would"
                               : ""));
  }
  if (rl.padding == RlPadding::longest && rl.micro_batch_tokens && *rl.micro_batch_tokens > 0)
    return make_error("rl.padding_with_packing", "/rl/train/padding",
                      "padding \"longest\" pads unpacked micro-batches of micro_batch sequences; "
                      "micro_batch_tokens packs them (its padding removed): state one or the other");
  if (rl.partial_rollout && rl.staleness == 0)
    return make_error("rl.partial_rollout_needs_staleness", "/rl/async/partial_rollout",
                      "a partial rollout continues an interrupted response under the next policy, so its "
                      "samples lag the trainer: set async.staleness >= 1");
  if (rl.roles == RlRoles::separate) {
    if (!rl.train_auto && rl.train.dp > 0)
      return make_error("rl.roles_dp_given", "/rl/train/dp",
                        "with roles \"separate\" each role's data parallelism is what its own devices "
                        "leave after tp x pp x cp; leave train.dp out");
    const std::int64_t unit = rl.train_auto ? 1 : std::max<std::int64_t>(1, tp.tp * tp.pp * tp.cp);
    if (auto roles = split_roles(s, unit); !roles) return roles.error();
  }
  const std::int64_t longest = rl.prompt_len.largest() + rl.response_len.largest();
  if (s.model.max_seq_len > 0 && longest > s.model.max_seq_len)
    return make_error("rl.response_exceeds_context", "/rl/response_len",
                      "the longest prompt + response (" + std::to_string(longest) +
                          " tokens) exceeds the model's context of " + std::to_string(s.model.max_seq_len) +
                          " tokens");
  if (rl.mini_batches > requests(rl))
    return make_error("rl.mini_batches_exceed_responses", "/rl/mini_batches",
                      "mini_batches (" + std::to_string(rl.mini_batches) + ") exceeds the step's " +
                          std::to_string(requests(rl)) + " responses");
  return std::nullopt;
}

namespace {

// What the rollout step hands on to the later steps: the engine's reservation and weights per
// device (the colocated swap moves them) and the prompt tokens it prefilled.
struct RolloutRun {
  double util = 0, engine_weights = 0, input_tokens = 0;
};

// Partial rollout (verl fully_async's partial_rollout, docs/advance/fully_async.md: at a weight
// sync the rollouter interrupts its unfinished responses and resumes them under the new weights;
// AReaL's interruptible rollout, Fu et al. 2025, arXiv 2505.24298, Sec. 4): the engines never
// drain, new prompts take the place of finished responses, so a step costs its share of the
// engines' throughput, not the makespan of its own longest response. The share is the marginal
// time of one more step's responses: the offline run of N + M responses less the run of N, times
// N / M (M = N, fewer where N + M would pass the simulator's bound), the drain at the end of both
// runs cancelling. Bounded staleness k keeps a floor: a response is in flight at most 1 + k
// steps (its policy version may lag by k: AReaL's eta, verl's staleness), so the longest
// response's own time over 1 + k steps is the least a step can take.
Result<double> partial_rollout_s(const Scenario& s, const Scenario& ro, double makespan) {
  const std::int64_t n = requests(*s.rl);
  const std::int64_t m = std::min<std::int64_t>(n, kMaxRolloutRequests - n);
  const double floor_s = makespan / d(1 + s.rl->staleness);
  if (m <= 0) return makespan;
  Scenario more = ro;
  more.inference->serving->num_requests = n + m;
  auto served = predict(more);
  if (!served) return rollout_error(served.error());
  const double marginal = (served->serving->duration_s - makespan) * d(n) / d(m);
  return std::max(marginal, floor_s);
}

// Bytes over the device's host link, one way (0 where the system states no host link).
double host_seconds(const Scenario& s, double bytes) {
  return s.system.host_link.value > 0 ? bytes / s.system.host_link.value : 0.0;
}

// The part of the step an engine's layout sets: its rollout and, colocated, the swap of its
// weights to host memory and back while the trainer runs (pools_and_swap, step 4), which a wider
// engine shrinks (a tp-th of the weights per device).
double engine_step_s(const Scenario& s, const Prediction& p) {
  const bool colocated = s.rl->placement == RlPlacement::colocated && p.inference_memory;
  return p.serving->duration_s +
         (colocated ? 2.0 * host_seconds(s, p.inference_memory->per_device.weights.value) : 0.0);
}

// Step 1: the step's responses served offline on the rollout pool (`ro`: the engines
// rl_rollout_scenario resolved). A synchronous step waits for the last response, so the phase is the run's
// makespan (first prompt to last token), not the mean response time.
Result<RolloutRun> run_rollout(const Scenario& s, Scenario ro, RlPrediction& out, double horizon_s) {
  // The caller's horizon (predict_rl), where the makespan bounds the step from below: not under a
  // partial rollout (its phase is a marginal time, below the makespan), nor where the tp is chosen
  // (a wider engine is tried for the shorter rollout and swap together, which its makespan alone
  // does not bound).
  const bool bounded =
      horizon_s < std::numeric_limits<double>::infinity() && !s.rl->partial_rollout && s.rl->rollout.tp > 0;
  if (bounded) ro.inference->serving->horizon_s = horizon_s;
  auto served = predict(ro);
  if (!served) return rollout_error(served.error());
  // Replicas that step together end on their common clock, later than each one's own.
  if (bounded && served->serving->duration_s > horizon_s) return rollout_error(past_horizon());
  if (s.rl->rollout.tp == 0) {
    // tp chosen: the fastest rollout, the tp doubled while the wider engine finishes the step's responses
    // sooner (colocated: the rollout and the swap of the engine's weights together, engine_step_s). A
    // synchronous step waits for its longest response, which decodes at a small running batch at the end,
    // where a wider engine streams fewer weight bytes per device a token; a narrow engine can also hold too
    // little KV for its running batch (a 32B model at tp 1 on an 80 GB device: 8 running sequences and
    // hundreds of preemptions; vLLM's optimization guide, docs.vllm.ai configuration/optimization
    // "Preemption": raise tensor_parallel_size). The recipes' own choices agree: verl's fully_async
    // Qwen2.5-7B runs (28K-token responses) serve at tp 4 where tp 1 holds the model, and with their stated
    // tp left out this rule picks it again in 12 of the 15 public jobs that state one (verl fully_async 10 of
    // 10, verl one_step_off 2 of 4, AReaL 0 of 1; scripts/diagnose_rl.py --hide-rollout-tp), where the
    // smallest tp that fits picked it in 1 (AReaL's). Widening only while the engine preempted made the step
    // shorten when the prompts doubled (a larger batch preempts and moves to the faster tp:
    // RlScale.MorePromptsNeverShortenAChosenLayoutsStep). Not past a scale-up domain: each wider engine is
    // one more serving simulation of the step's responses, at most log2(domain) of them.
    const std::int64_t widest = std::min(rollout_pool(s), s.system.scale_up.domain_size);
    for (std::int64_t tp = ro.parallel.tp * 2; tp <= widest; tp *= 2) {
      if (s.rl->rollout.dp > 0) break;  // a stated dp fixes tp
      if (rollout_pool(s) % (tp * s.rl->rollout.pp) != 0) break;
      Scenario wider = rollout_at(s, tp);
      if (check_serving(wider)) break;
      // A wider engine still serving the step's responses when the narrower one's rollout and swap
      // are over cannot be the faster (its own swap only adds): its simulation stops there
      // (SimBudget::horizon_s, serving.past_horizon), and the doubling ends as it would have.
      wider.inference->serving->horizon_s = engine_step_s(s, *served);
      auto next = predict(wider);
      if (!next || !(engine_step_s(s, *next) < engine_step_s(s, *served))) break;
      ro = std::move(wider);
      served = std::move(next);
    }
  }
  const ServingPrediction& sv = *served->serving;
  out.rollout_plan = ro.parallel;
  out.rollout_devices = ro.num_devices;
  out.responses = sv.completed;
  out.output_tokens = sv.output_tokens_per_s * sv.duration_s;
  out.output_tokens_per_s = sv.output_tokens_per_s;
  out.longest_response_s = sv.duration_s;
  out.mean_response_s = sv.e2e.mean;
  out.mean_batch = sv.mean_batch;
  out.preemptions = sv.preemptions;
  out.eager_steps = sv.eager_steps;
  out.phases.rollout = sv.duration_s;
  out.rollout_makespan_s = sv.duration_s;
  if (s.rl->partial_rollout) {
    auto marginal = partial_rollout_s(s, ro, sv.duration_s);
    if (!marginal) return marginal.error();
    out.phases.rollout = *marginal;
  }
  RolloutRun run;
  run.input_tokens = sv.input_tokens_per_s * sv.duration_s;
  run.util = ro.inference->serving->gpu_memory_utilization;
  run.engine_weights = served->inference_memory ? served->inference_memory->per_device.weights.value : 0;
  return run;
}

// rl.train.offload, as verl's FSDP workers run it (verl/workers/fsdp_workers.py: with
// param_offload, load_fsdp_model_to_gpu before each pass of a model and offload_fsdp_model_to_cpu
// after it; with optimizer_offload, load_fsdp_optimizer before update_actor and
// offload_fsdp_optimizer after it): the bytes one device moves over its host link per pass, both
// ways. A forward pass moves the model's parameter shard, an update the parameters and the
// optimizer state (master weights and moments). ZeRO-Offload's optimizer step on the CPU (Ren et
// al. 2021) is another mechanism, not this one.
struct OffloadBytes {
  double forward = 0, update = 0;
};
OffloadBytes offload_bytes(RlOffload o, const MemoryReport& m) {
  const double w = m.per_device.weights.value, opt = m.per_device.optimizer.value;
  OffloadBytes b;
  if (o == RlOffload::params_optimizer) {
    b.forward = 2.0 * w;
    b.update = 2.0 * (w + opt);
  } else if (o == RlOffload::optimizer) {
    b.update = 2.0 * opt;
  }
  return b;
}
// One model's passes on its devices: mini_batches forward passes and updates of one mini-batch
// each (with the offload traffic of each pass), its memory and layout.
struct Passes {
  double forward = 0, update = 0, offload_bytes = 0;
  double straggler = 0;                  // inside update: the heaviest data-parallel rank's extra seconds
  bool offload_assumed = false;          // the optimizer put in host memory to fit (model_passes)
  std::vector<Warning> device_warnings;  // the trainer's device.* warnings (precision fallbacks)
  std::int64_t devices = 0, global_batch = 0, seq_len = 0;
  double iteration = 0, mfu = 0;
  ParallelPlan plan;
  MemoryReport memory;
};
// The trainer as stated, its assumed token budget (micro_batch_tokens absent) met the way the
// stacks fit it (verl's out-of-memory guide, docs/perf "Resolving Out-of-Memory (OOM) Errors":
// gradient checkpointing, which verl's own recipes turn on with their 2x budgets, e.g.
// recipe/fully_async_policy's colocated DAPO script, then a smaller ppo_max_token_len_per_gpu):
// full recompute first where none is stated (rl.train.recompute "none"; absent, it is full
// already: RlWorkload::train), then the pack halved until the trainer fits or holds one sequence.
struct Fitted {
  Result<Scenario> t;
  Result<Prediction> pr;
  // The assumed pack was halved or recomputation turned on to make room (fit_trainer's ladder).
  bool squeezed = false;
  // The trainer fits beside the runtime's own memory (memory/footprint.h, runtime_reserve): what
  // the assumed choices below aim for, as a stack's out-of-memory guide would have it run.
  bool roomy() const {
    return t && pr && pr->memory.fits &&
           leaves_runtime_room(pr->memory.per_device.total(), pr->memory.capacity, t->num_devices);
  }
  // Whether this fit is to replace `than` (none: nothing kept yet): it fits with room and its update
  // is faster, or `than` has no room.
  bool takes_over(const Fitted* than) const {
    return roomy() && pr->training &&
           (!than || !than->roomy() ||
            pr->training->iteration_time.value < than->pr->training->iteration_time.value);
  }
};
// The trainer as the step runs it: its sequences packed into micro-batches (train_scenario_on), and
// where the assumed pack leaves no room, recomputation turned on or the pack halved, whichever runs
// faster: from the layout's own policy up (none, the attention core, whole layers), each with its
// pack halved until it fits, the fastest that fits. Turning on full recompute before halving a
// pack, and never trying the attention core, had made a searched layout's update 15.5 s where the
// attention core at half the pack took 9.3 (Qwen3-235B on 64 DGX B200 at doubled peak rates).
Fitted fit_trainer(const Scenario& s, const ModelSpec& model, std::int64_t devices, ParallelPlan plan) {
  Result<Scenario> t = train_scenario_on(s, model, devices, plan);
  if (!t) return {t, t.error()};
  Fitted f{t, predict(*t)};
  const bool assumed = !s.rl->micro_batch_tokens && !s.rl->micro_batch_given;
  if (!assumed || !f.pr || f.roomy() || f.t->parallel.micro_batch <= 1) return f;
  std::optional<Fitted> best;
  Fitted last = f;
  constexpr std::array kLadder{Recompute::none, Recompute::selective, Recompute::full};
  for (auto r = std::find(kLadder.begin(), kLadder.end(), plan.recompute); r != kLadder.end(); ++r) {
    ParallelPlan q = plan;
    q.recompute = *r;
    Fitted g{train_scenario_on(s, model, devices, q), Error{}, true};
    if (!g.t) continue;
    g.pr = predict(*g.t);
    while (g.pr && !g.roomy() && g.t->parallel.micro_batch > 1) {
      auto next = train_scenario_on(s, model, devices, q, g.t->parallel.micro_batch / 2);
      if (!next) break;
      g.t = std::move(next);
      g.pr = predict(*g.t);
    }
    if (g.takes_over(best ? &*best : nullptr)) best = g;
    if (g.t && g.pr) last = g;
  }
  return best ? *best : last;
}

// The heaviest data-parallel rank's extra seconds in one optimizer step, its tokens (1 + share) x
// the mean rank's (rl_straggler_share): the same layout and micro-batches predicted with
// sequences that much longer, less the mean rank's iteration. What does not grow with a rank's
// tokens (the optimizer step, the exposed data-parallel reduction, the host's waits, and the
// weights a memory-bound step reads once per micro-batch whatever its tokens) cancels out. The
// share times the iteration's token-proportional part instead counted the weight reads of a MoE
// update at two sequences per rank as tokens' time, so a step of twice the prompts came out
// shorter (Property.RlStepNeverLengthensOnFasterDevicesNorShortensWithMoreWork). Where the
// longer sequences cannot be predicted, that linear estimate stands.
double heavier_rank_extra(const Scenario& t, const TrainingPrediction& tp, double share) {
  if (!(share > 0)) return 0.0;
  const TrainingBreakdown& b = tp.breakdown;
  const double linear = share * std::max(0.0, (tp.iteration_time - b.optimizer - b.dp_comm - b.host).value);
  Scenario heavy = t;
  heavy.training->seq_len =
      padded_to_layout(std::llround(d(t.training->seq_len) * (1.0 + share)), t.parallel);
  auto hp = predict(heavy);
  if (!hp || !hp->training) return linear;
  return std::max(0.0, (hp->training->iteration_time - tp.iteration_time).value);
}

// `at` re-homes a layout error (a role's devices: /rl/roles/<role>); `code` and `path` name a
// model that cannot be trained (the reward model, the critic).
Result<Passes> model_passes(const Scenario& s, const ModelSpec& model, std::int64_t devices,
                            ParallelPlan plan, const std::string& at, const std::string& code,
                            const std::string& path) {
  Fitted f = fit_trainer(s, model, devices, plan);
  if (!f.t) {
    Error e = f.t.error();
    // A layout the policy takes but this model's shape does not (a reward model or critic whose
    // heads tp does not divide): the model is at fault, at its own key, not the trainer's layout.
    if (!code.empty() && &model != &s.model && fit_trainer(s, s.model, devices, plan).t) {
      std::string why = e.message;
      if (why.starts_with("trainer: ")) why.erase(0, 9);
      return make_error(code, path,
                        (code == "rl.critic_invalid" ? "the critic: " : "the reward model: ") + why);
    }
    if (!at.empty()) e.path = at;
    return e;
  }
  // A ZeRO stage not stated is the smallest under which the trainer fits: every RL stack shards
  // the training state across its data-parallel ranks when it must (verl's FSDP and NeMo-RL's
  // DTensor FSDP2 shard parameters, gradients and optimizer state, ZeRO-3; OpenRLHF's DeepSpeed
  // --zero_stage; Megatron's distributed optimizer, ZeRO-1), and none trains a model whose state
  // cannot fit. Where nothing fits (below, with the optimizer on the host too), the layout nearest
  // to fitting, the least memory per device, is predicted (memory.does_not_fit): a stack short of
  // memory shards further, so an unstated stage is not taken as the unsharded replica (whose
  // weight sync would then need no gather at all).
  Fitted closest = f;
  const auto keep_closest = [&closest](const Fitted& g) {
    if (g.t && g.pr && closest.pr &&
        g.pr->memory.per_device.total().value < closest.pr->memory.per_device.total().value)
      closest = g;
  };
  // Where the smallest stage fits only with its pack halved or recomputed (fit_trainer), the stages
  // above it are weighed too, and the fastest that fits is taken: sharding the state further frees
  // the memory a smaller token budget would (verl's FSDP shards parameters, gradients and optimizer
  // state, ZeRO-3, with the full ppo_max_token_len_per_gpu), and the gathers it adds cost less than
  // micro-batches that read every weight for a fraction of the tokens (a mixture of experts at ep 1:
  // Qwen3-30B-A3B on 32 H100, ZeRO-2 at two sequences a micro-batch 104 s an update, ZeRO-3 at
  // eight 31 s). A stage that fits the assumed pack is as fast as any above it, so the look stops.
  for (int z = plan.zero_stage + 1; !s.rl->zero_stage_given && f.pr && (!f.roomy() || f.squeezed) && z <= 3;
       ++z) {
    ParallelPlan sharded = plan;
    sharded.zero_stage = z;
    Fitted g = fit_trainer(s, model, devices, sharded);
    keep_closest(g);
    if (g.takes_over(&f)) f = std::move(g);
  }
  // Where no stage fits either and the scenario states no offload, the optimizer state is taken
  // to live in host memory, stepped by the CPU (rl.train.offload cpu_optimizer): how the stacks
  // train a model too large for the trainer's memory (slime's scripts for large MoE models set
  // Megatron-Core's --optimizer-cpu-offload, OpenRLHF's --adam_offload runs DeepSpeed's CPU Adam).
  // The smallest ZeRO stage that then fits, from the distributed optimizer (1) up, unless stated
  // (a stated 0 keeps a replicated optimizer, which no stack steps on the CPU: Megatron-Core's
  // offload needs its distributed optimizer).
  const bool replicated = s.rl->zero_stage_given && plan.zero_stage == 0;
  if (!s.rl->offload_given && !replicated && f.pr && !f.roomy() && s.system.host_link.value > 0) {
    const int from = s.rl->zero_stage_given ? plan.zero_stage : std::max(plan.zero_stage, 1);
    const int to = s.rl->zero_stage_given ? plan.zero_stage : 3;
    for (int z = from; z <= to; ++z) {
      ParallelPlan hosted = plan;
      hosted.zero_stage = z;
      hosted.optimizer_offload = true;
      Fitted g = fit_trainer(s, model, devices, hosted);
      keep_closest(g);
      if (g.roomy()) {
        f = std::move(g);
        break;
      }
    }
  }
  if (f.pr && !f.pr->memory.fits) f = std::move(closest);
  auto& t = f.t;
  auto& pr = f.pr;
  if (!pr) {
    Error e = pr.error();
    if (!code.empty()) return make_error(code, path, e.message);
    e.path = "/rl/train";
    return e;
  }
  const TrainingPrediction& tp = *pr->training;
  const double mb = d(s.rl->mini_batches);
  Passes out;
  const OffloadBytes ob = offload_bytes(s.rl->offload, pr->memory);
  out.forward = mb * forward_only(tp) + host_seconds(s, ob.forward);
  out.straggler = mb * heavier_rank_extra(*t, tp, rl_straggler_share(*s.rl, t->parallel.dp));
  out.update = mb * tp.iteration_time.value + out.straggler + host_seconds(s, ob.update);
  out.offload_bytes = ob.forward + ob.update;  // one forward and one update
  out.devices = t->num_devices;
  out.global_batch = t->training->global_batch;
  out.seq_len = t->training->seq_len;
  out.iteration = tp.iteration_time.value;
  out.mfu = tp.mfu;
  out.plan = t->parallel;
  out.memory = pr->memory;
  for (const Warning& w : pr->warnings)
    if (w.code.starts_with("device.")) out.device_warnings.push_back(w);
  // Here or by the search of train "auto".
  out.offload_assumed = effective_offload(*s.rl, t->parallel) != s.rl->offload;
  return out;
}

// The search's best layouts, each predicted as a whole step (train "auto", predict_rl).
constexpr std::size_t kTrainCandidates = 4;

// The trainer's layouts to weigh: the one stated, or, for "auto", the best kTrainCandidates
// distinct trainers of each ZeRO stage (searched_train_plans) among the layouts that fit one
// mini-batch, no interleaving fixed to keep the space small
// (the choice production RL trainers make). The search ranks each layout at the micro-batches the
// step packs on it (train_batch); the step then turns recomputation on or halves the packs where a
// pack needs it (fit_trainer), and the trainer's layout sets the weight sync's gather and, colocated,
// what is swapped beside the engine; so predict_rl predicts each candidate's whole step and keeps
// the fastest. With the search's first alone, Qwen3-235B on 64 DGX B200 took a longer step with
// every peak rate doubled (its first layout became ep 64, whose packed update took 20.5 s where
// ep 32's took 16.1 s: RlScale.FasterDevicesNeverLengthenASearchedTrainersStep), and ranking by
// the trainer's own time, Qwen2.5 7B on 16 H100 did (tp 1 trains faster, but its state no longer
// fit beside the engine and was swapped:
// Property.RlStepNeverLengthensOnFasterDevicesNorShortensWithMoreWork). Roles "separate": each
// role's pool differs, and the search's first is kept.
// The `keep` fastest of two searches' best layouts (each already fastest first).
void merge_fastest(std::vector<LayoutResult>& best, const std::vector<LayoutResult>& more, std::size_t keep) {
  best.insert(best.end(), more.begin(), more.end());
  std::stable_sort(best.begin(), best.end(),
                   [](const LayoutResult& a, const LayoutResult& b) { return a.time.value < b.time.value; });
  if (best.size() > keep) best.resize(keep);
}

double gather_s(const Scenario& s, const ParallelPlan& p, double wbytes);
double synced_bytes(const Scenario& s);

// The search behind train_candidates on the pool's training scenario `t`.
Result<std::vector<ParallelPlan>> searched_train_plans(const Scenario& s, const Scenario& t) {
  // The searched layouts pad the packed sequence to their own multiple (2 cp x tp under sequence
  // parallelism: train_scenario_on), which the layout chosen gets when it is predicted; the search
  // itself sees one length for all, rounded up to a multiple of every tp x 2 cp up to 128 (a
  // 3,837-token mean sequence would otherwise rule out every tp > 1 and cp > 1, leaving a
  // 671B MoE no layout). Megatron pads sequences to tp x 2 cp the same way (its
  // get_batch_on_this_cp_rank splits a sequence into 2 cp chunks).
  constexpr std::int64_t kSearchQuantum = 128;
  Scenario searched = t;
  searched.training->seq_len = round_up(searched.training->seq_len, kSearchQuantum);
  SearchOptions o;
  // Enough of the fastest layouts to hold kTrainCandidates distinct trainers: each trainer comes
  // as many as 18 times (its packs and their halvings, each recomputed three ways).
  o.top = 16 * kTrainCandidates;
  o.mode = SearchMode::training;
  FixedLayout f;
  f.micro_batch = 1;
  f.interleave = 1;
  f.zero_stage = 1;
  f.sequence_parallel_with_tp = true;  // as the layout chosen is read back (rl.train states no key)
  f.optimizer_offload = s.rl->offload == RlOffload::cpu_optimizer;
  // Each layout ranked at the micro-batches the step packs on it (train_batch), and at their
  // halvings, which fit_trainer falls back to where a pack does not fit; the mini-batch rounded up
  // to them on every rank. Ranked at micro-batch 1 instead, a MoE trainer whose packed update was
  // faster at ep 16 fell out of the best kTrainCandidates on devices with doubled peak rates,
  // which then took the longer step (scripts/sweep_monotone.py --family rl).
  searched.training->global_batch = train_batch(*s.rl, t.parallel).mini;
  f.micro_batches_of = [&rl = *s.rl](const ParallelPlan& q) {
    std::vector<std::int64_t> packs;
    for (std::int64_t m = train_batch(rl, q).micro_batch; m >= 1; m /= 2) packs.push_back(m);
    return packs;
  };
  auto res = search_layouts(searched, f, o);
  // The optimizer state sharded (ZeRO 1: Megatron's distributed optimizer) and the parameters and
  // gradients too (ZeRO 3: verl's FSDP, NeMo-RL's DTensor FSDP2) compete, the fastest first: a
  // ZeRO 1 layout that only just fits can train far slower than a ZeRO 3 one (Qwen3-30B-A3B on a
  // training pool of 4 H200: tp 2 at ZeRO 1, 13% MFU, against ep 4 at ZeRO 3, which an H100 pool's
  // search reached, so the faster device took the longer step). Where neither fits and no offload
  // is stated, the optimizer state goes to host memory (rl.train.offload cpu_optimizer), as
  // model_passes fits a layout that is stated.
  if (res) {
    f.zero_stage = 3;
    auto sharded = search_layouts(searched, f, o);
    if (sharded)
      merge_fastest(res.value().best, sharded->best, 2 * o.top);  // both lists whole
    else
      res = std::move(sharded);
  }
  if (res && res->best.empty() && !s.rl->offload_given && s.system.host_link.value > 0) {
    f.zero_stage.reset();
    res = search_host_optimizer(searched, f, o);
  }
  if (!res) {
    Error e = res.error();
    e.path = "/rl/train";
    return e;
  }
  if (res->best.empty())
    return make_error("rl.train_no_layout", "/rl/train",
                      "no training layout of " + std::to_string(t.num_devices) +
                          " devices fits one mini-batch of this model");
  // Layouts that differ only in their micro-batches or their recomputation are one trainer to the
  // step, which packs and recomputes as fit_trainer finds from the fastest of them. The distinct
  // trainers are then ranked by their updates (mini_batches x the searched iteration) and the
  // gather of their shards that an NCCL weight sync starts with (gather_s), which the search does
  // not see and a layout can make the longest part of the step: an ep 128 trainer on GB200 NVL72
  // gathers its experts across the 72-GPU NVLink domain for 9.9 s where ep 64 takes 0.6 s.
  const auto same_trainer = [](const ParallelPlan& a, const ParallelPlan& b) {
    return a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.dp == b.dp && a.ep == b.ep && a.etp == b.etp &&
           a.zero_stage == b.zero_stage && a.sequence_parallel == b.sequence_parallel &&
           a.optimizer_offload == b.optimizer_offload;
  };
  const double wbytes = s.rl->weight_sync == RlWeightSync::nccl ? synced_bytes(s) : 0.0;
  std::vector<std::pair<double, ParallelPlan>> ranked;
  for (const LayoutResult& c : res->best) {
    if (std::any_of(ranked.begin(), ranked.end(),
                    [&](const auto& r) { return same_trainer(r.second, c.plan); }))
      continue;
    const double gather = wbytes > 0 ? gather_s(s, c.plan, wbytes) : 0.0;
    ranked.emplace_back(d(s.rl->mini_batches) * c.time.value + gather, c.plan);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  // The best kTrainCandidates of each ZeRO stage: the stage also sets, colocated, the trainer's
  // state swapped beside the engine (Llama 3.1 8B on 8 GB200, with doubled peak rates: ZeRO 1
  // trains 0.33 s where ZeRO 3 took 0.46 s, but no longer fits beside the engine and swaps 0.31 s
  // where ZeRO 3 swaps 0.03 s).
  std::vector<ParallelPlan> plans;
  for (const auto& candidate : ranked) {
    const int stage = candidate.second.zero_stage;
    const auto same_stage = [stage](const ParallelPlan& p) { return p.zero_stage == stage; };
    if (static_cast<std::size_t>(std::count_if(plans.begin(), plans.end(), same_stage)) == kTrainCandidates)
      continue;
    plans.push_back(candidate.second);
    if (s.rl->roles == RlRoles::separate) break;
  }
  return plans;
}

Result<std::vector<ParallelPlan>> train_candidates(Scenario& s, RlTrainSearchMemo* memo = nullptr) {
  if (!s.rl->train_auto) return std::vector<ParallelPlan>{s.rl->train};
  s.rl->train = ParallelPlan{};
  s.rl->train.dp = 0;
  auto t = rl_train_scenario(s, s.model);
  if (!t) return t.error();
  // What the search reads that differs between one placement search's candidates: the pool's
  // training scenario (its devices, the sequence trained, the mini-batch, its packing and the
  // optimizer offload); the model, the system and the workload's other keys are the job's.
  const RlTrainSearchMemo::Key key{t->num_devices, t->training->seq_len, t->training->global_batch,
                                   t->parallel.micro_batch, t->parallel.optimizer_offload};
  const std::vector<ParallelPlan>* known = memo ? memo->find(key) : nullptr;
  auto plans = known ? Result<std::vector<ParallelPlan>>(*known) : searched_train_plans(s, *t);
  if (!plans) return plans;  // searched again by the next candidate: a refusal is not kept
  if (memo && !known) memo->remember(key, *plans);
  s.rl->train_auto = false;
  s.rl->zero_stage_given = true;  // the search's choice
  return plans;
}

}  // namespace

const std::vector<ParallelPlan>* RlTrainSearchMemo::find(const Key& key) const {
  for (const auto& [k, plans] : entries_)
    if (k == key) return &plans;
  return nullptr;
}

void RlTrainSearchMemo::remember(const Key& key, const std::vector<ParallelPlan>& plans) {
  entries_.emplace_back(key, plans);
}

std::optional<Error> check_rl_train_auto(const Scenario& s) {
  if (!s.rl || !s.rl->train_auto) return std::nullopt;
  Scenario copy = s;
  auto plans = train_candidates(copy);
  if (!plans) return plans.error();
  return std::nullopt;
}

namespace {

// Whether validate would pass the job (io/api.cpp validate, in the order predict_rl meets them):
// its counts and layouts, the rollout engines unless `engines` is false, then the trainer (its
// search when "auto") unless `trainer` is false.
bool rl_validates(const Scenario& s, bool engines, bool trainer) {
  if (check_rl(s) || (engines && !rl_rollout_scenario(s))) return false;
  if (!trainer) return true;
  if (s.rl->train_auto) return !check_rl_train_auto(s);
  return static_cast<bool>(rl_train_scenario(s, s.model));
}

// The fewest devices the look of search.h fewest_count finds for the pool `grow` names (colocated:
// every device) at which the job validates, else 0; `below` the largest pool tried that did not.
// Split: only the grown pool is checked (add_rl_fewest_devices looks at the trainer beside grown
// engines itself); colocated: the whole job. Returns the grown pool's size (colocated: the
// job's devices); the job then has s.num_devices + size - pool_of(s, grow) in all.
enum class Grow { all, rollout, trainer };
std::int64_t pool_of(const Scenario& s, Grow grow) {
  return grow == Grow::all       ? s.num_devices
         : grow == Grow::trainer ? s.rl->train_devices
                                 : s.rl->rollout_devices;
}
// A trainer layout stated (or the default one) validates at every count it tiles, whether or not
// it fits there: DeepSeek-V3's colocated job on 8 H100 was told "16 devices would", and at 16 its
// default trainer (ZeRO 3, ep 1) needed 255 GB a device. For such a trainer the look asks for the
// count at which the predicted job also fits, the engines' and the trainer's memory (64 there),
// and falls back to the first count that validates where none up to its limit fits. A trainer
// "auto" validates only where a layout fits (check_rl_train_auto), so it needs no second look.
std::int64_t fewest_pool(const Scenario& s, Grow grow, std::int64_t& below,
                         bool* trainer_fits_nowhere = nullptr) {
  const std::int64_t pool = pool_of(s, grow);
  const auto at = [&](std::int64_t size) {
    Scenario t = s;
    if (grow == Grow::trainer) t.rl->train_devices = size;
    if (grow == Grow::rollout) t.rl->rollout_devices = size;
    t.num_devices = s.num_devices + size - pool;
    return t;
  };
  const auto runs = [&](std::int64_t size) {
    return rl_validates(at(size), grow != Grow::trainer, grow != Grow::rollout);
  };
  if (grow != Grow::rollout && !s.rl->train_auto) {
    const auto fits = [&](std::int64_t size) {
      if (!runs(size)) return false;
      const auto p = predict_rl(at(size));
      return p && p->train_memory.fits && p->rollout_memory.fits;
    };
    std::int64_t fit_below = 0;
    if (const std::int64_t n = fewest_count(pool, s.system.devices_per_node, fits, fit_below); n > 0) {
      below = fit_below;
      return n;
    }
    if (trainer_fits_nowhere) *trainer_fits_nowhere = true;
  }
  return fewest_count(pool, s.system.devices_per_node, runs, below);
}

}  // namespace

void add_rl_fewest_devices(const Scenario& s, Error& e) {
  if (!s.rl) return;
  const RlWorkload& rl = *s.rl;
  // Which pool grows: the trainer's for a trainer no layout fits (its search must be free to use
  // them), the engines' for engines that hold no response at any tp they may choose (a stated tp or
  // dp is a replica more devices do not widen).
  const bool trainer = e.code == "rl.train_no_layout" && rl.train_auto;
  const bool engines = e.code == "rl.rollout_does_not_fit" && rl.rollout.tp == 0 && rl.rollout.dp == 0;
  if (!trainer && !engines) return;
  const bool split = rl.placement == RlPlacement::split;
  const Grow grow = !split ? Grow::all : trainer ? Grow::trainer : Grow::rollout;
  std::int64_t below = 0;
  bool nowhere = false;
  const std::int64_t size = fewest_pool(s, grow, below, &nowhere);
  if (size == 0) return;
  // The count that runs, where no count the look tries fits the stated trainer (ZeRO-3 at ep 1
  // gathers a whole MoE layer on every device: DeepSeek-V3's 11 B parameters).
  const std::string trainer_nowhere =
      nowhere
          ? " run the engines, but the trainer as stated (tp " + std::to_string(rl.train.tp) + ", ep " +
                std::to_string(std::max<std::int64_t>(1, rl.train.ep)) +
                (rl.zero_stage_given ? ", ZeRO " + std::to_string(rl.train.zero_stage)
                                     : std::string(", any ZeRO stage")) +
                ") fits in memory at none of the counts tried: state rl.train.ep and tp, or rl.train \"auto\""
          : std::string();
  const std::int64_t pool = pool_of(s, grow);
  // "no layout of B does" where the largest count the look refused exceeds the pool as stated.
  const auto no_layout = [](std::int64_t refused, std::int64_t stated, const std::string& what) {
    return refused > stated ? "no " + what + std::to_string(refused) + " does" : std::string();
  };
  if (!split) {
    e.fewest_devices = s.num_devices + size - pool;
    const std::string fewer = no_layout(below, pool, "layout of ");
    e.message += "; " + std::to_string(e.fewest_devices) + " devices would" +
                 (fewer.empty() ? "" : " (" + fewer + ")") + trainer_nowhere;
    return;
  }
  e.fewest_rollout_devices = trainer ? rl.rollout_devices : size;
  std::int64_t train_devices = trainer ? size : rl.train_devices, train_below = 0;
  // The engines refuse before the trainer is looked at (rl_validates' order), so a trainer that no
  // layout of its stated pool fits shows only once the rollout pool has grown. Looked at here, at
  // the grown job, it grows in the same remedy: one edit, not one per estimate.
  // A trainer not stated is searched where its default fits nowhere (search_unfitting_default), so
  // it grows with the engines as "auto" does, to where the predicted trainer fits.
  if (engines && (rl.train_auto || !rl.train_given)) {
    Scenario grown = s;
    grown.rl->rollout_devices = e.fewest_rollout_devices;
    grown.num_devices = e.fewest_rollout_devices + rl.train_devices;
    const auto trainer_fits = [&grown] {
      const auto p = predict_rl(grown);
      return p && p->train_memory.fits;
    };
    if (rl.train_auto ? !rl_validates(grown, false, true) : !trainer_fits())
      if (const std::int64_t train = fewest_pool(grown, Grow::trainer, train_below); train > 0)
        train_devices = train;
  }
  const bool both = engines && train_devices != rl.train_devices;
  std::string fewer = no_layout(below, pool, both ? "rollout pool of " : "layout of ");
  if (const std::string t = both ? no_layout(train_below, rl.train_devices, "training pool of ") : "";
      !t.empty())
    fewer += (fewer.empty() ? "" : "; ") + t;
  e.fewest_devices = e.fewest_rollout_devices + train_devices;
  e.message += std::string("; ") + (trainer ? "a training" : "a rollout") + " pool of " +
               std::to_string(size) + " devices" +
               (both ? " and a training pool of " + std::to_string(train_devices) : "") + " would (" +
               std::to_string(e.fewest_devices) + " in all" + (fewer.empty() ? "" : "; " + fewer) + ")" +
               trainer_nowhere;
}

std::int64_t rl_fewest_devices(const Scenario& colocated) {
  std::int64_t below = 0;
  return fewest_pool(colocated, Grow::all, below);  // every device: the pool is the job
}

namespace {

void set_trainer(const Passes& p, RlPrediction& out) {
  out.train_plan = p.plan;
  out.train_global_batch = p.global_batch;
  out.train_seq_len = p.seq_len;
  out.train_iteration_s = p.iteration;
  out.train_mfu = p.mfu;
  out.train_straggler_s = p.straggler;
  if (p.offload_assumed) {
    const std::string how =
        " its optimizer state in host memory, stepped by the CPU (rl.train.offload \"cpu_optimizer\", "
        "Megatron-Core's --optimizer-cpu-offload)";
    out.warnings.push_back(
        {"rl.train_optimizer_offload_assumed",
         p.memory.fits ? "the trainer fits only with" + how + "; assumed, as no offload is stated"
                       : "the trainer does not fit even with" + how +
                             "; predicted so, the layout nearest to fitting, as no offload is stated"});
  }
}

// What a trained model (the actor, PPO's critic) keeps on a shared pool's devices between its own
// passes (rl.train.offload): its weights, gradients and optimizer state (none), its weights (optimizer),
// nothing (params_optimizer, verl's param and optimizer offload). The models of a worker group are
// built side by side on the same devices (verl's hybrid worker group, OpenRLHF's
// --colocate_all_models). The frozen ones (reference, reward model) are taken to wait in host
// memory and be loaded for their forward: NeMo-RL keeps the reference policy's state dict in CPU
// memory and swaps it in for the reference log-probs, verl's recipes set the reference's
// param_offload; the load is not timed, and a frozen model's forward is held to its own weights.
MemoryBreakdown resident(const MemoryBreakdown& m, RlOffload o) {
  MemoryBreakdown r;
  if (o == RlOffload::params_optimizer) return r;
  r.weights = m.weights;
  if (o == RlOffload::none) r.gradients = m.gradients, r.optimizer = m.optimizer;
  return r;
}
MemoryBreakdown plus(MemoryBreakdown a, const MemoryBreakdown& b) {
  a.weights = a.weights + b.weights;
  a.gradients = a.gradients + b.gradients;
  a.optimizer = a.optimizer + b.optimizer;
  return a;
}

// Step 2 (roles "shared"): the trainer's side on the whole training pool, one model after
// another: the policy's update (mini_batches optimizer steps), its forward passes (reference, old
// log-probs), the reward model and PPO's critic. Returns the trainer's memory report.
Result<MemoryReport> train_models(const Scenario& s, RlPrediction& out) {
  const RlWorkload& rl = *s.rl;
  auto pol = model_passes(s, s.model, train_pool(s), rl.train, "", "", "");
  if (!pol) return pol.error();
  set_trainer(*pol, out);
  for (const Warning& w : pol->device_warnings) out.warnings.push_back({w.code, "trainer: " + w.message});
  out.train_devices = pol->devices;
  out.phases.train = pol->update;
  const OffloadBytes ob = offload_bytes(rl.offload, pol->memory);
  double moved = ob.update;
  // The frozen reference model is the initial policy: the same forward (the KL term's log-probs).
  if (rl.reference) out.phases.reference = pol->forward, moved += ob.forward;
  // old_logprob: the behaviour policy's log-probs recomputed by the trainer (verl
  // actor.compute_log_prob; fully_async uses the engine's own log-probs instead).
  if (rl.old_logprob) out.phases.old_logprob = pol->forward, moved += ob.forward;
  // The pool's peak: each pass's own footprint beside the trained models' resident states.
  MemoryBreakdown frozen;  // the largest frozen model's weights, loaded for its forward
  std::string frozen_name = "reference";
  if (rl.reference) frozen = MemoryBreakdown{pol->memory.per_device.weights, {}, {}, {}, {}};
  if (rl.reward_model) {
    auto rm = model_passes(s, *rl.reward_model, train_pool(s), rl.train, "", "rl.reward_model_invalid",
                           "/rl/reward_model");
    if (!rm) return rm.error();
    out.phases.reward = rm->forward;
    moved += offload_bytes(rl.offload, rm->memory).forward;
    if (rm->memory.per_device.weights.value > frozen.weights.value)
      frozen = MemoryBreakdown{rm->memory.per_device.weights, {}, {}, {}, {}}, frozen_name = "reward model";
  }
  MemoryReport peak = pol->memory;
  std::string peak_model = "actor";  // the model whose pass is the peak: an update, or a frozen forward
  bool peak_update = true;
  MemoryBreakdown trained = resident(pol->memory.per_device, rl.offload);  // what the updates keep
  if (rl.algorithm == RlAlgorithm::ppo) {
    // PPO's critic: a second trained model (OpenRLHF, HybridFlow): its value forward over the
    // step's tokens (with the other forwards) and its own update.
    auto cp = model_passes(s, rl.critic ? *rl.critic : s.model, train_pool(s), rl.train, "",
                           "rl.critic_invalid", "/rl/critic");
    if (!cp) return cp.error();
    out.phases.old_logprob += cp->forward;
    out.phases.train += cp->update;
    out.train_straggler_s += cp->straggler;
    out.critic_s = cp->forward + cp->update;
    moved += cp->offload_bytes;
    const MemoryBreakdown critic_kept = resident(cp->memory.per_device, rl.offload);
    MemoryReport critic = cp->memory;
    critic.per_device = plus(critic.per_device, trained);
    peak.per_device = plus(peak.per_device, critic_kept);
    if (critic.per_device.total().value > peak.per_device.total().value) peak = critic, peak_model = "critic";
    trained = plus(trained, critic_kept);
  }
  // A frozen model's forward: at least its weights (the trained models' states may go to host
  // memory meanwhile, as verl's offload does; its activations are left out).
  if (frozen.total().value > peak.per_device.total().value) {
    peak.per_device = frozen;
    peak_model = frozen_name, peak_update = false;
  }
  peak.fits = pol->memory.fits && peak.per_device.total().value <= peak.capacity.value;
  out.offload_bytes_per_device = moved;
  out.train_memory.bytes_per_device = peak.per_device.total().value;
  out.train_memory.fits = peak.fits;
  if (!pol->memory.fits) {
    out.train_memory.what = "trainer (weights, gradients, optimizer state and activations)";
  } else if (!peak.fits) {
    // An update beside the other trained model's state (offloading it or separate roles make
    // room); a frozen model's forward, its weights alone (no offload of the others helps).
    out.train_memory.what =
        "trainer (the " + peak_model + (peak_update ? "'s update" : "'s forward") +
        (peak_update
             ? std::string(" beside the ") + (peak_model == "actor" ? "critic" : "actor") +
                   "'s resident state on the same devices; rl.train.offload params_optimizer or roles "
                   "\"separate\" would make room)"
             : std::string(": its weights alone are more than a device holds at this layout)"));
  }
  return peak;
}

// Step 2 (roles "shared") at the ZeRO stage the pool needs. A stage not stated is the smallest
// under which the trainer fits (model_passes), and the trainer's devices also hold PPO's critic
// and load the frozen models for their forwards: where the policy fits alone but not beside them,
// the stage is raised for every model until the pool fits, as the stacks pass one stage to every
// model of the worker group (OpenRLHF's --zero_stage builds the actor's and the critic's DeepSpeed
// strategies; verl's FSDP config shards the actor, critic and reference alike). Where no stage
// fits, the smallest stage's prediction stands with memory.does_not_fit.
Result<MemoryReport> run_training(const Scenario& s, RlPrediction& out) {
  if (s.rl->zero_stage_given) return train_models(s, out);
  const RlPrediction before = out;  // what a raised stage's passes start from
  auto peak = train_models(s, out);
  if (!peak || peak->fits) return peak;
  for (int z = out.train_plan.zero_stage + 1; z <= 3; ++z) {
    Scenario raised = s;
    raised.rl->train.zero_stage = z;
    raised.rl->zero_stage_given = true;
    RlPrediction o = before;
    auto p = train_models(raised, o);
    if (p && p->fits) {
      out = std::move(o);
      return p;
    }
  }
  return peak;
}

// Step 2 (roles "separate"): each model on its own devices (split_roles), their passes at once:
// the forward passes (old log-probs and critic values, reference, reward) run side by side, then
// the updates (actor, critic). Each phase is its slowest role's; the memory is checked per role
// (a frozen model holds its weights only). Returns the actor's memory report.
Result<MemoryReport> run_training_separate(const Scenario& s, RlPrediction& out) {
  const RlWorkload& rl = *s.rl;
  ParallelPlan plan = rl.train;
  plan.dp = 0;
  auto slots = split_roles(s, std::max<std::int64_t>(1, plan.tp * plan.pp * plan.cp));
  if (!slots) return slots.error();
  const double hbm = s.system.device.hbm_capacity.value;
  MemoryReport actor_memory;
  out.train_devices = train_pool(s);
  for (const RoleSlot& x : *slots) {
    if (!x.present) continue;
    const std::string name = x.name;
    const bool critic = name == "critic", reward = name == "reward", actor = name == "actor";
    const ModelSpec& m = critic && rl.critic ? *rl.critic : reward ? *rl.reward_model : s.model;
    auto p = model_passes(s, m, x.devices, plan, "/rl/roles/" + name,
                          critic   ? "rl.critic_invalid"
                          : reward ? "rl.reward_model_invalid"
                                   : "",
                          critic   ? "/rl/critic"
                          : reward ? "/rl/reward_model"
                                   : "");
    if (!p) return p.error();
    if (actor)
      for (const Warning& w : p->device_warnings) out.warnings.push_back({w.code, "trainer: " + w.message});
    RlRole r;
    r.name = name;
    r.devices = x.devices;
    r.plan = p->plan;
    const bool trained = actor || critic;
    r.forward_s = actor && !rl.old_logprob ? 0.0 : p->forward;
    r.update_s = trained ? p->update : 0.0;
    r.bytes_per_device = trained ? p->memory.per_device.total().value : p->memory.per_device.weights.value;
    r.fits = trained ? p->memory.fits : r.bytes_per_device <= hbm;
    const OffloadBytes ob = offload_bytes(rl.offload, p->memory);
    out.offload_bytes_per_device = std::max(
        out.offload_bytes_per_device, (r.forward_s > 0 ? ob.forward : 0.0) + (trained ? ob.update : 0.0));
    if (actor) {
      set_trainer(*p, out);
      actor_memory = p->memory;
      out.phases.train = std::max(out.phases.train, r.update_s);
    }
    if (critic)
      out.critic_s = r.forward_s + r.update_s, out.phases.train = std::max(out.phases.train, r.update_s);
    if (actor || critic) out.phases.old_logprob = std::max(out.phases.old_logprob, r.forward_s);
    if (name == "reference") out.phases.reference = r.forward_s;
    if (reward) out.phases.reward = r.forward_s;
    out.train_memory.bytes_per_device = std::max(out.train_memory.bytes_per_device, r.bytes_per_device);
    if (!r.fits && out.train_memory.fits) {
      out.train_memory.fits = false;
      out.train_memory.what =
          name + (trained ? " (weights, gradients, optimizer state and activations)" : " (weights)");
    }
    out.roles.push_back(r);
  }
  return actor_memory;
}

// The trainer's shards gathered into whole tensors before they are sent ("parameter
// generation"): verl's Megatron workers all-gather each parameter's tensor-parallel shards
// (megatron_utils allgather_from_megatron_tp), broadcast it from its pipeline stage
// (broadcast_from_megatron_pp) and gather the experts over expert parallelism; FSDP's full state
// dict all-gathers the data-parallel shards; slime's all_gather_param does the same. verl's
// fully_async doc (docs/advance/fully_async.md, checkpoint_engine): "the main time consumption for
// parameter synchronization is not in the broadcast and load_weights phases, but in the parameter
// generation phase (by megatron or FSDP)", and its default does not overlap them. The sending
// rank receives the (shards - 1) / shards of the weights it does not hold, over the tier its
// gathering group spans (tensor parallelism fastest: place_group). Shards: pp x tp for dense
// weights, pp x ep x etp for experts (the larger counted), times the data-parallel ranks under
// ZeRO-3 / FSDP, which shard the weights themselves.
double gather_s(const Scenario& s, const ParallelPlan& p, double wbytes) {
  std::int64_t within = std::max(p.tp, std::max<std::int64_t>(1, p.ep) * std::max<std::int64_t>(1, p.etp));
  if (p.zero_stage >= 3) within = std::max(within, p.tp * p.cp * p.dp);
  const std::int64_t shards = p.pp * within;
  if (shards <= 1) return 0;
  const GroupPlacement g = place_group(shards, 1, s.system.scale_up.domain_size);
  const NetworkTier& tier = g.crosses_scale_out() ? s.system.scale_out : s.system.scale_up;
  return wbytes * (1.0 - 1.0 / d(shards)) / (tier.bandwidth.value * tier.efficiency);
}

// Weights read from host memory (weight_sync "host"): MoonshotAI checkpoint-engine
// (github.com/MoonshotAI/checkpoint-engine, README "Architecture"): the trainer's ranks register
// their shards in pinned host memory (no gather on the devices), and the update runs bucket by
// bucket, each copied host-to-device by its owner rank, broadcast to every engine rank and
// reloaded, the next bucket's copy pipelined with this one's broadcast. The pipeline runs at its
// slower stage: one device's host link (check_rl refuses a system without one), or the broadcast:
// NVLink within one scale-up domain; across nodes NCCL runs one ring per channel over every NIC
// of a node (rail-aligned rings), so a broadcast leaves a node at devices_per_node NICs' rate,
// capped by NVLink. Its published updates run at 59-76 GB/s on 8 H800 in one NVLink domain and on
// 16-256 H20 over InfiniBand alike, one PCIe 5.0 x16 link's rate (63 GB/s), above one 400 Gb/s
// NIC's 50. The first bucket's fill (a few GB at the host link: under 0.1 s) is not counted.
double host_sync_s(const Scenario& s, double wbytes) {
  const SystemSpec& sys = s.system;
  const double nvlink = sys.scale_up.bandwidth.value * sys.scale_up.efficiency;
  const bool one_domain = s.num_devices <= sys.scale_up.domain_size;
  const double broadcast =
      one_domain ? nvlink
                 : std::min(nvlink, d(std::min(sys.devices_per_node, sys.scale_up.domain_size)) *
                                        sys.scale_out.bandwidth.value * sys.scale_out.efficiency);
  const double latency = (one_domain ? sys.scale_up : sys.scale_out).latency.value;
  return wbytes / std::min(sys.host_link.value, broadcast) + latency;
}

// The bytes a weight sync sends: the engine's weights as it serves them, all but the experts at 16
// bits where the checkpoint quantises its experts alone (dense_weights_16bit: gpt-oss's MXFP4
// experts beside bf16 attention).
double synced_bytes(const Scenario& s) {
  const RlWorkload& rl = *s.rl;
  const ParamCounts params = count_params(s.model, s.model.max_seq_len > 0 ? s.model.max_seq_len : 4096);
  const double element = bytes_per_element(rl.rollout.precision);
  return params.experts * element +
         (params.total - params.experts) * dense_weight_bytes(s.model, rl.rollout.precision, element);
}

// Step 3: the weight sync. The policy's weights at the engine's precision, gathered from the
// trainer's shards (gather_s), then sent. Split: every engine rank receives every tensor (OpenRLHF
// and verl broadcast each full parameter to all engine ranks, which load their shard; MoonshotAI
// checkpoint-engine's broadcast mode the same), pipelined, so the time is the bytes over one
// device's link: NVLink when both pools sit in one scale-up domain, else the scale-out NIC (the
// ring's slowest hop). Colocated: the engine's ranks are the trainer's, so the gathered tensors
// are handed over in device memory, with no broadcast (verl's hybrid engine passes the FSDP /
// Megatron full tensors to the vLLM or SGLang worker of the same GPU, verl/workers/sharding_manager;
// NeMo-RL's colocated refit passes CUDA IPC handles, nemo_rl/models/generation/vllm, while its
// non-colocated refit broadcasts over NCCL). The engine then copies its shard of each tensor into
// its own parameters (vLLM's and SGLang's load_weights): its weights per device read and written
// at the device's streaming rate, colocated after the gather (verl's sharding manager gathers and
// loads tensor by tensor, nothing to overlap); split, that copy runs behind the next bucket's
// broadcast (checkpoint-engine's pipeline, Weights from host memory) and is not counted.
// `engine_weights`: the rollout engine's weight bytes per device.
void weight_sync(const Scenario& s, double engine_weights, RlPrediction& out) {
  const RlWorkload& rl = *s.rl;
  const SystemSpec& sys = s.system;
  const double wbytes = synced_bytes(s);
  out.weight_sync_bytes = wbytes;
  const bool one_domain = s.num_devices <= sys.scale_up.domain_size;
  const NetworkTier& tier = one_domain ? sys.scale_up : sys.scale_out;
  if (rl.weight_sync == RlWeightSync::nccl) {
    const double hand_over = rl.placement == RlPlacement::colocated
                                 ? 2.0 * engine_weights / sys.device.streaming_rate()
                                 : wbytes / (tier.bandwidth.value * tier.efficiency);
    out.phases.weight_sync = gather_s(s, out.train_plan, wbytes) + hand_over + tier.latency.value;
    return;
  }
  if (rl.weight_sync == RlWeightSync::host) {
    out.phases.weight_sync = host_sync_s(s, wbytes);
    return;
  }
  // Through storage: the trainer's nodes write the checkpoint, each engine node reads it (system
  // operations' checkpoint bandwidth per node, capped by the storage's total).
  const double per_node = sys.operations.checkpoint_write_per_node.value;
  const auto nodes = [&](std::int64_t devices) {
    return std::max<std::int64_t>(1, (devices + sys.devices_per_node - 1) / sys.devices_per_node);
  };
  double write = per_node * d(nodes(out.train_devices));
  if (sys.operations.checkpoint_write_total.value > 0)
    write = std::min(write, sys.operations.checkpoint_write_total.value);
  out.phases.weight_sync = wbytes / write + wbytes / per_node;
}

// Step 4: memory per pool and, colocated, the swap. The engine sleeps while the trainer runs
// (vLLM sleep level 1: weights to host memory and back, KV discarded) and, when the trainer's
// resident state does not fit beside the engine's reservation, the trainer's weights, gradients
// and optimizer state go to host memory and back too (verl's param / optimizer offload). Each
// over the host link, both directions.
void pools_and_swap(const Scenario& s, const MemoryReport& tm, const RolloutRun& run, RlPrediction& out) {
  const SystemSpec& sys = s.system;
  const double hbm = sys.device.hbm_capacity.value;
  out.trainer_memory = tm;
  out.train_memory.capacity_bytes = hbm;
  out.rollout_memory.capacity_bytes = hbm;
  out.rollout_memory.bytes_per_device = run.util * hbm;
  out.rollout_memory.fits = true;  // check_serving refused a layout whose KV holds no response
  if (s.rl->placement != RlPlacement::colocated) return;
  // Under rl.train.offload the offloaded state is already in host memory while the engine runs
  // (its traffic is in the passes' time): only what stays resident is kept or swapped here.
  const RlOffload off = s.rl->offload;
  const double trainer_static =
      off == RlOffload::params_optimizer ? 0.0
      : off == RlOffload::optimizer
          ? (tm.per_device.weights + tm.per_device.gradients).value
          : (tm.per_device.weights + tm.per_device.gradients + tm.per_device.optimizer).value;
  double moved = run.engine_weights;
  if (trainer_static + run.util * hbm > hbm)
    moved += trainer_static;
  else
    out.rollout_memory.bytes_per_device += trainer_static;
  out.swap_bytes_per_device = moved;
  if (sys.host_link.value > 0) {
    out.phases.swap = 2.0 * moved / sys.host_link.value;
  } else {
    out.warnings.push_back({"rl.no_host_link",
                            "the system states no host link (host_link_GBps): the colocated swap of "
                            "the engine's weights is not timed"});
  }
}

// The slowest of the forward passes that run side by side under roles "separate".
double slowest_forward(const RlPhases& ph) { return std::max({ph.reward, ph.reference, ph.old_logprob}); }

// The training side of a step: its phases one after another on a shared pool; with roles
// "separate" the forward passes run at once (the slowest of reward, reference and old log-probs /
// critic values), then the updates (train is already the slower of actor and critic).
double trainer_side(const RlWorkload& rl, const RlPhases& ph) {
  if (rl.roles == RlRoles::separate) return slowest_forward(ph) + ph.train;
  return ph.reward + ph.reference + ph.old_logprob + ph.train;
}

// Step 5: the step from its phases, per placement, and the pools' idle time.
void compose_step(const Scenario& s, double input_tokens, RlPrediction& out) {
  const RlWorkload& rl = *s.rl;
  const RlPhases& ph = out.phases;
  const double train_side = trainer_side(rl, ph);
  // Roles "separate": the forwards run side by side, then the updates (trainer_side): a role
  // waits for the slowest forward after its own, then for the slower update after its own.
  const double forwards = slowest_forward(ph);
  for (RlRole& r : out.roles) {
    r.wait_after_forward_s = std::max(0.0, forwards - r.forward_s);
    r.wait_after_update_s = std::max(0.0, ph.train - r.update_s);
    r.idle_s = r.wait_after_forward_s + r.wait_after_update_s;
  }
  if (rl.placement == RlPlacement::colocated) {
    out.step_time_s = ph.rollout + train_side + ph.weight_sync + ph.swap;
  } else if (rl.staleness == 0) {
    // Split and on-policy: each pool waits for the other.
    out.step_time_s = ph.rollout + train_side + ph.weight_sync;
    out.idle_rollout_s = train_side;
    out.idle_train_s = ph.rollout;
  } else {
    // Split and asynchronous (staleness >= 1): the rollout of step n + 1 runs during the update of
    // step n; the step is the slower pool plus the sync both pools stop for.
    out.step_time_s = std::max(ph.rollout, train_side) + ph.weight_sync;
    out.idle_rollout_s = std::max(0.0, train_side - ph.rollout);
    out.idle_train_s = std::max(0.0, ph.rollout - train_side);
  }
  out.tokens_per_step = input_tokens + out.output_tokens;
  out.tokens_per_s = out.step_time_s > 0 ? out.tokens_per_step / out.step_time_s : 0.0;
  out.tokens_per_s_per_gpu = out.tokens_per_s / d(s.num_devices);
  // The remedies named are those left: at ZeRO 3 a higher stage is not one.
  const std::string more = out.train_plan.zero_stage >= 3 ? "more tp, pp, cp or ep, or more training devices"
                                                          : "more tp, pp, cp or a higher zero_stage";
  if (!out.train_memory.fits)
    out.warnings.push_back(
        {"memory.does_not_fit",
         "the " + (out.train_memory.what.empty() ? std::string("trainer") : out.train_memory.what) +
             " needs more memory per device than " + s.system.device.name + " has; " + more +
             " would reduce it"});
  // Fits, but not beside the runtime's own memory (memory/footprint.h, runtime_reserve).
  const std::int64_t pool = out.train_devices > 0 ? out.train_devices : s.num_devices;
  const Bytes capacity(out.train_memory.capacity_bytes), footprint(out.train_memory.bytes_per_device);
  if (!out.train_memory.fits || !(capacity.value > 0)) return;
  if (auto w = little_headroom_warning("training", footprint, capacity, pool,
                                       "a smaller micro-batch or token budget, " + more))
    out.warnings.push_back(*w);
}

}  // namespace

// One step's energy at the meter: devices draw their mean power over the step's mix of work
// (run/run.h device_power_w: compute while training, memory-bound while decoding, idle
// otherwise), nodes their overhead, the facility its PUE.
double rl_step_energy_mwh(const Scenario& s, const RlPrediction& p) {
  const SystemSpec& sys = s.system;
  const RlPhases& ph = p.phases;
  const double n = d(s.num_devices);
  const double rollout_dev_s = ph.rollout * d(p.rollout_devices);
  const double train_dev_s = trainer_side(*s.rl, ph) * d(p.train_devices);
  const double comm_dev_s = (ph.weight_sync + ph.swap) * n;
  const double total_dev_s = std::max(1e-12, p.step_time_s * n);
  ActivityShares a;
  a.memory = std::min(1.0, rollout_dev_s / total_dev_s);
  a.compute = std::min(1.0 - a.memory, train_dev_s / total_dev_s);
  a.communication = std::min(1.0 - a.memory - a.compute, comm_dev_s / total_dev_s);
  a.other = std::max(0.0, 1.0 - a.memory - a.compute - a.communication);
  const DevicePower& pw = sys.device.power;
  const double watts =
      device_power_w(pw.tdp_w, pw.idle_fraction, pw.memory_activity, pw.communication_activity, a);
  const double node_w = sys.operations.node_overhead_w * n / d(sys.devices_per_node);
  return (watts * n + node_w) * p.step_time_s * s.economics.pue / 3.6e9;
}

// One step's cost (run/run.h cost_usd): its device-hours at the price, and its electricity where
// the devices are owned; absent without a price.
std::optional<double> rl_step_cost_usd(const Scenario& s, const RlPrediction& p) {
  return cost_usd(s.economics, s.system.device.power.price_usd, d(s.num_devices) * p.step_time_s / 3600.0,
                  rl_step_energy_mwh(s, p));
}

namespace {

// Step 6, with train_steps: the whole run, steps x the step; asynchronous, plus the pipeline's
// fill: the first rollout has no update to overlap, and the last update no rollout (of the two
// pools' times the shorter is paid once more: a run of one step is a rollout, then an update).
void whole_run(const Scenario& s, RlPrediction& out) {
  const RlWorkload& rl = *s.rl;
  if (rl.train_steps <= 0) return;
  out.train_steps = rl.train_steps;
  const bool pipelined = rl.placement == RlPlacement::split && rl.staleness > 0;
  const double fill = pipelined ? std::min(out.phases.rollout, trainer_side(rl, out.phases)) : 0.0;
  out.run_wall_s = d(rl.train_steps) * out.step_time_s + fill;
  out.run_gpu_hours = d(s.num_devices) * out.run_wall_s / 3600.0;
  out.run_energy_mwh = d(rl.train_steps) * rl_step_energy_mwh(s, out);
  // Without a price the run has no cost: its electricity alone would read as one.
  out.run_cost_usd =
      cost_usd(s.economics, s.system.device.power.price_usd, out.run_gpu_hours, out.run_energy_mwh);
  if (!out.run_cost_usd) out.warnings.push_back(no_price_warning("RL run"));
}

// The single controller's data plane. verl (RayPPOTrainer), NeMo-RL and OpenRLHF drive every phase
// from one Python process on Ray: the rollout's results come back to it, and each trainer pass
// (reward model, reference, old log-probs and critic values, the update) is sent the batch by it,
// serialized through Ray's object store. The batch is padded: verl's DataProto holds input_ids,
// attention_mask and position_ids over the longest prompt + the longest response and the responses
// over the longest response, int64 each. The driver moves it at a rate of its own, not divided by
// the devices: the serial part that TransferQueue was written to remove ("all DataProto objects must
// be routed through RayPPOTrainer, resulting in a single point bottleneck", TransferQueue README,
// PR 105, 2025-11), that NeMo-RL's issue 1877 (2026-02) times at 135 s of dispatch for 512 x 32k
// sequences, and that OpenRLHF's issue 998 (2025-04) reports for 256 x 16 x 8k. One pass per
// phase that runs, in that phase; the rate is rl.controller_GBps (docs/rl.md fits its default).
void controller_passes(const Scenario& s, RlPrediction& out) {
  const RlWorkload& rl = *s.rl;
  // A calibration's host factor speeds the driver as it speeds the other host work.
  const double rate = rl.controller_GBps.value_or(kRlControllerGBps) * s.system.software.host_speed;
  if (!(rate > 0)) return;
  out.controller_GBps = rate;
  const double longest = d(rl.prompt_len.largest() + rl.response_len.largest());
  out.controller_bytes = d(requests(rl)) * 8.0 * (3.0 * longest + d(rl.response_len.largest()));
  const double pass = out.controller_bytes / (rate * 1e9);
  RlPhases& ph = out.phases;
  for (double* phase : {&ph.rollout, &ph.reward, &ph.reference, &ph.old_logprob, &ph.train}) {
    if (!(*phase > 0)) continue;
    *phase += pass;
    out.controller_s += pass;
    ++out.controller_passes;
  }
}

// Steps 2 to 5 on the scenario's trainer layout, after the rollout (`out` holds its numbers): the
// trainer's passes, the weight sync, the offload traffic, the pools' memory and swap, the step.
std::optional<Error> finish_step(const Scenario& s, const RolloutRun& run, RlPrediction& out) {
  auto trainer = s.rl->roles == RlRoles::separate ? run_training_separate(s, out) : run_training(s, out);
  if (!trainer) return trainer.error();
  controller_passes(s, out);
  // A rule-based reward scores each response on the host before the advantages are computed (verl's
  // reward manager loops over the batch in the driver; code rewards run each response's tests): the
  // step waits responses x reward_cpu_ms / reward_workers, in the reward phase beside a reward
  // model's forward.
  out.reward_cpu_s = d(requests(*s.rl)) * s.rl->reward_cpu_ms * 1e-3 / d(s.rl->reward_workers);
  out.phases.reward += out.reward_cpu_s;
  weight_sync(s, run.engine_weights, out);
  if (s.rl->offload == RlOffload::params_optimizer) {
    // The policy's parameters come back to the devices to be gathered and sent (verl loads the
    // FSDP module before resharding it to the engine), and go back after.
    const double bytes = 2.0 * trainer->per_device.weights.value;
    out.phases.weight_sync += host_seconds(s, bytes);
    out.offload_bytes_per_device += bytes;
  }
  out.offload_s = host_seconds(s, out.offload_bytes_per_device);
  if (s.rl->offload != RlOffload::none && s.system.host_link.value <= 0)
    out.warnings.push_back({"rl.no_host_link",
                            "the system states no host link (host_link_GBps): the trainer's offload "
                            "traffic is not timed"});
  pools_and_swap(s, *trainer, run, out);
  compose_step(s, run.input_tokens, out);
  return std::nullopt;
}

// Each candidate trainer's whole step on the same rollout; the fastest that fits is kept (one
// candidate unless train is "auto": train_candidates), and of equal steps (a split pool waiting
// on the rollout) the one whose trainer is busy the least.
struct TrainerPick {
  std::optional<RlPrediction> best;
  Scenario chosen;  // the job with the kept trainer
  std::optional<Error> first_error;
};
TrainerPick pick_trainer(const Scenario& s, const std::vector<ParallelPlan>& plans, const RolloutRun& run,
                         const RlPrediction& out) {
  const auto busy = [](const RlPrediction& p) {
    return p.phases.train + p.phases.reference + p.phases.old_logprob + p.phases.reward;
  };
  const auto faster = [&busy](const RlPrediction& a, const RlPrediction& b) {
    if (std::abs(a.step_time_s - b.step_time_s) > 1e-9 * b.step_time_s) return a.step_time_s < b.step_time_s;
    return busy(a) < busy(b);
  };
  TrainerPick pick{std::nullopt, s, std::nullopt};
  for (const ParallelPlan& plan : plans) {
    Scenario c = s;
    c.rl->train = plan;
    RlPrediction o = out;
    if (auto err = finish_step(c, run, o)) {
      if (!pick.first_error) pick.first_error = std::move(err);
      continue;
    }
    const bool fits = o.train_memory.fits;
    if (!pick.best || (fits && !pick.best->train_memory.fits) ||
        (fits == pick.best->train_memory.fits && faster(o, *pick.best))) {
      pick.best = std::move(o);
      pick.chosen = std::move(c);
    }
  }
  return pick;
}

// A job that states no trainer (rl.train absent) is predicted on the data-parallel default (verl's
// FSDP backend: ep 1, the smallest ZeRO stage that fits). Where that trainer fits the pool under no
// stage, even with the optimizer on the host, no stack would run it so: a model that large is
// trained with its layers and experts split (verl's Megatron backend, NeMo-RL, slime; DeepSeek-V3
// on 256 H100 at ep 1 and ZeRO-3 needs 113 GiB a device). The layout search's trainer (train
// "auto") is then predicted on the same rollout, where one fits, and rl.train_layout_searched says
// so; where none fits, the default's prediction nearest to fitting stands. Returns whether the
// searched trainer was taken.
bool search_unfitting_default(const Scenario& s, const RolloutRun& run, const RlPrediction& out,
                              RlTrainSearchMemo* memo, TrainerPick& picked) {
  if (picked.best->train_memory.fits) return false;
  Scenario a = s;
  a.rl->train_auto = true;
  auto plans = train_candidates(a, memo);
  if (!plans) return false;
  TrainerPick searched = pick_trainer(a, *plans, run, out);
  if (!searched.best || !searched.best->train_memory.fits) return false;
  const ParallelPlan& d = picked.best->train_plan;
  const ParallelPlan& p = searched.best->train_plan;
  char words[400];
  std::snprintf(
      words, sizeof words,
      "no rl.train is stated and the default data-parallel trainer (tp %lld, pp %lld, cp %lld, ep "
      "%lld, dp %lld, ZeRO-%d) fits in no device's memory: the layout search's trainer (tp %lld, pp "
      "%lld, cp %lld, ep %lld, dp %lld, ZeRO-%d) is predicted",
      static_cast<long long>(d.tp), static_cast<long long>(d.pp), static_cast<long long>(d.cp),
      static_cast<long long>(d.ep), static_cast<long long>(d.dp), d.zero_stage, static_cast<long long>(p.tp),
      static_cast<long long>(p.pp), static_cast<long long>(p.cp), static_cast<long long>(p.ep),
      static_cast<long long>(p.dp), p.zero_stage);
  searched.best->warnings.push_back(
      {"rl.train_layout_searched", std::string(words) +
                                       ", as a job this large splits its layers and experts (verl's Megatron "
                                       "backend, NeMo-RL, slime); state rl.train for the layout you run"});
  picked = std::move(searched);
  return true;
}

}  // namespace

Result<RlPrediction> predict_rl(const Scenario& input, RlTrainSearchMemo* memo, double rollout_horizon_s) {
  Scenario s = input;
  if (auto err = check_rl(s)) return *err;
  RlPrediction out;
  read_length_limits(s, *input.rl, *s.rl, out.warnings);
  // The rollout engines load the checkpoint as published (vLLM and SGLang read its
  // quantization_config), unless rl.rollout.precision says otherwise.
  if (s.rl->rollout.precision_from_checkpoint)
    out.warnings.push_back({"rl.rollout_checkpoint_precision",
                            "no rl.rollout.precision stated: the rollout engines serve " +
                                model_label(s.model) + "'s weights as its checkpoint publishes them, " +
                                served_as_published(s.model, s.rl->rollout.precision, false) +
                                " (model.checkpoint_precision); the weight sync sends them at that width"});
  warn_mtp_assumptions(s.model, s.rl->rollout.speculative, "rl.rollout.speculative", out.warnings);
  // A training stack's profile (megatron-bridge, pytorch-fsdp, ...) as the rollout engine: its
  // kernels apply, but it states no scheduler, so the serving defaults do (ServingSpec).
  if (!s.rl->rollout.profile_schedules)
    out.warnings.push_back({"rl.rollout_not_serving",
                            not_serving_words("rl.rollout.software '" + s.rl->rollout.software_id + "'",
                                              s.rl->rollout.scheduler)});
  // The engines' layout before the trainer's, the order validate (io/api.cpp) checks them in: a job
  // whose engines and trainer both do not fit is told about the engines first, either way.
  auto engines = rl_rollout_scenario(s);
  if (!engines) return engines.error();
  // A stated trainer layout that cannot run is refused before the rollout is simulated (as validate
  // refuses it), rather than after.
  if (!s.rl->train_auto)
    if (auto t = rl_train_scenario(s, s.model); !t) return t.error();
  auto plans = train_candidates(s, memo);
  if (!plans) return plans.error();
  auto run = run_rollout(s, std::move(*engines), out, rollout_horizon_s);
  if (!run) return run.error();
  TrainerPick picked = pick_trainer(s, *plans, *run, out);
  if (!picked.best) return *picked.first_error;
  const bool searched = !input.rl->train_given && search_unfitting_default(s, *run, out, memo, picked);
  std::optional<RlPrediction>& best = picked.best;
  whole_run(picked.chosen, *best);
  if (!input.rl->controller_GBps && best->controller_s > 0) {
    char words[256];
    std::snprintf(words, sizeof words,
                  "rl.controller_GBps is not stated: the step's padded batch (%.3g GB a pass) is assumed to "
                  "pass through one driver process at %.3g GB/s once per phase, %.3g s of the step",
                  best->controller_bytes / 1e9, best->controller_GBps, best->controller_s);
    best->warnings.push_back({"rl.controller_assumed",
                              std::string(words) +
                                  ", as verl, NeMo-RL and OpenRLHF move it on Ray (docs/rl.md); state 0 "
                                  "for a stack whose workers exchange the batch directly (AReaL), or your "
                                  "driver's measured rate"});
  }
  // More data-parallel ranks than a mini-batch has sequences: each rank is given a whole
  // micro-batch, so the update trains a batch padded past the step's responses (1,024 responses on
  // 10^8 devices trained 10^8 sequences), where the stacks refuse a mini-batch that does not divide
  // over their ranks (verl: ppo_mini_batch_size must be divisible by the data-parallel size).
  const double per_mini = d(requests(*s.rl)) / d(std::max<std::int64_t>(1, s.rl->mini_batches));
  if (d(best->train_plan.dp) > per_mini)
    best->warnings.push_back(
        {"rl.train_ranks_beyond_sequences",
         "the trainer's " + std::to_string(best->train_plan.dp) +
             " data-parallel ranks outnumber a mini-batch's " +
             std::to_string(static_cast<std::int64_t>(per_mini)) + " sequences: the update is padded to " +
             std::to_string(best->train_global_batch) +
             " (verl, NeMo-RL and OpenRLHF refuse such a layout); fewer training devices, more prompts or "
             "fewer mini-batches would fill them"});
  // More rollout engines than the step has responses: a response is one engine's (serving.cpp
  // deal_group spreads a prompt's samples over the engines, at most one response an engine left
  // without), so the engines past the responses hold none and only wait for the step.
  const std::int64_t rollout_engines = best->rollout_plan.dp, responses = requests(*s.rl);
  if (rollout_engines > responses)
    best->warnings.push_back(
        {"rl.rollout_engines_idle",
         "the rollout's " + std::to_string(rollout_engines) + " engines outnumber the step's " +
             std::to_string(responses) + " responses: " + std::to_string(rollout_engines - responses) +
             " of them generate nothing; fewer rollout devices, a wider tp or more prompts would use them"});
  if (!input.rl->ep_given && !input.rl->train_auto && !searched && s.model.moe && best->train_plan.ep == 1 &&
      train_pool(s) > 1)
    best->warnings.push_back(
        {"rl.train_layout_assumed",
         "rl.train.ep is not stated: the trainer runs every expert on every device (ep 1, ZeRO-" +
             std::to_string(best->train_plan.zero_stage) + " over " + std::to_string(train_pool(s)) +
             " devices), as verl's FSDP backend trains a mixture-of-experts model; Megatron-based trainers "
             "(verl's Megatron backend, NeMo-RL, slime) split the experts over devices: state rl.train.ep, "
             "or rl.train \"auto\" for the layout search's choice"});
  return *best;
}

}  // namespace optimus
