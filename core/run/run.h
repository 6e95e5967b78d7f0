// The whole training run and the price of a token: from one iteration's time to wall-clock days,
// GPU-hours, energy, money and CO2, with failures, checkpoints and restarts (issue 17). Pure
// arithmetic on numbers the time and memory models produce; predict/predict.cpp feeds it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace optimus {

// What compute and power cost (scenario `economics`, presets/economics/). Either a rental price
// per device-hour (energy included, as a cloud price is) or the capital terms of owned devices
// (price amortised over the years of use, at the share of hours they do useful work) plus the
// energy they draw at usd_per_kwh.
struct Economics {
  std::string id;                  // preset id; empty for an inline object
  double usd_per_gpu_hour = 0;     // rental form; 0 = capital form
  double gpu_price_usd = 0;        // capital form; 0 = the device's price_usd
  double amortisation_years = 5;   // capital form
  double utilisation = 0.8;        // capital form: share of the device's life spent on jobs
  double usd_per_kwh = 0.08;       // energy price at the meter
  double pue = 1.2;                // facility power / IT power
  double grid_kg_co2_per_kwh = 0;  // 0 = not given (no co2_t)
};

// One step of a batch ramp: `tokens` trained at `global_batch` sequences per step.
struct RampStep {
  double tokens = 0;
  std::int64_t global_batch = 0;
};

// The device's draw (hardware/spec.h DevicePower) at a mix of work, as shares of the time.
struct ActivityShares {
  double compute = 0, memory = 0, communication = 0, other = 0;
};

// Power of one device at that mix: idle floor plus the dynamic range weighted by activity
// (run.cpp cites the weights).
double device_power_w(double tdp_w, double idle_fraction, double memory_activity,
                      double communication_activity, const ActivityShares& shares);

// Young (1974) / Daly (2006) first-order optimum checkpoint interval (compute time between two
// checkpoints): sqrt(2 delta M) - delta, for a checkpoint of delta seconds and a mean time
// between failures M of the whole job. Infinite when M is (no failures).
double young_daly_interval_s(double checkpoint_s, double job_mtbf_s);

// The highest job-interrupting failure rate a published run states, per device-hour: OPT-175B,
// at least 35 manual and an estimated 70+ automatic restarts, all from hardware failures, in about
// 2 months on 992 A100-80GB (Zhang et al. 2022, arXiv 2205.01068, Sec. 2.5; 105 / (60 x 24 h x
// 992) = 7.35e-5; tests/validation/data/reliability.csv, scripts/fit_failure_rate.py). A run whose
// system states no rate is predicted without failures and its band reaches the run at this rate.
inline constexpr double kHighestPublishedFailuresPerDeviceHour = 7.35e-5;

// What the elapsed time of a run depends on besides its work.
struct RunInputs {
  double ideal_s = 0;       // useful compute time: every step at its steady-state time
  double checkpoint_s = 0;  // one checkpoint: the time training is blocked by it
  // Asynchronous saves: the time after the blocking copy until the checkpoint is on storage
  // (the write overlaps the steps that follow); 0 = blocking saves, durable when training resumes.
  double checkpoint_persist_s = 0;
  double job_mtbf_s = 0;  // 0 or infinity = no failures
  double restart_s = 0;   // from a failure to training again (detection, reschedule, load)
  double interval_s = 0;  // 0 = Young/Daly
  // A share of the modelled step rate stated by the scenario (SystemOperations::
  // production_efficiency): the steps take ideal_s / efficiency of compute time, on which
  // failures and checkpoints act. 1 = the modelled rate (no preset states one).
  double efficiency = 1;
};

struct LostTime {
  // production: the steps' compute time beyond the ideal at a stated share of the modelled rate.
  double checkpoint_writes = 0, lost_work = 0, restarts = 0, production = 0;
  double total() const { return checkpoint_writes + lost_work + restarts + production; }
};

// goodput = compute time / elapsed time: the share failures and checkpoints leave (the
// production shortfall is compute time, not lost to failures).
struct RunTime {
  double wall_s = 0, goodput = 1, interval_s = 0, expected_failures = 0;
  LostTime lost;
};

// Elapsed time of a run with failures and checkpoints (first-order model, run.cpp). Errors:
// run.no_progress when a failure comes, on average, before the work between checkpoints is saved.
// Asynchronous saves (checkpoint_persist_s > 0): the interval is at least the write (a save
// starts after the previous one is on storage), and a failure also loses the work since the save
// still being written began: restart + (interval + blocking) / 2 + persist.
Result<RunTime> run_time(const RunInputs& in);

// Steps of a run: the ramp's steps, each ceil(tokens / (batch x seq_len)), then the rest of the
// tokens at the steady global batch. Errors (paths under /training): run.ramp_exceeds_tokens.
struct RampSteps {
  std::int64_t steps = 0;
  double steady_tokens = 0;  // tokens trained at the steady batch
};
Result<RampSteps> ramp_steps(double train_tokens, std::int64_t seq_len, std::int64_t global_batch,
                             const std::vector<RampStep>& ramp);

// Device-hour price: the rental price, or price / (years x 8766 h x utilisation).
double usd_per_device_hour(const Economics& e, double device_price_usd);
// Whether a device-hour has a price: a rental price, or a device price to amortise (the
// economics' or the device preset's power.price_usd). Without one a cost is absent, not zero.
bool has_price(const Economics& e, double device_price_usd);
// The error of a search asked to rank by cost without a price (search.rank_without_price).
Error rank_without_price();
// Owned devices (no rental price): a cost adds the electricity to the amortised device-hours; a
// rental price includes it.
bool capital_form(const Economics& e);
// Money for `device_hours` that drew `energy_mwh` at the meter: the device-hours at the
// device-hour price, plus the electricity in the capital form. Absent without a price (has_price).
std::optional<double> cost_usd(const Economics& e, double device_price_usd, double device_hours,
                               double energy_mwh);
// The warning of a cost left absent for want of a price (run.no_price); `what` has no cost.
Warning no_price_warning(const std::string& what);

}  // namespace optimus
