#include "io/uncertainty.h"

#include <string>

#include "io/presets.h"

namespace optimus::io {

const BandTable& fitted_bands() {
  static const BandTable table = [] {
    BandTable t;
    const std::string_view text = preset_json("uncertainty", "bands");
    if (text.empty()) return t;
    const nlohmann::json b = nlohmann::json::parse(text);
    if (!b.contains("regimes")) return t;
    t.min_cases = b.value("min_cases", 8);
    for (const auto& [name, r] : b["regimes"].items())
      t.regimes[name] = {r.at("q_low").get<double>(), r.at("q_high").get<double>(), r.value("cases", 0)};
    return t;
  }();
  return table;
}

namespace {

nlohmann::ordered_json bands_json(const std::vector<UncertaintyBand>& bands) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const UncertaintyBand& b : bands) {
    out[b.path] = {{"low", b.low}, {"high", b.high}, {"regime", b.regime}, {"cases", b.cases}};
    if (!b.raised_by.empty()) {
      out[b.path]["raised_by"] = b.raised_by;
      out[b.path]["fitted_high"] = b.fitted_high;
    }
  }
  return out;
}

}  // namespace

nlohmann::ordered_json uncertainty_json(const Scenario& s, const Prediction& p) {
  return bands_json(uncertainty_bands(s, p, fitted_bands()));
}

nlohmann::ordered_json rl_uncertainty_json(const Scenario& s, const RlPrediction& p) {
  return bands_json(rl_uncertainty_bands(s, p, fitted_bands()));
}

}  // namespace optimus::io
