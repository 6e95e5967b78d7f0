// Small integer and rounding helpers used by the cost and parallel modules.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace optimus {

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
// The least multiple of b not below a (b > 0): a batch rounded up to whole micro-batches, a length
// padded to a layout's multiple.
constexpr std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
constexpr double ceil_div(double a, double b) {
  const double q = a / b;
  // From 2^52 on every double is a whole number, and past 2^63 the cast below would overflow.
  if (!(q < 4503599627370496.0 && q > -4503599627370496.0)) return q;
  const auto i = static_cast<double>(static_cast<std::int64_t>(q));
  return i < q ? i + 1.0 : i;
}
// A count as a double, for the formulas that mix counts with rates and sizes.
constexpr double d(std::int64_t v) { return static_cast<double>(v); }
constexpr bool divides(std::int64_t d, std::int64_t n) { return d > 0 && n % d == 0; }

// The natural logarithm and exponential from IEEE basic arithmetic and exact scaling only, so a
// native build and the WebAssembly build (whose libm differs in the last bit) draw the same
// random requests. ln x: x = m 2^k with m in [1/sqrt 2, sqrt 2), ln m = 2 atanh s with
// s = (m - 1) / (m + 1), |s| < 0.172, summed until the terms vanish (Abramowitz and Stegun 4.1.28).
inline double portable_log(double x) {
  int k = 0;
  double m = std::frexp(x, &k);
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --k;
  }
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  // The reciprocals of the odd numbers, rounded once at compile time (a multiply is several
  // times cheaper than a divide; the result is as portable).
  static constexpr auto inv_odd = [] {
    std::array<double, 40> r{};
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = 1.0 / static_cast<double>(2 * i + 1);
    return r;
  }();
  double term = s, sum = 0.0;
  for (std::size_t i = 0; i < inv_odd.size(); ++i) {
    const double next = sum + term * inv_odd[i];
    // The terms shrink by s^2 < 0.03 each: once one no longer changes the sum, none will.
    if (next == sum) break;
    sum = next;
    term *= s2;
  }
  return 2.0 * sum + static_cast<double>(k) * 0.69314718055994530942;
}
// e^x: x = k ln 2 + r with |r| <= ln 2 / 2 (Cody and Waite's two-part reduction), e^r by its
// Taylor series, times 2^k (exact).
inline double portable_exp(double x) {
  if (x > 709.0) return HUGE_VAL;
  if (x < -745.0) return 0.0;
  const double k = std::floor(x / 0.69314718055994530942 + 0.5);
  // ln 2 split in a high part with trailing zero bits (k * hi is exact) and the rest.
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double term = 1.0, sum = 1.0;
  for (int i = 1; i < 40 && term != 0.0; ++i) {
    term *= r / static_cast<double>(i);
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

}  // namespace optimus
