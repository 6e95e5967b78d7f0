// ZeRO-3 parameter traffic that follows from a layer's tensors: which weight matrices DeepSpeed
// gathers a third time under full recompute, and how many tensors a per-tensor gradient
// reduction reduce-scatters one by one. Read from DeepSpeed's code (docs/zero3.md).
#pragma once

#include <array>
#include <vector>

#include "model/spec.h"

namespace optimus {

// One dense transformer layer as ZeRO-3 sees it: its four weight matrices in forward order (fused
// QKV, output projection, FFN input (up and gate when gated), FFN output), and its small tensors (biases and
// norm weights), which DeepSpeed keeps gathered (stage3_param_persistence_threshold 1e5 elements) but still
// reduces one by one.
struct Zero3Layer {
  std::array<double, 4> matrices{};  // weight elements
  double small_tensors = 0;          // biases and norm weights and biases (count)
  double small_elements = 0;         // their elements
  double tensors() const { return 4.0 + small_tensors; }
  double matrix_elements() const { return matrices[0] + matrices[1] + matrices[2] + matrices[3]; }
};
Zero3Layer zero3_layer(const ModelSpec& m);

// Under full recompute the recomputed forward gathers a layer's matrices again, and its
// post-forward hook keeps a matrix gathered for the backward only when fewer than
// `max_reuse_elements` parameter elements are used before the backward uses it again
// (DeepSpeed stage3_max_reuse_distance, default 1e9): for matrix j those are the later matrices
// twice, 2 x sum_{i > j} n_i (recomputed forward, then their backward, which runs in reverse).
// The others are released and gathered a third time. 0 = never released (one gather serves the
// recompute and the backward).
struct Zero3Regather {
  double share = 0;                // share of the layer's matrix elements gathered again
  double matrices = 0;             // how many matrices (collectives) per layer
  std::array<bool, 4> released{};  // which, in Zero3Layer::matrices order
};
Zero3Regather zero3_recompute_regather(const Zero3Layer& layer, double max_reuse_elements);

// DeepSpeed v0.3.13 - v0.5.10 synchronise the device at every fetch (stage3.py fetch_sub_module ->
// _synchronize_communication: handle.wait(), comm_stream.synchronize(), torch.cuda.synchronize())
// and prefetch only when nothing is in flight (prefetch_next_sub_modules): a submodule whose
// weights must be gathered waits for that gather and for every reduce-scatter launched before,
// and the gather of the next such submodule is issued right after, beside the computation up to
// it. One step of that schedule: submodules in order, each with its computation, the gather it
// needs (0 when its weights are still gathered) and the gradient reduce-scatter its backward
// launches when it ends (0 in a forward).
struct Zero3Module {
  double compute = 0;  // seconds
  double gather = 0;   // seconds
  double reduce = 0;   // seconds
};
// Seconds the schedule adds to the computation over one pass of a cyclic sequence (a layer's
// submodules, repeated layer after layer): the sequence splits into groups, each from a submodule
// that needed a gather up to the next one; a group's gather (the next one's) starts with it, each
// reduce-scatter starts when its submodule ends and after the communication before it (one
// communicator), and the group ends when its computation and its communication have both ended.
double zero3_synced_exposure(const std::vector<Zero3Module>& cycle);

}  // namespace optimus
