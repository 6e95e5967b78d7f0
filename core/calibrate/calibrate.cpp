#include "calibrate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/math.h"

namespace optimus {

namespace {

constexpr std::size_t K = kCalibrationFactorCount;
using Vec = std::array<double, K>;
using Mat = std::array<Vec, K>;

// Finite-difference step in log factor: the rate at 0.8 of its value (downwards, so that a rate
// at its physical peak is not pushed past it).
const double kStep = portable_log(0.8);
// A factor is fitted when some measurement's elasticity to it reaches this (2% per 100%).
constexpr double kMinElasticity = 0.02;
// One measurement: the factors whose elasticity is at least this share of the largest move with
// the main one. A structural choice, compared on the public cases (scripts/calibration_report.py,
// each split's first case calibrating; docs/calibration.md): on the training, MoE training,
// inference and InferenceX sets (317 scored cases) the main factor alone gave 17.8% after
// calibration, this quarter 16.3%, every factor over kMinElasticity 16.2%; over all five sets
// (654) the main factor alone 13.2%, the quarter 12.5% (14.6% uncalibrated).
constexpr double kAlongside = 0.25;
// z of a two-sided 90% band of a normal distribution.
constexpr double kZ90 = 1.6448536269514722;

// Huber's loss on a log residual (Huber 1964, "Robust Estimation of a Location Parameter"):
// quadratic within kHuber measurement sigmas, linear beyond, so that one metric the engine models
// poorly (a closed-loop TTFT, a tail) cannot drag every factor after it. Solved by iteratively
// reweighted least squares: a residual r beyond the corner weighs corner / |r|.
constexpr double kHuber = 2;
double huber(double r, double sigma) {
  const double c = kHuber * sigma, a = std::fabs(r);
  return a <= c ? r * r : 2 * c * a - c * c;
}
double huber_weight(double r, double sigma) {
  const double c = kHuber * sigma, a = std::fabs(r);
  return a <= c ? 1 : c / a;
}

std::string at(const Measurement& m, const std::string& key) {
  return "/" + std::to_string(m.line) + "/" + key;
}

// Four significant digits, as an ostream with precision 4 writes them (%g, C++ [facet.num.put.virtuals]),
// without iostreams (their locale machinery is about 95 KB of the WebAssembly module).
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Solves A d = b for the symmetric positive definite A restricted to the indices in `use`
// (Cholesky); the other entries of d are 0.
Vec solve(const Mat& a, const Vec& b, const std::array<bool, K>& use) {
  std::array<std::size_t, K> idx{};
  std::size_t n = 0;
  for (std::size_t k = 0; k < K; ++k)
    if (use[k]) idx[n++] = k;
  Mat l{};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double sum = a[idx[i]][idx[j]];
      for (std::size_t p = 0; p < j; ++p) sum -= l[i][p] * l[j][p];
      if (i == j)
        l[i][i] = std::sqrt(std::max(sum, 1e-300));
      else
        l[i][j] = sum / l[j][j];
    }
  Vec y{}, x{};
  for (std::size_t i = 0; i < n; ++i) {
    double sum = b[idx[i]];
    for (std::size_t p = 0; p < i; ++p) sum -= l[i][p] * y[p];
    y[i] = sum / l[i][i];
  }
  for (std::size_t i = n; i-- > 0;) {
    double sum = y[i];
    for (std::size_t p = i + 1; p < n; ++p) sum -= l[p][i] * x[p];
    x[i] = sum / l[i][i];
  }
  Vec d{};
  for (std::size_t i = 0; i < n; ++i) d[idx[i]] = x[i];
  return d;
}

// The inverse of A restricted to `use` (column by column).
Mat inverse(const Mat& a, const std::array<bool, K>& use) {
  Mat inv{};
  for (std::size_t c = 0; c < K; ++c) {
    if (!use[c]) continue;
    Vec e{};
    e[c] = 1;
    const Vec col = solve(a, e, use);
    for (std::size_t r = 0; r < K; ++r) inv[r][c] = col[r];
  }
  return inv;
}

class Problem {
 public:
  Problem(const std::vector<Measurement>& ms, const MetricFunction& metric) : ms_(ms), metric_(metric) {}

  // log of the metric of measurement i with the factors e^x.
  Result<double> log_value(std::size_t i, const Vec& x) const {
    const Measurement& m = ms_[i];
    Scenario s = m.scenario;
    CalibrationFactors f{};
    for (std::size_t k = 0; k < K; ++k) f[k] = portable_exp(x[k]);
    apply_calibration_factors(s.system, f);
    auto v = metric_(s, m.metric);
    if (!v) {
      Error e = v.error();
      // The metric function's errors name "metric" (the path is not in the output) or a path
      // inside the scenario.
      e.path = e.path == "metric" ? at(m, "metric") : at(m, "scenario") + e.path;
      e.message = "line " + std::to_string(m.line) + ": " + e.message;
      return e;
    }
    if (!std::isfinite(*v) || *v <= 0)
      return make_error("calibrate.metric_not_positive", at(m, "metric"),
                        "line " + std::to_string(m.line) + ": " + m.metric + " is predicted as " + num(*v) +
                            "; only a positive quantity (a time, a rate, a size) can be calibrated to");
    return portable_log(*v);
  }

  // Values at x and the Jacobian d log m_i / d x_k (forward differences, kStep).
  std::optional<Error> linearise(const Vec& x, const std::array<bool, K>& which, std::vector<double>& value,
                                 std::vector<Vec>& jac) const {
    value.assign(ms_.size(), 0);
    jac.assign(ms_.size(), Vec{});
    for (std::size_t i = 0; i < ms_.size(); ++i) {
      auto v0 = log_value(i, x);
      if (!v0) return v0.error();
      value[i] = *v0;
      for (std::size_t k = 0; k < K; ++k) {
        if (!which[k]) continue;
        Vec xs = x;
        xs[k] += kStep;
        auto v1 = log_value(i, xs);
        if (!v1) return v1.error();
        jac[i][k] = (*v1 - *v0) / kStep;
      }
    }
    return std::nullopt;
  }

 private:
  const std::vector<Measurement>& ms_;
  const MetricFunction& metric_;
};

// The checks every measurement passes before anything is fitted: one system, one software stack,
// a positive measured value.
std::optional<Error> check_measurements(const std::vector<Measurement>& ms, const std::string& software) {
  const Scenario& first = ms.front().scenario;
  for (const Measurement& m : ms) {
    if (m.scenario.system.name != first.system.name ||
        m.scenario.system.device.name != first.system.device.name)
      return make_error("calibrate.mixed_systems", at(m, "scenario/system"),
                        "line " + std::to_string(m.line) + " measures system '" + m.scenario.system.name +
                            "' (" + m.scenario.system.device.name + "), line " +
                            std::to_string(ms.front().line) + " '" + first.system.name + "' (" +
                            first.system.device.name +
                            "): one calibration is fitted on one system; split the file");
    if (software_identity(m.scenario) != software)
      return make_error("calibrate.mixed_software", at(m, "scenario/software"),
                        "line " + std::to_string(m.line) + " runs software '" +
                            software_identity(m.scenario) + "', line " + std::to_string(ms.front().line) +
                            " '" + software +
                            "': one calibration is fitted on one software stack; split the file");
    if (!std::isfinite(m.measured) || m.measured <= 0)
      return make_error(
          "calibrate.measured_not_positive", at(m, "measured"),
          "line " + std::to_string(m.line) + ": measured " + num(m.measured) + " is not a positive number");
  }
  return std::nullopt;
}

// A measurement more than max_departure times off the uncalibrated prediction (either way) is an
// error, not something to fit.
std::optional<Error> check_departures(const std::vector<Measurement>& ms, const std::vector<double>& value0,
                                      double max_departure) {
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const double ratio = ms[i].measured / portable_exp(value0[i]);
    if (ratio > max_departure || ratio < 1 / max_departure)
      return make_error("calibrate.measured_absurd", at(ms[i], "measured"),
                        "line " + std::to_string(ms[i].line) + ": measured " + num(ms[i].measured) + " is " +
                            num(ratio) + " times the prediction " + num(portable_exp(value0[i])) + " of " +
                            ms[i].metric + " (more than " + num(max_departure) +
                            "x either way: a unit, a metric or a scenario that is not what was measured?)");
  }
  return std::nullopt;
}

// Which factors the measurements can tell: the largest elasticity of any case.
std::array<bool, K> fittable_factors(const std::vector<Vec>& jac0) {
  const std::size_t n = jac0.size();
  std::array<bool, K> fit{};
  if (n == 1) {
    std::size_t best = K;
    double best_e = kMinElasticity;
    for (std::size_t k = 0; k < K; ++k)
      if (std::fabs(jac0[0][k]) >= best_e) {
        best_e = std::fabs(jac0[0][k]);
        best = k;
      }
    if (best < K) fit[best] = true;
  } else {
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t i = 0; i < n; ++i) fit[k] = fit[k] || std::fabs(jac0[i][k]) >= kMinElasticity;
  }
  return fit;
}

// The fit as it goes: log factors, which of them are fitted, and the log values and Jacobian at x.
struct FitState {
  Vec x{};
  std::array<bool, K> fit{};
  std::vector<double> value;
  std::vector<Vec> jac;
};

// Bounds of the log factors.
struct LogBounds {
  Vec lo{}, hi{};
};

// One measurement: exactly one factor, the measurement reproduced: a secant search on
// log m(x_k) = log y. The factors it depends on nearly as much as on that one (a decode step's
// memory and host terms) move with it, by the same multiplier: one measurement cannot tell them
// apart, and the same shift keeps the ratio between them as modelled.
std::optional<Error> fit_one(const Problem& prob, double ly, const LogBounds& b, FitState& s) {
  const std::vector<Vec> jac0 = s.jac;
  const double value0 = s.value[0];
  std::array<bool, K>& fit = s.fit;
  std::size_t k = 0;
  while (!fit[k]) ++k;
  double e_dir = 0;
  for (std::size_t q = 0; q < K; ++q) {
    fit[q] = std::fabs(jac0[0][q]) >= std::max(kMinElasticity, kAlongside * std::fabs(jac0[0][k]));
    if (fit[q]) e_dir += jac0[0][q];
  }
  const auto point = [&](double t) {
    Vec xv{};
    for (std::size_t q = 0; q < K; ++q)
      if (fit[q]) xv[q] = std::clamp(t, b.lo[q], b.hi[q]);
    return xv;
  };
  double t_lo = b.lo[k], t_hi = b.hi[k];
  for (std::size_t q = 0; q < K; ++q)
    if (fit[q]) {
      t_lo = std::min(t_lo, b.lo[q]);
      t_hi = std::max(t_hi, b.hi[q]);
    }
  double xa = 0, ga = value0 - ly;
  double xb = std::clamp(-ga / e_dir, t_lo, t_hi);
  for (int it = 0; it < 12 && std::fabs(ga) > 1e-6; ++it) {
    const Vec xv = point(xb);
    auto v = prob.log_value(0, xv);
    if (!v) return v.error();
    const double gb = *v - ly;
    if (std::fabs(gb) >= std::fabs(ga) && (xb == t_lo || xb == t_hi)) break;  // held at the bounds
    const double slope = xb != xa ? (gb - ga) / (xb - xa) : e_dir;
    xa = xb;
    ga = gb;
    if (std::fabs(slope) < 1e-9) break;
    xb = std::clamp(xb - gb / slope, t_lo, t_hi);
  }
  s.x = point(xa);
  return prob.linearise(s.x, fit, s.value, s.jac);
}

// The step of the linearised (Huber-weighted, prior-regularised) problem with the active set: a
// factor the step pushes past a bound is held there and the others solved again.
Vec constrained_step(const FitState& s, const std::vector<double>& ly, const LogBounds& bd, double s0,
                     double tau) {
  const std::size_t n = ly.size();
  std::array<bool, K> free_ = s.fit;
  Vec step{};
  for (std::size_t pass = 0; pass <= K; ++pass) {
    Mat a{};
    Vec b{};
    for (std::size_t i = 0; i < n; ++i) {
      double r = ly[i] - s.value[i];
      const double w = huber_weight(r, s0);
      for (std::size_t k = 0; k < K; ++k)
        if (s.fit[k] && !free_[k]) r -= s.jac[i][k] * step[k];
      for (std::size_t p = 0; p < K; ++p) {
        if (!free_[p]) continue;
        b[p] += w * s.jac[i][p] * r / (s0 * s0);
        for (std::size_t q = 0; q < K; ++q)
          if (free_[q]) a[p][q] += w * s.jac[i][p] * s.jac[i][q] / (s0 * s0);
      }
    }
    for (std::size_t p = 0; p < K; ++p)
      if (free_[p]) {
        a[p][p] += 1 / (tau * tau);
        b[p] -= s.x[p] / (tau * tau);
      }
    const Vec d = solve(a, b, free_);
    bool clamped = false;
    for (std::size_t p = 0; p < K; ++p) {
      if (!free_[p]) continue;
      step[p] = d[p];
      if (s.x[p] + d[p] < bd.lo[p] || s.x[p] + d[p] > bd.hi[p]) {
        step[p] = std::clamp(s.x[p] + d[p], bd.lo[p], bd.hi[p]) - s.x[p];
        free_[p] = false;
        clamped = true;
      }
    }
    if (!clamped) break;
  }
  return step;
}

// The objective of several measurements: Huber loss of the log residuals plus the log-normal prior.
double objective(const Vec& xv, const std::vector<double>& v, const std::vector<double>& ly, double s0,
                 double tau) {
  double f = 0;
  for (std::size_t i = 0; i < ly.size(); ++i) f += huber(v[i] - ly[i], s0) / (s0 * s0);
  for (std::size_t k = 0; k < K; ++k) f += xv[k] * xv[k] / (tau * tau);
  return f;
}

// Several measurements: damped Gauss-Newton (iteratively reweighted for Huber's loss) on the fitted
// factors within their bounds.
std::optional<Error> fit_many(const Problem& prob, const std::vector<double>& ly, const LogBounds& bd,
                              const CalibrateOptions& o, FitState& s) {
  const std::size_t n = ly.size();
  const double s0 = o.measurement_sigma, tau = o.prior_sigma;
  double obj = objective(s.x, s.value, ly, s0, tau);
  for (int it = 0; it < o.max_iterations; ++it) {
    Vec step = constrained_step(s, ly, bd, s0, tau);
    // Damped: halve the step until the objective falls.
    bool moved = false;
    for (int half = 0; half < 4 && !moved; ++half) {
      Vec xn = s.x;
      for (std::size_t k = 0; k < K; ++k) xn[k] = std::clamp(s.x[k] + step[k], bd.lo[k], bd.hi[k]);
      std::vector<double> vn(n);
      for (std::size_t i = 0; i < n; ++i) {
        auto v = prob.log_value(i, xn);
        if (!v) return v.error();
        vn[i] = *v;
      }
      const double on = objective(xn, vn, ly, s0, tau);
      if (on < obj) {
        s.x = xn;
        obj = on;
        moved = true;
      } else {
        for (double& st : step) st /= 2;
      }
    }
    double biggest = 0;
    for (double st : step) biggest = std::max(biggest, std::fabs(st));
    if (!moved) break;
    if (auto e = prob.linearise(s.x, s.fit, s.value, s.jac)) return e;
    if (biggest < 1e-4) break;
  }
  return std::nullopt;
}

// The posterior covariance of the fitted log factors and the mean prediction variance of a case.
struct Band {
  Mat cov{};
  double pred_var = 0;
};

// Band: the noise is the assumed repeatability or the residuals' spread, whichever is larger.
Band band(const FitState& s, const std::vector<double>& ly, double s0, double tau) {
  const std::size_t n = ly.size();
  std::size_t p = 0;
  for (bool b : s.fit) p += b ? 1 : 0;
  double rss = 0;
  for (std::size_t i = 0; i < n; ++i) rss += (ly[i] - s.value[i]) * (ly[i] - s.value[i]);
  // With no more measurements than fitted factors an exact fit leaves no residual; one that is left
  // (a factor held at its bound, measurements that contradict each other) is misfit all the same.
  const double dof = static_cast<double>(n > p ? n - p : n);
  const double sigma2 = std::max(s0 * s0, rss / dof);
  Mat a{};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t r = 0; r < K; ++r)
      for (std::size_t c = 0; c < K; ++c)
        if (s.fit[r] && s.fit[c]) a[r][c] += s.jac[i][r] * s.jac[i][c] / sigma2;
  for (std::size_t k = 0; k < K; ++k)
    if (s.fit[k]) a[k][k] += 1 / (tau * tau);
  Band out;
  out.cov = inverse(a, s.fit);
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0;
    for (std::size_t r = 0; r < K; ++r)
      for (std::size_t c = 0; c < K; ++c) v += s.jac[i][r] * out.cov[r][c] * s.jac[i][c];
    out.pred_var += v / static_cast<double>(n);
  }
  out.pred_var += sigma2 - s0 * s0;  // misfit the factors cannot explain
  return out;
}

// What the fit could not do, said: a factor held at a bound it would pass, and a measurement still
// further from its calibrated prediction than three times the noise (contradicting measurements, or
// a number beyond what the model reaches: an MFU of 0.95).
void misfit_warnings(const std::vector<Measurement>& ms, const std::vector<double>& ly, const FitState& s,
                     const LogBounds& lb, double noise, std::vector<Warning>& warnings) {
  if (std::none_of(s.fit.begin(), s.fit.end(), [](bool b) { return b; }))
    return;  // calibrate.insensitive said it
  const auto percent = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * v);
    return std::string(b);
  };
  const auto fmt_factor = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "x%.3g", v);
    return std::string(b);
  };
  for (std::size_t k = 0; k < K; ++k)
    if (s.fit[k] && (s.x[k] <= lb.lo[k] + 1e-9 || s.x[k] >= lb.hi[k] - 1e-9))
      warnings.push_back({"calibrate.factor_at_bound",
                          std::string("the ") + std::string(name_of(static_cast<CalibrationFactor>(k))) +
                              " factor is held at its " + (s.x[k] <= lb.lo[k] + 1e-9 ? "lower" : "upper") +
                              " bound (" + fmt_factor(portable_exp(s.x[k])) +
                              "): the measurements ask for more than a rate within its bounds gives; "
                              "check the scenario matches what was measured"});
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const double off = std::fabs(portable_exp(s.value[i] - ly[i]) - 1.0);
    if (off > worst) worst = off, at = i;
  }
  if (worst > 3.0 * noise)
    warnings.push_back(
        {"calibrate.misfit", "after the fit, " + ms[at].metric + " (line " + std::to_string(ms[at].line) +
                                 ") is still " + percent(worst) +
                                 " from its measurement: the measurements contradict each other "
                                 "or the model does not reach them; the band includes the misfit"});
}

}  // namespace

Result<CalibrationFit> calibrate(const std::vector<Measurement>& ms, const MetricFunction& metric,
                                 const CalibrateOptions& o) {
  if (ms.empty()) return make_error("calibrate.no_measurements", "", "no measurement to calibrate to");
  const Scenario& first = ms.front().scenario;
  const std::string software = software_identity(first);
  if (auto e = check_measurements(ms, software)) return *e;
  const Problem prob(ms, metric);
  const std::size_t n = ms.size();
  std::array<FactorBounds, K> bounds{};
  LogBounds lb;
  for (std::size_t k = 0; k < K; ++k) {
    bounds[k] = calibration_bounds(static_cast<CalibrationFactor>(k), first.system);
    lb.lo[k] = portable_log(bounds[k].low);
    lb.hi[k] = portable_log(bounds[k].high);
  }
  std::array<bool, K> all{};
  all.fill(true);
  FitState s;
  if (auto e = prob.linearise(s.x, all, s.value, s.jac)) return *e;
  const std::vector<double> value0 = s.value;
  const std::vector<Vec> jac0 = s.jac;
  if (auto e = check_departures(ms, value0, o.max_departure)) return *e;
  std::vector<double> ly(n);
  for (std::size_t i = 0; i < n; ++i) ly[i] = portable_log(ms[i].measured);
  s.fit = fittable_factors(jac0);
  const bool insensitive = std::none_of(s.fit.begin(), s.fit.end(), [](bool b) { return b; });

  if (insensitive) {
    // Nothing to fit: every factor stays 1.
  } else if (n == 1) {
    if (auto e = fit_one(prob, ly[0], lb, s)) return *e;
  } else {
    if (auto e = fit_many(prob, ly, lb, o, s)) return *e;
  }
  const Band bd = band(s, ly, o.measurement_sigma, o.prior_sigma);
  CalibrationFit out;
  if (insensitive)
    out.warnings.push_back(
        {"calibrate.insensitive",
         std::string(n == 1 ? ms.front().metric + " does not" : "none of the measured metrics does") +
             " depend on any calibrated rate (matmul, memory, scale_up, scale_out, host) by 2% or more (a "
             "throughput the request rate sets, a memory size): every factor stays 1"});
  misfit_warnings(ms, ly, s, lb, o.measurement_sigma, out.warnings);
  Calibration& cal = out.calibration;
  cal.device = first.system.device.name;
  cal.system = first.system.name;
  cal.software = software;
  cal.measurements = static_cast<std::int64_t>(n);
  const double half = kZ90 * std::sqrt(std::max(bd.pred_var, 0.0));
  cal.band_low = portable_exp(-half);
  cal.band_high = portable_exp(half);
  for (std::size_t k = 0; k < K; ++k) {
    cal.factors[k] = std::clamp(portable_exp(s.x[k]), bounds[k].low, bounds[k].high);
    FittedFactor f;
    f.factor = static_cast<CalibrationFactor>(k);
    f.value = cal.factors[k];
    f.fitted = s.fit[k];
    f.bound_low = bounds[k].low;
    f.bound_high = bounds[k].high;
    const double w = s.fit[k] ? kZ90 * std::sqrt(std::max(bd.cov[k][k], 0.0)) : 0;
    f.low = std::clamp(portable_exp(s.x[k] - w), bounds[k].low, bounds[k].high);
    f.high = std::clamp(portable_exp(s.x[k] + w), bounds[k].low, bounds[k].high);
    out.fitted.push_back(f);
  }
  for (std::size_t i = 0; i < n; ++i) {
    out.cases.push_back(
        {ms[i].metric, ms[i].measured, portable_exp(value0[i]), portable_exp(s.value[i]), ms[i].line});
    out.sensitivity.push_back(jac0[i]);
  }
  return out;
}

}  // namespace optimus
