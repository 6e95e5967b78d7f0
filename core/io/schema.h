// JSON Schema (draft 2020-12) of the engine's JSON contract, built from the engine itself: the
// scenario the readers accept (io/json_io.cpp, io/technology_io.cpp) and the prediction
// prediction_to_json writes. Enums come from the name tables (base/enums.h), defaults from the
// structs' default member values, ranges from what the readers enforce (tests/unit/schema_test.cpp
// checks every bound against the reader), preset ids from the embedded presets. Each property's
// description and unit come from its row in docs/contract.md (io/contract_text.h), added in one
// pass over the built schema (describe_from_doc). Every number that carries a unit says it in its
// description and in the annotation keyword "x-unit" (kUnitKeyword), which a validator must be
// told to allow.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "io/contract_text.h"

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

// Every property of the schema `root` (the scenario's or the prediction's, `which`) with its
// dotted path as docs/contract.md names it: properties in order, through oneOf/anyOf/allOf
// alternatives and array items ("path[]"), each $defs entry visited once, under the path where
// the document describes it (a device under system.device, a software block under
// system.software, ...). `visit` gets the property's node, which it may change, and whether the
// object holding it requires it.
using SchemaVisit = std::function<void(const std::string& path, nlohmann::ordered_json& node, bool required)>;
void walk_schema(nlohmann::ordered_json& root, DocTable which, const SchemaVisit& visit);

// Sets each property's `description` and `x-unit` from its docs/contract.md row (the row's
// meaning, then "Unit: <unit>."); a property without a row keeps what it has.
void describe_from_doc(nlohmann::ordered_json& root, DocTable which);

}  // namespace optimus::io
