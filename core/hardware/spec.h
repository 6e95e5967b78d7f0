// Where it runs: a device (one accelerator) and a system (devices, nodes, network tiers).
// Values are SI; io/ converts the presets' unit-named keys. Every calibrated value in a
// preset carries the data it was fitted on (presets/README.md).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "base/precision.h"
#include "base/units.h"
#include "model/attention.h"
#include "model/elementwise.h"

namespace optimus {

// A thread-block tile of a tensor-core GEMM kernel (rows x columns of the output).
struct GemmTile {
  std::int64_t m, n;
};

// Board power and how the draw follows the work (run/run.cpp device_power_w). tdp 0 = not stated.
struct DevicePower {
  double tdp_w = 0;             // board power limit (TDP / TBP), the vendor datasheet's
  double idle_fraction = 0.14;  // draw with the device loaded but idle, share of TDP
  // Share of the dynamic range (TDP - idle) drawn while memory-bound kernels and communication
  // run; compute-bound kernels draw all of it. ASSUMED (no public per-phase measurement found).
  double memory_activity = 0.6;
  double communication_activity = 0.3;
  double price_usd = 0;  // purchase price of one device, for the capital form of economics; 0 = unknown
};

struct DeviceSpec {
  std::string name;
  std::string source;
  DevicePower power;
  // Dense peak math rate per precision, indexed by Precision; 0 = not supported natively.
  std::array<FlopRate, kPrecisionCount> peak{};
  // Vector (non-tensor-core) rate for element-wise math; rarely binding.
  FlopRate vector_peak{};
  // Special-function (exp) throughput, ops/s: softmax's exponentials inside fused attention
  // run on these units, not the tensor cores (Shah et al. 2024, FlashAttention-3, Sec. 3.1:
  // 3.9 T exp/s on H100 SXM5 vs 989 TFLOP/s of matmul). 0 = not modelled.
  double exp_rate = 0;
  Bytes hbm_capacity{};
  Bandwidth hbm_bandwidth{};
  Bytes l2_capacity{};
  Bandwidth l2_bandwidth{};
  std::int64_t compute_units = 1;  // SMs / CUs: the unit of wave quantization
  // Whether the 4-bit units apply NVFP4's scales (an E4M3 scale per 16 elements, NVIDIA's
  // Blackwell block-scaled MMA). CDNA4 (MI355X) applies the OCP MX scales only (E8M0 per 32:
  // AMD's CDNA 4 ISA, MFMA with scaled MXFP8 / MXFP6 / MXFP4), so nvfp4 there has no native rate.
  bool nvfp4_scales = true;

  // Calibration (each documented in the preset with what it was fitted on).
  double matmul_efficiency = 0.85;    // best-shape achieved fraction of peak (MAMF), 16/32-bit
  double matmul_efficiency_8bit = 0;  // the same for fp8/int8/int4 GEMMs; 0 = as 16-bit
  // Sustained fraction of the short-benchmark matmul rate in long, power-limited runs (board
  // power caps the clock under continuous dense math); 1 = the benchmark rate holds.
  double sustained_ratio = 1.0;
  double memory_efficiency = 0.85;  // achieved fraction of HBM bandwidth, streaming kernels
  // The HBM rate a streaming kernel achieves (bytes/s): peak x memory_efficiency.
  double streaming_rate() const { return hbm_bandwidth.value * memory_efficiency; }
  double tile_overhead_k = 128;   // per-tile pipeline fill + epilogue, in K elements
  Seconds kernel_overhead{4e-6};  // launch + tail per kernel
  // The GEMM library's kernels (cost/roofline.cpp): the thread-block tiles it picks from (the
  // best per shape, as cuBLAS / CUTLASS heuristics try to), and split-K: up to split_k_max
  // slices of K, each at least split_k_min_k deep, while tiles x slices stay within
  // split_k_max_waves waves of the compute units. Defaults: the CUTLASS 2.x/3.x tensor-core tile
  // configurations for Ampere and Hopper (cutlass/library default_gemm_configuration and the
  // cuBLASLt heuristics' common tiles), split-K as cuBLASLt's heuristic uses it.
  std::vector<GemmTile> gemm_tiles = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64}};
  std::int64_t split_k_max = 16;
  std::int64_t split_k_min_k = 256;
  double split_k_max_waves = 2;
  // Whether the library also runs work-balanced (stream-K) GEMMs: the tiles' K iterations dealt
  // out evenly over the compute units, the last partial wave shared instead of run as a wave
  // (cost/roofline.cpp). Off: the wave model alone.
  bool stream_k = false;

  FlopRate peak_for(Precision p) const { return peak[static_cast<std::size_t>(p)]; }
};

// The device's rate for matmuls in `p` (hardware/math_rate.cpp): its own units', else the fastest
// wider format's with a rate (e.g. fp8 on an A100 runs at the fp16 rate), else the vector units;
// `used` is the format whose rate it is, `fallback` whether that is not p's own native rate.
struct MathRate {
  FlopRate rate{};
  Precision used = Precision::bf16;
  bool fallback = false;
};
MathRate math_rate(const DeviceSpec& d, Precision p);

// How an all-to-all runs on a tier (cost/collective.h): pairwise exchange on switched tiers
// (NVSwitch, InfiniBand fat trees: every pair connected), ring where links only join neighbours.
OPTIMUS_ENUM(AllToAll, pairwise, ring);

// A network tier: per-device, per-direction link bandwidth and a per-hop latency, plus the
// achieved fraction of that bandwidth that collectives reach (NCCL bus bandwidth / link rate).
struct NetworkTier {
  Bandwidth bandwidth{};
  std::int64_t domain_size = 1;  // devices reachable on this tier without leaving it
  // Collective protocol terms (cost/collective.h): bandwidth-optimised protocol reaches
  // `efficiency` of the link with `bulk_latency` per ring step; latency-optimised protocol
  // reaches `ll_efficiency` with `latency` per step.
  // Defaults for a tier that states only its bandwidth and latency (io/json_io.cpp reads them
  // from here; bulk_latency defaults to twice the latency).
  double efficiency = 0.8;
  double ll_efficiency = 0.1;
  Seconds latency{3e-6};
  Seconds bulk_latency{default_bulk_latency(latency)};
  static constexpr Seconds default_bulk_latency(Seconds latency) { return Seconds(2.0 * latency.value); }
  // Measured all-reduce bus bandwidth on this tier (bytes, B/s), ascending in size, from an
  // nccl-tests style sweep over the whole domain. When present it replaces the protocol model
  // for all-reduces at sizes inside the sweep (interpolated in log size), because NCCL's
  // mid-size behaviour (channel counts, protocol switches) is not captured by two protocols.
  std::vector<std::pair<double, double>> allreduce_busbw;
  // The devices of the group that sweep ran on: a group of another size takes the sweep's time
  // scaled by the protocol model's ratio of its own time to that group's (cost/collective.cpp).
  // Every preset's sweep ran on one 8-GPU node (validation collectives.csv; the presets' notes).
  std::int64_t allreduce_busbw_ranks = 8;
  AllToAll all_to_all = AllToAll::pairwise;
  // Achieved fraction of the link bandwidth in MoE token dispatch and combine (all-to-all with
  // many small messages; fitted per system on DeepEP / HybridEP measurements); 0 = `efficiency`.
  double all_to_all_efficiency = 0;
  // Direct link to each peer of a fully connected mesh, per direction (AMD's xGMI: every GPU of an
  // 8-GPU platform has one link to each of the 7 others); 0 = a switched tier (NVSwitch, a NIC
  // into a switch), where any group of the tier reaches `bandwidth`.
  Bandwidth peer_link{};
  // Bandwidth a collective among `ranks` devices of this tier can use per device. On a mesh a
  // device reaches each of its ranks - 1 partners over one direct link only, so the group gets
  // (ranks - 1) x peer_link at most: a pair one link, all 8 of an xGMI platform the full rate
  // (AMD CDNA 3 white paper, Infinity Fabric; the shared collectives.csv measures it: MI300X
  // all-reduce of 4 GiB, 47.7 GB/s bus bandwidth on 2 GPUs against 312.9 on 8).
  Bandwidth bandwidth_for(std::int64_t ranks) const {
    if (peer_link.value <= 0 || ranks < 2) return bandwidth;
    return Bandwidth(std::min(bandwidth.value, static_cast<double>(ranks - 1) * peer_link.value));
  }
};

OPTIMUS_ENUM(MoeDispatcher, alltoall, deepep, allgather);

// The kernels an inference runtime runs block-scaled FP8 GEMMs with (inference.fp8_block_scaled)
// on a device whose tensor cores take no block scales (Hopper): DeepGEMM (deepseek-ai/DeepGEMM,
// which the engine's matmul roofline reproduces within 12%: tests/validation/data/
// kernels_deepgemm.csv) or CUTLASS-based kernels, slower at the decode's few rows per expert
// (cutlass_block_fp8_factor, cost/roofline.h).
OPTIMUS_ENUM(BlockFp8Gemm, cutlass, deepgemm);

// How a training stack scales per-tensor fp8 (Transformer Engine's recipes; precision "fp8" only,
// the block-scaled formats compute their scales inside the cast). delayed: the scale comes from
// the amax history of earlier steps, and the cast kernel records this tensor's amax while it
// converts, one pass over the 16-bit tensor (TE DelayedScaling, "FP8 hybrid" in NeMo). current:
// the scale comes from this tensor's own amax, which must be known before any element is
// converted, so a first kernel reads the whole tensor for its amax and the cast reads it again
// (TE Float8CurrentScaling, Megatron-Bridge's "fp8_cs" recipes: Transformer Engine user guide,
// "FP8 current scaling": amax computed "from the current tensor" rather than from history).
OPTIMUS_ENUM(Fp8Scaling, delayed, current);

// What the software stack on this system does by default, when a scenario does not say.
// Measured runs depend on these as much as on the hardware (presets/README.md).
struct SoftwareDefaults {
  // The host's speed relative to the stack as modelled: a calibration's host factor
  // (hardware/calibration.cpp), for host rates that live outside the system (an RL trainer's
  // single-controller rate, core/rl/rl.cpp controller_passes). 1 unless calibrated; not a key.
  double host_speed = 1;
  AttentionKernel attention = AttentionKernel::flash;
  bool overlap_grad_reduce = true;  // DP gradient reduction overlapped with backward
  // Under an 8- or 4-bit training format the linear layers keep the quantised copy of their input
  // for the weight gradient (Transformer Engine, model/graph.cpp finish_elementwise), so the saved
  // activations shrink. false: the 16-bit input is kept and cast again in the backward pass
  // (torchao's Float8Linear saves input_hp).
  bool quantized_saved_inputs = true;
  // Per-tensor fp8 scaling (Fp8Scaling): current scaling reads each cast tensor once more for its
  // amax (cost/op_timer.cpp quantise_cast).
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;
  // Sequence-parallel all-gathers / reduce-scatters split into chunks and overlapped with the
  // adjacent GEMM (Transformer Engine userbuffers, Megatron-core `tp_comm_overlap`).
  bool tp_comm_overlap = false;
  // Whether that overlap also runs when the matmuls are in a 4-bit format (NVFP4, MXFP4). The
  // one published 4-bit training stack does not: every NVFP4 performance recipe of
  // Megatron-Bridge (25.11-26.02; Llama 3 8B/70B and 3.1 405B on B200, B300, GB200, GB300) sets
  // comm_overlap.tp_comm_overlap = False while its FP8 and MXFP8 twins keep it on, so the
  // sequence-parallel collectives are exposed.
  bool tp_comm_overlap_fp4 = false;
  // Host time to issue one kernel in an eager inference runtime (kernels launched one by one
  // from the host, not replayed from a captured CUDA graph). A decode step's kernels are short,
  // so the host, not the GPU, sets the pace of every kernel shorter than this: each costs
  // max(GPU time, launch interval). Zero = no host bound (graph replay). Fitted on the public
  // inference rows by scripts/fit_launch_interval.py (presets/systems/*.json notes).
  Seconds launch_interval{0};
  // Inference runtimes reduce small tensor-parallel messages inside one scale-up domain with
  // their own one-shot kernel instead of NCCL's ring (TensorRT-LLM's custom all-reduce, also in
  // vLLM and SGLang; FasterTransformer's CUSTOM_AR): every rank reads the other ranks' buffers
  // over NVLink and sums them in one kernel, so the time is a fixed synchronisation cost plus
  // (P - 1) x bytes at the link rate. Applied to inference all-reduces of at most this many
  // bytes within one domain (0 = NCCL only), whichever of the two is faster.
  double custom_allreduce_max_bytes = 0;
  Seconds custom_allreduce_latency{6e-6};
  // MoE token dispatcher: Megatron-Core's all-to-all (every routed copy of a token crosses the
  // network to its expert's rank) or DeepEP / HybridEP ("flex"; DeepSeek's DeepEP README): a token
  // crosses the scale-out network once per destination node and is forwarded over NVLink there.
  // allgather (inference under attention data parallelism): every rank of the expert group
  // gathers all the group's tokens before its experts and reduce-scatters their outputs after
  // (TensorRT-LLM's PyTorch backend, tensorrt_llm/_torch/modules/fused_moe: "enable_alltoall:
  // whether to enable alltoall instead of allgather/reducescatter", which it enables only on a
  // multi-node NVLink domain, MnnvlMemory.supports_mnnvl(), with more ep ranks than top_k).
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  // Inference: the all-to-all dispatch carries each token quantised to the experts' input format
  // with its scales, where the experts multiply in an 8- or 4-bit float format (fp8: 1 + 4/128
  // bytes a channel; mxfp8, nvfp4, mxfp4 at their own size); the combine returns 16-bit outputs.
  // DeepEP's normal and low-latency kernels dispatch FP8 with one fp32 scale per 128 channels
  // (deepseek-ai/DeepEP README, "FP8 dispatching and BF16 combining"; DeepSeek-V3, arXiv
  // 2412.19437 Sec. 3.3.2: activations quantised to FP8 before the dispatch), as SGLang's and
  // vLLM's DeepEP paths run it for block-scaled FP8 experts; SGLang fused NVFP4 quantisation into
  // DeepEP's dispatch for NVFP4 experts (LMSYS blog 2025-09-25, GB200 part II: "halving the
  // required network traffic"). Off: the 16-bit activations cross the network (vLLM's all-gather /
  // reduce-scatter backend, TensorRT-LLM's all-gather on HGX).
  bool quantized_dispatch = false;
  // Host time per operator a training framework issues (Python, PyTorch dispatch and Transformer
  // Engine around each kernel; an expert GEMM counts once per local expert, as TE's GroupedLinear
  // issues one GEMM per expert). It binds only in a dropless MoE layer: the layer copies its
  // per-expert token counts to the host to size the dispatch (Megatron-Core's token dispatchers),
  // so the host cannot run ahead of the GPU and issues the layer's kernels while the GPU waits:
  // each pass of such a layer takes max(GPU time, operators x this). Zero = never host-bound.
  // Fitted per modelled operator (not per real kernel) by scripts/fit_training_host.py --expert-us
  // 10 on the Megatron-Bridge and DGX Cloud MoE rows (train_moe_public.jsonl), with the further
  // expert GEMMs at the measured 10 us (below) and the GB200 / GB300 presets' stacks capturing
  // attention, the router and the dispatch preprocessing in CUDA graphs (training_cuda_graphs,
  // their recipes): 320 us (best per system 260-360 us), the set's mean error 13.7% -> 11.6% in
  // sample, 11.8% with each source's value fitted on the others (DGX Cloud v25.02 13.1% -> 4.0%,
  // Megatron-Bridge 25.09 20.6% -> 21.3%, 25.11 18.5% -> 18.6%, 26.02 12.3% -> 11.4%, 26.02.01
  // 11.0% -> 10.1%). The DGX Cloud Grok-1 part of that gain may be for the wrong reason: its
  // recipe pads the experts to capacity (no token-count sync), which the cases do not state; on
  // the 90 Megatron-Bridge rows alone 13.8% -> 13.1%, where 320 us is also the best value. A
  // modelled operator stands for several real kernels and the Python around them (fused norms,
  // casts, bias and dropout kernels, router auxiliaries, the dispatcher's permutations and its
  // token-count copy); stacks that issue less per operator state their own (scattermoe,
  // nemo-automodel: 100 us); docs/moe-training.md.
  Seconds training_launch_interval{320e-6};
  // Host time for each further local expert's GEMM inside one grouped expert operator: the
  // framework issues the operator once (training_launch_interval) and the grouped-GEMM call
  // then launches one GEMM per local expert from C++ (Transformer Engine's GroupedLinear loops
  // over cuBLAS calls, with a torch.empty per GEMM for its output: TransformerEngine issue 1499).
  // 10 us, measured, not fitted: Transformer Engine's fused grouped MLP on GB200 with 64 experts
  // spends about 1.2 ms of host time in the forward (two GEMMs per expert) and 2.1 ms in the
  // backward (four), 8-9 us per expert GEMM, its fixed costs included (TransformerEngine issue
  // 2897, April 2026). The MoE rows cannot fix it themselves: at 300-325 us per operator their
  // error is flat from 0 to 20 us (scripts/fit_training_host.py --expert).
  Seconds training_expert_gemm_interval{10e-6};
  // The training stack captures attention, the router and the dispatch preprocessing in CUDA
  // graphs (Megatron-Core cuda_graph_scope attn, moe_router, moe_preprocess; the Megatron-Bridge
  // GB200/GB300 recipes), so only the expert part of a MoE layer is issued from the host.
  bool training_cuda_graphs = false;
  // Host time the device waits after each pipeline point-to-point exchange. Megatron-LM's
  // pipeline schedules (and Megatron-DeepSpeed's, and Megatron-Core's batched p2p with
  // batch_p2p_sync, its default when overlap_p2p_comm is off) call torch.cuda.synchronize()
  // after every batch_isend_irecv "to protect against race condition": the host stops running
  // ahead, and the device idles from the exchange until the host has issued the next step's first
  // kernels (Python scheduling, get_batch, the first operators' dispatch). Once per exchange on
  // the pipeline's critical path, 2 (v m + p - 1) per iteration. Zero = the host runs ahead.
  // Fitted for the A100 systems (Megatron-LM 2021-22); the H100-and-later systems keep 0, as
  // nothing there measures it (their recipes mostly interleave with the exchange overlapped).
  Seconds pipeline_sync{0};
  // MoE dispatch and combine overlapped with another micro-batch's computation (DeepSeek-V3's
  // DualPipe, arXiv 2412.19437 Sec. 3.2.1: the forward chunk of one micro-batch and the backward
  // chunk of another run together, so the all-to-all hides behind computation; Megatron-Core's
  // overlap_moe_expert_parallel_comm does the same for 1F1B). The communication kernels keep
  // ep_comm_sm_share of the SMs busy meanwhile (DeepSeek-V3 Sec. 3.2.2: 20 of the H800's 132
  // SMs), so a pass of a MoE layer takes the longer of its computation on the other SMs,
  // kernels / (1 - share), and its communication.
  bool ep_comm_overlap = false;
  double ep_comm_sm_share = 20.0 / 132.0;
  // Computation that runs beside a data-parallel collective (a ZeRO-3 / FSDP parameter
  // all-gather prefetched during the previous layer, gradient buckets reduced during the
  // backward pass) is slower than alone: the NCCL kernels hold SMs (24 of an H100's 132 for an
  // all-gather) and share the HBM bandwidth. Lee et al. 2025 ("Characterizing Compute-
  // Communication Overlap in GPU-Accelerated Distributed Deep Learning", arXiv 2507.03114)
  // measure a computational slowdown of 18.9% on average (40% at most) over GPT and LLaMA
  // training on A100 and H100 (and MI250/MI210). The hidden part H of the data-parallel traffic
  // therefore costs H x s / (1 + s) of extra computation: the work done beside it, H / (1 + s) at
  // the unslowed rate, takes H instead. 0 = no contention.
  double dp_overlap_slowdown = 0.189;
  // ZeRO-3 collectives per layer and pass: each all-gather and each gradient reduce-scatter of a
  // layer pays the ring latency once. PyTorch FSDP: 1 (one flat parameter per wrapped block,
  // Zhao et al. 2023, arXiv 2304.11277, Sec. 3.2). DeepSpeed ZeRO-3 fetches per submodule: one
  // coalesced all-gather per module's parameters plus one per prefetch of the next
  // stage3_prefetch_bucket_size (5e7) elements (deepspeed/runtime/zero/partitioned_param_coordinator.py,
  // fetch_sub_module), so a layer whose weight matrices each exceed the bucket is gathered
  // matrix by matrix.
  double zero3_layer_collectives = 1;
  // ZeRO-3 under full recompute: the recomputed forward gathers a layer's weights again, and a
  // matrix stays gathered for its backward only while fewer than this many parameter elements are
  // used in between (DeepSpeed stage3_max_reuse_distance, default 1e9 in v0.3.13 through today's
  // releases: deepspeed/runtime/zero/constants.py); the others are gathered a third time
  // (parallel/zero3.h). 0 = the recompute's gather serves the backward (PyTorch FSDP: a
  // checkpointed block is gathered once for its recompute and backward).
  double zero3_max_reuse_elements = 0;
  // ZeRO-3 gradients reduce-scattered one parameter tensor at a time, every bias and norm weight
  // its own collective paying the ring's latency (DeepSpeed v0.3.13 - v0.5.10
  // partition_parameters.py _reduce_scatter_gradients: one torch.distributed.reduce_scatter per
  // parameter; v0.6.0 coalesces a bucket into one). false = zero3_layer_collectives per layer.
  bool zero3_reduce_per_tensor = false;
  // ZeRO-3 fetches synchronise the device and one prefetch is in flight (DeepSpeed v0.3.13 -
  // v0.5.10, parallel/zero3.h zero3_synced_exposure): a gather hides only behind the submodules
  // since the previous one, and the gradient reduce-scatters behind none after their own. false =
  // all data-parallel traffic hides behind the whole pass.
  bool zero3_fetch_sync = false;
  // ZeRO-3 releases a layer's gathered weights after its forward and gathers them again for its
  // backward (PyTorch FSDP's reshard_after_forward, its default and torchtitan's; DeepSpeed
  // ZeRO-3). false: the forward's gather is kept until the layer's backward, so a micro-batch
  // gathers each layer once, and at the start of the backward every layer of the stage holds its
  // whole 16-bit weights (FSDP2 fully_shard(reshard_after_forward=False): NeMo AutoModel's MoE
  // parallelizer default, nemo_automodel/components/moe/parallelizer.py).
  bool zero3_reshard_after_forward = true;
  // The share of the device's matmul rate (its calibrated rate: MAMF ratio x sustained ratio) that
  // this training stack's kernels reach. A stack calibration, fitted on the stack's own published
  // runs and documented in its profile (presets/software/*.json); 1 = the kernels the device
  // presets were calibrated with (Megatron-LM / NeMo on the A100 / H100 rows). It scales every
  // training matmul, the attention matmuls included; memory-bound kernels, communication and
  // inference (whose runtimes bring their own kernels) are not touched.
  double training_matmul_share = 1.0;
  // The same for an inference runtime's GEMMs (prefill, and decode where a GEMM is compute-bound):
  // the share of the device's calibrated matmul rate its kernels reach. Memory-bound GEMMs
  // (decode's weight streaming), attention, element-wise kernels and communication are not
  // scaled. Fitted per runtime on its own published static-batch rows by
  // scripts/fit_inference_share.py (presets/software/*.json notes); 1 = the device's rate.
  double inference_matmul_share = 1.0;
  // The inference runtime keeps a KV cache, so a decode step runs one new token per sequence.
  // Without one (Megatron-LM's 2021 generation loop, Hugging Face generate with use_cache=False)
  // every step recomputes the whole context so far.
  bool kv_cache = true;
  // The decode attention kernel runs one query head per thread block, so each query head reads
  // its group's keys and values on its own: a GQA/MQA cache is read heads / kv_heads times per
  // step, as if it were multi-head. TensorRT-LLM's masked multi-head attention kernel before its
  // XQA kernel (v0.8; NVIDIA's XQA blog, Jan 2024: XQA "reduc[es] data loading" and gives 2.4x
  // the Llama-70B throughput on one H200), and runtimes that expand the cache to every query head
  // before attention (gpt-fast's and Hugging Face's repeat_interleave / repeat_kv).
  bool decode_kv_per_query_head = false;
  // The KV cache manager keeps a windowed layer's cache (model.attention.window) for the whole
  // context, as for a global layer, while the layer's attention still reads its window alone:
  // TensorRT-LLM unless kv_cache_config.max_attention_window lists the windows (KvCacheConfig's
  // default None sizes every layer for the longest sequence; per-window pools, "VSWA", form only
  // from a list of more than one window, TensorRT-LLM PR #5933), vLLM with its hybrid KV cache
  // manager off (vllm/v1/kv_cache_interface.py FullAttentionSpec: "sliding window attention are
  // regarded as full attention in KV cache manager (blocks are allocated for all tokens), while
  // computed as sliding window attention in model runner"). false: a windowed layer caches at
  // most its window.
  bool windowed_layers_full_kv = false;
  // Under attention data parallelism a rank's MoE buffers are sized for its group's tokens, not
  // its own: TensorRT-LLM's PyTorch backend sets moe_max_num_tokens to max_num_tokens x dp_size
  // when it is not given (tensorrt_llm/_torch/model_config.py, ModelConfig.__post_init__), and its
  // MoE workspace holds top_k rows of every such token (memory/footprint.cpp). The memory this
  // takes while the runtime profiles its largest step is not left to the KV cache. false: a
  // rank's MoE buffers hold its own tokens' rows (SGLang divides its prefill chunk over the DP
  // ranks; vLLM runs the gathered tokens through its MoE in chunks of VLLM_MOE_DP_CHUNK_SIZE a rank).
  bool moe_group_workspace = false;
  // Normalisation, gated activation, rotary embedding and dropout + residual run as fused kernels
  // (Megatron-LM's fused RMSNorm / LayerNorm, bias-SwiGLU and bias-dropout-add, Transformer
  // Engine, the inference runtimes). false: each is a chain of PyTorch primitives, one kernel per
  // primitive with its own pass over memory, as Hugging Face's eager Llama code writes them
  // (transformers modeling_llama.py: LlamaRMSNorm casts to fp32, squares, averages, scales by
  // rsqrt, casts back and multiplies by the weight; LlamaMLP multiplies act_fn(gate) by up;
  // apply_rotary_pos_emb computes q * cos + rotate_half(q) * sin). model/graph.cpp,
  // unfuse_elementwise, gives the traffic and kernel counts.
  bool fused_elementwise = true;
  // With fused_elementwise, the operators the stack still writes as primitives (ElementwiseOp),
  // for stacks that fuse some and not others; fused_elementwise false means all of them.
  ElementwiseSet unfused_elementwise = 0;
  // The operators this stack runs as primitives: all of them without fused_elementwise.
  ElementwiseSet unfused_operators() const {
    return fused_elementwise ? unfused_elementwise : kAllElementwise;
  }
  // Inference kernels that absorb their element-wise neighbours (with fused_elementwise):
  // - fused_residual_norm: each residual add and the normalisation after it are one kernel that
  //   reads x and the residual and writes the new residual and the normalised output, 4e bytes
  //   per element against 3e + 2e in two kernels (vLLM's and SGLang's fused_add_rms_norm).
  // - rope_in_attention: for decoding sequences the rotary embedding is applied inside the
  //   attention kernel (with the QKV bias and the KV-cache write), not as a kernel of its own;
  //   prompt tokens keep the kernel that rotates them and writes the cache (TensorRT-LLM's gpt_attention:
  //   docs/source/advanced/gpt-attention.md, "Rotary Positional Embedding": it "is fused with
  //   other operations"; its generation kernels take rotary_embedding_dim in
  //   FusedQKVMaskedAttentionDispatchParams, cpp/tensorrt_llm/common/attentionOp.cpp).
  // Training graphs are not changed by them.
  bool fused_residual_norm = false;
  // - fused_attention_residual_norm: only the residual add after attention and the MLP's norm are
  //   one kernel; the first norm of a layer and the final norm keep their own kernels
  //   (FasterTransformer's GPT decoder: invokeGeneralLayerNorm, then after attention
  //   invokeGeneralAddBiasResidualPreLayerNorm, then after the MLP invokeAddBiasResidual;
  //   src/fastertransformer/models/multi_gpu_gpt/ParallelGptDecoder.cc, v5.0 onwards, and the
  //   context decoder beside it). Implied by fused_residual_norm.
  bool fused_attention_residual_norm = false;
  bool rope_in_attention = false;
  // Inference: prompt attention (the context phase's QK^T and PV) runs in fp8 at the device's fp8
  // rate when the KV cache is fp8 and the weights are 8 bits or fewer (TensorRT-LLM's FP8 context
  // FMHA: `use_fp8_context_fmha` in its engine builds, switched on by the PyTorch runtime for an
  // fp8 cache, TensorRT-LLM issue #12877; vLLM's FlashAttention-3 backend does the same with an
  // fp8 cache, docs/features/quantization/quantized_kvcache.md). false: 16-bit attention
  // (attention_precision). Decode attention, bound by reading the cache, is unchanged.
  bool fp8_context_attention = false;
  // Inference: prompt attention runs unfused, as three kernels that keep the score matrix in HBM
  // (a batched QK^T GEMM writing every score of the full square, a masked softmax reading and
  // writing them, a batched PV GEMM reading them), between three layout kernels (QKV bias and head
  // split, K and V into the cache's layout, heads merged back; cost/op_timer.cpp): FasterTransformer's GPT
  // context phase up to v5.0 (GptContextAttentionLayer.cc) and Hugging Face's and Megatron-LM's eager
  // attention. The training kernel (attention) is a separate choice. Decode attention is unchanged.
  bool unfused_context_attention = false;
  // Inference: the kernels of block-scaled FP8 GEMMs on a device without block-scaled tensor-core
  // instructions (BlockFp8Gemm). Default cutlass: TensorRT-LLM's only MoE backend for FP8
  // checkpoints on H100 / H200 (docs/source/deployment-guide/quick-start-recipe-for-deepseek-r1-
  // on-trtllm.md, "MoE Backend Support Matrix"); deepgemm for a runtime built on DeepGEMM.
  BlockFp8Gemm block_fp8_gemm = BlockFp8Gemm::cutlass;
  // Storage widths of the training stack, bytes per element or per parameter (mixed-precision
  // training with Adam as Megatron-LM and NeMo run it, Korthikanti et al. 2022 Sec. 2: 16-bit
  // weights 2 + fp32 gradients 4 + fp32 master weights, momentum and variance 12 = 18 bytes per
  // parameter; Transformer Engine keeps bf16 weights and activations under fp8 training).
  // fp32/tf32 training keeps 4-byte weights and activations in the kernels and no master copy.
  double activation_bytes = 2;  // activations written by kernels and kept for backward
  double weight_bytes = 2;      // model weights (the 16-bit copy the kernels read)
  double gradient_bytes = 4;    // main gradients (fp32 accumulation, Megatron-LM default)
  // Width of the gradients in ZeRO-2/3's reduce-scatter (and hybrid sharding's cross-group
  // all-reduce); 0 = gradient_bytes. DeepSpeed reduces the 16-bit gradients (2); PyTorch FSDP
  // reduces in its mixed-precision policy's reduce_dtype.
  double zero_reduce_bytes = 0;
  double master_weight_bytes = 4;    // fp32 master weights beside 16-bit ones
  double optimizer_state_bytes = 8;  // Adam momentum and variance in fp32
  // Fused Adam step: fp32 master weight, gradient, momentum and variance read and written plus
  // the 16-bit copy written, with gradient-norm clipping (~34 bytes and ~12 FLOPs per parameter).
  double optimizer_step_bytes = 34;
  double optimizer_step_flops = 12;
};

// What a whole run on the system meets besides its steps (run/run.h): failures, restarts,
// checkpoint storage and the power of everything in a node that is not a device.
struct SystemOperations {
  // Job-interrupting failures per device and hour; absent = not known (no failures in the point
  // estimate, the run's band widened to the highest published rate, run/run.h).
  std::optional<double> failures_per_device_hour;
  Seconds restart{600};  // from a failure to training again
  Bandwidth checkpoint_write_per_node{25e9};
  Bandwidth checkpoint_write_total{0};  // the storage system's ceiling; 0 = none
  // Asynchronous checkpoint saves: training blocks only while each device copies its part of the
  // state to host memory; the write to storage overlaps the steps that follow (run/run.h).
  bool checkpoint_async = false;
  double node_overhead_w = 0;  // CPUs, memory, NICs, fans, switch share per node
  // A share of the modelled steady-state step rate stated by the scenario (the steps take ideal /
  // share); absent = the modelled rate. No preset carries one since issue 37: a fleet-average
  // discount on every run is not a mechanism, and what is not modelled widens the band instead.
  std::optional<double> production_efficiency;
  double failure_rate() const { return failures_per_device_hour.value_or(0.0); }
};

struct SystemSpec {
  std::string name;
  std::string source;
  std::string device_id;
  DeviceSpec device;
  std::int64_t devices_per_node = 8;
  NetworkTier scale_up;   // NVLink / NVSwitch domain
  NetworkTier scale_out;  // InfiniBand / Ethernet, bandwidth per device
  // Device <-> host memory copy rate per device and direction (PCIe, NVLink-C2C), for activations
  // offloaded to host memory (parallel.offload_layers); 0 = not stated.
  Bandwidth host_link{};
  SoftwareDefaults software;
  SystemOperations operations;
};

}  // namespace optimus
