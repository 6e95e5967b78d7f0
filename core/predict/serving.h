// Continuous-batching serving of a scenario (inference.serving): the pools it describes, built
// over the engine's step time, simulated by the serving module (serving/serving.h, which also
// defines ServingPrediction).
#pragma once

#include <optional>
#include <vector>

#include "base/result.h"
#include "scenario/scenario.h"
#include "serving/serving.h"

namespace optimus {

// The checks that need no simulation (run by validate as well as predict): the step bound's lower
// estimate and a KV budget that holds the longest request in every pool.
std::optional<Error> check_serving(const Scenario& s);

// Simulates `s.inference->serving`. Errors: a KV budget that holds no request, a run that would
// need more than the step bound.
Result<ServingPrediction> predict_serving(const Scenario& s, std::vector<Warning>& warnings);

}  // namespace optimus
