#include "run/run.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/math.h"

namespace optimus {

double device_power_w(double tdp_w, double idle_fraction, double memory_activity,
                      double communication_activity, const ActivityShares& shares) {
  // P = P_idle + (TDP - P_idle) x activity. The floor and the compute weight: a training GPU
  // under dense math runs at its board power limit (that cap is why the H100 preset's
  // sustained_ratio is below 1), and drops to ~100 W of 700 W (0.14) while only checkpointing
  // (Morrison et al. 2025, arXiv 2503.05804, Fig. 2: ~600 W training, ~100 W checkpointing on
  // H100). Memory-bound kernels keep HBM and the load/store path busy but not the tensor cores,
  // and communication mostly the copy engines and NICs: their weights are the device preset's
  // memory_activity and communication_activity (ASSUMED 0.6 and 0.3, hardware/spec.h).
  const double total = shares.compute + shares.memory + shares.communication + shares.other;
  if (!(total > 0)) return tdp_w * idle_fraction;
  const double activity =
      (shares.compute + memory_activity * shares.memory + communication_activity * shares.communication) /
      total;
  return tdp_w * (idle_fraction + (1.0 - idle_fraction) * activity);
}

double young_daly_interval_s(double checkpoint_s, double job_mtbf_s) {
  if (!std::isfinite(job_mtbf_s) || job_mtbf_s <= 0) return std::numeric_limits<double>::infinity();
  // Young 1974, "A first order approximation to the optimum checkpoint interval" (CACM 17(9)):
  // sqrt(2 delta M); Daly 2006, "A higher order estimate of the optimum checkpoint interval for
  // restart dumps" (FGCS 22(3)), Eq. 37 to first order: sqrt(2 delta M) - delta (the interval
  // counts compute only, the write comes on top).
  return std::sqrt(2.0 * checkpoint_s * job_mtbf_s) - checkpoint_s;
}

Result<RunTime> run_time(const RunInputs& in) {
  RunTime out;
  const bool failures = std::isfinite(in.job_mtbf_s) && in.job_mtbf_s > 0;
  const double inf = std::numeric_limits<double>::infinity();
  double tau = in.interval_s > 0 ? in.interval_s
                                 : (failures ? young_daly_interval_s(in.checkpoint_s, in.job_mtbf_s) : inf);
  // An asynchronous save is written while the next segment trains; a new one cannot start before
  // it is on storage (Megatron-Core's async save and PyTorch DCP's async_save finish the pending
  // save first), so a segment is at least the write.
  if (in.interval_s <= 0 && in.checkpoint_persist_s > 0) tau = std::max(tau, in.checkpoint_persist_s);
  // No segment is longer than the run's work: an interval past it means one save, at the end, and a
  // failure redoes at most what was trained (a probe's 11-hour run with a 1e9 s interval had been
  // refused as never progressing, and a 50,000 s interval on a 39,229 s run charged 25,000 s a failure).
  const double compute_s = in.ideal_s / in.efficiency;
  if (std::isfinite(tau) && compute_s > 0 && std::isfinite(compute_s)) tau = std::min(tau, compute_s);
  if (!(tau > 0))
    return make_error("run.no_progress", "/system/operations/failures_per_device_hour",
                      "one checkpoint takes " + std::to_string(in.checkpoint_s) +
                          " s, at least half the job's mean time between failures (" +
                          std::to_string(in.job_mtbf_s) +
                          " s): no checkpoint interval lets the run progress; a faster storage tier, "
                          "fewer devices or a lower failure rate would");
  // The run as segments of tau seconds of work and one checkpoint of delta (Daly 2006, Sec. 3's
  // first-order model): a failure costs the restart plus, on average, half a segment of redone
  // work. Of the time not lost to failures, tau / (tau + delta) is useful, so
  //   goodput = tau / (tau + delta) x (1 - (R + (tau + delta) / 2) / M),
  // the elapsed time is W / goodput and the expected failures elapsed / M, where W is the steps'
  // compute time: the ideal time at the modelled rate (over a share of it where the scenario
  // states one).
  // With asynchronous saves the last durable checkpoint is the one before the save in flight:
  // a failure also loses the write time, on average (the save started persist_s before it is
  // durable, and a failure in that window falls back one segment; Daly's first-order model with
  // the checkpoint's commit delayed by the write).
  const double seg = tau + in.checkpoint_s;
  const double redone = std::isfinite(tau) ? seg / 2.0 + in.checkpoint_persist_s : inf;
  const double per_failure = in.restart_s + redone;
  const double kept = failures ? 1.0 - per_failure / in.job_mtbf_s : 1.0;
  if (!(kept > 0))
    return make_error(
        "run.no_progress",
        in.interval_s > 0 ? "/training/checkpoint_interval_s" : "/system/operations/failures_per_device_hour",
        "a failure every " + std::to_string(in.job_mtbf_s) + " s on average costs " +
            std::to_string(per_failure) + " s (restart and redone work): the run never progresses; " +
            (in.restart_s >= in.job_mtbf_s
                 ? std::string("the restart alone (") + std::to_string(in.restart_s) +
                       " s) outlasts it, so no checkpoint interval can help: a faster restart, fewer devices "
                       "or a lower failure rate would"
                 : std::string("a shorter checkpoint interval, a faster restart, fewer devices or a lower "
                               "failure rate would")));
  const double useful_share = std::isfinite(tau) ? tau / seg : 1.0;
  out.goodput = useful_share * kept;
  out.interval_s = std::isfinite(tau) ? tau : 0.0;
  out.lost.production = compute_s - in.ideal_s;
  out.wall_s = compute_s / out.goodput;
  out.expected_failures = failures ? out.wall_s / in.job_mtbf_s : 0.0;
  if (failures) {
    out.lost.lost_work = out.expected_failures * redone;
    out.lost.restarts = out.expected_failures * in.restart_s;
  }
  // What is left of the elapsed time beside the compute and the failures' cost is checkpoint
  // writes: delta / (tau + delta) of the time not lost to failures.
  out.lost.checkpoint_writes = (out.wall_s - out.lost.lost_work - out.lost.restarts) * (1.0 - useful_share);
  return out;
}

Result<RampSteps> ramp_steps(double train_tokens, std::int64_t seq_len, std::int64_t global_batch,
                             const std::vector<RampStep>& ramp) {
  RampSteps out;
  double left = train_tokens;
  for (std::size_t i = 0; i < ramp.size(); ++i) {
    const RampStep& r = ramp[i];
    if (r.tokens > left)
      return make_error("run.ramp_exceeds_tokens", "/training/batch_ramp/" + std::to_string(i) + "/0",
                        "the batch ramp's steps up to this one add up to more than train_tokens (" +
                            std::to_string(train_tokens) +
                            "); the ramp's tokens must leave the rest for "
                            "the steady global_batch");
    left -= r.tokens;
    out.steps += static_cast<std::int64_t>(
        ceil_div(r.tokens, static_cast<double>(r.global_batch) * static_cast<double>(seq_len)));
  }
  out.steady_tokens = left;
  out.steps += static_cast<std::int64_t>(
      ceil_div(left, static_cast<double>(global_batch) * static_cast<double>(seq_len)));
  return out;
}

bool has_price(const Economics& e, double device_price_usd) {
  return e.usd_per_gpu_hour > 0 || e.gpu_price_usd > 0 || device_price_usd > 0;
}

bool capital_form(const Economics& e) { return !(e.usd_per_gpu_hour > 0); }

std::optional<double> cost_usd(const Economics& e, double device_price_usd, double device_hours,
                               double energy_mwh) {
  if (!has_price(e, device_price_usd)) return std::nullopt;
  double cost = device_hours * usd_per_device_hour(e, device_price_usd);
  if (capital_form(e)) cost += energy_mwh * 1000.0 * e.usd_per_kwh;
  return cost;
}

Warning no_price_warning(const std::string& what) {
  return {"run.no_price",
          "no device price: give economics.usd_per_gpu_hour or economics.gpu_price_usd "
          "(the device states no power.price_usd), so the " +
              what + " has no cost"};
}

Error rank_without_price() {
  return make_error("search.rank_without_price", "/rank_by",
                    "ranking by cost needs a price: economics.usd_per_gpu_hour (a rental price) or "
                    "economics.gpu_price_usd (the device states no power.price_usd); rank by time instead");
}

double usd_per_device_hour(const Economics& e, double device_price_usd) {
  if (e.usd_per_gpu_hour > 0) return e.usd_per_gpu_hour;
  const double price = e.gpu_price_usd > 0 ? e.gpu_price_usd : device_price_usd;
  // Straight-line amortisation over the hours the device is in use: 8766 h per (Julian) year.
  return price / (e.amortisation_years * 8766.0 * e.utilisation);
}

}  // namespace optimus
