#include "predict/predict.h"

#include <algorithm>
#include <string>

namespace optimus {

namespace {

MemoryReport report(const MemoryBreakdown& b, const DeviceSpec& dev) {
  MemoryReport r;
  r.per_device = b;
  r.capacity = dev.hbm_capacity;
  r.fits = b.total().value <= dev.hbm_capacity.value;
  return r;
}

std::string gib(Bytes b) {
  const double v = b.value / kGiB;
  // Past ~1e17 GiB the tenths no longer fit a long long (absurd scenarios still get a message).
  if (!(v < 1e17)) return std::to_string(v) + " GiB";
  return std::to_string(static_cast<long long>(v * 10.0 + 0.5) / 10) + "." +
         std::to_string(static_cast<long long>(v * 10.0 + 0.5) % 10) + " GiB";
}

}  // namespace

Result<Prediction> predict(const Scenario& s) {
  if (auto err = validate_plan(s)) return *err;
  Prediction out;
  const DeviceSpec& dev = s.system.device;
  // Learned position tables are as long as the sequences the workload runs.
  const std::int64_t positions =
      s.training
          ? s.training->seq_len
          : std::max<std::int64_t>(s.model.max_seq_len, s.inference->prompt_len + s.inference->output_len);
  out.params = count_params(s.model, positions);
  if (s.training) {
    const AttentionKernel att = training_attention(s);
    const ModelGraph g = model_graph(s.model, training_layer_shape(s, att));
    out.training = predict_training(s, g, out.warnings);
    out.training_memory = report(training_memory(s, g, att), dev);
  }
  if (s.inference) {
    out.inference = predict_inference(s, out.warnings);
    out.inference_memory = report(inference_memory(s).bytes, dev);
    if (s.inference->serving) {
      auto served = predict_serving(s, out.warnings);
      if (!served) return served.error();
      out.serving = std::move(*served);
    }
  }
  // The headline memory is the training footprint when training is asked, else inference.
  out.memory = out.training_memory ? *out.training_memory : *out.inference_memory;
  const auto check = [&](const std::optional<MemoryReport>& r, const char* what) {
    if (r && !r->fits)
      out.warnings.push_back(
          {"memory.does_not_fit",
           std::string(what) + " needs " + gib(r->per_device.total()) + " per device but " + dev.name +
               " has " + gib(r->capacity) +
               "; more tensor/pipeline parallelism, recomputation or ZeRO would reduce it"});
  };
  check(out.training_memory, "training");
  check(out.inference_memory, "inference");
  return out;
}

}  // namespace optimus
