#include "cost/collective.h"

#include <algorithm>
#include <cmath>

#include "base/math.h"

namespace optimus {

GroupPlacement place_group(std::int64_t size, std::int64_t stride, std::int64_t domain_size) {
  GroupPlacement g;
  g.size = size;
  if (size <= 1) return g;
  // Members one stride apart: a domain of D devices holds max(1, D/stride) of them.
  const std::int64_t per = std::max<std::int64_t>(1, domain_size / std::max<std::int64_t>(1, stride));
  g.per_domain = std::min(size, per);
  g.domains = ceil_div(size, g.per_domain);
  return g;
}

namespace {

// Bytes each rank sends on the critical path, and sequential steps, of the ring algorithm.
struct RingTerms {
  double bytes_factor;
  double steps;
};

RingTerms ring_terms(Collective c, double p, AllToAll a2a) {
  switch (c) {
    case Collective::all_to_all:
      // Pairwise on a switched tier: every peer's message is in flight at once (DeepEP's and
      // HybridEP's kernels post to all peers together), so the exchange pays one step's latency,
      // not one per peer: DeepEP's low-latency dispatch of 128 tokens takes 173 us at EP 64 and
      // 194 us at EP 256 (README, H800 over 400 Gb/s RDMA), the 12% being the larger remote share
      // of the bytes ((P - 8) / P), where a latency per peer would have added 192 of them.
      return a2a == AllToAll::ring ? RingTerms{(p - 1.0) / 2.0, p - 1.0} : RingTerms{(p - 1.0) / p, 1.0};
    case Collective::all_reduce:
      return {2.0 * (p - 1.0) / p, 2.0 * (p - 1.0)};
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return {(p - 1.0) / p, p - 1.0};
    case Collective::p2p:
      return {1.0, 1.0};
  }
  return {1.0, 1.0};
}

// `moved` bytes in `steps` sequential steps at `bw` per device: the faster of the tier's
// bandwidth-optimised protocol (`eff` of the link, bulk_latency per step) and its latency-optimised
// one (ll_efficiency, latency per step), as NCCL picks.
Seconds protocol_time(double moved, double steps, double bw, double eff, const NetworkTier& tier) {
  const double bulk = moved / (bw * eff) + steps * tier.bulk_latency.value;
  const double ll = moved / (bw * tier.ll_efficiency) + steps * tier.latency.value;
  return Seconds(std::min(bulk, ll));
}

// The efficiency of an all-to-all on `tier` (its fitted MoE dispatch share where it has one).
double all_to_all_efficiency(const NetworkTier& tier) {
  return tier.all_to_all_efficiency > 0 ? tier.all_to_all_efficiency : tier.efficiency;
}

}  // namespace

Seconds ring_time(Collective c, Bytes size, std::int64_t ranks, const NetworkTier& tier) {
  if (ranks <= 1 && c != Collective::p2p) return Seconds(0);
  if (size.value <= 0) return Seconds(0);
  const RingTerms r = ring_terms(c, static_cast<double>(ranks), tier.all_to_all);
  const double moved = r.bytes_factor * size.value;
  const double bw = tier.bandwidth_for(c == Collective::p2p ? 2 : ranks).value;
  // A measured sweep covers groups that reach the tier's full rate (the whole domain); a mesh
  // subgroup limited to fewer direct links uses the protocol model on those links.
  const auto& table = tier.allreduce_busbw;
  const bool table_applies = bw >= tier.bandwidth.value;
  const double eff = c == Collective::all_to_all ? all_to_all_efficiency(tier) : tier.efficiency;
  const Seconds modelled = protocol_time(moved, r.steps, bw, eff, tier);
  if (c == Collective::all_reduce && table_applies && !table.empty() && size.value >= table.front().first) {
    // nccl-tests bus bandwidth: time = 2(P-1)/P * S / busbw, at the sweep's own group size.
    double busbw = table.back().second;
    for (std::size_t i = 1; i < table.size(); ++i) {
      if (size.value <= table[i].first) {
        const double x0 = std::log(table[i - 1].first), x1 = std::log(table[i].first);
        const double f = x1 > x0 ? (std::log(size.value) - x0) / (x1 - x0) : 1.0;
        busbw = table[i - 1].second + f * (table[i].second - table[i - 1].second);
        break;
      }
    }
    // The sweep's own group (allreduce_busbw_ranks: every preset's ran on one 8-GPU node).
    const double p = static_cast<double>(tier.allreduce_busbw_ranks);
    const double swept = 2.0 * (p - 1.0) / p * size.value / busbw;
    if (ranks == tier.allreduce_busbw_ranks) return Seconds(swept);
    // Another group size: the sweep's time scaled by the protocol model's ratio of this group to
    // the sweep's. Bus bandwidth is independent of the ranks only where bandwidth binds; the
    // latency a ring pays grows with its steps, so the 8-GPU sweep's 1 MiB row (40 GB/s busbw,
    // latency-bound) had set a 2-GPU group's all-reduce at 8 GPUs' latency from 1 MiB on, while
    // smaller ones took the model's: a step in the decode time there (+16% at one more sequence,
    // Qwen2.5-7B at tp 2) and H100's tp 2 decode slower than H800's, which has no sweep.
    const RingTerms at = ring_terms(c, p, tier.all_to_all);
    const Seconds swept_model = protocol_time(at.bytes_factor * size.value, at.steps, bw, eff, tier);
    return Seconds(swept * modelled.value / swept_model.value);
  }
  return modelled;
}

Seconds moe_all_to_all_time(Bytes size, double copies, bool dedupe, const GroupPlacement& g,
                            const SystemSpec& sys) {
  if (!dedupe || !g.crosses_scale_out() || copies <= 0)
    return collective_time(Collective::all_to_all, size, g, sys);
  const double n = static_cast<double>(g.domains);
  const double remote = (n - 1.0) * (1.0 - std::pow(1.0 - 1.0 / n, copies));
  const double moved = size.value / copies * remote;
  const NetworkTier& out = sys.scale_out;
  const double steps = out.all_to_all == AllToAll::ring ? n - 1.0 : 1.0;  // see ring_terms
  const Seconds inside = ring_time(Collective::all_to_all, size, g.per_domain, sys.scale_up);
  return max(inside, protocol_time(moved, steps, out.bandwidth_for(g.domains).value,
                                   all_to_all_efficiency(out), out));
}

Seconds one_shot_all_reduce_time(Bytes size, const GroupPlacement& g, const SystemSpec& sys) {
  const NetworkTier& link = sys.scale_up;
  const double p = static_cast<double>(g.size);
  const double rate = link.bandwidth_for(g.size).value * link.efficiency;
  const Seconds sync = sys.software.custom_allreduce_latency;
  const Seconds one_stage = sync + Seconds((p - 1.0) * size.value / rate);
  // The same kernels' two-stage form for larger messages (vLLM csrc/custom_all_reduce.cuh,
  // cross_device_reduce_2stage, which SGLang's sgl-kernel carries: one stage below 256 KiB on 8
  // GPUs, 512 KiB on up to 4, two above): each rank reduces its 1/P slice from every peer, then
  // gathers the other slices, 2 (P - 1) / P x bytes over its links in two synchronised stages.
  const Seconds two_stage = sync * 2.0 + Seconds(2.0 * (p - 1.0) / p * size.value / rate);
  return min(one_stage, two_stage);
}

Seconds collective_time(Collective c, Bytes size, const GroupPlacement& g, const SystemSpec& sys) {
  if (c == Collective::p2p)
    return ring_time(c, size, 2, g.crosses_scale_out() ? sys.scale_out : sys.scale_up);
  if (g.size <= 1) return Seconds(0);
  if (!g.crosses_scale_out()) return ring_time(c, size, g.size, sys.scale_up);
  const std::int64_t k = g.per_domain;
  const std::int64_t n = g.domains;
  const Bytes shard = size / static_cast<double>(k);
  switch (c) {
    case Collective::all_reduce:
      return ring_time(Collective::reduce_scatter, size, k, sys.scale_up) +
             ring_time(Collective::all_reduce, shard, n, sys.scale_out) +
             ring_time(Collective::all_gather, size, k, sys.scale_up);
    case Collective::all_gather:
    case Collective::reduce_scatter: {
      // NCCL runs these as one ring over all P ranks (no tree for them): of its P - 1 steps,
      // N - 1 cross the scale-out network and P - N stay inside a domain, each paying that tier's
      // per-step latency (NCCL src/graph/tuning.cc: nsteps = nRanks - 1, nInterSteps = nNodes - 1,
      // latency (nsteps - nInterSteps) x intraLat + nInterSteps x interLat). The bytes are the
      // hierarchical ones: the shard S/k over the NIC, (k - 1)/k of S over the scale-up links.
      if (k <= 1) return ring_time(c, shard, n, sys.scale_out);
      const NetworkTier& in = sys.scale_up;
      const double kd = static_cast<double>(k);
      const double intra_steps = static_cast<double>(g.size - n);
      return ring_time(c, shard, n, sys.scale_out) + protocol_time((kd - 1.0) / kd * size.value, intra_steps,
                                                                   in.bandwidth_for(k).value, in.efficiency,
                                                                   in);
    }
    case Collective::all_to_all: {
      // Of the S bytes a rank sends, (k-1)/P stay in its domain and (P-k)/P leave it, in P-k
      // messages over its own NIC.
      const double p = static_cast<double>(g.size);
      const double kd = static_cast<double>(k);
      const Seconds inside = ring_time(c, size * (kd / p), k, sys.scale_up);
      const NetworkTier& out = sys.scale_out;
      const double moved = size.value * (p - kd) / p;
      const double steps = out.all_to_all == AllToAll::ring ? p - kd : 1.0;  // see ring_terms
      return max(inside, protocol_time(moved, steps, out.bandwidth_for(g.domains).value,
                                       all_to_all_efficiency(out), out));
    }
    case Collective::p2p:
      break;
  }
  return Seconds(0);
}

}  // namespace optimus
