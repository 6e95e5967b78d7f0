// Uncertainty bands (issue 15): every headline number gets the interval that held a stated share
// (80%) of the published measurements the repository validates on, for the regime the scenario
// falls in. The regimes are the things that drive the error: training dense or mixture of experts,
// on an fp4-capable (2025) device generation or an earlier one; inference as one static batch in
// an eager or a graph-replay runtime; continuous-batching serving per metric; memory; the whole
// training run (days, GPU-hours, energy, cost against what makers published for theirs). The
// quantiles of log(measured / predicted) per regime come from presets/uncertainty/bands.json,
// written by scripts/fit_uncertainty.py from the validation rows (never per case); a regime with
// too few rows takes its parent's band (the name less its last part).
#pragma once

#include <nlohmann/json.hpp>

#include "predict/predict.h"

namespace optimus::io {

// The regime of each workload of a scenario: "training/dense/earlier", "inference/graphs",
// "serving", "memory/training", ...
struct Regimes {
  std::string training, inference, serving, memory, run;
};
Regimes regimes_of(const Scenario& s, const Prediction& p);

// {"<dotted output path>": {"low", "high", "regime", "cases"}, ...} for the headline numbers
// the prediction has and whose regime (or a parent) has a band.
nlohmann::ordered_json uncertainty_json(const Scenario& s, const Prediction& p);

}  // namespace optimus::io
