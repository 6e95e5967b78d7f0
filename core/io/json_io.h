// Scenario JSON <-> engine structs (docs/contract.md). The only module that includes
// nlohmann/json. Reading is strict: unknown keys, missing required keys, wrong types,
// non-integers where counts are expected and out-of-range numbers are errors with the JSON
// Pointer of the offending key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "predict/predict.h"
#include "rl/rl.h"

namespace optimus {

// The scenario format this build reads and writes (`schema_version`; docs/contract.md).
inline constexpr int kSchemaVersion = 1;

Result<Scenario> parse_scenario(std::string_view json);

// JSON text with each bare Infinity token outside strings (what Python's json module writes for an
// infinite request rate) made the largest double, as parse_scenario reads it; nothing when none.
std::optional<std::string> infinity_as_number(std::string_view text);

// The scenario with presets resolved and defaults filled in (inline model and system).
std::string scenario_to_json(const Scenario& s, int indent = -1);

// The output contract of `optimus predict --json`.
std::string prediction_to_json(const Scenario& s, const Prediction& p, int indent = -1);

// The output of predict for a scenario with an `rl` job: {"rl": {...}, "params", "warnings"}.
std::string rl_prediction_to_json(const Scenario& s, const RlPrediction& p, int indent = -1);

std::string error_to_json(const Error& e, int indent = -1);

}  // namespace optimus
