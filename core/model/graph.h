// The task graph: one transformer layer's operators on one device, given how the layer is
// split (tensor, sequence and context parallel), for the forward pass; backward and
// recomputation are derived from it by the predict module. Each operator says what it
// computes (matmul shape or element-wise bytes) or communicates (collective and size), not
// how long it takes: timing is cost/'s job.
#pragma once

#include <cstdint>
#include <vector>

#include "base/precision.h"
#include "hardware/spec.h"
#include "model/spec.h"

namespace optimus {

enum class OpKind { matmul, attention, elementwise, comm };
enum class CommGroup { tp, cp, dp, pp };
enum class CommKind { all_reduce, all_gather, reduce_scatter, p2p };

struct Op {
  const char* name = "";
  OpKind kind = OpKind::elementwise;
  // matmul: C[m,n] = A[m,k] B[k,n], `batch` times; B is a weight when `weight` is set.
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool weight = false;
  // attention (fused or not): causal fraction of the score matrix actually computed.
  double causal_fraction = 1.0;
  // elementwise: bytes moved through HBM and vector FLOPs, per forward pass.
  double bytes = 0;
  double flops = 0;
  double backward_bytes = 0;  // attention only: softmax and dropout backward traffic
  // comm
  CommGroup group = CommGroup::tp;
  CommKind comm = CommKind::all_reduce;
  double comm_bytes = 0;
  // recomputed under selective recompute (the attention core, Korthikanti et al. Sec. 5)
  bool selective = false;
};

// How a layer is laid out on one device.
struct LayerShape {
  std::int64_t batch = 1;   // sequences in the micro-batch (or inference batch)
  std::int64_t tokens = 1;  // query tokens per sequence on this device (s / cp, or 1 for decode)
  std::int64_t kv_len = 1;  // keys each query attends to (context length)
  std::int64_t tp = 1;
  bool sequence_parallel = false;
  bool causal = true;  // prefill / training mask; decode attends to all kv_len
  AttentionKernel attention = AttentionKernel::flash;
  double act_bytes = 2;  // activation element size
};

// Forward operators of one decoder layer (Megatron-LM tensor parallel layout, Shoeybi et al.
// 2019 Sec. 3; sequence parallel, Korthikanti et al. 2022 Sec. 4.2.2).
std::vector<Op> layer_forward_ops(const ModelSpec& m, const LayerShape& s);

// Forward FLOPs of one layer as the field counts them for MFU: every matmul including the
// full (unmasked) attention score matrix (Narayanan et al. 2021, Sec. 5.1 / Appendix).
double layer_model_flops(const ModelSpec& m, std::int64_t tokens, std::int64_t kv_len);

// Whether the model's blocks carry dropout (GPT-style pretraining does, Llama-style does not).
inline bool has_dropout(const ModelSpec& m) { return m.norm == NormType::layernorm; }

}  // namespace optimus
