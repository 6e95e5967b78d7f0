// Training iteration time: the task graph of one layer is timed op by op on the device, the
// per-micro-batch stage times are composed along the pipeline schedule, and the data-parallel
// gradient reduction and the optimizer step are added (Kundu et al. 2024, Sec. III-D;
// Narayanan et al. 2021 for the schedule).
#include <algorithm>
#include <cmath>
#include <string>

#include "cost/collective.h"
#include "cost/roofline.h"
#include "model/graph.h"
#include "predict/predict.h"

namespace optimus {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

// Time of one micro-batch on one device, split by cause.
struct PassCost {
  Seconds compute_bound{}, memory_bound{};  // kernels, by which roof binds
  Seconds tp_comm{}, cp_comm{};
  double flops = 0;
  Seconds kernels() const { return compute_bound + memory_bound; }
  Seconds total() const { return kernels() + tp_comm + cp_comm; }
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
    flops += o.flops;
    return *this;
  }
  PassCost scaled(double k) const {
    PassCost r = *this;
    r.compute_bound *= k;
    r.memory_bound *= k;
    r.tp_comm *= k;
    r.cp_comm *= k;
    r.flops *= k;
    return r;
  }
};

struct Context {
  const Scenario& s;
  const DeviceSpec& dev;
  Precision math;    // matmul precision
  double in_bytes;   // matmul input element size
  double act_bytes;  // activation element size
  GroupPlacement tp_group, cp_group;
};

OpCost time_matmul(const Context& c, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                   bool weight) {
  const double w = weight ? c.in_bytes : c.act_bytes;
  return matmul_cost(c.dev, MatmulShape{m, n, k, batch}, c.math, c.in_bytes, w, c.act_bytes);
}

// Attention score and context matmuls run in 16-bit even in fp8 training (Transformer Engine
// keeps attention in bf16); the causal fraction shrinks the key dimension a fused kernel visits.
OpCost attention_matmuls(const Context& c, const Op& op, int count) {
  const auto kv = std::max<std::int64_t>(1, std::llround(d(op.n) * op.causal_fraction));
  const Precision p = c.math == Precision::fp8 ? Precision::bf16 : c.math;
  const OpCost qk =
      matmul_cost(c.dev, MatmulShape{op.m, kv, op.k, op.batch}, p, c.act_bytes, c.act_bytes, c.act_bytes);
  const OpCost pv =
      matmul_cost(c.dev, MatmulShape{op.m, op.k, kv, op.batch}, p, c.act_bytes, c.act_bytes, c.act_bytes);
  // Forward: QK^T and PV. Backward (count 4 or 5): dV, dP, dQ, dK, plus the recomputed QK^T
  // in a fused kernel; halves of each shape.
  OpCost r;
  const double pairs = count / 2.0;
  r.time = (qk.time + pv.time) * pairs;
  // A fused kernel also exponentiates every visited score on the special-function units,
  // in the forward and again when the backward recomputes P; FlashAttention-2 does not
  // overlap this with the matmuls (FlashAttention-3, Sec. 3.1).
  if (c.dev.exp_rate > 0 && op.causal_fraction < 1.0)
    r.time += Seconds(d(op.batch) * d(op.m) * d(kv) / c.dev.exp_rate);
  r.flops = (qk.flops + pv.flops) * pairs;
  r.bound = qk.bound;
  return r;
}

Seconds comm_time(const Context& c, const Op& op) {
  const Collective kind = op.comm == CommKind::all_gather       ? Collective::all_gather
                          : op.comm == CommKind::reduce_scatter ? Collective::reduce_scatter
                                                                : Collective::all_reduce;
  return collective_time(kind, Bytes(op.comm_bytes), c.tp_group, c.s.system);
}

struct LayerCosts {
  PassCost fwd, bwd, recompute;
  Seconds attention_fwd{}, attention_bwd{};
};

LayerCosts layer_costs(const Context& c, const std::vector<Op>& ops, Recompute rc, AttentionKernel att,
                       bool tp_overlap) {
  LayerCosts L;
  // Each matmul's forward GEMM and its backward pair (input gradient dX = dY W^T, weight
  // gradient dW = X^T dY), costed once: the overlapped tensor-parallel collectives below need
  // the GEMM next to them.
  struct Gemms {
    OpCost fwd, dx, dw;
  };
  std::vector<Gemms> gemms(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind == OpKind::matmul)
      gemms[i] = {time_matmul(c, op.m, op.n, op.k, op.batch, true),
                  time_matmul(c, op.m, op.k, op.n, op.batch, true),
                  time_matmul(c, op.k, op.n, op.m, op.batch, false)};
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    switch (op.kind) {
      case OpKind::matmul: {
        L.fwd.add_kernel(gemms[i].fwd);
        L.bwd.add_kernel(gemms[i].dx);
        L.bwd.add_kernel(gemms[i].dw);
        if (c.math == Precision::fp8) {
          // FP8 GEMMs take fp8 operands: Transformer Engine casts the 16-bit input (and, for
          // the backward, the incoming gradient) to fp8 and writes a transposed copy for the
          // other GEMM of the pair: read 2 bytes, write 1 + 1 per element.
          const double x =
              static_cast<double>(op.m) * static_cast<double>(op.k) * static_cast<double>(op.batch);
          const double dy =
              static_cast<double>(op.m) * static_cast<double>(op.n) * static_cast<double>(op.batch);
          L.fwd.add_kernel(elementwise_cost(c.dev, Bytes(4.0 * x), Flops(2.0 * x)));
          L.bwd.add_kernel(elementwise_cost(c.dev, Bytes(4.0 * dy), Flops(2.0 * dy)));
        }
        break;
      }
      case OpKind::attention: {
        const OpCost f = attention_matmuls(c, op, 2);
        // FlashAttention's backward recomputes QK^T: five matmuls; unfused: four.
        const OpCost b = attention_matmuls(c, op, att == AttentionKernel::flash ? 5 : 4);
        OpCost fe, be;
        if (op.bytes > 0) {
          fe = elementwise_cost(c.dev, Bytes(op.bytes), Flops(op.flops));
          be = elementwise_cost(c.dev, Bytes(op.backward_bytes), Flops(op.flops));
        }
        L.fwd.add_kernel(f);
        L.bwd.add_kernel(b);
        if (op.bytes > 0) {
          L.fwd.add_kernel(fe);
          L.bwd.add_kernel(be);
        }
        L.attention_fwd = f.time + fe.time;
        L.attention_bwd = b.time + be.time;
        if (rc == Recompute::selective && att == AttentionKernel::standard) {
          L.recompute.add_kernel(f);
          if (op.bytes > 0) L.recompute.add_kernel(fe);
        }
        break;
      }
      case OpKind::elementwise: {
        const OpCost f = elementwise_cost(c.dev, Bytes(op.bytes), Flops(op.flops));
        // Backward reads the saved input and the incoming gradient and writes a gradient.
        const OpCost b = elementwise_cost(c.dev, Bytes(op.bytes * 2.0), Flops(op.flops * 2.0));
        L.fwd.add_kernel(f);
        L.bwd.add_kernel(b);
        break;
      }
      case OpKind::comm: {
        // The backward of an all-gather is a reduce-scatter of the same size and vice versa;
        // an all-reduce stays an all-reduce (Korthikanti et al. 2022, Sec. 4.2.2).
        const Seconds t = comm_time(c, op);
        // With sequence parallelism the backward gathers the layer input again for the
        // weight gradient (Korthikanti et al. 2022, Sec. 4.2.2). It is meant to overlap the
        // input-gradient GEMM, but their Table 4 shows SP saving 0.5 ms of forward and only
        // 0.1 ms of backward on a 22B layer, i.e. the re-gather is effectively exposed.
        const double bwd_count = op.comm == CommKind::all_gather ? 2.0 : 1.0;
        if (!tp_overlap) {
          L.fwd.tp_comm += t;
          L.bwd.tp_comm += t * bwd_count;
          break;
        }
        // Overlapped (Transformer Engine userbuffers; Wang et al., ASPLOS 2023, "Overlap
        // communication with dependent computation via decomposition"): the collective is cut
        // into tp chunks that move while the GEMM consuming (all-gather, the next op) or
        // producing (reduce-scatter, the previous op) the tensor runs on the other chunks;
        // one chunk stays exposed, and whatever outlasts the GEMM.
        const std::size_t j = op.comm == CommKind::all_gather ? i + 1 : i - 1;
        Seconds gemm_f{}, gemm_b{};
        if (j < ops.size() && ops[j].kind == OpKind::matmul) {
          gemm_f = gemms[j].fwd.time;
          gemm_b = gemms[j].dx.time + gemms[j].dw.time;
        }
        const double chunks = d(c.tp_group.size);
        L.fwd.tp_comm += max(t / chunks, t - gemm_f);
        L.bwd.tp_comm += max(t * bwd_count / chunks, t * bwd_count - gemm_b);
        break;
      }
    }
  }
  if (rc == Recompute::full) L.recompute = L.fwd;
  return L;
}

}  // namespace

TrainingPrediction predict_training(const Scenario& s, std::vector<Warning>& warnings) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = *s.training;
  const auto& sys = s.system;
  const auto& dev = sys.device;
  TrainingPrediction out;
  out.attention = w.attention.value_or(sys.software.attention);
  out.overlap_grad_reduce = w.overlap_grad_reduce.value_or(sys.software.overlap_grad_reduce);
  out.tp_comm_overlap =
      w.tp_comm_overlap.value_or(sys.software.tp_comm_overlap) && p.tp > 1 && p.sequence_parallel;

  const MathRate rate = math_rate(dev, w.precision);
  if (rate.fallback)
    warnings.push_back({"device.precision_fallback",
                        std::string(to_string(w.precision)) + " has no native rate on " + dev.name +
                            "; matmuls are timed at the " + std::string(to_string(rate.used)) + " rate"});
  const double in_bytes = w.precision == Precision::fp8 ? 1.0 : bytes_per_element(w.precision);
  const double act_bytes = (w.precision == Precision::fp32 || w.precision == Precision::tf32) ? 4.0 : 2.0;
  const std::int64_t domain = sys.scale_up.domain_size;
  Context c{s,
            dev,
            w.precision,
            in_bytes,
            act_bytes,
            place_group(p.tp, 1, domain),
            place_group(p.cp, p.tp, domain)};
  if (c.tp_group.crosses_scale_out())
    warnings.push_back({"parallel.tp_crosses_scale_out",
                        "tp=" + std::to_string(p.tp) + " spans more than one scale-up domain of " +
                            std::to_string(domain) +
                            " devices; tensor-parallel traffic runs on the scale-out network"});

  // One layer, one micro-batch, on one device.
  LayerShape shape;
  shape.batch = p.micro_batch;
  shape.tokens = w.seq_len / p.cp;
  shape.kv_len = w.seq_len;
  shape.tp = p.tp;
  shape.sequence_parallel = p.sequence_parallel;
  shape.causal = true;
  shape.attention = out.attention;
  shape.act_bytes = act_bytes;
  const std::vector<Op> ops = layer_forward_ops(m, shape);
  LayerCosts L = layer_costs(c, ops, p.recompute, out.attention, out.tp_comm_overlap);

  // Context parallel: ring attention passes K and V blocks around the cp ranks, cp-1 steps,
  // overlapped with the attention of the block in hand (Liu et al. 2023, ring attention;
  // Megatron-core context parallelism); backward also returns dK and dV.
  if (p.cp > 1) {
    const double kv_local = d(std::max<std::int64_t>(1, m.kv_heads / p.tp)) * d(m.head_dim);
    const Bytes block(2.0 * d(p.micro_batch) * d(shape.tokens) * kv_local * act_bytes);
    const Seconds step = collective_time(Collective::p2p, block, c.cp_group, sys);
    const double steps = d(p.cp - 1);
    const Seconds per_step_f = L.attention_fwd / d(p.cp);
    const Seconds per_step_b = L.attention_bwd / d(p.cp);
    L.fwd.cp_comm += max(Seconds(0), step - per_step_f) * steps;
    L.bwd.cp_comm += max(Seconds(0), step * 2.0 - per_step_b) * steps;
    if (p.recompute == Recompute::full) L.recompute.cp_comm = L.fwd.cp_comm;
  }

  // Embedding (first stage) and output layer + loss (last stage).
  const double T = d(p.micro_batch) * d(shape.tokens);
  const double h = d(m.hidden);
  PassCost first_extra, last_extra;
  {
    const OpCost emb = elementwise_cost(dev, Bytes(2.0 * act_bytes * T * h), Flops(0));
    first_extra.add_kernel(emb, 3.0);  // lookup, gradient scatter-add, (dropout)
    const std::int64_t vocab_local = m.vocab / p.tp;
    const auto tokens = static_cast<std::int64_t>(T);
    last_extra.add_kernel(time_matmul(c, tokens, vocab_local, m.hidden, 1, true));
    last_extra.add_kernel(time_matmul(c, tokens, m.hidden, vocab_local, 1, true));
    last_extra.add_kernel(time_matmul(c, m.hidden, vocab_local, tokens, 1, false));
    // Vocab-parallel cross-entropy: logits read, fp32 softmax written and read back.
    last_extra.add_kernel(elementwise_cost(dev, Bytes(T * d(vocab_local) * (act_bytes + 8.0 + 4.0)),
                                           Flops(5.0 * T * d(vocab_local))));
    last_extra.add_kernel(elementwise_cost(dev, Bytes(2.0 * act_bytes * T * h), Flops(5.0 * T * h)));
  }

  // Layers per stage; with the embedding/loss-as-a-layer split the first and last stages hold
  // one layer less than the middle ones (core/parallel/plan.h, stage_layers).
  const double layers_stage = stage_layers(m, p);
  const double layers_end = uneven_pipeline_split(m, p) ? layers_stage - 1.0 : layers_stage;
  PassCost body = L.fwd;
  body += L.bwd;
  // A pipeline stage: its forward+backward kernels and communication, and its recomputation.
  struct Stage {
    PassCost pass, rc;
    Seconds total() const { return pass.total() + rc.total(); }
  };
  Stage mid{body.scaled(layers_stage), L.recompute.scaled(layers_stage)};
  Stage first{body.scaled(layers_end), L.recompute.scaled(layers_end)};
  Stage last = first;
  first.pass += first_extra;
  last.pass += last_extra;
  if (p.pp == 1) first.pass += last_extra;
  const Stage* worst_stage = (p.pp == 1 || first.total() >= last.total()) ? &first : &last;
  if (p.pp > 2 && mid.total() > worst_stage->total()) worst_stage = &mid;
  const PassCost& worst = worst_stage->pass;
  const PassCost& rc_worst = worst_stage->rc;
  const Seconds t_worst = worst_stage->total();
  const Seconds t_avg =
      p.pp == 1 ? t_worst : (first.total() + last.total() + mid.total() * (d(p.pp) - 2.0)) / d(p.pp);

  const std::int64_t mb = micro_batches(p, w);
  out.micro_batches = mb;
  const double mbd = d(mb);
  out.stage_forward = L.fwd.total() * layers_stage;
  out.stage_backward = L.bwd.total() * layers_stage;
  out.layer_forward = L.fwd.total();
  out.layer_backward = L.bwd.total();
  out.layer_recompute = L.recompute.total();

  // Pipeline: 1F1B runs m micro-batches at the pace of the slowest stage plus a fill and
  // drain of (pp-1)/v stage times (Narayanan et al. 2021, Sec. 2.2: bubble (p-1)/(v m)).
  TrainingBreakdown& b = out.breakdown;
  b.compute = worst.kernels() * mbd;
  b.recompute = rc_worst.total() * mbd;
  b.tp_comm = worst.tp_comm * mbd;
  b.cp_comm = worst.cp_comm * mbd;
  b.bubble = p.pp > 1 ? t_avg * ((d(p.pp) - 1.0) / d(p.interleave)) : Seconds(0);
  if (p.pp > 1) {
    // Point-to-point activations (forward) and gradients (backward) between stages, once per
    // micro-batch per model chunk, plus the fill and drain chain. With tp > 1 each rank sends
    // 1/tp of the tensor and the receivers all-gather it over the scale-up domain
    // (Narayanan et al. 2021, Sec. 4.1, scatter/gather optimisation).
    const double msg = act_bytes * T * h / (p.tp > 1 ? d(p.tp) : 1.0);
    const GroupPlacement pp_pair = place_group(2, p.tp * p.cp * p.dp, domain);
    Seconds hop = collective_time(Collective::p2p, Bytes(msg), pp_pair, sys);
    if (p.tp > 1) hop += collective_time(Collective::all_gather, Bytes(act_bytes * T * h), c.tp_group, sys);
    b.pp_comm = hop * (2.0 * (d(p.interleave) * mbd + d(p.pp) - 1.0));
  }

  // Data parallel: gradients (fp32 main grads, Megatron-LM's default for 16-bit training) are
  // all-reduced, or reduce-scattered with a sharded optimizer followed by an all-gather of the
  // updated 16-bit weights (ZeRO, Rajbhandari et al. 2020), over all dp*cp replicas.
  const StageParams params = stage_params(m, p, w.seq_len, true, p.pp == 1);
  const double n_params = params.total();
  const std::int64_t replicas = p.dp * p.cp;
  Seconds dp_time{};
  Seconds dp_gather{};
  Seconds dp_regather{};
  if (replicas > 1) {
    const GroupPlacement dp_group = place_group(replicas, p.tp, domain);
    const Bytes grads(n_params * 4.0);
    if (p.zero_stage == 0) {
      dp_time = collective_time(Collective::all_reduce, grads, dp_group, sys);
    } else {
      dp_time = collective_time(Collective::reduce_scatter, grads, dp_group, sys);
      dp_gather = collective_time(Collective::all_gather, Bytes(n_params * act_bytes), dp_group, sys);
    }
    if (p.zero_stage == 3) {
      // Weights are gathered again for every forward and backward of every micro-batch.
      dp_regather =
          collective_time(Collective::all_gather, Bytes(n_params * act_bytes), dp_group, sys) * (2.0 * mbd);
    }
  }
  Seconds exposed{};
  if (out.overlap_grad_reduce) {
    // Buckets are reduced while the last micro-batch's backward runs: everything but the
    // first layer's bucket can hide behind it; the weight all-gather overlaps the next
    // iteration's first forward (Megatron-core overlap_grad_reduce / overlap_param_gather).
    const Seconds window = L.bwd.total() * std::max(0.0, layers_stage - 1.0);
    exposed = max(dp_time / std::max(1.0, layers_stage), dp_time - window) +
              max(Seconds(0), dp_gather - L.fwd.total() * layers_stage);
  } else {
    exposed = dp_time + dp_gather;
  }
  // All data-parallel traffic (ZeRO-3 re-gathers included) shares the same links and hides
  // behind the same compute: it cannot expose less than what exceeds all of it. Taking the
  // larger of the two keeps faster compute from ever lengthening the iteration.
  b.dp_comm = max(exposed, dp_regather + dp_time + dp_gather - worst.kernels() * mbd);

  // Optimizer: fused Adam streams fp32 master weights, gradient, momentum and variance in and
  // out plus the 16-bit copy (~34 bytes per parameter with gradient-norm clipping),
  // on this device's shard.
  const double opt_params = n_params / (p.zero_stage >= 1 ? d(replicas) : 1.0);
  b.optimizer = elementwise_cost(dev, Bytes(opt_params * 34.0), Flops(opt_params * 12.0)).time;

  out.iteration_time = b.total();
  const double tokens = d(w.global_batch) * d(w.seq_len);
  out.tokens_per_s = tokens / out.iteration_time.value;

  // Model FLOPs: 3x forward (forward + input and weight gradients) of every layer and the
  // LM head over all tokens (Narayanan et al. 2021, Eq. 3 without the recompute term).
  const double fwd_layer = layer_model_flops(m, w.seq_len, w.seq_len) * d(w.global_batch);
  const double head = 2.0 * tokens * h * d(m.vocab);
  out.model_flops = 3.0 * (fwd_layer * d(m.layers) + head);
  double rc_flops = 0;
  if (p.recompute == Recompute::full) rc_flops = fwd_layer * d(m.layers);
  if (p.recompute == Recompute::selective && out.attention == AttentionKernel::standard)
    rc_flops = 4.0 * tokens * d(w.seq_len) * d(m.heads * m.head_dim) * d(m.layers);
  out.hardware_flops = out.model_flops + rc_flops;
  const double peak = rate.rate.value * d(s.num_devices);  // the vector rate when no peak applies
  const double native_peak =
      dev.peak_for(w.precision).value > 0 ? dev.peak_for(w.precision).value * d(s.num_devices) : peak;
  out.mfu = out.model_flops / (out.iteration_time.value * native_peak);
  out.hfu = out.hardware_flops / (out.iteration_time.value * native_peak);
  if (w.train_tokens > 0) out.time_to_train = Seconds(w.train_tokens / out.tokens_per_s);

  // The same time split the paper's way.
  const double scale = mbd;
  out.by_bound.compute = worst.compute_bound * scale + rc_worst.compute_bound * scale;
  out.by_bound.memory = worst.memory_bound * scale + rc_worst.memory_bound * scale;
  out.by_bound.communication =
      b.tp_comm + b.cp_comm + b.pp_comm + b.dp_comm + (rc_worst.tp_comm + rc_worst.cp_comm) * scale;
  out.by_bound.other = b.bubble + b.optimizer;

  const double bubble_fraction = b.bubble.value / out.iteration_time.value;
  if (bubble_fraction > 0.2)
    warnings.push_back({"pipeline.large_bubble",
                        "the pipeline bubble is " +
                            std::to_string(static_cast<int>(bubble_fraction * 100.0)) +
                            "% of the iteration; more micro-batches (a larger global batch or smaller "
                            "micro_batch) or interleave > 1 would shrink it"});
  return out;
}

}  // namespace optimus
