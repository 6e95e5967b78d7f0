// Small integer and rounding helpers used by the cost and parallel modules.
#pragma once

#include <cstdint>

namespace optimus {

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
constexpr double ceil_div(double a, double b) {
  const double q = a / b;
  // From 2^52 on every double is a whole number, and past 2^63 the cast below would overflow.
  if (!(q < 4503599627370496.0 && q > -4503599627370496.0)) return q;
  const auto i = static_cast<double>(static_cast<std::int64_t>(q));
  return i < q ? i + 1.0 : i;
}
constexpr bool divides(std::int64_t d, std::int64_t n) { return d > 0 && n % d == 0; }

}  // namespace optimus
