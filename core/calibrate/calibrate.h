// Fitting a calibration (hardware/calibration.h) to measured runs (issue 38). Knows predictions,
// not JSON: the caller says how a metric is read from a prediction (io/calibrate_io.cpp reads any
// numeric output path).
//
// The model: a measured value y of a metric m relates to the factors x (log of each multiplier) as
// log y = log m(x) + noise. With one measurement only the factor the metric is most sensitive to is
// fitted, to reproduce the measurement exactly (within the factor's bounds). With more, the factors
// the metrics are sensitive to are fitted by bounded least squares in log space with a Gaussian
// prior pulling each towards 1 (Gauss-Newton on finite-difference elasticities, Huber's loss by
// reweighting, the bounds held by an active set). The posterior covariance, with the measurement noise taken
// as the larger of the assumed repeatability and the residuals' spread, gives each factor's band and the
// calibrated band of a prediction.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "hardware/calibration.h"
#include "predict/predict.h"

namespace optimus {

struct Measurement {
  Scenario scenario;  // as measured, uncalibrated (its layout resolved)
  std::string metric;
  double measured = 0;
  std::int64_t line = 0;  // 1-based position in the input, for errors (path "/<line>/...")
};

// The metric's value in the prediction of a scenario, or the error that stops it (the scenario does
// not predict, the metric is not a number of its output).
using MetricFunction = std::function<Result<double>(const Scenario&, const std::string& metric)>;

struct CalibrateOptions {
  // Run-to-run spread of one benchmark, log space. ASSUMED: repeated runs of the same MLPerf /
  // vLLM / Megatron benchmark on one cluster usually agree within a few percent.
  double measurement_sigma = 0.05;
  // Prior standard deviation of each factor's log around 0 (factor 1): e^-1..e^1 at one sigma.
  double prior_sigma = 1.0;
  // A measurement further than this from the prediction either way is refused
  // (calibrate.measured_absurd): more likely a unit or metric mistake than a slow cluster.
  double max_departure = 10;
  int max_iterations = 4;
};

struct FittedFactor {
  CalibrationFactor factor = CalibrationFactor::matmul;
  double value = 1, low = 1, high = 1;  // the fit and its 90% band (within the bounds)
  double bound_low = 1, bound_high = 1;
  bool fitted = false;  // false: the measurements do not depend on it; it stays 1
};

struct CalibratedCase {
  std::string metric;
  double measured = 0, before = 0, after = 0;
  std::int64_t line = 0;
};

struct CalibrationFit {
  Calibration calibration;
  std::vector<FittedFactor> fitted;  // every factor, in enum order
  std::vector<CalibratedCase> cases;
  // d log(metric) / d log(factor) of each case at the uncalibrated point
  std::vector<CalibrationFactors> sensitivity;
  // calibrate.insensitive: no measured metric depends on any factor (a throughput fixed by the
  // request rate, a memory size), so every factor stays 1.
  std::vector<Warning> warnings;
};

Result<CalibrationFit> calibrate(const std::vector<Measurement>& measurements, const MetricFunction& metric,
                                 const CalibrateOptions& options = {});

}  // namespace optimus
