// The output of `optimus predict --json` described once (io/outputs.h): each output object is a
// table of rows, and prediction_to_json, rl_prediction_to_json and prediction_schema all walk
// them. Adding an output field is one row here plus the engine code that computes it.
#include "io/outputs.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "io/json_io.h"
#include "io/json_write.h"
#include "io/objects.h"
#include "io/schema.h"
#include "io/uncertainty.h"
#include "predict/predict.h"
#include "rl/rl.h"
#include "search/auto_layout.h"
#include "uncertainty/uncertainty.h"

namespace optimus {
namespace io {

using namespace nodes;

// A row's value: a captureless reader of the table's object `o`.
#define VAL(expr) [](const auto& o) { return expr; }

namespace {

template <class E>
std::string str(E e) {
  return std::string(name_of(e));
}

Node seconds(const std::string& what) { return amount().desc(what).unit("s"); }
Node bytes() { return amount().unit("bytes"); }

// An output table built once, on first use: `TABLE(T, name) { t.add(...); ... }` defines name(),
// the table of T's rows (the rows of nested tables refer to the tables they nest).
#define TABLE(T, name)                   \
  void fill_##name(Outputs<T>& t);       \
  const Outputs<T>& name() {             \
    static const Outputs<T> table = [] { \
      Outputs<T> t;                      \
      fill_##name(t);                    \
      return t;                          \
    }();                                 \
    return table;                        \
  }                                      \
  void fill_##name(Outputs<T>& t)

// ---- Memory, parameters, warnings ----------------------------------------------------------------

TABLE(MemoryBreakdown, memory_breakdown_out) {
  t.add("weights", bytes(), VAL(o.weights.value));
  t.add("gradients", bytes(), VAL(o.gradients.value));
  t.add("optimizer", bytes(), VAL(o.optimizer.value));
  t.add("activations", bytes(), VAL(o.activations.value));
  t.add("kv_cache", bytes(), VAL(o.kv_cache.value));
  t.add("total", bytes(), VAL(o.total().value));
}

TABLE(MemoryReport, memory_out) {
  t.sub("per_device_bytes", memory_breakdown_out(), VAL(o.per_device))
      .title("Memory by category")
      .desc("The most loaded device (training: the first pipeline stage).");
  t.add("capacity_bytes", amount().desc("Device memory capacity.").unit("bytes"), VAL(o.capacity.value));
  t.add("fits", boolean().desc("total <= capacity."), VAL(o.fits));
  t.maybe("host_bytes",
          amount()
              .desc("Training with parallel.offload_layers: the offloaded activations one device keeps in "
                    "host memory (not in total).")
              .unit("bytes"),
          VAL(o.per_device.host.value > 0 ? std::optional(o.per_device.host.value) : std::nullopt));
}

TABLE(ParamCounts, params_out) {
  t.add("total", amount().desc("Every parameter of the model.").unit("parameters"), VAL(o.total));
  t.add("active",
        amount()
            .desc("Parameters one token passes through: the routed experts count top_k / experts of theirs.")
            .unit("parameters"),
        VAL(o.active));
  t.add("moe_layers", count().desc("Layers with a mixture-of-experts FFN (0 for a dense model)."),
        VAL(o.moe_layers));
}

TABLE(Warning, warning_out) {
  t.add("code", text().desc("Stable dotted code."), VAL(o.code));
  t.add("message", text(), VAL(o.message));
}

// ---- Training ------------------------------------------------------------------------------------

TABLE(TrainingBreakdown, breakdown_out) {
  t.add("compute", seconds(""), VAL(o.compute.value));
  t.add("recompute", seconds(""), VAL(o.recompute.value));
  t.add("tp_comm", seconds(""), VAL(o.tp_comm.value));
  t.add("cp_comm", seconds(""), VAL(o.cp_comm.value));
  t.add("pp_comm", seconds(""), VAL(o.pp_comm.value));
  t.add("dp_comm", seconds(""), VAL(o.dp_comm.value));
  t.add("bubble", seconds(""), VAL(o.bubble.value));
  t.add("optimizer", seconds(""), VAL(o.optimizer.value));
  t.add("ep_comm", seconds("MoE token dispatch/combine (all-to-all) and expert-tensor reductions."),
        VAL(o.ep_comm.value));
  t.add("host",
        seconds("Devices waiting for the host to issue kernels (dropless MoE layers sync with the host once "
                "per layer, software.training_launch_interval_us; a stack that synchronises after each "
                "pipeline exchange, software.pipeline_sync_us; activations offloaded to host memory, "
                "parallel.offload_layers, whose copies outlast the pass they run beside)."),
        VAL(o.host.value));
}

TABLE(BoundBreakdown, by_bound_out) {
  t.add("compute", seconds(""), VAL(o.compute.value));
  t.add("memory", seconds(""), VAL(o.memory.value));
  t.add("communication", seconds(""), VAL(o.communication.value));
  t.add("other", seconds(""), VAL(o.other.value));
}

TABLE(MoeReport, moe_out) {
  t.add("tokens_per_expert",
        amount().desc("Tokens one local expert processes per micro-batch on the busiest rank."),
        VAL(o.tokens_per_expert));
  t.add("dispatch_bytes",
        amount()
            .desc("All-to-all bytes one rank sends per MoE layer and micro-batch (the combine sends as many "
                  "back).")
            .unit("bytes"),
        VAL(o.dispatch_bytes));
  t.add("all_to_all_layer_s", seconds("Dispatch + combine of one MoE layer, forward, one micro-batch."),
        VAL(o.all_to_all_layer.value));
  t.add("expert_params_per_device",
        amount().desc("Routed-expert parameters on one device.").unit("parameters"),
        VAL(o.expert_params_per_device));
  t.add("expert_dp", count().desc("Expert-data-parallel replicas: tp x cp x dp / (ep x etp)."),
        VAL(o.expert_dp));
  t.add("layers_first_stage",
        count().desc("MoE layers on the first pipeline stage (whose expert parameters "
                     "expert_params_per_device counts)."),
        VAL(o.layers_first_stage));
}

TABLE(TrainingPrediction, training_out) {
  t.add("iteration_time_s", seconds("Wall time of one optimizer step."), VAL(o.iteration_time.value));
  t.add("tokens_per_s", amount().desc("global_batch x seq_len / iteration time.").unit("tokens/s"),
        VAL(o.tokens_per_s));
  t.add("mfu", amount().desc("Model FLOPs utilisation.").unit("fraction"), VAL(o.mfu));
  t.add("hfu", amount().desc("Hardware FLOPs utilisation (recomputation counted).").unit("fraction"),
        VAL(o.hfu));
  t.maybe("time_to_train_s", seconds("Time to train on train_tokens (when given)."),
          VAL(o.time_to_train ? std::optional(o.time_to_train->value) : std::nullopt));
  t.sub("breakdown_s", breakdown_out(), VAL(o.breakdown))
      .title("Training breakdown")
      .desc("Exposed (non-overlapped) time per cause on the critical path; sums to iteration_time_s.");
  t.sub("by_bound_s", by_bound_out(), VAL(o.by_bound)).desc("The iteration time by what bounds it.");
  t.add("micro_batches", count().desc("Micro-batches per pipeline per step."), VAL(o.micro_batches));
  t.add("layer_s",
        output({{"forward", seconds("")}, {"backward", seconds("")}, {"recompute", seconds("")}})
            .desc("One layer, one micro-batch."),
        VAL((ojson{{"forward", o.layer_forward.value},
                   {"backward", o.layer_backward.value},
                   {"recompute", o.layer_recompute.value}})));
  t.maybe_sub("moe", moe_out(), VAL(o.moe)).desc("What the MoE layers do (mixture-of-experts models only).");
  t.add("model_flops", amount().desc("Per iteration, whole job.").unit("FLOP"), VAL(o.model_flops));
  t.add("hardware_flops", amount().desc("Per iteration, whole job, recomputation included.").unit("FLOP"),
        VAL(o.hardware_flops));
  t.add("assumed",
        output({{"attention", choice<AttentionKernel>()},
                {"overlap_grad_reduce", boolean()},
                {"tp_comm_overlap", boolean()}})
            .desc("The software choices in effect."),
        VAL((ojson{{"attention", str(o.attention)},
                   {"overlap_grad_reduce", o.overlap_grad_reduce},
                   {"tp_comm_overlap", o.tp_comm_overlap}})));
}

// ---- Inference -----------------------------------------------------------------------------------

TABLE(OperatorReport, operator_out) {
  t.add("name", text().desc("Operator name."), VAL(o.name));
  t.add("phase", text().desc("prefill or decode."), VAL(o.phase));
  t.add("flops", amount().desc("Per device, per execution.").unit("FLOP"), VAL(o.flops));
  t.add("bytes", amount().desc("Memory bytes per device, per execution.").unit("bytes"), VAL(o.bytes));
  t.add("arithmetic_intensity", amount().unit("FLOP/byte"), VAL(o.intensity));
  t.add("time_s", seconds("Per execution."), VAL(o.time.value));
  t.add("achieved_flops_per_s", amount().unit("FLOP/s"), VAL(o.achieved_flops_per_s));
  t.add("bound", choice<Bound>().desc("What bounds its time."), VAL(str(o.bound)));
  t.add("count", amount().desc("Executions per phase (layers on the stage)."), VAL(o.count));
  t.describe("Operator", "One operator of the inference task graph (per device) with its roofline numbers.");
}

TABLE(TokenCost, token_cost_out) {
  t.add("device_power_W", amount().desc("Mean draw of one device over the steps.").unit("W"),
        VAL(o.device_power_w));
  t.add("joules_per_token",
        amount().desc("Energy per output token at the meter (devices, node overhead, PUE).").unit("J"),
        VAL(o.joules_per_token));
  t.add("tokens_per_joule", amount().desc("Its inverse.").unit("tokens/J"), VAL(o.tokens_per_joule));
  t.maybe("usd_per_million_output_tokens",
          amount()
              .desc("Device-hours (and energy, capital form) per million output tokens; absent without a "
                    "device price.")
              .unit("USD"),
          VAL(o.usd_per_million_tokens));
  t.describe("Token cost", "Energy and price of an output token at the scenario's operating point.");
}

TABLE(SpeculativeReport, speculative_out) {
  t.add("tokens_per_step", amount().desc("Tokens a sequence gains per step: (1 - a^(k+1)) / (1 - a)."),
        VAL(o.tokens_per_step));
  t.add("step_s", seconds("One speculative step at the mean context: draft + verify."), VAL(o.step.value));
  t.add("draft_s", seconds("The draft's k passes of one token."), VAL(o.draft.value));
  t.add("verify_s", seconds("The target's step over k + 1 tokens per sequence."), VAL(o.verify.value));
  t.add("tpot_without_s", seconds("The plain decode step, one token per sequence."),
        VAL(o.tpot_without.value));
  t.add("speedup", amount().desc("tpot_without_s / tpot_s (below 1: speculation costs more than it saves)."),
        VAL(o.speedup));
}

// The inference result: the engine's InferencePrediction with the footprint and cost beside it.
struct InferenceOut {
  const InferencePrediction& i;
  const Prediction& p;
};

Node compute_and_communication() {
  return output({{"compute", seconds("")}, {"communication", seconds("")}});
}

TABLE(InferenceOut, inference_out) {
  t.add("ttft_s", seconds("Time to first token."), VAL(o.i.ttft.value));
  t.add("tpot_s", seconds("Mean time per later output token."), VAL(o.i.tpot.value));
  t.add("e2e_latency_s", seconds("ttft + (output_len - 1) tpot."), VAL(o.i.e2e_latency.value));
  t.add("throughput_tokens_per_s",
        amount().desc("batch x output_len / e2e latency, one replica.").unit("tokens/s"),
        VAL(o.i.throughput_tokens_per_s));
  t.add("max_batch", count().desc("Largest batch that fits for the given lengths.").unit("sequences"),
        VAL(o.i.max_batch));
  t.add("prefill_s", compute_and_communication().desc("The prompt step."),
        VAL((ojson{{"compute", o.i.prefill_compute.value}, {"communication", o.i.prefill_comm.value}})));
  t.add("decode_step_s",
        compute_and_communication().desc("One decode step; per output token under speculative decoding."),
        VAL((ojson{{"compute", o.i.decode_compute.value}, {"communication", o.i.decode_comm.value}})));
  t.add("math_precision", choice<Precision>().desc("The precision the math runs in."),
        VAL(std::string(to_string(o.i.math_precision))));
  t.add("assumed",
        output({{"launch_interval_us",
                 amount().desc("Host launch interval in effect (0 with CUDA graphs).").unit("us")}}),
        VAL((ojson{{"launch_interval_us", o.i.launch_interval.value / kMicro}})));
  t.maybe_sub("speculative", speculative_out(), VAL(o.i.speculative))
      .desc("inference.speculative: what speculation does to a decode step.");
  // The rows below show shared definitions ($defs) in the schema instead of their own nodes.
  t.list("operators", operator_out(), VAL(o.i.operators)) = array_of(ref("operator"));
  t.maybe_sub("memory", memory_out(), VAL(o.p.inference_memory)) =
      ref("memory").desc("The inference footprint, when the scenario also trains.");
  t.maybe_sub("cost", token_cost_out(), VAL(o.p.inference_cost)) = ref("token_cost");
  t.describe("Inference result");
}

// ---- Serving -------------------------------------------------------------------------------------

TABLE(LatencyStats, latency_out) {
  t.add("mean", seconds(""), VAL(o.mean));
  t.add("p50", seconds(""), VAL(o.p50));
  t.add("p90", seconds(""), VAL(o.p90));
  t.add("p99", seconds(""), VAL(o.p99));
}

TABLE(ServingSloReport, slo_out) {
  t.add("ttft_s", seconds("Objective (0: none)."), VAL(o.ttft_s));
  t.add("tpot_s", seconds("Objective (0: none)."), VAL(o.tpot_s));
  t.add("percentile", amount(), VAL(o.percentile));
  t.add("ttft_at_percentile", seconds("Over the requests."), VAL(o.ttft_at_percentile));
  t.add("tpot_at_percentile", seconds("Over the requests."), VAL(o.tpot_at_percentile));
  t.add("itl_s", seconds("Objective (0: none)."), VAL(o.itl_s));
  t.add("itl_at_percentile", seconds("Over every inter-token gap (itl_s)."), VAL(o.itl_at_percentile));
  t.add("met", boolean().desc("Every objective given holds at the percentile."), VAL(o.met));
}

TABLE(ServingStepSample, step_sample_out) {
  t.add("t_s", seconds("End of the step since the first arrival."), VAL(o.t_s));
  t.add("step_s", seconds("Its duration."), VAL(o.step_s));
  t.add("running", count(), VAL(o.running));
  t.add("waiting", count(), VAL(o.waiting));
  t.add("prefill_tokens", count(), VAL(o.prefill_tokens));
  t.add("decode_tokens", count(), VAL(o.decode_tokens));
  t.add("kv_utilisation", amount(), VAL(o.kv_utilisation));
  t.describe("Step sample");
}

// The serving result: the simulation's numbers with the token cost beside them.
struct ServingOut {
  const ServingPrediction& v;
  const std::optional<TokenCost>& cost;
};

void add_serving_latencies(Outputs<ServingOut>& t) {
  const auto over_requests = [](const std::string& what) { return what + " over the completed requests."; };
  t.sub("ttft_s", latency_out(), VAL(o.v.ttft))
      .desc(over_requests("Time to first token (arrival to the end of the prompt's last chunk)"));
  t.sub("tpot_s", latency_out(), VAL(o.v.tpot))
      .desc(over_requests("Time per output token after the first (inter-token latency)"));
  t.add("mean_itl_s",
        seconds(
            "Token-weighted mean inter-token latency: the sum over requests of (last token - first token) / "
            "the sum of (output - 1), every gap counted once (\"Mean ITL\" of TensorRT-LLM's and vLLM's "
            "benchmarks); tpot_s.mean weights each request once, and the two are equal when every output "
            "has the same length."),
        VAL(o.v.mean_itl_s));
  t.sub("itl_s", latency_out(), VAL(o.v.itl))
      .desc(over_requests(
          "Inter-token latency, token-weighted (mean equals mean_itl_s; the percentiles from log-spaced bins "
          "0.7% wide, as vLLM's \"Median / P99 ITL\"; a step that also prefills prompt chunks lengthens the "
          "gap of every sequence decoding in it, a preempted or queued request's wait is one gap, a verified "
          "speculation's n tokens n gaps of a 1/n share each): every gap between two output tokens counted "
          "once"));
  t.sub("e2e_latency_s", latency_out(), VAL(o.v.e2e)).desc(over_requests("Arrival to last token"));
}

TABLE(ServingOut, serving_out) {
  t.add("requests_per_s", amount().desc("Completed requests / duration.").unit("requests/s"),
        VAL(o.v.requests_per_s));
  t.add("input_tokens_per_s", amount().desc("Prompt tokens / duration, whole deployment.").unit("tokens/s"),
        VAL(o.v.input_tokens_per_s));
  t.add("output_tokens_per_s",
        amount().desc("Generated tokens / duration, whole deployment.").unit("tokens/s"),
        VAL(o.v.output_tokens_per_s));
  t.add("output_tokens_per_s_per_gpu", amount().desc("output_tokens_per_s / devices.").unit("tokens/s"),
        VAL(o.v.output_tokens_per_s_per_gpu));
  add_serving_latencies(t);
  t.add("mean_batch", amount().desc("Time-weighted sequences per step, per replica.").unit("sequences"),
        VAL(o.v.mean_batch));
  t.add("kv_utilisation", amount().desc("Time-weighted share of KV blocks in use."), VAL(o.v.kv_utilisation));
  t.add("preemptions", count().desc("Requests evicted for KV blocks and recomputed (on_demand)."),
        VAL(o.v.preemptions));
  t.add(
      "goodput_requests_per_s",
      amount().desc("Requests meeting both SLOs / duration (all of them without an slo).").unit("requests/s"),
      VAL(o.v.goodput_requests_per_s));
  t.add("duration_s", seconds("First arrival to last completion."), VAL(o.v.duration_s));
  t.add("completed", count().desc("Requests simulated."), VAL(o.v.completed));
  t.add("steps", count().desc("Scheduler steps simulated, all replicas."), VAL(o.v.steps));
  t.add("replicas", count().desc("Replicas (both pools when disaggregated)."), VAL(o.v.replicas));
  t.add("devices", count().desc("Devices of the deployment."), VAL(o.v.devices));
  t.add("kv_capacity_tokens",
        count().desc("KV cache capacity of one replica (the decode pool's).").unit("tokens"),
        VAL(o.v.kv_capacity_tokens));
  t.add("max_batch", count().desc("The scheduler's sequence limit in effect.").unit("sequences"),
        VAL(o.v.max_batch));
  t.add("max_num_tokens", count().desc("The step token budget in effect.").unit("tokens"),
        VAL(o.v.max_num_tokens));
  t.add("kv_transfer_s", seconds("Mean prefill-to-decode KV hand-off (disaggregated; else 0)."),
        VAL(o.v.kv_transfer_s));
  t.maybe_sub("slo", slo_out(), VAL(o.v.slo)).desc("When the scenario states objectives.");
  t.list("timeline", step_sample_out(), VAL(o.v.timeline))
      .desc("Steps of the first replica (the decode pool's when disaggregated), sampled at most 256 times.");
  t.maybe_sub("cost", token_cost_out(), VAL(o.cost)) = ref("token_cost");
  t.describe("Serving result");
}

// ---- Run -----------------------------------------------------------------------------------------

// A layout the engine chose (parallel "auto", a stage, an RL pool): the parallel table as written.
Node chosen_layout_schema() { return output_schema_of(parallel_fields()).title("Chosen layout"); }

TABLE(LostTime, lost_out) {
  t.add("checkpoint_writes", seconds(""), VAL(o.checkpoint_writes));
  t.add("lost_work", seconds("Work redone after failures."), VAL(o.lost_work));
  t.add("restarts", seconds(""), VAL(o.restarts));
  t.add(
      "production",
      seconds("The steps' time beyond the modelled rate at a stated system.operations.production_efficiency "
              "(0 otherwise)."),
      VAL(o.production));
  t.add("total", seconds(""), VAL(o.total()));
}

TABLE(StageReport, stage_out) {
  t.add("tokens", amount().unit("tokens"), VAL(o.tokens));
  t.add("seq_len", count().unit("tokens"), VAL(o.seq_len));
  t.add("global_batch", count().unit("sequences"), VAL(o.global_batch));
  t.add("parallel", chosen_layout_schema().title("Stage layout"), VAL(plan_json(o.parallel)));
  t.add("steps", count(), VAL(o.steps));
  t.add("iteration_time_s", seconds("One step at this stage's steady state."), VAL(o.iteration_s));
  t.add("tokens_per_s", amount().unit("tokens/s"), VAL(o.tokens_per_s));
  t.add("mfu", amount().unit("fraction"), VAL(o.mfu));
  t.add("ideal_time_s", seconds("tokens / tokens_per_s."), VAL(o.ideal_s));
  t.add("memory_bytes", amount().desc("Per device, most loaded.").unit("bytes"), VAL(o.memory_bytes));
  t.add("fits", boolean(), VAL(o.fits));
  t.describe("Stage result");
}

// The run's price keys: written when the economics give a device price.
void add_run_cost(Outputs<RunReport>& t) {
  t.maybe("cost_usd", amount().desc("device-hours x price (+ energy, capital form).").unit("USD"),
          VAL(o.cost_usd));
  t.maybe("usd_per_million_tokens", amount().desc("cost_usd per million tokens trained.").unit("USD"),
          VAL(o.cost_usd ? o.usd_per_million_tokens : std::nullopt));
  t.maybe("usd_per_gpu_hour", amount().desc("The device-hour price in effect.").unit("USD/h"),
          VAL(o.cost_usd ? std::optional(o.usd_per_device_hour) : std::nullopt));
  t.maybe("co2_t", amount().desc("energy x economics.grid_kg_co2_per_kwh.").unit("t"), VAL(o.co2_t));
}

TABLE(RunReport, run_out) {
  t.add("steps",
        count().desc("Optimizer steps: the batch ramp's, then the steady batch's, then the stages'."),
        VAL(o.steps));
  t.add("ideal_time_s", seconds("Every step at its steady-state time; no failures or checkpoints."),
        VAL(o.ideal_s));
  t.add(
      "wall_time_s",
      seconds("Elapsed: ideal_time_s / goodput (over a stated system.operations.production_efficiency too)."),
      VAL(o.wall_s));
  t.add("wall_days", amount().desc("wall_time_s in days.").unit("days"), VAL(o.wall_days()));
  t.add("gpu_hours", amount().desc("num_devices x wall time.").unit("device-hours"), VAL(o.gpu_hours));
  t.add("energy_mwh", amount().desc("At the meter: devices, node overhead, x PUE.").unit("MWh"),
        VAL(o.energy_mwh));
  t.add("device_energy_mwh", amount().desc("The devices alone (no overhead, no PUE).").unit("MWh"),
        VAL(o.device_energy_mwh));
  t.add("device_power_W", amount().desc("Mean draw of one device while training.").unit("W"),
        VAL(o.device_power_w));
  add_run_cost(t);
  t.add("goodput",
        amount()
            .desc("Compute time / elapsed time: the share failures and checkpoints leave.")
            .unit("fraction"),
        VAL(o.goodput));
  t.add("checkpoint_interval_s", seconds("Compute between checkpoints (0: none)."),
        VAL(o.checkpoint_interval_s));
  t.add("checkpoint_s",
        seconds("The time one checkpoint blocks training (the write; the copy to host memory under "
                "operations.checkpoint_async)."),
        VAL(o.checkpoint_s));
  t.add("checkpoint_write_s", seconds("One checkpoint's write to storage."), VAL(o.checkpoint_write_s));
  t.add("checkpoint_bytes", amount().desc("Weights, master weights and optimizer state.").unit("bytes"),
        VAL(o.checkpoint_bytes));
  t.add("expected_failures", amount().desc("wall time / job MTBF."), VAL(o.expected_failures));
  t.add("job_mtbf_s", seconds("Mean time between failures of the job (0: no failures)."), VAL(o.job_mtbf_s));
  t.sub("lost_s", lost_out(), VAL(o.lost)).desc("wall_time_s - ideal_time_s by cause.");
  t.maybe("stages", array_of(stage_out().schema()),
          VAL(o.stages.empty() ? std::nullopt : std::optional(stage_out().write_all(o.stages))))
      .desc(
          "training.stages, each as predicted on its own sequence length, batch and layout; included in "
          "steps, ideal_time_s and everything after.");
  t.describe("Run result", "The whole training run (training.train_tokens).");
}

// ---- RL ------------------------------------------------------------------------------------------

// The RL result: the prediction with the scenario's rl block it echoes.
struct RlOut {
  const RlWorkload& rl;
  const RlPrediction& p;
};

TABLE(RlPhases, rl_phases_out) {
  t.add("rollout", seconds("The rollout's makespan (first prompt to last response)."), VAL(o.rollout));
  t.add("reward", seconds("Reward model forward (0: rule-based)."), VAL(o.reward));
  t.add("reference", seconds("Reference model forward."), VAL(o.reference));
  t.add("old_logprob", seconds("Old log-prob forward (and ppo's critic values)."), VAL(o.old_logprob));
  t.add("train", seconds("mini_batches optimizer steps (and ppo's critic's)."), VAL(o.train));
  t.add("weight_sync", seconds("The policy's weights to the engine."), VAL(o.weight_sync));
  t.add("swap", seconds("Colocated: engine (and trainer) state to host and back."), VAL(o.swap));
}

TABLE(RlPoolMemory, rl_pool_memory_out) {
  t.add("per_device_bytes", bytes(), VAL(o.bytes_per_device));
  t.add("capacity_bytes", bytes(), VAL(o.capacity_bytes));
  t.add("fits", boolean(), VAL(o.fits));
  t.add("what", text().desc("What does not fit (empty when it fits)."), VAL(o.what));
}

TABLE(RlOut, rl_rollout_out) {
  t.add("devices", count(), VAL(o.p.rollout_devices));
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.p.rollout_plan)));
  t.add("responses", count(), VAL(o.p.responses));
  t.add("output_tokens", amount().unit("tokens"), VAL(o.p.output_tokens));
  t.add("output_tokens_per_s", amount().unit("tokens/s"), VAL(o.p.output_tokens_per_s));
  t.add("longest_response_s", seconds("First prompt to the last response."), VAL(o.p.longest_response_s));
  t.add("mean_response_s", seconds("Mean time of a response."), VAL(o.p.mean_response_s));
  t.add("mean_batch", amount().desc("Time-weighted running sequences per replica."), VAL(o.p.mean_batch));
  t.add("preemptions", count(), VAL(o.p.preemptions));
  t.add("partial", boolean().desc("Partial rollout in effect."), VAL(o.rl.partial_rollout));
  t.add("makespan_s",
        seconds("The step's responses alone, first prompt to last response (the phase unless partial)."),
        VAL(o.p.rollout_makespan_s));
}

TABLE(RlOut, rl_train_out) {
  t.add("devices", count(), VAL(o.p.train_devices));
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.p.train_plan)));
  t.add("global_batch", count().desc("Sequences per optimizer step."), VAL(o.p.train_global_batch));
  t.add("seq_len", count().unit("tokens"), VAL(o.p.train_seq_len));
  t.add("iteration_time_s", seconds("One optimizer step."), VAL(o.p.train_iteration_s));
  t.add("mini_batches", count(), VAL(o.rl.mini_batches));
  t.add("mfu", amount().unit("fraction"), VAL(o.p.train_mfu));
  t.add("critic_s", seconds("ppo: the critic's forward and update."), VAL(o.p.critic_s));
  t.add("offload", text(), VAL(str(o.rl.offload)));
  t.add("offload_bytes_per_device",
        amount()
            .desc("Host-link traffic of one device per step (the busiest role's under roles separate).")
            .unit("bytes"),
        VAL(o.p.offload_bytes_per_device));
  t.add("offload_s", seconds("offload_bytes_per_device over the host link (inside the phases)."),
        VAL(o.p.offload_s));
}

// One model of the trainer under rl.roles "separate" (rl/rl.h RlRole); the schema's rl_role.
TABLE(RlRole, rl_role_out) {
  t.add("devices", count(), VAL(o.devices));
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.plan)));
  t.add("forward_s", seconds("Its forward passes per step (0: none)."), VAL(o.forward_s));
  t.add("update_s", seconds("Its updates per step (0: a frozen model)."), VAL(o.update_s));
  t.add("idle_s", seconds("Its wait per step for the slowest role."), VAL(o.idle_s));
  t.add("wait_after_forward_s", seconds("After its forward, the wait for the slowest forward of the roles."),
        VAL(o.wait_after_forward_s));
  t.add("wait_after_update_s", seconds("After its update, the wait for the slower update (actor, critic)."),
        VAL(o.wait_after_update_s));
  t.add("per_device_bytes", bytes(), VAL(o.bytes_per_device));
  t.add("fits", boolean(), VAL(o.fits));
  t.describe("RL role");
}

// The role named `name` of the prediction (roles "separate" only; absent: not in the job).
const RlRole* rl_role_named(const RlPrediction& p, const std::string& name) {
  for (const RlRole& x : p.roles)
    if (x.name == name) return &x;
  return nullptr;
}

// rl.roles: the mode, and under separate one entry per role the job has.
TABLE(RlOut, rl_roles_out) {
  t.add("mode", text(), VAL(str(o.rl.roles)));
  for (const char* role : {"actor", "critic", "reference", "reward"})
    t.maybe(role, ref("rl_role"), [role](const RlOut& o) -> std::optional<ojson> {
      const RlRole* x = rl_role_named(o.p, role);
      if (!x) return std::nullopt;
      return rl_role_out().write(*x);
    });
  t.describe("", "mode; under separate also one entry per role the job has.");
}

TABLE(RlPrediction, rl_run_out) {
  t.add("train_steps", count(), VAL(o.train_steps));
  t.add("wall_days", amount().unit("days"), VAL(o.run_wall_s / 86400.0));
  t.add("gpu_hours", amount().unit("device-hours"), VAL(o.run_gpu_hours));
  t.add("energy_mwh", amount().unit("MWh"), VAL(o.run_energy_mwh));
  t.add("cost_usd", amount().unit("USD"), VAL(o.run_cost_usd));
}

TABLE(RlOut, rl_out) {
  t.add("step_time_s",
        seconds("One RL step: colocated, the sum of the phases; split asynchronous, the slower pool plus the "
                "weight sync."),
        VAL(o.p.step_time_s));
  t.sub("phases_s", rl_phases_out(), VAL(o.p.phases));
  t.add("idle_s",
        output({{"rollout", seconds("The rollout pool waiting per step.")},
                {"train", seconds("The training pool waiting per step.")}}),
        VAL((ojson{{"rollout", o.p.idle_rollout_s}, {"train", o.p.idle_train_s}})));
  t.add("placement", text(), VAL(str(o.rl.placement)));
  t.add("staleness", count(), VAL(o.rl.staleness));
  t.add("tokens_per_step", amount().desc("Prompt + response tokens trained per step.").unit("tokens"),
        VAL(o.p.tokens_per_step));
  t.add("tokens_per_s", amount().unit("tokens/s"), VAL(o.p.tokens_per_s));
  t.add("tokens_per_s_per_gpu", amount().unit("tokens/s"), VAL(o.p.tokens_per_s_per_gpu));
  t.sub("rollout", rl_rollout_out(), VAL(o));
  t.sub("train", rl_train_out(), VAL(o));
  t.sub("roles", rl_roles_out(), VAL(o));
  t.add("weight_sync", output({{"method", text()}, {"bytes", amount().unit("bytes")}}),
        VAL((ojson{{"method", str(o.rl.weight_sync)}, {"bytes", o.p.weight_sync_bytes}})));
  t.add("swap_bytes_per_device", bytes(), VAL(o.p.swap_bytes_per_device));
  const Node pool = rl_pool_memory_out().schema();
  t.add("memory", output({{"rollout", pool}, {"train", pool}}),
        VAL((ojson{{"rollout", rl_pool_memory_out().write(o.p.rollout_memory)},
                   {"train", rl_pool_memory_out().write(o.p.train_memory)}})));
  t.maybe_sub("run", rl_run_out(), VAL(o.p.train_steps > 0 ? &o.p : nullptr)).desc("With train_steps.");
  t.describe("RL result");
}

// ---- The prediction ------------------------------------------------------------------------------

ojson warnings_json(const std::vector<Warning>& warnings) { return warning_out().write_all(warnings); }

// The keys every prediction ends with: its footprint, parameter counts and warnings.
void add_common(ojson& j, const MemoryReport& memory, const ParamCounts& params,
                const std::vector<Warning>& warnings) {
  j["memory"] = memory_out().write(memory);
  j["params"] = params_out().write(params);
  j["warnings"] = warnings_json(warnings);
}

// parallel: "auto": the layout the search chose and how it searched.
struct AutoOut {
  const ParallelPlan& plan;
  const AutoLayout& search;
};

TABLE(AutoOut, parallel_auto_out) {
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.plan)));
  t.add("mode", text().desc("training or inference: what the search ranked by."), VAL(str(o.search.mode)));
  t.add("evaluated", count().desc("Layouts in the search space."), VAL(o.search.evaluated));
  t.add("feasible", count().desc("Layouts that fit and were timed."), VAL(o.search.feasible));
  t.add("narrowed",
        output({{"zero_stage", count()}, {"micro_batch", count()}, {"interleave", count()}},
               {"zero_stage", "micro_batch", "interleave"})
            .desc("Keys auto fixed because the whole space was past the search's cap (zero_stage 1, then "
                  "micro_batch 1, then interleave 1, each searched again); empty when the whole space was "
                  "searched."),
        [](const AutoOut& o) {
          ojson narrowed = ojson::object();  // keys fixed to fit the cap
          for (const auto& [key, value] : o.search.narrowed) narrowed[key] = value;
          return narrowed;
        });
  t.describe("",
             "With parallel: \"auto\": the layout the search chose (the numbers above are its prediction).");
}

Node calibration_output_schema() {
  return output({{"applied", boolean()},
                 {"factors", calibration_factors_node()},
                 {"band", output({{"low", amount()}, {"high", amount()}})
                              .desc("90% band of the calibrated numbers, as multipliers.")},
                 {"reason", text().desc("Why it did not apply.")},
                 {"uncalibrated", node({{"type", "object"}, {"additionalProperties", amount().json()}})
                                      .desc("Each headline number (dotted output path) predicted without the "
                                            "calibration, on the same layout.")}},
                {"band", "reason", "uncalibrated"})
      .desc(
          "With a scenario's calibration: whether it applied (device and software match), its factors and "
          "the "
          "uncalibrated headline numbers.");
}

Node regime_schema() {
  return object({{"training", text()},
                 {"inference", text()},
                 {"serving", text()},
                 {"memory", text()},
                 {"run", text()}})
      .desc(
          "The accuracy regime of each workload (training/dense/earlier, training/moe/fp4-generation, "
          "inference/eager, inference/graphs, serving/dense, serving/moe, memory/training, "
          "run/fp8-generation "
          "or run/earlier (a whole training run), ...): what the uncertainty bands are fitted by.");
}

Node uncertainty_schema() {
  return node({{"type", "object"},
               {"additionalProperties",
                output({{"low", amount()},
                        {"high", amount()},
                        {"regime", text().desc("The regime whose band applies (a parent when the scenario's "
                                               "own has too few rows).")},
                        {"cases", count().desc("Validation rows the band is fitted on.")}})
                    .title("Band")
                    .json()}})
      .desc(
          "80% bands of the headline numbers, keyed by their dotted output path (training.iteration_time_s, "
          "inference.ttft_s, serving.output_tokens_per_s, memory.per_device_bytes.total, run.gpu_hours, "
          "run.wall_days, ...): the 10th-90th percentile of measured / predicted over the validation rows of "
          "the scenario's regime (presets/uncertainty/bands.json, scripts/fit_uncertainty.py).");
}

}  // namespace

ojson prediction_schema() {
  ojson j;
  j["$schema"] = kDraft;
  j["$id"] = "urn:optimus:prediction";
  Node root =
      output(
          {
              {"training", ref("training")},
              {"inference", ref("inference")},
              {"serving", ref("serving").desc("When the scenario has inference.serving.")},
              {"run", ref("run").desc("When the scenario has training.train_tokens.")},
              {"rl",
               ref("rl").desc("When the scenario has an rl job (then no training or inference; memory is the "
                              "trainer's).")},
              {"parallel_auto", parallel_auto_out().schema()},
              {"calibration", calibration_output_schema()},
              {"memory", ref("memory").desc("Per-device memory (training's when both are asked).")},
              {"params", params_out().schema().desc("Parameter counts of the whole model.")},
              {"warnings", array_of(warning_out().schema().title("Warning"))},
              {"regime", regime_schema()},
              {"uncertainty", uncertainty_schema()},
          },
          {"training", "inference", "serving", "run", "parallel_auto", "calibration", "rl"})
          .title("Prediction")
          .desc("The output of optimus predict --json.");
  const ojson body = root.json();
  for (const auto& [k, v] : body.items()) j[k] = v;
  j["$defs"] = {{"training", training_out().schema().title("Training result").json()},
                {"inference", inference_out().schema().json()},
                {"serving", serving_out().schema().json()},
                {"operator", operator_out().schema().json()},
                {"memory", memory_out().schema().title("Memory").json()},
                {"run", run_out().schema().json()},
                {"rl", rl_out().schema().json()},
                {"chosen_layout", chosen_layout_schema().json()},
                {"rl_role", rl_role_out().schema().json()},
                {"token_cost", token_cost_out().schema().json()}};
  return j;
}

}  // namespace io

nlohmann::ordered_json parallel_auto_json(const ParallelPlan& plan, const AutoLayout& search) {
  return io::parallel_auto_out().write({plan, search});
}

nlohmann::ordered_json serving_json(const ServingPrediction& v) {
  return io::serving_out().write({v, std::nullopt});
}

std::string prediction_to_json(const Scenario& s, const Prediction& p, int indent) {
  using namespace io;
  io::ojson j;
  if (p.training) j["training"] = training_out().write(*p.training);
  if (p.inference) j["inference"] = inference_out().write({*p.inference, p});
  if (p.serving) j["serving"] = serving_out().write({*p.serving, p.serving_cost});
  if (p.run) j["run"] = run_out().write(*p.run);
  add_common(j, p.memory, p.params, p.warnings);
  const Regimes r = regimes_of(s, p);
  io::ojson rj = io::ojson::object();
  for (const auto& [k, v] : {std::pair{"training", &r.training},
                             {"inference", &r.inference},
                             {"serving", &r.serving},
                             {"memory", &r.memory},
                             {"run", &r.run}})
    if (!v->empty()) rj[k] = *v;
  j["regime"] = rj;
  j["uncertainty"] = uncertainty_json(s, p);
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

std::string rl_prediction_to_json(const Scenario& s, const RlPrediction& p, int indent) {
  using namespace io;
  io::ojson j;
  j["rl"] = rl_out().write({*s.rl, p});
  const ParamCounts params = count_params(s.model, s.model.max_seq_len > 0 ? s.model.max_seq_len : 4096);
  add_common(j, p.trainer_memory, params, p.warnings);
  j["regime"] = io::ojson::object();  // no uncertainty bands are fitted for RL steps yet
  j["uncertainty"] = io::ojson::object();
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace optimus
