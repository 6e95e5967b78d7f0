// The engine's JSON surface, shared by the CLI and the WebAssembly bindings: strings in,
// strings out, errors in band as {"error": {"code", "path", "message"}}. Never throws.
#pragma once

#include <string>
#include <string_view>

namespace optimus::api {

// Scenario JSON (spec/scenario.md) -> prediction JSON, or an error object.
std::string predict(std::string_view scenario_json);

// Scenario JSON -> {"ok": true, "scenario": <scenario with presets resolved and defaults
// filled in>} or an error object.
std::string validate(std::string_view scenario_json);

// {"models": [{"id", "name", ...}], "devices": [...], "systems": [...], "scenarios": [...]};
// kind = "" for all, or one of those names.
std::string presets(std::string_view kind);

// One preset's JSON object (as stored), or an error object with code "preset.unknown".
std::string preset(std::string_view kind, std::string_view id);

// Whether a JSON string is an error object (for callers that set exit codes).
bool is_error(std::string_view json);

}  // namespace optimus::api
