// Calibration to measurements (issue 38, core/calibrate, io/calibrate_io.cpp): the fit's
// properties (its own prediction changes nothing, a compute-bound case twice as slow halves the
// matmul rate, bounds hold, consistent measurements narrow the band), the scenario key's
// application, and bad input with codes and paths.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "import/importers.h"
#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"
#include "scenario/scenario.h"

namespace calibrate_test {

namespace {

using json = nlohmann::json;

// Compute-bound training: one large GEMM-heavy model on one device, no communication.
json compute_bound() {
  return json::parse(R"({"model": {"layers": 2, "hidden": 16384, "heads": 128, "ffn_hidden": 65536,
    "vocab": 32000}, "system": "dgx-a100-80gb", "num_devices": 1, "parallel": {"tp": 1},
    "training": {"global_batch": 8, "seq_len": 2048}})");
}
// A smaller one that fits in the device's memory (the layout search ranks only layouts that fit).
json fits_one_device() {
  return json::parse(R"({"model": {"layers": 4, "hidden": 8192, "heads": 64, "ffn_hidden": 32768,
    "vocab": 32000}, "system": "dgx-a100-80gb", "num_devices": 1, "parallel": {"tp": 1},
    "training": {"global_batch": 4, "seq_len": 2048}})");
}
// Training over 64 GPUs (communication and compute), and a decode-bound inference.
json tensor_parallel(int tp, int global_batch) {
  json s = json::parse(R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 64,
    "parallel": {"tp": 8, "pp": 8, "dp": 1}, "training": {"global_batch": 64, "seq_len": 2048}})");
  s["parallel"]["tp"] = tp;
  s["parallel"]["pp"] = 64 / tp;
  s["training"]["global_batch"] = global_batch;
  return s;
}
json decode(int batch) {
  json s = json::parse(R"({"model": "llama3-8b", "system": "dgx-a100-80gb", "num_devices": 1,
    "parallel": {"tp": 1}, "inference": {"batch": 1, "prompt_len": 512, "output_len": 256}})");
  s["inference"]["batch"] = batch;
  return s;
}

const char* kServing =
    R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 1, "parallel": {"tp": 1},
  "inference": {"batch": 1, "prompt_len": 1024, "output_len": 256,
  "serving": {"arrival": "offline", "num_requests": 100, "input_len": 1024, "output_len": 256}}})";

json predict(const json& s) { return json::parse(optimus::api::predict(s.dump())); }
double at(const json& j, const std::string& dotted) {
  const json* v = &j;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    v = &(*v)[dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
    if (dot == std::string::npos) return v->get<double>();
    start = dot + 1;
  }
}
std::string line(const json& s, const std::string& metric, double measured) {
  return json{{"scenario", s}, {"metric", metric}, {"measured", measured}}.dump() + "\n";
}
json calibrate(const std::string& text) { return json::parse(optimus::api::calibrate(text)); }
const json& factor(const json& out, const std::string& name) {
  for (const json& f : out["fitted"])
    if (f["factor"] == name) return f;
  ADD_FAILURE() << "no factor " << name;
  return out;
}

TEST(Calibrate, OwnPredictionChangesNothing) {
  const std::string m1 = "training.iteration_time_s", m2 = "inference.tpot_s";
  const double t = at(predict(compute_bound()), m1);
  const json one = calibrate(line(compute_bound(), m1, t));
  ASSERT_FALSE(one.contains("error")) << one.dump();
  for (const json& f : one["fitted"]) EXPECT_NEAR(f["value"].get<double>(), 1.0, 1e-12) << f.dump();
  // More measurements of different kinds: the least squares stays at 1 too.
  std::string many = line(compute_bound(), m1, t);
  for (int tp : {2, 4, 8})
    many += line(tensor_parallel(tp, 64), m1, at(predict(tensor_parallel(tp, 64)), m1));
  for (int b : {1, 32}) many += line(decode(b), m2, at(predict(decode(b)), m2));
  const json out = calibrate(many);
  ASSERT_FALSE(out.contains("error")) << out.dump();
  for (const json& f : out["fitted"]) EXPECT_NEAR(f["value"].get<double>(), 1.0, 1e-9) << f.dump();
  for (const json& c : out["cases"])
    EXPECT_NEAR(c["after"].get<double>() / c["before"].get<double>(), 1.0, 1e-9) << c.dump();
}

TEST(Calibrate, APresetScenarioIdStandsForItsScenario) {
  // "scenario": "default" fits what the default scenario's own JSON fits, and a misspelt id is
  // refused at its path with the id it probably meant.
  const std::string m = "training.iteration_time_s";
  const json preset = json::parse(std::string(optimus::preset_json("scenarios", "default")));
  const double t = 0.9 * at(predict(preset), m);
  const json by_id = calibrate(line("default", m, t));
  ASSERT_FALSE(by_id.contains("error")) << by_id.dump();
  EXPECT_EQ(by_id, calibrate(line(preset, m, t)));
  const json e = calibrate(line("defualt", m, t));
  ASSERT_TRUE(e.contains("error")) << e.dump();
  EXPECT_EQ(e["error"]["code"], "calibrate.unknown_scenario");
  EXPECT_EQ(e["error"]["path"], "/1/scenario");
  EXPECT_NE(e["error"]["message"].get<std::string>().find("did you mean 'default'?"), std::string::npos)
      << e.dump();
}

TEST(Calibrate, TwiceAsSlowComputeBoundHalvesTheMatmulRate) {
  const std::string m = "training.iteration_time_s";
  const double t = at(predict(compute_bound()), m);
  const json out = calibrate(line(compute_bound(), m, 2 * t));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  // The case is compute-bound: its iteration time follows the matmul rate almost one for one.
  EXPECT_LT(out["cases"][0]["sensitivity"]["matmul"].get<double>(), -0.85);
  EXPECT_GT(out["cases"][0]["sensitivity"]["memory"].get<double>(), -0.2);
  const json& mm = factor(out, "matmul");
  EXPECT_TRUE(mm["fitted"].get<bool>());
  // Half the rate, a little less for the part of the step that is not matmul.
  EXPECT_GT(mm["value"].get<double>(), 0.4);
  EXPECT_LE(mm["value"].get<double>(), 0.5);
  for (const char* other : {"memory", "scale_up", "scale_out", "host"})
    EXPECT_EQ(factor(out, other)["value"].get<double>(), 1.0) << other;
  EXPECT_NEAR(out["cases"][0]["after"].get<double>() / (2 * t), 1.0, 0.01);
  // The calibration in the scenario reproduces it, and reports what it was before.
  json s = compute_bound();
  s["calibration"] = out["calibration"];
  const json p = predict(s);
  EXPECT_NEAR(at(p, m) / (2 * t), 1.0, 0.01);
  EXPECT_TRUE(p["calibration"]["applied"].get<bool>());
  EXPECT_DOUBLE_EQ(p["calibration"]["uncalibrated"][m].get<double>(), t);
}

TEST(Calibrate, FactorsStayInTheirBounds) {
  const std::string m = "training.iteration_time_s";
  const double t = at(predict(compute_bound()), m);
  for (double ratio : {0.5, 0.8, 5.0, 9.0}) {
    const json out = calibrate(line(compute_bound(), m, ratio * t));
    ASSERT_FALSE(out.contains("error")) << out.dump();
    for (const json& f : out["fitted"]) {
      EXPECT_GE(f["value"].get<double>(), f["bounds"][0].get<double>()) << ratio << f.dump();
      EXPECT_LE(f["value"].get<double>(), f["bounds"][1].get<double>()) << ratio << f.dump();
      EXPECT_GE(f["low"].get<double>(), f["bounds"][0].get<double>());
      EXPECT_LE(f["high"].get<double>(), f["bounds"][1].get<double>());
      EXPECT_LE(f["low"].get<double>(), f["value"].get<double>());
      EXPECT_GE(f["high"].get<double>(), f["value"].get<double>());
    }
    // Faster than the datasheet peak allows, or five times slower than a fifth of the rate gives:
    // held at the bound, and the case is not reproduced.
    if (ratio <= 0.5 || ratio >= 5.0) {
      EXPECT_GT(std::fabs(out["cases"][0]["after"].get<double>() / (ratio * t) - 1), 0.02) << ratio;
    }
  }
  // A factor typed out of its range is refused with its path.
  json s = compute_bound();
  s["calibration"] = {{"device", "NVIDIA A100 SXM4 80GB"}, {"factors", {{"matmul", 1.5}}}};
  const json e = predict(s);
  EXPECT_EQ(e["error"]["code"], "calibration.factor_out_of_range");
  EXPECT_EQ(e["error"]["path"], "/calibration/factors/matmul");
}

// The engine applies a calibration itself (scenario/scenario.h), so a native caller that builds a
// Scenario without JSON gets what the JSON reader gives: the factors multiply the system's rates and
// the system before them is kept; fitted on another device it stays unapplied and says why; a factor
// past its bound is refused with its path.
TEST(Calibrate, TheEngineAppliesACalibrationWithoutJson) {
  auto parsed = optimus::parse_scenario(compute_bound().dump());
  ASSERT_TRUE(parsed.ok());
  const optimus::Scenario plain = parsed.value();
  const double matmul = plain.system.device.matmul_efficiency;

  optimus::Scenario s = plain;
  s.calibration = optimus::Calibration{};
  s.calibration->device = s.system.device.name;
  s.calibration->factors[static_cast<std::size_t>(optimus::CalibrationFactor::matmul)] = 0.5;
  ASSERT_FALSE(optimus::apply_calibration(s).has_value());
  EXPECT_TRUE(s.calibration->applied);
  EXPECT_DOUBLE_EQ(s.system.device.matmul_efficiency, 0.5 * matmul);
  ASSERT_TRUE(s.calibration->uncalibrated.has_value());
  EXPECT_DOUBLE_EQ(s.calibration->uncalibrated->device.matmul_efficiency, matmul);

  optimus::Scenario other = plain;
  other.calibration = optimus::Calibration{};
  other.calibration->device = "some other device";
  other.calibration->factors[static_cast<std::size_t>(optimus::CalibrationFactor::matmul)] = 0.5;
  ASSERT_FALSE(optimus::apply_calibration(other).has_value());
  EXPECT_FALSE(other.calibration->applied);
  EXPECT_NE(other.calibration->not_applicable.find("some other device"), std::string::npos);
  EXPECT_DOUBLE_EQ(other.system.device.matmul_efficiency, matmul);

  optimus::Scenario past = plain;
  past.calibration = optimus::Calibration{};
  past.calibration->device = past.system.device.name;
  past.calibration->factors[static_cast<std::size_t>(optimus::CalibrationFactor::matmul)] = 1.5;
  const auto e = optimus::apply_calibration(past);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "calibration.factor_out_of_range");
  EXPECT_EQ(e->path, "/calibration/factors/matmul");
  EXPECT_NE(e->message.find("matmul = 1.5 "), std::string::npos) << e->message;
}

// What a fit cannot reach is said and carried into the band: an iteration five times slower than a
// fifth of the matmul rate gives holds the factor at its bound (calibrate.factor_at_bound), the case
// stays far from its measurement (calibrate.misfit) and the band covers that misfit, where it had
// been the +-8% of a clean fit with no word; a measurement the fit reproduces warns of nothing.
TEST(Calibrate, WhatTheFitCannotReachIsSaid) {
  const std::string m = "training.iteration_time_s";
  const double t = at(predict(compute_bound()), m);
  const json far = calibrate(line(compute_bound(), m, 9.0 * t));
  ASSERT_FALSE(far.contains("error")) << far.dump();
  std::vector<std::string> codes;
  for (const json& w : far["warnings"]) codes.push_back(w["code"]);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "calibrate.factor_at_bound"), codes.end())
      << far["warnings"];
  EXPECT_NE(std::find(codes.begin(), codes.end(), "calibrate.misfit"), codes.end()) << far["warnings"];
  const double after = far["cases"][0]["after"].get<double>(), measured = 9.0 * t;
  EXPECT_GE(far["calibration"]["band"]["high"].get<double>(), measured / after);
  const json near = calibrate(line(compute_bound(), m, 1.2 * t));
  ASSERT_FALSE(near.contains("error")) << near.dump();
  EXPECT_TRUE(near["warnings"].empty()) << near["warnings"];
}

TEST(Calibrate, ConsistentMeasurementsNarrowTheBand) {
  // Measurements made on a "true" system: matmul at 0.7 and memory at 0.8 of the modelled rates.
  json truth = {{"device", "NVIDIA A100 SXM4 80GB"}, {"factors", {{"matmul", 0.7}, {"memory", 0.8}}}};
  const auto measured = [&](json s, const std::string& m) {
    s["calibration"] = truth;
    return line(s, m, at(predict(s), m));
  };
  const std::string t = "training.iteration_time_s", d = "inference.tpot_s";
  std::vector<std::string> lines = {measured(compute_bound(), t),         measured(decode(1), d),
                                    measured(tensor_parallel(8, 64), t),  measured(decode(4), d),
                                    measured(tensor_parallel(4, 128), t), measured(decode(16), d)};
  double previous_width = 1e9, previous_band = 1e9;
  for (std::size_t n : {2, 4, 6}) {
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += lines[i];
    const json out = calibrate(text);
    ASSERT_FALSE(out.contains("error")) << out.dump();
    const json& mm = factor(out, "matmul");
    EXPECT_NEAR(mm["value"].get<double>(), 0.7, 0.035) << n;
    EXPECT_NEAR(factor(out, "memory")["value"].get<double>(), 0.8, 0.04) << n;
    const double width = std::log(mm["high"].get<double>() / mm["low"].get<double>());
    const double band = std::log(out["calibration"]["band"]["high"].get<double>() /
                                 out["calibration"]["band"]["low"].get<double>());
    EXPECT_LT(width, previous_width) << n;
    EXPECT_LT(band, previous_band) << n;
    previous_width = width;
    previous_band = band;
    for (const json& c : out["cases"])
      EXPECT_NEAR(c["after"].get<double>() / c["measured"].get<double>(), 1.0, 0.03) << c.dump();
  }
}

// An RL step (core/rl) calibrates like any other prediction: its phases measured on a "true"
// system (matmul at 0.7, memory at 0.8 of the modelled rates) give those factors back, the
// calibrated step reproduces the measured one, and the prediction reports the step uncalibrated.
TEST(Calibrate, RlStepPhasesFitTheirRates) {
  // Engines of tp 1 read their weights from HBM every step, so the rollout measures the memory
  // rate. (Left to the engine, this job serves at tp 8, where an 8B model's decode step is mostly
  // kernel and all-reduce latency: the two measurements are then met as well by other factors.)
  const json job = {{"model", "llama3.1-8b"},
                    {"system", "dgx-h100"},
                    {"num_devices", 8},
                    {"rl",
                     {{"prompts_per_step", 64},
                      {"samples_per_prompt", 4},
                      {"prompt_len", 256},
                      {"response_len", {{"mean", 1024}, {"max", 4096}}},
                      {"rollout", {{"tp", 1}}}}}};
  const json truth = {{"device", "NVIDIA H100 SXM5 80GB"}, {"factors", {{"matmul", 0.7}, {"memory", 0.8}}}};
  json measured_on = job;
  measured_on["calibration"] = truth;
  const json real = predict(measured_on);
  ASSERT_TRUE(real.contains("rl")) << real.dump();
  ASSERT_TRUE(real["calibration"]["applied"].get<bool>()) << real["calibration"].dump();
  const std::string step = "rl.step_time_s", rollout = "rl.phases_s.rollout", train = "rl.phases_s.train";
  const json out = calibrate(line(job, rollout, at(real, rollout)) + line(job, train, at(real, train)));
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_NEAR(factor(out, "matmul")["value"].get<double>(), 0.7, 0.05) << out["fitted"].dump();
  EXPECT_NEAR(factor(out, "memory")["value"].get<double>(), 0.8, 0.06) << out["fitted"].dump();
  json s = job;
  s["calibration"] = out["calibration"];
  const json p = predict(s);
  EXPECT_NEAR(at(p, step) / at(real, step), 1.0, 0.03);
  EXPECT_DOUBLE_EQ(p["calibration"]["uncalibrated"][step].get<double>(), at(predict(job), step));
  // An output the RL prediction does not have is refused with its line.
  const json bad = calibrate(line(job, "training.iteration_time_s", 1.0));
  EXPECT_EQ(bad["error"]["code"], "calibrate.metric_unknown") << bad.dump();
}

// The measurements of one scenario share its predictions (io/calibrate_io.cpp, PredictionMemo: an
// RL step or a serving run is predicted once for all its metrics at each point of the fit). The
// same three measurements on scenarios that differ only in their names (so nothing is shared)
// give the same fit, to the last bit: sharing changes the work, never the answer.
TEST(Calibrate, MeasurementsOfOneScenarioShareItsPredictionsWithTheSameFit) {
  const json job = {{"model", "llama3.1-8b"},
                    {"system", "dgx-h100"},
                    {"num_devices", 8},
                    {"rl",
                     {{"prompts_per_step", 16},
                      {"samples_per_prompt", 4},
                      {"prompt_len", 256},
                      {"response_len", {{"mean", 512}, {"max", 2048}}}}}};
  const json real = predict(job);
  ASSERT_TRUE(real.contains("rl")) << real.dump();
  const std::vector<std::pair<std::string, double>> ms = {
      {"rl.step_time_s", 1.3}, {"rl.phases_s.rollout", 1.4}, {"rl.phases_s.train", 1.1}};
  std::string shared, apart;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& [metric, slower] = ms[i];
    json named = job;
    named["name"] = "run " + std::to_string(i);
    shared += line(job, metric, at(real, metric) * slower);
    apart += line(named, metric, at(real, metric) * slower);
  }
  const json a = calibrate(shared), b = calibrate(apart);
  ASSERT_FALSE(a.contains("error")) << a.dump();
  EXPECT_EQ(a["calibration"]["factors"], b["calibration"]["factors"]);
  EXPECT_EQ(a["fitted"], b["fitted"]);
  EXPECT_NE(factor(a, "memory")["value"].get<double>(), 1.0) << a["fitted"].dump();
}

TEST(Calibrate, AppliesOnlyToItsDeviceAndSoftware) {
  const std::string m = "training.iteration_time_s";
  const double t = at(predict(fits_one_device()), m);
  const json cal = calibrate(line(fits_one_device(), m, 1.5 * t))["calibration"];
  EXPECT_EQ(cal["device"], "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(cal["software"], "");
  // Another device: the uncalibrated prediction and the warning.
  json other = fits_one_device();
  other["system"] = "dgx-h100";
  const double h100 = at(predict(other), m);
  other["calibration"] = cal;
  json p = predict(other);
  EXPECT_DOUBLE_EQ(at(p, m), h100);
  EXPECT_FALSE(p["calibration"]["applied"].get<bool>());
  bool warned = false;
  for (const json& w : p["warnings"]) warned = warned || w["code"] == "calibration.not_applicable";
  EXPECT_TRUE(warned);
  // Another software stack on the same device: not applied either.
  json sw = fits_one_device();
  sw["software"] = "megatron-lm-2021";
  sw["calibration"] = cal;
  EXPECT_FALSE(predict(sw)["calibration"]["applied"].get<bool>());
  // validate writes the scenario back with its system as given: read again, the calibration is
  // applied once, not twice.
  json s = fits_one_device();
  s["calibration"] = cal;
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump();
  EXPECT_DOUBLE_EQ(at(predict(v["scenario"]), m), at(predict(s), m));
  // The layout search ranks with the calibrated rates.
  const json found = json::parse(optimus::api::search(s.dump(), R"({"top": 1})"));
  const json plain = json::parse(optimus::api::search(fits_one_device().dump(), R"({"top": 1})"));
  ASSERT_FALSE(found.contains("error")) << found.dump();
  ASSERT_FALSE(found["best"].empty()) << found.dump();
  ASSERT_FALSE(plain["best"].empty()) << plain.dump();
  EXPECT_GT(found["best"][0]["training"]["iteration_time_s"].get<double>(),
            1.3 * plain["best"][0]["training"]["iteration_time_s"].get<double>());
}

TEST(Calibrate, BadInputHasCodesAndPaths) {
  const std::string m = "training.iteration_time_s";
  const json ok = compute_bound();
  const double t = at(predict(ok), m);
  const auto error = [](const std::string& text) {
    const json e = calibrate(text);
    EXPECT_TRUE(e.contains("error")) << e.dump();
    return e.contains("error") ? e["error"] : json::object();
  };
  EXPECT_EQ(error("")["code"], "calibrate.no_measurements");
  EXPECT_EQ(error("{\"successful_requests\": 100, \"output_throughput\": 12.5}\n")["code"],
            "calibrate.unknown_format");
  EXPECT_EQ(error("not json\n")["code"], "calibrate.unknown_format");
  json e = error(line(ok, m, t) + "{\"scenario\": \n");
  EXPECT_EQ(e["code"], "calibrate.malformed_line");
  EXPECT_EQ(e["path"], "/2");
  // Python's json module writes an infinite request rate as a bare Infinity: read as predict reads it.
  json inf = json::parse(kServing);
  inf["inference"]["serving"] = {{"arrival", "poisson"},
                                 {"requests_per_s", 1},
                                 {"num_requests", 50},
                                 {"input_len", 256},
                                 {"output_len", 64}};
  std::string text = line(inf, "serving.tpot_s.mean", 0.01);
  text.replace(text.find("\"requests_per_s\":1"), 18, "\"requests_per_s\":Infinity");
  const json from_python = calibrate(text);
  EXPECT_FALSE(from_python.contains("error")) << from_python.dump() << text;
  e = error(line(ok, "training.no_such_number", t));
  EXPECT_EQ(e["code"], "calibrate.metric_unknown");
  EXPECT_EQ(e["path"], "/1/metric");
  e = error(line(ok, "training.breakdown_s", t));
  EXPECT_EQ(e["code"], "calibrate.metric_not_numeric");
  EXPECT_EQ(e["path"], "/1/metric");
  e = error(line(ok, m, -3));
  EXPECT_EQ(e["code"], "calibrate.measured_not_positive");
  EXPECT_EQ(e["path"], "/1/measured");
  e = error(line(ok, m, t) + line(ok, m, 1000 * t));
  EXPECT_EQ(e["code"], "calibrate.measured_absurd");
  EXPECT_EQ(e["path"], "/2/measured");
  EXPECT_NE(e["message"].get<std::string>().find("1000 times the prediction"), std::string::npos) << e.dump();
  json h100 = ok;
  h100["system"] = "dgx-h100";
  e = error(line(ok, m, t) + "\n" + line(h100, m, t));
  EXPECT_EQ(e["code"], "calibrate.mixed_systems");
  EXPECT_EQ(e["path"], "/3/scenario/system");
  json bad = ok;
  bad["parallel"]["tp"] = 3;
  e = error(line(bad, m, t));
  EXPECT_EQ(e["path"].get<std::string>().rfind("/1/scenario/", 0), 0u) << e.dump();
  EXPECT_NE(e["message"].get<std::string>().find("line 1"), std::string::npos);
  e = error(json{{"scenario", ok}, {"metric", m}}.dump());
  EXPECT_EQ(e["code"], "calibrate.missing_key");
  EXPECT_EQ(e["path"], "/1/measured");
  // A mistyped key names what it probably meant, missing or unknown.
  e = error(json{{"scenario", ok}, {"metric", m}, {"mesured", t}}.dump());
  EXPECT_EQ(e["code"], "calibrate.missing_key");
  EXPECT_NE(e["message"].get<std::string>().find("'mesured' is written: did you mean 'measured'?"),
            std::string::npos)
      << e.dump();
  e = error(json{{"scenario", ok}, {"metric", m}, {"measured", t}, {"note", "x"}}.dump());
  EXPECT_EQ(e["code"], "calibrate.unknown_key");
  EXPECT_EQ(e["path"], "/1/note");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean 'notes'?"), std::string::npos) << e.dump();
  e = error(json{{"scenario", ok}, {"metric", m}, {"measured", "fast"}}.dump());
  EXPECT_EQ(e["code"], "calibrate.measured_not_number");
  // A metric no factor moves: nothing fitted, every factor 1, and the warning.
  const json weights = calibrate(line(ok, "memory.per_device_bytes.weights", 1.2e10));
  ASSERT_FALSE(weights.contains("error")) << weights.dump();
  ASSERT_EQ(weights["warnings"].size(), 1u);
  EXPECT_EQ(weights["warnings"][0]["code"], "calibrate.insensitive");
  for (const json& f : weights["fitted"]) {
    EXPECT_EQ(f["value"].get<double>(), 1.0);
    EXPECT_FALSE(f["fitted"].get<bool>());
  }
}

// Issue 38's speed: 100 measurements calibrate in under 0.5 s natively (a benchmark too:
// BM_Calibrate100, tests/bench/predict_bench.cpp). Generous here for sanitizer builds.
TEST(Calibrate, HundredMeasurementsAreFast) {
  std::string text;
  for (int i = 0; i < 100; ++i) {
    const int tp = 1 << (i % 4);
    const json s = tensor_parallel(tp, 64 * (1 + i % 5));
    text +=
        line(s, "training.iteration_time_s", at(predict(s), "training.iteration_time_s") * (1.1 + 0.001 * i));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const json out = calibrate(text);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(out.contains("error")) << out.dump();
  EXPECT_LT(s, 20.0);
  RecordProperty("seconds", std::to_string(s));
}

}  // namespace

namespace {

std::string read_example(const std::string& name) {
  std::ifstream f(std::string(OPTIMUS_IMPORT_DIR) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

json import_text(const std::string& format, const std::string& text, const std::string& scenario) {
  return json::parse(optimus::api::import_measurements(format, text, scenario));
}
json import(const std::string& format, const std::string& file, const std::string& scenario) {
  return import_text(format, read_example(file), scenario);
}
double measured(const json& r, const std::string& metric) {
  for (const json& m : r["measurements"])
    if (m["metric"] == metric) return m["measured"].get<double>();
  ADD_FAILURE() << "no " << metric << " in " << r.dump();
  return 0;
}
// An import's measurement lines fitted as they are, one per line, as `optimus calibrate` reads them.
json calibrate_imported(const json& r) {
  std::string text;
  for (const json& m : r["measurements"]) text += m.dump() + "\n";
  return calibrate(text);
}
bool lists(const json& a, const std::string& text) {
  for (const json& x : a)
    if (x.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

TEST(Import, VllmBenchServe) {
  const json r = import("vllm", "vllm_bench_serve.json", kServing);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_DOUBLE_EQ(measured(r, "serving.output_tokens_per_s"), 2070.5);
  EXPECT_DOUBLE_EQ(measured(r, "serving.tpot_s.p50"), 0.0295);
  EXPECT_DOUBLE_EQ(measured(r, "serving.e2e_latency_s.mean"), 7.6802);
  const json& sv = r["measurements"][0]["scenario"]["inference"]["serving"];
  EXPECT_EQ(sv["arrival"], "closed");
  EXPECT_EQ(sv["concurrency"], 64);
  EXPECT_EQ(sv["num_requests"], 500);
  EXPECT_TRUE(lists(r["unread"], "p99_ttft_ms"));
  // The lines calibrate as they are.
  EXPECT_FALSE(calibrate_imported(r).contains("error"));
}

TEST(Import, SglangBenchServing) {
  const json r = import("sglang", "sglang_bench_serving.jsonl", kServing);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_DOUBLE_EQ(measured(r, "serving.output_tokens_per_s"), 4088.3);
  EXPECT_DOUBLE_EQ(measured(r, "serving.e2e_latency_s.p50"), 7.9982);
  const json& sv = r["measurements"][0]["scenario"]["inference"]["serving"];
  EXPECT_EQ(sv["concurrency"], 32);
  EXPECT_TRUE(lists(r["unread"], "accept_length") || lists(r["unread"], "input_throughput"));
}

TEST(Import, TrtllmBenchReport) {
  const json r = import("trtllm-bench", "trtllm_bench_throughput.txt", kServing);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_DOUBLE_EQ(measured(r, "serving.output_tokens_per_s"), 18085.9891);
  EXPECT_DOUBLE_EQ(measured(r, "serving.requests_per_s"), 141.2968);
  const json& s = r["measurements"][0]["scenario"];
  EXPECT_EQ(s["inference"]["serving"]["num_requests"], 3000);
  EXPECT_EQ(s["inference"]["serving"]["input_len"], 128);
  EXPECT_EQ(s["inference"]["serving"]["max_batch"], 2048);
  EXPECT_TRUE(lists(r["unread"], "Total Latency (ms)"));
}

TEST(Import, MegatronAndTorchtitanLogs) {
  const std::string training = R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 1024,
    "parallel": {"tp": 8, "pp": 8, "dp": 16}, "training": {"global_batch": 1536, "seq_len": 2048}})";
  json r = import("megatron", "megatron_train.log", training);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  // The first (warm-up) iteration dropped, the median of the rest.
  EXPECT_DOUBLE_EQ(measured(r, "training.iteration_time_s"), 13.8019);
  EXPECT_EQ(r["measurements"][0]["scenario"]["training"]["global_batch"], 512);
  r = import("torchtitan", "torchtitan_train.log", R"({"model": "llama3-8b", "system": "dgx-h100",
    "num_devices": 8, "parallel": {"tp": 1, "dp": 8}, "training": {"global_batch": 8, "seq_len": 8192}})");
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_DOUBLE_EQ(measured(r, "training.tokens_per_s"), 6438.0 * 8);
}

TEST(Import, InferenceXRows) {
  const json r =
      import("inferencex", "inferencex_rows.csv",
             R"({"model": "deepseek-r1", "system": "dgx-b200", "num_devices": 4, "software": "sglang",
    "inference": {"batch": 1, "prompt_len": 921, "output_len": 921, "precision": "nvfp4"}})");
  ASSERT_FALSE(r.contains("error")) << r.dump();
  // Two rows, each: output tok/s/GPU and the median TPOT (its mean column is empty; ITL, TTFT and
  // E2E are listed as not read).
  ASSERT_EQ(r["measurements"].size(), 2u * 2u);
  EXPECT_TRUE(lists(r["unread"], "median_ttft_s"));
  EXPECT_TRUE(lists(r["unread"], "median_itl_s"));
  EXPECT_DOUBLE_EQ(measured(r, "serving.output_tokens_per_s_per_gpu"), 470.6749779732305);
  const json& sv = r["measurements"][0]["scenario"]["inference"]["serving"];
  EXPECT_EQ(sv["concurrency"], 32);
  EXPECT_EQ(sv["input_len"], 922);  // 1024 x (1 + 0.8) / 2
  EXPECT_EQ(r["measurements"][2]["scenario"]["inference"]["serving"]["concurrency"], 128);
  // The row's launch limits: --max-running-requests, --cuda-graph-max-bs and --chunked-prefill-size,
  // at tp 4 x ep 4; the columns read are not listed as unread.
  EXPECT_EQ(sv["max_batch"], 256);
  EXPECT_EQ(sv["cuda_graph_max_batch"], 256);
  EXPECT_FALSE(lists(r["unread"], "cuda_graph_max_bs"));
  EXPECT_EQ(sv["max_num_tokens"], 16384);
  EXPECT_EQ(r["measurements"][0]["scenario"]["parallel"]["tp"], 4);
}

// The same row launched with SGLang's DP attention on 8 GPUs (its tp, ep, dp_attention and
// num_gpus columns rewritten: a constructed row, to read the layout): every GPU attends to its own
// requests (tp 1, dp 8, experts over ep 8), each of SGLang's 8 workers takes 256 / 8 running
// requests, and the 16,384-token chunk stays the server's, which the sglang profile splits over
// the 8 ranks when predicting.
TEST(Import, InferenceXRowWithDataParallelAttention) {
  std::string csv = read_example("inferencex_rows.csv");
  const std::string from = ",none,4,4,false,4,", to = ",none,8,8,true,8,";
  ASSERT_NE(csv.find(from), std::string::npos);
  csv.replace(csv.find(from), from.size(), to);
  const json r =
      import_text("inferencex", csv,
                  R"({"model": "deepseek-r1", "system": "dgx-b200", "num_devices": 4, "software": "sglang",
    "inference": {"batch": 1, "prompt_len": 921, "output_len": 921, "precision": "nvfp4"}})");
  ASSERT_FALSE(r.contains("error")) << r.dump();
  const json& s = r["measurements"][0]["scenario"];
  EXPECT_EQ(s["num_devices"], 8);
  EXPECT_EQ(s["parallel"]["tp"], 1);
  EXPECT_EQ(s["parallel"]["dp"], 8);
  EXPECT_EQ(s["parallel"]["ep"], 8);
  EXPECT_EQ(s["inference"]["serving"]["max_batch"], 256 / 8);
  EXPECT_EQ(s["inference"]["serving"]["max_num_tokens"], 16384);
  const json p = json::parse(optimus::api::predict(s.dump()));
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["serving"]["max_num_tokens"], 16384 / 8);
  EXPECT_EQ(p["serving"]["max_batch"], 256 / 8);
}

// verl's console log: the median of the steps after the first (steps 2-4 of the example), the
// critic-free GRPO job's phases, tokens/s per GPU, and the run's mean lengths written into the
// scenario with the stated limits kept, the step's prompts where the scenario states others; the
// lines calibrate as they are.
TEST(Import, VerlConsoleLog) {
  const std::string job = R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": 8,
    "rl": {"placement": "colocated", "prompts_per_step": 128, "samples_per_prompt": 16,
           "prompt_len": 1024, "response_len": 8192, "reference": false,
           "train": {"tp": 1, "dp": 8, "zero_stage": 3}}})";
  const json r = import("verl", "verl_console.log", job);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_DOUBLE_EQ(measured(r, "rl.step_time_s"), 165.1);  // median of 165.1, 166.8, 165.0
  // Colocated, verl's gen holds the weight load and the engine's wake-up and sleep.
  EXPECT_DOUBLE_EQ(measured(r, "rl.phases_s.rollout+weight_sync+swap"), 94.52);
  EXPECT_DOUBLE_EQ(measured(r, "rl.phases_s.old_logprob"), 17.57);
  EXPECT_DOUBLE_EQ(measured(r, "rl.phases_s.train"), 52.26);
  const json& rl = r["measurements"][0]["scenario"]["rl"];
  EXPECT_DOUBLE_EQ(rl["response_len"]["mean"].get<double>(), 1731.0);
  EXPECT_EQ(rl["response_len"]["max"], 8192);
  EXPECT_DOUBLE_EQ(rl["prompt_len"]["mean"].get<double>(), 237.3);
  EXPECT_EQ(rl["prompt_len"]["max"], 1024);
  // The rule-based reward's time (median 0.81 s) over the step's 128 x 16 responses, one process:
  // the scenario's reward_cpu_ms, not a measurement (the engine would predict it back exactly).
  EXPECT_DOUBLE_EQ(rl["reward_cpu_ms"].get<double>(), 0.81 * 1e3 / 2048);
  EXPECT_TRUE(lists(r["filled"], "rl.reward_cpu_ms"));
  EXPECT_FALSE(lists(r["unread"], "timing_s/reward"));
  EXPECT_FALSE(lists(r["filled"], "prompts_per_step"));  // the job's 128 x 16, as the log's tokens say
  std::string bigger = job;
  const std::string stated = "\"prompts_per_step\": 128";
  ASSERT_NE(bigger.find(stated), std::string::npos);
  bigger.replace(bigger.find(stated), stated.size(), "\"prompts_per_step\": 512");
  const json b = import("verl", "verl_console.log", bigger);
  EXPECT_EQ(b["measurements"][0]["scenario"]["rl"]["prompts_per_step"], 128);
  EXPECT_TRUE(lists(b["filled"], "rl.prompts_per_step = 128"));
  // samples_per_prompt not stated: GRPO's default 16 divides the log's responses, as the engine
  // will read the scenario (it was taken as 1, which made the step 16 times the run's).
  std::string unstated = bigger;
  const std::string samples = "\"samples_per_prompt\": 16,";
  ASSERT_NE(unstated.find(samples), std::string::npos);
  unstated.erase(unstated.find(samples), samples.size());
  const json u = import("verl", "verl_console.log", unstated);
  EXPECT_EQ(u["measurements"][0]["scenario"]["rl"]["prompts_per_step"], 128) << u.dump();
  for (const json& m : r["measurements"]) EXPECT_NE(m["metric"], "rl.phases_s.reward");
  const json fitted = calibrate_imported(r);
  EXPECT_FALSE(fitted.contains("error")) << fitted.dump();

  // Under rl.async the trainer's "gen" is its wait for samples: not read as the rollout.
  const std::string split = R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": 8,
    "rl": {"placement": "split", "rollout_devices": 4, "train_devices": 4, "prompts_per_step": 512,
           "samples_per_prompt": 16, "prompt_len": 1024, "response_len": 8192, "reference": false,
           "async": {"staleness": 1}}})";
  const json a = import("verl", "verl_console.log", split);
  ASSERT_FALSE(a.contains("error")) << a.dump();
  for (const json& m : a["measurements"])
    EXPECT_EQ(m["metric"].get<std::string>().find("rollout"), std::string::npos);
  EXPECT_TRUE(lists(a["unread"], "timing_s/gen"));

  // A scenario without an rl block, and a file that is not verl's.
  EXPECT_EQ(import("verl", "verl_console.log", kServing)["error"]["code"], "import.scenario_invalid");
  EXPECT_EQ(import("verl", "verl_console.log", kServing)["error"]["path"], "/rl");
  EXPECT_EQ(import("verl", "megatron_train.log", job)["error"]["code"], "import.malformed");
  // A release that times the weight update apart (timing_s/update_weights): gen is the rollout alone.
  const json w = json::parse(optimus::api::import_measurements(
      "verl", "step:1 - timing_s/gen:80.0 - timing_s/update_weights:4.5 - timing_s/step:150.0", job));
  ASSERT_FALSE(w.contains("error")) << w.dump();
  EXPECT_DOUBLE_EQ(measured(w, "rl.phases_s.rollout"), 80.0);
  EXPECT_TRUE(lists(w["unread"], "timing_s/update_weights"));
  // Absurd numbers in a log are not read as a batch or a limit (no overflow, no crash).
  const json x = json::parse(optimus::api::import_measurements(
      "verl",
      "step:1 - timing_s/step:12.5 - perf/total_num_tokens:1e300 - prompt_length/mean:np.float64(5) - "
      "response_length/mean:np.float64(100) - actor/entropy:nan - timing_s/gen:np.float64(",
      job));
  ASSERT_FALSE(x.contains("error")) << x.dump();
  EXPECT_DOUBLE_EQ(measured(x, "rl.step_time_s"), 12.5);
  EXPECT_FALSE(lists(x["filled"], "prompts_per_step"));  // 1e300 / 105 / 16 prompts: not read
  EXPECT_TRUE(lists(x["filled"], "rl.response_len = {\"mean\":100.0,\"max\":8192}"));
}

// NeMo-RL's timing block: the median of steps 2-4 (the checkpoint of step 4 inside its total),
// the log-prob timer as the policy's and reference's passes together, the mean generation length
// into the scenario; the refit and the CPU-side timers listed as not read.
TEST(Import, NemoRlConsoleLog) {
  const std::string job = R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": 8,
    "rl": {"placement": "colocated", "prompts_per_step": 64, "samples_per_prompt": 16,
           "prompt_len": {"mean": 180, "max": 512}, "response_len": 4096, "reference": true,
           "train": {"tp": 1, "dp": 8, "zero_stage": 3}}})";
  const json r = import("nemo-rl", "nemo_rl_console.log", job);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_DOUBLE_EQ(measured(r, "rl.step_time_s"), 69.62);  // median of 69.37, 69.62, 83.14
  EXPECT_DOUBLE_EQ(measured(r, "rl.phases_s.rollout"), 41.28);
  EXPECT_DOUBLE_EQ(measured(r, "rl.phases_s.old_logprob+reference"), 10.31);
  EXPECT_DOUBLE_EQ(measured(r, "rl.phases_s.train"), 14.13);
  const json& rl = r["measurements"][0]["scenario"]["rl"];
  EXPECT_DOUBLE_EQ(rl["response_len"]["mean"].get<double>(), 1012.6);
  EXPECT_EQ(rl["response_len"]["max"], 4096);
  EXPECT_TRUE(lists(r["unread"], "prepare_for_generation/total"));
  EXPECT_TRUE(lists(r["unread"], "data_processing"));
  // The environment's scoring (median 0.25 s of steps 2-4) over the 64 x 16 responses.
  EXPECT_DOUBLE_EQ(rl["reward_cpu_ms"].get<double>(), 0.25 * 1e3 / 1024);
  EXPECT_FALSE(lists(r["unread"], "reward_calculation"));
  EXPECT_FALSE(calibrate_imported(r).contains("error"));
  EXPECT_EQ(import("nemo-rl", "nemo_rl_console.log", kServing)["error"]["path"], "/rl");
  EXPECT_EQ(import("nemo-rl", "verl_console.log", job)["error"]["code"], "import.malformed");
}

TEST(Import, BadInput) {
  EXPECT_EQ(import("nvprof", "vllm_bench_serve.json", kServing)["error"]["code"], "import.unknown_format");
  // A run that completed no request measured nothing.
  json none = json::parse(read_example("vllm_bench_serve.json"));
  none["completed"] = 0;
  const json e0 = json::parse(optimus::api::import_measurements("vllm", none.dump(), kServing));
  EXPECT_EQ(e0["error"]["code"], "import.nothing_measured") << e0.dump();
  EXPECT_EQ(import("vllm", "megatron_train.log", kServing)["error"]["code"], "import.malformed");
  EXPECT_EQ(import("trtllm-bench", "vllm_bench_serve.json", kServing)["error"]["code"], "import.malformed");
  EXPECT_EQ(import("megatron", "trtllm_bench_throughput.txt", kServing)["error"]["code"],
            "import.nothing_measured");
  EXPECT_EQ(import("inferencex", "megatron_train.log", kServing)["error"]["code"], "import.malformed");
  EXPECT_EQ(import("vllm", "vllm_bench_serve.json", "{not json")["error"]["code"], "import.scenario_invalid");
  const json e = import("vllm", "vllm_bench_serve.json", R"({"model": "llama3-8b", "system": "no-such-system",
    "num_devices": 1, "inference": {"batch": 1, "prompt_len": 8, "output_len": 8}})");
  EXPECT_EQ(e["error"]["code"], "import.scenario_invalid");
  EXPECT_EQ(e["error"]["path"], "/system");
}

// A timing line whose number is unreadable or not positive gives an error at the import, not a
// measurement that calibration refuses later.
TEST(Import, RefusesATimingThatIsNotPositive) {
  const auto run = [](const std::string& log) {
    return json::parse(optimus::api::import_measurements("megatron", log, kServing));
  };
  const json negative = run(" iteration 1/ 10 | elapsed time per iteration (ms): -5.0 |\n");
  EXPECT_EQ(negative["error"]["code"], "import.measured_not_positive") << negative.dump();
  EXPECT_EQ(negative["error"]["path"], "/measurements/0");
  const json zero = run(" iteration 1/ 10 | elapsed time per iteration (ms): 0 |\n");
  EXPECT_EQ(zero["error"]["code"], "import.measured_not_positive");
  const json unreadable = run(" iteration 1/ 10 | elapsed time per iteration (ms): nan |\n");
  EXPECT_EQ(unreadable["error"]["code"], "import.nothing_measured");
  EXPECT_NE(unreadable["error"]["message"].get<std::string>().find("followed by a number"),
            std::string::npos);
  const json good = run(" iteration 1/ 10 | elapsed time per iteration (ms): 1250.5 |\n");
  EXPECT_DOUBLE_EQ(measured(good, "training.iteration_time_s"), 1.2505);
}

// A serving benchmark's time or rate of zero or less is refused, not dropped while the file's other
// numbers calibrate (vLLM's mean TPOT -3 ms, an output throughput of 0); a TPOT of 0 (requests of
// one output token: no gap measured) is left unread; a step below zero in a log among good ones is
// refused, not taken into the median; a bare NaN (Python's json.dump) is named in the error.
TEST(Import, RefusesServingNumbersThatAreNotPositive) {
  const json base = json::parse(read_example("vllm_bench_serve.json"));
  const auto run = [](const json& r) { return import_text("vllm", r.dump(), kServing); };
  for (const auto& [field, value] :
       {std::pair{"mean_tpot_ms", -3.0}, {"output_throughput", 0.0}, {"median_ttft_ms", -1.0}}) {
    json r = base;
    r[field] = value;
    EXPECT_EQ(run(r)["error"]["code"], "import.measured_not_positive") << field;
  }
  json one_token = base;
  one_token["mean_tpot_ms"] = 0;
  const json ok = run(one_token);
  ASSERT_FALSE(ok.contains("error")) << ok.dump().substr(0, 300);
  EXPECT_TRUE(lists(ok["unread"], "mean_tpot_ms"));
  std::string log;
  for (const char* ms : {"1200.0", "1210.0", "-166.8", "1190.0"})
    log += std::string(" elapsed time per iteration (ms): ") + ms + " |\n";
  const json steps = import_text("megatron", log, kServing);
  EXPECT_EQ(steps["error"]["code"], "import.measured_not_positive") << steps.dump();
  // A zero step among good ones too (a 56 s step and a 0 ms one had made a 28 s median).
  const json zero_step = import_text(
      "megatron", " elapsed time per iteration (ms): 56000.1 |\n elapsed time per iteration (ms): 0 |\n",
      kServing);
  EXPECT_EQ(zero_step["error"]["code"], "import.measured_not_positive") << zero_step.dump();
  std::string nan = base.dump();
  nan.replace(nan.find("2070.5"), 6, "NaN");
  const json bare = import_text("vllm", nan, kServing);
  EXPECT_EQ(bare["error"]["code"], "import.malformed");
  EXPECT_NE(bare["error"]["message"].get<std::string>().find("bare NaN"), std::string::npos);
}

// trtllm-bench's throughput command runs offline, whatever stream the scenario states: a closed
// loop's concurrency or a Poisson rate is not kept beside its numbers.
TEST(Import, TrtllmBenchIsOfflineOverAnyStream) {
  json closed = json::parse(kServing);
  closed["inference"]["serving"] = {{"arrival", "closed"}, {"concurrency", 32}, {"num_requests", 64}};
  const json r = import("trtllm-bench", "trtllm_bench_throughput.txt", closed.dump());
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 300);
  const json& sv = r["measurements"][0]["scenario"]["inference"]["serving"];
  EXPECT_EQ(sv["arrival"], "offline");
  EXPECT_FALSE(sv.contains("concurrency"));
  EXPECT_FALSE(sv.contains("requests_per_s"));
}

// Under a batch ramp only the steps at the last logged global batch measure the scenario (a median
// over 16, 32 and 64 had filed 3.0 s under a batch of 64 whose steps take 7.0 s); NeMo 2's line
// carries global_batch_size, and NeMo 1's progress bar writes its timing with '='.
TEST(Import, TrainingLogsReadTheLastGlobalBatch) {
  const std::string training = R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 8,
    "parallel": {"tp": 1, "dp": 8}, "training": {"global_batch": 64, "seq_len": 8192}})";
  std::string ramp;
  for (const auto& [gbs, ms] : std::vector<std::pair<int, double>>{
           {16, 2000}, {16, 2100}, {16, 2050}, {16, 2020}, {32, 3900}, {64, 7000}, {64, 7005}, {64, 6990}})
    ramp +=
        " iteration 1/ 100 | consumed samples: 16 | elapsed time per iteration (ms): " + std::to_string(ms) +
        " | learning rate: 1.0E-04 | global batch size: " + std::to_string(gbs) + " | lm loss: 9.1 |\n";
  json r = import_text("megatron", ramp, training);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_NEAR(measured(r, "training.iteration_time_s"), 6.9975,
              1e-9);  // 7,005 and 6,990 ms (the first dropped)
  EXPECT_TRUE(lists(r["unread"], "5 steps logged at global batches before the last (64)"));
  r = import_text(
      "nemo",
      "Epoch 0: | global_step: 10 | global_batch_size: 128 | train_step_timing in s: 13.99 | loss: 7\n"
      "Epoch 0: | global_step: 11 | global_batch_size: 128 | train_step_timing in s: 14.01 | loss: 7\n",
      training);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["measurements"][0]["scenario"]["training"]["global_batch"], 128);
  EXPECT_NEAR(measured(r, "training.iteration_time_s"), 14.0, 1e-9);
  r = import_text(
      "nemo",
      "Epoch 0: 10%|#  | 10/100 [01:10<10:30, reduced_train_loss=7.1, train_step_timing in s=7.010]\n",
      training);
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_NEAR(measured(r, "training.iteration_time_s"), 7.01, 1e-9);
  // A logged batch that the scenario's data-parallel ranks do not divide is refused here, not by
  // calibrate a step later.
  r = import_text("megatron",
                  " iteration 5/ 100 | elapsed time per iteration (ms): 7000.0 | global batch size: 100 |\n",
                  training);
  EXPECT_EQ(r["error"]["code"], "import.scenario_invalid");
  EXPECT_EQ(r["error"]["path"], "/training/global_batch");
}

// vLLM's offline run (request_rate inf, no concurrency limit) is offline whatever the scenario's
// stream; the run's mean lengths replace stated means more than 10% away from them (a stated 1,000
// where the run averaged 4,000 had been kept, unsaid), a stated distribution that agrees is kept.
TEST(Import, VllmOfflineRunAndItsLengths) {
  json scenario = json::parse(kServing);
  scenario["inference"]["serving"] = {{"arrival", "poisson"},
                                      {"requests_per_s", 6},
                                      {"num_requests", 100},
                                      {"input_len", 1000},
                                      {"output_len", {{"mean", 1000}, {"max", 2000}}}};
  const json result = {
      {"completed", 500},           {"request_rate", "inf"},         {"max_concurrency", nullptr},
      {"output_throughput", 900.0}, {"total_input_tokens", 2000000}, {"total_output_tokens", 520000}};
  const json r = import_text("vllm", result.dump(), scenario.dump());
  ASSERT_FALSE(r.contains("error")) << r.dump();
  const json& sv = r["measurements"][0]["scenario"]["inference"]["serving"];
  EXPECT_EQ(sv["arrival"], "offline");
  EXPECT_FALSE(sv.contains("requests_per_s"));
  EXPECT_EQ(sv["input_len"], 4000);
  EXPECT_TRUE(lists(r["filled"], "where the scenario stated a mean of 1000"));
  EXPECT_EQ(sv["output_len"], json({{"mean", 1000}, {"max", 2000}}));  // 1,040 is within 10% of 1,000
}

}  // namespace

}  // namespace calibrate_test
