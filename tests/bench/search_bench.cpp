// Exhaustive layout search for GPT-3 175B on 1024 A100 (issue 5: within 2 s natively).
// BM_SearchGpt3Training: the preset scenario with `parallel` and `inference` removed, so the
// whole training space is searched (cp included). BM_SearchGpt3Preset: `parallel` removed
// only; the inference workload in the scenario then rules out cp > 1 at the prefix.
// BM_ApiSearchGpt3: the JSON API as the CLI and wasm call it (parse, search, top-10 JSON).
// Counters: layouts = layouts in the space, timed = layouts that fit and were timed,
// layouts_per_s = layouts / wall time of one search.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"
#include "search/search.h"

namespace {

std::string gpt3(bool keep_inference) {
  auto j = nlohmann::json::parse(optimus::preset_json("scenarios", "gpt3-175b-1024-a100"));
  j.erase("parallel");
  if (!keep_inference) j.erase("inference");
  return j.dump();
}

void run_search(benchmark::State& state, bool keep_inference) {
  const auto s = optimus::parse_scenario(gpt3(keep_inference)).value();
  optimus::SearchOptions o;
  std::int64_t layouts = 0, timed = 0;
  for (auto _ : state) {
    auto r = optimus::search_layouts(s, {}, o);
    layouts = r->evaluated;
    timed = r->feasible;  // training: every layout that fits is timed
    benchmark::DoNotOptimize(r);
  }
  state.counters["layouts"] = static_cast<double>(layouts);
  state.counters["timed"] = static_cast<double>(timed);
  state.counters["layouts_per_s"] =
      benchmark::Counter(static_cast<double>(layouts), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SearchGpt3Training(benchmark::State& state) { run_search(state, false); }
BENCHMARK(BM_SearchGpt3Training)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SearchGpt3Preset(benchmark::State& state) { run_search(state, true); }
BENCHMARK(BM_SearchGpt3Preset)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ApiSearchGpt3(benchmark::State& state) {
  const std::string s = gpt3(false);
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::search(s, ""));
}
BENCHMARK(BM_ApiSearchGpt3)->Unit(benchmark::kMillisecond)->UseRealTime();

// parallel: "auto" through the JSON API (issue 17): Llama 3 70B on 1024 H100, a 15T-token run;
// the aim is under 0.5 s natively.
void BM_ApiPredictAutoLlama3_70B_1024H100(benchmark::State& state) {
  const std::string s = R"({"model": "llama3-70b", "system": "dgx-h100", "num_devices": 1024,
    "parallel": "auto", "training": {"global_batch": 1024, "seq_len": 8192, "train_tokens": 1.5e13}})";
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::predict(s));
}
BENCHMARK(BM_ApiPredictAutoLlama3_70B_1024H100)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same for a mixture of experts at scale: DeepSeek-V3 in fp8 on 2,048 H800 (its report's
// GPU count and 15,360-sequence batch), whose space adds expert parallelism.
void BM_ApiPredictAutoDeepSeekV3_2048H800(benchmark::State& state) {
  const std::string s = R"({"model": "deepseek-v3", "system": "hgx-h800", "num_devices": 2048,
    "parallel": "auto", "training": {"global_batch": 15360, "seq_len": 4096, "precision": "fp8",
    "train_tokens": 1.48e13}})";
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::predict(s));
}
BENCHMARK(BM_ApiPredictAutoDeepSeekV3_2048H800)->Unit(benchmark::kMillisecond)->UseRealTime();

// A refusal of "auto": DeepSeek-V3 in fp8 on 32 H100, where no layout fits; the refusal then looks
// for the fewest devices that run it (64 and 128 refused, 256 found: core/search/auto_layout.cpp)
// and for a layout with the optimizer in host memory.
void BM_ApiPredictAutoRefusedDeepSeekV3_32H100(benchmark::State& state) {
  const std::string s = R"({"model": "deepseek-v3", "system": "dgx-h100", "num_devices": 32,
    "parallel": "auto", "training": {"global_batch": 1024, "seq_len": 4096, "precision": "fp8"}})";
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::predict(s));
}
BENCHMARK(BM_ApiPredictAutoRefusedDeepSeekV3_32H100)->Unit(benchmark::kMillisecond)->UseRealTime();

// The serving capacity objective through the JSON API: the Llama 3 70B serving preset on 8 H100
// with its tp removed (51 deployments), best 10; every rate judged in the steady state
// (core/search/serving_search.cpp, steady_run_requests).
void BM_ApiSearchCapacityLlama3_70B_8H100(benchmark::State& state) {
  auto j = nlohmann::json::parse(optimus::preset_json("scenarios", "llama3-70b-8xh100-serving"));
  j.erase("parallel");
  const std::string s = j.dump();
  const std::string options = R"({"mode": "serving", "objective": "capacity", "top": 10})";
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::search(s, options));
}
BENCHMARK(BM_ApiSearchCapacityLlama3_70B_8H100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
