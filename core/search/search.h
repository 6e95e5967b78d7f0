// Design-space exploration over parallel layouts (issue 5): every layout of a scenario's devices
// is enumerated, infeasible ones are rejected with a reason code, and the rest are ranked, by
// iteration time for training and by throughput (or latency) under latency bounds for inference.
// Pure: no I/O, no clock, no exceptions; the io module turns the result into JSON.
//
// The space (training). Keys the scenario's `parallel` object gives are fixed; absent keys take
// every value of their candidate list, in this order:
//   tp           divisors of num_devices
//   pp           divisors of num_devices / tp
//   cp           divisors of num_devices / (tp * pp)
//   dp           num_devices / (tp * pp * cp)   (so tp*pp*dp*cp == num_devices by construction)
//   micro_batch  divisors of global_batch / dp (the per-replica batch)
//   interleave   v with pp*v dividing layers (or layers + 2: the embedding/loss-as-a-layer
//                split of core/parallel/plan.h) when pp > 1, else 1
//   sequence_parallel  false, true when tp > 1; false when tp == 1
//   recompute    none, selective, full
//   zero_stage   0, 1, 2, 3
//   etp, ep      mixture-of-experts models: etp 1 or tp (training; 1 in inference), then ep
//                over the divisors of the experts that divide the stage's ranks left for it
//                (training: tp x cp x dp / etp; inference: tp); 1, 1 for a dense model.
//                With tp > 1 MoE training layouts need sequence parallelism, so it is on.
// A (tp, pp, cp, dp) prefix that validate_plan rejects with the other keys at their least
// demanding values (micro_batch 1, interleave 1, sequence_parallel off, unless fixed) is one
// rejected layout carrying validate_plan's code: its sub-grid is not expanded, because every
// layout in it fails the same way. Every other layout is checked with validate_plan (the whole
// scenario, so a reported layout always predicts), then for memory (`memory.does_not_fit`), and
// only then timed. Tensor-parallel groups larger than the scale-up domain stay feasible: the
// cost model runs their traffic on the scale-out network and predict warns about it.
//
// The space (inference): tp and pp as above with cp fixed (default 1) and dp the rest; the
// other parallel keys as given (or their defaults); batch over 1, 2, 4, ... up to max_batch.
// Layouts whose time to first token or time per output token exceeds the given bound are
// rejected with `search.ttft_above_bound` / `search.tpot_above_bound`.
#pragma once

#include <array>
#include <cstddef>
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
#include "base/units.h"
#include "scenario/scenario.h"

namespace optimus {

// The keys of `parallel` the scenario gives; absent ones are searched.
struct FixedLayout {
  std::optional<std::int64_t> tp, pp, dp, cp, ep, micro_batch, interleave;
  std::optional<bool> sequence_parallel;
  // Sequence parallelism on exactly where tp > 1, as a stated layout that leaves it out has it
  // (an RL trainer: rl.train has no sequence_parallel key, io/objects.cpp; verl's Megatron actor
  // config sets sequence_parallel True); not searched.
  bool sequence_parallel_with_tp = false;
  std::optional<Recompute> recompute;
  std::optional<int> zero_stage;
  std::optional<std::int64_t> etp;
  std::optional<double> recompute_fraction;  // applies to the layouts with full recompute
  bool optimizer_offload = false;            // every layout keeps its optimizer in host memory
  // Training, where the micro-batches depend on the layout (an RL trainer packs each rank's share
  // of a mini-batch into micro-batches, and halves the packs that do not fit: rl.cpp
  // train_batch): the micro-batches each (tp, pp, cp, dp) prefix tries, given its plan. The
  // scenario's global batch is then a mini-batch that each layout rounds up to whole
  // micro-batches on every data-parallel rank (the least multiple of dp x micro_batch not below
  // it), as the step trains it. Absent: micro_batch as above, the global batch as given.
  std::function<std::vector<std::int64_t>(const ParallelPlan&)> micro_batches_of;
};

// serving: the deployment search of search/serving_search.h (the api routes it there).
OPTIMUS_ENUM(SearchMode, training, inference, serving);
OPTIMUS_ENUM(InferenceObjective, throughput, latency);
// What a training search ranks by: the step time, or the energy or the cost of a step of the
// whole job (predict.h training_step_energy_cost: the device draw of the layout's mix of work,
// node overhead, PUE, device-hours and energy prices), which for a fixed token budget rank the
// run's energy and cost. Ties fall back to the time.
OPTIMUS_ENUM(TrainingRank, time, energy, cost);

// Bounds on the work a search may do, so that a browser tab never hangs: a space larger than
// kMaxSearchLayouts is refused with `search.space_too_large` (about 3 s natively at the
// measured ~3 us per timed layout); at most kMaxSearchPoints layouts are returned for plots.
constexpr std::int64_t kMaxSearchLayouts = 1'000'000;
constexpr std::size_t kMaxSearchPoints = 5000;
constexpr std::size_t kMaxSearchTop = 1000;
constexpr std::int64_t kMaxSearchBatch = 1 << 20;

struct SearchOptions {
  SearchMode mode = SearchMode::training;
  std::size_t top = 10;
  InferenceObjective objective = InferenceObjective::throughput;
  TrainingRank rank_by = TrainingRank::time;  // training
  std::optional<Seconds> max_ttft, max_tpot;  // inference latency bounds
  bool points = false;                        // keep layouts for a scatter plot
  std::int64_t max_batch = 1024;              // inference: largest batch tried (powers of two)
  // Training with train_tokens: the fastest layout whose whole run (run/run.h: steps, checkpoints
  // and failures, priced by the scenario's economics) stays within these budgets.
  std::optional<double> max_cost_usd, max_energy_mwh;
  // Stop at the first layout that runs (whether any does, not which is best): `best` holds it.
  bool first_fit = false;
};

// A refusal's look for the fewest devices that would run the job tries 2, 4, 8, ... up to this many
// times the devices given (search/auto_layout.h fewest_devices; an RL job's, rl/rl.h
// add_rl_fewest_devices).
constexpr std::int64_t kFewestDevicesMultiple = 32;
// Below the first doubling that runs, the look tries at most this many counts less one: every whole
// node where they are that few, else counts that many whole nodes apart.
constexpr std::int64_t kFewestDevicesSteps = 16;

// The look itself: the first of 2n, 4n, ... kFewestDevicesMultiple n for which runs(count) holds
// (M), then the counts between the largest refused one and M, fewest first, each a whole multiple
// of `step` (the system's devices per node), a node apart where at most kFewestDevicesSteps nodes
// span the gap, else (M - refused) / kFewestDevicesSteps rounded up to whole nodes apart; the first
// for which runs holds (feasibility is not monotone in the count: a layout must divide it).
// DeepSeek-V3 in FP8 on 32 H100: 64 and 128 do not run, 256 does; 136-160 do not, 168 does. `below` is set to
// the largest count tried that did not run (n when only the doubling was refused). 0 when none runs.
template <class Runs>
std::int64_t fewest_count(std::int64_t n, std::int64_t step, Runs runs, std::int64_t& below) {
  below = n;
  const std::int64_t node = step < 1 ? 1 : step;
  for (std::int64_t k = 2; k <= kFewestDevicesMultiple; k *= 2) {
    const std::int64_t m = n * k;
    if (!runs(m)) {
      below = m;
      continue;
    }
    const std::int64_t nodes = (m - below) / node;
    const std::int64_t grain = node * ((nodes + kFewestDevicesSteps - 1) / kFewestDevicesSteps);
    for (std::int64_t c = grain > 0 ? (below / grain + 1) * grain : m; c < m; c += grain) {
      if (runs(c)) return c;
      below = c;
    }
    return m;
  }
  return 0;
}

// One evaluated layout. Training: `time` is the iteration time. Inference: `time` is the
// end-to-end latency of one request batch, `throughput` counts all dp replicas.
struct LayoutResult {
  ParallelPlan plan;
  std::int64_t batch = 0;  // inference batch (0 in training mode)
  bool timed = false;      // false when rejected before the time model ran
  Seconds time{};
  Seconds ttft{}, tpot{};
  double throughput = 0;                        // tokens/s over all replicas (inference)
  double step_energy_j = 0;                     // training ranked by energy or cost
  std::optional<double> step_cost_usd;          // the same; absent without a price (run/run.h has_price)
  double run_cost_usd = 0, run_energy_mwh = 0;  // training within a budget: the whole run's
  Bytes memory{};      // per-device total of the mode's footprint; 0 when not computed
  std::string reason;  // "" when feasible, else the rejection code
};

struct SearchResult {
  std::int64_t evaluated = 0;  // layouts in the space (or visited before a cancel)
  std::int64_t feasible = 0;
  std::map<std::string, std::int64_t> rejected;  // reason code -> layouts
  std::vector<LayoutResult> best;                // best first, at most `top`
  // When asked: the best feasible layouts, then those rejected for memory or a latency bound
  // (least memory first), at most kMaxSearchPoints in all. Layouts rejected by validate_plan
  // have no footprint and are only counted.
  std::vector<LayoutResult> points;
  bool points_truncated = false;
  bool cancelled = false;
};

// progress(fraction done in [0, 1]); returning false cancels the search.
using SearchProgress = std::function<bool(double)>;

// The layouts of the space in enumeration order (rejected prefixes as one layout each, with the
// searched keys at their least demanding values), `batch` set for inference. For tests and for
// counting; refuses spaces over kMaxSearchLayouts like search_layouts.
struct SpaceLayout {
  ParallelPlan plan;
  std::int64_t batch = 0;
};
Result<std::vector<SpaceLayout>> enumerate_layouts(const Scenario& s, const FixedLayout& fixed,
                                                   const SearchOptions& o);

// Number of layouts in the space.
Result<std::int64_t> search_space_size(const Scenario& s, const FixedLayout& fixed, const SearchOptions& o);

// Whether the search takes a pp that does not split the model's layers evenly (a balanced custom
// split, plan.h): when at most an eighth of its stages' layer slots stay empty. The pipeline runs
// at its busiest stage's pace, so the empty share is throughput lost (Llama 3 70B's 80 layers on
// pp 32 hold 3 a stage: 20% empty; DeepSeek-V3's 61 on pp 2 to 32 are taken).
bool searches_uneven_pp(std::int64_t layers, std::int64_t pp);

Result<SearchResult> search_layouts(const Scenario& s, const FixedLayout& fixed, const SearchOptions& o,
                                    const SearchProgress& progress = {});

// The search with every layout's optimizer state in host memory (parallel.optimizer_offload): at
// the ZeRO stage `fixed` gives, else at ZeRO 1 (the distributed optimizer, which Megatron-Core's
// offload needs; ZeRO-Offload runs on ZeRO 2 and 3) and, where that finds none, at ZeRO 3.
Result<SearchResult> search_host_optimizer(const Scenario& s, FixedLayout fixed, const SearchOptions& o);

// The order the search ranks by: true when `a` is better than `b`. Ties in the metric are
// broken by the layout's keys (smaller degrees, no sequence parallel, less recompute, lower
// ZeRO stage, smaller batch first), so the ranking is deterministic.
bool better_layout(const LayoutResult& a, const LayoutResult& b, const SearchOptions& o);

}  // namespace optimus
