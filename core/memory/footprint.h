// Memory per device: weights, gradients, optimizer state, activations and KV cache of the
// most loaded device (for training the first pipeline stage).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "base/units.h"
#include "model/graph.h"
#include "parallel/plan.h"

namespace optimus {

struct MemoryBreakdown {
  Bytes weights{}, gradients{}, optimizer{}, activations{}, kv_cache{};
  // In host memory, not in total: offloaded activations (parallel.offload_layers) and a host-memory
  // optimizer's state (parallel.optimizer_offload).
  Bytes host{};
  std::int64_t stage = -1;  // training with pp > 1: the pipeline stage (0 = first) this device holds
  Bytes total() const { return weights + gradients + optimizer + activations + kv_cache; }
};

// Parameters held by one device of a pipeline stage: its layers' share under tensor
// parallelism plus the embedding (first stage) and output layer (last stage).
struct StageParams {
  double layers = 0;     // transformer layers' parameters on this device
  double embedding = 0;  // word (+ position) embedding share
  double output = 0;     // LM head share (a copy of the tied embedding when pp > 1)
  double experts = 0;    // routed experts' parameters on this device (sharded over ep x etp)
  double total() const { return layers + embedding + output + experts; }
};
StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, std::int64_t seq_len, bool first,
                         bool last);
// The same from a model graph built for the layout (training_layer_shape or param_shape).
StageParams stage_params(const ModelSpec& m, const ParallelPlan& p, const ModelGraph& g, bool first,
                         bool last);

// Activation bytes one layer keeps for backward, for one micro-batch on one device
// (Korthikanti et al. 2022, arXiv 2205.05198, Sec. 4 and Table 2, generalised to GQA,
// SwiGLU and fused attention).
// `activation_bytes`: the width kept (the software stack's, SoftwareDefaults::activation_bytes).
// The sum of the task graph's saved bytes under the plan's recompute policy.
Bytes layer_activation_bytes(const ModelSpec& m, const ParallelPlan& p, std::int64_t micro_batch,
                             std::int64_t seq_len, AttentionKernel attention, double activation_bytes);

MemoryBreakdown training_memory(const Scenario& s, AttentionKernel attention);
// The saved activations of one micro-batch that parallel.offload_layers moves to host memory and
// back: that many layers at the average layer's bytes (pp is 1: every layer is on the device).
Bytes offloaded_activations(const Scenario& s, const ModelGraph& g);
// With the task graph already built (its attention kernel is in the graph's operators).
MemoryBreakdown training_memory(const Scenario& s, const ModelGraph& g);

// "12.3 GiB": a footprint in messages, to a tenth (past ~1e17 GiB the tenths no longer fit a long
// long; absurd scenarios still get a message).
inline std::string gib_text(Bytes b) {
  const double v = b.value / kGiB;
  if (!(v < 1e17)) return std::to_string(v) + " GiB";
  return std::to_string(static_cast<long long>(v * 10.0 + 0.5) / 10) + "." +
         std::to_string(static_cast<long long>(v * 10.0 + 0.5) % 10) + " GiB";
}

// Device memory the runtime holds before any tensor, which the footprints here do not count: the
// CUDA context with its lazily loaded kernels, 0.47 GiB, and NCCL's communicators once a job spans
// more than one device, 1.45 GiB more (both measured with PyTorch 2.1 on an A100 80GB:
// stas00/ml-engineering @744d01e training/performance/README.md, "Additional GPU memory usage":
// torch.ones(1).cuda() leaves 0.47 GB used; a torch.distributed barrier takes it from 0.55 to 2.00
// GB, "the more GPUs the higher"). The caching allocator's fragmentation comes on top, unmeasured.
// The training layout search and the RL trainer's assumed choices leave it free; predict warns
// (memory.little_headroom) when a stated layout does not.
inline Bytes runtime_reserve(std::int64_t devices) { return gibibytes(0.47 + (devices > 1 ? 1.45 : 0.0)); }
// What a device of `capacity` leaves the job once the runtime's reserve is taken.
inline Bytes usable_capacity(Bytes capacity, std::int64_t devices) {
  return capacity - runtime_reserve(devices);
}
// Whether a per-device `footprint` leaves the runtime's reserve free on a device of `capacity`.
inline bool leaves_runtime_room(Bytes footprint, Bytes capacity, std::int64_t devices) {
  return footprint.value <= usable_capacity(capacity, devices).value;
}

// The warning memory.little_headroom for a `footprint` that fits `capacity` but not beside
// runtime_reserve(devices), naming `what` ("training", "inference") and the `remedies` that would
// make room; none where the reserve stays free. Callers check that the footprint fits first.
inline std::optional<Warning> little_headroom_warning(const std::string& what, Bytes footprint,
                                                      Bytes capacity, std::int64_t devices,
                                                      const std::string& remedies) {
  if (leaves_runtime_room(footprint, capacity, devices)) return std::nullopt;
  return Warning{
      "memory.little_headroom",
      what + " fits with " + gib_text(capacity - footprint) + " of " + gib_text(capacity) +
          " to spare per device, but the CUDA context" +
          (devices > 1 ? " and NCCL's communicators take about " : " takes about ") +
          gib_text(runtime_reserve(devices)) +
          " before any tensor (not counted above), and the allocator's fragmentation more: it may run "
          "out of memory; " +
          remedies + " would make room"};
}

struct InferenceMemory {
  MemoryBreakdown bytes;
  Bytes kv_per_sequence{};  // at full context (prompt_len + output_len)
  // Working activations: under a runtime that prefills in token-budget steps (prefill_budget > 0)
  // those of one step's tokens, `per_token` each, beside each sequence's last-token logits
  // (activation_per_sequence); else every sequence's prompt at once (activation_per_sequence
  // holds its prompt's and its logits).
  Bytes activation_per_sequence{};
  Bytes activation_per_token{};
  std::int64_t prefill_budget = 0;
  // The largest batch whose weights, KV cache and working activations fit in `room` bytes.
  std::int64_t max_batch(double room, std::int64_t prompt_len) const;
};
InferenceMemory inference_memory(const Scenario& s);
// KV-cache bytes of one sequence holding `context` tokens, on one device of an inference
// scenario (windowed layers keep at most `window` of them), with its linear layers' states.
Bytes inference_kv_bytes(const Scenario& s, double context);
// The tokens a windowed layer (model.attention.window) keeps in the KV cache: its window, or 0 (the
// whole context) where the model has none or the runtime keeps every layer's cache whole
// (software.windowed_layers_full_kv). The footprints and the serving KV budget read it.
std::int64_t cached_window(const Scenario& s);

// KV cache bytes per token of context per sequence, on one device: the layers on the stage times
// the task graph's KV bytes per layer (2 (K and V) * kv heads on the rank * head_dim * bytes).
Bytes kv_bytes_per_token(const ModelSpec& m, const ParallelPlan& p, Precision kv_precision);

}  // namespace optimus
