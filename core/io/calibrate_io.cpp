#include "io/calibrate_io.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "base/words.h"
#include "calibrate/calibrate.h"
#include "io/json_io.h"
#include "io/json_write.h"
#include "io/lines.h"
#include "io/presets.h"
#include "rl/rl.h"

namespace optimus::io {

namespace {

using ojson = nlohmann::ordered_json;

// The common headline numbers straight from the prediction (what a calibration's many predictions
// ask for; the JSON writer gives the same doubles), else nullopt.
std::optional<double> fast_metric(const Prediction& p, const std::string& m) {
  if (p.training && m.rfind("training.", 0) == 0) {
    const auto& t = *p.training;
    if (m == "training.iteration_time_s") return t.iteration_time.value;
    if (m == "training.tokens_per_s") return t.tokens_per_s;
    if (m == "training.mfu") return t.mfu;
  }
  if (p.inference && m.rfind("inference.", 0) == 0) {
    const auto& i = *p.inference;
    if (m == "inference.ttft_s") return i.ttft.value;
    if (m == "inference.tpot_s") return i.tpot.value;
    if (m == "inference.e2e_latency_s") return i.e2e_latency.value;
    if (m == "inference.throughput_tokens_per_s") return i.throughput_tokens_per_s;
  }
  if (p.serving && m.rfind("serving.", 0) == 0) {
    const auto& v = *p.serving;
    if (m == "serving.output_tokens_per_s") return v.output_tokens_per_s;
    if (m == "serving.output_tokens_per_s_per_gpu") return v.output_tokens_per_s_per_gpu;
    if (m == "serving.mean_itl_s") return v.mean_itl_s;
    for (const auto& [name, l] : {std::pair{"ttft_s", &v.ttft}, std::pair{"tpot_s", &v.tpot},
                                  std::pair{"itl_s", &v.itl}, std::pair{"e2e_latency_s", &v.e2e}}) {
      const std::string base = std::string("serving.") + name + ".";
      if (m == base + "mean") return l->mean;
      if (m == base + "p50") return l->p50;
      if (m == base + "p90") return l->p90;
      if (m == base + "p99") return l->p99;
    }
  }
  return std::nullopt;
}

const ojson* dig(const ojson& j, const std::string& path) {
  const ojson* at = &j;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

// An RL step's headline numbers straight from its prediction, else nullopt.
std::optional<double> fast_metric(const RlPrediction& p, const std::string& m) {
  if (m == "rl.step_time_s") return p.step_time_s;
  if (m == "rl.tokens_per_s") return p.tokens_per_s;
  if (m == "rl.tokens_per_s_per_gpu") return p.tokens_per_s_per_gpu;
  return std::nullopt;
}

// The metric's value in a prediction's JSON output (a last part a+b+c sums those fields: the
// validation cases' memory rows).
Result<double> metric_in(const ojson& j, const std::string& metric) {
  const std::size_t dot = metric.rfind('.');
  const std::string last = metric.substr(dot == std::string::npos ? 0 : dot + 1);
  std::vector<std::string> paths;
  if (last.find('+') != std::string::npos) {
    const std::string head = dot == std::string::npos ? "" : metric.substr(0, dot + 1);
    std::size_t start = 0;
    while (true) {
      const std::size_t plus = last.find('+', start);
      paths.push_back(head +
                      last.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  } else {
    paths.push_back(metric);
  }
  double sum = 0;
  for (const std::string& path : paths) {
    const ojson* v = dig(j, path);
    if (!v)
      return make_error(
          "calibrate.metric_unknown", "metric",
          "the prediction has no output '" + path +
              "' (a dotted path of optimus predict --json's output, e.g. training.iteration_time_s, "
              "serving.tpot_s.p50)");
    if (!v->is_number())
      return make_error("calibrate.metric_not_numeric", "metric",
                        "output '" + path + "' is " + (v->is_object() ? "an object" : v->dump()) +
                            ", not a number" + (v->is_object() ? " (name one of its fields)" : ""));
    sum += v->get<double>();
  }
  return sum;
}

// The whole prediction's JSON (an RL scenario's: its rl block), as `optimus predict --json`
// writes it.
ojson output_of(const Scenario& s, const RlPrediction& p) {
  return ojson::parse(rl_prediction_to_json(s, p));
}
ojson output_of(const Scenario& s, const Prediction& p) { return ojson::parse(prediction_to_json(s, p)); }

// The scenario's prediction (an RL step's or the others'), handed to `use`.
template <class R, class Use>
Result<R> with_prediction(const Scenario& s, const Use& use) {
  if (s.rl) {
    auto p = predict_rl(s);
    if (!p) return p.error();
    return use(*p);
  }
  auto p = optimus::predict(s);
  if (!p) return p.error();
  return use(*p);
}

Result<ojson> prediction_output(const Scenario& s) {
  return with_prediction<ojson>(s, [&](const auto& p) -> Result<ojson> { return output_of(s, p); });
}

// The predictions of the costly scenarios (an RL step, a serving simulation: milliseconds to
// tens of milliseconds each) by scenario, as many kept as the fit comes back to. A fit asks for
// every measured metric of a scenario at each point it tries (forward differences: one point per
// factor), and the measurements of one run (a verl log's step time and phases, a benchmark's TTFT,
// TPOT and throughput) share their scenario: one prediction answers them all. Keyed by the
// scenario as written, whose system carries the calibrated rates (and the host speed beside it).
// A cheap scenario (a training step, a static batch: microseconds) is predicted again; writing
// the key would cost more.
class PredictionMemo {
 public:
  // Room for every point one linearisation visits (1 + the calibration factors, and one more) for
  // each costly run measured, up to 8 runs: the fit visits a point for every measurement in turn,
  // so measurements of several runs in any order keep their own predictions.
  explicit PredictionMemo(const std::vector<Measurement>& ms) {
    std::vector<std::string> runs;
    for (const Measurement& m : ms)
      if (costly(m.scenario)) {
        std::string text = scenario_to_json(m.scenario, -1);
        if (std::find(runs.begin(), runs.end(), text) == runs.end()) runs.push_back(std::move(text));
      }
    kept_max_ = (kCalibrationFactorCount + 2) * std::clamp<std::size_t>(runs.size(), 1, 8);
  }

  Result<double> value(const Scenario& s, const std::string& metric) {
    if (!costly(s)) return metric_value(s, metric);
    // The host factor also scales software.host_speed, which the scenario's JSON does not carry.
    char speed[32];
    std::snprintf(speed, sizeof speed, " host_speed %a", s.system.software.host_speed);
    std::string key = scenario_to_json(s, -1) + speed;
    auto hit = std::find_if(kept_.begin(), kept_.end(), [&](const auto& k) { return k.first == key; });
    if (hit == kept_.end()) {
      if (kept_.size() >= kept_max_) kept_.erase(kept_.begin());
      kept_.emplace_back(std::move(key), prediction_output(s));
      hit = kept_.end() - 1;
    }
    if (!hit->second) return hit->second.error();
    return metric_in(*hit->second, metric);
  }

 private:
  static bool costly(const Scenario& s) { return s.rl || (s.inference && s.inference->serving); }

  std::size_t kept_max_ = 0;
  std::vector<std::pair<std::string, Result<ojson>>> kept_;
};

// A measurement's scenario as text: the object as written, or the JSON of the preset scenario a
// string names ("default"), as predict's FILE may name one; calibrate.unknown_scenario otherwise.
Result<std::string> measurement_scenario(const ojson& scenario, const std::string& at,
                                         const std::string& where) {
  if (!scenario.is_string()) return scenario.dump();
  const std::string id = scenario.get<std::string>();
  if (const std::string_view text = preset_json("scenarios", id); !text.empty()) return std::string(text);
  return make_error("calibrate.unknown_scenario", at + "/scenario",
                    where + "no preset scenario '" + id + "'" + did_you_mean(id, preset_ids("scenarios")) +
                        "; write the scenario as an object, or a preset scenario's id (optimus presets "
                        "scenarios lists them)");
}

}  // namespace

Result<double> metric_value(const Scenario& s, const std::string& metric) {
  return with_prediction<double>(s, [&](const auto& p) -> Result<double> {
    if (auto v = fast_metric(p, metric)) return *v;
    return metric_in(output_of(s, p), metric);
  });
}

std::string calibrate_json(std::string_view text,
                           const std::function<std::optional<Error>(Scenario&)>& resolve) {
  std::vector<Measurement> ms;
  Lines in(text);
  std::string line;
  std::int64_t no = 0;
  const auto fail = [](std::string code, std::string path, std::string message) {
    return error_to_json(Error{std::move(code), std::move(path), std::move(message)});
  };
  while (in.next(line)) {
    ++no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = "/" + std::to_string(no);
    const std::string where = "line " + std::to_string(no) + ": ";
    ojson j;
    try {
      try {
        j = ojson::parse(line);
      } catch (const ojson::parse_error&) {
        // A scenario written by Python's json module may hold a bare Infinity (a request rate).
        const auto fixed = infinity_as_number(line);
        if (!fixed) throw;
        j = ojson::parse(*fixed);
      }
    } catch (const ojson::exception&) {
      return fail(no == 1 ? "calibrate.unknown_format" : "calibrate.malformed_line", at,
                  where + "not a JSON object on one line" +
                      (no == 1 ? std::string("; calibrate reads JSON Lines of {\"scenario\", \"metric\", "
                                             "\"measured\"} (optimus import FORMAT FILE --scenario S writes "
                                             "them from a benchmark tool's output)")
                               : std::string()));
    }
    if (!j.is_object() || (!j.contains("scenario") && !j.contains("metric") && !j.contains("measured")))
      return fail(
          "calibrate.unknown_format", at,
          where +
              "not a measurement: calibrate reads JSON Lines of {\"scenario\", \"metric\", \"measured\"}; "
              "a benchmark tool's own file goes through optimus import FORMAT FILE --scenario S");
    static const std::set<std::string> kKeys = {"scenario", "metric", "measured", "id", "notes", "source"};
    std::set<std::string> unknown;
    for (const auto& [key, value] : j.items())
      if (!kKeys.count(key)) unknown.insert(key);
    for (const char* key : {"scenario", "metric", "measured"})
      if (!j.contains(key)) {
        const std::string near = misspelt_as(key, unknown);  // "mesured" for measured
        return fail("calibrate.missing_key", at + "/" + key,
                    where + "the measurement has no '" + key + "'" +
                        (near.empty() ? "" : "; '" + near + "' is written: did you mean '" + key + "'?"));
      }
    if (!unknown.empty()) {
      const std::string& key = *unknown.begin();
      return fail("calibrate.unknown_key", at + "/" + key,
                  where + "unknown key '" + key + "'" + did_you_mean(key, kKeys) +
                      " (scenario, metric, measured; id, notes, source)");
    }
    if (!j["metric"].is_string())
      return fail("calibrate.metric_not_text", at + "/metric", where + "metric must be a dotted output path");
    if (!j["measured"].is_number())
      return fail("calibrate.measured_not_number", at + "/measured",
                  where + "measured must be a number, got " + j["measured"].dump());
    const auto scenario_text = measurement_scenario(j["scenario"], at, where);
    if (!scenario_text) return error_to_json(scenario_text.error());
    auto s = parse_scenario(*scenario_text);
    if (!s) {
      Error e = s.error();
      e.path = at + "/scenario" + e.path;
      e.message = where + e.message;
      return error_to_json(e);
    }
    Scenario sc = std::move(*s);
    // A scenario that carries a calibration is measured on its system as given.
    if (sc.calibration) {
      if (sc.calibration->uncalibrated) sc.system = *sc.calibration->uncalibrated;
      sc.calibration.reset();
    }
    if (auto e = resolve(sc)) {
      e->path = at + "/scenario" + e->path;
      e->message = where + e->message;
      return error_to_json(*e);
    }
    ms.push_back({std::move(sc), j["metric"].get<std::string>(), j["measured"].get<double>(), no});
  }
  PredictionMemo memo(ms);
  auto metric = [&memo](const Scenario& s, const std::string& m) -> Result<double> {
    return memo.value(s, m);
  };
  auto fit = calibrate(ms, metric);
  if (!fit) {
    return error_to_json(fit.error());
  }
  ojson out;
  out["calibration"] = calibration_json(fit->calibration);
  ojson fitted = ojson::array();
  for (const FittedFactor& f : fit->fitted)
    fitted.push_back({{"factor", std::string(name_of(f.factor))},
                      {"value", f.value},
                      {"low", f.low},
                      {"high", f.high},
                      {"fitted", f.fitted},
                      {"bounds", {f.bound_low, f.bound_high}}});
  out["fitted"] = fitted;
  ojson cases = ojson::array();
  for (std::size_t i = 0; i < fit->cases.size(); ++i) {
    const CalibratedCase& c = fit->cases[i];
    ojson sens = ojson::object();
    for (const auto& [k, name] : EnumNames<CalibrationFactor>::table)
      sens[std::string(name)] = fit->sensitivity[i][static_cast<std::size_t>(k)];
    cases.push_back({{"line", c.line},
                     {"metric", c.metric},
                     {"measured", c.measured},
                     {"before", c.before},
                     {"after", c.after},
                     {"sensitivity", sens}});
  }
  out["cases"] = cases;
  ojson warnings = ojson::array();
  for (const Warning& w : fit->warnings) warnings.push_back({{"code", w.code}, {"message", w.message}});
  out["warnings"] = warnings;
  return out.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace optimus::io
