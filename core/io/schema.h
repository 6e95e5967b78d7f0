// JSON Schema (draft 2020-12) of the engine's JSON contract, built from the engine itself: the
// scenario the readers accept (io/json_io.cpp, io/technology_io.cpp) and the prediction
// prediction_to_json writes. Enums come from the name tables (base/enums.h), defaults from the
// structs' default member values, ranges from what the readers enforce (tests/unit/schema_test.cpp
// checks every bound against the reader), preset ids from the embedded presets. Every number
// that carries a unit says it in its description and in the annotation keyword "x-unit"
// (kUnitKeyword), which a validator must be told to allow.
#pragma once

#include <nlohmann/json.hpp>

namespace optimus::io {

// The JSON Schema dialect every schema the engine writes declares.
inline constexpr const char* kDraft = "https://json-schema.org/draft/2020-12/schema";
inline constexpr const char* kUnitKeyword = "x-unit";
// Annotation on model keys whose default follows `norm`: {"layernorm": value, "rmsnorm": value}.
inline constexpr const char* kDefaultByNormKeyword = "x-default-by-norm";

// The scenario (docs/contract.md): what parse_scenario accepts.
// Unknown keys are errors there, so every object has additionalProperties: false.
nlohmann::ordered_json scenario_schema();

// The output of `optimus predict --json` (prediction_to_json).
nlohmann::ordered_json prediction_schema();

}  // namespace optimus::io
