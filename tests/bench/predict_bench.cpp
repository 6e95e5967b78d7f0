// Time per prediction. The layout search (issue 5) evaluates millions of layouts, so predict()
// itself must take microseconds: BM_PredictGpt3_1024A100 is the engine alone on a parsed
// scenario; BM_ApiPredictJson adds JSON parsing and writing as the CLI and wasm pay it.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

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
  s.inference.reset();  // training only (with its whole-run block: train_tokens 3e11)
  for (auto _ : state) {
    auto p = optimus::predict(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictGpt3_1024A100);

// The whole-run block (issue 17) must add under a microsecond: the same training prediction
// without train_tokens (no run block) and with it (the scenario's 300B tokens).
void BM_PredictGpt3_NoRun(benchmark::State& state) {
  auto s = optimus::parse_scenario(gpt3()).value();
  s.inference.reset();
  s.training->train_tokens = 0;
  for (auto _ : state) {
    auto p = optimus::predict(s);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictGpt3_NoRun);

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

// Predicts a serving scenario each iteration; the simulation's steps as a counter.
void serve_each_iteration(benchmark::State& state, const std::string& text) {
  const auto s = optimus::parse_scenario(text).value();
  std::int64_t steps = 0;
  for (auto _ : state) {
    auto p = optimus::predict(s);
    steps = p.value().serving->steps;
    benchmark::DoNotOptimize(p);
  }
  state.counters["steps"] = static_cast<double>(steps);
}

// Continuous-batching serving (issue 12): 10,000 requests of Llama 3 70B on 8 H100 (two TP4
// replicas), ShareGPT-like lengths (prompts mean 1000 tokens up to 8000, outputs mean 250 up to
// 2000), Poisson at 8 requests/s; the aim is under 20 ms for the whole simulation.
void BM_Serving10kLlama3_70B_8H100(benchmark::State& state) {
  const std::string text = R"({"model": "llama3-70b", "system": "dgx-h100", "num_devices": 8,
    "parallel": {"tp": 4}, "inference": {"prompt_len": 1000, "output_len": 250, "precision": "fp8",
    "serving": {"arrival": "poisson", "requests_per_s": 8, "num_requests": 10000,
                "input_len": {"mean": 1000, "max": 8000}, "output_len": {"mean": 250, "max": 2000}}}})";
  serve_each_iteration(state, text);
}
BENCHMARK(BM_Serving10kLlama3_70B_8H100)->Unit(benchmark::kMillisecond);

// Speculative decoding under load: DeepSeek R1 with its MTP module drafting 3 tokens, 1,500
// requests of 1,024 in / 8,192 out at once on 8 H200 at attention data parallelism (the
// dgx-h200 serving preset's deployment), whose 8 ranks step together.
void BM_ServingMtpDeepSeekR1_8H200(benchmark::State& state) {
  const std::string text = R"({"model": "deepseek-r1", "system": "dgx-h200", "num_devices": 8,
    "parallel": {"tp": 1, "dp": 8, "ep": 8}, "software": "tensorrt-llm-pytorch",
    "inference": {"prompt_len": 1024, "output_len": 8192, "precision": "fp8", "fp8_block_scaled": true,
    "speculative": {"draft_tokens": 3},
    "serving": {"arrival": "offline", "num_requests": 1500, "input_len": 1024, "output_len": 8192}}})";
  serve_each_iteration(state, text);
}
BENCHMARK(BM_ServingMtpDeepSeekR1_8H200)->Unit(benchmark::kMillisecond);

// Issue 38's aim: optimus calibrate on 100 measurements under 0.5 s. The 100 lines measure GPT-3
// 175B on 64 A100 at four tensor-parallel widths and five batches, 10-20% slower than predicted
// (so every factor the lines depend on is fitted by the least squares).
void BM_Calibrate100(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 100; ++i) {
    const int tp = 1 << (i % 4);
    const std::string s =
        R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 64, "parallel": {"tp": )" +
        std::to_string(tp) + R"(, "pp": )" + std::to_string(64 / tp) +
        R"(, "dp": 1}, "training": {"global_batch": )" + std::to_string(64 * (1 + i % 5)) +
        R"(, "seq_len": 2048}})";
    const auto p = nlohmann::json::parse(optimus::api::predict(s));
    const double t = p["training"]["iteration_time_s"].get<double>() * (1.1 + 0.001 * i);
    text += R"({"scenario": )" + s + R"(, "metric": "training.iteration_time_s", "measured": )" +
            std::to_string(t) + "}\n";
  }
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::calibrate(text));
}
BENCHMARK(BM_Calibrate100)->Unit(benchmark::kMillisecond);

// A calibration on two RL jobs' logs (Qwen2.5 7B GRPO on 8 H100 at two response lengths), their
// step, rollout and training times interleaved line by line (each 20% slower than predicted): each
// point of the fit predicts each job once for its three numbers (io/calibrate_io.cpp
// PredictionMemo), which keeps the predictions of both jobs.
void BM_CalibrateTwoRlJobsInterleaved(benchmark::State& state) {
  const std::string metrics[] = {"rl.step_time_s", "rl.phases_s.rollout", "rl.phases_s.train"};
  std::string jobs[2];
  nlohmann::json predicted[2];
  for (int j = 0; j < 2; ++j) {
    // One line each: a measurement is one line of JSON Lines.
    jobs[j] =
        R"({"model": "qwen2.5-7b", "system": "dgx-h100", "num_devices": 8, "rl": {"prompts_per_step": 32, )"
        R"("samples_per_prompt": 8, "prompt_len": 512, "response_len": {"mean": )" +
        std::to_string(1024 * (j + 1)) + R"(, "max": 8192}}})";
    predicted[j] = nlohmann::json::parse(optimus::api::predict(jobs[j]))["rl"];
  }
  std::string text;
  for (const std::string& m : metrics)
    for (int j = 0; j < 2; ++j) {
      const nlohmann::json& p = predicted[j];
      const double v = m == "rl.step_time_s" ? p["step_time_s"].get<double>()
                                             : p["phases_s"][m.substr(m.rfind('.') + 1)].get<double>();
      text += R"({"scenario": )" + jobs[j] + R"(, "metric": ")" + m + R"(", "measured": )" +
              std::to_string(v * 1.2) + "}\n";
    }
  if (optimus::api::is_error(optimus::api::calibrate(text))) state.SkipWithError("the calibration failed");
  for (auto _ : state) benchmark::DoNotOptimize(optimus::api::calibrate(text));
}
BENCHMARK(BM_CalibrateTwoRlJobsInterleaved)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
