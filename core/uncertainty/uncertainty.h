// Uncertainty bands (issue 15): every headline number gets the interval that held a stated share
// (80%) of the published measurements the repository validates on, for the regime the scenario
// falls in. The regimes are the things that drive the error: training dense or mixture of experts,
// on an fp4-capable (2025) device generation or an earlier one; inference as one static batch in
// an eager or a graph-replay runtime; continuous-batching serving per metric; memory; the whole
// training run (days, GPU-hours, energy, cost against what makers published for theirs); an RL
// post-training step per phase kind and placement (issue 40). The
// quantiles of log(measured / predicted) per regime come from presets/uncertainty/bands.json,
// written by scripts/fit_uncertainty.py from the validation rows (never per case; io/ reads the
// file into a BandTable); a regime with too few rows takes its parent's band (the name less its
// last part).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "predict/predict.h"
#include "rl/rl.h"

namespace optimus {

// The regime of each workload of a scenario: "training/dense/earlier", "inference/graphs",
// "serving/moe", "memory/training", "run/fp8-generation", "rl/split"; empty where the prediction
// has none.
struct Regimes {
  std::string training, inference, serving, memory, run, rl;
};
Regimes regimes_of(const Scenario& s, const Prediction& p);
// An RL step (s.rl set): rl "rl/colocated" or "rl/split" (rl.placement), memory "memory/training"
// (the prediction's memory is the trainer's footprint).
Regimes rl_regimes_of(const Scenario& s);

// The band regime of one RL number: "rl/<kind>/<placement>", kind one of step (the step and the
// rates derived from it), rollout, forward (reward, reference and old log-prob passes), train,
// weight_sync; a key with too few rows takes "rl/<kind>" and then "rl".
std::string rl_band_regime(const std::string& kind, const std::string& placement_regime);

// One regime's fitted quantiles of ln(measured / predicted) over `cases` validation rows.
struct RegimeQuantiles {
  double q_low = 0, q_high = 0;
  std::int64_t cases = 0;
};
// The fitted bands: a regime's band applies when it has at least min_cases rows.
struct BandTable {
  std::int64_t min_cases = 8;
  std::map<std::string, RegimeQuantiles> regimes;
};

// The interval of one headline number.
struct UncertaintyBand {
  std::string path;  // dotted output path, e.g. "training.iteration_time_s"
  double low = 0, high = 0;
  std::string regime;  // the regime whose band applied: the scenario's or a parent of it
  std::int64_t cases = 0;
  // An RL step's upper end raised to a phase's (a step is never shorter than any of its phases):
  // that phase's output path, and the step regime's own upper end; empty and 0 where not raised.
  std::string raised_by;
  double fitted_high = 0;
};

// The intervals of the headline numbers the prediction has (finite ones) and whose regime (or a
// parent) has a band, in the output's order. A time-like value v (a time, a latency, bytes) gets
// [v e^q_low, v e^q_high]; a rate, the inverse of a time, [v e^-q_high, v e^-q_low].
std::vector<UncertaintyBand> uncertainty_bands(const Scenario& s, const Prediction& p,
                                               const BandTable& table);
// The intervals of an RL step's numbers that validation rows cover: the step and its tokens/s, each
// phase the job has (swap excepted: no published row), the rollout's longest response, makespan
// and output tokens/s, the trainer's iteration time and MFU, and the trainer's memory.
std::vector<UncertaintyBand> rl_uncertainty_bands(const Scenario& s, const RlPrediction& p,
                                                  const BandTable& table);

}  // namespace optimus
