// Numeric formats of weights, activations and math, and their sizes.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "base/enums.h"

namespace optimus {

// Plain formats, and the block-scaled ones of the OCP Microscaling spec (MX, v1.0, 2023:
// blocks of 32 elements share one 8-bit power-of-two scale) and NVIDIA's NVFP4 (blocks of 16
// fp4 elements share an fp8 E4M3 scale, plus one fp32 scale per tensor; NVIDIA Blackwell
// architecture technical brief, and "Pretraining LLMs with NVFP4", arXiv 2509.25149).
OPTIMUS_ENUM(Precision, fp32, tf32, fp16, bf16, fp8, int8, int4, fp4, mxfp8, nvfp4, mxfp4);

inline constexpr std::size_t kPrecisionCount = 11;

inline constexpr auto kAllPrecisions = enum_values<Precision>();
// The formats a device states a peak rate for (`peak_tflops` keys): the block-scaled formats run
// at their element format's rate.
inline constexpr std::array<Precision, 8> kPeakFormats = {Precision::fp32, Precision::tf32, Precision::fp16,
                                                          Precision::bf16, Precision::fp8,  Precision::int8,
                                                          Precision::int4, Precision::fp4};

// Bytes per element in memory, block scales included (MX: one 1-byte scale per 32 elements;
// NVFP4: one 1-byte scale per 16).
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
    case Precision::fp4:
      return 0.5;
    case Precision::mxfp8:
      return 1.0 + 1.0 / 32.0;
    case Precision::nvfp4:
      return 0.5 + 1.0 / 16.0;
    case Precision::mxfp4:
      return 0.5 + 1.0 / 32.0;
  }
  return 2.0;
}

constexpr std::string_view to_string(Precision p) { return name_of(p); }

inline std::optional<Precision> parse_precision(std::string_view s) { return parse_enum<Precision>(s); }

// The tensor-core rate a format's matmuls run at: block-scaled formats run on the fp8 or fp4
// units (the scales are applied inside the MMA on Blackwell), the others on their own.
constexpr Precision rate_format(Precision p) {
  if (p == Precision::mxfp8) return Precision::fp8;
  if (p == Precision::nvfp4 || p == Precision::mxfp4) return Precision::fp4;
  return p;
}

// The next wider format after `p` (cost/roofline.cpp math_rate takes the fastest of them with a
// rate; parallel/plan.cpp has_rate): int4 -> int8 -> fp8, fp4 -> fp8, fp8 -> fp16 -> bf16 ->
// tf32 -> fp32; none after fp32.
constexpr std::optional<Precision> wider(Precision p) {
  switch (rate_format(p)) {
    case Precision::int4:
      return Precision::int8;
    case Precision::int8:
    case Precision::fp4:
      return Precision::fp8;
    case Precision::fp8:
      return Precision::fp16;
    case Precision::fp16:
      return Precision::bf16;
    case Precision::bf16:
      return Precision::tf32;
    case Precision::tf32:
      return Precision::fp32;
    default:
      return std::nullopt;
  }
}

// Integer weight formats, stored with per-group (or per-channel) scales and zero points.
constexpr bool integer_weights(Precision p) { return p == Precision::int4 || p == Precision::int8; }

// Narrow formats whose matmuls use the device's 8-bit (or narrower) efficiency calibration.
constexpr bool is_narrow(Precision p) {
  const Precision r = rate_format(p);
  return r == Precision::fp8 || r == Precision::int8 || r == Precision::int4 || r == Precision::fp4;
}
// Block-scaled and plain fp8/fp4 training formats: matmul operands are quantised from 16-bit
// activations by a cast kernel (Transformer Engine), while weights are kept in 16 bits.
constexpr bool quantised_training(Precision p) {
  return p == Precision::fp8 || p == Precision::mxfp8 || p == Precision::nvfp4 || p == Precision::mxfp4 ||
         p == Precision::fp4;
}

}  // namespace optimus
