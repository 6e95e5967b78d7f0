// Predicts every published measurement in tests/validation/data and reports, per source, the
// number of cases and the mean and max absolute relative error. The gates below are what the
// engine is held to today; they are set from measured accuracy with room for noise only, so a
// regression fails the run. Targets that are not met yet are stated next to each gate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/api.h"

namespace {

using json = nlohmann::json;

struct Case {
  std::string id, group;
  double expected = 0, predicted = 0;
  std::string error;
};

double metric(const json& p, const std::string& dotted) {
  const json* node = &p;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      double sum = 0;  // "a+b+c" sums sibling fields
      std::size_t s = 0;
      for (;;) {
        const std::size_t plus = key.find('+', s);
        sum +=
            (*node).at(key.substr(s, plus == std::string::npos ? std::string::npos : plus - s)).get<double>();
        if (plus == std::string::npos) break;
        s = plus + 1;
      }
      return sum;
    }
    node = &node->at(key);
    start = dot + 1;
  }
}

std::vector<Case> run_file(const std::string& name) {
  std::vector<Case> out;
  std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const json c = json::parse(line);
    Case k;
    k.id = c["id"];
    k.group = c["group"];
    k.expected = c["expected"];
    const json p = json::parse(optimus::api::predict(c["scenario"].dump()));
    if (p.contains("error")) {
      k.error = p["error"].dump();
    } else {
      k.predicted = metric(p, c["metric"]);
    }
    out.push_back(k);
  }
  return out;
}

struct Stats {
  int n = 0;
  double mean = 0, max = 0, bias = 0;
};

Stats report(const std::string& title, const std::vector<Case>& cases) {
  std::map<std::string, std::vector<double>> groups;
  std::vector<double> all;
  for (const auto& c : cases) {
    EXPECT_TRUE(c.error.empty()) << c.id << ": " << c.error;
    if (!c.error.empty()) continue;
    const double e = c.predicted / c.expected - 1.0;
    EXPECT_TRUE(std::isfinite(e)) << c.id;
    groups[c.group].push_back(e);
    all.push_back(e);
  }
  const auto stats = [](const std::vector<double>& v) {
    Stats s;
    s.n = static_cast<int>(v.size());
    for (double e : v) {
      s.mean += std::fabs(e);
      s.bias += e;
      s.max = std::max(s.max, std::fabs(e));
    }
    if (s.n) {
      s.mean /= s.n;
      s.bias /= s.n;
    }
    return s;
  };
  std::printf("\n%s\n%-78s %5s %8s %8s %8s\n", title.c_str(), "source", "cases", "mean", "max", "bias");
  for (const auto& [g, v] : groups) {
    const Stats s = stats(v);
    std::printf("%-78s %5d %7.1f%% %7.1f%% %+7.1f%%\n", g.c_str(), s.n, 100 * s.mean, 100 * s.max,
                100 * s.bias);
  }
  const Stats s = stats(all);
  std::printf("%-78s %5d %7.1f%% %7.1f%% %+7.1f%%\n", "all", s.n, 100 * s.mean, 100 * s.max, 100 * s.bias);
  if (std::getenv("OPTIMUS_VALIDATION_VERBOSE"))
    for (const auto& c : cases)
      std::printf("  %-46s expected %-12.6g predicted %-12.6g %+6.1f%%\n", c.id.c_str(), c.expected,
                  c.predicted, 100 * (c.predicted / c.expected - 1));
  return s;
}

// Training iteration time. Target (issue 2): mean <= 5%. Measured at this commit: 7.3% mean
// (Narayanan 7.8%, Korthikanti 5.5%, DGX Cloud Llama 3.1 8B 8.5%), predictions too fast on
// average. Gate: mean <= 9%, every case within 16%.
TEST(Validation, TrainingIterationTime) {
  const Stats s = report("Training iteration time (train_public.jsonl)", run_file("train_public.jsonl"));
  EXPECT_EQ(s.n, 29);
  EXPECT_LE(s.mean, 0.09);
  EXPECT_LE(s.max, 0.16);
}

// Korthikanti et al. 2022 Figure 1, with the paper's interleaved schedule for 175B/530B.
// Target: within 5%. The weights+gradients+optimizer figures of the paper leave out the
// embedding the first stage holds (+7% for 530B, +11% for 1T at pp=35/64): reported as is.
TEST(Validation, MemoryPaperSchedule) {
  const Stats s = report("Memory per GPU, paper schedule (memory_paper_config.jsonl)",
                         run_file("memory_paper_config.jsonl"));
  EXPECT_EQ(s.n, 12);
  EXPECT_LE(s.mean, 0.05);
  EXPECT_LE(s.max, 0.12);
}

// The same rows as published in the shared cases (no interleave given for 175B/530B): the
// activation rows of those two models come out 22-24% low because the interleaved schedule's
// extra in-flight activations are not in the scenario. Gate against regressions only.
TEST(Validation, MemoryPublicRows) {
  const Stats s =
      report("Memory per GPU, public rows (memory_public.jsonl)", run_file("memory_public.jsonl"));
  EXPECT_EQ(s.n, 12);
  EXPECT_LE(s.mean, 0.12);
}

// Inference (issue 3 owns its accuracy). Measured at this commit: FasterTransformer 21.8% mean
// (its Megatron-baseline rows are 2-4x slower than the optimised FT rows on identical
// scenarios), TensorRT-LLM first-token latency 20.1%. Gate against regressions only.
TEST(Validation, InferenceLatency) {
  const Stats s = report("Inference latency (infer_public.jsonl)", run_file("infer_public.jsonl"));
  EXPECT_EQ(s.n, 82);
  EXPECT_LE(s.mean, 0.25);
}

}  // namespace
