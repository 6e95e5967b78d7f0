#include "io/api.h"

#include <nlohmann/json.hpp>

#include "io/json_io.h"
#include "io/presets.h"

namespace optimus::api {

namespace {

std::string internal_error(const char* what) {
  return error_to_json(Error{"internal.exception", "", std::string("internal error: ") + what});
}

}  // namespace

std::string predict(std::string_view scenario_json) {
  try {
    auto s = parse_scenario(scenario_json);
    if (!s) return error_to_json(s.error());
    auto p = optimus::predict(*s);
    if (!p) return error_to_json(p.error());
    return prediction_to_json(*s, *p);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

std::string validate(std::string_view scenario_json) {
  try {
    auto s = parse_scenario(scenario_json);
    if (!s) return error_to_json(s.error());
    if (auto err = validate_plan(*s)) return error_to_json(*err);
    return "{\"ok\":true,\"scenario\":" + scenario_to_json(*s) + "}";
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

std::string presets(std::string_view kind) {
  try {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const char* k : {"models", "devices", "systems", "scenarios"}) {
      if (!kind.empty() && kind != k) continue;
      nlohmann::ordered_json arr = nlohmann::ordered_json::array();
      for (const auto& p : list_presets(k))
        arr.push_back({{"id", p.id}, {"name", p.name}, {"source", p.source}});
      out[k] = arr;
    }
    if (out.empty())
      return error_to_json(Error{
          "preset.unknown_kind", "",
          "unknown preset kind '" + std::string(kind) + "'; use models, devices, systems or scenarios"});
    return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  }
}

std::string preset(std::string_view kind, std::string_view id) {
  const std::string_view j = preset_json(kind, id);
  if (j.empty())
    return error_to_json(
        Error{"preset.unknown", "", "no " + std::string(kind) + " preset '" + std::string(id) + "'"});
  return std::string(j);
}

bool is_error(std::string_view json) {
  // Error objects start with {"error": (we write them); anything else is a result.
  return json.rfind("{\"error\":", 0) == 0;
}

}  // namespace optimus::api
