#include "hardware/calibration.h"

#include <algorithm>

namespace optimus {

namespace {

// A factor's ceiling where the rate it scales has a physical peak: the calibrated rate may reach
// the peak but not pass it (efficiency x factor <= 1), and never less than 1 (a preset whose
// efficiency is already 1 stays at it), nor more than `cap`.
double up_to_peak(double efficiency, double cap) {
  if (efficiency <= 0) return cap;
  return std::clamp(1.0 / efficiency, 1.0, cap);
}

}  // namespace

FactorBounds calibration_bounds(CalibrationFactor f, const SystemSpec& system) {
  const DeviceSpec& d = system.device;
  switch (f) {
    case CalibrationFactor::matmul:
      // Low 0.2: the published production runs the engine validates on sustained 0.26-0.93 of the
      // modelled GEMM rate (whole runs, docs/accuracy.md: measured / predicted 1.09 to 3.85 on the
      // H100 rows, at a modelled rate ~0.27 of the peak); below a fifth a
      // stack is not running tensor-core kernels at all. High: the tensor cores' datasheet peak
      // (the calibrated efficiency may reach 1, not pass it).
      return {0.2, up_to_peak(std::max(d.matmul_efficiency, d.matmul_efficiency_8bit), 2.0)};
    case CalibrationFactor::memory:
      // Low 0.3: streaming kernels reach 0.8-0.93 of HBM bandwidth (STREAM-like copies, the presets'
      // memory_efficiency); a runtime under a third of it is bound by something else (the host
      // factor). High: the HBM datasheet bandwidth.
      return {0.3, up_to_peak(d.memory_efficiency, 2.0)};
    case CalibrationFactor::scale_up:
      // Low 0.2: NCCL over NVLink / xGMI reaches 0.7-0.9 of the link rate in bus bandwidth
      // (collectives.csv); a fifth is a misconfigured or shared fabric. High: the link rate (in-switch
      // reduction, NVLS, may pass it a little: 1.25 at most).
      return {0.2, up_to_peak(system.scale_up.efficiency, 1.25)};
    case CalibrationFactor::scale_out:
      // Low 0.1: a congested or misconfigured RoCE / Ethernet fabric loses most of its bandwidth
      // (adaptive routing and PFC off); a tenth is the least a working job sees. High: the NIC
      // line rate (SHARP in-network reduction 1.25 at most).
      return {0.1, up_to_peak(system.scale_out.efficiency, 1.25)};
    case CalibrationFactor::host:
      // 0.25-4: the host's single-thread speed and the framework's per-operator overhead differ by
      // about 2-3x between CPU generations and Python / PyTorch versions; 4x either way covers a
      // host twice as slow and a stack with half the operators.
      return {0.25, 4.0};
  }
  return {1, 1};
}

void apply_calibration_factors(SystemSpec& system, const CalibrationFactors& f) {
  const auto at = [&](CalibrationFactor k) { return f[static_cast<std::size_t>(k)]; };
  DeviceSpec& d = system.device;
  const double mm = at(CalibrationFactor::matmul);
  d.matmul_efficiency *= mm;
  d.matmul_efficiency_8bit *= mm;  // 0 (= as 16-bit) stays 0
  d.memory_efficiency *= at(CalibrationFactor::memory);
  const auto scale_tier = [](NetworkTier& t, double g) {
    t.bandwidth = Bandwidth(t.bandwidth.value * g);
    t.peer_link = Bandwidth(t.peer_link.value * g);
    for (auto& [bytes, busbw] : t.allreduce_busbw) busbw *= g;
  };
  scale_tier(system.scale_up, at(CalibrationFactor::scale_up));
  scale_tier(system.scale_out, at(CalibrationFactor::scale_out));
  const double host = at(CalibrationFactor::host);
  SoftwareDefaults& sw = system.software;
  d.kernel_overhead = Seconds(d.kernel_overhead.value / host);
  sw.launch_interval = Seconds(sw.launch_interval.value / host);
  sw.training_launch_interval = Seconds(sw.training_launch_interval.value / host);
  sw.training_expert_gemm_interval = Seconds(sw.training_expert_gemm_interval.value / host);
  sw.pipeline_sync = Seconds(sw.pipeline_sync.value / host);
  sw.custom_allreduce_latency = Seconds(sw.custom_allreduce_latency.value / host);
  sw.host_speed *= host;
}

}  // namespace optimus
