// Calibration to a user's own measurement (issue 38): bounded multipliers on the rates the engine
// models, fitted by core/calibrate/ on measured runs and carried by a scenario as its top-level key
// `calibration`. They are applied in one place, to the system the scenario runs on, before anything
// is predicted (scenario/scenario.h apply_calibration, which the JSON reader calls), so every prediction of
// that scenario (the layout search, serving sweeps, the whole-run plan) uses the calibrated rates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/enums.h"
#include "hardware/spec.h"

namespace optimus {

// Every factor multiplies a rate: 0.5 halves it (the work it times takes twice as long).
//  matmul    the achieved tensor-core (GEMM) rate: DeviceSpec::matmul_efficiency (and its 8-bit twin)
//  memory    the achieved HBM bandwidth: DeviceSpec::memory_efficiency
//  scale_up  the scale-up network's achieved bandwidth (NVLink / xGMI; measured all-reduce sweeps too)
//  scale_out the scale-out network's achieved bandwidth (InfiniBand / Ethernet)
//  host      the host's rate: every fixed time per kernel or per host-issued operator (kernel launch
//            and tail, eager launch interval, training framework's operator issue, pipeline syncs,
//            the custom all-reduce's synchronisation) is divided by it
OPTIMUS_ENUM(CalibrationFactor, matmul, memory, scale_up, scale_out, host);
inline constexpr std::size_t kCalibrationFactorCount = 5;

using CalibrationFactors = std::array<double, kCalibrationFactorCount>;
inline constexpr CalibrationFactors kUncalibrated = {1, 1, 1, 1, 1};

struct FactorBounds {
  double low = 1, high = 1;
};

// The physically plausible range of a factor on `system` (calibration.cpp gives each reason).
FactorBounds calibration_bounds(CalibrationFactor f, const SystemSpec& system);

// The system with its rates multiplied by the factors (all 1: unchanged).
void apply_calibration_factors(SystemSpec& system, const CalibrationFactors& factors);

struct Calibration {
  // What it was fitted on: the device's and the system's names, and the software profile
  // (a presets/software id, "inline" for an inline profile, "" for the system's own software block).
  std::string device, system, software;
  CalibrationFactors factors = kUncalibrated;
  std::int64_t measurements = 0;  // how many it was fitted on (0 = typed in by hand)
  // The calibrated band of a prediction (multipliers on the calibrated value, 90%); 0 = none stated.
  double band_low = 0, band_high = 0;
  // Filled when the scenario is read: whether it applies (device and software match) and, when
  // it does, the system before the factors (what `uncalibrated` predicts, and what is written back).
  bool applied = false;
  std::string not_applicable;  // why not, when it does not apply
  std::optional<SystemSpec> uncalibrated;
};

}  // namespace optimus
