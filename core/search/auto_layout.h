// parallel: "auto" (the scenario's and each later training stage's): the layout search's best
// layout put into the scenario before anything is predicted, so that a native caller of
// predict() resolves it as the JSON layer does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "scenario/scenario.h"
#include "search/search.h"

namespace optimus {

// What parallel: "auto" chose: how many layouts the search weighed and found feasible, in which
// mode, and the keys it fixed (in order, with their values) to bring the space under the cap.
struct AutoLayout {
  std::int64_t evaluated = 0, feasible = 0;
  std::int64_t simulated = 0;  // a served scenario: fitting layouts run with its request stream
  SearchMode mode = SearchMode::training;
  std::vector<std::pair<std::string, std::int64_t>> narrowed;
};

// The layout search over every key (training mode when the scenario trains, else inference by
// throughput with batches up to the scenario's; a served scenario's layouts must also hold one
// request in each replica's KV budget, check_serving, and the best kAutoServingLayouts distinct
// ones are then run with the scenario's own request stream and ranked by goodput per device,
// mode serving) puts its best layout into s.parallel. When the
// whole space is past the search's cap, keys are fixed one after another (kAutoNarrowing) and
// the search runs again. Errors: the search's own (at /parallel when it names no path), and
// parallel.auto_no_layout when nothing fits. Needs s.training or s.inference.
Result<AutoLayout> resolve_auto_layout(Scenario& s);

// Later stages with parallel: "auto" (training.stages[i].parallel): each stage's layout searched
// on its own sequences and batch, as the scenario's is, into the stage's plan (a stage's layout
// does not depend on the first part's). Errors: the search's, at the stage's path.
std::optional<Error> resolve_auto_stages(Scenario& s);

// Both, stages first: what parallel: "auto" chose for the scenario itself, if it asked for it.
Result<std::optional<AutoLayout>> resolve_parallel_auto(Scenario& s);

// The training search of `s` over `fixed`, narrowed while its space is past the search's cap: keys
// fixed one after another (zero_stage, micro_batch, interleave, each to 1: kAutoNarrowing) in
// `fixed` and the search run again, each key so fixed added to `narrowed` (where given); not past
// 2^20 devices (kMaxNarrowedDevices), whose narrowed spaces take seconds to count. The layout
// search's command runs this too (io/api.cpp search), so that it searches what auto does.
Result<SearchResult> search_narrowed(const Scenario& s, FixedLayout& fixed, const SearchOptions& o,
                                     std::vector<std::pair<std::string, std::int64_t>>* narrowed,
                                     const std::function<bool(double)>& progress = {});

// For a scenario that no layout of its devices runs: the fewest devices the look of search.h
// fewest_count finds (2, 4, 8, 16 and 32 times s.num_devices, then the whole nodes between the
// largest refused count and the first that runs) with a layout the search `o` over `fixed` finds feasible
// (every other key as stated; `servable`: the layout must also hold a request in its KV budget,
// check_serving); 0 when none of them has one, or when the search refuses a count's space (the look ends
// there). `below`, when given, gets the largest count tried that had none. A parallel.auto_no_layout refusal
// carries it (Error::fewest_devices), and so does a search that finds nothing.
std::int64_t fewest_devices(const Scenario& s, const FixedLayout& fixed, SearchOptions o,
                            bool servable = false, std::int64_t* below = nullptr);

}  // namespace optimus
