// Numeric formats of weights, activations and math, and their sizes.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace optimus {

enum class Precision { fp32, tf32, fp16, bf16, fp8, int8, int4 };

inline constexpr std::array<Precision, 7> kAllPrecisions = {Precision::fp32, Precision::tf32, Precision::fp16,
                                                            Precision::bf16, Precision::fp8,  Precision::int8,
                                                            Precision::int4};

constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return 4.0;  // tf32 is stored as fp32
    case Precision::fp16:
    case Precision::bf16:
      return 2.0;
    case Precision::fp8:
    case Precision::int8:
      return 1.0;
    case Precision::int4:
      return 0.5;
  }
  return 2.0;
}

constexpr std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
    case Precision::fp8:
      return "fp8";
    case Precision::int8:
      return "int8";
    case Precision::int4:
      return "int4";
  }
  return "?";
}

inline std::optional<Precision> parse_precision(std::string_view s) {
  for (auto p : kAllPrecisions)
    if (to_string(p) == s) return p;
  return std::nullopt;
}

}  // namespace optimus
