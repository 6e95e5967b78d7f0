#include "io/schema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hardware/uarch.h"
#include "io/fields.h"
#include "io/node.h"
#include "io/objects.h"
#include "io/presets.h"
#include "io/reader.h"
#include "predict/predict.h"

namespace optimus::io {

namespace {

using namespace nodes;

constexpr const char* kDraft = "https://json-schema.org/draft/2020-12/schema";

// ---- Scenario ----------------------------------------------------------------------------------

Node model_schema() {
  return schema_of(model_fields())
      .title("Model")
      .desc(
          "An inline model: a decoder-only transformer, dense or mixture-of-experts, with MHA, GQA, MQA or "
          "MLA "
          "attention.");
}

Node device_schema() {
  return schema_of(device_fields()).title("Device").desc("An inline device (one accelerator).");
}

// A device or system derived by the uArch engine from a technology node and budgets
// (io/technology_io.cpp read_uarch, read_budget; presets/README.md).
Node uarch_schema() {
  std::vector<std::string> required = {"technology"};
  for (const std::string& k : required_of(budget_fields())) required.push_back(k);
  return object(concat({{"technology",
                         preset_id("technology").desc("The technology node (a 'technology' preset id).")},
                        {"dram", preset_id("dram").desc(
                                     "The DRAM generation (a 'dram' preset id). Default: the node's.")}},
                       props_of(budget_fields()), {}),
                required)
      .title("Technology-derived hardware")
      .desc(
          "A device (or, as a system, devices with links from the die's SerDes) derived by the uArch "
          "engine from a technology node and chip budgets.");
}

Node tier_schema(bool scale_up) {
  return schema_of(tier_fields(scale_up))
      .title(scale_up ? "Scale-up tier" : "Scale-out tier")
      .desc(scale_up ? "The scale-up network (NVLink / NVSwitch / xGMI)."
                     : "The scale-out network (InfiniBand / Ethernet), bandwidth per device.");
}

Node software_schema() { return schema_of(software_fields()).desc(kSoftwareText); }

// A software-stack profile (presets/software/*.json, or inline as a scenario's `software`).
Node software_profile_schema() {
  Props scheduler = props_of(scheduler_fields());
  scheduler.emplace_back("notes", notes());
  return object({{"name", text()},
                 {"source", text()},
                 {"notes", notes()},
                 {"software", ref("software").desc("Laid over the system's software block, key by key.")},
                 {"cuda_graphs", boolean().desc("The runtime's default for inference.cuda_graphs.")},
                 {"serving", object(scheduler).desc("The scheduler's defaults for inference.serving.")}})
      .title("Software profile")
      .desc(
          "What differs between software stacks: the system's software keys it sets, the runtime's "
          "CUDA-graph default and the serving scheduler's defaults.");
}

Node system_schema() {
  return schema_of(system_fields())
      .title("System")
      .desc("An inline system: devices, nodes and two network tiers.");
}

Node parallel_schema() {
  return schema_of(parallel_fields())
      .title("Parallel layout")
      .desc("The parallel layout. For inference only tp and pp matter (a replica spans tp pp devices).");
}

Node economics_schema() {
  const Economics e{};
  return object(
             {{"name", text()},
              {"source", text()},
              {"notes", notes()},
              {"usd_per_gpu_hour", number(1e-6, 1e6)
                                       .desc("Rental price of one device for an hour, energy included. "
                                             "Not with the capital terms.")
                                       .unit("USD/h")},
              {"gpu_price_usd", number(1, 1e9)
                                    .desc("Capital form: installed price per device. Default: the "
                                          "device's price_usd.")
                                    .unit("USD")},
              {"amortisation_years",
               number(0.01, 100).desc("Capital form: years of use.").unit("years").def(e.amortisation_years)},
              {"utilisation", number(1e-3, 1)
                                  .desc("Capital form: share of the hours spent on jobs.")
                                  .unit("fraction")
                                  .def(e.utilisation)},
              {"usd_per_kwh", number(1e-6, 100)
                                  .desc("Energy price (capital form; a rental price includes energy).")
                                  .unit("USD/kWh")
                                  .def(e.usd_per_kwh)},
              {"pue", number(1, 10).desc("Power usage effectiveness of the facility.").def(e.pue)},
              {"grid_kg_co2_per_kwh",
               number(0, 10).desc("Grid carbon intensity; 0 or absent = no co2_t.").unit("kg/kWh")}})
      .title("Economics")
      .desc("Cost of devices and energy: usd_per_gpu_hour (rental) or capital terms plus usd_per_kwh.");
}

Node training_schema() {
  const TrainingWorkload w{};
  return object(
             {
                 {"global_batch",
                  integer(1, kMaxCount).desc("Sequences per optimizer step.").unit("sequences")},
                 {"seq_len", integer(1, 100'000'000).desc("Sequence length.").unit("tokens")},
                 {"precision", choice(kTrainingPrecisions)
                                   .desc("Math precision (fp8: fp8 matrix multiplies, bf16 elsewhere).")
                                   .def(name(w.precision))},
                 {"train_tokens",
                  number(1, 1e18)
                      .desc("Tokens to train on: time_to_train_s and the whole-run block `run`; absent = "
                            "not asked.")
                      .unit("tokens")},
                 {"batch_ramp",
                  array_of(pair_of(number(1, 1e18).unit("tokens"), integer(1, kMaxCount).unit("sequences")),
                           1)
                      .desc("Batch ramp: [tokens, global_batch] steps trained before the steady "
                            "global_batch (the rest of train_tokens). Needs train_tokens; the steps' "
                            "tokens may not exceed it.")},
                 {"checkpoint_interval_s",
                  number(1e-3, 1e9)
                      .desc("Compute time between two checkpoints. Absent: Young/Daly, sqrt(2 delta M) - "
                            "delta. Needs train_tokens.")
                      .unit("s")},
                 {"stages",
                  array_of(
                      object(
                          {{"tokens", number(1, 1e18).desc("Tokens trained in this stage.").unit("tokens")},
                           {"seq_len", integer(1, 100'000'000)
                                           .desc("Its sequence length. Default: training.seq_len.")
                                           .unit("tokens")},
                           {"global_batch",
                            integer(1, kMaxCount)
                                .desc("Its sequences per step. Default: training.global_batch.")
                                .unit("sequences")},
                           {"parallel",
                            one_of({object({{"tp", integer(1, kMaxDevices)},
                                            {"pp", integer(1, kMaxDevices)},
                                            {"cp", integer(1, kMaxDevices)},
                                            {"dp",
                                             integer(1, kMaxDevices)
                                                 .desc("Default: num_devices / (tp pp cp) when tp, pp or cp "
                                                       "change, else the scenario's.")},
                                            {"micro_batch", integer(1, kMaxCount).unit("sequences")},
                                            {"interleave", integer(1, 100'000)},
                                            {"recompute", choice<Recompute>()}})
                                        .title("Stage layout keys")
                                        .desc("Layout keys changed for this stage (the others are the "
                                              "scenario's, or the layout parallel \"auto\" chose)."),
                                    node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                                        .desc("The layout search picks the stage's fastest layout that fits "
                                              "on its own sequences and batch (run.stages[i].parallel says "
                                              "which).")})
                                .desc("The stage's layout: keys changed from the scenario's, or \"auto\".")}},
                          {"tokens"})
                          .title("Training stage"),
                      1, kMaxTrainingStages)
                      .desc("Later stages of the run, in order after train_tokens, each at its own sequence "
                            "length, batch and layout (a context extension: longer sequences over more cp "
                            "ranks). Their steps, time, energy and cost are in `run`, each stage in "
                            "run.stages. Needs train_tokens.")},
                 {"attention", choice<AttentionKernel>().desc(
                                   "Attention kernel. Default: the system's software.attention.")},
                 {"overlap_grad_reduce",
                  boolean().desc("Overlap the gradient reduction. Default: the system's software default.")},
                 {"tp_comm_overlap",
                  boolean().desc(
                      "Overlap tensor-parallel communication. Default: the system's software default.")},
             },
             {"global_batch", "seq_len"})
      .title("Training workload");
}

// A request length as read by json_io.cpp read_length.
Node length_schema(const std::string& what) {
  return one_of({integer(1, kMaxServingLength).desc("Every request the same length.").unit("tokens"),
                 object({{"mean", number(1, static_cast<double>(kMaxServingLength)).unit("tokens")},
                         {"max", integer(1, kMaxServingLength).unit("tokens")},
                         {"min", integer(1, kMaxServingLength).unit("tokens").def(1)}},
                        {"mean", "max"})
                     .title("Length distribution")
                     .desc("A truncated exponential on [min, max] with this mean (min < mean < max): "
                           "long-tailed like chat traces when the mean is below the midpoint."),
                 object({{"uniform", pair_of(integer(1, kMaxServingLength), integer(1, kMaxServingLength))}},
                        {"uniform"})
                     .title("Uniform lengths")
                     .desc("[min, max] (min <= max): every whole length in the range equally likely, as "
                           "vLLM's benchmark_serving random dataset draws them with --random-range-ratio."),
                 array_of(pair_of(integer(1, kMaxServingLength), number(0, 1e12)), 1)
                     .desc("[length, weight] points (weights need not add up to 1).")})
      .desc(what + " Default: the inference block's " +
            (what.rfind("Prompt", 0) == 0 ? "prompt_len." : "output_len."));
}

Node pool_schema(const std::string& what) {
  return schema_of(pool_fields()).title(what + " pool").desc("Replicas of tp x pp devices.");
}

Node serving_schema() {
  const ServingSpec v{};
  return object(
             concat(
                 {{"arrival",
                   choice<Arrival>()
                       .desc("How requests come: a Poisson stream at requests_per_s, a closed loop "
                             "of `concurrency` clients (each sends its next request when the last "
                             "ends), or all at time 0 (offline throughput).")
                       .def(name(v.arrival))},
                  {"requests_per_s",
                   one_of(
                       {number(1e-6, 1e6).unit("requests/s"),
                        node({{"type", "string"}, {"const", "inf"}})
                            .desc("Unbounded: every request at once (the literal Infinity reads the same).")})
                       .desc("Poisson arrival rate of the whole deployment (required for poisson).")},
                  {"concurrency",
                   integer(1, kMaxRequests).desc("Clients of a closed loop (required for closed).")},
                  {"num_requests", integer(1, kMaxRequests).desc("Requests simulated.").def(v.num_requests)},
                  {"input_len", length_schema("Prompt tokens per request.")},
                  {"output_len", length_schema("Generated tokens per request.")}},
                 props_of(scheduler_fields()),
                 {{"slo",
                   schema_of(slo_fields())
                       .title("Service-level objectives")
                       .desc(
                           "At least one of ttft_s, tpot_s and itl_s. A request counts towards goodput when "
                           "it meets the TTFT and TPOT objectives; the ITL objective, over tokens, decides "
                           "whether the objectives are met.")},
                  {"disaggregated",
                   object({{"prefill", pool_schema("Prefill")}, {"decode", pool_schema("Decode")}},
                          {"prefill", "decode"})
                       .title("Disaggregated prefill and decode")
                       .desc(
                           "Prompts run on the prefill pool, their KV cache moves over the scale-out network "
                           "to the decode pool. The pools' devices add up to num_devices.")},
                  {"seed",
                   integer(0, 9'007'199'254'740'991).desc("Seed of request lengths and arrivals.").def(1)}}))
      .title("Serving")
      .desc(
          "Continuous batching over a stream of requests (paged KV cache, chunked prefill); absent: one "
          "static batch. Defaults describe TensorRT-LLM's in-flight batching.");
}

Node inference_schema() {
  return object(
             concat(
                 props_of(inference_fields()),
                 {
                     {"serving", serving_schema()},
                     {"speculative",
                      object(
                          {
                              {"draft_tokens",
                               integer(1, 64).desc("Tokens the draft proposes per step (k).").unit("tokens")},
                              {"acceptance_rate",
                               number(0, 1)
                                   .desc("Probability that each drafted token is accepted, independently "
                                         "(Leviathan et al. 2023's alpha). Required with a draft model; with "
                                         "mtp, 0.85 (DeepSeek-V3's measured 85-90% for its MTP module).")
                                   .def(0.85)},
                              {"draft",
                               one_of({node({{"type", "string"}, {"const", "mtp"}, {"examples", {"mtp"}}}),
                                       preset_id("models"), ref("model")})
                                   .desc("mtp (a one-layer multi-token-prediction head on the target's "
                                         "embedding and LM head), or a draft model: a preset id or an "
                                         "inline model with the target's vocabulary.")
                                   .def("mtp")},
                          },
                          {"draft_tokens"})
                          .title("Speculative decoding")
                          .desc("Each decode step drafts draft_tokens tokens per sequence and the target "
                                "verifies them in one step; a sequence gains (1 - a^(k+1)) / (1 - a) tokens "
                                "per step. The draft's weights and KV cache share the devices.")},
                 },
                 {}),
             required_of(inference_fields()))
      .title("Inference workload");
}

// ---- Prediction --------------------------------------------------------------------------------

// The scenario's rl block (issue 40; core/rl/rl.h, io/json_io.cpp read_rl).
Node rl_schema() {
  const RlWorkload v{};
  const ParallelPlan p{};
  const auto model_ref = [] { return one_of({preset_id("models"), ref("model")}); };
  return object(
             {
                 {"algorithm", choice<RlAlgorithm>()
                                   .desc("grpo: group-relative advantages, no critic; ppo: adds a critic "
                                         "(a second trained model).")
                                   .def(name(v.algorithm))},
                 {"critic", model_ref().desc("ppo: the critic's model (preset id or inline); absent = the "
                                             "policy's shape.")},
                 {"prompts_per_step", integer(1, kMaxRequests).desc("Prompts per RL step.").def(512)},
                 {"samples_per_prompt",
                  integer(1, kMaxRequests)
                      .desc("Responses generated per prompt (default 16 for grpo, 1 for ppo); prompts x "
                            "samples at most 1,000,000.")},
                 {"prompt_len",
                  length_schema("Prompt tokens (default 1024): a whole number is the longest prompt "
                                "(max_prompt_length), the mean assumed at a fifth of it; {mean, max} "
                                "states the mean, a weights list exact lengths.")},
                 {"response_len",
                  length_schema("Response tokens (default 4096): a whole number is the longest response "
                                "(max_response_length), the mean assumed at a quarter of it; {mean, max} "
                                "states the mean, a weights list exact lengths. The synchronous step "
                                "waits for the longest.")},
                 {"reference", boolean().desc("A frozen reference model's forward (the KL term).").def(true)},
                 {"reward_model",
                  model_ref().desc("A reward model's forward over prompt + response; absent = "
                                   "a rule-based reward at no GPU cost.")},
                 {"old_logprob", boolean()
                                     .desc("Recompute the behaviour policy's log-probabilities with the "
                                           "trainer.")
                                     .def(true)},
                 {"mini_batches", integer(1, kMaxCount).desc("Optimizer steps per RL step.").def(1)},
                 {"placement", choice<RlPlacement>()
                                   .desc("colocated: one pool time-shares rollout and training; split: "
                                         "rollout_devices + train_devices = num_devices.")
                                   .def(name(v.placement))},
                 {"rollout_devices",
                  integer(1, kMaxDevices).desc("split: the rollout pool.").unit("devices")},
                 {"train_devices", integer(1, kMaxDevices).desc("split: the training pool.").unit("devices")},
                 {"rollout",
                  object({{"tp", integer(1, kMaxDevices)
                                     .desc("Absent: the smallest that holds the longest "
                                           "response.")},
                          {"pp", integer(1, kMaxDevices).def(1)},
                          {"ep", integer(1, kMaxDevices)},
                          {"dp", integer(1, kMaxDevices).desc("Absent: what tp x pp leave of the pool.")},
                          {"software", text().desc("A serving profile (presets/software id).").def("vllm")},
                          {"precision", choice(kInferencePrecisions).def(name(v.rollout.precision))},
                          {"max_batch", integer(1, kMaxRequests)
                                            .desc("Sequences per engine step (the "
                                                  "profile's by default).")},
                          {"gpu_memory_utilization",
                           number(0.01, 1).desc("The engine's share of device "
                                                "memory (the profile's by default).")}})
                      .desc("The rollout engine.")},
                 {"train",
                  one_of({object({{"tp", integer(1, kMaxDevices).def(1)},
                                  {"pp", integer(1, kMaxDevices).def(1)},
                                  {"cp", integer(1, kMaxDevices).def(1)},
                                  {"dp", integer(1, kMaxDevices).desc("Absent: what the others leave.")},
                                  {"ep", integer(1, kMaxDevices).def(1)},
                                  {"etp", integer(1, kMaxDevices).def(1)},
                                  {"micro_batch", integer(1, kMaxCount).def(1)},
                                  {"recompute", choice<Recompute>().def(name(p.recompute))},
                                  {"zero_stage", integer(0, 3).def(0)},
                                  {"precision", choice(kTrainingPrecisions).def(name(v.train_precision))},
                                  {"offload", choice<RlOffload>()
                                                  .desc("The trainer's state in host memory between the "
                                                        "passes that need it (verl param_offload / "
                                                        "optimizer_offload), moved over host_link_GBps.")
                                                  .def(name(v.offload))}})
                              .title("RL trainer layout"),
                          node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                              .desc("The layout search picks the trainer's layout.")})
                      .desc("The trainer's layout on its pool.")},
                 {"async", object({{"staleness", integer(0, 1000).desc("Steps a rollout may lag the "
                                                                       "policy; 0 = on-policy.")},
                                   {"partial_rollout",
                                    boolean()
                                        .desc("Unfinished responses continue after a weight sync (verl "
                                              "fully_async, AReaL): the rollout costs its throughput "
                                              "share, not its longest response. Needs staleness >= 1.")
                                        .def(false)}},
                                  {"staleness"})
                               .desc("Asynchronous RL (split placement).")},
                 {"roles",
                  one_of({choice<RlRoles>().desc("shared: every model on the whole training pool, one "
                                                 "after another; separate: each on devices of its own, "
                                                 "at once, split in proportion to its work."),
                          object({{"actor", integer(1, kMaxDevices)},
                                  {"critic", integer(1, kMaxDevices)},
                                  {"reference", integer(1, kMaxDevices)},
                                  {"reward", integer(1, kMaxDevices)}})
                              .title("Devices per role")
                              .desc("separate, with the devices of each role (absent ones share the rest "
                                    "in proportion to their work); they make the training pool.")})
                      .desc("The trainer's models on the training pool.")},
                 {"weight_sync", choice<RlWeightSync>()
                                     .desc("nccl: broadcast over the fabric; checkpoint: through storage.")
                                     .def(name(v.weight_sync))},
                 {"train_steps", integer(1, kMaxCount).desc("RL steps of a whole run (the run block).")},
             })
      .desc("RL post-training (GRPO / PPO): one step of rollout, scoring, training and weight sync.");
}

Node seconds(const std::string& what) { return amount().desc(what).unit("s"); }

Node memory_schema() {
  return output(
             {
                 {"per_device_bytes", output({
                                                 {"weights", amount().unit("bytes")},
                                                 {"gradients", amount().unit("bytes")},
                                                 {"optimizer", amount().unit("bytes")},
                                                 {"activations", amount().unit("bytes")},
                                                 {"kv_cache", amount().unit("bytes")},
                                                 {"total", amount().unit("bytes")},
                                             })
                                          .title("Memory by category")
                                          .desc("The most loaded device (training: the first pipeline "
                                                "stage).")},
                 {"capacity_bytes", amount().desc("Device memory capacity.").unit("bytes")},
                 {"fits", boolean().desc("total <= capacity.")},
                 {"host_bytes", amount()
                                    .desc("Training with parallel.offload_layers: the offloaded "
                                          "activations one device keeps in host memory (not in "
                                          "total).")
                                    .unit("bytes")},
             },
             {"host_bytes"})
      .title("Memory");
}

Node training_output_schema() {
  const Props breakdown = {
      {"compute", seconds("")},
      {"recompute", seconds("")},
      {"tp_comm", seconds("")},
      {"cp_comm", seconds("")},
      {"pp_comm", seconds("")},
      {"dp_comm", seconds("")},
      {"bubble", seconds("")},
      {"optimizer", seconds("")},
      {"ep_comm", seconds("MoE token dispatch/combine (all-to-all) and expert-tensor reductions.")},
      {"host", seconds("Devices waiting for the host to issue kernels (dropless MoE layers sync with the "
                       "host once per layer, software.training_launch_interval_us; a stack that "
                       "synchronises after each pipeline exchange, software.pipeline_sync_us; activations "
                       "offloaded to host memory, parallel.offload_layers, whose copies outlast the "
                       "pass they run beside).")},
  };
  return output(
             {
                 {"iteration_time_s", seconds("Wall time of one optimizer step.")},
                 {"tokens_per_s", amount().desc("global_batch x seq_len / iteration time.").unit("tokens/s")},
                 {"mfu", amount().desc("Model FLOPs utilisation.").unit("fraction")},
                 {"hfu",
                  amount().desc("Hardware FLOPs utilisation (recomputation counted).").unit("fraction")},
                 {"time_to_train_s", seconds("Time to train on train_tokens (when given).")},
                 {"breakdown_s",
                  output(breakdown)
                      .title("Training breakdown")
                      .desc("Exposed (non-overlapped) time per cause on the critical path; sums "
                            "to iteration_time_s.")},
                 {"by_bound_s", output({{"compute", seconds("")},
                                        {"memory", seconds("")},
                                        {"communication", seconds("")},
                                        {"other", seconds("")}})
                                    .desc("The iteration time by what bounds it.")},
                 {"micro_batches", count().desc("Micro-batches per pipeline per step.")},
                 {"layer_s",
                  output({{"forward", seconds("")}, {"backward", seconds("")}, {"recompute", seconds("")}})
                      .desc("One layer, one micro-batch.")},
                 {"moe",
                  output({{"tokens_per_expert",
                           amount().desc(
                               "Tokens one local expert processes per micro-batch on the busiest rank.")},
                          {"dispatch_bytes",
                           amount()
                               .desc("All-to-all bytes one rank sends per MoE layer and micro-batch (the "
                                     "combine sends as many back).")
                               .unit("bytes")},
                          {"all_to_all_layer_s",
                           seconds("Dispatch + combine of one MoE layer, forward, one micro-batch.")},
                          {"expert_params_per_device",
                           amount().desc("Routed-expert parameters on one device.").unit("parameters")},
                          {"expert_dp",
                           count().desc("Expert-data-parallel replicas: tp x cp x dp / (ep x etp).")},
                          {"layers_first_stage",
                           count().desc("MoE layers on the first pipeline stage (whose expert parameters "
                                        "expert_params_per_device counts).")}})
                      .desc("What the MoE layers do (mixture-of-experts models only).")},
                 {"model_flops", amount().desc("Per iteration, whole job.").unit("FLOP")},
                 {"hardware_flops",
                  amount().desc("Per iteration, whole job, recomputation included.").unit("FLOP")},
                 {"assumed", output({{"attention", choice<AttentionKernel>()},
                                     {"overlap_grad_reduce", boolean()},
                                     {"tp_comm_overlap", boolean()}})
                                 .desc("The software choices in effect.")},
             },
             {"time_to_train_s", "moe"})
      .title("Training result");
}

Node operator_schema() {
  return output({
                    {"name", text().desc("Operator name.")},
                    {"phase", text().desc("prefill or decode.")},
                    {"flops", amount().desc("Per device, per execution.").unit("FLOP")},
                    {"bytes", amount().desc("Memory bytes per device, per execution.").unit("bytes")},
                    {"arithmetic_intensity", amount().unit("FLOP/byte")},
                    {"time_s", seconds("Per execution.")},
                    {"achieved_flops_per_s", amount().unit("FLOP/s")},
                    {"bound", choice<Bound>().desc("What bounds its time.")},
                    {"count", amount().desc("Executions per phase (layers on the stage).")},
                })
      .title("Operator")
      .desc("One operator of the inference task graph (per device) with its roofline numbers.");
}

Node serving_output_schema() {
  const auto latency = [](const std::string& what) {
    return output({{"mean", seconds("")}, {"p50", seconds("")}, {"p90", seconds("")}, {"p99", seconds("")}})
        .desc(what + " over the completed requests.");
  };
  return output(
             {
                 {"requests_per_s", amount().desc("Completed requests / duration.").unit("requests/s")},
                 {"input_tokens_per_s",
                  amount().desc("Prompt tokens / duration, whole deployment.").unit("tokens/s")},
                 {"output_tokens_per_s",
                  amount().desc("Generated tokens / duration, whole deployment.").unit("tokens/s")},
                 {"output_tokens_per_s_per_gpu",
                  amount().desc("output_tokens_per_s / devices.").unit("tokens/s")},
                 {"ttft_s", latency("Time to first token (arrival to the end of the prompt's last chunk)")},
                 {"tpot_s", latency("Time per output token after the first (inter-token latency)")},
                 {"mean_itl_s",
                  seconds(
                      "Token-weighted mean inter-token latency: the sum over requests of (last token - first "
                      "token) / the sum of (output - 1), every gap counted once (\"Mean ITL\" of "
                      "TensorRT-LLM's and vLLM's benchmarks); tpot_s.mean weights each request once, and "
                      "the two are equal when every output has the same length.")},
                 {"itl_s",
                  latency(
                      "Inter-token latency, token-weighted (mean equals mean_itl_s; the percentiles from "
                      "log-spaced bins 0.7% wide, as vLLM's \"Median / P99 ITL\"; a step that also prefills "
                      "prompt chunks lengthens the gap of every sequence decoding in it, a preempted or "
                      "queued request's wait is one gap, a verified speculation's n tokens n gaps of a 1/n "
                      "share each): every gap between two output tokens counted once")},
                 {"e2e_latency_s", latency("Arrival to last token")},
                 {"mean_batch",
                  amount().desc("Time-weighted sequences per step, per replica.").unit("sequences")},
                 {"kv_utilisation", amount().desc("Time-weighted share of KV blocks in use.")},
                 {"preemptions", count().desc("Requests evicted for KV blocks and recomputed (on_demand).")},
                 {"goodput_requests_per_s",
                  amount()
                      .desc("Requests meeting both SLOs / duration (all of them without an slo).")
                      .unit("requests/s")},
                 {"duration_s", seconds("First arrival to last completion.")},
                 {"completed", count().desc("Requests simulated.")},
                 {"steps", count().desc("Scheduler steps simulated, all replicas.")},
                 {"replicas", count().desc("Replicas (both pools when disaggregated).")},
                 {"devices", count().desc("Devices of the deployment.")},
                 {"kv_capacity_tokens",
                  count().desc("KV cache capacity of one replica (the decode pool's).").unit("tokens")},
                 {"max_batch", count().desc("The scheduler's sequence limit in effect.").unit("sequences")},
                 {"max_num_tokens", count().desc("The step token budget in effect.").unit("tokens")},
                 {"kv_transfer_s", seconds("Mean prefill-to-decode KV hand-off (disaggregated; else 0).")},
                 {"slo", output({{"ttft_s", seconds("Objective (0: none).")},
                                 {"tpot_s", seconds("Objective (0: none).")},
                                 {"itl_s", seconds("Objective (0: none).")},
                                 {"percentile", amount()},
                                 {"ttft_at_percentile", seconds("Over the requests.")},
                                 {"tpot_at_percentile", seconds("Over the requests.")},
                                 {"itl_at_percentile", seconds("Over every inter-token gap (itl_s).")},
                                 {"met", boolean().desc("Every objective given holds at the percentile.")}})
                             .desc("When the scenario states objectives.")},
                 {"timeline",
                  array_of(output({{"t_s", seconds("End of the step since the first arrival.")},
                                   {"step_s", seconds("Its duration.")},
                                   {"running", count()},
                                   {"waiting", count()},
                                   {"prefill_tokens", count()},
                                   {"decode_tokens", count()},
                                   {"kv_utilisation", amount()}})
                               .title("Step sample"))
                      .desc("Steps of the first replica (the decode pool's when disaggregated), sampled at "
                            "most 256 times.")},
                 {"cost", ref("token_cost")},
             },
             {"slo", "cost"})
      .title("Serving result");
}

Node token_cost_schema() {
  return output({{"device_power_W", amount().desc("Mean draw of one device over the steps.").unit("W")},
                 {"joules_per_token",
                  amount()
                      .desc("Energy per output token at the meter (devices, node overhead, PUE).")
                      .unit("J")},
                 {"tokens_per_joule", amount().desc("Its inverse.").unit("tokens/J")},
                 {"usd_per_million_output_tokens",
                  amount()
                      .desc("Device-hours (and energy, capital form) per million output tokens; absent "
                            "without a device price.")
                      .unit("USD")}},
                {"usd_per_million_output_tokens"})
      .title("Token cost")
      .desc("Energy and price of an output token at the scenario's operating point.");
}

Node chosen_layout_schema() {
  return output({{"tp", count()},
                 {"pp", count()},
                 {"dp", count()},
                 {"cp", count()},
                 {"ep", count()},
                 {"etp", count()},
                 {"expert_slots", count()},
                 {"sequence_parallel", boolean()},
                 {"micro_batch", count()},
                 {"interleave", count()},
                 {"recompute", choice<Recompute>()},
                 {"zero_stage", count()},
                 {"zero_shard", count()}},
                {"zero_shard"})
      .title("Chosen layout");
}

// One model of the trainer under rl.roles "separate" (rl/rl.h RlRole).
Node rl_role_schema() {
  return output({{"devices", count()},
                 {"parallel", ref("chosen_layout")},
                 {"forward_s", seconds("Its forward passes per step (0: none).")},
                 {"update_s", seconds("Its updates per step (0: a frozen model).")},
                 {"idle_s", seconds("Its wait per step for the slowest role.")},
                 {"per_device_bytes", amount().unit("bytes")},
                 {"fits", boolean()}})
      .title("RL role");
}

Node rl_output_schema() {
  const auto role = ref("rl_role");
  const auto pool_memory = output({{"per_device_bytes", amount().unit("bytes")},
                                   {"capacity_bytes", amount().unit("bytes")},
                                   {"fits", boolean()},
                                   {"what", text().desc("What does not fit (empty when it fits).")}});
  return output(
             {
                 {"step_time_s", seconds("One RL step: colocated, the sum of the phases; split "
                                         "asynchronous, the slower pool plus the weight sync.")},
                 {"phases_s",
                  output({{"rollout", seconds("The rollout's makespan (first prompt to last response).")},
                          {"reward", seconds("Reward model forward (0: rule-based).")},
                          {"reference", seconds("Reference model forward.")},
                          {"old_logprob", seconds("Old log-prob forward (and ppo's critic values).")},
                          {"train", seconds("mini_batches optimizer steps (and ppo's critic's).")},
                          {"weight_sync", seconds("The policy's weights to the engine.")},
                          {"swap", seconds("Colocated: engine (and trainer) state to host and back.")}})},
                 {"idle_s", output({{"rollout", seconds("The rollout pool waiting per step.")},
                                    {"train", seconds("The training pool waiting per step.")}})},
                 {"placement", text()},
                 {"staleness", count()},
                 {"tokens_per_step",
                  amount().desc("Prompt + response tokens trained per step.").unit("tokens")},
                 {"tokens_per_s", amount().unit("tokens/s")},
                 {"tokens_per_s_per_gpu", amount().unit("tokens/s")},
                 {"rollout",
                  output({{"devices", count()},
                          {"parallel", ref("chosen_layout")},
                          {"responses", count()},
                          {"output_tokens", amount().unit("tokens")},
                          {"output_tokens_per_s", amount().unit("tokens/s")},
                          {"longest_response_s", seconds("First prompt to the last response.")},
                          {"mean_response_s", seconds("Mean time of a response.")},
                          {"mean_batch", amount().desc("Time-weighted running sequences per replica.")},
                          {"preemptions", count()},
                          {"partial", boolean().desc("Partial rollout in effect.")},
                          {"makespan_s", seconds("The step's responses alone, first prompt to last "
                                                 "response (the phase unless partial).")}})},
                 {"train", output({{"devices", count()},
                                   {"parallel", ref("chosen_layout")},
                                   {"global_batch", count().desc("Sequences per optimizer step.")},
                                   {"seq_len", count().unit("tokens")},
                                   {"iteration_time_s", seconds("One optimizer step.")},
                                   {"mini_batches", count()},
                                   {"mfu", amount().unit("fraction")},
                                   {"critic_s", seconds("ppo: the critic's forward and update.")},
                                   {"offload", text()},
                                   {"offload_bytes_per_device",
                                    amount()
                                        .desc("Host-link traffic of one device per step (the busiest "
                                              "role's under roles separate).")
                                        .unit("bytes")},
                                   {"offload_s", seconds("offload_bytes_per_device over the host link "
                                                         "(inside the phases).")}})},
                 {"roles", output({{"mode", text()},
                                   {"actor", role},
                                   {"critic", role},
                                   {"reference", role},
                                   {"reward", role}},
                                  {"actor", "critic", "reference", "reward"})
                               .desc("mode; under separate also one entry per role the job has.")},
                 {"weight_sync", output({{"method", text()}, {"bytes", amount().unit("bytes")}})},
                 {"swap_bytes_per_device", amount().unit("bytes")},
                 {"memory", output({{"rollout", pool_memory}, {"train", pool_memory}})},
                 {"run", output({{"train_steps", count()},
                                 {"wall_days", amount().unit("days")},
                                 {"gpu_hours", amount().unit("device-hours")},
                                 {"energy_mwh", amount().unit("MWh")},
                                 {"cost_usd", amount().unit("USD")}})
                             .desc("With train_steps.")},
             },
             {"run"})
      .title("RL result");
}

Node run_output_schema() {
  return output(
             {
                 {"steps",
                  count().desc(
                      "Optimizer steps: the batch ramp's, then the steady batch's, then the stages'.")},
                 {"ideal_time_s",
                  seconds("Every step at its steady-state time; no failures or checkpoints.")},
                 {"wall_time_s", seconds("Elapsed: ideal_time_s / goodput (over a stated "
                                         "system.operations.production_efficiency too).")},
                 {"wall_days", amount().desc("wall_time_s in days.").unit("days")},
                 {"gpu_hours", amount().desc("num_devices x wall time.").unit("device-hours")},
                 {"energy_mwh", amount().desc("At the meter: devices, node overhead, x PUE.").unit("MWh")},
                 {"device_energy_mwh", amount().desc("The devices alone (no overhead, no PUE).").unit("MWh")},
                 {"device_power_W", amount().desc("Mean draw of one device while training.").unit("W")},
                 {"cost_usd", amount().desc("device-hours x price (+ energy, capital form).").unit("USD")},
                 {"usd_per_million_tokens",
                  amount().desc("cost_usd per million tokens trained.").unit("USD")},
                 {"usd_per_gpu_hour", amount().desc("The device-hour price in effect.").unit("USD/h")},
                 {"co2_t", amount().desc("energy x economics.grid_kg_co2_per_kwh.").unit("t")},
                 {"goodput", amount()
                                 .desc("Compute time / elapsed time: the share failures and checkpoints "
                                       "leave.")
                                 .unit("fraction")},
                 {"checkpoint_interval_s", seconds("Compute between checkpoints (0: none).")},
                 {"checkpoint_s", seconds("The time one checkpoint blocks training (the write; the copy "
                                          "to host memory under operations.checkpoint_async).")},
                 {"checkpoint_write_s", seconds("One checkpoint's write to storage.")},
                 {"checkpoint_bytes",
                  amount().desc("Weights, master weights and optimizer state.").unit("bytes")},
                 {"expected_failures", amount().desc("wall time / job MTBF.")},
                 {"job_mtbf_s", seconds("Mean time between failures of the job (0: no failures).")},
                 {"lost_s", output({{"checkpoint_writes", seconds("")},
                                    {"lost_work", seconds("Work redone after failures.")},
                                    {"restarts", seconds("")},
                                    {"production", seconds("The steps' time beyond the modelled rate at "
                                                           "a stated system.operations."
                                                           "production_efficiency (0 otherwise).")},
                                    {"total", seconds("")}})
                                .desc("wall_time_s - ideal_time_s by cause.")},
                 {"stages",
                  array_of(output({{"tokens", amount().unit("tokens")},
                                   {"seq_len", count().unit("tokens")},
                                   {"global_batch", count().unit("sequences")},
                                   {"parallel", chosen_layout_schema().title("Stage layout")},
                                   {"steps", count()},
                                   {"iteration_time_s", seconds("One step at this stage's steady state.")},
                                   {"tokens_per_s", amount().unit("tokens/s")},
                                   {"mfu", amount().unit("fraction")},
                                   {"ideal_time_s", seconds("tokens / tokens_per_s.")},
                                   {"memory_bytes", amount().desc("Per device, most loaded.").unit("bytes")},
                                   {"fits", boolean()}})
                               .title("Stage result"))
                      .desc("training.stages, each as predicted on its own sequence length, batch and "
                            "layout; included in steps, ideal_time_s and everything after.")},
             },
             {"cost_usd", "usd_per_million_tokens", "usd_per_gpu_hour", "co2_t", "stages"})
      .title("Run result")
      .desc("The whole training run (training.train_tokens).");
}

Node inference_output_schema() {
  const Props split = {{"compute", seconds("")}, {"communication", seconds("")}};
  return output(
             {
                 {"ttft_s", seconds("Time to first token.")},
                 {"tpot_s", seconds("Mean time per later output token.")},
                 {"e2e_latency_s", seconds("ttft + (output_len - 1) tpot.")},
                 {"throughput_tokens_per_s",
                  amount().desc("batch x output_len / e2e latency, one replica.").unit("tokens/s")},
                 {"max_batch",
                  count().desc("Largest batch that fits for the given lengths.").unit("sequences")},
                 {"prefill_s", output(split).desc("The prompt step.")},
                 {"decode_step_s",
                  output(split).desc("One decode step; per output token under speculative decoding.")},
                 {"math_precision", choice<Precision>().desc("The precision the math runs in.")},
                 {"assumed",
                  output({{"launch_interval_us", amount()
                                                     .desc("Host launch interval in effect (0 with "
                                                           "CUDA graphs).")
                                                     .unit("us")}})},
                 {"operators", array_of(ref("operator"))},
                 {"speculative",
                  output({{"tokens_per_step",
                           amount().desc("Tokens a sequence gains per step: (1 - a^(k+1)) / (1 - a).")},
                          {"step_s", seconds("One speculative step at the mean context: draft + verify.")},
                          {"draft_s", seconds("The draft's k passes of one token.")},
                          {"verify_s", seconds("The target's step over k + 1 tokens per sequence.")},
                          {"tpot_without_s", seconds("The plain decode step, one token per sequence.")},
                          {"speedup", amount().desc("tpot_without_s / tpot_s (below 1: speculation "
                                                    "costs more than it saves).")}})
                      .desc("inference.speculative: what speculation does to a decode step.")},
                 {"memory", ref("memory").desc("The inference footprint, when the scenario also trains.")},
                 {"cost", ref("token_cost")},
             },
             {"memory", "cost", "speculative"})
      .title("Inference result");
}

}  // namespace

namespace {

// The scenario's `calibration` (hardware/calibration.h; docs/calibration.md), and its factors as
// the prediction reports them.

Node scenario_calibration_schema() {
  return schema_of(calibration_fields())
      .desc(
          "Calibration to measurements (optimus calibrate writes it): applied to the system's rates "
          "when the scenario's device and software are those it was fitted on, else the warning "
          "calibration.not_applicable and the uncalibrated prediction.");
}

}  // namespace

nlohmann::ordered_json scenario_schema() {
  ojson j;
  j["$schema"] = kDraft;
  j["$id"] = "urn:optimus:scenario";
  Node root =
      object(
          {
              {"schema_version", node({{"type", "integer"}, {"const", 1}}).desc("Format version.").def(1)},
              {"name", text().desc("Free text.")},
              {"model",
               one_of({preset_id("models"), ref("model")}).desc("A model preset id or an inline model.")},
              {"system",
               one_of({preset_id("systems"), ref("system"), ref("technology")})
                   .desc("A system preset id, an inline system, or a system of devices derived from "
                         "a technology node.")},
              {"software",
               one_of({preset_id("software"), ref("software_profile")})
                   .desc("The software stack: a presets/software id or an inline profile; absent = "
                         "the system's software block.")},
              {"num_devices", integer(1, kMaxDevices).desc("Devices in the job.")},
              {"parallel",
               one_of({ref("parallel"), node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                                            .desc("The layout search picks the fastest layout that fits "
                                                  "(training; inference: by throughput at batches up to "
                                                  "the scenario's); the output's parallel_auto says which.")})
                   .desc("The parallel layout, or \"auto\".")},
              {"training", ref("training")},
              {"inference", ref("inference")},
              {"rl", ref("rl")},
              {"economics",
               one_of({preset_id("economics"), ref("economics")})
                   .desc("Prices of devices and energy: a presets/economics id or an object laid over "
                         "the default preset (us-2025).")},
              {"calibration", ref("calibration")},
          },
          {"model", "system", "num_devices"})
          .title("Scenario")
          .desc(
              "One question: which model, on which hardware, split how, doing what. At least one of "
              "training and inference.")
          .set("anyOf",
               ojson::array(
                   {{{"required", {"training"}}}, {{"required", {"inference"}}}, {{"required", {"rl"}}}}));
  const ojson body = root.json();
  for (const auto& [k, v] : body.items()) j[k] = v;
  j["$defs"] = {{"model", model_schema().json()},
                {"device", device_schema().json()},
                {"technology", uarch_schema().json()},
                {"scale_up", tier_schema(true).json()},
                {"scale_out", tier_schema(false).json()},
                {"system", system_schema().json()},
                {"parallel", parallel_schema().json()},
                {"training", training_schema().json()},
                {"software", software_schema().json()},
                {"software_profile", software_profile_schema().json()},
                {"inference", inference_schema().json()},
                {"economics", economics_schema().json()},
                {"calibration", scenario_calibration_schema().json()},
                {"rl", rl_schema().json()}};
  return j;
}

nlohmann::ordered_json prediction_schema() {
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
              {"rl", ref("rl").desc("When the scenario has an rl job (then no training or inference; memory "
                                    "is the trainer's).")},
              {"parallel_auto",
               output({{"parallel", ref("chosen_layout")},
                       {"mode", text().desc("training or inference: what the search ranked by.")},
                       {"evaluated", count().desc("Layouts in the search space.")},
                       {"feasible", count().desc("Layouts that fit and were timed.")},
                       {"narrowed",
                        output({{"zero_stage", count()}, {"micro_batch", count()}, {"interleave", count()}},
                               {"zero_stage", "micro_batch", "interleave"})
                            .desc("Keys auto fixed because the whole space was past the search's cap "
                                  "(zero_stage 1, then micro_batch 1, then interleave 1, each searched "
                                  "again); empty when the whole space was searched.")}})
                   .desc("With parallel: \"auto\": the layout the search chose (the numbers above are "
                         "its prediction).")},
              {"calibration",
               output({{"applied", boolean()},
                       {"factors", calibration_factors_node()},
                       {"band", output({{"low", amount()}, {"high", amount()}})
                                    .desc("90% band of the calibrated numbers, as multipliers.")},
                       {"reason", text().desc("Why it did not apply.")},
                       {"uncalibrated",
                        node({{"type", "object"}, {"additionalProperties", amount().json()}})
                            .desc("Each headline number (dotted output path) predicted without the "
                                  "calibration, on the same layout.")}},
                      {"band", "reason", "uncalibrated"})
                   .desc("With a scenario's calibration: whether it applied (device and software match), its "
                         "factors and the uncalibrated headline numbers.")},
              {"memory", ref("memory").desc("Per-device memory (training's when both are asked).")},
              {"params",
               output({{"total", amount().desc("Every parameter of the model.").unit("parameters")},
                       {"active", amount()
                                      .desc("Parameters one token passes through: the routed "
                                            "experts count top_k / experts of theirs.")
                                      .unit("parameters")},
                       {"moe_layers",
                        count().desc("Layers with a mixture-of-experts FFN (0 for a dense model).")}})
                   .desc("Parameter counts of the whole model.")},
              {"warnings",
               array_of(output({{"code", text().desc("Stable dotted code.")}, {"message", text()}})
                            .title("Warning"))},
              {"regime", object({{"training", text()},
                                 {"inference", text()},
                                 {"serving", text()},
                                 {"memory", text()},
                                 {"run", text()}})
                             .desc("The accuracy regime of each workload (training/dense/earlier, "
                                   "training/moe/fp4-generation, inference/eager, inference/graphs, "
                                   "serving/dense, serving/moe, "
                                   "memory/training, run/fp8-generation or run/earlier (a whole training "
                                   "run), ...): what the uncertainty "
                                   "bands are fitted by.")},
              {"uncertainty",
               node({{"type", "object"},
                     {"additionalProperties",
                      output({{"low", amount()},
                              {"high", amount()},
                              {"regime", text().desc("The regime whose band applies (a parent when "
                                                     "the scenario's own has too few rows).")},
                              {"cases", count().desc("Validation rows the band is fitted on.")}})
                          .title("Band")
                          .json()}})
                   .desc("80% bands of the headline numbers, keyed by their dotted output path "
                         "(training.iteration_time_s, inference.ttft_s, serving.output_tokens_per_s, "
                         "memory.per_device_bytes.total, run.gpu_hours, run.wall_days, ...): the 10th-90th "
                         "percentile of measured / "
                         "predicted over the validation rows of the scenario's regime "
                         "(presets/uncertainty/bands.json, scripts/fit_uncertainty.py).")},
          },
          {"training", "inference", "serving", "run", "parallel_auto", "calibration", "rl"})
          .title("Prediction")
          .desc("The output of optimus predict --json.");
  const ojson body = root.json();
  for (const auto& [k, v] : body.items()) j[k] = v;
  j["$defs"] = {{"training", training_output_schema().json()},
                {"inference", inference_output_schema().json()},
                {"serving", serving_output_schema().json()},
                {"operator", operator_schema().json()},
                {"memory", memory_schema().json()},
                {"run", run_output_schema().json()},
                {"rl", rl_output_schema().json()},
                {"chosen_layout", chosen_layout_schema().json()},
                {"rl_role", rl_role_schema().json()},
                {"token_cost", token_cost_schema().json()}};
  return j;
}

}  // namespace optimus::io
