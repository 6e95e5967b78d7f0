// RL placement search: colocated against every split of the devices between a rollout pool and a
// training pool, each with every rollout tensor parallelism within a scale-up domain (dp over
// the rest of the pool; a mixture-of-experts engine also with its experts over 2, 4, ...
// replicas), each predicted by predict_rl (ranked by time, one that cannot rank is stopped once its
// rollout outlasts the steps listed: Candidates); a stated rollout tp is kept. The trainer keeps the
// scenario's tp x pp x cp with dp over its pool ("auto" or no rl.train: searched per candidate). Ranked by
// step time or by cost per step (device-hours of the step at the economics' price).
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <vector>

#include "base/math.h"
#include "rl/rl.h"
#include "run/run.h"

namespace optimus {

namespace {

// Splits tried at most (each a whole prediction): past it, evenly spaced whole nodes.
constexpr std::int64_t kMaxSplits = 63;

// Rollout pool sizes of a split: whole nodes when the job spans several, else powers of two.
std::vector<std::int64_t> rollout_sizes(std::int64_t n, std::int64_t per_node) {
  std::vector<std::int64_t> out;
  if (n > per_node && n % per_node == 0) {
    const std::int64_t nodes = n / per_node;
    const std::int64_t stride = (nodes - 1 + kMaxSplits - 1) / kMaxSplits;  // nodes per candidate step
    for (std::int64_t k = stride; k < nodes; k += stride) out.push_back(k * per_node);
  } else {
    for (std::int64_t r = 1; r < n; r *= 2) out.push_back(r);
  }
  return out;
}

// Predicts the search's candidates one by one into `res` (its counts and `best`, unranked), the
// rejected ones counted by reason.
class Candidates {
 public:
  Candidates(std::size_t top, bool by_cost, RlSearchResult& res) : top_(top), by_cost_(by_cost), res_(res) {}
  std::map<std::string, std::int64_t> rejected;

  // Returns whether the rollout engine held the model (whatever became of the trainer).
  bool operator()(Scenario c) {
    ++res_.evaluated;
    c.rl->train_steps = 0;
    auto p = predict_rl(c, &trainers_, horizon());
    if (!p && p.error().code == "serving.past_horizon") {
      ++rejected["rl.slower_than_listed"];
      return true;
    }
    if (!p) {
      ++rejected[p.error().code];
      return p.error().code != "rl.rollout_does_not_fit";
    }
    if (!p->train_memory.fits) {
      ++rejected["memory.does_not_fit"];
      return true;
    }
    ++res_.feasible;
    listed_.push(p->step_time_s);
    if (listed_.size() > top_) listed_.pop();
    RlCandidate cand;
    cand.placement = c.rl->placement;
    cand.rollout_devices = p->rollout_devices;
    cand.train_devices = p->train_devices;
    cand.rollout_plan = p->rollout_plan;
    cand.train_plan = p->train_plan;
    cand.step_time_s = p->step_time_s;
    cand.cost_per_step_usd = rl_step_cost_usd(c, *p);
    cand.prediction = std::move(*p);
    cand.staleness = c.rl->staleness;
    cand.partial_rollout = c.rl->partial_rollout;
    res_.best.push_back(std::move(cand));
    return true;
  }

 private:
  // Ranked by time, the `top` shortest steps so far (the longest of them on top): once `top` are
  // listed, a candidate whose rollout alone outlasts the longest of them cannot rank, as its step
  // is never shorter than its rollout's makespan (rl.cpp compose_step), so its rollout is stopped
  // there (predict_rl's horizon) and it is counted as rl.slower_than_listed. The candidates that
  // rank are the same as without it; those whose engines are slowest (a small pool preempting for
  // most of its rollout) are the ones it stops soonest. By cost, every candidate runs whole.
  double horizon() const {
    return !by_cost_ && top_ > 0 && listed_.size() >= top_ ? listed_.top()
                                                           : std::numeric_limits<double>::infinity();
  }

  const std::size_t top_;
  const bool by_cost_;
  RlSearchResult& res_;
  RlTrainSearchMemo trainers_;  // a training pool's layouts, searched once
  std::priority_queue<double> listed_;
};

}  // namespace

Result<RlSearchResult> search_rl(const Scenario& s, std::size_t top, bool by_cost,
                                 const std::function<bool(double)>& progress) {
  const bool priced = has_price(s.economics, s.system.device.power.price_usd);
  if (by_cost && !priced) return rank_without_price();
  RlSearchResult res;
  Candidates evaluate(top, by_cost, res);
  const std::vector<std::int64_t> splits = rollout_sizes(s.num_devices, s.system.devices_per_node);
  const double placements = 1.0 + static_cast<double>(splits.size());
  // Every tp within a scale-up domain; past it (engines over several nodes, as DeepSeek-V3 needs
  // on 80 GB devices) only until one engine holds the model. After each candidate the caller is
  // told the share done (placement `index` of `placements`, within it the share of its tps that
  // divide the pool), and false from it stops the search there.
  const auto with_tps = [&](Scenario c, std::int64_t pool, std::size_t index) {
    std::vector<std::int64_t> tps;  // the powers of two that divide the pool (with its pp)
    for (std::int64_t tp = 1; tp <= pool; tp *= 2)
      if (pool % (tp * c.rl->rollout.pp) == 0) tps.push_back(tp);
    // A stated rollout tp is kept, as the search keeps every stated key (a probe found it searched).
    if (s.rl->rollout.tp > 0) tps.assign(1, s.rl->rollout.tp);
    const auto told = [&](double share) {
      return !progress || progress((static_cast<double>(index) + share) / placements);
    };
    bool held = false;
    for (std::size_t i = 0; i < tps.size(); ++i) {
      // The tps past the one that held the model are not tried: the placement is done.
      if (tps[i] > s.system.scale_up.domain_size && held) {
        res.cancelled = !told(1.0);
        return;
      }
      c.rl->rollout.tp = tps[i];
      c.rl->rollout.dp = 0;
      const bool fits = evaluate(c);
      held = fits || held;
      // A mixture-of-experts engine with no expert parallelism stated is also tried with its
      // experts spread over 2, 4, ... replicas (attention data parallelism over tensor-parallel
      // replicas, parallel/plan.h): one that does not hold the model at this tp may hold it so, and
      // one that does may decode faster so (each replica reads 1/r of the experts: a probe found
      // Qwen3-30B-A3B on 16 H100 at tp 2 ep 8 6% faster than the tp 4 the search listed first, and
      // DeepSeek-V3 on 32 H200 at tp 1 ep 16 8% faster). The wider tps are still tried as without
      // it (an engine over two nodes can be the faster one: DeepSeek-V3 on H100,
      // RlScale.TheSearchAlsoSpreadsTheExpertsOfDeepSeekV3).
      // Past the scale-up domain (an engine over several nodes) only where it does not hold the
      // model otherwise: the search stays within its time (a 256-GPU DeepSeek-V3 search 2.2 -> 4.1 s).
      if (s.model.moe && s.rl->rollout.ep == 0 && (!fits || tps[i] <= s.system.scale_up.domain_size)) {
        const std::int64_t replicas = pool / (tps[i] * c.rl->rollout.pp);
        for (std::int64_t r = 2; r <= replicas && replicas % r == 0; r *= 2) {
          if (s.model.moe->experts % (tps[i] * r) != 0) break;
          Scenario spread = c;
          spread.rl->rollout.ep = tps[i] * r;
          evaluate(spread);
        }
      }
      if (!told(static_cast<double>(i + 1) / static_cast<double>(tps.size()))) {
        res.cancelled = true;
        return;
      }
    }
  };
  Scenario base = s;
  base.rl->train.dp = 0;  // what each candidate's pool leaves
  // An unstated trainer is searched per candidate, as "auto" is: the search keeps what the job
  // states and chooses the rest (the default layout, data parallelism over the pool at the
  // smallest ZeRO stage that fits, ranked a 32-H100 Qwen3-30B-A3B job's placements at 294 s a
  // step, where its own layout search finds 196 s).
  if (!s.rl->train_given) base.rl->train_auto = true;
  Scenario colocated = base;
  colocated.rl->placement = RlPlacement::colocated;
  // Colocated, a step is on-policy: the async block goes with the pools (as the page's loaded
  // candidate drops it), a partial rollout too (it needs staleness: every colocated candidate of a
  // partial-rollout job was refused as rl.partial_rollout_needs_staleness).
  colocated.rl->staleness = 0;
  colocated.rl->partial_rollout = false;
  colocated.rl->rollout_devices = colocated.rl->train_devices = 0;
  with_tps(colocated, s.num_devices, 0);
  for (std::size_t i = 0; i < splits.size() && !res.cancelled; ++i) {
    Scenario c = base;
    c.rl->placement = RlPlacement::split;
    c.rl->rollout_devices = splits[i];
    c.rl->train_devices = s.num_devices - splits[i];
    with_tps(c, splits[i], i + 1);
  }
  for (const auto& [code, n] : evaluate.rejected) res.rejected.emplace_back(code, n);
  if (res.best.empty() && !res.cancelled) {
    colocated.rl->rollout.tp = colocated.rl->rollout.dp = 0;  // chosen, as the search tries them
    res.fewest_devices = rl_fewest_devices(colocated);
  }
  std::stable_sort(res.best.begin(), res.best.end(), [&](const RlCandidate& a, const RlCandidate& b) {
    return by_cost ? *a.cost_per_step_usd < *b.cost_per_step_usd : a.step_time_s < b.step_time_s;
  });
  if (res.best.size() > top) res.best.resize(top);
  return res;
}

}  // namespace optimus
