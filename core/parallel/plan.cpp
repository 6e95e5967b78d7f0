#include "parallel/plan.h"

#include <algorithm>
#include <string>

#include "base/math.h"

namespace optimus {

GroupPlacement place_group(std::int64_t size, std::int64_t stride, std::int64_t domain_size) {
  GroupPlacement g;
  g.size = size;
  if (size <= 1) return g;
  // Members one stride apart: a domain of D devices holds max(1, D/stride) of them.
  const std::int64_t per = std::max<std::int64_t>(1, domain_size / std::max<std::int64_t>(1, stride));
  g.per_domain = std::min(size, per);
  g.domains = ceil_div(size, g.per_domain);
  return g;
}

std::int64_t micro_batches(const ParallelPlan& p, const TrainingWorkload& w) {
  return w.global_batch / (p.dp * p.micro_batch);
}

namespace {
std::string str(std::int64_t v) { return std::to_string(v); }

// Whether the device can time matmuls at `p`: the first non-zero peak among p and the wider
// formats, else the vector units (the fallback order of cost/roofline.cpp math_rate). Without one
// every time at p would be infinite.
bool has_rate(const DeviceSpec& d, Precision p) {
  for (std::optional<Precision> q = rate_format(p); q; q = wider(*q))
    if (d.peak_for(*q).value > 0) return true;
  return d.vector_peak.value > 0;
}

// The precisions a workload's matmuls run at: its own, bf16 for attention under fp8 (training
// and prefill), fp16 for decode attention (predict/training.cpp, predict/inference.cpp).
std::optional<Error> check_rates(const DeviceSpec& d, Precision p, bool decode) {
  for (Precision q : {p, quantised_training(p) ? Precision::bf16 : p, decode ? Precision::fp16 : p})
    if (!has_rate(d, q))
      return make_error("device.no_rate_for_precision", "/system/device/peak_tflops",
                        d.name + " has no peak rate for " + std::string(to_string(q)) +
                            " or any wider format, and no vector_tflops; add one to peak_tflops");
  return std::nullopt;
}
}  // namespace

std::optional<Error> validate_plan(const Scenario& s) {
  const auto& p = s.parallel;
  const auto& m = s.model;
  // In double: four degrees of up to 1e8 overflow int64, and a product equal to num_devices
  // (at most 1e8) is exact.
  const double product = static_cast<double>(p.tp) * static_cast<double>(p.pp) * static_cast<double>(p.dp) *
                         static_cast<double>(p.cp);
  if (product != static_cast<double>(s.num_devices))
    return make_error("parallel.product_mismatch", "/parallel",
                      "tp*pp*dp*cp = " + str(p.tp) + "*" + str(p.pp) + "*" + str(p.dp) + "*" + str(p.cp) +
                          " = " + (product < 9e18 ? str(static_cast<std::int64_t>(product)) : "over 9e18") +
                          " but num_devices = " + str(s.num_devices) +
                          "; choose degrees whose product is num_devices");
  if (m.heads % p.tp != 0)
    return make_error("parallel.tp_not_divisor_of_heads", "/parallel/tp",
                      "tp=" + str(p.tp) + " does not divide heads=" + str(m.heads) +
                          "; tensor parallelism splits attention heads evenly");
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    return make_error("parallel.tp_not_divisor_of_kv_heads", "/parallel/tp",
                      "tp=" + str(p.tp) + " and kv_heads=" + str(m.kv_heads) +
                          " must divide one another (KV heads are split or replicated evenly)");
  if (m.ffn_hidden % p.tp != 0)
    return make_error("parallel.tp_not_divisor_of_ffn_hidden", "/parallel/tp",
                      "tp=" + str(p.tp) + " does not divide ffn_hidden=" + str(m.ffn_hidden));
  if (p.pp > m.layers)
    return make_error("parallel.pp_exceeds_layers", "/parallel/pp",
                      "pp=" + str(p.pp) + " is larger than layers=" + str(m.layers));
  if (p.interleave < 1)
    return make_error("parallel.invalid_interleave", "/parallel/interleave", "interleave must be at least 1");
  if (m.layers % (p.pp * p.interleave) != 0 && !uneven_pipeline_split(m, p))
    return make_error("parallel.layers_not_divisible", "/parallel/pp",
                      "layers=" + str(m.layers) +
                          " is not divisible by pp*interleave=" + str(p.pp * p.interleave) +
                          " (nor is layers+2, counting the embedding and the loss as a layer each "
                          "as Megatron-LM can); every model chunk needs the same layer count");
  if (p.interleave > 1 && p.pp == 1)
    return make_error("parallel.interleave_without_pp", "/parallel/interleave",
                      "interleave=" + str(p.interleave) + " needs pp > 1");
  if (p.sequence_parallel && p.tp == 1)
    return make_error(
        "parallel.sequence_parallel_without_tp", "/parallel/sequence_parallel",
        "sequence_parallel needs tp > 1 (it splits the tensor-parallel region's norms and dropouts)");
  if (p.ep != 1)
    return make_error("parallel.ep_without_moe", "/parallel/ep",
                      "ep=" + str(p.ep) + " needs a mixture-of-experts model; use ep=1");
  if (s.training) {
    const auto& w = *s.training;
    if (w.seq_len % p.cp != 0)
      return make_error("parallel.cp_not_divisor_of_seq_len", "/parallel/cp",
                        "cp=" + str(p.cp) + " does not divide seq_len=" + str(w.seq_len));
    if (p.cp > 1 && (w.seq_len / p.cp) % 2 != 0)
      return make_error("parallel.cp_chunk_odd", "/parallel/cp",
                        "context parallelism splits each sequence into 2*cp chunks; seq_len=" +
                            str(w.seq_len) + " is not divisible by " + str(2 * p.cp));
    if (p.sequence_parallel && (w.seq_len / p.cp) % p.tp != 0)
      return make_error("parallel.tp_not_divisor_of_seq_len", "/parallel/tp",
                        "sequence parallelism splits the sequence over tp=" + str(p.tp) +
                            " ranks; seq_len/cp=" + str(w.seq_len / p.cp) + " is not divisible");
    if (w.global_batch % (p.dp * p.micro_batch) != 0)
      return make_error("training.batch_not_divisible", "/training/global_batch",
                        "global_batch=" + str(w.global_batch) +
                            " is not divisible by dp*micro_batch=" + str(p.dp * p.micro_batch));
    const std::int64_t mb = micro_batches(p, w);
    if (p.interleave > 1 && mb % p.pp != 0)
      return make_error("parallel.interleave_microbatches", "/parallel/interleave",
                        "the interleaved schedule needs the micro-batch count (" + str(mb) +
                            ") to be a multiple of pp=" + str(p.pp));
    if (p.zero_stage < 0 || p.zero_stage > 3)
      return make_error("parallel.invalid_zero_stage", "/parallel/zero_stage",
                        "zero_stage must be 0, 1, 2 or 3");
    if (auto e = check_rates(s.system.device, w.precision, false)) return e;
  }
  if (s.inference) {
    if (p.cp != 1)
      return make_error("parallel.cp_in_inference", "/parallel/cp",
                        "context parallelism is modelled for training only; use cp=1 for inference");
    if (auto e = check_rates(s.system.device, s.inference->precision, true)) return e;
  }
  return std::nullopt;
}

LayerShape param_shape(const ParallelPlan& p, std::int64_t position_rows) {
  LayerShape shape;
  shape.tp = p.tp;
  shape.pp = p.pp;
  shape.position_rows = position_rows;
  return shape;
}

LayerShape training_layer_shape(const Scenario& s, AttentionKernel attention) {
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const auto& sw = s.system.software;
  LayerShape shape = param_shape(p, w.seq_len);
  shape.group = SeqGroup{p.micro_batch, w.seq_len / p.cp, w.seq_len};
  shape.cp = p.cp;
  shape.sequence_parallel = p.sequence_parallel;
  shape.causal = true;
  shape.attention = attention;
  const bool wide = w.precision == Precision::fp32 || w.precision == Precision::tf32;
  shape.act_bytes = wide ? 4.0 : sw.activation_bytes;
  shape.saved_bytes = sw.activation_bytes;
  shape.kv_elem_bytes = shape.act_bytes;
  shape.loss = true;
  return shape;
}

bool uneven_chunk_split(std::int64_t layers, std::int64_t chunks) {
  return chunks > 0 && layers % chunks != 0 && (layers + 2) % chunks == 0 && layers + 2 >= 2 * chunks;
}

bool uneven_pipeline_split(const ModelSpec& m, const ParallelPlan& p) {
  return p.pp > 1 && uneven_chunk_split(m.layers, p.pp * p.interleave);
}

double stage_layers(const ModelSpec& m, const ParallelPlan& p) {
  // Middle stages hold (layers + 2) / pp layers under the embedding/loss-as-a-layer split.
  if (uneven_pipeline_split(m, p)) return static_cast<double>(m.layers + 2) / static_cast<double>(p.pp);
  return static_cast<double>(m.layers) / static_cast<double>(p.pp);
}

}  // namespace optimus
