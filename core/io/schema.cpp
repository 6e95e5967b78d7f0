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
  return schema_of(economics_fields())
      .title("Economics")
      .desc("Cost of devices and energy: usd_per_gpu_hour (rental) or capital terms plus usd_per_kwh.");
}

Node training_schema() { return schema_of(training_fields()).title("Training workload"); }

Node inference_schema() { return schema_of(inference_fields()).title("Inference workload"); }

// ---- Prediction --------------------------------------------------------------------------------

// The scenario's rl block (issue 40; core/scenario/rl_spec.h).
Node rl_schema() {
  return schema_of(rl_fields())
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
