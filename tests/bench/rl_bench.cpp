// Time of one RL step prediction (issue 40: under 50 ms natively with a 1,000-response rollout)
// and of the RL placement search for a 64-GPU job (under 2 s). The rollout is the serving
// simulator's; its cost grows with the responses, their lengths and the preemptions a short KV
// budget forces.
#include <benchmark/benchmark.h>

#include <string>

#include "io/api.h"
#include "io/json_io.h"
#include "rl/rl.h"

namespace {

// Qwen2.5 7B GRPO on 8 H100: 125 prompts x 8 samples = 1,000 responses of a long-tailed 2,048
// tokens on average (8,192 at most) after 1,024-token prompts. `layouts`: the rollout's and the
// trainer's, as the rl block states them.
std::string job(int devices,
                const std::string& layouts = R"("rollout": {"tp": 1}, "train": {"zero_stage": 3})") {
  return R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": )" + std::to_string(devices) +
         R"(, "rl": {"prompts_per_step": 125, "samples_per_prompt": 8, "prompt_len": 1024,
         "response_len": {"mean": 2048, "max": 8192}, "mini_batches": 4, )" +
         layouts + "}}";
}

void predict_step(benchmark::State& state, const std::string& text) {
  const auto s = optimus::parse_scenario(text).value();
  for (auto _ : state) {
    auto p = optimus::predict_rl(s);
    benchmark::DoNotOptimize(p);
  }
}

void BM_RlStep1000Responses(benchmark::State& state) { predict_step(state, job(8)); }
BENCHMARK(BM_RlStep1000Responses)->Unit(benchmark::kMillisecond);

void BM_RlApiPredictJson(benchmark::State& state) {
  const std::string text = job(8);
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::predict(text));
}
BENCHMARK(BM_RlApiPredictJson)->Unit(benchmark::kMillisecond);

// The same job with the layouts left to the engine, as the page's RL task starts: the rollout tp
// widened while a wider engine's rollout is faster (one serving simulation per tp tried) and
// train "auto" (the layout search's best candidates, each step composed).
void BM_RlStep1000ResponsesEngineChosen(benchmark::State& state) {
  predict_step(state, job(8, R"("train": "auto")"));
}
BENCHMARK(BM_RlStep1000ResponsesEngineChosen)->Unit(benchmark::kMillisecond);

// A large step with the rollout tp chosen: the same model on 64 H100, 8,192 prompts x 8 samples =
// 65,536 responses; each wider engine tried is a serving simulation of every response, stopped
// once it outlasts the narrower engine's rollout and swap (it cannot be the faster).
void BM_RlStep65536ResponsesChosenTp(benchmark::State& state) {
  const auto s = optimus::parse_scenario(R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": 64,
    "rl": {"prompts_per_step": 8192, "samples_per_prompt": 8, "prompt_len": {"mean": 256, "max": 1024},
    "response_len": {"mean": 2048, "max": 8192}, "train": {"zero_stage": 3}}})")
                     .value();
  for (auto _ : state) {
    auto p = optimus::predict_rl(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_RlStep65536ResponsesChosenTp)->Unit(benchmark::kMillisecond);

void BM_RlPlacementSearch64(benchmark::State& state) {
  const auto s = optimus::parse_scenario(job(64)).value();
  for (auto _ : state) {
    auto r = optimus::search_rl(s, 10, false);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_RlPlacementSearch64)->Unit(benchmark::kMillisecond);

// A mixture-of-experts job whose engines fill their KV cache: Qwen3-235B-A22B on 64 H100, 4,096
// responses of 3,000 tokens on average (16,384 at most), trainer layout searched per candidate.
// Its engines over few devices run with the cache full, preempting, for most of the rollout.
void BM_RlPlacementSearchMoe64(benchmark::State& state) {
  const auto s =
      optimus::parse_scenario(R"({"model": "qwen3-235b-a22b", "system": "dgx-h100", "num_devices": 64,
    "rl": {"prompts_per_step": 256, "samples_per_prompt": 16, "prompt_len": {"mean": 300, "max": 1024},
    "response_len": {"mean": 3000, "max": 16384}, "train": "auto"}})")
          .value();
  for (auto _ : state) {
    auto r = optimus::search_rl(s, 10, false);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_RlPlacementSearchMoe64)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
