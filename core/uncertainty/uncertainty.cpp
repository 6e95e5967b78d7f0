#include "uncertainty/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>

#include "base/math.h"
#include "base/precision.h"

namespace optimus {

namespace {

// A band: quantiles of ln(measured / predicted) for time-like values (a time, a latency, bytes);
// a rate is the inverse of a time, so its band uses the negated quantiles.
struct Band {
  double lo = 0, hi = 0;
  std::int64_t cases = 0;
  std::string regime;
};

// The band of `regime`, else of its nearest parent that has enough cases.
std::optional<Band> band_for(const BandTable& t, std::string regime) {
  while (!regime.empty()) {
    if (const auto it = t.regimes.find(regime); it != t.regimes.end() && it->second.cases >= t.min_cases)
      return Band{it->second.q_low, it->second.q_high, it->second.cases, regime};
    const auto slash = regime.rfind('/');
    regime = slash == std::string::npos ? "" : regime.substr(0, slash);
  }
  return std::nullopt;
}

// `widen`: a factor (>= 1) on the time-sense high end for what the scenario leaves unknown
// (a rate's low end is divided by it). `exact`: a time the stated inputs add outright (a rule-based
// reward's host time), added to both ends of a time's band around `value`, the modelled rest.
void add(std::vector<UncertaintyBand>& out, const char* path, double value, const std::optional<Band>& band,
         bool rate, double widen = 1, double exact = 0) {
  if (!band || !std::isfinite(value)) return;
  const double lo = rate ? value * portable_exp(-band->hi) / widen : value * portable_exp(band->lo) + exact;
  const double hi = rate ? value * portable_exp(-band->lo) : value * portable_exp(band->hi) * widen + exact;
  out.push_back({path, lo, hi, band->regime, band->cases, {}, 0});
}

// An RL step's band, its upper end raised to each phase's (in ln(measured / predicted) of the
// step): the step bounds every phase from above. `raised_by` names the phase whose band set it.
struct StepBand {
  std::optional<Band> band;
  double fitted_hi = 0;
  const char* raised_by = nullptr;
};
struct PhaseBand {
  const char* path;
  double seconds;
  std::optional<Band> band;
};
StepBand step_band(std::optional<Band> step, const RlPrediction& p, std::initializer_list<PhaseBand> phases) {
  StepBand out{step, step ? step->hi : 0, nullptr};
  if (!step || !(p.step_time_s > 0)) return out;
  for (const PhaseBand& ph : phases) {
    if (!ph.band || !(ph.seconds > 0)) continue;
    const double hi = portable_log(ph.seconds / p.step_time_s) + ph.band->hi;  // share <= 0
    if (hi > out.band->hi) {
      out.band->hi = hi;
      out.raised_by = ph.path;
    }
  }
  return out;
}

// The most a model-FLOPs utilisation can be in `precision` on device d: the measured best-shape
// matmul rate over the peak (Maximum Achievable Matmul FLOPS, DeviceSpec::matmul_efficiency, the
// 8-bit one for narrow formats where measured, as cost/roofline.cpp runs the GEMMs). Every layer's
// work is GEMMs at best, so no MFU goes above it (0: no rate for the precision, no cap).
double mfu_ceiling(const DeviceSpec& d, Precision precision) {
  if (!(d.peak_for(precision).value > 0)) return 0;
  return is_narrow(precision) && d.matmul_efficiency_8bit > 0 ? d.matmul_efficiency_8bit
                                                              : d.matmul_efficiency;
}

// An MFU's band ends at that ceiling (never below the MFU itself): a band inverted from a time band
// (fitted on rows whose times came out shorter than predicted, often for fewer tokens than
// assumed) otherwise promises a utilisation no GEMM reaches.
void cap_mfu(std::vector<UncertaintyBand>& out, const char* path, double mfu, double ceiling) {
  if (!(ceiling > 0)) return;
  for (UncertaintyBand& b : out)
    if (b.path == path) b.high = std::max(mfu, std::min(b.high, ceiling));
}

}  // namespace

Regimes regimes_of(const Scenario& s, const Prediction& p) {
  Regimes r;
  // Devices with an fp4 tensor rate (B200, GB200, B300, GB300, MI355X, RTX Pro 6000) are the
  // 2025 generation, whose published runs the engine predicts less well (docs/accuracy.md).
  const bool fp4_generation = s.system.device.peak[static_cast<std::size_t>(Precision::fp4)].value > 0;
  if (p.training)
    r.training = std::string("training/") + (s.model.moe ? "moe" : "dense") +
                 (fp4_generation ? "/fp4-generation" : "/earlier");
  if (p.inference)
    r.inference = p.inference->launch_interval.value > 0 ? "inference/eager" : "inference/graphs";
  // Serving a mixture-of-experts model (routing, expert GEMMs of a few rows each, attention data
  // parallelism) is predicted less well than a dense one (docs/accuracy.md).
  if (p.serving) r.serving = std::string("serving/") + (s.model.moe ? "moe" : "dense");
  r.memory = p.training ? "memory/training" : "memory/inference";
  // A whole run adds to the steady-state step what the step model does not see (failures,
  // restarts, evaluation, stragglers, ramps), so its band comes from published whole runs: those
  // on devices with an fp8 tensor rate (H100, H800 and later) apart from the earlier ones (A100),
  // as the engine's steady state, calibrated on NVIDIA's own stack, runs further ahead of the
  // makers' published hours there (docs/accuracy.md).
  const bool fp8_generation = s.system.device.peak[static_cast<std::size_t>(Precision::fp8)].value > 0;
  if (p.run) r.run = std::string("run/") + (fp8_generation ? "fp8-generation" : "earlier");
  return r;
}

Regimes rl_regimes_of(const Scenario& s) {
  Regimes r;
  // Split pools run the rollout and the update on their own devices and overlap them (staleness):
  // the published split runs (OpenRLHF's Ray pools, verl's fully_async) differ from the
  // predictions in other ways than the colocated ones (docs/rl.md), so the placement names the
  // regime.
  if (s.rl) r.rl = std::string("rl/") + std::string(name_of(s.rl->placement));
  r.memory = "memory/training";
  return r;
}

std::string rl_band_regime(const std::string& kind, const std::string& placement_regime) {
  const auto slash = placement_regime.find('/');
  return "rl/" + kind + (slash == std::string::npos ? "" : placement_regime.substr(slash));
}

std::vector<UncertaintyBand> rl_uncertainty_bands(const Scenario& s, const RlPrediction& p,
                                                  const BandTable& table) {
  std::vector<UncertaintyBand> out;
  const Regimes r = rl_regimes_of(s);
  const auto band = [&](const char* kind) { return band_for(table, rl_band_regime(kind, r.rl)); };
  // A phase the job does not have (0 s) gets no band.
  const auto add_some = [&](const char* path, double value, const std::optional<Band>& b, bool rate) {
    if (value > 0) add(out, path, value, b, rate);
  };
  // The step, and the rates that are the step's tokens over it. The step is never shorter than any
  // of its phases (compose_step in rl.cpp: a sum, or the slower pool plus the sync), so its upper
  // end reaches at least each phase's: the bands are fitted per kind on different rows (a split
  // job's rollout band is its parent's, fitted mostly on colocated rows), and a step range ending
  // below its rollout's would say the rollout cannot take as long as its own band allows. The lower
  // end stays the step's own: raising it from a phase's lower end would trust that phase's band
  // (fitted elsewhere) over the step rows, and drops published split steps from their band.
  // A rule-based reward's host time (reward_cpu_s) is the stated inputs' arithmetic: the forward
  // band covers the reward model's forward alone, and the host time shifts it.
  const double model_reward = p.phases.reward - p.reward_cpu_s;
  const StepBand step = step_band(band("step"), p,
                                  {{"rl.phases_s.rollout", p.phases.rollout, band("rollout")},
                                   {"rl.phases_s.reward", model_reward, band("forward")},
                                   {"rl.phases_s.reference", p.phases.reference, band("forward")},
                                   {"rl.phases_s.old_logprob", p.phases.old_logprob, band("forward")},
                                   {"rl.phases_s.train", p.phases.train, band("train")},
                                   {"rl.phases_s.weight_sync", p.phases.weight_sync, band("weight_sync")}});
  add_some("rl.step_time_s", p.step_time_s, step.band, false);
  if (step.raised_by && !out.empty() && out.back().path == "rl.step_time_s") {
    out.back().raised_by = step.raised_by;
    out.back().fitted_high = p.step_time_s * portable_exp(step.fitted_hi);
  }
  add_some("rl.tokens_per_s", p.tokens_per_s, step.band, true);
  add_some("rl.tokens_per_s_per_gpu", p.tokens_per_s_per_gpu, step.band, true);
  // The rollout is a serving run of the step's responses; the published rollout times are its
  // makespan (the longest response), and its output rate is the step's output tokens over it.
  const auto rollout = band("rollout");
  add_some("rl.phases_s.rollout", p.phases.rollout, rollout, false);
  add_some("rl.rollout.longest_response_s", p.longest_response_s, rollout, false);
  add_some("rl.rollout.makespan_s", p.rollout_makespan_s, rollout, false);
  add_some("rl.rollout.output_tokens_per_s", p.output_tokens_per_s, rollout, true);
  // Reward, reference and old log-probs are forward passes of the trainer's layout (rl.cpp).
  const auto forward = band("forward");
  if (model_reward > 0) add(out, "rl.phases_s.reward", model_reward, forward, false, 1, p.reward_cpu_s);
  add_some("rl.phases_s.reference", p.phases.reference, forward, false);
  add_some("rl.phases_s.old_logprob", p.phases.old_logprob, forward, false);
  // The train phase is mini_batches optimizer steps of the trainer: one step's time and its MFU
  // scale with it.
  const auto train = band("train");
  add_some("rl.phases_s.train", p.phases.train, train, false);
  add_some("rl.train.iteration_time_s", p.train_iteration_s, train, false);
  add_some("rl.train.mfu", p.train_mfu, train, true);
  cap_mfu(out, "rl.train.mfu", p.train_mfu, mfu_ceiling(s.system.device, s.rl->train_precision));
  add_some("rl.phases_s.weight_sync", p.phases.weight_sync, band("weight_sync"), false);
  add_some("memory.per_device_bytes.total", p.trainer_memory.per_device.total().value,
           band_for(table, r.memory), false);
  return out;
}

std::vector<UncertaintyBand> uncertainty_bands(const Scenario& s, const Prediction& p,
                                               const BandTable& table) {
  std::vector<UncertaintyBand> out;
  const Regimes r = regimes_of(s, p);
  const auto band = [&](const std::string& regime) { return band_for(table, regime); };
  if (p.training) {
    const auto b = band(r.training);
    const auto& t = *p.training;
    add(out, "training.iteration_time_s", t.iteration_time.value, b, false);
    add(out, "training.tokens_per_s", t.tokens_per_s, b, true);
    add(out, "training.mfu", t.mfu, b, true);
    cap_mfu(out, "training.mfu", t.mfu, mfu_ceiling(s.system.device, s.training->precision));
    if (t.time_to_train) add(out, "training.time_to_train_s", t.time_to_train->value, b, false);
  }
  if (p.inference) {
    const auto b = band(r.inference);
    const auto& i = *p.inference;
    add(out, "inference.ttft_s", i.ttft.value, b, false);
    add(out, "inference.tpot_s", i.tpot.value, b, false);
    add(out, "inference.e2e_latency_s", i.e2e_latency.value, b, false);
    add(out, "inference.throughput_tokens_per_s", i.throughput_tokens_per_s, b, true);
  }
  if (p.serving) {
    const auto& v = *p.serving;
    const auto tput = band(r.serving + "/throughput");
    add(out, "serving.output_tokens_per_s", v.output_tokens_per_s, tput, true);
    add(out, "serving.output_tokens_per_s_per_gpu", v.output_tokens_per_s_per_gpu, tput, true);
    add(out, "serving.requests_per_s", v.requests_per_s, tput, true);
    const auto ttft = band(r.serving + "/ttft");
    add(out, "serving.ttft_s.mean", v.ttft.mean, ttft, false);
    add(out, "serving.ttft_s.p90", v.ttft.p90, ttft, false);
    const auto tpot = band(r.serving + "/tpot");
    add(out, "serving.tpot_s.mean", v.tpot.mean, tpot, false);
    add(out, "serving.tpot_s.p90", v.tpot.p90, tpot, false);
    // The published inter-token latencies the band is fitted on are "Mean ITL" figures of
    // fixed-length runs, where the token-weighted and the per-request means coincide.
    add(out, "serving.mean_itl_s", v.mean_itl_s, tpot, false);
    add(out, "serving.itl_s.mean", v.itl.mean, tpot, false);
    add(out, "serving.itl_s.p90", v.itl.p90, tpot, false);
  }
  if (p.run) {
    // Every one of these is a time, or scales with one (energy, money, CO2). Where the system
    // states no failure rate the elapsed time's band reaches the run at the highest published
    // rate (predict.cpp, RunReport::unknown_failures_high). The ideal time has no failures and no
    // production losses: it is the steps' time, with the steps' band (training.time_to_train_s's),
    // not the whole runs' (a probe found the two bands of one number 13.0-16.1 M s and 14.0-32.8 M s).
    const auto b = band(r.run);
    const auto& w = *p.run;
    const double wf = w.unknown_failures_high;
    add(out, "run.ideal_time_s", w.ideal_s, p.training ? band(r.training) : b, false);
    add(out, "run.wall_time_s", w.wall_s, b, false, wf);
    add(out, "run.wall_days", w.wall_days(), b, false, wf);
    add(out, "run.gpu_hours", w.gpu_hours, b, false, wf);
    add(out, "run.energy_mwh", w.energy_mwh, b, false, wf);
    add(out, "run.device_energy_mwh", w.device_energy_mwh, b, false, wf);
    if (w.cost_usd) add(out, "run.cost_usd", *w.cost_usd, b, false, wf);
    if (w.co2_t) add(out, "run.co2_t", *w.co2_t, b, false, wf);
  }
  add(out, "memory.per_device_bytes.total", p.memory.per_device.total().value, band(r.memory), false);
  return out;
}

}  // namespace optimus
