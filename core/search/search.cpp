#include "search/search.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <utility>

#include "base/math.h"
#include "cost/op_timer.h"
#include "memory/footprint.h"
#include "predict/predict.h"

namespace optimus {

bool searches_uneven_pp(std::int64_t layers, std::int64_t pp) {
  const std::int64_t empty = round_up(layers, pp) - layers;
  return 8 * empty <= layers;
}

namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> low, high;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

std::vector<std::int64_t> fixed_or(const std::optional<std::int64_t>& f, std::int64_t n) {
  return f ? std::vector<std::int64_t>{*f} : divisors(n);
}

// Model chunks per stage whose layer split validate_plan can accept: pp*v divides the layers,
// or the layers plus two (the embedding and the loss counted as a layer each, Megatron-LM's
// uneven split, core/parallel/plan.h), or, for a run that trains MTP modules, the split that
// lays them out (mtp_pipeline_split: Megatron-Bridge's DeepSeek-V3 at pp 8 x 2 or 4 x 4);
// validate_plan has the last word.
std::vector<std::int64_t> interleave_candidates(const ModelSpec& m, std::int64_t pp) {
  // 1 always: the prefix passed validate_plan with it, whatever the split.
  std::vector<std::int64_t> out{1};
  ParallelPlan p;
  p.pp = pp;
  for (std::int64_t v = 2; pp * v <= m.layers + 2; ++v) {
    p.interleave = v;
    if (m.layers % (pp * v) == 0 || uneven_chunk_split(m.layers, pp, v) || mtp_pipeline_split(m, p))
      out.push_back(v);
  }
  return out;
}

// One (tp, pp, cp, dp) prefix of the space with the candidate lists of the keys below it.
struct Prefix {
  ParallelPlan plan;  // searched keys at their least demanding values
  std::optional<Error> error;
  std::vector<std::int64_t> micro_batch, interleave, batch;
  std::vector<bool> sequence_parallel;
  std::vector<Recompute> recompute;
  std::vector<int> zero_stage;
  std::int64_t size() const {
    if (error) return 1;
    return static_cast<std::int64_t>(micro_batch.size() * interleave.size() * sequence_parallel.size() *
                                     recompute.size() * zero_stage.size() * batch.size());
  }
};

// The (etp, ep) pairs a prefix searches. Expert parallelism (MoE models): ep over the divisors
// of the experts that fold into the stage's ranks (training: tp x cp x dp; inference: the tp
// ranks, the dp ranks when tp is 1, or whole tp-rank replicas); 1 for dense models. Expert tensor parallelism
// (training, MoE): etp 1 or tp, the two settings Megatron-Core recipes use (its default etp is
// tp; MoE recipes set 1), folded as etp x ep x edp = tp x cp x dp per stage; inference splits
// experts over the tp ranks by ep alone.
std::vector<std::pair<std::int64_t, std::int64_t>> expert_layouts(const FixedLayout& f, bool training,
                                                                  const ModelSpec& model, std::int64_t tp,
                                                                  std::int64_t cp, std::int64_t dp) {
  std::vector<std::int64_t> etps{f.etp.value_or(1)};
  if (!f.etp && training && model.moe && tp > 1) etps = {1, tp};
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const std::int64_t etp : etps) {
    const std::size_t before = out.size();
    if (f.ep) {
      out.emplace_back(etp, *f.ep);
    } else if (model.moe) {
      // Inference may instead spread the experts over the data-parallel replicas (attention data
      // parallelism, plan.h attention_data_parallel): with tp 1 over dp ranks, with tp > 1 over
      // ep / tp whole replicas.
      const std::int64_t ranks = training ? tp * cp * dp / etp : tp == 1 ? dp : tp;
      ParallelPlan spread;  // the same layout with the experts over replicas, whole (etp 1)
      spread.tp = tp;
      spread.dp = dp;
      for (const std::int64_t e : divisors(model.moe->experts)) {
        spread.ep = e;
        const bool over_replicas = !training && tp > 1 && attention_data_parallel(spread);
        if ((ranks > 0 && ranks % e == 0) || over_replicas) out.emplace_back(etp, e);
      }
    }
    if (out.size() == before) out.emplace_back(etp, 1);
  }
  return out;
}

// A prefix's layout with the keys below it at their fixed or least demanding values.
// Inference does not search sequence parallelism: it takes the spec's default. MoE layers with
// tp > 1 need sequence parallelism in training (validate_plan), so there it is the least
// demanding value.
ParallelPlan prefix_plan(const FixedLayout& f, bool training, bool moe, const ParallelPlan& degrees) {
  ParallelPlan p = degrees;
  p.micro_batch = f.micro_batch.value_or(1);
  p.interleave = f.interleave.value_or(1);
  const bool sp_required = training && moe && p.tp > 1;
  p.sequence_parallel =
      f.sequence_parallel.value_or(training && !f.sequence_parallel_with_tp ? sp_required : p.tp > 1);
  p.recompute = f.recompute.value_or(Recompute::none);
  // A fixed fraction holds for the searched layouts with full recompute (for_each_leaf).
  p.recompute_fraction = f.recompute_fraction.value_or(1.0);
  p.zero_stage = f.zero_stage.value_or(0);
  p.optimizer_offload = f.optimizer_offload;
  return p;
}

// The candidate lists of the keys below a valid prefix: training searches micro-batches,
// interleaving, sequence parallelism, recomputation and ZeRO; inference the batch, in powers of
// two up to the options' max_batch, with the rest as the prefix's plan has them.
void fill_candidates(Prefix& pre, const FixedLayout& f, const SearchOptions& o, const Scenario& work) {
  const ParallelPlan& p = pre.plan;
  if (o.mode != SearchMode::training) {
    pre.micro_batch = {p.micro_batch};
    pre.interleave = {p.interleave};
    pre.sequence_parallel = {p.sequence_parallel};
    pre.recompute = {p.recompute};
    pre.zero_stage = {p.zero_stage};
    pre.batch.clear();
    for (std::int64_t b = 1; b <= o.max_batch; b *= 2) pre.batch.push_back(b);
    return;
  }
  const bool sp_required = work.model.moe && p.tp > 1;
  // The prefix passed with micro_batch 1 (or fixed), so dp divides the global batch.
  pre.micro_batch = f.micro_batches_of ? f.micro_batches_of(p)
                                       : fixed_or(f.micro_batch, work.training->global_batch / p.dp);
  pre.interleave = f.interleave ? std::vector<std::int64_t>{*f.interleave}
                   : p.pp > 1   ? interleave_candidates(work.model, p.pp)
                                : std::vector<std::int64_t>{1};
  pre.sequence_parallel = f.sequence_parallel           ? std::vector<bool>{*f.sequence_parallel}
                          : f.sequence_parallel_with_tp ? std::vector<bool>{p.tp > 1}
                          : sp_required                 ? std::vector<bool>{true}
                          : p.tp > 1                    ? std::vector<bool>{false, true}
                                                        : std::vector<bool>{false};
  pre.recompute = f.recompute
                      ? std::vector<Recompute>{*f.recompute}
                      : std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full};
  pre.zero_stage = f.zero_stage ? std::vector<int>{*f.zero_stage} : std::vector<int>{0, 1, 2, 3};
  pre.batch = {0};
}

// Checks a prefix (work.parallel holds its plan) and, when it passes, fills its candidates.
void check_prefix(Prefix& pre, const FixedLayout& f, const SearchOptions& o, Scenario& work) {
  // A pp that does not split the layers evenly is searched as the balanced custom split
  // validate_plan accepts (the busiest stages hold one layer more, plan.h stage_layers), as
  // Megatron-Bridge runs DeepSeek-V3's 61 layers on pp 2 to 16, when searches_uneven_pp says so.
  pre.error = validate_plan(work);
  if (!pre.error && !f.pp && balanced_pipeline_split(work.model, pre.plan) &&
      !searches_uneven_pp(work.model.layers, pre.plan.pp))
    pre.error = make_error("parallel.layers_not_divisible", "/parallel/pp",
                           "the search leaves out pp that leave more than an eighth of the stages' layer "
                           "slots empty");
  if (!pre.error) fill_candidates(pre, f, o, work);
}

// Walks the prefixes in enumeration order (search.h). `work` is the scenario whose parallel
// plan is overwritten for validation. fn(Prefix&) returns false to stop.
// Under FixedLayout::micro_batches_of each prefix is checked at its dp's multiple of the global
// batch as given (`mini`), which work holds again on return.
template <class Fn>
bool for_each_prefix(const FixedLayout& f, const SearchOptions& o, Scenario& work, Fn&& fn) {
  const std::int64_t n = work.num_devices;
  const bool training = o.mode == SearchMode::training;
  const std::int64_t mini = training && f.micro_batches_of ? work.training->global_batch : 0;
  struct Restore {
    Scenario& work;
    std::int64_t mini;
    ~Restore() {
      if (mini > 0) work.training->global_batch = mini;
    }
  } restore{work, mini};
  Prefix pre;
  for (const std::int64_t tp : fixed_or(f.tp, n)) {
    if (tp < 1 || n % tp != 0) continue;
    for (const std::int64_t pp : fixed_or(f.pp, n / tp)) {
      if (pp < 1 || (n / tp) % pp != 0) continue;
      const std::int64_t rest = n / (tp * pp);
      const std::vector<std::int64_t> cps = f.cp ? std::vector<std::int64_t>{*f.cp}
                                                 : (training ? divisors(rest) : std::vector<std::int64_t>{1});
      for (const std::int64_t cp : cps) {
        if (cp < 1 || rest % cp != 0) continue;
        const std::int64_t dp = rest / cp;
        if (f.dp && *f.dp != dp) continue;
        for (const auto& [etp, ep] : expert_layouts(f, training, work.model, tp, cp, dp)) {
          ParallelPlan degrees = pre.plan;
          degrees.tp = tp;
          degrees.pp = pp;
          degrees.cp = cp;
          degrees.dp = dp;
          degrees.ep = ep;
          degrees.etp = etp;
          pre.plan = prefix_plan(f, training, work.model.moe.has_value(), degrees);
          if (mini > 0) work.training->global_batch = round_up(mini, pre.plan.dp * pre.plan.micro_batch);
          work.parallel = pre.plan;
          check_prefix(pre, f, o, work);
          if (!fn(pre)) return false;
        }
      }
    }
  }
  return true;
}

// Leaves of a valid prefix in enumeration order: fn(const ParallelPlan&, batch) -> bool.
template <class Fn>
bool for_each_leaf(const Prefix& pre, Fn&& fn) {
  ParallelPlan p = pre.plan;
  for (const std::int64_t mb : pre.micro_batch) {
    p.micro_batch = mb;
    for (const std::int64_t v : pre.interleave) {
      p.interleave = v;
      for (const bool sp : pre.sequence_parallel) {
        p.sequence_parallel = sp;
        for (const Recompute rc : pre.recompute) {
          p.recompute = rc;
          p.recompute_fraction = rc == Recompute::full ? pre.plan.recompute_fraction : 1.0;
          for (const int z : pre.zero_stage) {
            p.zero_stage = z;
            for (const std::int64_t b : pre.batch)
              if (!fn(p, b)) return false;
          }
        }
      }
    }
  }
  return true;
}

std::optional<Error> check_request(const Scenario& s, const SearchOptions& o) {
  if (o.mode == SearchMode::serving)
    return make_error(
        "search.invalid_option", "/mode",
        "a serving search runs search_serving (search/serving_search.h), not the layout search");
  if (o.mode == SearchMode::training && !s.training)
    return make_error("search.no_training", "/training",
                      "a training search needs the scenario's 'training' object (or use mode \"inference\")");
  if (o.mode == SearchMode::inference && !s.inference)
    return make_error(
        "search.no_inference", "/inference",
        "an inference search needs the scenario's 'inference' object (or use mode \"training\")");
  if (o.top < 1 || o.top > kMaxSearchTop)
    return make_error("search.invalid_option", "/top",
                      "top must be between 1 and " + std::to_string(kMaxSearchTop));
  if (o.max_batch < 1 || o.max_batch > kMaxSearchBatch)
    return make_error("search.invalid_option", "/max_batch",
                      "max_batch must be between 1 and " + std::to_string(kMaxSearchBatch));
  if ((o.max_cost_usd || o.max_energy_mwh) && !(s.training && s.training->train_tokens > 0))
    return make_error("search.budget_without_tokens", o.max_cost_usd ? "/max_cost_usd" : "/max_energy_mwh",
                      "a budget bounds the whole run: the scenario needs training.train_tokens");
  // Without a price the run has no cost (predict warns run.no_price), so no layout can be held to
  // a cost budget, nor ranked by one (a step's cost would be its electricity alone).
  const bool priced = has_price(s.economics, s.system.device.power.price_usd);
  if (o.max_cost_usd && !priced)
    return make_error("search.budget_without_price", "/max_cost_usd",
                      "a cost budget needs a price: economics.usd_per_gpu_hour or economics.gpu_price_usd "
                      "(the device states no power.price_usd)");
  if (o.rank_by == TrainingRank::cost && !priced) return rank_without_price();
  return std::nullopt;
}

// Layouts in the space, counted prefix by prefix and stopping past the cap; `work` is a scratch
// copy of the scenario.
Result<std::int64_t> space_size(const FixedLayout& f, const SearchOptions& o, Scenario& work) {
  std::int64_t total = 0;
  for_each_prefix(f, o, work, [&](const Prefix& pre) {
    total += pre.size();
    return total <= kMaxSearchLayouts;
  });
  if (total == 0)
    return make_error("search.empty_space", "/parallel",
                      "the fixed keys of 'parallel' leave no layout with tp*pp*dp*cp = num_devices = " +
                          std::to_string(work.num_devices) + "; remove or change one of them");
  if (total > kMaxSearchLayouts)
    return make_error("search.space_too_large", "/parallel",
                      "the space has more than " + std::to_string(kMaxSearchLayouts) +
                          " layouts (the search refuses larger ones to stay interactive); fix some keys of "
                          "'parallel' (for example tp or pp) to narrow it");
  return total;
}

auto layout_key(const LayoutResult& r) {
  const ParallelPlan& p = r.plan;
  return std::make_tuple(p.tp, p.pp, p.dp, p.cp, p.micro_batch, p.interleave, p.sequence_parallel,
                         static_cast<int>(p.recompute), p.zero_stage, r.batch);
}

// Bounded best-k set: the worst kept layout on top of the heap.
template <class Better>
class TopK {
 public:
  TopK(std::size_t k, Better better) : k_(k), heap_(better) {}
  bool would_take(const LayoutResult& r) const { return heap_.size() < k_ || heap_.comp_(r, heap_.top()); }
  void offer(LayoutResult r) {
    if (k_ == 0) return;
    if (heap_.size() < k_) {
      heap_.push(std::move(r));
    } else if (heap_.comp_(r, heap_.top())) {
      heap_.pop();
      heap_.push(std::move(r));
    }
  }
  std::vector<LayoutResult> sorted() {
    std::vector<LayoutResult> out;
    while (!heap_.empty()) {
      out.push_back(heap_.top());
      heap_.pop();
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  // priority_queue with its comparator reachable: comparing a candidate with the top needs it.
  struct Heap : std::priority_queue<LayoutResult, std::vector<LayoutResult>, Better> {
    explicit Heap(Better b) : std::priority_queue<LayoutResult, std::vector<LayoutResult>, Better>(b) {}
    using std::priority_queue<LayoutResult, std::vector<LayoutResult>, Better>::comp;
    bool comp_(const LayoutResult& a, const LayoutResult& b) const { return this->comp(a, b); }
  };
  std::size_t k_;
  Heap heap_;
};

}  // namespace

bool better_layout(const LayoutResult& a, const LayoutResult& b, const SearchOptions& o) {
  if (o.mode == SearchMode::training) {
    if (o.rank_by == TrainingRank::energy && a.step_energy_j != b.step_energy_j)
      return a.step_energy_j < b.step_energy_j;
    if (o.rank_by == TrainingRank::cost && a.step_cost_usd != b.step_cost_usd)
      return a.step_cost_usd < b.step_cost_usd;
    if (a.time.value != b.time.value) return a.time.value < b.time.value;
  } else if (o.objective == InferenceObjective::throughput) {
    if (a.throughput != b.throughput) return a.throughput > b.throughput;
    if (a.time.value != b.time.value) return a.time.value < b.time.value;
  } else {
    if (a.time.value != b.time.value) return a.time.value < b.time.value;
    if (a.throughput != b.throughput) return a.throughput > b.throughput;
  }
  return layout_key(a) < layout_key(b);
}

Result<std::vector<SpaceLayout>> enumerate_layouts(const Scenario& s, const FixedLayout& fixed,
                                                   const SearchOptions& o) {
  if (auto e = check_request(s, o)) return *e;
  Scenario work = s;
  auto total = space_size(fixed, o, work);
  if (!total) return total.error();
  std::vector<SpaceLayout> out;
  out.reserve(static_cast<std::size_t>(*total));
  for_each_prefix(fixed, o, work, [&](const Prefix& pre) {
    if (pre.error) {
      out.push_back({pre.plan, o.mode == SearchMode::inference ? 1 : 0});
      return true;
    }
    return for_each_leaf(pre, [&](const ParallelPlan& p, std::int64_t b) {
      out.push_back({p, b});
      return true;
    });
  });
  return out;
}

Result<std::int64_t> search_space_size(const Scenario& s, const FixedLayout& fixed, const SearchOptions& o) {
  if (auto e = check_request(s, o)) return *e;
  Scenario work = s;
  return space_size(fixed, o, work);
}

namespace {

// The task graph of the last layout timed: layouts that differ only in keys the graph does not
// depend on (recompute, ZeRO stage, interleave) reuse it; and the matmul times already computed.
struct TrainingCache {
  ModelGraph graph;
  std::optional<LayerShape> shape;
  GemmMemo gemms;
};

// A training layout: memory first, time, energy and cost, and the run budgets; r.reason says why
// it is rejected.
void time_training_layout(Scenario& work, const SearchOptions& o, const ParamCounts& params,
                          AttentionKernel attention, TrainingCache& cache, std::vector<Warning>& warnings,
                          LayoutResult& r) {
  // Memory first: the footprint is a sum over the task graph, far cheaper than the time model
  // (whose matmul rooflines take most of a search), and a layout that does not fit is never
  // timed. Both read the same graph.
  const LayerShape shape = training_layer_shape(work, attention);
  if (!(cache.shape && *cache.shape == shape)) {
    cache.graph = model_graph(work.model, shape);
    cache.shape = shape;
  }
  const ModelGraph& g = cache.graph;
  r.memory = training_memory(work, g).total();
  // The runtime's own memory stays free (runtime_reserve): a layout that fills the rest is not one
  // to recommend.
  if (!leaves_runtime_room(r.memory, work.system.device.hbm_capacity, work.num_devices)) {
    r.reason = "memory.does_not_fit";
    return;
  }
  warnings.clear();
  const TrainingPrediction tp = predict_training(work, g, warnings, &cache.gemms);
  r.time = tp.iteration_time;
  r.timed = true;
  if (o.rank_by != TrainingRank::time) {
    const StepEnergyCost ec = training_step_energy_cost(work, tp);
    r.step_energy_j = ec.energy_j;
    r.step_cost_usd = ec.cost_usd;
  }
  if (!o.max_cost_usd && !o.max_energy_mwh) return;
  // The whole run at this layout, as predict plans it (checkpoint size from the layout's
  // sharding, failures, energy and prices).
  auto run = plan_run(work, tp, params, warnings);
  if (!run) {
    r.reason = run.error().code;
    return;
  }
  r.run_cost_usd = run->cost_usd.value_or(0);
  r.run_energy_mwh = run->energy_mwh;
  if (o.max_cost_usd && r.run_cost_usd > *o.max_cost_usd)
    r.reason = "search.cost_above_budget";
  else if (o.max_energy_mwh && r.run_energy_mwh > *o.max_energy_mwh)
    r.reason = "search.energy_above_budget";
}

// An inference layout at one batch: memory, latency and throughput, and the latency bounds.
void time_inference_layout(Scenario& work, const SearchOptions& o, std::int64_t batch,
                           std::vector<Warning>& warnings, LayoutResult& r) {
  work.inference->batch = batch;
  r.memory = inference_memory(work).bytes.total();
  // As for training: a batch that leaves the runtime's own memory no room is not recommended.
  if (!leaves_runtime_room(r.memory, work.system.device.hbm_capacity, work.num_devices)) {
    r.reason = "memory.does_not_fit";
    return;
  }
  warnings.clear();
  const InferencePrediction ip = predict_inference(work, warnings);
  r.timed = true;
  r.time = ip.e2e_latency;
  r.ttft = ip.ttft;
  r.tpot = ip.tpot;
  r.throughput = ip.throughput_tokens_per_s * static_cast<double>(work.parallel.dp);
  if (o.max_ttft && ip.ttft.value > o.max_ttft->value)
    r.reason = "search.ttft_above_bound";
  else if (o.max_tpot && ip.tpot.value > o.max_tpot->value)
    r.reason = "search.tpot_above_bound";
}

}  // namespace

Result<SearchResult> search_layouts(const Scenario& s, const FixedLayout& fixed, const SearchOptions& o,
                                    const SearchProgress& progress) {
  if (auto e = check_request(s, o)) return *e;
  Scenario work = s;
  auto total = space_size(fixed, o, work);
  if (!total) return total.error();
  const bool training = o.mode == SearchMode::training;

  SearchResult out;
  const auto better = [&o](const LayoutResult& a, const LayoutResult& b) { return better_layout(a, b, o); };
  TopK best(o.top, better);
  // Points for plots: the best feasible layouts, and the ones rejected for memory or a latency
  // bound with the least memory first.
  TopK feasible_points(o.points ? kMaxSearchPoints : 0, better);
  const auto closer = [](const LayoutResult& a, const LayoutResult& b) {
    if (a.memory.value != b.memory.value) return a.memory.value < b.memory.value;
    return layout_key(a) < layout_key(b);
  };
  TopK rejected_points(o.points ? kMaxSearchPoints : 0, closer);
  std::int64_t pointable = 0;

  const AttentionKernel attention =
      s.training ? s.training->attention.value_or(s.system.software.attention) : AttentionKernel::flash;
  std::vector<Warning> warnings;
  const ParamCounts params = s.training ? count_params(s.model, s.training->seq_len) : ParamCounts{};
  std::int64_t visited = 0;
  const auto tick = [&]() {
    ++visited;
    if (progress && (visited & 1023) == 0 &&
        !progress(static_cast<double>(visited) / static_cast<double>(*total))) {
      out.cancelled = true;
      return false;
    }
    return true;
  };
  const auto reject = [&](const std::string& code) { ++out.rejected[code]; };

  TrainingCache cache;
  const bool run_layout_checks = training && s.training->train_tokens > 0 &&
                                 (!s.training->batch_ramp.empty() || !s.training->stages.empty());
  const std::int64_t mini = training && fixed.micro_batches_of ? s.training->global_batch : 0;
  const auto evaluate = [&](const ParallelPlan& p, std::int64_t batch) {
    work.parallel = p;
    if (mini > 0) work.training->global_batch = round_up(mini, p.dp * p.micro_batch);
    LayoutResult r;
    r.plan = p;
    r.batch = batch;
    if (auto e = validate_plan(work)) {
      reject(e->code);
      return tick();
    }
    // A batch ramp or a later stage the layout cannot train rules it out, as predict would.
    if (run_layout_checks) {
      if (auto e = check_run_layout(work)) {
        reject(e->code);
        return tick();
      }
    }
    if (training)
      time_training_layout(work, o, params, attention, cache, warnings, r);
    else
      time_inference_layout(work, o, batch, warnings, r);
    if (r.reason.empty()) {
      ++out.feasible;
      ++pointable;
      if (o.points && feasible_points.would_take(r)) feasible_points.offer(r);
      if (best.would_take(r)) best.offer(std::move(r));
      if (o.first_fit) {
        ++visited;
        return false;
      }
    } else {
      reject(r.reason);
      ++pointable;  // memory or a latency bound: the layout has a footprint to plot
      if (o.points) rejected_points.offer(std::move(r));
    }
    return tick();
  };

  for_each_prefix(fixed, o, work, [&](const Prefix& pre) {
    if (pre.error) {
      reject(pre.error->code);
      return tick();
    }
    return for_each_leaf(pre, evaluate);
  });

  out.evaluated = visited;
  out.best = best.sorted();
  if (o.points) {
    out.points = feasible_points.sorted();
    std::vector<LayoutResult> near = rejected_points.sorted();
    for (auto& r : near) {
      if (out.points.size() >= kMaxSearchPoints) break;
      out.points.push_back(std::move(r));
    }
    out.points_truncated = static_cast<std::int64_t>(out.points.size()) < pointable;
  }
  if (progress && !out.cancelled) progress(1.0);
  return out;
}

Result<SearchResult> search_host_optimizer(const Scenario& s, FixedLayout fixed, const SearchOptions& o) {
  fixed.optimizer_offload = true;
  if (fixed.zero_stage) return search_layouts(s, fixed, o);
  fixed.zero_stage = 1;
  auto res = search_layouts(s, fixed, o);
  if (!res || !res->best.empty()) return res;
  fixed.zero_stage = 3;
  return search_layouts(s, fixed, o);
}

}  // namespace optimus
