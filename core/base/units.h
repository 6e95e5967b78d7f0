// Strong quantity types for the engine's inner arithmetic. Everything inside core/ is SI:
// bytes, seconds, FLOPs, FLOP/s, bytes/s. JSON keys carry their unit names (GiB, GBps,
// TFLOPs, us) and io/ converts them exactly once on load.
#pragma once

#include <cmath>
#include <compare>

namespace optimus {

// A double tagged with its dimension. Only dimensionally meaningful arithmetic compiles:
// same-kind sums and differences, scaling by a plain number, and the few cross-kind
// products declared below (bytes / bandwidth = seconds, flops / rate = seconds, ...).
template <class Tag>
struct Quantity {
  double value = 0.0;
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}
  constexpr auto operator<=>(const Quantity&) const = default;
  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value -= o.value;
    return *this;
  }
  constexpr Quantity& operator*=(double k) {
    value *= k;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.value + b.value); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.value - b.value); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.value * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.value * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.value / k); }
  friend constexpr double operator/(Quantity a, Quantity b) { return a.value / b.value; }
};

struct BytesTag {};
struct SecondsTag {};
struct FlopsTag {};
struct FlopRateTag {};
struct BandwidthTag {};

using Bytes = Quantity<BytesTag>;          // B
using Seconds = Quantity<SecondsTag>;      // s
using Flops = Quantity<FlopsTag>;          // floating-point operations
using FlopRate = Quantity<FlopRateTag>;    // FLOP/s
using Bandwidth = Quantity<BandwidthTag>;  // B/s

constexpr Seconds operator/(Bytes b, Bandwidth bw) { return Seconds(b.value / bw.value); }
constexpr Seconds operator/(Flops f, FlopRate r) { return Seconds(f.value / r.value); }
constexpr Bytes operator*(Bandwidth bw, Seconds s) { return Bytes(bw.value * s.value); }

template <class Tag>
constexpr Quantity<Tag> max(Quantity<Tag> a, Quantity<Tag> b) {
  return a.value >= b.value ? a : b;
}
template <class Tag>
constexpr Quantity<Tag> min(Quantity<Tag> a, Quantity<Tag> b) {
  return a.value <= b.value ? a : b;
}

// Unit conversions at the JSON edge. Capacities binary, rates decimal (docs/contract.md).
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGB = 1e9;
constexpr double kTera = 1e12;
constexpr double kMicro = 1e-6;

constexpr Bytes gibibytes(double v) { return Bytes(v * kGiB); }
constexpr Bytes mebibytes(double v) { return Bytes(v * kMiB); }
constexpr Bandwidth gigabytes_per_s(double v) { return Bandwidth(v * kGB); }
constexpr FlopRate teraflops(double v) { return FlopRate(v * kTera); }
constexpr Seconds microseconds(double v) { return Seconds(v * kMicro); }

inline bool is_finite(double v) { return std::isfinite(v); }

}  // namespace optimus
