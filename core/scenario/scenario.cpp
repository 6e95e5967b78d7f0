#include "scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/math.h"
#include "base/words.h"

namespace optimus {

std::string model_label(const ModelSpec& m) { return m.name.empty() ? "the model" : m.name; }

std::string served_as_published(const ModelSpec& m, Precision served, bool block_scaled) {
  return std::string(to_string(served)) + (block_scaled ? " with 128 x 128 block scales" : "") +
         (dense_weights_16bit(m, served) ? " in the experts and 16-bit elsewhere" : "");
}

// The math of a 4-bit float checkpoint (nvfp4, mxfp4) on a device without 4-bit float tensor
// cores (Hopper, Ampere): the runtimes' weight-only kernels dequantise the weights to 16 bits in
// the GEMM's main loop and multiply in bf16 (vLLM's Marlin kernels for mxfp4 and nvfp4 below
// Blackwell; triton_kernels' matmul_ogs for gpt-oss on Hopper), W4A16 as int4 is, unless the
// activations' precision is stated. The next wider rate (fp8) would need an fp8 activation
// path that no such kernel takes: a probe found nvfp4 DeepSeek-R1 on H200 at fp8's rate, its TTFT
// a third below the bf16 kernels'.
Precision served_math(const Scenario& s) {
  const InferenceWorkload& w = *s.inference;
  const Precision m = inference_math(w);
  if (!w.activation_precision && rate_format(m) == Precision::fp4 &&
      s.system.device.peak_for(Precision::fp4).value <= 0)
    return Precision::bf16;
  return m;
}

double inference_weight_bytes(const InferenceWorkload& w) {
  const double element = bytes_per_element(w.precision);
  if (!integer_weights(w.precision)) return element;
  const std::int64_t group =
      w.weight_group_size.value_or(w.precision == Precision::int4 ? kDefaultInt4Group : 0);
  return group > 0 ? element + 4.0 / static_cast<double>(group) : element;
}

// The truncated exponential on [lo, hi] (width W) with rate r has mean
// lo + W (1 / t - 1 / (e^t - 1)), t = r W (mean of an exponential conditioned on an interval);
// t -> 0 is the uniform distribution. The mean falls as t grows, so bisection finds t.
double truncated_exponential_rate(double mean, std::int64_t lo, std::int64_t hi) {
  const double w = static_cast<double>(hi - lo);
  if (!(w > 0)) return 0;
  const auto mean_of = [&](double t) {
    if (std::fabs(t) < 1e-6) return static_cast<double>(lo) + w / 2;
    return static_cast<double>(lo) + w * (1.0 / t - 1.0 / (portable_exp(t) - 1.0));
  };
  double a = -700, b = 700;
  for (int i = 0; i < 200 && b - a > 1e-12; ++i) {
    const double mid = 0.5 * (a + b);
    (mean_of(mid) > mean ? a : b) = mid;
  }
  return 0.5 * (a + b) / w;
}

double LengthDist::expected() const {
  if (shaped) return mean;
  if (uniform) return 0.5 * static_cast<double>(min + max);
  double sum = 0, weight = 0;
  for (const auto& [len, w] : points) {
    sum += static_cast<double>(len) * w;
    weight += w;
  }
  return weight > 0 ? sum / weight : 0;
}

std::int64_t LengthDist::largest() const {
  if (shaped || uniform) return max;
  std::int64_t out = 0;
  for (const auto& [len, w] : points)
    if (w > 0) out = std::max(out, len);
  return out;
}

std::string not_serving_words(const std::string& what, const ServingSpec& sv) {
  return what + " is not a serving profile: its engine runs " +
         (sv.static_batching ? "static" : "continuous") + " batching of up to " +
         std::to_string(sv.max_batch) + " sequences and " + std::to_string(sv.max_num_tokens) +
         " tokens a step, the defaults where the scenario does not say";
}

std::int64_t speculative_own_positions(const Speculative& sp, std::int64_t mtp_layers) {
  return sp.draft ? 1 : std::max<std::int64_t>(1, mtp_layers);
}

std::vector<double> speculative_acceptance(const Speculative& sp, std::int64_t mtp_layers) {
  const std::int64_t own = speculative_own_positions(sp, mtp_layers);
  const double decay = sp.acceptance_decay.value_or(sp.draft ? 1.0 : kMtpReuseDecay);
  std::vector<double> a(static_cast<std::size_t>(std::max<std::int64_t>(0, sp.draft_tokens)));
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto past = std::max<std::int64_t>(0, static_cast<std::int64_t>(i) + 1 - own);
    a[i] = sp.acceptance_rate * std::pow(decay, static_cast<double>(past));
  }
  return a;
}

double speculative_tokens_per_step(const Speculative& sp, std::int64_t mtp_layers) {
  // Leviathan et al. 2023, Eq. 1, position by position: drafted token i counts when it and every
  // one before it are accepted.
  double tokens = 1.0, all_accepted = 1.0;
  for (const double a : speculative_acceptance(sp, mtp_layers)) {
    all_accepted *= a;
    tokens += all_accepted;
  }
  return tokens;
}

Scenario inference_view(const Scenario& s) {
  Scenario v = s;
  v.model.mtp_trained = 0;  // a training choice: inference runs the checkpoint's layers
  if (s.training && s.parallel.cp > 1) {
    v.parallel.dp *= v.parallel.cp;
    v.parallel.cp = 1;
  }
  return v;
}

Scenario speculative_draft_scenario(const Scenario& s) {
  Scenario d = s;
  const Speculative& sp = *s.inference->speculative;
  d.inference->speculative.reset();
  d.inference->serving.reset();
  d.parallel.pp = 1;
  d.parallel.interleave = 1;
  d.num_devices = d.parallel.tp * d.parallel.dp;
  if (sp.draft) {
    d.model = *sp.draft;
    if (!d.model.moe) d.parallel.ep = 1;
  } else {
    // DeepSeek-V3's MTP module: one transformer block like the main model's (an MoE block when
    // the model has experts) between the shared embedding and the shared output head. A hybrid's
    // block is full attention, with no linear-attention state: vLLM's Qwen3NextMultiTokenPredictor
    // builds its layers with layer_type "full_attention" (vllm/model_executor/models/qwen3_next_mtp.py).
    d.model.layers = 1;
    d.model.linear = LinearAttentionSpec{};
    d.model.layer_kinds.clear();
    if (d.model.moe) {
      d.model.moe->first_dense_layers = 0;
      d.model.moe->layer_freq = 1;
    }
  }
  return d;
}

std::string software_identity(const Scenario& s) {
  if (!s.software) return "";
  return s.software->id.empty() ? "inline" : s.software->id;
}

std::optional<Error> apply_calibration(Scenario& s) {
  if (!s.calibration) return std::nullopt;
  Calibration& c = *s.calibration;
  const std::string software = software_identity(s);
  if (c.device != s.system.device.name || c.software != software) {
    const auto sw = [](const std::string& id) {
      return id.empty() ? std::string("the system's own") : "'" + id + "'";
    };
    c.not_applicable = "the calibration was fitted on device '" + c.device + "' with software " +
                       sw(c.software) + ", this scenario runs device '" + s.system.device.name +
                       "' with software " + sw(software);
    return std::nullopt;
  }
  for (const auto& [k, name] : EnumNames<CalibrationFactor>::table) {
    const double f = c.factors[static_cast<std::size_t>(k)];
    const FactorBounds b = calibration_bounds(k, s.system);
    // A little slack: factors written back with 17 significant digits read back at their bound.
    if (f < b.low * (1 - 1e-9) || f > b.high * (1 + 1e-9))
      return make_error("calibration.factor_out_of_range", "/calibration/factors/" + std::string(name),
                        "factor " + std::string(name) + " = " + plain_number(f) +
                            " is outside its physical range [" + plain_number(b.low) + ", " +
                            plain_number(b.high) + "] on " + s.system.name +
                            " (docs/calibration.md says why)");
  }
  c.uncalibrated = s.system;
  apply_calibration_factors(s.system, c.factors);
  c.applied = true;
  return std::nullopt;
}

}  // namespace optimus
