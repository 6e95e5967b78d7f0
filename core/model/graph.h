// The task graph: the operators of one transformer layer on one device (and of the embedding
// and the LM head), given how the layer is split (tensor, sequence and context parallel) and
// which sequences it processes. It is the single description of the model: each operator
// carries what it computes (matmul shape or element-wise bytes), what it communicates and with
// which group, the parameters it owns, the activation bytes it saves for the backward pass under
// each recompute policy, the KV-cache bytes it appends per token and the FLOPs the field counts
// for MFU. Parameter counts, weight/gradient/optimizer memory, activation memory and the KV cache
// are sums over these lists (memory/footprint.cpp, model/spec.cpp); times come from the one
// operator timer (cost/op_timer.h).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "base/comm.h"
#include "base/precision.h"
#include "model/attention.h"
#include "model/elementwise.h"
#include "model/spec.h"

namespace optimus {

enum class OpKind { matmul, attention, elementwise, comm };

// FLA's chunk size: the chunked kernels of linear attention work on blocks of 64 tokens
// (fla-org/flash-linear-attention, fla/ops/gated_delta_rule/chunk.py: chunk_size 64).
inline constexpr std::int64_t kLinearChunk = 64;

// What an operator is in the model, for the rules that depend on it (which matmuls fp8 training
// quantises, which weights stay 16-bit in quantised inference) and for reports.
enum class OpRole {
  embedding,
  norm,
  qkv,
  rope,
  attention,
  attn_out,
  residual,
  ffn_up,
  ffn_act,
  ffn_down,
  router,
  moe_permute,
  expert_up,
  expert_down,
  comm,
  final_norm,
  lm_head,
  loss
};

// Activation recomputation (Korthikanti et al. 2022): none, the attention core only
// (selective), or the whole layer from its input (full).
OPTIMUS_ENUM(Recompute, none, selective, full);

// Megatron-Core's selective recompute modules (TransformerConfig.recompute_modules, with
// recompute_granularity "selective"; default ["core_attn"], the spec's selective). "core_attn",
// "mlp", "moe" and "shared_experts" use normal checkpointing: the module keeps its input and runs
// its forward again in the backward, so its internal activations are not kept. "moe_act",
// "layernorm" and "mla_up_proj" discard their output (CheckpointWithoutOutput): the tensor the
// next operator saved is freed after the forward and refilled by running the module again before
// that operator's backward.
//
// "alternate_matmuls" is torchtitan's op-level selective activation checkpointing
// (activation_checkpoint.selective_ac_option "op", torchtitan/parallelisms/parallelize_llama.py
// @0413364349, April 2024): the outputs of the matmuls (aten.mm) and of the attention kernel are
// saved except every second matmul's, counted afresh in each layer's forward ("Saves output of
// all compute ops, except every second mm"), and every other operator (the point-wise ones) is
// recomputed. In the order the Llama code issues its matmuls (wq, wk, wv, wo, w1, w3, w2; without
// a gate wq, wk, wv, wo, up, down) the second, fourth and sixth run again: the key projection, the
// attention output projection and the FFN's up (w3) or, without a gate, its down projection
// (Op::alternate_share); every element-wise operator of the layer runs again too.
OPTIMUS_ENUM_AS(RecomputeModule, std::uint8_t, core_attn, mlp, moe, shared_experts, moe_act, layernorm,
                mla_up_proj, alternate_matmuls);
// A set of recompute modules, one bit each.
using ModuleSet = std::uint8_t;
constexpr ModuleSet module_bit(RecomputeModule m) {
  return static_cast<ModuleSet>(1u << static_cast<unsigned>(m));
}
constexpr ModuleSet kCoreAttnOnly = module_bit(RecomputeModule::core_attn);

// Activation bytes an operator keeps for its backward pass on one device, under each recompute
// policy (Korthikanti et al. 2022, arXiv 2205.05198, Sec. 4-5 and Table 2).
struct SavedBytes {
  double none = 0, selective = 0, full = 0;
  double under(Recompute r) const {
    return r == Recompute::none ? none : r == Recompute::selective ? selective : full;
  }
};

struct Op {
  const char* name = "";
  OpKind kind = OpKind::elementwise;
  OpRole role = OpRole::comm;
  // matmul: C[m,n] = A[m,k] B[k,n], `batch` times; B is a weight when `weight` is set.
  // attention: m queries and n keys per sequence and head, k = head_dim, batch = sequences x
  // local heads.
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool weight = false;
  std::int64_t sequences = 0;  // attention: sequences in this group
  std::int64_t v_dim = 0;      // attention: value head dim (MLA: differs from the query/key dim k)
  std::int64_t kv_heads = 0;   // attention: local KV heads (GQA/MQA); 0 = a latent shared by all heads (MLA)
  // attention (fused or not): causal fraction of the score matrix actually computed.
  double causal_fraction = 1.0;
  // attention: DeepSeek Sparse Attention's lightning indexer (model/spec.h SparseAttentionSpec):
  // QK^T alone at FP8, no PV and no softmax; `bytes` is its fp32 logits written and read back by
  // the top-k selection.
  bool index_scores = false;
  // attention: linear attention's recurrence (model/spec.h LinearAttentionSpec): m new tokens per
  // sequence through batch = sequences x local value heads, each a k x v_dim state; `bytes` is the
  // states of the group's sequences on this device (read and written once per pass).
  bool recurrent = false;
  // elementwise (and unfused attention's score traffic): bytes moved through HBM and vector
  // FLOPs of the forward pass; the backward runs `backward_kernels` kernels of
  // `backward_bytes` and `backward_flops` each (0 kernels: the forward figures already hold
  // the backward's traffic, or there is none).
  double bytes = 0, flops = 0;
  double backward_bytes = 0, backward_flops = 0, backward_kernels = 1;
  double kernels = 1;  // elementwise: kernels of the forward pass (`bytes` and `flops` in all)
  // comm
  CommGroup group = CommGroup::tp;
  Collective comm = Collective::all_reduce;
  double comm_bytes = 0;
  double copies = 1;  // all-to-all of routed tokens: copies of each token (top_k) in comm_bytes
  // Selective recompute by modules (RecomputeModule): `rerun`, the modules whose recomputation
  // runs this operator's forward again in the backward; `inside`, the checkpointed modules
  // (normal checkpointing) whose internal activations these saved bytes are, none of which is
  // kept; `drops`, the output-discarding modules whose output this operator saved, `dropped` of
  // its saved bytes (0 where it keeps a quantised copy of its own instead: fp8 projections).
  ModuleSet rerun = 0, inside = 0, drops = 0;
  double dropped = 0;
  // A matmul under RecomputeModule::alternate_matmuls: the share of its forward that runs again
  // (the key projection's share of a fused QKV projection, the up half of a fused gate and up).
  double alternate_share = 0;
  // Whether the inference timer costs it (the final norm of an inference step is not timed).
  bool timed = true;

  // Facts about the model on this device.
  double params = 0;       // parameters this operator owns
  bool expert = false;     // routed-expert weights: sharded over ep x etp, gradients over expert-dp
  SavedBytes saved;        // activations kept for the backward pass
  double kv_bytes = 0;     // KV-cache bytes appended per token per sequence
  double state_bytes = 0;  // cache bytes per sequence whatever its length (linear attention's state)
  double model_flops = 0;  // forward FLOPs as MFU counts them (Narayanan et al. 2021, Sec. 5.1)
};

// A group of sequences that go through a step together: each brings `new_tokens` query tokens
// on this device and attends to `kv_len` keys (its context). Training: micro_batch sequences of
// seq_len / cp tokens over seq_len keys; inference prefill: prompts; decode: one token each.
struct SeqGroup {
  std::int64_t sequences = 1;
  std::int64_t new_tokens = 1;
  std::int64_t kv_len = 1;
  bool operator==(const SeqGroup&) const = default;
};

// How a layer is laid out on one device, and what passes through it.
struct LayerShape {
  // One group of sequences (training, a static batch), or a mixed batch owned by the caller
  // (a continuous-batching step), which must outlive the shape's use.
  SeqGroup group{};
  const std::vector<SeqGroup>* mixed = nullptr;
  std::int64_t tp = 1;
  std::int64_t cp = 1;   // context-parallel ranks (ring attention passes K/V blocks between them)
  std::int64_t pp = 1;   // pipeline stages (a tied embedding gets a copy on the last stage)
  std::int64_t ep = 1;   // expert-parallel ranks (MoE layers)
  std::int64_t etp = 1;  // expert tensor-parallel ranks
  // Expert slots over the ep ranks when the deployment holds redundant copies of hot experts
  // (ParallelPlan::expert_slots); 0 = one slot per expert.
  std::int64_t expert_slots = 0;
  // Inference with attention data parallelism and tensor-parallel experts (tp 1, etp > 1): the etp
  // ranks gather each other's tokens before the router and reduce-scatter after the experts
  // (SGLang's DP attention with MoE TP), one copy per token rather than per routed copy.
  bool gather_before_routing = false;
  // Inference with attention data parallelism and whole experts (tp 1, etp 1) whose runtime
  // exchanges tokens by all-gather and reduce-scatter instead of an all-to-all
  // (MoeDispatcher::allgather).
  bool moe_allgather = false;
  // Inference with attention data parallelism over tensor-parallel replicas (tp > 1, experts over
  // ep / tp replicas): the replica's tp ranks hold the same tokens after attention, and each routes
  // a tp-th of them through the expert group; after the combine the replica's ranks gather the
  // rows back (vLLM's sequence-parallel MoE under data parallelism, `use_sequence_parallel_moe`).
  bool moe_token_split = false;
  bool sequence_parallel = false;
  bool causal = true;  // prefill / training mask; decode attends to all kv_len
  AttentionKernel attention = AttentionKernel::flash;
  double act_bytes = 2;  // activation element size of the kernels
  // Element size of the tokens a MoE all-to-all dispatch sends (0 = act_bytes): the experts' 8- or
  // 4-bit input with its scales under SoftwareDefaults::quantized_dispatch (inference_layer_shape);
  // the combine returns the experts' outputs at act_bytes.
  double dispatch_bytes = 0;
  double saved_bytes = 2;  // activation element size kept for backward (software stack)
  // The element size a quantised training format keeps of a projection's input for the weight
  // gradient (Transformer Engine keeps the quantised copy); 0 = saved_bytes.
  double gemm_saved_bytes = 0;
  double kv_elem_bytes = 2;
  std::int64_t position_rows = 0;  // learned position table size (sequence length)
  bool loss = false;               // training: the head computes the loss over every token
  // The element-wise operators run as chains of primitives (SoftwareDefaults::fused_elementwise
  // false: all of them; else SoftwareDefaults::unfused_elementwise).
  ElementwiseSet unfused_elementwise = 0;
  bool fused_residual_norm = false;            // SoftwareDefaults::fused_residual_norm (inference)
  bool fused_attention_residual_norm = false;  // SoftwareDefaults::fused_attention_residual_norm
  bool rope_in_attention = false;              // SoftwareDefaults::rope_in_attention (inference)

  std::span<const SeqGroup> groups() const {
    return mixed ? std::span<const SeqGroup>(*mixed) : std::span<const SeqGroup>(&group, 1);
  }
  // Equal shapes give equal graphs (a search reuses the graph while only other keys change).
  bool operator==(const LayerShape&) const = default;
  std::int64_t tokens() const;     // query tokens on this device, all groups
  std::int64_t sequences() const;  // sequences, all groups
};

// Forward operators of one decoder layer (Megatron-LM tensor parallel layout, Shoeybi et al.
// 2019 Sec. 3; sequence parallel, Korthikanti et al. 2022 Sec. 4.2.2).
std::vector<Op> layer_forward_ops(const ModelSpec& m, const LayerShape& s);
// The embedding lookup (first pipeline stage).
std::vector<Op> embedding_ops(const ModelSpec& m, const LayerShape& s);
// The final norm, the LM head and (training) the loss (last pipeline stage).
std::vector<Op> head_ops(const ModelSpec& m, const LayerShape& s);
// The same, written into `out` (cleared first), reusing its storage in loops.
void layer_forward_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& out);
// The operators layer_forward_ops reserves room for, so that the references its blocks hold stay
// valid: 41, and 2 more a group of sequences (Graph.EveryLayerFitsTheOperatorsReserved holds every
// preset model within it).
inline std::size_t max_layer_ops(const LayerShape& s) { return 41 + 2 * s.groups().size(); }
// A layer of one kind (model/spec.h kind_of: MoE or dense FFN, windowed or global attention).
void layer_forward_ops(const ModelSpec& m, const LayerShape& s, std::size_t kind, std::vector<Op>& out);
// Only the attention cores of a layer of that kind (one per group of sequences), exactly as
// layer_forward_ops emits them: what a step's context-dependent part costs.
void attention_core_ops(const ModelSpec& m, const LayerShape& s, std::size_t kind, std::vector<Op>& out);
void embedding_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& out);
void head_ops(const ModelSpec& m, const LayerShape& s, std::vector<Op>& out);

// The whole model's operators on one device: each kind of layer the model has (repeated on its
// layers of a stage), the embedding (first stage) and the head (last stage). `layer` is the kind
// of the model's first layer; a dense transformer has only that one.
struct ModelGraph {
  std::array<std::vector<Op>, kLayerKinds> kinds;
  std::array<bool, kLayerKinds> present{};
  std::vector<Op> embedding, head;
  const std::vector<Op>& layer() const { return kinds[first]; }
  std::size_t first = 0;
};
ModelGraph model_graph(const ModelSpec& m, const LayerShape& s);

// Forward FLOPs of all the model's layers as the field counts them for MFU: every matmul including
// the full (unmasked) attention score matrix (Narayanan et al. 2021, Sec. 5.1 / Appendix), over
// the window's keys in a sliding-window layer, and a mixture-of-experts layer's top_k routed and
// its shared experts, for one sequence of `tokens` queries over `kv_len` keys; the graph's
// model_flops summed over the layer kinds.
double model_layers_flops(const ModelSpec& m, std::int64_t tokens, std::int64_t kv_len);
// The same for one layer of `kind`.
double layer_model_flops(const ModelSpec& m, std::size_t kind, std::int64_t tokens, std::int64_t kv_len);

// Sums over an operator list.
double sum_params(const std::vector<Op>& ops);
double sum_kv_bytes(const std::vector<Op>& ops);
double sum_state_bytes(const std::vector<Op>& ops);
double sum_saved(const std::vector<Op>& ops, Recompute policy, ModuleSet modules = kCoreAttnOnly);
// The bytes one operator keeps under a policy; under selective recompute `modules` say which
// parts are recomputed (core_attn: the attention core's score tensors, SavedBytes::selective).
double saved_under(const Op& o, Recompute policy, ModuleSet modules);
// Widest matmul output among the layer's QKV and FFN-up projections, elements per token.
double widest_intermediate(const std::vector<Op>& ops);

}  // namespace optimus
