// libFuzzer target: what a user feeds calibration (docs/calibration.md). The first byte picks the
// route (a digit names it: '0' is 0; any byte is read modulo 10), the rest is the file:
// - 0-8: a benchmark tool's output through `import` in that format (vllm, sglang, trtllm-bench,
//   megatron, nemo, torchtitan, inferencex, verl, nemo-rl) with a scenario of the kind the format
//   measures; when it reads, its measurement lines through `calibrate`;
// - 9: the bytes as `calibrate`'s JSON Lines.
// Checked (fuzz_check.h): every answer is JSON; an error is {"error": {"code", "path", "message"}}
// with a code of the route's family; an import's measurements are finite and positive; a fit's
// numbers are finite; and the fitted calibration, put into the first line's scenario as its
// `calibration`, predicts (the page and the docs tell users to do exactly that). Seeds:
// tests/fuzz/corpus/measurements/ (tests/data/import's files behind their route byte).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "import/importers.h"

namespace {

using optimus::fuzz::fail;
using optimus::fuzz::json;

constexpr const char* kServing =
    R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 1, "parallel": {"tp": 1},
  "inference": {"batch": 1, "prompt_len": 1024, "output_len": 256,
  "serving": {"arrival": "offline", "num_requests": 100, "input_len": 1024, "output_len": 256}}})";
// The scenarios the example files (tests/data/import) were measured in, so that the seeds calibrate
// rather than stop at calibrate.measured_absurd.
constexpr const char* kMegatron =
    R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 1024,
  "parallel": {"tp": 8, "pp": 8, "dp": 16}, "training": {"global_batch": 1536, "seq_len": 2048}})";
constexpr const char* kTorchtitan =
    R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 8, "parallel": {"tp": 1, "dp": 8},
  "training": {"global_batch": 8, "seq_len": 8192}})";
constexpr const char* kInferenceX =
    R"({"model": "deepseek-r1", "system": "dgx-b200", "num_devices": 4, "software": "sglang",
  "inference": {"batch": 1, "prompt_len": 921, "output_len": 921, "precision": "nvfp4"}})";
constexpr const char* kRl =
    R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": 8,
  "rl": {"placement": "colocated", "prompts_per_step": 16, "samples_per_prompt": 4,
         "prompt_len": 512, "response_len": 1024, "reference": false,
         "train": {"tp": 1, "dp": 8, "zero_stage": 3}}})";

// An RL job's lines are predicted, not fitted: a fit predicts the job some 30 times, and the
// step of the job a log states (verl's example: 512 x 4 responses) takes 2.5 s to fit natively,
// ten times that under the sanitizers. Route 9 fits small RL jobs (the seed's 16 x 4).
struct Route {
  const char* format;
  const char* scenario;
  bool fit;
};
constexpr std::array<Route, 9> kRoutes{{{"vllm", kServing, true},
                                        {"sglang", kServing, true},
                                        {"trtllm-bench", kServing, true},
                                        {"megatron", kMegatron, true},
                                        {"nemo", kMegatron, true},
                                        {"torchtitan", kTorchtitan, true},
                                        {"inferencex", kInferenceX, true},
                                        {"verl", kRl, false},
                                        {"nemo-rl", kRl, false}}};

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// calibrate on JSON Lines: an error of the calibration family (or a line's scenario error, whose
// path points into that line), or a fit whose calibration the first line's scenario takes.
void check_calibrate(const std::string& lines, std::string_view input) {
  const std::string out = optimus::api::calibrate(lines);
  const json c = optimus::fuzz::parse_answer(input, out);
  if (optimus::fuzz::is_error_answer(c, input, out)) {
    const std::string code = c["error"]["code"].get<std::string>();
    const std::string path = c["error"]["path"].get<std::string>();
    if (!starts_with(code, "calibrate.") && !(path.size() > 1 && path[1] >= '0' && path[1] <= '9'))
      fail("calibrate answered an error that names no line", input, out);
    return;
  }
  optimus::fuzz::check_numbers(c, input, out, /*signed_ok=*/true);
  if (!c.contains("calibration") || !c["calibration"].is_object() || !c.contains("fitted") ||
      !c.contains("cases"))
    fail("malformed calibrate answer", input, out);
  // The first measurement line's scenario (calibrate read it, so it is a JSON object).
  const std::size_t end = lines.find('\n');
  json first = json::parse(lines.substr(0, end), nullptr, false);
  if (first.is_discarded() || !first.is_object() || !first.contains("scenario") ||
      !first["scenario"].is_object())
    return;  // a first line calibrate skipped (blank); the fit is still checked above
  json s = first["scenario"];
  s["calibration"] = c["calibration"];
  const std::string scenario = s.dump();
  const std::string p_out = optimus::api::predict(scenario);
  const json p = optimus::fuzz::parse_answer(scenario, p_out);
  if (optimus::fuzz::is_error_answer(p, scenario, p_out))
    fail("the fitted calibration, in the measured scenario, does not predict", input, out + "\n" + p_out);
  optimus::fuzz::check_prediction(p, scenario, p_out);
}

void check_import(const Route& route, std::string_view file, std::string_view input) {
  const std::string out = optimus::api::import_measurements(route.format, file, route.scenario);
  const json r = optimus::fuzz::parse_answer(input, out);
  if (optimus::fuzz::is_error_answer(r, input, out)) {
    if (!starts_with(r["error"]["code"].get<std::string>(), "import."))
      fail("import answered an error outside its family", input, out);
    return;
  }
  if (!r.contains("measurements") || !r["measurements"].is_array() || r["measurements"].empty() ||
      !r.contains("filled") || !r.contains("unread"))
    fail("malformed import answer", input, out);
  std::string lines;
  for (const json& m : r["measurements"]) {
    if (!m.is_object() || !m.contains("scenario") || !m["scenario"].is_object() || !m.contains("metric") ||
        !m["metric"].is_string() || !m.contains("measured") || !m["measured"].is_number())
      fail("malformed measurement line", input, out);
    const double v = m["measured"].get<double>();
    if (!std::isfinite(v) || !(v > 0)) fail("a measurement that is not finite and positive", input, out);
    lines += m.dump() + "\n";
  }
  if (route.fit) {
    check_calibrate(lines, input);
    return;
  }
  const std::string scenario = r["measurements"][0]["scenario"].dump();
  const std::string p_out = optimus::api::predict(scenario);
  const json p = optimus::fuzz::parse_answer(scenario, p_out);
  if (optimus::fuzz::is_error_answer(p, scenario, p_out))
    fail("an imported measurement's scenario does not predict", input, out + "\n" + p_out);
  optimus::fuzz::check_prediction(p, scenario, p_out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 32768) return 0;  // tool outputs and measurement files of a few lines
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string_view file = input.substr(1);
  const unsigned route = (data[0] + 2u) % 10u;  // '0' (48) -> 0
  if (route < kRoutes.size())
    check_import(kRoutes[route], file, input);
  else
    check_calibrate(std::string(file), input);
  return 0;
}
