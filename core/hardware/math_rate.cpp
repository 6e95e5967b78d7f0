#include "hardware/spec.h"

namespace optimus {

MathRate math_rate(const DeviceSpec& d, Precision p) {
  // Integer and narrow float formats fall back to the nearest wider format with a peak
  // (base/precision.h wider()).
  // The format's own units first (block-scaled formats: the fp8 / fp4 units), then wider ones.
  const Precision own = rate_format(p);
  // Microscaling formats (mxfp8, mxfp4, nvfp4) apply each block's scale inside the matrix unit:
  // Blackwell's block-scaled MMA (NVIDIA Blackwell architecture technical brief, fifth-generation
  // Tensor Cores with micro-tensor scaling) and CDNA4's (AMD Instinct MI355X: MXFP8 / MXFP6 /
  // MXFP4). The same generations bring the 4-bit rate, so a device without an fp4 peak (Hopper,
  // Ampere, CDNA3) has no such unit: mxfp8 there runs on the plain fp8 rate, a fallback (warned),
  // the scales' own cost not counted.
  // NVFP4's own scales (E4M3 per 16 elements) are NVIDIA's: a device whose 4-bit units apply only
  // the MX scales (CDNA4, `nvfp4_scales` false) has no native nvfp4 rate and takes a wider
  // format's, warned, as a device without 4-bit units does.
  const bool block_units = d.peak_for(Precision::fp4).value > 0;
  const bool microscaled = p == Precision::mxfp8 || p == Precision::mxfp4 || p == Precision::nvfp4;
  const bool own_scales = p != Precision::nvfp4 || d.nvfp4_scales;
  if (d.peak_for(own).value > 0 && own_scales)
    return MathRate{d.peak_for(own), own, microscaled && !block_units};
  // Without a rate of its own, the fastest of the wider formats, not the nearest: Blackwell Ultra
  // (B300, GB300) cut its int8 tensor rate to 150-165 TOPS, so int4 on the nearest (int8) ran 30x
  // slower than fp8 (a probe's finding), where a runtime takes the 4-bit integers to fp8, which
  // holds them exactly (e4m3 holds every integer up to 16), as TensorRT-LLM's W4A8 kernels do. Of
  // equal rates the nearer is kept.
  std::optional<MathRate> best;
  for (std::optional<Precision> q = wider(own); q; q = wider(*q)) {
    const FlopRate r = d.peak_for(*q);
    if (r.value > 0 && (!best || r.value > best->rate.value)) best = MathRate{r, *q, true};
  }
  if (best) return *best;
  return MathRate{d.vector_peak, Precision::fp32, true};
}

}  // namespace optimus
