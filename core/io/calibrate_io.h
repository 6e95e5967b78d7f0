// Calibration's JSON side (issue 38): measurement lines in, the fitted calibration out
// (core/calibrate/ fits it), and any numeric output path of a prediction read as a metric.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "predict/predict.h"

namespace optimus::io {

// The value at a dotted output path (`training.iteration_time_s`, `serving.tpot_s.p50`; a last part
// `a+b` sums those fields, as the validation cases write them) of the scenario's prediction.
// Errors: the scenario's own when it does not predict, calibrate.metric_unknown (no such path),
// calibrate.metric_not_numeric (a path to an object, a string, ...).
Result<double> metric_value(const Scenario& s, const std::string& metric);

// JSON Lines of {"scenario", "metric", "measured"} -> {"calibration", "fitted", "cases"} or an error
// object. `resolve` turns a scenario's parallel "auto" into its layout (api.cpp).
std::string calibrate_json(std::string_view jsonl,
                           const std::function<std::optional<Error>(Scenario&)>& resolve);

}  // namespace optimus::io
