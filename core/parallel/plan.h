// How it is split: what follows from a scenario's parallel layout (scenario/layout.h) for the
// model it runs: the pipeline's stage split, the layer shapes one device sees, the checks.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/graph.h"
#include "model/spec.h"
#include "scenario/scenario.h"

namespace optimus {

// Transformer layers on the most loaded pipeline stage. Layers split evenly over pp*interleave
// model chunks; when they do not, Megatron-LM can count the embedding and the loss as one layer
// each (`--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split`), so
// (layers + 2) split evenly and the first and last stages hold one layer less per end
// (e.g. Llama 3.1 405B: 126 layers over pp*v = 64 chunks of 2 slots). Returns layers/pp when
// the split is even.
double stage_layers(const ModelSpec& m, const ParallelPlan& p);
// Whether the plan relies on that embedding/loss-as-a-layer split.
bool uneven_pipeline_split(const ModelSpec& m, const ParallelPlan& p);
// Whether the plan uses the split of a run that trains MTP modules (ModelSpec::mtp_trained): each
// chunk layers + 1 + 2 x modules slots over the chunks, the last chunk's last slots the modules
// (two each) and the loss (one), as Megatron-Bridge lays DeepSeek-V3 out.
bool mtp_pipeline_split(const ModelSpec& m, const ParallelPlan& p);
// Whether the layers fit the chunks only unevenly, with neither split (a custom layout: the
// busiest stages hold ceil(layers / pp), stage_kinds says which).
bool balanced_pipeline_split(const ModelSpec& m, const ParallelPlan& p);
// Layers of each kind (model/spec.h kind_of: MoE or dense FFN, windowed or global attention) on
// the first, the heaviest middle (most MoE layers) and the last pipeline stage, for the layout's
// chunks (interleave) and the embedding/loss split. A model of one kind has its whole stage_layers
// count (one less on the end stages under the split) in that kind.
struct StageKinds {
  KindCounts first{}, mid{}, last{};
  std::int64_t mid_index = 0;  // the middle stage counted (0 when pp <= 2)
};
StageKinds stage_kinds(const ModelSpec& m, const ParallelPlan& p);
// Layers of each kind on pipeline stage `stage` (0 to pp - 1).
KindCounts stage_kinds_at(const ModelSpec& m, const ParallelPlan& p, std::int64_t stage);
// The stages whose device can hold the memory peak, each once with its layers of each kind: the
// first (the most micro-batches in flight, the embedding), the second (a model whose first
// layers are dense, as DeepSeek-V3's three, holds fewer weights on the first), the middle stage
// stage_kinds counts (the first with the most layers) and the last (the LM head).
std::vector<std::pair<std::int64_t, KindCounts>> peak_stages(const ModelSpec& m, const ParallelPlan& p);
// Expert-data-parallel replicas: tp x cp x dp / (ep x etp).
std::int64_t expert_dp(const ParallelPlan& p);

// Whether `layers` fill pp x interleave model chunks only with that split (not evenly, but
// layers + 2 evenly, with at least one transformer layer left on each end stage).
bool uneven_chunk_split(std::int64_t layers, std::int64_t pp, std::int64_t interleave = 1);

// The layer as one device of this layout sees it. Training: one micro-batch of seq_len/cp query
// tokens per sequence over seq_len keys, with the stack's activation widths (4-byte kernels for
// fp32/tf32 training). The embedding and head shapes are the same object.
LayerShape training_layer_shape(const Scenario& s, AttentionKernel attention);

// The format a training step runs in on `d`: a quantised training format (fp8, the block-scaled
// and 4-bit ones) without its own native rate there is trained in the narrow float format its
// matmuls fall back to (nvfp4 or mxfp8 on Hopper: fp8), else in 16 bits (bf16, or fp16 where only
// it has a rate): no stack casts to a format the device's matrix units cannot take (Transformer
// Engine's fp8 needs Hopper or Ada), so no cast kernels and no 8-bit saved inputs. Otherwise the
// format as stated.
Precision training_format(const DeviceSpec& d, Precision p);
// Inference splits the experts over the tp ranks: ep of them by expert, tp / ep within one.
std::int64_t inference_expert_tp(const ParallelPlan& p);
// Attention data parallelism in inference (tp 1, ep > 1 dividing dp): each of ep data-parallel
// ranks runs attention and the dense layers on its own sequences with the whole weights, and the
// MoE layers exchange the routed tokens over the ep group, each rank holding experts / ep experts
// (DeepSeek-V3's decoding deployment, arXiv 2412.19437 Sec. 3.4.2; TensorRT-LLM's
// enable_attention_dp, SGLang's and vLLM's data-parallel attention with expert parallelism).
// Also with tensor-parallel attention (tp > 1, etp 1, ep a multiple of tp whose ep / tp replicas
// divide dp): each replica of tp ranks attends to its own sequences, and the experts span ep / tp
// replicas (vLLM's --data-parallel-size with --tensor-parallel-size > 1 and
// --enable-expert-parallel, whose expert-parallel group is tp x dp ranks, docs.vllm.ai "Expert
// Parallel Deployment"; SGLang's --enable-dp-attention with attention tp = tp / dp > 1).
bool attention_data_parallel(const ParallelPlan& p);
// The replicas one expert group spans under attention data parallelism, which step together:
// ep x etp with tp 1, ep / tp with tensor-parallel attention; 0 without attention data parallelism.
std::int64_t expert_group_replicas(const ParallelPlan& p);
// Lays the runtime's device-sized defaults (ServingSpec::sizing) over `sv` for one server of layout
// `p` on `system`'s devices: their memory, and the tensor-parallel degree the runtime counts, tp
// times the expert group's replicas under attention data parallelism (SGLang's --tp counts them:
// --tp 8 --dp 8 --enable-dp-attention).
void size_serving(ServingSpec& sv, const SystemSpec& system, const ParallelPlan& p);
// Inference: experts split over the tp ranks (ep by expert, tp / ep within one), no sequence
// parallelism, the workload's activation and KV widths; groups are set per step.
LayerShape inference_layer_shape(const Scenario& s, std::int64_t position_rows);
// A shape for parameter counts only (tp, pp, ep and etp split; no tokens).
LayerShape param_shape(const ParallelPlan& p, std::int64_t position_rows);

// Checks a layout against the model, the workloads and the device count. Returns the first
// problem found, with the JSON Pointer of the key to change.
std::optional<Error> validate_plan(const Scenario& s);

// Micro-batches per iteration per data-parallel replica: B / (dp * b).
std::int64_t micro_batches(const ParallelPlan& p, const TrainingWorkload& w);

// The data-parallel ranks one copy of the ZeRO state is sharded over: zero_shard when hybrid
// sharding is set, else all dp x cp replicas of the dense weights.
inline std::int64_t zero_shard_ranks(const ParallelPlan& p) {
  return p.zero_shard > 0 ? p.zero_shard : p.dp * p.cp;
}
// The copies of the ZeRO state across the data-parallel ranks: 1 without hybrid sharding.
inline std::int64_t zero_replicas(const ParallelPlan& p) { return p.dp * p.cp / zero_shard_ranks(p); }

}  // namespace optimus