#include "serving/latency.h"

#include <cmath>

namespace optimus {

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q / 100.0 * static_cast<double>(static_cast<std::int64_t>(v.size()) - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto at_lo = v.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(v.begin(), at_lo, v.end());
  const double a = *at_lo;
  // The next rank is the smallest value above position lo.
  const double b = lo + 1 < v.size() ? *std::min_element(at_lo + 1, v.end()) : a;
  return a + (b - a) * (pos - std::floor(pos));
}

LatencyStats stats(std::vector<double>& v) {
  LatencyStats out;
  if (v.empty()) return out;
  double sum = 0;
  for (double x : v) sum += x;
  out.mean = sum / static_cast<double>(static_cast<std::int64_t>(v.size()));
  out.p50 = percentile(v, 50);
  out.p90 = percentile(v, 90);
  out.p99 = percentile(v, 99);
  return out;
}

}  // namespace optimus
