// Time of a collective over a group placed on the network hierarchy.
// Ring algorithms (Patarasuk & Yuan 2009; Thakur, Rabenseifner & Gropp 2005), per device
// with S bytes, P ranks, per-direction bandwidth BW and per-step latency alpha:
//   all-reduce      2(P-1)/P * S/BW + 2(P-1) alpha
//   all-gather      (P-1)/P * S/BW + (P-1) alpha   (S = gathered output size)
//   reduce-scatter  (P-1)/P * S/BW + (P-1) alpha   (S = input size)
//   point-to-point  S/BW + alpha
//   all-to-all      pairwise exchange (Thakur, Rabenseifner & Gropp 2005, Sec. 4.5): P-1 steps,
//                   each sending S/P to one partner: (P-1)/P * S/BW + (P-1) alpha, for tiers with
//                   a switch (every pair connected); ring (each step forwards the blocks still
//                   in transit to the next neighbour): (P-1)/2 * S/BW + (P-1) alpha
//                   (S = the bytes each rank sends, its own share included)
// BW is the tier's rate for a group of P (NetworkTier::bandwidth_for): the per-device link rate
// on a switched tier, at most (P-1) direct links on a fully connected mesh (AMD xGMI).
// A group spanning several scale-up domains runs hierarchically: reduce-scatter inside the
// domain, the cross-domain collective on S/k per device over its own NIC, all-gather inside
// (NCCL's tree/ring hierarchy; Calculon, SC'23, Sec. 3.3). All-gather and reduce-scatter, which
// NCCL runs as one ring over all P ranks, pay P - N per-step latencies inside the N domains and
// N - 1 across them (NCCL src/graph/tuning.cc), on the same bytes.
// Each tier reaches only part of its link rate: a bandwidth-optimised protocol (fraction
// `efficiency`, per-step latency `bulk_latency`) and a latency-optimised one (fraction
// `ll_efficiency`, per-step `latency`); NCCL picks the faster, and so do we.
#pragma once

#include <cstdint>

#include "base/comm.h"
#include "base/units.h"
#include "hardware/spec.h"

namespace optimus {

// Which network tier a communication group runs on. Ranks are laid out Megatron-style,
// tensor-parallel fastest, then context, data and pipeline parallel (Megatron-LM
// `--rank-order tp-cp-ep-dp-pp`), so a group with stride `stride` and `size` members
// spans stride*size consecutive ranks.
struct GroupPlacement {
  std::int64_t size = 1;
  std::int64_t per_domain = 1;  // members sharing one scale-up domain
  std::int64_t domains = 1;     // scale-up domains the group spans
  bool crosses_scale_out() const { return domains > 1; }
};

GroupPlacement place_group(std::int64_t size, std::int64_t stride, std::int64_t domain_size);

Seconds collective_time(Collective c, Bytes size, const GroupPlacement& g, const SystemSpec& sys);

// An inference runtime's one-shot all-reduce inside one scale-up domain (TensorRT-LLM's custom
// all-reduce, vLLM's, SGLang's, PyTorch's IntraNodeComm): every rank reads the other ranks'
// buffers over the scale-up links and sums them in one kernel, a fixed synchronisation cost plus
// (P - 1) x bytes at the link rate (SoftwareDefaults::custom_allreduce_*); larger messages in the
// kernels' two-stage form (reduce-scatter then all-gather through the same buffers, twice the
// synchronisation, 2 (P - 1) / P x bytes), whichever is faster.
Seconds one_shot_all_reduce_time(Bytes size, const GroupPlacement& g, const SystemSpec& sys);

// All-to-all over a group spanning several scale-up domains: the share for peers inside the
// domain moves on the scale-up links while the share for other domains crosses the scale-out
// NIC at the same time (as DeepEP's and NCCL's hierarchical all-to-all kernels do); the slower
// of the two sets the time.
// MoE dispatch or combine of `size` bytes per rank holding `copies` routed copies of each token.
// With DeepEP-style node deduplication a token crosses the scale-out network once per remote
// domain holding one of its experts, (n-1)(1 - (1 - 1/n)^copies) domains on average for
// uniformly spread experts over n domains, and is forwarded over the scale-up links there;
// without it every copy bound for another domain crosses it (collective_time).
Seconds moe_all_to_all_time(Bytes size, double copies, bool dedupe, const GroupPlacement& g,
                            const SystemSpec& sys);

// One tier, P ranks, no hierarchy.
Seconds ring_time(Collective c, Bytes size, std::int64_t ranks, const NetworkTier& tier);

}  // namespace optimus
