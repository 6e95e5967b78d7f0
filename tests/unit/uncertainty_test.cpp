// The uncertainty bands as the engine computes them (core/uncertainty), without the JSON layer:
// the regime's own band, its parent's when it has too few cases, none without either, rates
// with the negated quantiles, and the JSON writer giving the same intervals for the fitted table.
#include "uncertainty/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "io/api.h"
#include "io/json_io.h"
#include "io/uncertainty.h"

namespace uncertainty_test {

namespace {

using json = nlohmann::json;

optimus::Scenario dense_training() {
  const json j = {
      {"schema_version", 1},
      {"model", "llama3-8b"},
      {"system", "dgx-a100-80gb"},
      {"num_devices", 8},
      {"parallel", {{"tp", 1}, {"dp", 8}}},
      {"training", {{"global_batch", 64}, {"seq_len", 2048}, {"precision", "bf16"}, {"train_tokens", 1e9}}}};
  auto s = optimus::parse_scenario(j.dump());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.value();
}

const optimus::UncertaintyBand* find(const std::vector<optimus::UncertaintyBand>& bands,
                                     const std::string& path) {
  for (const auto& b : bands)
    if (b.path == path) return &b;
  return nullptr;
}

TEST(Uncertainty, RegimeParentAndRates) {
  const optimus::Scenario s = dense_training();
  const auto p = optimus::predict(s);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const optimus::Regimes r = optimus::regimes_of(s, *p);
  EXPECT_EQ(r.training, "training/dense/earlier");  // A100: no fp4 rate
  EXPECT_EQ(r.memory, "memory/training");
  EXPECT_EQ(r.run, "run/earlier");  // A100: no fp8 rate
  EXPECT_TRUE(r.inference.empty());

  optimus::BandTable t;
  t.min_cases = 10;
  t.regimes["training"] = {-0.2, 0.3, 50};
  t.regimes["training/dense/earlier"] = {-0.1, 0.1, 9};  // too few: the parent's band applies
  const auto bands = optimus::uncertainty_bands(s, *p, t);
  const auto* it = find(bands, "training.iteration_time_s");
  ASSERT_NE(it, nullptr);
  EXPECT_EQ(it->regime, "training");
  EXPECT_EQ(it->cases, 50);
  const double v = p->training->iteration_time.value;
  EXPECT_DOUBLE_EQ(it->low, v * std::exp(-0.2));
  EXPECT_DOUBLE_EQ(it->high, v * std::exp(0.3));
  // A rate is the inverse of a time: its interval takes the negated quantiles.
  const auto* tps = find(bands, "training.tokens_per_s");
  ASSERT_NE(tps, nullptr);
  EXPECT_DOUBLE_EQ(tps->low, p->training->tokens_per_s * std::exp(-0.3));
  EXPECT_DOUBLE_EQ(tps->high, p->training->tokens_per_s * std::exp(0.2));
  // No band for memory or the run in this table: no interval.
  EXPECT_EQ(find(bands, "memory.per_device_bytes.total"), nullptr);
  EXPECT_EQ(find(bands, "run.wall_days"), nullptr);

  t.regimes["training/dense/earlier"].cases = 10;  // now enough: the regime's own band
  const auto own = optimus::uncertainty_bands(s, *p, t);
  ASSERT_NE(find(own, "training.iteration_time_s"), nullptr);
  EXPECT_EQ(find(own, "training.iteration_time_s")->regime, "training/dense/earlier");
  EXPECT_TRUE(optimus::uncertainty_bands(s, *p, optimus::BandTable{}).empty());
}

// The output's `uncertainty` is the engine's bands over the fitted table, written as they are.
TEST(Uncertainty, OutputIsTheEnginesBands) {
  const optimus::Scenario s = dense_training();
  const auto p = optimus::predict(s);
  ASSERT_TRUE(p.ok());
  const auto bands = optimus::uncertainty_bands(s, *p, optimus::io::fitted_bands());
  ASSERT_FALSE(bands.empty());
  const json out = json::parse(optimus::prediction_to_json(s, *p));
  ASSERT_EQ(out["uncertainty"].size(), bands.size());
  for (const auto& b : bands) {
    ASSERT_TRUE(out["uncertainty"].contains(b.path)) << b.path;
    EXPECT_EQ(out["uncertainty"][b.path]["low"].get<double>(), b.low) << b.path;
    EXPECT_EQ(out["uncertainty"][b.path]["high"].get<double>(), b.high) << b.path;
    EXPECT_EQ(out["uncertainty"][b.path]["regime"], b.regime) << b.path;
  }
}

}  // namespace

}  // namespace uncertainty_test
