// Time per prediction. The layout search (issue 5) evaluates millions of layouts, so predict()
// itself must take microseconds: BM_PredictGpt3_1024A100 is the engine alone on a parsed
// scenario; BM_ApiPredictJson adds JSON parsing and writing as the CLI and wasm pay it.
#include <benchmark/benchmark.h>

#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"

namespace {

const std::string& gpt3() {
  static const std::string s(optimus::preset_json("scenarios", "gpt3-175b-1024-a100"));
  return s;
}

void BM_PredictGpt3_1024A100(benchmark::State& state) {
  auto s = optimus::parse_scenario(gpt3()).value();
  s.inference.reset();  // training only
  for (auto _ : state) {
    auto p = optimus::predict(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictGpt3_1024A100);

void BM_PredictGpt3WithInference(benchmark::State& state) {
  auto s = optimus::parse_scenario(gpt3()).value();
  for (auto _ : state) {
    auto p = optimus::predict(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictGpt3WithInference);

void BM_ApiPredictJson(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::predict(gpt3()));
}
BENCHMARK(BM_ApiPredictJson);

// DeepSeek-V3 (MLA, 256 experts) on 1024 GB200: training alone, and with an inference part.
optimus::Scenario deepseek(bool inference) {
  const std::string text = R"({"model": "deepseek-v3", "system": "gb200-nvl72", "num_devices": 1024,
    "parallel": {"tp": 1, "pp": 4, "dp": 256, "ep": 64, "micro_batch": 1, "zero_stage": 1},
    "training": {"global_batch": 8192, "seq_len": 4096, "precision": "mxfp8"}})";
  auto s = optimus::parse_scenario(text).value();
  if (inference) {
    optimus::InferenceWorkload w;
    w.batch = 64;
    w.prompt_len = 4096;
    w.output_len = 1024;
    w.precision = optimus::Precision::fp8;
    w.kv_precision = optimus::Precision::fp8;
    s.inference = w;
  }
  return s;
}

void BM_PredictDeepSeekV3_1024GB200(benchmark::State& state) {
  const auto s = deepseek(false);
  for (auto _ : state) {
    auto p = optimus::predict(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictDeepSeekV3_1024GB200);

void BM_PredictDeepSeekV3WithInference(benchmark::State& state) {
  const auto s = deepseek(true);
  for (auto _ : state) {
    auto p = optimus::predict(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictDeepSeekV3WithInference);

}  // namespace

BENCHMARK_MAIN();
