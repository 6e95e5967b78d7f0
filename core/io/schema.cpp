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

Node training_schema() { return schema_of(training_fields()).title("Training workload"); }

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
                      schema_of(speculative_fields())
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

}  // namespace optimus::io
