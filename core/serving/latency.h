// Latency statistics of a serving simulation (serving.h): percentiles of a sample and a
// token-weighted histogram of inter-token gaps. Internal to the serving module.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <vector>

#include "base/math.h"
#include "serving/serving.h"

namespace optimus {

// Percentiles by linear interpolation between closest ranks. Each call selects the two ranks it
// needs (std::nth_element, linear time) instead of sorting the whole sample; v is reordered.
double percentile(std::vector<double>& v, double q);

// Mean, p50, p90 and p99 of a sample (reordered).
LatencyStats stats(std::vector<double>& v);

// A token-weighted distribution of inter-token gaps in log-spaced bins (100 ns to 1e5 s, 4096
// bins of 0.67%), so that its memory and time do not grow with the run's steps. Bin edges are
// computed once with portable_exp, so native and WebAssembly builds bin alike.
class GapHistogram {
 public:
  static constexpr std::size_t kBins = 4096;
  void add(double v, double weight) {
    if (!(weight > 0)) return;
    w_[bin(v)] += weight;
    note(v, v, weight);
  }
  // add(), for a run of values that mostly fall in the bin of the one before (a lock-step
  // clock's steps): `hint` is that bin, checked before searching, and updated.
  void add(double v, double weight, std::size_t& hint) {
    if (!(weight > 0)) return;
    const auto& e = edges();
    const double lower = hint == 0 ? -std::numeric_limits<double>::infinity() : e[hint];
    const double upper = hint + 1 == kBins ? std::numeric_limits<double>::infinity() : e[hint + 1];
    if (!(lower <= v && v < upper)) hint = bin(v);
    w_[hint] += weight;
    note(v, v, weight);
  }
  // `weight` gaps spread evenly over [a, b] (a decode stretch: steps whose time grows linearly).
  void add_even(double a, double b, double weight) {
    if (!(weight > 0)) return;
    if (b < a) std::swap(a, b);
    if (!(b > a)) return add(a, weight);
    const auto& e = edges();
    for (std::size_t i = bin(a), last = bin(b); i <= last; ++i) {
      const double lo = i == 0 ? a : std::max(a, e[i]), hi = i + 1 == kBins ? b : std::min(b, e[i + 1]);
      if (hi > lo) w_[i] += weight * (hi - lo) / (b - a);
    }
    note(a, b, weight);
  }
  double percentile(double q) const { return total_ > 0 ? quantile(q / 100.0) : 0.0; }
  LatencyStats stats() const {
    LatencyStats out;
    if (!(total_ > 0)) return out;
    out.mean = sum_ / total_;
    out.p50 = quantile(0.50);
    out.p90 = quantile(0.90);
    out.p99 = quantile(0.99);
    return out;
  }

 private:
  static const std::array<double, kBins + 1>& edges() {
    static const std::array<double, kBins + 1> e = [] {
      std::array<double, kBins + 1> out{};
      for (std::size_t i = 0; i <= kBins; ++i)
        out[i] =
            1e-7 * portable_exp(static_cast<double>(i) * portable_log(1e12) / static_cast<double>(kBins));
      return out;
    }();
    return e;
  }
  static std::size_t bin(double v) {
    const auto& e = edges();
    const auto it = std::upper_bound(e.begin() + 1, e.end() - 1, v);
    return static_cast<std::size_t>(it - e.begin()) - 1;
  }
  void note(double a, double b, double weight) {
    lo_ = std::min(lo_, a);
    hi_ = std::max(hi_, b);
    total_ += weight;
    sum_ += weight * (a + b) / 2.0;
  }
  // The value below which a share q of the weight lies: linear within the bin that crosses it,
  // clamped to the smallest and largest gap seen.
  double quantile(double q) const {
    const auto& e = edges();
    const double target = q * total_;
    double below = 0;
    for (std::size_t i = 0; i < kBins; ++i) {
      if (w_[i] <= 0) continue;
      if (below + w_[i] >= target) {
        const double v = e[i] + (e[i + 1] - e[i]) * (target - below) / w_[i];
        return std::clamp(v, lo_, hi_);
      }
      below += w_[i];
    }
    return hi_;
  }
  std::vector<double> w_ = std::vector<double>(kBins, 0.0);
  double total_ = 0, sum_ = 0;
  double lo_ = std::numeric_limits<double>::infinity(), hi_ = 0;
};

}  // namespace optimus
