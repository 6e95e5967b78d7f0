// The pure entry point: scenario in, prediction out. No I/O, no hidden state.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "cost/roofline.h"
#include "memory/footprint.h"
#include "parallel/plan.h"
#include "predict/serving.h"

namespace optimus {

class GemmMemo;  // cost/op_timer.h

struct TrainingBreakdown {
  Seconds compute{}, recompute{}, tp_comm{}, cp_comm{}, pp_comm{}, dp_comm{}, bubble{}, optimizer{};
  Seconds ep_comm{};  // MoE token dispatch/combine (all-to-all) and expert-tensor reductions, exposed
  Seconds host{};     // devices waiting for the host (dropless MoE layers, pipeline syncs, offload copies)
  Seconds total() const {
    return compute + recompute + tp_comm + cp_comm + pp_comm + dp_comm + bubble + optimizer + ep_comm + host;
  }
};

// The paper's four-way split of the same time (Kundu et al. Fig. 8): compute-bound kernels,
// memory-bound kernels, exposed communication, and other (bubble and weight update).
struct BoundBreakdown {
  Seconds compute{}, memory{}, communication{}, other{};
};

// What the MoE layers of a training step do on the busiest device (mixture-of-experts models).
struct MoeReport {
  double tokens_per_expert = 0;  // per local expert per micro-batch (busiest rank, imbalance included)
  double dispatch_bytes =
      0;  // all-to-all bytes one rank sends per MoE layer per micro-batch (x2 with combine)
  Seconds all_to_all_layer{};  // dispatch + combine of one MoE layer, forward, one micro-batch
  double expert_params_per_device = 0;
  std::int64_t expert_dp = 1;     // expert-data-parallel replicas (tp x cp x dp / (ep x etp))
  double layers_first_stage = 0;  // MoE layers on the first pipeline stage
  double layers_per_device = 0;   // MoE layers on the stage whose experts expert_params_per_device counts
};

// One operator of the task graph with its roofline numbers (inference.operators,
// training.operators).
struct OperatorReport {
  std::string name;
  std::string phase;  // "prefill" | "decode" (inference), "forward" | "backward" (training)
  double flops = 0;   // per device, per execution
  double bytes = 0;   // HBM bytes per device, per execution
  double intensity = 0;
  Seconds time{};
  double achieved_flops_per_s = 0;
  Bound bound = Bound::compute;
  double count = 1;        // executions per phase (inference: layers on the stage; training: per iteration)
  std::string layer_kind;  // layer_kind_name() of its layers; empty for the embedding, head and loss
};

struct TrainingPrediction {
  Seconds iteration_time{};
  double tokens_per_s = 0;
  double mfu = 0, hfu = 0;
  std::optional<Seconds> time_to_train;
  TrainingBreakdown breakdown;
  BoundBreakdown by_bound;
  std::int64_t micro_batches = 0;
  Seconds stage_forward{}, stage_backward{};                     // one micro-batch through the slowest stage
  Seconds layer_forward{}, layer_backward{}, layer_recompute{};  // one layer, one micro-batch
  double model_flops = 0;                                        // per iteration, whole job
  double hardware_flops = 0;                                     // including recomputation
  AttentionKernel attention = AttentionKernel::flash;
  bool overlap_grad_reduce = true;
  bool tp_comm_overlap = false;  // in effect (needs tp > 1 and sequence parallelism)
  std::optional<MoeReport> moe;
  std::vector<OperatorReport> operators;       // when asked (predict_training's report_operators)
  Precision math_precision = Precision::bf16;  // the rate the matmuls run at (math_rate's used)
};

// What speculative decoding does to a decode step (inference.speculative), at the mean context.
struct SpeculativeReport {
  double tokens_per_step = 1;      // accepted drafts + the target's own token, per sequence
  std::vector<double> acceptance;  // each drafted position's acceptance, given the ones before it
  Seconds step{};                  // one step: k draft passes and one verification
  Seconds draft{}, verify{};       // its two parts
  Seconds tpot_without{};          // the plain decode step (one token per sequence)
  double speedup = 1;              // tpot_without / tpot
};

struct InferencePrediction {
  Seconds ttft{}, tpot{}, e2e_latency{};
  double throughput_tokens_per_s = 0;
  Seconds prefill_compute{}, prefill_comm{}, decode_compute{}, decode_comm{};
  std::int64_t max_batch = 0;
  std::vector<OperatorReport> operators;
  Precision math_precision = Precision::fp16;
  Seconds launch_interval{};  // host launch bound in effect (0 with CUDA graphs)
  std::optional<SpeculativeReport> speculative;
};

struct MemoryReport {
  MemoryBreakdown per_device;
  Bytes capacity{};
  bool fits = true;
};

// The whole training run (training.train_tokens; run/run.h): elapsed time with failures and
// checkpoints, device-hours, energy, money and CO2.
// One later stage of the run (training.stages) as predicted on its own sequence length, batch
// and layout.
struct StageReport {
  double tokens = 0;
  std::int64_t seq_len = 0, global_batch = 0, steps = 0;
  ParallelPlan parallel;
  double iteration_s = 0, tokens_per_s = 0, mfu = 0;
  double ideal_s = 0;  // tokens / tokens_per_s, as the main part's (the last step counted in part)
  double memory_bytes = 0;
  bool fits = true;
};

struct RunReport {
  std::int64_t steps = 0;
  double ideal_s = 0;  // every step at its steady-state time, no failures, no checkpoints
  double wall_s = 0, gpu_hours = 0, goodput = 1;
  double wall_days() const { return wall_s / 86400.0; }
  // checkpoint_s: the time one save blocks training; checkpoint_write_s: its write to storage
  // (equal for blocking saves; overlapped with training for asynchronous ones).
  double checkpoint_interval_s = 0, checkpoint_s = 0, checkpoint_write_s = 0, checkpoint_bytes = 0;
  double expected_failures = 0, job_mtbf_s = 0;  // job_mtbf_s 0 = no failures
  LostTime lost;
  double device_power_w = 0;                     // mean draw of one device while training
  double energy_mwh = 0, device_energy_mwh = 0;  // at the meter (x PUE); devices alone
  std::optional<double> cost_usd, usd_per_million_tokens, co2_t;
  double usd_per_device_hour = 0;
  std::vector<StageReport> stages;  // training.stages; their steps and time are in the totals above
  // The band's high end as a factor on the run's times where what drives them is not known: the
  // run at the highest published failure rate over the run without failures, where the system
  // states no failures_per_device_hour (run/run.h); 1 = nothing widens it.
  double unknown_failures_high = 1;
};

// What a token costs at the inference (or serving) operating point the scenario describes.
struct TokenCost {
  double device_power_w = 0;    // mean draw of one device over the steps
  double joules_per_token = 0;  // at the meter: devices, node overhead, PUE
  double tokens_per_joule = 0;
  std::optional<double> usd_per_million_tokens;  // output tokens
};

struct Prediction {
  ParamCounts params;  // the whole model: total and active per token
  std::optional<TrainingPrediction> training;
  std::optional<InferencePrediction> inference;
  std::optional<ServingPrediction> serving;  // inference.serving: continuous batching
  std::optional<RunReport> run;              // training with train_tokens
  std::optional<TokenCost> inference_cost, serving_cost;
  MemoryReport memory;
  std::optional<MemoryReport> training_memory, inference_memory;
  std::vector<Warning> warnings;
};

Result<Prediction> predict(const Scenario& s);

// The warnings of an "mtp" draft's assumptions (`key` names the block: inference.speculative,
// rl.rollout.speculative): speculative.mtp_not_native (no MTP module in the checkpoint) and
// speculative.decay_assumed (more drafted tokens than modules, no acceptance_decay stated).
void warn_mtp_assumptions(const ModelSpec& model, const std::optional<Speculative>& sp,
                          const std::string& key, std::vector<Warning>& warnings);

// The errors a whole-run plan (training.train_tokens) can meet before anything is timed: a batch
// ramp that exceeds the tokens or whose batch the layout cannot split, and failures too frequent
// for any checkpoint interval (run.no_progress). validate reports them as predict does.
std::optional<Error> check_run(const Scenario& s);
// The layout-dependent part of it: every batch-ramp step and every later stage valid on the
// scenario's layout (run.ramp_batch_invalid, run.stage_invalid). The layout search rejects a
// layout its run could not train, so parallel "auto" never picks one.
std::optional<Error> check_run_layout(const Scenario& s);
// The scenario training a later stage (training.stages[index]) on the scenario's layout: the
// stage's tokens as train_tokens, its sequence length and batch, no ramp, no stages, no
// inference. The stage's own layout keys (or its "auto" layout) are laid over it after.
Scenario stage_workload(const Scenario& s, std::size_t index);

// The whole run (run/run.h) from one iteration's prediction: what predict reports as `run`.
Result<RunReport> plan_run(const Scenario& s, const TrainingPrediction& t, const ParamCounts& params,
                           std::vector<Warning>& warnings);

// Energy at the meter (devices at the step's mix of work, node overhead, PUE) and cost (device-
// hours at the economics' price, plus that energy in the capital form) of one training step of
// the whole job: what the layout search ranks by when asked for energy or cost.
struct StepEnergyCost {
  double energy_j = 0;
  std::optional<double> cost_usd;  // absent without a price (run/run.h has_price)
};
StepEnergyCost training_step_energy_cost(const Scenario& s, const TrainingPrediction& t);

// One operator's roofline numbers from its cost (per execution).
OperatorReport operator_report(const char* name, const char* phase, const OpCost& c, double count);

// Training and inference halves (predict/training.cpp, predict/inference.cpp).
TrainingPrediction predict_training(const Scenario& s, std::vector<Warning>& warnings);
// The same on a graph already built with training_layer_shape(s, training_attention(s)).
// A layout search passes its GemmMemo (cost/op_timer.h) so that layouts share their matmul rooflines.
// report_operators: list the kernels of the slowest stage (TrainingPrediction::operators).
TrainingPrediction predict_training(const Scenario& s, const ModelGraph& g, std::vector<Warning>& warnings,
                                    GemmMemo* gemm_memo = nullptr, bool report_operators = false);
// The attention kernel a training scenario runs: its own choice, else the system's default.
AttentionKernel training_attention(const Scenario& s);
InferencePrediction predict_inference(const Scenario& s, std::vector<Warning>& warnings);

// One step of an inference engine: every layer on the critical path (all pipeline stages in
// sequence) for a batch made of groups of sequences, each group bringing `new_tokens` query
// tokens per sequence over `kv_len` keys: prompts (prefill chunks) and decoding sequences (one
// token each) mixed as a continuous-batching scheduler forms them. The static batch's prefill and
// decode steps are two calls of it.
struct StepCost {
  Seconds compute{}, comm{};
  std::vector<OperatorReport> ops;  // per operator (count = layers), when asked
  Seconds total() const { return compute + comm; }
};
StepCost step_time(const Scenario& s, const std::vector<SeqGroup>& groups, bool report = false,
                   const char* phase = "step");

// The same time for the many steps of a serving run on one scenario (which must outlive it):
// the part of a step that depends only on its token and sequence counts is computed once per
// count, the attention cores every step.
class StepTimer {
 public:
  explicit StepTimer(const Scenario& s);
  ~StepTimer();
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;
  Seconds operator()(const std::vector<SeqGroup>& groups);

 private:
  struct Impl;
  const Scenario& s_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace optimus
