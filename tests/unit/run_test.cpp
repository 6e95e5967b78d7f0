// The whole-run plan (core/run, predict's `run` block): hand-computed Young/Daly intervals,
// goodput, checkpoint size and time, energy, both price forms and batch-ramp steps; properties
// (tokens scale the ideal time, goodput falls with the device count, no failures leave only the
// checkpoint share); bad input with codes and paths; and Llama 3's published failure count and
// effective training time at 16,384 H100.
#include "run/run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "io/api.h"
#include "io/json_io.h"
#include "predict/predict.h"

namespace run_test {

namespace {

using json = nlohmann::json;
using optimus::Economics;
using optimus::RampStep;
using optimus::RunInputs;

json predict(const json& scenario) { return json::parse(optimus::api::predict(scenario.dump())); }
json validate(const json& scenario) { return json::parse(optimus::api::validate(scenario.dump())); }

// Llama 3 8B on 64 H100, with a run: every preset resolved inline, so any key can be edited.
json base() {
  json s = {{"model", "llama3-8b"},
            {"system", "dgx-h100"},
            {"num_devices", 64},
            {"parallel", {{"tp", 2}, {"pp", 1}, {"recompute", "selective"}, {"zero_stage", 1}}},
            {"training", {{"global_batch", 256}, {"seq_len", 8192}, {"train_tokens", 1e12}}}};
  json v = validate(s);
  EXPECT_TRUE(v.contains("ok")) << v.dump();
  return v["scenario"];
}

void expect_error(const json& scenario, const std::string& code, const std::string& path) {
  const json p = predict(scenario);
  ASSERT_TRUE(p.contains("error")) << "expected " << code;
  EXPECT_EQ(p["error"]["code"], code) << p.dump();
  EXPECT_EQ(p["error"]["path"], path) << p.dump();
  // validate reports what predict does.
  const json v = validate(scenario);
  ASSERT_TRUE(v.contains("error"));
  EXPECT_EQ(v["error"]["code"], code);
}

TEST(Run, YoungDalyIntervalByHand) {
  // delta 60 s, M 10 h: sqrt(2 x 60 x 36000) - 60 = 2078.461 - 60.
  EXPECT_NEAR(optimus::young_daly_interval_s(60, 36000), 2018.4610, 1e-3);
  EXPECT_TRUE(std::isinf(optimus::young_daly_interval_s(60, 0)));
}

// 1e6 s of steps, 60 s checkpoints every 1940 s of compute (segments of 2000 s), a failure every
// 10 h of the job, 600 s restarts.
RunInputs segments_of_2000_s() {
  RunInputs in;
  in.ideal_s = 1e6;
  in.checkpoint_s = 60;
  in.job_mtbf_s = 36000;
  in.restart_s = 600;
  in.interval_s = 1940;
  return in;
}

TEST(Run, GoodputByHand) {
  RunInputs in = segments_of_2000_s();
  auto r = optimus::run_time(in);
  ASSERT_TRUE(r);
  // A failure costs 600 + 2000 / 2 = 1600 s: 1 - 1600 / 36000 of the time is kept, 1940 / 2000
  // of that is work.
  const double goodput = 0.97 * (1.0 - 1600.0 / 36000.0);
  EXPECT_NEAR(r->goodput, goodput, 1e-12);
  EXPECT_NEAR(r->wall_s, 1e6 / goodput, 1e-6);
  EXPECT_NEAR(r->expected_failures, 1e6 / goodput / 36000.0, 1e-9);
  EXPECT_NEAR(r->lost.restarts, r->expected_failures * 600, 1e-6);
  EXPECT_NEAR(r->lost.lost_work, r->expected_failures * 1000, 1e-6);
  EXPECT_NEAR(r->wall_s - 1e6, r->lost.total(), 1e-6);
  // No failures: only the checkpoint share is lost.
  in.job_mtbf_s = 0;
  in.interval_s = 940;
  r = optimus::run_time(in);
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->goodput, 1.0 - 60.0 / 1000.0, 1e-12);
  EXPECT_EQ(r->expected_failures, 0);
}

// An interval longer than the run's work is one save at the end: a failure redoes at most half the
// run, not half the interval (an 11-hour run with a 1e9 s interval had been refused as never
// progressing). 30,000 s of steps, a failure every 10 h, 600 s restarts: a failure costs 600 +
// (30,000 + 60) / 2 s. A restart as long as the mean time between failures is still refused.
TEST(Run, AnIntervalLongerThanTheRunIsOneSave) {
  RunInputs in = segments_of_2000_s();
  in.ideal_s = 30000;
  in.interval_s = 1e9;
  auto r = optimus::run_time(in);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NEAR(r->interval_s, 30000, 1e-9);
  const double goodput = 30000.0 / 30060.0 * (1.0 - (600.0 + 30060.0 / 2) / 36000.0);
  EXPECT_NEAR(r->goodput, goodput, 1e-12);
  EXPECT_NEAR(r->lost.lost_work, r->expected_failures * 30060.0 / 2, 1e-6);
  in.restart_s = 36000;
  r = optimus::run_time(in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "run.no_progress");
}

TEST(Run, ProductionEfficiencyByHand) {
  // The same run sustaining 80% of the modelled rate: 1e6 s of ideal steps take 1.25e6 s of
  // compute; the failures and checkpoints act on that (segments of 2000 s, one failure per 10 h),
  // so goodput is unchanged and the elapsed time grows by 1 / 0.8.
  RunInputs in = segments_of_2000_s();
  in.efficiency = 0.8;
  auto r = optimus::run_time(in);
  ASSERT_TRUE(r);
  const double goodput = 0.97 * (1.0 - 1600.0 / 36000.0);
  EXPECT_NEAR(r->goodput, goodput, 1e-12);
  EXPECT_NEAR(r->wall_s, 1.25e6 / goodput, 1e-6);
  EXPECT_NEAR(r->lost.production, 0.25e6, 1e-6);
  EXPECT_NEAR(r->expected_failures, 1.25e6 / goodput / 36000.0, 1e-9);
  EXPECT_NEAR(r->wall_s - 1e6, r->lost.total(), 1e-6);
  // Through predict: no preset carries a share (issue 37), so the run is at the modelled rate and
  // nothing warns; a share the user states still applies, scales every time of the run by its
  // inverse, leaves the ideal time and the goodput alone, and says so. The time it adds does no
  // math: it is drawn at a device waiting in a collective, so the energy grows, but less than the
  // time (billed at the training mix it had doubled too).
  json s = base();
  EXPECT_FALSE(s["system"]["operations"].contains("production_efficiency"));
  const json p1 = predict(s);
  const json one = p1["run"];
  EXPECT_EQ(one["lost_s"]["production"].get<double>(), 0);
  for (const json& w : p1["warnings"]) EXPECT_NE(w["code"], "run.production_efficiency");
  s["system"]["operations"]["production_efficiency"] = 0.5;
  const json ph = predict(s);
  bool said = false;
  for (const json& w : ph["warnings"]) said = said || w["code"] == "run.production_efficiency";
  EXPECT_TRUE(said) << ph["warnings"].dump();
  // The resolved scenario keeps the stated share (and only a stated one).
  EXPECT_EQ(validate(s)["scenario"]["system"]["operations"]["production_efficiency"], 0.5);
  const json half = ph["run"];
  EXPECT_EQ(half["ideal_time_s"], one["ideal_time_s"]);
  EXPECT_NEAR(half["goodput"].get<double>(), one["goodput"].get<double>(), 1e-12);
  for (const char* k : {"wall_time_s", "gpu_hours"})
    EXPECT_NEAR(half[k].get<double>(), 2 * one[k].get<double>(), 1e-9 * one[k].get<double>()) << k;
  for (const char* k : {"device_energy_mwh", "energy_mwh"}) {
    EXPECT_GT(half[k].get<double>(), 1.05 * one[k].get<double>()) << k;
    EXPECT_LT(half[k].get<double>(), 1.95 * one[k].get<double>()) << k;
  }
  EXPECT_GT(half["cost_usd"].get<double>(), one["cost_usd"].get<double>());
  EXPECT_LE(half["cost_usd"].get<double>(), 2 * one["cost_usd"].get<double>() * (1 + 1e-12));
}

// A job of N devices at a stated failure rate loses, per failure, the restart plus half the
// interval between checkpoints: 4096 devices at 2e-5 failures per device-hour fail every
// 3600 / (2e-5 x 4096) = 43,945.3 s; a 1-hour interval with 30 s saves and 600 s restarts.
TEST(Run, FailuresOfAJobByHand) {
  RunInputs in;
  in.ideal_s = 30 * 86400.0;  // a month of steps
  in.checkpoint_s = 30;
  in.restart_s = 600;
  in.interval_s = 3600;
  in.job_mtbf_s = 3600.0 / (2e-5 * 4096);
  auto r = optimus::run_time(in);
  ASSERT_TRUE(r);
  const double m = 3600.0 / (2e-5 * 4096), per_failure = 600 + (3600 + 30) / 2.0;
  const double goodput = 3600.0 / 3630.0 * (1 - per_failure / m);
  EXPECT_NEAR(r->goodput, goodput, 1e-12);
  const double wall = 30 * 86400.0 / goodput;
  EXPECT_NEAR(r->wall_s, wall, 1e-6 * wall);
  EXPECT_NEAR(r->expected_failures, wall / m, 1e-9);
  // 2,592,000 / 0.9292... = 2,789,5xx s: about 63.5 failures, each losing 600 s + 1815 s.
  EXPECT_NEAR(r->lost.restarts + r->lost.lost_work, wall / m * 2415, 1e-6);
  EXPECT_NEAR(r->wall_s - in.ideal_s, r->lost.total(), 1e-6);
}

// Asynchronous saves: training blocks for the copy to host memory (2 s here), the write (40 s)
// overlaps the next segment, and a failure also loses the write still in flight.
TEST(Run, AsyncCheckpointByHand) {
  RunInputs in = segments_of_2000_s();  // 1940 s interval, M 10 h, 600 s restarts
  in.checkpoint_s = 2;
  in.checkpoint_persist_s = 40;
  auto r = optimus::run_time(in);
  ASSERT_TRUE(r);
  // Segments of 1942 s; a failure costs 600 + 1942 / 2 + 40 = 1611 s.
  const double goodput = 1940.0 / 1942.0 * (1.0 - 1611.0 / 36000.0);
  EXPECT_NEAR(r->goodput, goodput, 1e-12);
  EXPECT_NEAR(r->lost.lost_work, r->expected_failures * (971 + 40), 1e-6);
  // Young/Daly on the blocking 2 s alone would save every sqrt(2 x 2 x 36000) - 2 = 377.5 s; a
  // save cannot start before the previous one is written, so a write of 500 s sets the interval.
  in.interval_s = 0;
  r = optimus::run_time(in);
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->interval_s, std::sqrt(2.0 * 2 * 36000) - 2, 1e-9);
  in.checkpoint_persist_s = 500;
  r = optimus::run_time(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->interval_s, 500);
  // Through predict: the blocking part is each writer's share over its host link.
  json s = base();
  s["system"]["operations"]["checkpoint_async"] = true;
  const json a = predict(s)["run"];
  const double bytes = a["checkpoint_bytes"].get<double>();
  // ZeRO 1 on 64 devices: all 64 write, each 1/64 of the state, at the preset's 63 GB/s host link.
  EXPECT_NEAR(a["checkpoint_s"].get<double>(), bytes / 64 / 63e9, 1e-12);
  EXPECT_NEAR(a["checkpoint_write_s"].get<double>(), bytes / (8 * 25e9), 1e-9);
  const json b = predict(base())["run"];
  EXPECT_LT(a["lost_s"]["checkpoint_writes"].get<double>(), b["lost_s"]["checkpoint_writes"].get<double>());
}

// A system that states no failure rate: the point estimate takes none, the band's high end reaches
// the run at the highest published rate (7.35e-5 per device-hour), and a warning says so; a stated
// rate leaves the band as fitted.
TEST(Run, BandWidensWhenTheFailureRateIsUnknown) {
  json s = base();
  s["num_devices"] = 1024;
  s["parallel"]["dp"] = 512;
  s["training"]["global_batch"] = 1024;
  const json stated = predict(s);
  s["system"]["operations"].erase("failures_per_device_hour");
  const json unknown = predict(s);
  ASSERT_TRUE(unknown.contains("run")) << unknown.dump();
  EXPECT_EQ(unknown["run"]["expected_failures"], 0);
  bool said = false;
  for (const json& w : unknown["warnings"]) said = said || w["code"] == "run.failure_rate_unknown";
  EXPECT_TRUE(said);
  for (const json& w : stated["warnings"]) EXPECT_NE(w["code"], "run.failure_rate_unknown");
  // The widening, by hand: the same run at 7.35e-5 over the run without failures.
  json worst = s;
  worst["system"]["operations"]["failures_per_device_hour"] = 7.35e-5;
  const double factor =
      predict(worst)["run"]["wall_time_s"].get<double>() / unknown["run"]["wall_time_s"].get<double>();
  EXPECT_GT(factor, 1.01);
  const json& ub = unknown["uncertainty"];
  const double wall = unknown["run"]["wall_time_s"].get<double>();
  // The fitted band of the regime, from the stated run's (same regime, same relative bounds).
  const json& sb = stated["uncertainty"]["run.wall_time_s"];
  const double swall = stated["run"]["wall_time_s"].get<double>();
  EXPECT_NEAR(ub["run.wall_time_s"]["low"].get<double>() / wall, sb["low"].get<double>() / swall, 1e-9);
  EXPECT_NEAR(ub["run.wall_time_s"]["high"].get<double>() / wall, sb["high"].get<double>() / swall * factor,
              1e-6);
  // The ideal time has no failures in it: its band does not move.
  EXPECT_NEAR(ub["run.ideal_time_s"]["high"].get<double>(),
              stated["uncertainty"]["run.ideal_time_s"]["high"].get<double>(), 1e-9 * wall);
  // The resolved scenario reads back the same: still no rate, still widened.
  const json again = predict(validate(s)["scenario"]);
  EXPECT_EQ(again["uncertainty"]["run.wall_time_s"], ub["run.wall_time_s"]);
}

TEST(Run, PowerAndPriceByHand) {
  // 700 W board, idle 0.14, a quarter of the time in each kind of work:
  // 700 x (0.14 + 0.86 x (1 + 0.6 + 0.3 + 0) / 4) = 383.95 W.
  EXPECT_NEAR(optimus::device_power_w(700, 0.14, 0.6, 0.3, {1, 1, 1, 1}), 383.95, 1e-9);
  EXPECT_NEAR(optimus::device_power_w(700, 0.14, 0.6, 0.3, {0, 0, 0, 0}), 98, 1e-9);
  Economics rent;
  rent.usd_per_gpu_hour = 2.5;
  EXPECT_EQ(optimus::usd_per_device_hour(rent, 40000), 2.5);
  Economics own;
  own.gpu_price_usd = 30000;
  own.amortisation_years = 5;
  own.utilisation = 0.8;
  EXPECT_NEAR(optimus::usd_per_device_hour(own, 40000), 30000.0 / (5 * 8766 * 0.8), 1e-12);
  own.gpu_price_usd = 0;  // the device's price
  EXPECT_NEAR(optimus::usd_per_device_hour(own, 40000), 40000.0 / (5 * 8766 * 0.8), 1e-12);
}

TEST(Run, BatchRampStepsByHand) {
  // 1e9 tokens of 1000-token sequences: 1e8 at batch 25 (4000 steps), 2e8 at batch 50 (4000),
  // the remaining 7e8 at batch 100 (7000).
  auto r = optimus::ramp_steps(1e9, 1000, 100, {RampStep{1e8, 25}, RampStep{2e8, 50}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps, 15000);
  EXPECT_EQ(r->steady_tokens, 7e8);
  // A partial last step counts whole.
  r = optimus::ramp_steps(1e9 + 1, 1000, 100, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps, 10001);
}

TEST(Run, CheckpointEnergyAndCostThroughPredict) {
  json s = base();
  const json p = predict(s);
  ASSERT_TRUE(p.contains("run")) << p.dump();
  const json& r = p["run"];
  // Weights 2 + master 4 + Adam 8 bytes per parameter, one copy, written by all 8 nodes at
  // 25 GB/s each (ZeRO 1 shards the optimizer over every rank).
  EXPECT_NEAR(r["checkpoint_bytes"].get<double>(), p["params"]["total"].get<double>() * 14, 1);
  EXPECT_NEAR(r["checkpoint_s"].get<double>(), r["checkpoint_bytes"].get<double>() / (8 * 25e9), 1e-9);
  EXPECT_EQ(r["checkpoint_write_s"], r["checkpoint_s"]);  // blocking saves
  // Energy: devices at the training draw while computing (redone work included), at the idle
  // floor otherwise; node overhead for the whole elapsed time; x PUE 1.2. No preset states a
  // production share, so the steps take their modelled time.
  const double wall = r["wall_time_s"].get<double>(), ideal = r["ideal_time_s"].get<double>();
  const json& lost = r["lost_s"];
  EXPECT_EQ(lost["production"].get<double>(), 0);
  const double device_j =
      64 * (r["device_power_W"].get<double>() *
                (ideal + lost["production"].get<double>() + lost["lost_work"].get<double>()) +
            98 * (lost["checkpoint_writes"].get<double>() + lost["restarts"].get<double>()));
  EXPECT_NEAR(r["device_energy_mwh"].get<double>(), device_j / 3.6e9, 1e-9);
  EXPECT_NEAR(r["energy_mwh"].get<double>(), (device_j + 8 * 4600 * wall) * 1.2 / 3.6e9, 1e-9);
  EXPECT_NEAR(r["gpu_hours"].get<double>(), 64 * wall / 3600, 1e-6);
  // Capital form with the H100 preset's price, plus energy at 0.08 USD/kWh.
  EXPECT_NEAR(
      r["cost_usd"].get<double>(),
      r["gpu_hours"].get<double>() * 40000 / (5 * 8766 * 0.8) + r["energy_mwh"].get<double>() * 1000 * 0.08,
      1e-6);
  EXPECT_FALSE(r.contains("co2_t"));
  // Rental form: device-hours x price, energy included; a grid intensity gives co2_t.
  s["economics"] = {{"usd_per_gpu_hour", 2.0}, {"grid_kg_co2_per_kwh", 0.4}};
  const json q = predict(s)["run"];
  EXPECT_NEAR(q["cost_usd"].get<double>(), q["gpu_hours"].get<double>() * 2.0, 1e-6);
  // Per million tokens trained: whole global batches (1e12 tokens asked, a last batch trained whole).
  const double trained = q["steps"].get<double>() * s["training"]["global_batch"].get<double>() *
                         s["training"]["seq_len"].get<double>();
  EXPECT_GE(trained, 1e12);
  EXPECT_NEAR(q["usd_per_million_tokens"].get<double>(), q["cost_usd"].get<double>() / trained * 1e6, 1e-12);
  EXPECT_NEAR(q["co2_t"].get<double>(), q["energy_mwh"].get<double>() * 0.4, 1e-9);
}

// The ideal time is whole steps at the step's time (run.steps of them, a last global batch trained
// whole): doubling the tokens doubles it to within one step, and a run of fewer tokens than one
// global batch takes one whole step (it took 1.35e-5 s of a 56 s step for one token).
TEST(Run, DoublingTokensDoublesTheIdealTime) {
  json s = base();
  const json p = predict(s);
  const double one = p["run"]["ideal_time_s"].get<double>();
  const double it = p["training"]["iteration_time_s"].get<double>();
  EXPECT_NEAR(one, p["run"]["steps"].get<double>() * it, 1e-9 * one);
  s["training"]["train_tokens"] = 2e12;
  EXPECT_NEAR(predict(s)["run"]["ideal_time_s"].get<double>(), 2 * one, it * (1 + 1e-9));
  s["training"]["train_tokens"] = 1;
  const json tiny = predict(s);
  EXPECT_EQ(tiny["run"]["steps"], 1);
  EXPECT_NEAR(tiny["run"]["ideal_time_s"].get<double>(), it, 1e-9 * it);
}

TEST(Run, GoodputFallsAsDevicesGrow) {
  double last = 1.0;
  for (double n : {64.0, 512.0, 4096.0, 32768.0, 131072.0}) {
    RunInputs in;
    in.ideal_s = 1e7;
    in.checkpoint_s = 30;
    in.restart_s = 600;
    in.job_mtbf_s = 3600.0 / (2e-5 * n);
    auto r = optimus::run_time(in);
    ASSERT_TRUE(r);
    EXPECT_LT(r->goodput, last) << n;
    last = r->goodput;
  }
  // Through predict as well: 64 vs 512 devices of the same job, the storage ceiling holding the
  // checkpoint time fixed (otherwise more nodes write it faster).
  json s = base();
  s["system"]["operations"]["checkpoint_write_GBps_total"] = 100;
  const double g64 = predict(s)["run"]["goodput"].get<double>();
  s["num_devices"] = 512;
  s["parallel"]["dp"] = 256;
  EXPECT_LT(predict(s)["run"]["goodput"].get<double>(), g64);
}

TEST(Run, NoFailuresLeavesTheCheckpointShare) {
  json s = base();
  s["system"]["operations"]["failures_per_device_hour"] = 0;
  s["training"]["checkpoint_interval_s"] = 1800;
  const json r = predict(s)["run"];
  const double delta = r["checkpoint_s"].get<double>();
  EXPECT_NEAR(r["goodput"].get<double>(), 1.0 - delta / (1800 + delta), 1e-12);
  EXPECT_EQ(r["expected_failures"].get<double>(), 0);
  // Without an interval and without failures nothing is checkpointed.
  s["training"].erase("checkpoint_interval_s");
  EXPECT_EQ(predict(s)["run"]["goodput"].get<double>(), 1.0);
}

TEST(Run, BatchRampAddsItsSteps) {
  json s = base();
  const json plain = predict(s)["run"];
  s["training"]["batch_ramp"] = {{1e10, 64}, {2e10, 128}};
  const json ramp = predict(s)["run"];
  const double tokens_per_step = 256.0 * 8192;
  const auto steps = [](double tokens, double per) {
    return static_cast<long long>(std::ceil(tokens / per));
  };
  EXPECT_EQ(ramp["steps"].get<long long>(),
            steps(1e10, 64 * 8192.0) + steps(2e10, 128 * 8192.0) + steps(1e12 - 3e10, tokens_per_step));
  // Smaller batches are less efficient: the same tokens take longer.
  EXPECT_GT(ramp["ideal_time_s"].get<double>(), plain["ideal_time_s"].get<double>());
}

TEST(Run, BadInputHasCodesAndPaths) {
  json s = base();
  json t = s;
  t["training"]["train_tokens"] = 0;
  expect_error(t, "scenario.out_of_range", "/training/train_tokens");
  t["training"]["train_tokens"] = -5;
  expect_error(t, "scenario.out_of_range", "/training/train_tokens");
  t = s;
  t["economics"] = {{"usd_per_gpu_hour", 0}};
  expect_error(t, "scenario.out_of_range", "/economics/usd_per_gpu_hour");
  t["economics"] = {{"usd_per_kwh", -0.1}};
  expect_error(t, "scenario.out_of_range", "/economics/usd_per_kwh");
  t["economics"] = {{"usd_per_gpu_hour", 2}, {"gpu_price_usd", 30000}};
  expect_error(t, "economics.both_price_forms", "/economics/gpu_price_usd");
  t["economics"] = "nowhere-1999";
  expect_error(t, "preset.unknown_economics", "/economics");
  t = s;
  t["system"]["device"]["power"]["tdp_W"] = 0;
  expect_error(t, "scenario.out_of_range", "/system/device/power/tdp_W");
  t = s;
  t["system"]["operations"]["failures_per_device_hour"] = -1e-5;
  expect_error(t, "scenario.out_of_range", "/system/operations/failures_per_device_hour");
  t = s;
  t["system"]["operations"]["checkpoint_async"] = "yes";
  expect_error(t, "scenario.wrong_type", "/system/operations/checkpoint_async");
  t = s;
  for (double share : {0.0, -0.5, 1.5}) {
    json u = s;
    u["system"]["operations"]["production_efficiency"] = share;
    expect_error(u, "scenario.out_of_range", "/system/operations/production_efficiency");
  }
  // One failure every 112 s of the job, shorter than a restart: no checkpoint interval lets it
  // progress.
  t["system"]["operations"]["failures_per_device_hour"] = 0.5;
  expect_error(t, "run.no_progress", "/system/operations/failures_per_device_hour");
  // ... and the message does not offer a shorter checkpoint interval, which cannot help.
  const std::string words = predict(t)["error"]["message"].get<std::string>();
  EXPECT_NE(words.find("no checkpoint interval can help"), std::string::npos) << words;
  EXPECT_EQ(words.find("a shorter checkpoint interval"), std::string::npos) << words;
  // A given interval longer than the time between failures.
  t = s;
  t["system"]["operations"]["failures_per_device_hour"] = 1e-2;
  t["training"]["checkpoint_interval_s"] = 20000;
  expect_error(t, "run.no_progress", "/training/checkpoint_interval_s");
  // Batch ramps that do not add up.
  t = s;
  t["training"]["batch_ramp"] = {{6e11, 64}, {6e11, 128}};
  expect_error(t, "run.ramp_exceeds_tokens", "/training/batch_ramp/1/0");
  t["training"]["batch_ramp"] = {{1e10, 100}};  // 100 sequences do not split over dp 32
  expect_error(t, "run.ramp_batch_invalid", "/training/batch_ramp/0/1");
  t["training"]["batch_ramp"] = {{1e10}};
  expect_error(t, "scenario.wrong_type", "/training/batch_ramp/0");
  t["training"].erase("train_tokens");
  t["training"]["batch_ramp"] = {{1e10, 64}};
  expect_error(t, "run.ramp_without_tokens", "/training/batch_ramp");
}

// Later stages (training.stages): a stage like the main part adds its own steps and exactly their
// time; a context-extension stage runs at its own sequence length and layout, as the same workload
// predicted on its own does, and the run's totals, tokens and price include it.
TEST(Run, StagesAddTheirStepsAndTime) {
  json s = base();
  const json one = predict(s);
  const double per_step = 256.0 * 8192;
  const double it = one["training"]["iteration_time_s"].get<double>();
  json same = s;
  same["training"]["stages"] = {{{"tokens", 1e11}}};
  const json two = predict(same);
  ASSERT_TRUE(two.contains("run")) << two.dump();
  const auto ceil_steps = [](double tokens, double per) {
    return static_cast<long long>(std::ceil(tokens / per));
  };
  EXPECT_EQ(two["run"]["steps"].get<long long>(), ceil_steps(1e12, per_step) + ceil_steps(1e11, per_step));
  const json& st = two["run"]["stages"][0];
  EXPECT_EQ(st["steps"].get<long long>(), ceil_steps(1e11, per_step));
  EXPECT_DOUBLE_EQ(st["iteration_time_s"].get<double>(), it);
  EXPECT_NEAR(two["run"]["ideal_time_s"].get<double>(),
              one["run"]["ideal_time_s"].get<double>() + static_cast<double>(ceil_steps(1e11, per_step)) * it,
              1e-9 * two["run"]["ideal_time_s"].get<double>());

  // A context extension: 32K sequences over cp 4 (dp follows: 64 / (2 x 4) = 8), 64 a step.
  json ext = s;
  ext["training"]["stages"] = {{{"tokens", 2e10},
                                {"seq_len", 32768},
                                {"global_batch", 64},
                                {"parallel", {{"cp", 4}, {"recompute", "full"}}}}};
  const json r = predict(ext);
  ASSERT_TRUE(r.contains("run")) << r.dump();
  const json& e = r["run"]["stages"][0];
  EXPECT_EQ(e["parallel"]["cp"], 4);
  EXPECT_EQ(e["parallel"]["dp"], 8);
  EXPECT_EQ(e["parallel"]["tp"], 2);
  EXPECT_EQ(e["parallel"]["recompute"], "full");
  EXPECT_EQ(e["steps"].get<long long>(), ceil_steps(2e10, 64.0 * 32768));
  // The stage on its own: the same workload as a scenario of its own.
  json alone = s;
  alone["parallel"]["cp"] = 4;
  alone["parallel"]["dp"] = 8;
  alone["parallel"]["recompute"] = "full";
  alone["training"]["seq_len"] = 32768;
  alone["training"]["global_batch"] = 64;
  alone["training"]["train_tokens"] = 2e10;
  const json a = predict(alone);
  EXPECT_DOUBLE_EQ(e["iteration_time_s"].get<double>(), a["training"]["iteration_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(e["ideal_time_s"].get<double>(), a["run"]["ideal_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(e["memory_bytes"].get<double>(), a["memory"]["per_device_bytes"]["total"].get<double>());
  EXPECT_TRUE(e["fits"].get<bool>());
  EXPECT_NEAR(r["run"]["ideal_time_s"].get<double>(),
              one["run"]["ideal_time_s"].get<double>() + a["run"]["ideal_time_s"].get<double>(),
              1e-9 * r["run"]["ideal_time_s"].get<double>());
  // The price per million tokens counts the stage's tokens too.
  const json& run = r["run"];
  ASSERT_TRUE(run.contains("cost_usd"));  // the H100 preset states a device price
  const double trained =
      one["run"]["steps"].get<double>() * 256 * 8192 + a["run"]["steps"].get<double>() * 64 * 32768;
  EXPECT_NEAR(trained / (1e12 + 2e10), 1.0, 1e-5);  // whole batches: a last one of each part trained whole
  EXPECT_NEAR(run["usd_per_million_tokens"].get<double>(), run["cost_usd"].get<double>() / trained * 1e6,
              1e-9 * run["usd_per_million_tokens"].get<double>());
  // The devices' mean draw lies between the two parts'.
  const double p1 = one["run"]["device_power_W"].get<double>(), p2 = a["run"]["device_power_W"].get<double>();
  EXPECT_GE(run["device_power_W"].get<double>(), std::min(p1, p2) - 1e-9);
  EXPECT_LE(run["device_power_W"].get<double>(), std::max(p1, p2) + 1e-9);
  // validate keeps the stages in the resolved scenario.
  EXPECT_EQ(validate(ext)["scenario"]["training"]["stages"], ext["training"]["stages"]);
}

TEST(Run, StagesBadInputHasCodesAndPaths) {
  const json s = base();
  json t = s;
  t["training"]["stages"] = {{{"tokens", 0}}};
  expect_error(t, "scenario.out_of_range", "/training/stages/0/tokens");
  t["training"]["stages"] = {{{"seq_len", 4096}}};
  expect_error(t, "scenario.missing_key", "/training/stages/0/tokens");
  t["training"]["stages"] = json::array();
  expect_error(t, "scenario.out_of_range", "/training/stages");
  t["training"]["stages"] = {{{"tokens", 1e10}, {"parallel", {{"ep", 2}}}}};
  expect_error(t, "scenario.unknown_key", "/training/stages/0/parallel/ep");
  t["training"]["stages"] = {{{"tokens", 1e10}}, {{"tokens", 1e10}, {"parallel", {{"cp", 3}}}}};
  expect_error(t, "run.stage_invalid", "/training/stages/1/parallel");    // 2 x 3 does not divide 64
  t["training"]["stages"] = {{{"tokens", 1e10}, {"global_batch", 100}}};  // not a multiple of dp 32
  expect_error(t, "run.stage_invalid", "/training/stages/0/global_batch");
  t["training"]["stages"] = {{{"tokens", 1e10}, {"parallel", {{"tp", 4}, {"dp", 4}}}}};  // 4 x 4 != 64
  expect_error(t, "run.stage_invalid", "/training/stages/0/parallel");
  t["training"]["stages"] = json::array();
  for (int i = 0; i < 33; ++i) t["training"]["stages"].push_back({{"tokens", 1e9}});
  expect_error(t, "scenario.out_of_range", "/training/stages");
  t = s;
  t["training"].erase("train_tokens");
  t["training"]["stages"] = {{{"tokens", 1e10}}};
  expect_error(t, "run.stages_without_tokens", "/training/stages");
  // A stage whose sequences do not fit is predicted, with a warning.
  t = s;
  t["training"]["stages"] = {
      {{"tokens", 1e10}, {"seq_len", 262144}, {"global_batch", 32}, {"parallel", {{"recompute", "none"}}}}};
  const json p = predict(t);
  ASSERT_TRUE(p.contains("run")) << p.dump();
  EXPECT_FALSE(p["run"]["stages"][0]["fits"].get<bool>());
  bool warned = false;
  for (const json& w : p["warnings"]) warned = warned || w["code"] == "run.stage_does_not_fit";
  EXPECT_TRUE(warned) << p["warnings"].dump();
}

// A stage with parallel "auto": the layout search picks its layout on the stage's own sequences;
// the layout fits and is never slower than hand-picked valid ones; validate keeps "auto"; a stage
// nothing can run is an error at its path.
TEST(Run, StageAutoLayoutIsTheFastestThatFits) {
  json s = base();
  s["training"]["stages"] = {
      {{"tokens", 2e10}, {"seq_len", 65536}, {"global_batch", 32}, {"parallel", "auto"}}};
  const json r = predict(s);
  ASSERT_TRUE(r.contains("run")) << r.dump();
  const json& st = r["run"]["stages"][0];
  EXPECT_TRUE(st["fits"].get<bool>());
  const double t = st["iteration_time_s"].get<double>();
  int compared = 0;
  for (int cp : {1, 2, 4, 8})
    for (int tp : {1, 2, 4}) {
      json hand = s;
      hand["training"]["stages"][0]["parallel"] = {{"tp", tp}, {"cp", cp}, {"recompute", "selective"}};
      const json h = predict(hand);
      if (!h.contains("run") || !h["run"]["stages"][0]["fits"].get<bool>()) continue;
      EXPECT_LE(t, h["run"]["stages"][0]["iteration_time_s"].get<double>() * (1 + 1e-12))
          << "tp " << tp << " cp " << cp;
      ++compared;
    }
  EXPECT_GT(compared, 0);
  EXPECT_EQ(validate(s)["scenario"]["training"]["stages"][0]["parallel"], "auto");
  json none = s;
  none["training"]["stages"][0]["seq_len"] = 100000000;
  expect_error(none, "parallel.auto_no_layout", "/training/stages/0/parallel");
  none["training"]["stages"][0]["parallel"] = "fastest";
  expect_error(none, "scenario.invalid_value", "/training/stages/0/parallel");
  // The engine called directly, without the API resolving "auto": an error, not the scenario's layout.
  const auto parsed = optimus::parse_scenario(s.dump());
  ASSERT_TRUE(parsed.ok());
  const auto direct = optimus::predict(*parsed);
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(direct.error().code, "run.stage_invalid");
  EXPECT_EQ(direct.error().path, "/training/stages/0/parallel");
}

// Llama 3 405B pre-training (arXiv 2407.21783, Table 4's 16,384-GPU layout TP 8, CP 1, PP 16,
// DP 128, 16M-token batch): the paper counts 419 unexpected interruptions in a 54-day snapshot and
// more than 90% effective training time. The failure rate of the H100 presets is that count per
// device-hour, so the count is reproduced by construction; the goodput follows from the
// checkpoint (405B x 14 bytes over Llama 3's 2 TB/s storage), the assumed 600 s restart and the
// Young/Daly interval, which nothing was fitted to.
TEST(Run, Llama3FailuresAt16kGpus) {
  const json s = {{"model", "llama3-405b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 16384},
                  {"parallel",
                   {{"tp", 8},
                    {"pp", 16},
                    {"dp", 128},
                    {"interleave", 4},
                    {"recompute", "selective"},
                    {"zero_stage", 1}}},
                  {"training", {{"global_batch", 2048}, {"seq_len", 8192}, {"train_tokens", 15.6e12}}}};
  const json p = predict(s);
  ASSERT_TRUE(p.contains("run")) << p.dump();
  const json& r = p["run"];
  const double failures_54_days = 54 * 86400 / r["job_mtbf_s"].get<double>();
  std::printf(
      "Llama 3 405B on 16,384 H100: %.0f failures in 54 days (published: 419 unexpected), goodput %.3f "
      "(published: > 0.90), checkpoint %.1f s every %.0f s, %.0f failures over the %.1f-day run\n",
      failures_54_days, r["goodput"].get<double>(), r["checkpoint_s"].get<double>(),
      r["checkpoint_interval_s"].get<double>(), r["expected_failures"].get<double>(),
      r["wall_days"].get<double>());
  EXPECT_NEAR(failures_54_days, 419, 5);
  EXPECT_GT(r["goodput"].get<double>(), 0.90);
  EXPECT_LT(r["goodput"].get<double>(), 0.99);
}

}  // namespace

}  // namespace run_test
