// Embind surface of the engine: JSON strings in, JSON strings out (core/io/api.h). Nothing may
// cross into JavaScript as an exception (a C++ throw arrives there as a bare number and can leave
// the module corrupt), so every call is wrapped and anything that escapes becomes an in-band
// {"error": {"code": "internal.exception", ...}} object.
//
// Built twice (wasm/CMakeLists.txt): optimus_wasm, every call, and optimus_wasm_first, the page's
// first-load engine with OPTIMUS_WASM_FIRST_LOAD defined: predict, validate, the presets and the
// search, what the first estimate needs. Without the schema, studies, calibration and importers
// bindings the linker drops their code (docs/web.md "Weight").
#include <emscripten/bind.h>

#include <exception>
#include <functional>
#include <string>

#include "import/importers.h"
#include "io/api.h"

namespace {

// JSON string literal for an arbitrary message (RFC 8259 section 7).
std::string json_quote(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\u00";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string internal_error(const std::string& message) {
  return R"({"error":{"code":"internal.exception","path":"","message":)" + json_quote(message) + "}}";
}

template <typename Call>
std::string guarded(Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    return internal_error(std::string("unexpected exception in the engine: ") + e.what());
  } catch (...) {
    return internal_error("unexpected non-standard exception in the engine");
  }
}

std::string predict(const std::string& scenario_json) {
  return guarded([&] { return optimus::api::predict(scenario_json); });
}

std::string validate(const std::string& scenario_json) {
  return guarded([&] { return optimus::api::validate(scenario_json); });
}

std::string presets(const std::string& kind) {
  return guarded([&] { return optimus::api::presets(kind); });
}

std::string preset(const std::string& kind, const std::string& id) {
  return guarded([&] { return optimus::api::preset(kind, id); });
}

// progress_fn: a JS function (fraction) => boolean, or undefined/null. Only an explicit `false`
// cancels, so a callback that returns nothing lets the search run. The callback must not throw:
// a JavaScript exception cannot be caught on the C++ side.
std::string search(const std::string& scenario_json, const std::string& options_json,
                   emscripten::val progress_fn) {
  return guarded([&] {
    std::function<bool(double)> progress;
    if (progress_fn.typeOf().as<std::string>() == "function")
      progress = [&progress_fn](double fraction) { return !progress_fn(fraction).isFalse(); };
    return optimus::api::search(scenario_json, options_json, progress);
  });
}

// search(scenarioJson, optionsJson) without a callback (Embind overloads by argument count).
std::string search_without_progress(const std::string& scenario_json, const std::string& options_json) {
  return guarded([&] { return optimus::api::search(scenario_json, options_json); });
}

#ifndef OPTIMUS_WASM_FIRST_LOAD
// The paper's studies: studies() lists them, study(name, job) runs one (study.unknown in band;
// job: "" or a person's own job, api.h study).
std::string studies() {
  return guarded([&] { return optimus::api::studies(); });
}

std::string study(const std::string& name, const std::string& job) {
  return guarded([&] { return optimus::api::study(name, job); });
}

// The JSON Schemas of the scenario and the prediction ({"scenario", "prediction"}).
std::string schema() {
  return guarded([] { return optimus::api::schema(); });
}

// JSON Lines of measurements ({"scenario", "metric", "measured"} per line) -> {"calibration",
// "fitted", "cases", ...} or an error object (docs/calibration.md).
std::string calibrate(const std::string& jsonl) {
  return guarded([&] { return optimus::api::calibrate(jsonl); });
}

// A benchmark tool's output file read against a scenario -> {"format", "measurements", "filled",
// "unread"} or an error object (core/import/importers.h).
std::string import_measurements(const std::string& format, const std::string& file,
                                const std::string& scenario_json) {
  return guarded([&] { return optimus::api::import_measurements(format, file, scenario_json); });
}

#endif  // OPTIMUS_WASM_FIRST_LOAD

}  // namespace

EMSCRIPTEN_BINDINGS(optimus) {
  emscripten::function("predict", &predict);
  emscripten::function("validate", &validate);
  emscripten::function("presets", &presets);
  emscripten::function("preset", &preset);
  emscripten::function("search", &search);
  emscripten::function("search", &search_without_progress);
#ifndef OPTIMUS_WASM_FIRST_LOAD
  emscripten::function("studies", &studies);
  emscripten::function("study", &study);
  emscripten::function("schema", &schema);
  emscripten::function("calibrate", &calibrate);
  emscripten::function("import_measurements", &import_measurements);
#endif
}
