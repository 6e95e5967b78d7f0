// Numeric formats of weights, activations and math, and their sizes.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "base/enums.h"

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

template <>
struct EnumNames<Precision> {
  static constexpr std::array<std::pair<Precision, std::string_view>, 7> table = {
      {{Precision::fp32, "fp32"},
       {Precision::tf32, "tf32"},
       {Precision::fp16, "fp16"},
       {Precision::bf16, "bf16"},
       {Precision::fp8, "fp8"},
       {Precision::int8, "int8"},
       {Precision::int4, "int4"}}};
};

constexpr std::string_view to_string(Precision p) { return name_of(p); }

inline std::optional<Precision> parse_precision(std::string_view s) { return parse_enum<Precision>(s); }

// The order in which a device without a native rate for a format falls back to a wider one
// (cost/roofline.cpp math_rate, parallel/plan.cpp has_rate): int4 -> int8 -> fp8 -> fp16 -> bf16
// -> tf32 -> fp32.
inline constexpr std::array<Precision, 7> kPrecisionFallbackOrder = {
    Precision::int4, Precision::int8, Precision::fp8, Precision::fp16,
    Precision::bf16, Precision::tf32, Precision::fp32};

}  // namespace optimus
