// Uncertainty bands in the output: the engine computes them (uncertainty/uncertainty.h); io/
// reads the fitted bands (presets/uncertainty/bands.json) and writes the intervals.
#pragma once

#include <nlohmann/json.hpp>

#include "predict/predict.h"
#include "uncertainty/uncertainty.h"

namespace optimus::io {

// presets/uncertainty/bands.json, read once.
const BandTable& fitted_bands();

// {"<dotted output path>": {"low", "high", "regime", "cases"}, ...}: uncertainty_bands with the
// fitted bands.
nlohmann::ordered_json uncertainty_json(const Scenario& s, const Prediction& p);
// The same for an RL step (rl_uncertainty_bands).
nlohmann::ordered_json rl_uncertainty_json(const Scenario& s, const RlPrediction& p);

}  // namespace optimus::io
