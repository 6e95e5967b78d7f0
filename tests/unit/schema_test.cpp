// The emitted JSON Schema against the readers it describes: every key of every object the schema
// lists is the set of keys the reader knows (its unknown-key message names them), every
// minimum/maximum is the reader's bound (the bound is accepted, the next value beyond it is
// scenario.out_of_range), every enum value is accepted and others are scenario.invalid_value,
// and "required" is exactly what the reader reports missing. The web tests validate documents
// against the schema with a real validator (web/test/schema.test.ts).
#include "io/schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"

namespace schema_test {

namespace {

using json = nlohmann::json;

// Keys the schema states before the reader reads them: the device's GEMM tile calibration,
// which a parallel change adds to read_device. Remove them here when it lands.
const std::set<std::string> kPendingInReader = {};

const json& schema() {
  static const json s = json::parse(optimus::api::schema())["scenario"];
  return s;
}

const json& resolve(const json& node) {
  if (!node.contains("$ref")) return node;
  const std::string ref = node["$ref"].get<std::string>();
  return schema()["$defs"][ref.substr(std::string("#/$defs/").size())];
}

// The default scenario with presets resolved: every object inline, every key present.
json resolved_default() {
  const json v = json::parse(optimus::api::validate(optimus::api::preset("scenarios", "default")));
  return v.at("scenario");
}

// A sample object for each object alternative of a oneOf (by its title).
json sample_for(const std::string& title, const json& base) {
  if (title == "Model") return base["model"];
  if (title == "System") return base["system"];
  if (title == "Device") return base["system"]["device"];
  if (title == "Software profile") {
    json p = json::parse(optimus::preset_json("software", "vllm"));
    p["software"] = base["system"]["software"];  // every key of the block present
    p["software"]["notes"] = "walked";
    p["notes"] = "walked";
    p["serving"]["notes"] = "walked";
    return p;
  }
  if (title == "Parallel layout") return base["parallel"];
  if (title == "Economics")
    return {{"usd_per_kwh", 0.1},
            {"pue", 1.3},
            {"grid_kg_co2_per_kwh", 0.4},
            {"gpu_price_usd", 30000},
            {"amortisation_years", 4},
            {"utilisation", 0.9},
            {"name", "n"},
            {"source", "s"},
            {"notes", "x"}};
  if (title == "Technology-derived hardware")
    return {{"technology", "7nm"}, {"area_mm2", 826}, {"power_W", 400}};
  ADD_FAILURE() << "no sample for " << title;
  return json::object();
}

// The parse error of `doc`, if any.
std::optional<optimus::Error> error_of(const json& doc) {
  auto s = optimus::parse_scenario(doc.dump());
  if (s) return std::nullopt;
  return s.error();
}

std::string describe(const std::optional<optimus::Error>& e) {
  return e ? e->code + " at " + e->path + ": " + e->message : "no error";
}

// Whether `doc` fails because of the value at `path` (a scenario.* reading error there).
bool rejected_at(const json& doc, const std::string& path) {
  const auto e = error_of(doc);
  return e && e->path == path && e->code.rfind("scenario.", 0) == 0;
}

class Walker {
 public:
  int checked_keys = 0, checked_bounds = 0, checked_enums = 0;

  // Checks the object schema `node` at `path` of `doc`, where doc holds a valid object.
  void object(const json& node, json doc, const std::string& path) {
    const json& n = resolve(node);
    ASSERT_EQ(n.value("type", ""), "object") << path;
    ASSERT_EQ(n.value("additionalProperties", true), false) << path;
    const json::json_pointer at(path);
    std::set<std::string> properties;
    for (const auto& [k, v] : n["properties"].items())
      if (!kPendingInReader.count(k)) properties.insert(k);

    // The reader's known keys, from its unknown-key message.
    json probe = doc;
    probe[at]["x_unknown"] = 1;
    const auto e = error_of(probe);
    ASSERT_TRUE(e && e->code == "scenario.unknown_key" && e->path == path + "/x_unknown") << describe(e);
    const std::string known = e->message.substr(e->message.find("known keys here: ") + 17);
    std::set<std::string> reader_keys;
    std::stringstream ss(known.substr(0, known.size() - 1));
    for (std::string k; std::getline(ss, k, ',');) reader_keys.insert(k.substr(k.find_first_not_of(' ')));
    EXPECT_EQ(properties, reader_keys) << "schema and reader disagree on the keys of " << path;

    const json required = n.value("required", json::array());
    for (const auto& [key, prop] : n["properties"].items()) {
      if (kPendingInReader.count(key)) continue;
      const std::string p = path + "/" + key;
      ++checked_keys;
      const bool is_required = std::find(required.begin(), required.end(), key) != required.end();
      if (doc[at].contains(key)) {
        json without = doc;
        without[at].erase(key);
        const auto missing = error_of(without);
        const bool reported = missing && missing->code == "scenario.missing_key" && missing->path == p;
        // kv_heads is required only by attention type "gqa" (the base model's); without
        // "technology" a derived device or system is read as an inline one.
        if (key != "kv_heads" && key != "technology") {
          EXPECT_EQ(reported, is_required) << p << ": " << describe(missing);
        }
      } else {
        EXPECT_FALSE(is_required) << p << " is required but absent from the base scenario";
      }
      value(prop, doc, p);
    }
  }

 private:
  void value(const json& node, const json& doc, const std::string& path) {
    const json& n = resolve(node);
    const json::json_pointer at(path);
    if (n.contains("oneOf")) {
      for (const auto& alt : n["oneOf"]) {
        const json& a = resolve(alt);
        json d = doc;
        if (a["type"] == "object") {
          d[at] = sample_for(a["title"], doc);
          ASSERT_FALSE(error_of(d)) << path << " as " << a["title"] << ": " << describe(error_of(d));
          object(alt, d, path);
        } else {
          ASSERT_TRUE(a.contains("examples")) << path;
          for (const auto& id : a["examples"]) {
            d[at] = id;
            EXPECT_FALSE(error_of(d)) << path << " = " << id << ": " << describe(error_of(d));
          }
        }
      }
      return;
    }
    const std::string type = n.value("type", "");
    if (type == "object") {
      if (doc.contains(at)) object(n, doc, path);
      return;
    }
    const auto set = [&](const json& v) {
      json d = doc;
      d[at] = v;
      return d;
    };
    if (n.contains("enum")) {
      ++checked_enums;
      for (const auto& v : n["enum"]) EXPECT_FALSE(rejected_at(set(v), path)) << path << " = " << v;
      const auto e = error_of(set("no-such-value"));
      EXPECT_TRUE(e && e->code == "scenario.invalid_value" && e->path == path) << path << ": " << describe(e);
      return;
    }
    if (n.contains("const")) {
      EXPECT_FALSE(error_of(set(n["const"]))) << path;
      return;
    }
    if (type == "boolean") {
      EXPECT_FALSE(rejected_at(set(true), path)) << path;
      EXPECT_FALSE(rejected_at(set(false), path)) << path;
      EXPECT_TRUE(rejected_at(set("yes"), path)) << path;
      return;
    }
    if (type == "string") {
      EXPECT_TRUE(rejected_at(set(1), path)) << path;
      return;
    }
    if (type != "number" && type != "integer") return;  // arrays: web/test/schema.test.ts
    ASSERT_TRUE(n.contains("minimum") && n.contains("maximum")) << path << " has no range";
    ++checked_bounds;
    const double lo = n["minimum"].get<double>(), hi = n["maximum"].get<double>();
    const bool whole = type == "integer";
    const double below = whole ? lo - 1 : std::nextafter(lo, -std::numeric_limits<double>::infinity());
    const double above = whole ? hi + 1 : std::nextafter(hi, std::numeric_limits<double>::infinity());
    const auto num = [&](double x) { return whole ? json(static_cast<std::int64_t>(x)) : json(x); };
    EXPECT_FALSE(rejected_at(set(num(lo)), path))
        << path << " = " << lo << ": " << describe(error_of(set(num(lo))));
    EXPECT_FALSE(rejected_at(set(num(hi)), path))
        << path << " = " << hi << ": " << describe(error_of(set(num(hi))));
    EXPECT_TRUE(rejected_at(set(num(below)), path)) << path << " = " << below;
    EXPECT_TRUE(rejected_at(set(num(above)), path)) << path << " = " << above;
    if (whole) {
      EXPECT_TRUE(rejected_at(set(lo + 0.5), path)) << path << " accepts a fraction";
    }
    // A rate where 0 means "not modelled": values between 0 and its smallest rate are refused.
    if (n.contains("anyOf")) {
      const double smallest = n["anyOf"][1]["minimum"].get<double>();
      EXPECT_TRUE(rejected_at(set(smallest / 2), path)) << path;
    }
  }
};

// A scaled key's default is written as the decimal it is (the engine's 1e-4 s back in microseconds
// had been 100.00000000000001, a probe's "floating-point noise" in `optimus schema`).
TEST(Schema, ScaledDefaultsAreWrittenAsTheirDecimals) {
  const json& sw = schema()["$defs"]["system"]["properties"]["software"]["properties"];
  EXPECT_EQ(sw["training_launch_interval_us"]["default"].dump(), "320");
  EXPECT_EQ(sw["training_expert_gemm_us"]["default"].dump(), "10");
}

TEST(Schema, BothDocumentsAreDraft2020) {
  const json s = json::parse(optimus::api::schema());
  for (const char* k : {"scenario", "prediction"}) {
    ASSERT_TRUE(s.contains(k));
    EXPECT_EQ(s[k]["$schema"], "https://json-schema.org/draft/2020-12/schema");
    EXPECT_EQ(s[k]["type"], "object");
  }
}

TEST(Schema, EveryKeyRangeEnumAndRequirementMatchesTheReader) {
  const json base = resolved_default();
  ASSERT_FALSE(error_of(base)) << describe(error_of(base));
  Walker w;
  w.object(schema(), base, "");
  // Every key of the scenario, model, system (inline and derived), device, tiers, software,
  // parallel and workloads was visited.
  EXPECT_GT(w.checked_keys, 150);
  EXPECT_GT(w.checked_bounds, 90);
  EXPECT_GE(w.checked_enums, 12);
}

// The rl block (core/rl): its objects walked as the rest of the scenario is (keys, bounds, enums,
// required keys against the reader), and the rl object's own keys against the reader's. Its length
// keys are the serving ones (length_schema), its model keys the model's.
TEST(Schema, TheRlBlockMatchesTheReader) {
  json doc = resolved_default();
  doc.erase("training");
  doc.erase("inference");
  doc["rl"] = {{"algorithm", "ppo"},
               {"prompts_per_step", 4},
               {"samples_per_prompt", 2},
               {"rollout",
                {{"tp", 1},
                 {"pp", 1},
                 {"ep", 1},
                 {"dp", 1},
                 {"software", "vllm"},
                 {"precision", "bf16"},
                 {"max_batch", 8},
                 {"gpu_memory_utilization", 0.9},
                 {"static_batching", false},
                 {"cuda_graph_max_batch", 512},
                 {"cuda_graphs", true},
                 {"prefix_caching", false}}},
               {"train",
                {{"tp", 1},
                 {"pp", 1},
                 {"cp", 1},
                 {"dp", 1},
                 {"ep", 1},
                 {"etp", 1},
                 {"micro_batch", 1},
                 {"micro_batch_tokens", 0},
                 {"padding", "removed"},
                 {"recompute", "none"},
                 {"zero_stage", 0},
                 {"precision", "bf16"},
                 {"offload", "none"}}},
               {"async", {{"staleness", 0}, {"partial_rollout", false}}}};
  ASSERT_FALSE(error_of(doc)) << describe(error_of(doc));
  const json& rl = schema()["$defs"]["rl"];
  Walker w;
  w.object(rl["properties"]["rollout"], doc, "/rl/rollout");
  w.object(rl["properties"]["train"]["oneOf"][0], doc, "/rl/train");
  w.object(rl["properties"]["async"], doc, "/rl/async");
  EXPECT_EQ(w.checked_keys, 13 + 13 + 2);  // rollout: 12 keys and speculative (absent here, not walked)
  // The rl object's keys.
  json probe = doc;
  probe["rl"]["x_unknown"] = 1;
  const auto e = error_of(probe);
  ASSERT_TRUE(e && e->code == "scenario.unknown_key") << describe(e);
  const std::string known = e->message.substr(e->message.find("known keys here: ") + 17);
  std::set<std::string> reader_keys, properties;
  std::stringstream ss(known.substr(0, known.size() - 1));
  for (std::string k; std::getline(ss, k, ',');) reader_keys.insert(k.substr(k.find_first_not_of(' ')));
  for (const auto& [k, v] : rl["properties"].items()) properties.insert(k);
  EXPECT_EQ(properties, reader_keys);
  EXPECT_EQ(properties.size(),
            23u);  // reward_cpu_ms and reward_workers the 21st and 22nd, controller_GBps the 23rd
}

TEST(Schema, StatesTheNewModelKeys) {
  const json& model = schema()["$defs"]["model"]["properties"];
  EXPECT_EQ(model["moe"]["required"], json({"experts", "top_k", "expert_ffn_hidden"}));
  EXPECT_EQ(model["moe"]["properties"]["router_balance"]["enum"], json({"balanced", "measured"}));
  EXPECT_EQ(model["position"]["enum"], json({"learned", "rotary", "none"}));
  EXPECT_EQ(model["bias"]["x-default-by-norm"], json({{"layernorm", true}, {"rmsnorm", false}}));
  EXPECT_EQ(model["position"]["x-default-by-norm"], json({{"layernorm", "learned"}, {"rmsnorm", "rotary"}}));
  EXPECT_EQ(model["attention"]["properties"]["type"]["enum"], json({"mha", "gqa", "mqa", "mla"}));
  const json& tier = schema()["$defs"]["scale_up"]["properties"];
  EXPECT_EQ(tier["all_to_all"]["enum"], json({"pairwise", "ring"}));
  EXPECT_EQ(tier["bandwidth_GBps"]["x-unit"], "GB/s");
  const json& cal = schema()["$defs"]["device"]["properties"]["calibration"]["properties"];
  EXPECT_EQ(cal["split_k_max"]["default"], 16);
  EXPECT_EQ(cal["split_k_min_k"]["default"], 256);
  EXPECT_EQ(cal["split_k_max_waves"]["default"], 2);
  EXPECT_EQ(cal["gemm_tiles"]["type"], "array");
}

TEST(Schema, PredictionListsTheBoundsOfTheNameTable) {
  const json p = json::parse(optimus::api::schema())["prediction"];
  EXPECT_EQ(p["$defs"]["operator"]["properties"]["bound"]["enum"],
            json({"compute", "memory", "l2", "latency", "host"}));
  EXPECT_EQ(p["additionalProperties"], false);
}

}  // namespace

namespace {

// Every key of `obj` is a property of its schema `node` (objects walked down through $ref and the
// object alternative of a oneOf); returns how many keys were checked.
int keys_in_schema(const json& obj, const json& node, const std::string& path) {
  const json& n = resolve(node);
  if (n.contains("oneOf")) {
    for (const json& alt : n["oneOf"])
      if (resolve(alt).contains("properties") && obj.is_object()) return keys_in_schema(obj, alt, path);
    return 0;
  }
  if (!obj.is_object() || !n.contains("properties")) return 0;
  int checked = 0;
  for (const auto& [k, v] : obj.items()) {
    EXPECT_TRUE(n["properties"].contains(k)) << path << "/" << k << " is written but not in the schema";
    if (n["properties"].contains(k)) checked += 1 + keys_in_schema(v, n["properties"][k], path + "/" + k);
  }
  return checked;
}

// The schema's lists of preset ids come from preset_ids(), which reads no preset: the same ids, in
// the same order, as list_presets() (which parses each one for its name and source).
TEST(Schema, PresetIdsAreTheListedPresetsIds) {
  for (const char* kind :
       {"models", "devices", "systems", "scenarios", "software", "economics", "technology"}) {
    std::vector<std::string> listed;
    for (const auto& p : optimus::list_presets(kind)) listed.push_back(p.id);
    EXPECT_FALSE(listed.empty()) << kind;
    EXPECT_EQ(optimus::preset_ids(kind), listed) << kind;
  }
  EXPECT_TRUE(optimus::preset_ids("no such kind").empty());
}

// The reader, the writer and the schema come from one table per object (io/objects.cpp): every
// preset scenario, written back by validate, reads back to the same scenario, and every key the
// writer writes is one the schema lists.
TEST(Schema, TheWriterWritesWhatTheReaderReadsBackAndTheSchemaLists) {
  int checked = 0;
  for (const auto& p : optimus::list_presets("scenarios")) {
    const json once = json::parse(optimus::api::validate(optimus::api::preset("scenarios", p.id)));
    ASSERT_TRUE(once.contains("scenario")) << p.id << ": " << once.dump();
    const json twice = json::parse(optimus::api::validate(once["scenario"].dump()));
    ASSERT_TRUE(twice.contains("scenario")) << p.id << ": " << twice.dump();
    EXPECT_EQ(once["scenario"], twice["scenario"]) << p.id;
    for (const char* key : {"system", "parallel", "inference"})
      if (once["scenario"].contains(key))
        checked += keys_in_schema(once["scenario"][key], schema()["properties"][key], std::string("/") + key);
  }
  EXPECT_GT(checked, 300);
}

}  // namespace

namespace {

// The prediction's schema node `node` against the value `v` the writer wrote: every key written is
// a property, every required property is written, every leaf has the schema's type, arrays and
// keyed maps are walked item by item. Returns the keys checked.
int check_output(const json& v, const json& node, const json& defs, const std::string& path) {
  const json* n = &node;
  if (n->contains("$ref")) n = &defs[(*n)["$ref"].get<std::string>().substr(std::string("#/$defs/").size())];
  const std::string type = n->value("type", "");
  if (type == "number") {
    EXPECT_TRUE(v.is_number()) << path;
  }
  if (type == "integer") {  // a whole number, as JSON Schema counts them (2.0 is one)
    EXPECT_TRUE(v.is_number() && std::floor(v.get<double>()) == v.get<double>()) << path << " = " << v.dump();
  }
  if (type == "string") {
    EXPECT_TRUE(v.is_string()) << path;
  }
  if (type == "boolean") {
    EXPECT_TRUE(v.is_boolean()) << path;
  }
  if (n->contains("minimum") && v.is_number()) {
    EXPECT_GE(v.get<double>(), (*n)["minimum"].get<double>()) << path;
  }
  int checked = 0;
  if (type == "array") {
    EXPECT_TRUE(v.is_array()) << path;
    for (std::size_t i = 0; v.is_array() && i < v.size(); ++i)
      checked += check_output(v[i], (*n)["items"], defs, path + "/" + std::to_string(i));
  }
  if (type != "object") return checked;
  EXPECT_TRUE(v.is_object()) << path;
  if (!v.is_object()) return checked;
  if (n->contains("properties")) {
    for (const auto& [k, x] : v.items()) {
      EXPECT_TRUE((*n)["properties"].contains(k)) << path << "/" << k << " is written but not in the schema";
      if ((*n)["properties"].contains(k))
        checked += 1 + check_output(x, (*n)["properties"][k], defs, path + "/" + k);
    }
    for (const auto& k : n->value("required", json::array()))
      EXPECT_TRUE(v.contains(k.get<std::string>())) << path << "/" << k << " is required but not written";
  } else if (n->contains("additionalProperties") && (*n)["additionalProperties"].is_object()) {
    for (const auto& [k, x] : v.items())
      checked += 1 + check_output(x, (*n)["additionalProperties"], defs, path + "/" + k);
  }
  return checked;
}

// Every output the writer emits is in the prediction schema (and every key it requires is
// written), for every preset scenario as it is, with parallel "auto", and as an RL job.
TEST(Schema, EveryPredictionOfEveryPresetScenarioIsWhatThePredictionSchemaDescribes) {
  const json p = json::parse(optimus::api::schema())["prediction"];
  int checked = 0, predictions = 0;
  const auto check = [&](const json& scenario, const std::string& what) {
    const json out = json::parse(optimus::api::predict(scenario.dump()));
    ASSERT_FALSE(out.contains("error")) << what << ": " << out.dump();
    checked += check_output(out, p, p["$defs"], "");
    ++predictions;
  };
  for (const auto& preset : optimus::list_presets("scenarios")) {
    const json s = json::parse(optimus::preset_json("scenarios", preset.id));
    check(s, preset.id);
    json automatic = s;
    automatic["parallel"] = "auto";
    if (!s.contains("inference") || !s["inference"].contains("serving"))
      check(automatic, preset.id + " auto");
    json rl = {{"model", s["model"]},
               {"system", s["system"]},
               {"num_devices", s["num_devices"]},
               {"rl", {{"prompts_per_step", 16}, {"train_steps", 10}}}};
    if (preset.id == "default") check(rl, preset.id + " rl");
  }
  EXPECT_GE(predictions, 10);
  EXPECT_GT(checked, 2000);
}

}  // namespace

}  // namespace schema_test
