#include "io/schema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hardware/uarch.h"
#include "io/contract_text.h"
#include "io/fields.h"
#include "io/json_io.h"
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
  return object(concat({{"technology", preset_id("technology")}, {"dram", preset_id("dram")}},
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
                 {"software", ref("software")},
                 {"cuda_graphs", boolean()},
                 {"kv_cache_follows_weights", boolean()},
                 {"linear_state_follows_model", boolean()},
                 {"serving", object(scheduler)}})
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
              {"schema_version", node({{"type", "integer"}, {"const", kSchemaVersion}}).def(kSchemaVersion)},
              {"name", text()},
              {"model", one_of({preset_id("models"), ref("model")})},
              {"system", one_of({preset_id("systems"), ref("system"), ref("technology")})},
              {"software", one_of({preset_id("software"), ref("software_profile")})},
              {"num_devices", integer(1, kMaxDevices)},
              {"parallel", one_of({ref("parallel"),
                                   node({{"type", "string"}, {"const", "auto"}, {"examples", {"auto"}}})
                                       .desc("The layout search picks the fastest layout that fits "
                                             "(training; inference: by throughput at batches up to "
                                             "the scenario's); the output's parallel_auto says which.")})},
              {"training", ref("training")},
              {"inference", ref("inference")},
              {"rl", ref("rl")},
              {"economics", one_of({preset_id("economics"), ref("economics")})},
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
  describe_from_doc(j, DocTable::scenario);
  return j;
}

namespace {

// Where docs/contract.md describes each shared definition ($defs) of the two schemas.
std::string canonical(DocTable which, const std::string& def) {
  static const std::map<std::string, std::string> scenario = {{"software", "system.software"},
                                                              {"software_profile", "software"},
                                                              {"device", "system.device"},
                                                              {"scale_up", "system.scale_up"},
                                                              {"scale_out", "system.scale_out"}};
  static const std::map<std::string, std::string> prediction = {{"chosen_layout", "parallel_auto.parallel"},
                                                                {"operator", "inference.operators[]"},
                                                                {"token_cost", "inference.cost"},
                                                                {"rl_role", "rl.roles.actor"}};
  const auto& m = which == DocTable::scenario ? scenario : prediction;
  const auto it = m.find(def);
  return it == m.end() ? def : it->second;
}

void walk(ojson& root, DocTable which, ojson& node, const std::string& path, std::vector<std::string>& seen,
          const SchemaVisit& visit) {
  if (!node.is_object()) return;
  if (node.contains("$ref")) {
    const std::string ref = node["$ref"].get<std::string>();
    const std::string def = ref.substr(ref.rfind('/') + 1);
    // Looked up without inserting: the walk holds references into $defs.
    if (std::find(seen.begin(), seen.end(), def) != seen.end() || !root.contains("$defs") ||
        !root["$defs"].contains(def))
      return;
    seen.push_back(def);
    walk(root, which, root["$defs"][def], canonical(which, def), seen, visit);
    return;
  }
  for (const char* k : {"oneOf", "anyOf", "allOf"})
    if (node.contains(k))
      for (auto& alt : node[k]) walk(root, which, alt, path, seen, visit);
  if (node.contains("items") && node["items"].is_object())
    walk(root, which, node["items"], path + "[]", seen, visit);
  if (node.contains("properties"))
    for (auto& [key, sub] : node["properties"].items()) {
      const std::string p = path.empty() ? key : path + "." + key;
      bool required = false;
      if (node.contains("required"))
        for (const auto& r : node["required"]) required = required || r == key;
      visit(p, sub, required);
      walk(root, which, sub, p, seen, visit);
    }
}

}  // namespace

void walk_schema(ojson& root, DocTable which, const SchemaVisit& visit) {
  std::vector<std::string> seen;
  walk(root, which, root, "", seen, visit);
}

void describe_from_doc(ojson& root, DocTable which) {
  const auto rows = doc_text(which);
  walk_schema(root, which, [&](const std::string& path, ojson& node, bool) {
    const auto it =
        std::lower_bound(rows.begin(), rows.end(), path,
                         [](const DocText& r, const std::string& p) { return std::string_view(r.path) < p; });
    if (it == rows.end() || it->path != path) return;
    const std::string unit = it->unit;
    std::string text = it->meaning;
    if (!unit.empty()) text += (text.empty() ? "" : " ") + ("Unit: " + unit + ".");
    // The keywords in Node::json's order: title, type, description, unit, then the rest.
    ojson out = ojson::object();
    for (const char* k : {"title", "type"})
      if (node.contains(k)) out[k] = node[k];
    if (!text.empty()) out["description"] = text;
    if (!unit.empty()) out[kUnitKeyword] = unit;
    for (const auto& [k, v] : node.items())
      if (!out.contains(k) && k != "description" && k != kUnitKeyword) out[k] = v;
    node = std::move(out);
  });
}

}  // namespace optimus::io
