// Pieces of the JSON output shared inside io/ (json_io.cpp writes the scenario and the
// prediction, api.cpp the search results). Internal to the io module.
#pragma once

#include <nlohmann/json.hpp>

#include "predict/serving.h"
#include "scenario/scenario.h"
#include "search/auto_layout.h"

namespace optimus {

// The spec's `parallel` object for a plan, every key written (defaults filled in).
nlohmann::ordered_json plan_json(const ParallelPlan& p);

// A disaggregated pool (`inference.serving.disaggregated.prefill` / `.decode`): tp, pp, replicas
// and, when the pool sets its own, ep.
nlohmann::ordered_json pool_json(const ServingPool& p);

// A scenario's `calibration` object (hardware/calibration.h), as optimus calibrate writes it and
// parse_scenario reads it back.
nlohmann::ordered_json calibration_json(const Calibration& c);

// The prediction's `parallel_auto`: the layout parallel "auto" chose and how it searched.
nlohmann::ordered_json parallel_auto_json(const ParallelPlan& plan, const AutoLayout& search);

// The prediction's `serving` block (docs/contract.md, "serving").
nlohmann::ordered_json serving_json(const ServingPrediction& v);

}  // namespace optimus
