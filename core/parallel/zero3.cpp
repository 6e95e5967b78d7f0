#include "parallel/zero3.h"

#include <algorithm>

namespace optimus {

// The layer's parameter tensors as Megatron-LM's GPT layer (and DeepSpeed's Megatron fork) holds
// them: ParallelAttention's fused query_key_value and dense Linear, ParallelMLP's
// dense_h_to_4h and dense_4h_to_h (the gated FFN's two input projections fused, as
// Megatron-LM's swiglu does), the biases (when the model has them) and two norms (LayerNorm: weight and
// bias; RMSNorm: weight) apart, as small tensors.
Zero3Layer zero3_layer(const ModelSpec& m) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  const double h = d(m.hidden);
  const double hd = d(m.head_dim > 0 ? m.head_dim : (m.heads > 0 ? m.hidden / m.heads : 0));
  const double q = d(m.heads) * hd;
  const double kv = d(m.kv_heads > 0 ? m.kv_heads : m.heads) * hd;
  const double ffn_in = d(m.ffn_hidden) * (m.ffn_type == FfnType::swiglu ? 2.0 : 1.0);
  const double b = m.bias ? 1.0 : 0.0;
  Zero3Layer l;
  l.matrices = {h * (q + 2.0 * kv), q * h, h * ffn_in, d(m.ffn_hidden) * h};
  const double norm_tensors = m.norm == NormType::layernorm ? 2.0 : 1.0;
  l.small_tensors = 4.0 * b + 2.0 * norm_tensors;
  l.small_elements = b * (q + 2.0 * kv + h + ffn_in + h) + 2.0 * norm_tensors * h;
  return l;
}

// DeepSpeed v0.3.13 deepspeed/runtime/zero/stage3.py, PartitionedParameterCoordinator.
// release_sub_module: a module's parameters are partitioned again after its forward unless
// _keep_for_later, i.e. get_reuse_distance_in_numel (the elements of the parameters of every
// module traced between this step and the module's next use) < max_reuse_distance_in_numel.
// v0.6.0 partitioned_param_coordinator.py __params_to_release applies the same test.
Zero3Regather zero3_recompute_regather(const Zero3Layer& layer, double max_reuse_elements) {
  Zero3Regather r;
  const double total = layer.matrix_elements();
  if (max_reuse_elements <= 0 || total <= 0) return r;
  double later = 0;  // elements of the matrices after j in forward order
  for (int j = 3; j >= 0; --j) {
    if (2.0 * later >= max_reuse_elements) {
      r.share += layer.matrices[static_cast<std::size_t>(j)] / total;
      r.matrices += 1.0;
      r.released[static_cast<std::size_t>(j)] = true;
    }
    later += layer.matrices[static_cast<std::size_t>(j)];
  }
  return r;
}

double zero3_synced_exposure(const std::vector<Zero3Module>& cycle) {
  const std::size_t n = cycle.size();
  std::vector<std::size_t> syncs;  // submodules that wait for their own gather
  for (std::size_t i = 0; i < n; ++i)
    if (cycle[i].gather > 0) syncs.push_back(i);
  double compute = 0;
  for (const Zero3Module& m : cycle) compute += m.compute;
  if (syncs.empty()) {
    // Nothing gathered: each reduce-scatter still waits for the one before it.
    double comm = 0, t = 0;
    for (const Zero3Module& m : cycle) {
      t += m.compute;
      comm = std::max(comm, t) + m.reduce;
    }
    return std::max(0.0, comm - compute);
  }
  double total = 0;
  for (std::size_t k = 0; k < syncs.size(); ++k) {
    const std::size_t begin = syncs[k];
    const std::size_t next = syncs[(k + 1) % syncs.size()];
    const std::size_t len = next > begin ? next - begin : next + n - begin;  // one sync: the whole cycle
    double t = 0, comm = cycle[next].gather;
    for (std::size_t i = 0; i < len; ++i) {
      const Zero3Module& m = cycle[(begin + i) % n];
      t += m.compute;
      if (m.reduce > 0) comm = std::max(comm, t) + m.reduce;
    }
    total += std::max(t, comm);
  }
  return std::max(0.0, total - compute);
}

}  // namespace optimus
