// What every fuzz target demands of the engine's JSON answers (issue 6). An answer is JSON; an
// error object is exactly {"error": {"code", "path", "message"}} with a dotted code, a JSON Pointer
// path and a message, and at most a "fix" beside them (an object of counts, flags and names: the
// edit the engine proposes, docs/contract.md Errors), a "fewest_devices" (a count above one) and, for
// parallel.auto_no_layout alone, "rejected" (positive counts by dotted code), and for a split RL job's
// rl.train_no_layout and rl.rollout_does_not_fit alone, "fewest_pools" (its two pools, adding up to
// fewest_devices); any other
// answer carries only finite, non-negative numbers (nlohmann/json prints NaN and infinity as null, so any
// null is a NaN that got out), its training breakdown sums to the iteration time within 1% and its memory
// categories to the total (docs/contract.md, Output). A violation prints the input and the answer and aborts,
// which libFuzzer reports as a crash and the replay driver as a failed test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "io/api.h"
#include "serving/serving.h"

// libFuzzer calls this once before the first input (so does replay_main.cpp). Every fuzz target
// bounds a serving simulation's work (set_serving_work_limit) at 2,000,000 units, about 0.4 s
// under the sanitizers and four times the largest preset scenario's (the DeepSeek-R1 and GRPO
// presets take up to 530,000). Without it an input such as 262,144 RL responses or sixteen
// speculative requests of a million tokens each, valid and taking a second natively, ran 15-19 s
// sanitized (a CI run failed on one at the 10 s timeout of the time), and one near the step bound
// would run for minutes; with it such an input is refused as serving.too_many_steps, which the
// checks accept. Defined here, in the one file every target
// includes, rather than inline: libFuzzer looks the symbol up.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  optimus::set_serving_work_limit(2'000'000);
  return 0;
}

namespace optimus::fuzz {

using json = nlohmann::json;

[[noreturn]] inline void fail(std::string_view what, std::string_view input, std::string_view output) {
  std::fprintf(stderr, "\nfuzz check failed: %.*s\n--- input (%zu bytes)\n%.*s\n--- output\n%.*s\n",
               static_cast<int>(what.size()), what.data(), input.size(), static_cast<int>(input.size()),
               input.data(), static_cast<int>(output.size()), output.data());
  std::abort();
}

// The answer parsed, or a failure when it is not a JSON object.
inline json parse_answer(std::string_view input, const std::string& out) {
  json j = json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) fail("the answer is not a JSON object", input, out);
  return j;
}

// True for an error object (after checking its shape), false for any other answer.
inline bool is_error_answer(const json& j, std::string_view input, const std::string& out) {
  const auto it = j.find("error");
  if (it == j.end()) return false;
  const json& e = *it;
  const bool has_fix = it->is_object() && e.contains("fix");
  const bool has_fewest = it->is_object() && e.contains("fewest_devices");
  const bool has_rejected = it->is_object() && e.contains("rejected");
  const bool has_pools = it->is_object() && e.contains("fewest_pools");
  if (j.size() != 1 || !it->is_object() || it->size() != 3u + has_fix + has_fewest + has_rejected + has_pools)
    fail("malformed error object", input, out);
  if (has_pools) {
    const std::string c = e.value("code", "");
    const json& p = e["fewest_pools"];
    const auto count = [&](const char* k) {
      return p.is_object() && p.contains(k) && p[k].is_number_integer() && p[k].get<std::int64_t>() >= 1
                 ? p[k].get<std::int64_t>()
                 : 0;
    };
    if ((c != "rl.train_no_layout" && c != "rl.rollout_does_not_fit") || !has_fewest || p.size() != 2 ||
        count("rollout_devices") + count("train_devices") != e["fewest_devices"] ||
        count("rollout_devices") == 0 || count("train_devices") == 0)
      fail("error fewest_pools is not a split RL job's two pools adding up to fewest_devices", input, out);
  }
  if (has_rejected) {
    if (e.value("code", "") != "parallel.auto_no_layout" || !e["rejected"].is_object() ||
        e["rejected"].empty())
      fail("error rejected is not the counts of a parallel.auto_no_layout", input, out);
    for (const auto& [k, v] : e["rejected"].items())
      if (k.find('.') == std::string::npos || !v.is_number_integer() || v.get<std::int64_t>() < 1)
        fail("error rejected holds " + k, input, out);
  }
  if (has_fewest && !(e["fewest_devices"].is_number_integer() && e["fewest_devices"].get<std::int64_t>() > 1))
    fail("error fewest_devices is not a device count", input, out);
  if (has_fix) {
    if (!e["fix"].is_object() || e["fix"].empty()) fail("error fix is not an object", input, out);
    for (const auto& [k, v] : e["fix"].items())
      if (!(v.is_number_integer() || v.is_boolean() || v.is_string()))
        fail("error fix holds " + k, input, out);
  }
  const auto str = [&](const char* k) {
    if (!e.contains(k) || !e[k].is_string()) fail("error field is not a string", input, out);
    return e[k].get<std::string>();
  };
  const std::string code = str("code"), path = str("path"), message = str("message");
  if (code.empty() || code.find('.') == std::string::npos || code.front() == '.' || code.back() == '.')
    fail("error code is not dotted", input, out);
  if (!path.empty() && path.front() != '/') fail("error path is not a JSON Pointer", input, out);
  if (message.empty()) fail("error message is empty", input, out);
  if (code == "internal.exception") fail("an exception escaped the engine", input, out);
  return true;
}

// Every number finite and >= 0 (times, rates, bytes, counts, fractions), no null anywhere; with
// `signed_ok` (a fit's sensitivities, which may be negative) finite only.
inline void check_numbers(const json& j, std::string_view input, const std::string& out,
                          bool signed_ok = false) {
  if (j.is_null()) fail("null (a NaN or infinity) in the answer", input, out);
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail("non-finite number in the answer", input, out);
    if (v < 0 && !signed_ok) fail("negative number in the answer", input, out);
  } else if (j.is_number_integer() && !j.is_number_unsigned()) {
    if (j.get<std::int64_t>() < 0 && !signed_ok) fail("negative integer in the answer", input, out);
  } else if (j.is_structured()) {
    for (const auto& x : j) check_numbers(x, input, out, signed_ok);
  }
}

inline bool close(double a, double b, double rel) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) + 1e-300;
}

// A prediction (predict's answer that is not an error).
inline void check_prediction(const json& j, std::string_view input, const std::string& out) {
  check_numbers(j, input, out);
  if (!j.contains("memory")) fail("prediction without memory", input, out);
  if (j.contains("training")) {
    const json& t = j["training"];
    double sum = 0;
    for (const auto& [k, v] : t.at("breakdown_s").items()) sum += v.get<double>();
    const double total = t.at("iteration_time_s").get<double>();
    if (!close(sum, total, 0.01)) fail("training.breakdown_s does not sum to iteration_time_s", input, out);
    if (!(total > 0)) fail("training.iteration_time_s is not positive", input, out);
  }
  if (j.contains("inference")) {
    const json& i = j["inference"];
    if (!(i.at("ttft_s").get<double>() > 0)) fail("inference.ttft_s is not positive", input, out);
    if (i.at("e2e_latency_s").get<double>() < i.at("ttft_s").get<double>())
      fail("inference.e2e_latency_s is below ttft_s", input, out);
  }
  const auto check_memory = [&](const json& m) {
    const json& b = m.at("per_device_bytes");
    double sum = 0;
    for (const auto& [k, v] : b.items())
      if (k != "total") sum += v.get<double>();
    if (!close(sum, b.at("total").get<double>(), 1e-9))
      fail("memory.per_device_bytes does not sum to total", input, out);
    if (m.at("fits").get<bool>() != (b.at("total").get<double>() <= m.at("capacity_bytes").get<double>()))
      fail("memory.fits disagrees with total and capacity", input, out);
  };
  check_memory(j["memory"]);
  if (j.contains("inference") && j["inference"].contains("memory")) check_memory(j["inference"]["memory"]);
}

// Two answers with the same shape, the same strings (warnings by code only, their messages
// print rounded numbers) and numbers equal to a relative `rel`.
inline bool same_answer(const json& a, const json& b, double rel, bool in_warnings = false) {
  if (a.is_number() && b.is_number()) return close(a.get<double>(), b.get<double>(), rel);
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return false;
      if (in_warnings && it.key() == "message") continue;
      if (!same_answer(it.value(), b[it.key()], rel, in_warnings || it.key() == "warnings")) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_answer(a[i], b[i], rel, in_warnings)) return false;
    return true;
  }
  return a == b;
}

// The prediction without the warnings of an assumption that validate's resolved scenario states:
// a precision taken from the model's checkpoint is written there as inference.precision and
// rl.rollout.precision (defaults filled in), so predicting the resolved scenario no longer warns.
inline json without_stated_assumptions(json p) {
  if (!p.contains("warnings")) return p;
  json kept = json::array();
  for (const json& w : p["warnings"])
    if (w.value("code", "") != "inference.checkpoint_precision" &&
        w.value("code", "") != "rl.rollout_checkpoint_precision")
      kept.push_back(w);
  p["warnings"] = kept;
  return p;
}

// The whole scenario contract on one input: validate and predict agree on errors (same code and
// path); a valid scenario's prediction passes check_prediction; the resolved scenario that
// validate returns validates again to itself and predicts the same numbers (relative 1e-9: units
// are converted to SI and back).
inline void check_scenario(std::string_view input) {
  const std::string v_out = optimus::api::validate(input);
  const std::string p_out = optimus::api::predict(input);
  const json v = parse_answer(input, v_out);
  const json p = parse_answer(input, p_out);
  const bool v_err = is_error_answer(v, input, v_out);
  const bool p_err = is_error_answer(p, input, p_out);
  // The one error only a run can find: the simulation's own step count (validate checks the
  // lower bound, core/predict/serving.cpp).
  if (!v_err && p_err && p["error"]["code"] == "serving.too_many_steps") return;
  if (v_err != p_err)
    fail("validate and predict disagree on whether the scenario is valid", input, v_out + "\n" + p_out);
  if (v_err) {
    if (v["error"]["code"] != p["error"]["code"] || v["error"]["path"] != p["error"]["path"])
      fail("validate and predict give different errors", input, v_out + "\n" + p_out);
    return;
  }
  if (!v.contains("ok") || !v.contains("scenario") || v.size() != 2)
    fail("malformed validate answer", input, v_out);
  check_prediction(p, input, p_out);

  const std::string resolved = v["scenario"].dump();
  const std::string v2_out = optimus::api::validate(resolved);
  const json v2 = parse_answer(resolved, v2_out);
  if (is_error_answer(v2, resolved, v2_out) || !same_answer(v2["scenario"], v["scenario"], 1e-9))
    fail("validate's resolved scenario does not validate to itself", input, v_out + "\n" + v2_out);
  const std::string p2_out = optimus::api::predict(resolved);
  const json p2 = parse_answer(resolved, p2_out);
  if (is_error_answer(p2, resolved, p2_out) || !same_answer(p2, without_stated_assumptions(p), 1e-9))
    fail("the resolved scenario predicts differently", input, p_out + "\n" + p2_out);
}

}  // namespace optimus::fuzz
