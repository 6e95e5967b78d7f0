// Training iteration time: the task graph of one layer is timed op by op on the device, the
// per-micro-batch stage times are composed along the pipeline schedule, and the data-parallel
// gradient reduction and the optimizer step are added (Kundu et al. 2024, Sec. III-D;
// Narayanan et al. 2021 for the schedule). Each step is one function below: layer_costs (one
// layer, one micro-batch), stage_costs (the pipeline stages), pipeline_schedule, data_parallel,
// optimizer_step and utilisation.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/math.h"
#include "cost/op_timer.h"
#include "model/graph.h"
#include "parallel/zero3.h"
#include "predict/predict.h"

namespace optimus {

namespace {

// Time of one micro-batch on one device, split by cause.
struct PassCost {
  Seconds compute_bound{}, memory_bound{};  // kernels, by which roof binds
  Seconds tp_comm{}, cp_comm{};
  Seconds ep_comm{};  // expert-parallel dispatch/combine and expert-tensor reductions
  Seconds host{};     // the device waiting for the host to issue kernels (dropless MoE layers)
  double flops = 0;
  Seconds kernels() const { return compute_bound + memory_bound; }
  Seconds total() const { return kernels() + tp_comm + cp_comm + ep_comm + host; }
  void add_kernel(const OpCost& c, double times = 1.0) {
    if (c.bound == Bound::compute)
      compute_bound += c.time * times;
    else
      memory_bound += c.time * times;
    flops += c.flops.value * times;
  }
  PassCost& operator+=(const PassCost& o) {
    compute_bound += o.compute_bound;
    memory_bound += o.memory_bound;
    tp_comm += o.tp_comm;
    cp_comm += o.cp_comm;
    ep_comm += o.ep_comm;
    host += o.host;
    flops += o.flops;
    return *this;
  }
  // What was added since `before` (a snapshot of this pass).
  PassCost since(const PassCost& before) const {
    PassCost r;
    r.compute_bound = compute_bound - before.compute_bound;
    r.memory_bound = memory_bound - before.memory_bound;
    r.tp_comm = tp_comm - before.tp_comm;
    r.cp_comm = cp_comm - before.cp_comm;
    r.ep_comm = ep_comm - before.ep_comm;
    r.host = host - before.host;
    r.flops = flops - before.flops;
    return r;
  }
  PassCost scaled(double k) const {
    PassCost r = *this;
    r.compute_bound *= k;
    r.memory_bound *= k;
    r.tp_comm *= k;
    r.cp_comm *= k;
    r.ep_comm *= k;
    r.host *= k;
    r.flops *= k;
    return r;
  }
};

struct LayerCosts {
  PassCost fwd, bwd, recompute;
  Seconds attention_fwd{}, attention_bwd{};
};

// A tensor-parallel collective of the layer, forward and backward. The backward of an
// all-gather is a reduce-scatter of the same size and vice versa; an all-reduce stays an
// all-reduce (Korthikanti et al. 2022, Sec. 4.2.2). With sequence parallelism the backward
// gathers the layer input again for the weight gradient; it is meant to overlap the input-gradient
// GEMM, but their Table 4 shows SP saving 0.5 ms of forward and only 0.1 ms of backward on a 22B
// layer, i.e. the re-gather is effectively exposed. Overlapped (Transformer Engine userbuffers;
// Wang et al., ASPLOS 2023, "Overlap communication with dependent computation via
// decomposition"): the collective is cut into tp chunks that move while the GEMM consuming
// (all-gather) or producing (reduce-scatter) the tensor runs on the other chunks; one chunk
// stays exposed, and whatever outlasts the GEMM.
void add_tp_comm(LayerCosts& L, const OpContext& c, const Op& op, const MatmulCosts* neighbour,
                 bool overlap) {
  const Seconds t = comm_cost(c, op);
  const double bwd_count = op.comm == Collective::all_gather ? 2.0 : 1.0;
  if (!overlap) {
    L.fwd.tp_comm += t;
    L.bwd.tp_comm += t * bwd_count;
    return;
  }
  Seconds gemm_f{}, gemm_b{};
  if (neighbour) {
    gemm_f = neighbour->fwd.time;
    gemm_b = neighbour->dx.time + neighbour->dw.time;
  }
  const double chunks = d(c.group(CommGroup::tp).size);
  L.fwd.tp_comm += max(t / chunks, t - gemm_f);
  L.bwd.tp_comm += max(t * bwd_count / chunks, t * bwd_count - gemm_b);
}

// Context parallel: ring attention passes K and V blocks around the cp ranks, cp-1 steps,
// overlapped with the attention of the block in hand (Liu et al. 2023, ring attention;
// Megatron-core context parallelism); backward also returns dK and dV.
void add_cp_ring(LayerCosts& L, const OpContext& c, const Op& op) {
  const double cp = d(c.group(CommGroup::cp).size);
  const Seconds step = comm_cost(c, op);
  const double steps = cp - 1.0;
  L.fwd.cp_comm += max(Seconds(0), step - L.attention_fwd / cp) * steps;
  L.bwd.cp_comm += max(Seconds(0), step * 2.0 - L.attention_bwd / cp) * steps;
}

// Operators the host issues in each pass of a dropless MoE layer: one per operator, each
// backward kernel of it too; an expert GEMM is one operator plus one further GEMM launch per
// other local expert that receives tokens (Transformer Engine's GroupedLinear issues one GEMM per
// expert from C++: SoftwareDefaults::training_expert_gemm_interval). With the stack's CUDA graphs
// (attention, router, dispatch preprocessing captured) only the expert part is issued one by one.
struct HostIssue {
  double fwd = 0, bwd = 0;              // operators the framework issues
  double fwd_extra = 0, bwd_extra = 0;  // further local experts' GEMMs inside grouped ones
};

HostIssue host_issue(const std::vector<Op>& ops, bool graphs) {
  HostIssue n;
  bool expert_part = false;  // from the permutation to the end of the layer
  for (const Op& op : ops) {
    if (op.role == OpRole::moe_permute) expert_part = true;
    if (graphs && !expert_part) continue;
    // Only matmuls are expert operators (model/graph.cpp: the experts' up and down GEMMs).
    const double extra = op.expert ? std::max(0.0, d(op.batch) - 1.0) : 0.0;
    n.fwd += op.kind == OpKind::elementwise ? op.kernels : 1.0;
    n.fwd_extra += extra;
    if (op.kind == OpKind::matmul) {
      n.bwd += 2.0;  // input and weight gradients
      n.bwd_extra += 2.0 * extra;
    } else if (op.kind == OpKind::elementwise)
      n.bwd += op.backward_kernels;
    else
      n.bwd += 1.0;  // attention backward, a collective reversed
  }
  return n;
}

// One operator's kernels in one pass as training.operators lists them: the pass's GEMMs of a
// matmul (the input and the weight gradients in the backward) and its fp8 casts summed, bound by
// the longest part.
struct OpTally {
  OpCost sum;
  Seconds longest{};
  bool any = false;  // a pass without kernels (a loss whose backward its forward counts) gets no entry
  void add(const OpCost& k, double times = 1.0) {
    sum.time += k.time * times;
    sum.flops += k.flops * times;
    sum.hbm_bytes += k.hbm_bytes * times;
    if (!any || k.time * times > longest) {
      longest = k.time * times;
      sum.bound = k.bound;
    }
    any = true;
  }
};

// Appends the operator's forward and backward entries (count 1: predict_training sets it).
void report_op(std::vector<OperatorReport>* report, const Op& op, const OpTally& fwd, const OpTally& bwd) {
  if (!report) return;
  report->push_back(operator_report(op.name, "forward", fwd.sum, 1));
  if (bwd.any) report->push_back(operator_report(op.name, "backward", bwd.sum, 1));
}

// A matmul's GEMMs (`g`) and, in a quantised format, the casts of their operands (quantise_cast),
// added to the forward and backward passes (the same pass for the embedding and the head).
void add_matmul(PassCost& fwd, PassCost& bwd, const OpContext& c, const Op& op, const MatmulCosts& g,
                bool casts, std::vector<OperatorReport>* report) {
  OpTally f, b;
  const auto to_fwd = [&](const OpCost& k) { fwd.add_kernel(k), f.add(k); };
  const auto to_bwd = [&](const OpCost& k) { bwd.add_kernel(k), b.add(k); };
  to_fwd(g.fwd);
  to_bwd(g.dx);
  to_bwd(g.dw);
  if (casts) {
    to_fwd(quantise_cast(c, d(op.m) * d(op.k) * d(op.batch)));
    to_bwd(quantise_cast(c, d(op.m) * d(op.n) * d(op.batch)));
  }
  report_op(report, op, f, b);
}

// An element-wise operator's forward kernels and its `backward_kernels` backward ones.
void add_elementwise(PassCost& fwd, PassCost& bwd, const OpContext& c, const Op& op,
                     std::vector<OperatorReport>* report) {
  OpTally f, b;
  const OpCost fc = forward_cost(c, op);
  fwd.add_kernel(fc), f.add(fc);
  if (op.backward_kernels > 0) {
    const OpCost bc = elementwise_backward(c, op);
    bwd.add_kernel(bc, op.backward_kernels), b.add(bc, op.backward_kernels);
  }
  report_op(report, op, f, b);
}

// The attention core of the layer, forward and backward (training_attention: fused or with its
// score traffic); `checkpointed`: selective recompute runs its forward again before the backward.
void add_attention(LayerCosts& L, const OpContext& c, const Op& op, AttentionKernel att, bool checkpointed,
                   std::vector<OperatorReport>* report) {
  const TrainingAttention ta = training_attention(c, op, att);
  const AttentionCosts& f = ta.fwd;
  const AttentionCosts& b = ta.bwd;
  L.fwd.add_kernel(f.matmuls);
  L.bwd.add_kernel(b.matmuls);
  if (op.bytes > 0) {
    L.fwd.add_kernel(f.scores);
    L.bwd.add_kernel(b.scores);
  }
  L.attention_fwd += f.matmuls.time + f.scores.time;  // DSA: the indexer, then the attention
  L.attention_bwd += b.matmuls.time + b.scores.time;
  // Checkpointed core attention runs its forward again before the backward, fused or not
  // (Megatron-Core's _checkpointed_attention_forward around the attention kernel): with a
  // fused kernel it keeps little less (no score matrix either way) and still costs the
  // forward, so it is never free beside recompute "none".
  if (checkpointed) {
    L.recompute.add_kernel(f.matmuls);
    if (op.bytes > 0) L.recompute.add_kernel(f.scores);
  }
  if (report) {
    OpTally tf, tb;
    tf.add(f.matmuls), tb.add(b.matmuls);
    if (op.bytes > 0) tf.add(f.scores), tb.add(b.scores);
    report_op(report, op, tf, tb);
  }
}

// The reported operators of one pass from `from` on, on the share `free` of the SMs that the
// overlapped expert communication leaves them (layer_costs' ep_comm_overlap).
void slow_reported(std::vector<OperatorReport>& report, std::size_t from, std::string_view phase,
                   double free) {
  for (std::size_t i = from; i < report.size(); ++i) {
    if (report[i].phase != phase) continue;
    report[i].time = report[i].time / free;
    report[i].achieved_flops_per_s *= free;
  }
}

LayerCosts layer_costs(const OpContext& c, const std::vector<Op>& ops, Recompute rc,
                       double recompute_fraction, ModuleSet modules, AttentionKernel att, bool tp_overlap,
                       const SoftwareDefaults& sw, bool dropless,
                       std::vector<OperatorReport>* report = nullptr) {
  LayerCosts L;
  const std::size_t first_report = report ? report->size() : 0;
  // Each matmul's GEMMs costed once: the overlapped tensor-parallel collectives need the GEMM
  // next to them.
  std::vector<MatmulCosts> gemms(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == OpKind::matmul) gemms[i] = matmul_costs(c, ops[i], true);
  const bool alternate =
      rc == Recompute::selective && (modules & module_bit(RecomputeModule::alternate_matmuls)) != 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    // Selective recompute by modules: an operator of a recomputed module runs its forward (kernels
    // and collectives) once more before the backward (Megatron-Core recompute_modules).
    const bool rerun = rc == Recompute::selective && (op.rerun & modules) != 0;
    const PassCost before = rerun ? L.fwd : PassCost{};
    switch (op.kind) {
      case OpKind::matmul:
        add_matmul(L.fwd, L.bwd, c, op, gemms[i], quantised_training(c.math), report);
        // torchtitan's op-level selective checkpointing reruns part of some matmuls
        // (RecomputeModule::alternate_matmuls, Op::alternate_share).
        if (alternate && !rerun && op.alternate_share > 0)
          L.recompute.add_kernel(gemms[i].fwd, op.alternate_share);
        break;
      case OpKind::attention:
        add_attention(L, c, op, att, rc == Recompute::selective && (modules & kCoreAttnOnly), report);
        break;
      case OpKind::elementwise:
        add_elementwise(L.fwd, L.bwd, c, op, report);
        break;
      case OpKind::comm:
        if (op.group == CommGroup::cp && op.comm == Collective::p2p) {
          add_cp_ring(L, c, op);
        } else if (op.group == CommGroup::cp) {
          // A linear-attention layer's exchange between sequence and head sharding (model/graph.cpp,
          // add_linear_attention): exposed, and again reversed in the backward.
          const Seconds t = comm_cost(c, op);
          L.fwd.cp_comm += t;
          L.bwd.cp_comm += t;
        } else if (op.group == CommGroup::ep || op.group == CommGroup::etp) {
          // Token dispatch and combine (all-to-all) and the expert-tensor reduction run again,
          // reversed, in the backward; Megatron-Core's default all-to-all dispatcher does not
          // overlap them with compute, so they are exposed.
          const Seconds t = comm_cost(c, op);
          L.fwd.ep_comm += t;
          L.bwd.ep_comm += t;
        } else {
          const std::size_t j = op.comm == Collective::all_gather ? i + 1 : i - 1;
          const bool gemm_next = j < ops.size() && ops[j].kind == OpKind::matmul;
          add_tp_comm(L, c, op, gemm_next ? &gemms[j] : nullptr, tp_overlap);
        }
        break;
    }
    if (rerun) L.recompute += L.fwd.since(before);
  }
  // A dropless MoE layer copies its per-expert token counts to the host before the dispatch
  // (Megatron-Core's token dispatchers size the all-to-all and the grouped GEMM from them), so
  // the host cannot run ahead: it issues the layer's operators while the device waits, and a pass
  // takes max(device time, operators x host time per operator) (the same bound as an eager
  // inference runtime's, SoftwareDefaults::training_launch_interval).
  const bool moe = std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.expert; });
  if (moe && sw.ep_comm_overlap) {
    // Two streams at once (SoftwareDefaults::ep_comm_overlap): the computation on the SMs the
    // communication kernels leave free, and the expert communication; the pass takes the longer.
    // A layer with no expert communication (ep 1: every expert local) launches no communication
    // kernels, so it keeps every SM.
    const double free = 1.0 - sw.ep_comm_sm_share;
    for (PassCost* pass : {&L.fwd, &L.bwd}) {
      if (pass->ep_comm.value <= 0) continue;
      pass->compute_bound = pass->compute_bound / free;
      pass->memory_bound = pass->memory_bound / free;
      pass->ep_comm = max(Seconds(0), pass->ep_comm - pass->kernels());
      if (report) slow_reported(*report, first_report, pass == &L.fwd ? "forward" : "backward", free);
    }
  }
  if (moe && dropless && sw.training_launch_interval.value > 0) {
    const HostIssue n = host_issue(ops, sw.training_cuda_graphs);
    const auto issue = [&](double operators, double extra) {
      return sw.training_launch_interval * operators + sw.training_expert_gemm_interval * extra;
    };
    L.fwd.host = max(Seconds(0), issue(n.fwd, n.fwd_extra) - L.fwd.total());
    L.bwd.host = max(Seconds(0), issue(n.bwd, n.bwd_extra) - L.bwd.total());
  }
  // Full recompute runs each checkpointed layer's forward again before its backward (Korthikanti
  // et al. 2022, Section 4); with a fraction of the layers checkpointed, that share of it.
  if (rc == Recompute::full) L.recompute = L.fwd.scaled(recompute_fraction);
  return L;
}

// The embedding (first stage) or the LM head and loss (last stage): forward and backward of each
// operator in turn.
PassCost end_costs(const OpContext& c, const std::vector<Op>& ops,
                   std::vector<OperatorReport>* report = nullptr) {
  PassCost r;
  for (const Op& op : ops) {
    // No operand casts are charged to the embedding's and the head's GEMMs.
    if (op.kind == OpKind::matmul) add_matmul(r, r, c, op, matmul_costs(c, op, true), false, report);
    if (op.kind == OpKind::elementwise) add_elementwise(r, r, c, op, report);
  }
  return r;
}

// A pipeline stage: its forward+backward kernels and communication, and its recomputation.
struct Stage {
  PassCost pass, rc;
  Seconds total() const { return pass.total() + rc.total(); }
};

struct StageCosts {
  Stage worst;
  Seconds average{};                     // mean stage time, for the fill and drain
  KindCounts layers{};                   // the worst stage's layers of each kind
  bool embedding = false, head = false;  // whether it holds the embedding, the LM head and loss
};

// The layer costs of each kind of layer the model has (model/spec.h kind_of).
struct KindCosts {
  std::array<LayerCosts, kLayerKinds> kinds;
  std::array<double, kLayerKinds> tokens_per_expert{}, dispatch_bytes{};
  std::array<Seconds, kLayerKinds> all_to_all{};
  std::array<bool, kLayerKinds> present{};
  std::size_t rep = 0;  // the kind with the most layers on a middle stage (reported per layer)
};

// A stage's forward+backward and recomputation: each kind's per-layer cost times its layers
// there. With the embedding/loss-as-a-layer split the first and last stages hold one layer less
// than the middle ones (core/parallel/plan.h, stage_layers, stage_kinds).
Stage stage_of(const KindCosts& L, const KindCounts& n) {
  Stage st;
  bool any = false;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!L.present[k]) continue;
    PassCost body = L.kinds[k].fwd;
    body += L.kinds[k].bwd;
    if (!any) {
      st = Stage{body.scaled(n[k]), L.kinds[k].recompute.scaled(n[k])};
    } else {
      st.pass += body.scaled(n[k]);
      st.rc += L.kinds[k].recompute.scaled(n[k]);
    }
    any = true;
  }
  return st;
}

// The middle stage's forward and backward time of one micro-batch: each kind's layer times its
// layers there.
std::pair<Seconds, Seconds> stage_forward_backward(const KindCosts& L, const KindCounts& n) {
  Seconds f{}, b{};
  bool any = false;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!L.present[k]) continue;
    const Seconds fk = L.kinds[k].fwd.total() * n[k], bk = L.kinds[k].bwd.total() * n[k];
    f = any ? f + fk : fk;
    b = any ? b + bk : bk;
    any = true;
  }
  return {f, b};
}

StageCosts stage_costs(const Scenario& s, const KindCosts& L, const PassCost& first_extra,
                       const PassCost& last_extra) {
  const auto& p = s.parallel;
  const StageKinds sk = stage_kinds(s.model, p);
  Stage mid = stage_of(L, sk.mid);
  Stage first = stage_of(L, sk.first);
  Stage last = stage_of(L, sk.last);
  first.pass += first_extra;
  last.pass += last_extra;
  if (p.pp == 1) first.pass += last_extra;
  const Stage* worst = (p.pp == 1 || first.total() >= last.total()) ? &first : &last;
  if (p.pp > 2 && mid.total() > worst->total()) worst = &mid;
  StageCosts out{*worst, worst->total()};
  out.layers = worst == &first ? sk.first : worst == &last ? sk.last : sk.mid;
  out.embedding = worst == &first;
  out.head = worst == &last || p.pp == 1;
  if (p.pp > 1) out.average = (first.total() + last.total() + mid.total() * (d(p.pp) - 2.0)) / d(p.pp);
  return out;
}

// Pipeline: 1F1B runs m micro-batches at the pace of the slowest stage plus a fill and drain of
// (pp-1)/v stage times (Narayanan et al. 2021, Sec. 2.2: bubble (p-1)/(v m)).
void pipeline_schedule(const Scenario& s, const OpContext& c, const StageCosts& st, double mbd,
                       double act_bytes, TrainingBreakdown& b) {
  const auto& p = s.parallel;
  b.compute = st.worst.pass.kernels() * mbd;
  b.recompute = st.worst.rc.total() * mbd;
  b.tp_comm = st.worst.pass.tp_comm * mbd;
  b.cp_comm = st.worst.pass.cp_comm * mbd;
  b.ep_comm = st.worst.pass.ep_comm * mbd;
  b.host = st.worst.pass.host * mbd;
  b.bubble = p.pp > 1 ? st.average * ((d(p.pp) - 1.0) / d(p.interleave)) : Seconds(0);
  if (p.pp == 1) return;
  // Point-to-point activations (forward) and gradients (backward) between stages, once per
  // micro-batch per model chunk, plus the fill and drain chain. With tp > 1 each rank sends
  // 1/tp of the tensor and the receivers all-gather it over the scale-up domain
  // (Narayanan et al. 2021, Sec. 4.1, scatter/gather optimisation).
  const double T = d(p.micro_batch) * d(s.training->seq_len / p.cp);
  const double h = d(s.model.hidden);
  const double msg = act_bytes * T * h / (p.tp > 1 ? d(p.tp) : 1.0);
  Seconds hop = collective_time(Collective::p2p, Bytes(msg), c.group(CommGroup::pp), s.system);
  if (p.tp > 1)
    hop +=
        collective_time(Collective::all_gather, Bytes(act_bytes * T * h), c.group(CommGroup::tp), s.system);
  const double exchanges = 2.0 * (d(p.interleave) * mbd + d(p.pp) - 1.0);
  b.pp_comm = hop * exchanges;
  // The stack synchronises the device after every exchange (SoftwareDefaults::pipeline_sync):
  // the device waits while the host issues the next step's first kernels.
  b.host += s.system.software.pipeline_sync * exchanges;
}

// What a dense layer's tensors add under ZeRO-3 (parallel/zero3.h, docs/zero3.md): the matrices a
// full recompute's forward releases before their backward are gathered a third time, each matrix
// one collective (into `regather`); a per-tensor gradient reduction reduce-scatters every bias and
// norm weight on its own, latency-bound collectives beside the matrices' (whose bytes
// zero3_layer_collectives already carries), once per micro-batch (into `each`). Returns what a
// synchronised fetch schedule (zero3_fetch_sync) exposes over the micro-batches, 0 without it.
Seconds zero3_layer_traffic(const Scenario& s, const OpContext& c, const LayerCosts& L,
                            const StageParams& params, double layers_stage, double weight_bytes,
                            double zero_reduce, double mbd, Seconds& regather, Seconds& each) {
  const auto& p = s.parallel;
  const auto& sys = s.system;
  const GroupPlacement& shard = c.group(CommGroup::zero_shard);
  if (p.zero_stage != 3 || shard.size <= 1 || s.model.moe || layers_stage <= 0) return Seconds(0);
  const Zero3Layer layer = zero3_layer(s.model);
  const double per_layer = params.layers / layers_stage;  // this rank's elements of one layer
  const double scale =
      layer.matrix_elements() > 0 ? per_layer / (layer.matrix_elements() + layer.small_elements) : 0;
  const Zero3Regather released = zero3_recompute_regather(layer, sys.software.zero3_max_reuse_elements);
  if (p.recompute == Recompute::full && released.matrices > 0) {
    const double units_rc = layers_stage * p.recompute_fraction * released.matrices;
    const Bytes bytes(released.share * layer.matrix_elements() * scale * layers_stage * p.recompute_fraction *
                      weight_bytes);
    regather += collective_time(Collective::all_gather, bytes / units_rc, shard, sys) * (units_rc * mbd);
  }
  const double small_each =
      layer.small_tensors > 0 && sys.software.zero3_reduce_per_tensor
          ? collective_time(Collective::reduce_scatter,
                            Bytes(layer.small_elements / layer.small_tensors * scale * zero_reduce), shard,
                            sys)
                .value
          : 0.0;
  if (small_each > 0) each += Seconds(small_each * layers_stage * layer.small_tensors);
  if (!sys.software.zero3_fetch_sync || layer.matrix_elements() <= 0) return Seconds(0);
  // The synchronised schedule, one layer's submodules at a time (parallel/zero3.h): each matrix's
  // share of the layer's passes (by its elements), its own gather and reduce-scatter (the small
  // tensors' reductions shared among the four), the recomputed forward and the matrices its reuse
  // distance released under full recompute.
  const double rc_share = p.recompute == Recompute::full ? p.recompute_fraction : 0.0;
  std::array<Zero3Module, 4> fwd{}, bwd{};
  for (std::size_t j = 0; j < 4; ++j) {
    const double f = layer.matrices[j] / layer.matrix_elements();
    const double n = layer.matrices[j] * scale;
    const double gather = collective_time(Collective::all_gather, Bytes(n * weight_bytes), shard, sys).value;
    const double rs = collective_time(Collective::reduce_scatter, Bytes(n * zero_reduce), shard, sys).value +
                      small_each * layer.small_tensors / 4.0;
    fwd[j] = {L.fwd.total().value * f, gather, 0.0};
    bwd[3 - j] = {L.bwd.total().value * f, gather, rs};
  }
  const std::vector<Zero3Module> forward(fwd.begin(), fwd.end()), backward(bwd.begin(), bwd.end());
  std::vector<Zero3Module> recomputed(fwd.begin(), fwd.end());
  for (std::size_t i = 0; i < 4; ++i) {
    Zero3Module m = bwd[i];
    if (!released.released[3 - i]) m.gather = 0;
    recomputed.push_back(m);
  }
  const double layer_exposed = zero3_synced_exposure(forward) + rc_share * zero3_synced_exposure(recomputed) +
                               (1.0 - rc_share) * zero3_synced_exposure(backward);
  return Seconds(layer_exposed * layers_stage * mbd);
}

// Data parallel: gradients (the stack's gradient width, fp32 main grads in Megatron-LM) are
// all-reduced, or reduce-scattered with a sharded optimizer followed by an all-gather of the
// updated weights (ZeRO, Rajbhandari et al. 2020), over all dp*cp replicas. Under hybrid
// sharding (parallel.zero_shard) the ZeRO collectives run inside a shard group and each rank's
// reduced gradient shard is all-reduced across the groups (MiCS, Zhang et al. 2022, arXiv
// 2205.00119, Sec. 3; PyTorch FSDP HYBRID_SHARD). Returns the exposed time.
Seconds data_parallel(const Scenario& s, const OpContext& c, const LayerCosts& L, const StageCosts& st,
                      const StageParams& params, double weight_bytes, double mbd, bool overlap) {
  // Dense weights reduce over dp x cp, the routed experts' over the expert-data-parallel group.
  const double n_params = params.layers + params.embedding + params.output;
  const double n_experts = params.experts;
  const GroupPlacement& edp_group = c.group(CommGroup::edp);
  const auto& p = s.parallel;
  const auto& sys = s.system;
  Seconds dp_time{}, dp_gather{}, dp_regather{}, dp_each{};
  // One group's reduction: gradients all-reduced, or reduce-scattered and the updated weights
  // all-gathered (ZeRO >= 1) inside the shard group g, the reduced shard (1/g.size of them)
  // all-reduced across the replica groups, and the weights re-gathered for every forward and
  // backward under ZeRO-3. With the gradients sharded (ZeRO-2 and -3) no rank keeps a whole
  // gradient from one micro-batch to the next, so each micro-batch's gradients are
  // reduce-scattered during its own backward pass (Rajbhandari et al. 2020, Sec. 5.2: a bucket
  // is reduced as soon as its gradients are computed and the rest released; PyTorch FSDP
  // reduce-scatters in every backward unless no_sync keeps unsharded gradients): dp_each, once
  // per micro-batch. The shard's cross-group all-reduce accumulates locally and runs once.
  //
  // The reduced width: the main gradients (gradient_bytes), or under ZeRO-2/3 the stack's
  // zero_reduce_bytes where it sets one (DeepSpeed reduce-scatters the 16-bit gradients the
  // backward pass wrote: deepspeed.readthedocs.io zero3.html, "ZeRO Stage 2: the reduced 16-bit
  // gradients"; Rajbhandari et al. 2020 Sec. 7 counts fp16 gradients).
  // ZeRO-3 has no all-gather after the optimizer step: the next forward pass's re-gather brings
  // every updated shard, 3 x the parameters per step in all (Rajbhandari et al. 2020, Sec. 7.2.2:
  // an all-gather in the forward, one in the backward and the gradients' reduce-scatter).
  const double zero_reduce = sys.software.zero_reduce_bytes > 0 && p.zero_stage >= 2
                                 ? sys.software.zero_reduce_bytes
                                 : sys.software.gradient_bytes;
  // ZeRO-3 gathers and reduces one layer at a time (PyTorch FSDP: one all-gather and one
  // reduce-scatter per wrapped unit, a transformer block, plus the root unit holding the
  // embedding and head, Zhao et al. 2023, arXiv 2304.11277, Sec. 3.2; DeepSpeed ZeRO-3: per
  // module as its forward hook fetches it): each of those collectives pays the ring's per-step
  // latency, so the latency term counts once per unit, not once per model. A layer is
  // SoftwareDefaults::zero3_layer_collectives units (DeepSpeed: one per weight matrix).
  const double layers_stage = stage_layers(s.model, p);
  const double units = p.zero_stage == 3 ? layers_stage * sys.software.zero3_layer_collectives + 1.0 : 1.0;
  // Gathers per micro-batch: the forward's and the backward's, or the forward's alone where it is
  // kept for the backward (SoftwareDefaults::zero3_reshard_after_forward false).
  const double gathers = sys.software.zero3_reshard_after_forward ? 2.0 : 1.0;
  const auto sharded = [&](Collective op, Bytes size, const GroupPlacement& g) {
    return collective_time(op, size / units, g, sys) * units;
  };
  const auto reduce = [&](double n, const GroupPlacement& g, const GroupPlacement& replicas) {
    if (g.size * replicas.size <= 1 || n <= 0) return;
    const Bytes grads(n * zero_reduce);
    if (p.zero_stage == 0) {
      dp_time += collective_time(Collective::all_reduce, grads, g, sys);
    } else {
      if (g.size > 1) {
        (p.zero_stage >= 2 ? dp_each : dp_time) += sharded(Collective::reduce_scatter, grads, g);
        if (p.zero_stage < 3)
          dp_gather += collective_time(Collective::all_gather, Bytes(n * weight_bytes), g, sys);
      }
      if (replicas.size > 1)
        dp_time += collective_time(Collective::all_reduce, Bytes(grads.value / d(g.size)), replicas, sys);
    }
    if (p.zero_stage == 3 && g.size > 1)
      dp_regather += sharded(Collective::all_gather, Bytes(n * weight_bytes), g) * (gathers * mbd);
  };
  // Without hybrid sharding the shard group is the whole dp x cp group and has no replicas.
  reduce(n_params, c.group(CommGroup::zero_shard), c.group(CommGroup::zero_replica));
  // What a dense layer's tensors add under ZeRO-3 (zero3_layer_traffic).
  const Seconds dp_synced = zero3_layer_traffic(s, c, L, params, layers_stage, weight_bytes, zero_reduce, mbd,
                                                dp_regather, dp_each);
  reduce(n_experts, edp_group, GroupPlacement{});
  Seconds exposed{};
  if (overlap) {
    // Buckets are reduced while the last micro-batch's backward runs (each micro-batch's, for
    // dp_each): everything but the first layer's bucket can hide behind it; the weight
    // all-gather overlaps the next iteration's first forward (Megatron-core overlap_grad_reduce
    // / overlap_param_gather).
    const Seconds window = L.bwd.total() * std::max(0.0, layers_stage - 1.0);
    const auto behind_backward = [&](Seconds t) { return max(t / std::max(1.0, layers_stage), t - window); };
    exposed = behind_backward(dp_time) + behind_backward(dp_each) * mbd +
              max(Seconds(0), dp_gather - L.fwd.total() * layers_stage);
  } else {
    exposed = dp_time + dp_each * mbd + dp_gather;
  }
  // All data-parallel traffic (ZeRO-3 re-gathers included) shares the same links and hides
  // behind the rest of the pass (its kernels and the tensor-, context- and expert-parallel
  // communication exposed between them, which runs on other streams): it cannot expose less than
  // what exceeds all of that. Taking the larger of the two, against the whole pass, keeps faster
  // compute from ever lengthening the iteration (faster GEMMs expose more overlapped
  // tensor-parallel traffic, and that time hides data-parallel traffic too).
  const Seconds total = dp_regather + dp_time + dp_each * mbd + dp_gather;
  exposed = max(exposed, total - st.worst.pass.total() * mbd);
  // Under synchronised fetches (SoftwareDefaults::zero3_fetch_sync) the layers' traffic hides
  // only submodule by submodule.
  exposed = max(exposed, dp_synced);
  // The computation beside the hidden part is slowed by the collectives' kernels
  // (SoftwareDefaults::dp_overlap_slowdown, Lee et al. 2025): H x s / (1 + s) more.
  const double s_slow = sys.software.dp_overlap_slowdown;
  return exposed + max(Seconds(0), total - exposed) * (s_slow / (1.0 + s_slow));
}

// Optimizer: the fused Adam step streams the stack's bytes per parameter (SoftwareDefaults)
// on this device's shard.
// With the state in host memory (parallel.optimizer_offload) the CPU streams the same bytes per
// parameter through host memory while the gradient shard goes down and the updated 16-bit weights
// come back over the host link, bucket by bucket and overlapped (Megatron-Core's
// --overlap-cpu-optimizer-d2h-h2d, which slime's scripts set): the step takes the longer of the
// two. The device's share of its host's memory bandwidth is taken as its host link (ASSUMED: a
// DGX H100's two Xeon 8480C sockets, 16 DDR5-4800 channels, 614 GB/s for 8 GPUs, 77 GB/s each,
// beside PCIe 5.0 x16's 63 GB/s; a GB200's Grace, LPDDR5X at up to 512 GB/s for 2 GPUs, beside
// the 256 GB/s the preset gives each).
Seconds optimizer_step(const Scenario& s, const StageParams& params) {
  const auto& p = s.parallel;
  const auto& sw = s.system.software;
  const double n_params = params.layers + params.embedding + params.output;
  const double opt_params = n_params / (p.zero_stage >= 1 ? d(zero_shard_ranks(p)) : 1.0) +
                            params.experts / (p.zero_stage >= 1 ? d(expert_dp(p)) : 1.0);
  if (p.optimizer_offload && s.system.host_link.value > 0) {
    const double link = s.system.host_link.value;
    const double cpu = opt_params * sw.optimizer_step_bytes / link;
    const double copies = opt_params * (sw.gradient_bytes + sw.weight_bytes) / link;
    return Seconds(std::max(cpu, copies));
  }
  return elementwise_cost(s.system.device, Bytes(opt_params * sw.optimizer_step_bytes),
                          Flops(opt_params * sw.optimizer_step_flops))
      .time;
}

// Model FLOPs: 3x forward (forward + input and weight gradients) of every layer and the LM head
// over all tokens (Narayanan et al. 2021, Eq. 3 without the recompute term); hardware FLOPs add
// the recomputation; MFU and HFU against the precision's native peak.
void utilisation(const Scenario& s, const MathRate& rate, double module_rc_flops, TrainingPrediction& out) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const double tokens = d(w.global_batch) * d(w.seq_len);
  // Every layer as it is: dense or mixture-of-experts (top_k routed experts and the shared ones),
  // windowed or global attention.
  double fwd_layers = model_layers_flops(m, w.seq_len, w.seq_len) * d(w.global_batch);
  double head = 2.0 * tokens * d(m.hidden) * d(m.vocab);
  // Each trained MTP module (ModelSpec::mtp_trained) is one more layer of the last layer's kind
  // over every token, its 2h -> h projection and one more pass of the output head (DeepSeek-V3,
  // arXiv 2412.19437 Sec. 2.2): work the step does for its training signal, so counted as model
  // FLOPs.
  if (m.mtp_trained > 0) {
    const double modules = d(m.mtp_trained);
    fwd_layers +=
        modules * layer_model_flops(m, layer_kind(m, m.layers - 1), w.seq_len, w.seq_len) * d(w.global_batch);
    head *= 1.0 + modules;
    head += modules * 2.0 * tokens * 2.0 * d(m.hidden) * d(m.hidden);
  }
  out.model_flops = 3.0 * (fwd_layers + head);
  double rc_flops = 0;
  if (p.recompute == Recompute::full) rc_flops = fwd_layers * p.recompute_fraction;
  if (p.recompute == Recompute::selective && out.attention == AttentionKernel::standard)
    rc_flops = 4.0 * tokens * d(w.seq_len) * d(m.heads * m.head_dim) * d(m.layers + m.mtp_trained);
  rc_flops += module_rc_flops;  // the other recompute modules' matmuls
  out.hardware_flops = out.model_flops + rc_flops;
  const auto& dev = s.system.device;
  const double peak = rate.rate.value * d(s.num_devices);  // the vector rate when no peak applies
  const double native_peak =
      dev.peak_for(w.precision).value > 0 ? dev.peak_for(w.precision).value * d(s.num_devices) : peak;
  out.mfu = out.model_flops / (out.iteration_time.value * native_peak);
  out.hfu = out.hardware_flops / (out.iteration_time.value * native_peak);
}

// What the MoE layers do, from the first MoE layer kind's costs. The expert parameters are a
// device's of the stage that holds the most (the first stage of DeepSeek-V3 at pp 16 holds its
// dense layers alone).
MoeReport moe_report(const KindCosts& K, const ModelGraph& g, const ModelSpec& m, const ParallelPlan& p) {
  MoeReport r;
  const StageKinds sk = stage_kinds(m, p);
  r.layers_first_stage = r.layers_per_device = moe_count(sk.first);
  r.expert_params_per_device = stage_params(m, p, g, true, p.pp == 1).experts;
  // The heaviest middle stage, then the last: the first with more expert parameters wins.
  for (const bool last : {false, true}) {
    if (p.pp < (last ? 2 : 3)) continue;
    const double experts = stage_params(m, p, g, false, last).experts;
    if (experts > r.expert_params_per_device) {
      r.expert_params_per_device = experts;
      r.layers_per_device = moe_count(last ? sk.last : sk.mid);
    }
  }
  r.expert_dp = expert_dp(p);
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!K.present[k] || !kind_is_moe(k)) continue;
    r.tokens_per_expert = K.tokens_per_expert[k];
    r.dispatch_bytes = K.dispatch_bytes[k];
    r.all_to_all_layer = K.all_to_all[k];
    break;
  }
  return r;
}

OpContext training_context(const Scenario& s, const LayerShape& shape) {
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const std::int64_t domain = s.system.scale_up.domain_size;
  OpContext c;
  c.dev = &s.system.device;
  c.sys = &s.system;
  c.workload = Workload::training;
  c.matmul_rate_share = s.system.software.training_matmul_share;
  // The format trained in (training_format: a quantised one the device has no rate for is trained
  // in 16 bits, without casts).
  c.math = training_format(s.system.device, w.precision);
  // Quantised formats: the matmul operands at the format's size (block scales included).
  c.in_bytes = bytes_per_element(c.math);
  c.weight_bytes = c.in_bytes;
  c.head_weight_bytes = c.in_bytes;
  c.act_bytes = shape.act_bytes;
  c.kv_bytes = shape.act_bytes;
  // Ranks are laid out tp fastest, then cp, dp, pp (plan.h, place_group).
  c.groups[static_cast<std::size_t>(CommGroup::tp)] = place_group(p.tp, 1, domain);
  c.groups[static_cast<std::size_t>(CommGroup::cp)] = place_group(p.cp, p.tp, domain);
  c.groups[static_cast<std::size_t>(CommGroup::dp)] = place_group(p.dp * p.cp, p.tp, domain);
  c.groups[static_cast<std::size_t>(CommGroup::pp)] = place_group(2, p.tp * p.cp * p.dp, domain);
  // Hybrid sharding: a shard group is zero_shard consecutive data-parallel ranks, its replicas
  // one group apart.
  c.groups[static_cast<std::size_t>(CommGroup::zero_shard)] = place_group(zero_shard_ranks(p), p.tp, domain);
  c.groups[static_cast<std::size_t>(CommGroup::zero_replica)] =
      place_group(zero_replicas(p), p.tp * zero_shard_ranks(p), domain);
  // Expert layers fold the stage's tp x cp x dp ranks as etp (fastest), ep, edp (Megatron-Core
  // MoE parallel folding).
  c.groups[static_cast<std::size_t>(CommGroup::etp)] = place_group(p.etp, 1, domain);
  c.groups[static_cast<std::size_t>(CommGroup::ep)] = place_group(p.ep, p.etp, domain);
  c.groups[static_cast<std::size_t>(CommGroup::edp)] = place_group(expert_dp(p), p.etp * p.ep, domain);
  return c;
}

// One layer of each kind the graph has, one micro-batch, on one device, and the representative
// kind (the most layers on a middle stage).
KindCosts kind_costs(const Scenario& s, const OpContext& c, const ModelGraph& g, const StageKinds& sk,
                     const TrainingPrediction& out,
                     std::array<std::vector<OperatorReport>, kLayerKinds>* reports) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  KindCosts K;
  // The expert communication hides behind another micro-batch's computation (Megatron-Core's
  // combined 1F1B overlaps one micro-batch's dispatch and combine with the adjacent micro-batch's
  // forward or backward, developer guide "Combined 1F1B: Expert-Parallel All-to-All Overlap";
  // DeepSeek-V3's DualPipe pairs two micro-batches the same way, arXiv 2412.19437 Sec. 3.2.1): a
  // step of one micro-batch has none to hide it behind.
  SoftwareDefaults layer_sw = s.system.software;
  if (micro_batches(p, *s.training) < 2) layer_sw.ep_comm_overlap = false;
  double most = -1;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!g.present[k]) continue;
    K.present[k] = true;
    K.kinds[k] = layer_costs(c, g.kinds[k], p.recompute, p.recompute_fraction, p.recompute_modules,
                             out.attention, out.tp_comm_overlap, layer_sw,
                             !m.moe || m.moe->capacity_factor <= 0, reports ? &(*reports)[k] : nullptr);
    for (const Op& op : g.kinds[k]) {
      if (op.role == OpRole::expert_up) K.tokens_per_expert[k] = d(op.m);
      if (op.kind == OpKind::comm && op.group == CommGroup::ep) {
        K.dispatch_bytes[k] = op.comm_bytes;
        K.all_to_all[k] += comm_cost(c, op);
      }
    }
    if (sk.mid[k] > most) {
      most = sk.mid[k];
      K.rep = k;
    }
  }
  return K;
}

// The matmul FLOPs selective recompute (parallel.recompute_modules) runs again beyond the
// attention core, whole job, one iteration of `mbd` micro-batches.
double module_recompute_flops(const Scenario& s, const ModelGraph& g, double mbd,
                              std::vector<Warning>& warnings) {
  const auto& p = s.parallel;
  // A module the model does not have (mla_up_proj without MLA, the MoE modules on a dense
  // model, mlp on a model whose every layer is MoE) changes nothing: said, not refused, as
  // Megatron-Core accepts it.
  ModuleSet present = kCoreAttnOnly;
  for (std::size_t k = 0; k < kLayerKinds; ++k)
    if (g.present[k])
      for (const Op& op : g.kinds[k]) present |= op.rerun;
  for (const RecomputeModule mod : enum_values<RecomputeModule>())
    if ((p.recompute_modules & module_bit(mod)) && !(present & module_bit(mod)))
      warnings.push_back(
          {"parallel.recompute_module_absent", "recompute_modules names '" + std::string(name_of(mod)) +
                                                   "', which this model does not have; it changes nothing"});
  const KindCounts layers = model_kinds(s.model);
  double flops = 0;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    if (!g.present[k]) continue;
    for (const Op& op : g.kinds[k]) {
      if (op.kind != OpKind::matmul) continue;
      if (op.rerun & p.recompute_modules)
        flops += layers[k] * op.model_flops;
      else if (p.recompute_modules & module_bit(RecomputeModule::alternate_matmuls))
        flops += layers[k] * op.model_flops * op.alternate_share;
    }
  }
  return flops * (mbd * d(s.num_devices) / d(p.pp));
}

// training.operators: the kernels of the stage that sets the pace, each operator of each layer kind
// once per pass with its executions in an iteration (its layers there x the micro-batches), and
// the embedding or the LM head and loss where that stage holds them.
std::vector<OperatorReport> stage_operators(
    const StageCosts& st, const std::array<std::vector<OperatorReport>, kLayerKinds>& layers,
    const std::vector<OperatorReport>& embedding, const std::vector<OperatorReport>& head,
    double micro_batches, bool linear) {
  std::vector<OperatorReport> out;
  const auto add = [&](const std::vector<OperatorReport>& ops, double count, const char* kind) {
    if (count <= 0) return;
    for (OperatorReport r : ops) {
      r.count = count;
      r.layer_kind = kind;
      out.push_back(std::move(r));
    }
  };
  if (st.embedding) add(embedding, micro_batches, "");
  for (std::size_t k = 0; k < kLayerKinds; ++k)
    add(layers[k], st.layers[k] * micro_batches, layer_kind_name(k, linear));
  if (st.head) add(head, micro_batches, "");
  return out;
}

}  // namespace

AttentionKernel training_attention(const Scenario& s) {
  return s.training->attention.value_or(s.system.software.attention);
}

TrainingPrediction predict_training(const Scenario& s, std::vector<Warning>& warnings) {
  return predict_training(s, model_graph(s.model, training_layer_shape(s, training_attention(s))), warnings);
}

// The share of an iteration spent waiting on the host past which predict warns (training.host_bound):
// a quarter, where a device twice as fast shortens the step by at most 3/8.
constexpr double kHostBoundShare = 0.25;

// The warnings about where an iteration's time goes; `overlap_dropped`: a 4-bit format whose stack
// turns the tensor-parallel overlap off (tp_comm_overlap_fp4).
static void step_warnings(const Scenario& s, const TrainingPrediction& out, bool overlap_dropped,
                          std::vector<Warning>& warnings) {
  const auto& p = s.parallel;
  const auto& w = *s.training;
  // A step that waits on the host for much of its time does not shorten on a faster device: say
  // so, and what shortens it (dropless MoE layers issue each local expert's GEMM once its token
  // counts reach the host, SoftwareDefaults::training_launch_interval_us and
  // training_expert_gemm_us).
  const double host_fraction = out.breakdown.host.value / out.iteration_time.value;
  if (host_fraction > kHostBoundShare)
    warnings.push_back(
        {"training.host_bound",
         "the devices wait on the host for " + std::to_string(static_cast<int>(host_fraction * 100.0)) +
             "% of the iteration (breakdown_s.host: the framework issuing operators, each local expert's "
             "GEMM "
             "of a dropless MoE layer once its token counts reach the host), which a faster device does not "
             "shorten; fewer local experts (a larger ep), larger micro-batches or a stack that replays the "
             "layers from CUDA graphs (system.software.training_cuda_graphs, the megatron-bridge-fullgraph "
             "profile) would"});
  // A 4-bit format whose stack turns the tensor-parallel overlap off (tp_comm_overlap_fp4 above)
  // exposes the sequence-parallel collectives it hid at fp8: say so, as the step can come out
  // slower than fp8's, and what keeps the overlap.
  if (overlap_dropped && !w.tp_comm_overlap && p.tp > 1 && p.sequence_parallel &&
      out.breakdown.tp_comm.value > 0) {
    char exposed[32];
    std::snprintf(exposed, sizeof exposed, "%.3g", out.breakdown.tp_comm.value);
    warnings.push_back(
        {"training.fp4_tp_overlap_off",
         std::string(to_string(w.precision)) +
             " training: the stack overlaps tensor-parallel "
             "communication with the GEMMs at 8 bits but not at 4 (system.software.tp_comm_overlap_fp4, "
             "as Megatron-Bridge's NVFP4 recipes set it), so " +
             std::string(exposed) +
             " s of the iteration waits on it (breakdown_s.tp_comm); a smaller tp would shrink it, "
             "and training.tp_comm_overlap true states a stack that keeps the overlap"});
  }
  const double bubble_fraction = out.breakdown.bubble.value / out.iteration_time.value;
  if (bubble_fraction > 0.2)
    warnings.push_back({"pipeline.large_bubble",
                        "the pipeline bubble is " +
                            std::to_string(static_cast<int>(bubble_fraction * 100.0)) +
                            "% of the iteration; more micro-batches (a larger global batch or smaller "
                            "micro_batch) or interleave > 1 would shrink it"});
}

TrainingPrediction predict_training(const Scenario& s, const ModelGraph& g, std::vector<Warning>& warnings,
                                    GemmMemo* gemm_memo, bool report_operators) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const auto& sys = s.system;
  TrainingPrediction out;
  out.attention = training_attention(s);
  out.overlap_grad_reduce = w.overlap_grad_reduce.value_or(sys.software.overlap_grad_reduce);
  const MathRate rate = math_rate(sys.device, w.precision);
  out.math_precision = rate.used;
  // A 4-bit training format keeps the stack's overlap only where the stack supports it there
  // (SoftwareDefaults::tp_comm_overlap_fp4); a scenario's own choice wins. The format the matmuls
  // run at decides: nvfp4 on a device without a 4-bit rate runs at fp8, with fp8's overlap.
  const bool four_bit = rate.used == Precision::fp4;
  const bool stack_overlap = sys.software.tp_comm_overlap && (!four_bit || sys.software.tp_comm_overlap_fp4);
  out.tp_comm_overlap = w.tp_comm_overlap.value_or(stack_overlap) && p.tp > 1 && p.sequence_parallel;

  const Precision trained = training_format(sys.device, w.precision);
  if (trained != w.precision)
    warnings.push_back({"device.precision_fallback",
                        std::string(to_string(w.precision)) + " has no native rate on " + sys.device.name +
                            (quantised_training(trained) ? ": trained as "
                                                         : " (nor has any 8-bit float format): trained as ") +
                            std::string(to_string(trained)) +
                            (quantised_training(trained) ? "" : ", without casts") +
                            ", its step and memory those of " + std::string(to_string(trained))});
  else if (rate.fallback)
    warnings.push_back({"device.precision_fallback",
                        std::string(to_string(w.precision)) + " has no native rate on " + sys.device.name +
                            "; matmuls are timed at the " + std::string(to_string(rate.used)) + " rate"});
  const LayerShape shape = training_layer_shape(s, out.attention);
  OpContext c = training_context(s, shape);
  c.gemm_memo = gemm_memo;
  if (c.group(CommGroup::tp).crosses_scale_out())
    warnings.push_back({"parallel.tp_crosses_scale_out",
                        "training: tp=" + std::to_string(p.tp) + " spans more than one scale-up domain of " +
                            std::to_string(sys.scale_up.domain_size) +
                            " devices; tensor-parallel traffic runs on the scale-out network"});

  // One layer of each kind, one micro-batch, on one device; the embedding and the head on the
  // end stages.
  const StageKinds sk = stage_kinds(m, p);
  std::array<std::vector<OperatorReport>, kLayerKinds> layer_ops;
  std::vector<OperatorReport> embedding_ops, head_ops;
  const KindCosts K = kind_costs(s, c, g, sk, out, report_operators ? &layer_ops : nullptr);
  const LayerCosts& L = K.kinds[K.rep];
  const StageCosts st =
      stage_costs(s, K, end_costs(c, g.embedding, report_operators ? &embedding_ops : nullptr),
                  end_costs(c, g.head, report_operators ? &head_ops : nullptr));

  const std::int64_t mb = micro_batches(p, w);
  const double mbd = d(mb);
  out.micro_batches = mb;
  if (report_operators)
    out.operators = stage_operators(st, layer_ops, embedding_ops, head_ops, mbd, s.model.linear.heads > 0);
  std::tie(out.stage_forward, out.stage_backward) = stage_forward_backward(K, sk.mid);
  out.layer_forward = L.fwd.total();
  out.layer_backward = L.bwd.total();
  out.layer_recompute = L.recompute.total();

  TrainingBreakdown& b = out.breakdown;
  pipeline_schedule(s, c, st, mbd, shape.act_bytes, b);
  // Offloaded activations (parallel.offload_layers) leave for host memory during the forward pass
  // and come back during the backward, on copy engines beside the kernels (Transformer Engine's
  // CPU offload handler); what the copies take beyond the pass they run under stalls it, counted
  // with the other waits on the host side.
  if (p.offload_layers > 0) {
    const Seconds copy(offloaded_activations(s, g).value / sys.host_link.value);
    b.host += (max(Seconds(0), copy - out.stage_forward) + max(Seconds(0), copy - out.stage_backward)) * mbd;
  }
  const StageParams params = stage_params(m, p, g, true, p.pp == 1);
  const bool wide = w.precision == Precision::fp32 || w.precision == Precision::tf32;
  const double weight_bytes = wide ? 4.0 : sys.software.weight_bytes;
  b.dp_comm = data_parallel(s, c, L, st, params, weight_bytes, mbd, out.overlap_grad_reduce);
  b.optimizer = optimizer_step(s, params);

  if (m.moe) out.moe = moe_report(K, g, m, p);
  out.iteration_time = b.total();
  out.tokens_per_s = d(w.global_batch) * d(w.seq_len) / out.iteration_time.value;
  // The matmul FLOPs selective recompute runs again beyond the attention core: per device and
  // micro-batch on each layer kind, times the model's layers of that kind, the micro-batches and
  // the tp x cp x dp devices of a stage.
  const double module_rc_flops =
      p.recompute == Recompute::selective ? module_recompute_flops(s, g, mbd, warnings) : 0;
  utilisation(s, rate, module_rc_flops, out);
  if (w.train_tokens > 0) out.time_to_train = Seconds(w.train_tokens / out.tokens_per_s);

  // The same time split the paper's way.
  const PassCost& worst = st.worst.pass;
  const PassCost& rc_worst = st.worst.rc;
  out.by_bound.compute = worst.compute_bound * mbd + rc_worst.compute_bound * mbd;
  out.by_bound.memory = worst.memory_bound * mbd + rc_worst.memory_bound * mbd;
  out.by_bound.communication = b.tp_comm + b.cp_comm + b.pp_comm + b.dp_comm + b.ep_comm +
                               (rc_worst.tp_comm + rc_worst.cp_comm + rc_worst.ep_comm) * mbd;
  // The host waits of the recomputed forward too (a dropless MoE layer's, in breakdown_s.recompute),
  // so that the four parts add up to the iteration as breakdown_s's do.
  out.by_bound.other = b.bubble + b.optimizer + b.host + rc_worst.host * mbd;

  step_warnings(s, out, four_bit && stack_overlap != sys.software.tp_comm_overlap, warnings);
  return out;
}

}  // namespace optimus
