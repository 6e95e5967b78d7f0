// ZeRO-3 parameter traffic that follows from a layer's tensors: which weight matrices DeepSpeed
// gathers a third time under full recompute, and how many tensors a per-tensor gradient
// reduction reduce-scatters one by one. Read from DeepSpeed's code (docs/zero3.md).
#pragma once

#include <array>

#include "model/spec.h"

namespace optimus {

// One dense transformer layer as ZeRO-3 sees it: its four weight matrices in forward order (fused
// QKV, output projection, FFN input (up and gate when gated), FFN output), each with its bias, and
// its small tensors (biases and norm weights), which DeepSpeed keeps gathered
// (stage3_param_persistence_threshold 1e5 elements) but still reduces one by one.
struct Zero3Layer {
  std::array<double, 4> matrices{};  // elements, bias included
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
  double share = 0;     // share of the layer's matrix elements gathered again
  double matrices = 0;  // how many matrices (collectives) per layer
};
Zero3Regather zero3_recompute_regather(const Zero3Layer& layer, double max_reuse_elements);

}  // namespace optimus
