// Which element-wise operators a software stack runs as chains of PyTorch primitives instead of
// fused kernels: what the model's operator graph (model/graph.cpp, unfuse_elementwise) needs to
// know of it. Which ones a stack leaves unfused is hardware/spec.h's SoftwareDefaults.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "base/enums.h"

namespace optimus {

// attn_norm: the norm before attention (and MLA's latent norms on the attention path); mlp_norm:
// the norm before the MLP; final_norm: the norm before the output layer; activation: the FFN's
// (gated) activation; rope: the rotary embedding of queries and keys; dropout_add: dropout beside
// the residual add (training). Stacks fuse some and not others: nanotron's Qwen2 model of 2025
// runs the post-attention norm as a Triton kernel but the input norm as LlamaRMSNorm's primitives
// and SwiGLU as act(gate) * up (src/nanotron/models/qwen.py).
OPTIMUS_ENUM_AS(ElementwiseOp, std::uint8_t, attn_norm, mlp_norm, final_norm, activation, rope, dropout_add);
// A set of those operators, one bit each.
using ElementwiseSet = std::uint8_t;
constexpr ElementwiseSet elementwise_bit(ElementwiseOp o) {
  return static_cast<ElementwiseSet>(1u << static_cast<unsigned>(o));
}
inline constexpr ElementwiseSet kAllElementwise = 0x3f;  // every operator above

}  // namespace optimus
