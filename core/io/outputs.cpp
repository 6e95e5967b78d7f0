// The output of `optimus predict --json` described once (io/outputs.h): each output object is a
// table of rows, and prediction_to_json, rl_prediction_to_json and prediction_schema all walk
// them. Adding an output field is one row here, its row in docs/contract.md (meaning, unit) and
// the engine code that computes it.
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
#include "model/spec.h"
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

// A list of numbers as a JSON array (element by element: the first-load module keeps no
// conversion of std::vector<double> for one row).
ojson numbers(const std::vector<double>& xs) {
  ojson a = ojson::array();
  for (const double x : xs) a.push_back(x);
  return a;
}

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
  t.add("weights", amount(), VAL(o.weights.value));
  t.add("gradients", amount(), VAL(o.gradients.value));
  t.add("optimizer", amount(), VAL(o.optimizer.value));
  t.add("activations", amount(), VAL(o.activations.value));
  t.add("kv_cache", amount(), VAL(o.kv_cache.value));
  t.add("total", amount(), VAL(o.total().value));
}

TABLE(MemoryReport, memory_out) {
  t.sub("per_device_bytes", memory_breakdown_out(), VAL(o.per_device)).title("Memory by category");
  t.add("capacity_bytes", amount(), VAL(o.capacity.value));
  t.add("fits", boolean(), VAL(o.fits));
  t.maybe("host_bytes", amount(),
          VAL(o.per_device.host.value > 0 ? std::optional(o.per_device.host.value) : std::nullopt));
  t.maybe("pipeline_stage", count(),
          VAL(o.per_device.stage >= 0 ? std::optional(o.per_device.stage) : std::nullopt));
}

TABLE(ParamCounts, params_out) {
  t.add("total", amount(), VAL(o.total));
  t.add("active", amount(), VAL(o.active));
  t.add("moe_layers", count(), VAL(o.moe_layers));
}

TABLE(Warning, warning_out) {
  t.add("code", text(), VAL(o.code));
  t.add("message", text(), VAL(o.message));
}

// ---- Training ------------------------------------------------------------------------------------

TABLE(TrainingBreakdown, breakdown_out) {
  t.add("compute", amount(), VAL(o.compute.value));
  t.add("recompute", amount(), VAL(o.recompute.value));
  t.add("tp_comm", amount(), VAL(o.tp_comm.value));
  t.add("cp_comm", amount(), VAL(o.cp_comm.value));
  t.add("pp_comm", amount(), VAL(o.pp_comm.value));
  t.add("dp_comm", amount(), VAL(o.dp_comm.value));
  t.add("bubble", amount(), VAL(o.bubble.value));
  t.add("optimizer", amount(), VAL(o.optimizer.value));
  t.add("ep_comm", amount(), VAL(o.ep_comm.value));
  t.add("host", amount(), VAL(o.host.value));
}

TABLE(BoundBreakdown, by_bound_out) {
  t.add("compute", amount(), VAL(o.compute.value));
  t.add("memory", amount(), VAL(o.memory.value));
  t.add("communication", amount(), VAL(o.communication.value));
  t.add("other", amount(), VAL(o.other.value));
}

TABLE(MoeReport, moe_out) {
  t.add("tokens_per_expert", amount(), VAL(o.tokens_per_expert));
  t.add("dispatch_bytes", amount(), VAL(o.dispatch_bytes));
  t.add("all_to_all_layer_s", amount(), VAL(o.all_to_all_layer.value));
  t.add("expert_params_per_device", amount(), VAL(o.expert_params_per_device));
  t.add("expert_dp", count(), VAL(o.expert_dp));
  t.add("layers_first_stage", count(), VAL(o.layers_first_stage));
  t.add("layers_per_device", count(), VAL(o.layers_per_device));
}

TABLE(OperatorReport, operator_out) {
  t.add("name", text(), VAL(o.name));
  t.add("phase", text(), VAL(o.phase));
  t.add("flops", amount(), VAL(o.flops));
  t.add("bytes", amount(), VAL(o.bytes));
  t.add("arithmetic_intensity", amount(), VAL(o.intensity));
  t.add("time_s", amount(), VAL(o.time.value));
  t.add("achieved_flops_per_s", amount(), VAL(o.achieved_flops_per_s));
  t.add("bound", choice<Bound>(), VAL(str(o.bound)));
  t.add("count", amount(), VAL(o.count));
  ojson kinds = ojson::array();
  for (const char* name : kLayerKindNameList) kinds.push_back(name);
  t.maybe("layer_kind", node({{"type", "string"}, {"enum", kinds}}),
          VAL(o.layer_kind.empty() ? std::nullopt : std::optional(o.layer_kind)));
  t.describe("Operator", "One operator of the task graph (per device) with its roofline numbers.");
}

TABLE(TrainingPrediction, training_out) {
  t.add("iteration_time_s", amount(), VAL(o.iteration_time.value));
  t.add("tokens_per_s", amount(), VAL(o.tokens_per_s));
  t.add("mfu", amount(), VAL(o.mfu));
  t.add("hfu", amount(), VAL(o.hfu));
  t.maybe("time_to_train_s", amount(),
          VAL(o.time_to_train ? std::optional(o.time_to_train->value) : std::nullopt));
  t.sub("breakdown_s", breakdown_out(), VAL(o.breakdown)).title("Training breakdown");
  t.sub("by_bound_s", by_bound_out(), VAL(o.by_bound));
  t.add("micro_batches", count(), VAL(o.micro_batches));
  t.add("layer_s", output({{"forward", amount()}, {"backward", amount()}, {"recompute", amount()}}),
        VAL((ojson{{"forward", o.layer_forward.value},
                   {"backward", o.layer_backward.value},
                   {"recompute", o.layer_recompute.value}})));
  t.maybe_sub("moe", moe_out(), VAL(o.moe));
  t.list("operators", operator_out(), VAL(o.operators)) = array_of(ref("operator"));
  t.add("math_precision", choice<Precision>(), VAL(std::string(to_string(o.math_precision))));
  t.add("model_flops", amount(), VAL(o.model_flops));
  t.add("hardware_flops", amount(), VAL(o.hardware_flops));
  t.add("assumed",
        output({{"attention", choice<AttentionKernel>()},
                {"overlap_grad_reduce", boolean()},
                {"tp_comm_overlap", boolean()}}),
        VAL((ojson{{"attention", str(o.attention)},
                   {"overlap_grad_reduce", o.overlap_grad_reduce},
                   {"tp_comm_overlap", o.tp_comm_overlap}})));
}

// ---- Inference -----------------------------------------------------------------------------------

TABLE(TokenCost, token_cost_out) {
  t.add("device_power_W", amount(), VAL(o.device_power_w));
  t.add("joules_per_token", amount(), VAL(o.joules_per_token));
  t.add("tokens_per_joule", amount(), VAL(o.tokens_per_joule));
  t.maybe("usd_per_million_output_tokens", amount(), VAL(o.usd_per_million_tokens));
  t.describe("Token cost", "Energy and price of an output token at the scenario's operating point.");
}

TABLE(SpeculativeReport, speculative_out) {
  t.add("tokens_per_step", amount(), VAL(o.tokens_per_step));
  t.add("acceptance_by_position", array_of(amount()), VAL(numbers(o.acceptance)));
  t.add("step_s", amount(), VAL(o.step.value));
  t.add("draft_s", amount(), VAL(o.draft.value));
  t.add("verify_s", amount(), VAL(o.verify.value));
  t.add("tpot_without_s", amount(), VAL(o.tpot_without.value));
  t.add("speedup", amount(), VAL(o.speedup));
}

// The inference result: the engine's InferencePrediction with the footprint and cost beside it.
struct InferenceOut {
  const InferencePrediction& i;
  const Prediction& p;
};

Node compute_and_communication() { return output({{"compute", amount()}, {"communication", amount()}}); }

TABLE(InferenceOut, inference_out) {
  t.add("ttft_s", amount(), VAL(o.i.ttft.value));
  t.add("tpot_s", amount(), VAL(o.i.tpot.value));
  t.add("e2e_latency_s", amount(), VAL(o.i.e2e_latency.value));
  t.add("throughput_tokens_per_s", amount(), VAL(o.i.throughput_tokens_per_s));
  t.add("max_batch", count(), VAL(o.i.max_batch));
  t.add("prefill_s", compute_and_communication(),
        VAL((ojson{{"compute", o.i.prefill_compute.value}, {"communication", o.i.prefill_comm.value}})));
  t.add("decode_step_s", compute_and_communication(),
        VAL((ojson{{"compute", o.i.decode_compute.value}, {"communication", o.i.decode_comm.value}})));
  t.add("math_precision", choice<Precision>(), VAL(std::string(to_string(o.i.math_precision))));
  t.add("assumed", output({{"launch_interval_us", amount()}}),
        VAL((ojson{{"launch_interval_us", o.i.launch_interval.value / kMicro}})));
  t.maybe_sub("speculative", speculative_out(), VAL(o.i.speculative));
  // The rows below show shared definitions ($defs) in the schema instead of their own nodes.
  t.list("operators", operator_out(), VAL(o.i.operators)) = array_of(ref("operator"));
  t.maybe_sub("memory", memory_out(), VAL(o.p.inference_memory)) = ref("memory");
  t.maybe_sub("cost", token_cost_out(), VAL(o.p.inference_cost)) = ref("token_cost");
  t.describe("Inference result");
}

// ---- Serving -------------------------------------------------------------------------------------

TABLE(LatencyStats, latency_out) {
  t.add("mean", amount(), VAL(o.mean));
  t.add("p50", amount(), VAL(o.p50));
  t.add("p90", amount(), VAL(o.p90));
  t.add("p99", amount(), VAL(o.p99));
}

TABLE(ServingSloReport, slo_out) {
  t.add("ttft_s", amount(), VAL(o.ttft_s));
  t.add("tpot_s", amount(), VAL(o.tpot_s));
  t.add("percentile", amount(), VAL(o.percentile));
  t.add("ttft_at_percentile", amount(), VAL(o.ttft_at_percentile));
  t.add("tpot_at_percentile", amount(), VAL(o.tpot_at_percentile));
  t.add("itl_s", amount(), VAL(o.itl_s));
  t.add("itl_at_percentile", amount(), VAL(o.itl_at_percentile));
  t.add("met", boolean(), VAL(o.met));
}

TABLE(ServingStepSample, step_sample_out) {
  t.add("t_s", amount(), VAL(o.t_s));
  t.add("step_s", amount(), VAL(o.step_s));
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
  t.sub("ttft_s", latency_out(), VAL(o.v.ttft));
  t.sub("tpot_s", latency_out(), VAL(o.v.tpot));
  t.add("mean_itl_s", amount(), VAL(o.v.mean_itl_s));
  t.sub("itl_s", latency_out(), VAL(o.v.itl));
  t.sub("e2e_latency_s", latency_out(), VAL(o.v.e2e));
}

TABLE(ServingOut, serving_out) {
  t.add("requests_per_s", amount(), VAL(o.v.requests_per_s));
  t.add("input_tokens_per_s", amount(), VAL(o.v.input_tokens_per_s));
  t.add("output_tokens_per_s", amount(), VAL(o.v.output_tokens_per_s));
  t.add("output_tokens_per_s_per_gpu", amount(), VAL(o.v.output_tokens_per_s_per_gpu));
  add_serving_latencies(t);
  t.add("mean_batch", amount(), VAL(o.v.mean_batch));
  t.add("kv_utilisation", amount(), VAL(o.v.kv_utilisation));
  t.add("kv_peak_utilisation", amount(), VAL(o.v.kv_peak_utilisation));
  t.add("kv_pool_bytes_per_device", amount(), VAL(o.v.kv_pool_bytes_per_device));
  t.add("preemptions", count(), VAL(o.v.preemptions));
  t.add("eager_steps", count(), VAL(o.v.eager_steps));
  t.add("goodput_requests_per_s", amount(), VAL(o.v.goodput_requests_per_s));
  t.add("duration_s", amount(), VAL(o.v.duration_s));
  t.add("completed", count(), VAL(o.v.completed));
  t.add("steps", count(), VAL(o.v.steps));
  t.add("replicas", count(), VAL(o.v.replicas));
  t.add("devices", count(), VAL(o.v.devices));
  t.add("kv_capacity_tokens", count(), VAL(o.v.kv_capacity_tokens));
  t.add("max_batch", count(), VAL(o.v.max_batch));
  t.add("max_num_tokens", count(), VAL(o.v.max_num_tokens));
  t.add("static_batching", boolean(), VAL(o.v.static_batching));
  t.add("kv_transfer_s", amount(), VAL(o.v.kv_transfer_s));
  t.maybe_sub("slo", slo_out(), VAL(o.v.slo));
  t.list("timeline", step_sample_out(), VAL(o.v.timeline));
  t.maybe_sub("cost", token_cost_out(), VAL(o.cost)) = ref("token_cost");
  t.describe("Serving result");
}

// ---- Run -----------------------------------------------------------------------------------------

// A layout the engine chose (parallel "auto", a stage, an RL pool): the parallel table as written.
Node chosen_layout_schema() { return output_schema_of(parallel_fields()).title("Chosen layout"); }

TABLE(LostTime, lost_out) {
  t.add("checkpoint_writes", amount(), VAL(o.checkpoint_writes));
  t.add("lost_work", amount(), VAL(o.lost_work));
  t.add("restarts", amount(), VAL(o.restarts));
  t.add("production", amount(), VAL(o.production));
  t.add("total", amount(), VAL(o.total()));
}

TABLE(StageReport, stage_out) {
  t.add("tokens", amount(), VAL(o.tokens));
  t.add("seq_len", count(), VAL(o.seq_len));
  t.add("global_batch", count(), VAL(o.global_batch));
  t.add("parallel", chosen_layout_schema().title("Stage layout"), VAL(plan_json(o.parallel)));
  t.add("steps", count(), VAL(o.steps));
  t.add("iteration_time_s", amount(), VAL(o.iteration_s));
  t.add("tokens_per_s", amount(), VAL(o.tokens_per_s));
  t.add("mfu", amount(), VAL(o.mfu));
  t.add("ideal_time_s", amount(), VAL(o.ideal_s));
  t.add("memory_bytes", amount(), VAL(o.memory_bytes));
  t.add("fits", boolean(), VAL(o.fits));
  t.describe("Stage result");
}

// The run's price keys: written when the economics give a device price.
void add_run_cost(Outputs<RunReport>& t) {
  t.maybe("cost_usd", amount(), VAL(o.cost_usd));
  t.maybe("usd_per_million_tokens", amount(), VAL(o.cost_usd ? o.usd_per_million_tokens : std::nullopt));
  t.maybe("usd_per_gpu_hour", amount(),
          VAL(o.cost_usd ? std::optional(o.usd_per_device_hour) : std::nullopt));
  t.maybe("co2_t", amount(), VAL(o.co2_t));
}

TABLE(RunReport, run_out) {
  t.add("steps", count(), VAL(o.steps));
  t.add("ideal_time_s", amount(), VAL(o.ideal_s));
  t.add("wall_time_s", amount(), VAL(o.wall_s));
  t.add("wall_days", amount(), VAL(o.wall_days()));
  t.add("gpu_hours", amount(), VAL(o.gpu_hours));
  t.add("energy_mwh", amount(), VAL(o.energy_mwh));
  t.add("device_energy_mwh", amount(), VAL(o.device_energy_mwh));
  t.add("device_power_W", amount(), VAL(o.device_power_w));
  add_run_cost(t);
  t.add("goodput", amount(), VAL(o.goodput));
  t.add("checkpoint_interval_s", amount(), VAL(o.checkpoint_interval_s));
  t.add("checkpoint_s", amount(), VAL(o.checkpoint_s));
  t.add("checkpoint_write_s", amount(), VAL(o.checkpoint_write_s));
  t.add("checkpoint_bytes", amount(), VAL(o.checkpoint_bytes));
  t.add("expected_failures", amount(), VAL(o.expected_failures));
  t.add("job_mtbf_s", amount(), VAL(o.job_mtbf_s));
  t.sub("lost_s", lost_out(), VAL(o.lost));
  t.maybe("stages", array_of(stage_out().schema()),
          VAL(o.stages.empty() ? std::nullopt : std::optional(stage_out().write_all(o.stages))));
  t.describe("Run result", "The whole training run (training.train_tokens).");
}

// ---- RL ------------------------------------------------------------------------------------------

// The RL result: the prediction with the scenario's rl block it echoes.
struct RlOut {
  const RlWorkload& rl;
  const RlPrediction& p;
};

TABLE(RlPhases, rl_phases_out) {
  t.add("rollout", amount(), VAL(o.rollout));
  t.add("reward", amount(), VAL(o.reward));
  t.add("reference", amount(), VAL(o.reference));
  t.add("old_logprob", amount(), VAL(o.old_logprob));
  t.add("train", amount(), VAL(o.train));
  t.add("weight_sync", amount(), VAL(o.weight_sync));
  t.add("swap", amount(), VAL(o.swap));
}

TABLE(RlPoolMemory, rl_pool_memory_out) {
  t.add("per_device_bytes", amount(), VAL(o.bytes_per_device));
  t.add("capacity_bytes", amount(), VAL(o.capacity_bytes));
  t.add("fits", boolean(), VAL(o.fits));
  t.add("what", text(), VAL(o.what));
}

TABLE(RlOut, rl_rollout_out) {
  t.add("devices", count(), VAL(o.p.rollout_devices));
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.p.rollout_plan)));
  t.add("responses", count(), VAL(o.p.responses));
  t.add("output_tokens", amount(), VAL(o.p.output_tokens));
  t.add("output_tokens_per_s", amount(), VAL(o.p.output_tokens_per_s));
  t.add("longest_response_s", amount(), VAL(o.p.longest_response_s));
  t.add("mean_response_s", amount(), VAL(o.p.mean_response_s));
  t.add("mean_batch", amount(), VAL(o.p.mean_batch));
  t.add("preemptions", count(), VAL(o.p.preemptions));
  t.add("eager_steps", count(), VAL(o.p.eager_steps));
  t.add("partial", boolean(), VAL(o.rl.partial_rollout));
  t.add("makespan_s", amount(), VAL(o.p.rollout_makespan_s));
}

TABLE(RlOut, rl_train_out) {
  t.add("devices", count(), VAL(o.p.train_devices));
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.p.train_plan)));
  t.add("global_batch", count(), VAL(o.p.train_global_batch));
  t.add("seq_len", count(), VAL(o.p.train_seq_len));
  t.add("iteration_time_s", amount(), VAL(o.p.train_iteration_s));
  t.add("mini_batches", count(), VAL(o.rl.mini_batches));
  t.add("mfu", amount(), VAL(o.p.train_mfu));
  t.add("straggler_s", amount(), VAL(o.p.train_straggler_s));
  t.add("critic_s", amount(), VAL(o.p.critic_s));
  t.add("offload", text(), VAL(str(effective_offload(o.rl, o.p.train_plan))));
  t.add("offload_bytes_per_device", amount(), VAL(o.p.offload_bytes_per_device));
  t.add("offload_s", amount(), VAL(o.p.offload_s));
}

// One model of the trainer under rl.roles "separate" (rl/rl.h RlRole); the schema's rl_role.
TABLE(RlRole, rl_role_out) {
  t.add("devices", count(), VAL(o.devices));
  t.add("parallel", ref("chosen_layout"), VAL(plan_json(o.plan)));
  t.add("forward_s", amount(), VAL(o.forward_s));
  t.add("update_s", amount(), VAL(o.update_s));
  t.add("idle_s", amount(), VAL(o.idle_s));
  t.add("wait_after_forward_s", amount(), VAL(o.wait_after_forward_s));
  t.add("wait_after_update_s", amount(), VAL(o.wait_after_update_s));
  t.add("per_device_bytes", amount(), VAL(o.bytes_per_device));
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
    t.maybe_with(role, ref("rl_role"), role, [](const void* name, const RlOut& o) -> std::optional<ojson> {
      const RlRole* x = rl_role_named(o.p, static_cast<const char*>(name));
      if (!x) return std::nullopt;
      return rl_role_out().write(*x);
    });
}

TABLE(RlPrediction, rl_run_out) {
  t.add("train_steps", count(), VAL(o.train_steps));
  t.add("wall_days", amount(), VAL(o.run_wall_s / 86400.0));
  t.add("gpu_hours", amount(), VAL(o.run_gpu_hours));
  t.add("energy_mwh", amount(), VAL(o.run_energy_mwh));
  t.maybe("cost_usd", amount(), VAL(o.run_cost_usd));
}

TABLE(RlOut, rl_out) {
  t.add("step_time_s", amount(), VAL(o.p.step_time_s));
  t.sub("phases_s", rl_phases_out(), VAL(o.p.phases));
  t.add("idle_s", output({{"rollout", amount()}, {"train", amount()}}),
        VAL((ojson{{"rollout", o.p.idle_rollout_s}, {"train", o.p.idle_train_s}})));
  t.add("placement", text(), VAL(str(o.rl.placement)));
  t.add("staleness", count(), VAL(o.rl.staleness));
  t.add("tokens_per_step", amount(), VAL(o.p.tokens_per_step));
  t.add("tokens_per_s", amount(), VAL(o.p.tokens_per_s));
  t.add("tokens_per_s_per_gpu", amount(), VAL(o.p.tokens_per_s_per_gpu));
  t.sub("rollout", rl_rollout_out(), VAL(o));
  t.sub("train", rl_train_out(), VAL(o));
  t.sub("roles", rl_roles_out(), VAL(o));
  t.add("weight_sync", output({{"method", text()}, {"bytes", amount()}}),
        VAL((ojson{{"method", str(o.rl.weight_sync)}, {"bytes", o.p.weight_sync_bytes}})));
  t.add("swap_bytes_per_device", amount(), VAL(o.p.swap_bytes_per_device));
  t.add("reward_cpu_s", amount(), VAL(o.p.reward_cpu_s));
  t.add(
      "controller",
      output({{"GBps", amount()}, {"bytes_per_pass", amount()}, {"passes", count()}, {"seconds", amount()}}),
      VAL((ojson{{"GBps", o.p.controller_GBps},
                 {"bytes_per_pass", o.p.controller_bytes},
                 {"passes", o.p.controller_passes},
                 {"seconds", o.p.controller_s}})));
  const Node pool = rl_pool_memory_out().schema();
  t.add("memory", output({{"rollout", pool}, {"train", pool}}),
        VAL((ojson{{"rollout", rl_pool_memory_out().write(o.p.rollout_memory)},
                   {"train", rl_pool_memory_out().write(o.p.train_memory)}})));
  t.maybe_sub("run", rl_run_out(), VAL(o.p.train_steps > 0 ? &o.p : nullptr));
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
  t.add("mode", text(), VAL(str(o.search.mode)));
  t.add("evaluated", count(), VAL(o.search.evaluated));
  t.add("feasible", count(), VAL(o.search.feasible));
  t.add("simulated", count(), VAL(o.search.simulated));
  t.add("narrowed",
        output({{"zero_stage", count()}, {"micro_batch", count()}, {"interleave", count()}},
               {"zero_stage", "micro_batch", "interleave"}),
        [](const AutoOut& o) {
          ojson narrowed = ojson::object();  // keys fixed to fit the cap
          for (const auto& [key, value] : o.search.narrowed) narrowed[key] = value;
          return narrowed;
        });
}

Node calibration_output_schema() {
  return output({{"applied", boolean()},
                 {"factors", calibration_factors_node()},
                 {"band", output({{"low", amount()}, {"high", amount()}})},
                 {"reason", text()},
                 {"uncalibrated", node({{"type", "object"}, {"additionalProperties", amount().json()}})}},
                {"band", "reason", "uncalibrated"});
}

Node regime_schema() {
  return object({{"training", text()},
                 {"inference", text()},
                 {"serving", text()},
                 {"memory", text()},
                 {"run", text()},
                 {"rl", text()}});
}

Node uncertainty_schema() {
  return node({{"type", "object"},
               {"additionalProperties",
                output({{"low", amount()},
                        {"high", amount()},
                        {"regime", text().desc("The regime whose band applies (a parent when the scenario's "
                                               "own has too few rows).")},
                        {"cases", count().desc("Validation rows the band is fitted on.")},
                        {"raised_by",
                         text().desc("An RL step's band only: the phase (its output path) whose own band's "
                                     "upper end the step's was raised to, as a step is never shorter than "
                                     "any of its phases. Absent where the step regime's own band applies.")},
                        {"fitted_high", amount().desc("With raised_by: the upper end of the step regime's "
                                                      "own band, before it was raised.")}},
                       {"raised_by", "fitted_high"})
                    .title("Band")
                    .json()}});
}

}  // namespace

ojson prediction_schema() {
  ojson j;
  j["$schema"] = kDraft;
  j["$id"] = "urn:optimus:prediction";
  Node root = output(
                  {
                      {"training", ref("training")},
                      {"inference", ref("inference")},
                      {"serving", ref("serving")},
                      {"run", ref("run")},
                      {"rl", ref("rl")},
                      {"parallel_auto", parallel_auto_out().schema()},
                      {"calibration", calibration_output_schema()},
                      {"memory", ref("memory")},
                      {"params", params_out().schema()},
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
  describe_from_doc(j, DocTable::prediction);
  return j;
}

}  // namespace io

nlohmann::ordered_json parallel_auto_json(const ParallelPlan& plan, const AutoLayout& search) {
  return io::parallel_auto_out().write({plan, search});
}

nlohmann::ordered_json serving_json(const ServingPrediction& v) {
  return io::serving_out().write({v, std::nullopt});
}

namespace {

// The regimes a prediction has (empty ones left out).
io::ojson regime_json(const Regimes& r) {
  io::ojson rj = io::ojson::object();
  for (const auto& [k, v] : {std::pair{"training", &r.training},
                             {"inference", &r.inference},
                             {"serving", &r.serving},
                             {"memory", &r.memory},
                             {"run", &r.run},
                             {"rl", &r.rl}})
    if (!v->empty()) rj[k] = *v;
  return rj;
}

}  // namespace

std::string prediction_to_json(const Scenario& s, const Prediction& p, int indent) {
  using namespace io;
  io::ojson j;
  if (p.training) j["training"] = training_out().write(*p.training);
  if (p.inference) j["inference"] = inference_out().write({*p.inference, p});
  if (p.serving) j["serving"] = serving_out().write({*p.serving, p.serving_cost});
  if (p.run) j["run"] = run_out().write(*p.run);
  add_common(j, p.memory, p.params, p.warnings);
  j["regime"] = regime_json(regimes_of(s, p));
  j["uncertainty"] = uncertainty_json(s, p);
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

std::string rl_prediction_to_json(const Scenario& s, const RlPrediction& p, int indent) {
  using namespace io;
  io::ojson j;
  j["rl"] = rl_out().write({*s.rl, p});
  const ParamCounts params = count_params(s.model, s.model.max_seq_len > 0 ? s.model.max_seq_len : 4096);
  add_common(j, p.trainer_memory, params, p.warnings);
  j["regime"] = regime_json(rl_regimes_of(s));
  j["uncertainty"] = rl_uncertainty_json(s, p);
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace optimus
