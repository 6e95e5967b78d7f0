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

json rl_job_json(const char* placement) {
  json j = {{"schema_version", 1},
            {"model", "qwen2.5-7b"},
            {"system", "dgx-h100"},
            {"num_devices", 8},
            {"rl",
             {{"algorithm", "grpo"},
              {"prompts_per_step", 64},
              {"samples_per_prompt", 8},
              {"prompt_len", {{"mean", 256}, {"max", 1024}}},
              {"response_len", {{"mean", 1024}, {"max", 4096}}},
              {"placement", placement},
              {"train", "auto"}}}};
  if (std::string(placement) == "split") {
    j["rl"]["rollout_devices"] = 4;
    j["rl"]["train_devices"] = 4;
    j["rl"]["async"] = {{"staleness", 1}};
  }
  return j;
}

optimus::Scenario rl_job(const char* placement) {
  auto s = optimus::parse_scenario(rl_job_json(placement).dump());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.value();
}

// An RL step names its regime by placement; each number takes its kind's band for that placement
// (rl/<kind>/<placement>), its kind's (rl/<kind>) when that has too few rows; a rate the negated
// quantiles; a phase the job does not have (0 s), and the swap, no band.
TEST(Uncertainty, RlBandsByKindAndPlacement) {
  optimus::BandTable t;
  t.regimes["rl/step"] = {-0.25, 2.5, 19};
  t.regimes["rl/step/split"] = {-0.2, 3.0, 13};
  t.regimes["rl/step/colocated"] = {0.0, 0.8, 6};  // too few rows: rl/step applies
  t.regimes["rl/rollout"] = {-0.2, 2.0, 11};
  t.regimes["rl/forward"] = {0.0, 1.4, 10};
  t.regimes["rl/train"] = {-0.2, 2.4, 18};
  t.regimes["rl/weight_sync"] = {-0.7, 0.9, 9};
  for (const char* placement : {"colocated", "split"}) {
    const optimus::Scenario s = rl_job(placement);
    const auto p = optimus::predict_rl(s);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(optimus::rl_regimes_of(s).rl, std::string("rl/") + placement);
    const auto bands = optimus::rl_uncertainty_bands(s, *p, t);
    const bool split = std::string(placement) == "split";
    const auto* step = find(bands, "rl.step_time_s");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->regime, split ? "rl/step/split" : "rl/step");
    const double hi = split ? 3.0 : 2.5, lo = split ? -0.2 : -0.25;
    EXPECT_NEAR(step->low, p->step_time_s * std::exp(lo), 1e-9 * p->step_time_s);
    EXPECT_NEAR(step->high, p->step_time_s * std::exp(hi), 1e-9 * p->step_time_s);
    EXPECT_TRUE(step->raised_by.empty());  // the step's own band reaches past every phase's
    EXPECT_EQ(step->fitted_high, 0.0);
    const auto* rate = find(bands, "rl.tokens_per_s_per_gpu");
    ASSERT_NE(rate, nullptr);
    EXPECT_NEAR(rate->low, p->tokens_per_s_per_gpu * std::exp(-hi), 1e-9 * p->tokens_per_s_per_gpu);
    EXPECT_NEAR(rate->high, p->tokens_per_s_per_gpu * std::exp(-lo), 1e-9 * p->tokens_per_s_per_gpu);
    EXPECT_EQ(find(bands, "rl.phases_s.rollout")->regime, "rl/rollout");
    EXPECT_EQ(find(bands, "rl.phases_s.old_logprob")->regime, "rl/forward");
    EXPECT_EQ(find(bands, "rl.train.mfu")->regime, "rl/train");
    EXPECT_EQ(p->phases.reward, 0.0);
    EXPECT_EQ(find(bands, "rl.phases_s.reward"), nullptr);             // a rule-based reward: no phase
    EXPECT_EQ(find(bands, "rl.phases_s.swap"), nullptr);               // no published row
    EXPECT_EQ(find(bands, "memory.per_device_bytes.total"), nullptr);  // no memory band in t
  }
  // Without any RL band, none.
  EXPECT_TRUE(optimus::rl_uncertainty_bands(rl_job("split"), *optimus::predict_rl(rl_job("split")),
                                            optimus::BandTable{})
                  .empty());
}

// A step is never shorter than any of its phases, so its band's upper end reaches at least each
// phase's: a rollout band wider than the step's (a split job's rollout band falls back to its
// parent's) raises the step's upper end, and the step's rates take it too; the lower end stays the
// step's own.
TEST(Uncertainty, RlStepBandReachesEachPhasesBand) {
  optimus::BandTable t;
  t.regimes["rl/step"] = {-0.1, 0.3, 19};
  t.regimes["rl/rollout"] = {0.2, 1.5, 11};
  t.regimes["rl/train"] = {-0.3, 0.2, 18};
  for (const char* placement : {"colocated", "split"}) {
    const optimus::Scenario s = rl_job(placement);
    const auto p = optimus::predict_rl(s);
    ASSERT_TRUE(p.ok()) << p.error().message;
    const auto bands = optimus::rl_uncertainty_bands(s, *p, t);
    const auto* step = find(bands, "rl.step_time_s");
    const auto* rollout = find(bands, "rl.phases_s.rollout");
    const auto* train = find(bands, "rl.phases_s.train");
    ASSERT_TRUE(step && rollout && train) << placement;
    // The rollout's band sits above the step's fitted one wherever the rollout is most of the step.
    EXPECT_GE(step->high, rollout->high * (1 - 1e-12)) << placement;
    EXPECT_GE(step->high, train->high * (1 - 1e-12)) << placement;
    EXPECT_GE(step->high, p->step_time_s * std::exp(0.3) * (1 - 1e-12)) << placement;
    EXPECT_NEAR(step->low, p->step_time_s * std::exp(-0.1), 1e-9 * p->step_time_s) << placement;
    EXPECT_NEAR(step->high, std::max({p->step_time_s * std::exp(0.3), rollout->high, train->high}),
                1e-9 * p->step_time_s)
        << placement;
    // The step says which phase's band raised it, and what its own regime's upper end was.
    EXPECT_EQ(step->raised_by, "rl.phases_s.rollout") << placement;
    EXPECT_NEAR(step->fitted_high, p->step_time_s * std::exp(0.3), 1e-9 * p->step_time_s) << placement;
    const auto* rate = find(bands, "rl.tokens_per_s");
    ASSERT_NE(rate, nullptr);
    EXPECT_NEAR(rate->low * step->high, p->tokens_per_s * p->step_time_s, 1e-9 * rate->low * step->high);
    EXPECT_NEAR(rate->high * step->low, p->tokens_per_s * p->step_time_s, 1e-9 * rate->high * step->low);
  }
}

// An MFU's band ends at the device's measured best-shape matmul rate over its peak (its MAMF ratio:
// A100 bf16 0.81 or so, from presets/devices), never below the MFU itself: a time band whose
// lower quantile is far below the prediction does not promise a utilisation no GEMM reaches. The
// time and the tokens/s keep their full band; the MFU's lower end is the band's.
TEST(Uncertainty, MfuBandEndsAtTheDevicesMatmulCeiling) {
  const optimus::Scenario s = dense_training();
  const auto p = optimus::predict(s);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const double ceiling = s.system.device.matmul_efficiency;
  const double mfu = p->training->mfu;
  ASSERT_GT(mfu, 0.1);
  ASSERT_LT(mfu, ceiling);
  optimus::BandTable t;
  t.regimes["training"] = {-1.5, 0.3, 50};  // times down to e^-1.5 = 0.22x of the prediction
  const auto bands = optimus::uncertainty_bands(s, *p, t);
  const auto* m = find(bands, "training.mfu");
  ASSERT_NE(m, nullptr);
  EXPECT_DOUBLE_EQ(m->high, ceiling);  // mfu x e^1.5 would be above it
  EXPECT_DOUBLE_EQ(m->low, mfu * std::exp(-0.3));
  EXPECT_DOUBLE_EQ(find(bands, "training.tokens_per_s")->high, p->training->tokens_per_s * std::exp(1.5));
  // A narrow band below the ceiling is left as it is.
  t.regimes["training"] = {-0.1, 0.3, 50};
  EXPECT_DOUBLE_EQ(find(optimus::uncertainty_bands(s, *p, t), "training.mfu")->high, mfu * std::exp(0.1));

  // The RL trainer's MFU the same way, in its training precision.
  const optimus::Scenario rl = rl_job("colocated");
  const auto rp = optimus::predict_rl(rl);
  ASSERT_TRUE(rp.ok()) << rp.error().message;
  optimus::BandTable rt;
  rt.regimes["rl/train"] = {-1.5, 0.5, 15};
  const auto* rm = find(optimus::rl_uncertainty_bands(rl, *rp, rt), "rl.train.mfu");
  ASSERT_NE(rm, nullptr);
  ASSERT_GT(rp->train_mfu * std::exp(1.5), rl.system.device.matmul_efficiency);
  EXPECT_DOUBLE_EQ(rm->high, std::max(rp->train_mfu, rl.system.device.matmul_efficiency));
}

// The shipped bands on an RL prediction's JSON: every band holds its value, the regime is named,
// and the step's band is the kind's fitted one. A training prediction names no RL regime.
TEST(Uncertainty, RlPredictionCarriesItsBands) {
  for (const char* placement : {"colocated", "split"}) {
    const json out = json::parse(optimus::api::predict(rl_job_json(placement).dump()));
    ASSERT_TRUE(out.contains("rl")) << out.dump();
    EXPECT_EQ(out["regime"]["rl"], std::string("rl/") + placement);
    EXPECT_EQ(out["regime"]["memory"], "memory/training");
    const json& u = out["uncertainty"];
    for (const char* path :
         {"rl.step_time_s", "rl.tokens_per_s_per_gpu", "rl.phases_s.rollout", "rl.phases_s.reference",
          "rl.phases_s.train", "rl.phases_s.weight_sync", "rl.rollout.longest_response_s", "rl.train.mfu",
          "memory.per_device_bytes.total"}) {
      ASSERT_TRUE(u.contains(path)) << placement << " " << path;
      json v = out;
      for (std::string rest = path; !rest.empty();) {
        const auto dot = rest.find('.');
        v = v[rest.substr(0, dot)];
        rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
      }
      EXPECT_LE(u[path]["low"].get<double>(), v.get<double>()) << path;
      EXPECT_GE(u[path]["high"].get<double>(), v.get<double>()) << path;
      EXPECT_GE(u[path]["cases"].get<int>(), 8) << path;
      EXPECT_EQ(u[path]["regime"].get<std::string>().rfind(
                    std::string(path).rfind("memory", 0) == 0 ? "memory/" : "rl/", 0),
                0u)
          << path;
    }
    EXPECT_FALSE(u.contains("rl.phases_s.swap"));
    EXPECT_FALSE(u.contains("rl.rollout.mean_response_s"));
    // The step's band as the engine computed it, with the phase that raised it where one did.
    const optimus::Scenario s = rl_job(placement);
    const auto bands = optimus::rl_uncertainty_bands(s, *optimus::predict_rl(s), optimus::io::fitted_bands());
    const auto* step = find(bands, "rl.step_time_s");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(u["rl.step_time_s"].value("raised_by", ""), step->raised_by) << placement;
    EXPECT_EQ(u["rl.step_time_s"].value("fitted_high", 0.0), step->fitted_high) << placement;
    EXPECT_EQ(u["rl.phases_s.rollout"].contains("raised_by"), false) << placement;
  }
  const json train =
      json::parse(optimus::prediction_to_json(dense_training(), *optimus::predict(dense_training())));
  EXPECT_FALSE(train["regime"].contains("rl"));
  for (const auto& [path, band] : train["uncertainty"].items()) EXPECT_NE(path.rfind("rl.", 0), 0u) << path;
}

}  // namespace

}  // namespace uncertainty_test
