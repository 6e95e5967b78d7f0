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

}  // namespace

BENCHMARK_MAIN();
