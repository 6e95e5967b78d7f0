#include "io/json_io.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "base/words.h"
#include "io/json_write.h"
#include "io/objects.h"
#include "io/presets.h"
#include "io/reader.h"
#include "io/technology_io.h"
#include "io/uncertainty.h"

namespace optimus {

using io::json;
using io::kMaxCount;
using io::kMaxDevices;
using io::kMaxRequests;
using io::kMaxServingLength;
using io::pointer_token;
using io::Reader;
using ojson = nlohmann::ordered_json;

namespace io {

Result<ModelSpec> read_model(const json& v, const std::string& path) {
  ModelSpec m;
  if (auto err = read_object(model_fields(), v, path, m)) return *err;
  const std::optional<AttentionType> attention =
      v.contains("attention") ? std::optional(m.attention) : std::nullopt;
  return complete_model(std::move(m), attention, path);
}

Result<DeviceSpec> read_device(const json& v, const std::string& path) {
  // A device derived by the uArch engine from a technology node and budgets (presets/README.md).
  if (is_uarch_object(v)) return read_uarch_device(v, path);
  DeviceSpec d;
  d.name = "custom device";
  if (auto err = read_object(device_fields(), v, path, d)) return *err;
  return d;
}

Result<SystemSpec> read_system(const json& v, const std::string& path) {
  // A system of uArch-derived devices: links from the node's SerDes (presets/README.md).
  if (is_uarch_object(v)) return read_uarch_system(v, path);
  SystemSpec s;
  s.name = "custom system";
  if (auto err = read_object(system_fields(), v, path, s)) return *err;
  return s;
}

namespace {

// inference.serving (docs/contract.md, "inference.serving"): the request stream and the scheduler's limits.
std::optional<ServingSpec> read_serving(Reader& ir, const InferenceWorkload& w, const Scenario& s,
                                        const ServingSpec& defaults) {
  const std::int64_t num_devices = s.num_devices;
  const json* v = ir.get("serving", false);
  if (!v) return std::nullopt;
  std::optional<Error> err;
  const std::string path = ir.child("serving");
  Reader r(*v, path, err);
  ServingSpec sv = defaults;
  sv.input_len = io::fixed_length(w.prompt_len);
  sv.output_len = io::fixed_length(w.output_len);
  io::read_fields(io::serving_fields(), r, sv);
  // The runtime's device-sized defaults (ServingSpec::sizing) for what the scenario leaves unstated.
  sv.keep_stated(r.has("max_num_tokens"), r.has("cuda_graph_max_batch"));
  size_serving(sv, s.system, s.parallel);
  if (!err && sv.prefill && sv.decode) {
    const std::int64_t used = sv.prefill->tp * sv.prefill->pp * sv.prefill->replicas +
                              sv.decode->tp * sv.decode->pp * sv.decode->replicas;
    if (used != num_devices)
      r.fail("serving.disaggregated_devices", r.child("disaggregated"),
             "the prefill and decode pools use " + std::to_string(used) + " devices but num_devices is " +
                 std::to_string(num_devices));
  }
  r.finish();
  if (err) {
    ir.fail(err->code, err->path, err->message);
    return std::nullopt;
  }
  if (sv.output_len.largest() + sv.input_len.largest() > kMaxServingLength)
    ir.fail("scenario.out_of_range", path + "/output_len",
            "input + output lengths exceed " + std::to_string(kMaxServingLength));
  return sv;
}

}  // namespace

// A draft model must share the target's tokenizer (inference.speculative, rl.rollout.speculative).
void check_draft_vocab(Reader& r, const std::string& path, const Speculative& sp, const ModelSpec& target) {
  if (sp.draft && sp.draft->vocab != target.vocab)
    r.fail("inference.draft_vocab_mismatch", path,
           "the draft model's vocabulary (" + std::to_string(sp.draft->vocab) +
               ") differs from the target's (" + std::to_string(target.vocab) +
               "): a draft must share the target's tokenizer");
}

void read_scenario_body(Reader& r, std::optional<Error>& err, Scenario& s) {
  s.num_devices = r.integer("num_devices", true, 1, kMaxDevices).value_or(1);

  // Parallel layout. tp, pp and cp default to 1 and dp to what is left of num_devices.
  ParallelPlan& p = s.parallel;
  bool dp_given = false;
  const json* pv = r.get("parallel", false);
  if (pv && pv->is_string()) {
    // "auto": searched later (io/api.cpp); until then the plain data-parallel layout.
    if (pv->get<std::string>() != "auto")
      return r.fail(
          "scenario.invalid_value", r.child("parallel"),
          "'parallel' must be an object or \"auto\" (the layout search picks the fastest that fits)");
    s.parallel_auto = true;
    pv = nullptr;
  }
  if (pv) {
    Reader pr(*pv, r.child("parallel"), err);
    read_fields(parallel_fields(), pr, p);
    pr.finish();
    dp_given = pv->contains("dp");
  }
  if (err) return;
  if (!dp_given) {
    const double used = static_cast<double>(p.tp) * static_cast<double>(p.pp) * static_cast<double>(p.cp);
    if (used <= static_cast<double>(s.num_devices) && s.num_devices % (p.tp * p.pp * p.cp) == 0)
      p.dp = s.num_devices / (p.tp * p.pp * p.cp);
    else
      return r.fail("parallel.product_mismatch", r.child("parallel"),
                    "tp*pp*cp = " + plain_number(used) +
                        " does not divide num_devices = " + std::to_string(s.num_devices));
  }

  if (const json* tv = r.get("training", false)) {
    Reader tr(*tv, r.child("training"), err);
    TrainingWorkload w;
    io::read_fields(io::training_fields(), tr, w);
    tr.finish();
    if (!w.batch_ramp.empty() && !(w.train_tokens > 0))
      tr.fail("run.ramp_without_tokens", tr.child("batch_ramp"),
              "a batch ramp needs train_tokens: the tokens after the ramp run at global_batch");
    if (!w.stages.empty() && !(w.train_tokens > 0))
      tr.fail("run.stages_without_tokens", tr.child("stages"),
              "later stages follow a whole run: give train_tokens, the tokens before the first stage");
    if (w.checkpoint_interval_s > 0 && !(w.train_tokens > 0))
      tr.fail("run.interval_without_tokens", tr.child("checkpoint_interval_s"),
              "checkpoint_interval_s plans a whole run and needs train_tokens");
    s.model.mtp_trained = w.mtp_layers.value_or(0);
    s.training = w;
  }
  if (const json* iv = r.get("inference", false)) {
    Reader ir(*iv, r.child("inference"), err);
    InferenceWorkload w;
    // No precision stated: the checkpoint served as published (model.checkpoint_precision).
    if (s.model.checkpoint_precision && iv->is_object() && !iv->contains("precision")) {
      w.precision = *s.model.checkpoint_precision;
      w.fp8_block_scaled = s.model.checkpoint_block_scaled;
      w.precision_from_checkpoint = true;
    }
    read_fields(inference_fields(), ir, w);
    if (!w.cuda_graphs && s.software) w.cuda_graphs = s.software->cuda_graphs;
    if (!ir.has("kv_precision"))
      w.kv_precision = default_kv_precision(w, !s.software || s.software->kv_cache_follows_weights);
    if (s.software && s.software->linear_state_follows_model && !s.model.linear.state_stated)
      s.model.linear.state = Precision::bf16;
    w.serving = read_serving(ir, w, s, s.software ? s.software->serving : ServingSpec{});
    if (const json* sp = ir.get("speculative", false)) {
      Reader sr(*sp, ir.child("speculative"), err);
      Speculative spec;
      io::read_fields(io::speculative_fields(), sr, spec);
      check_draft_vocab(sr, sr.child("draft"), spec, s.model);
      sr.finish();
      w.speculative = spec;
    }
    ir.finish();
    s.inference = w;
  }
}

// A software-stack profile (presets/software/*.json or inline): its `software` keys laid over the
// system's software block, the runtime's CUDA-graph default and the serving scheduler's defaults.
std::optional<SoftwareProfile> read_software_profile(const json& v, const std::string& path,
                                                     SoftwareDefaults& target, std::optional<Error>& err) {
  Reader r(v, path, err);
  SoftwareProfile p;
  r.string("name", false);
  r.string("source", false);
  r.string("notes", false);
  if (const json* sw = r.get("software", false)) {
    Reader sr(*sw, r.child("software"), err);
    read_fields(software_fields(), sr, target);
    sr.finish();
  }
  p.cuda_graphs = r.boolean("cuda_graphs", false);
  p.kv_cache_follows_weights = r.boolean("kv_cache_follows_weights", false).value_or(true);
  p.linear_state_follows_model = r.boolean("linear_state_follows_model", false).value_or(false);
  if (const json* sv = r.get("serving", false)) {
    p.schedules = true;
    Reader sr(*sv, r.child("serving"), err);
    read_fields(scheduler_fields(), sr, p.serving);
    sr.string("notes", false);
    sr.finish();
  }
  r.finish();
  if (err) return std::nullopt;
  p.json = v.dump();
  return p;
}

std::optional<Precision> read_training_precision(Reader& r, const std::string& key, bool required) {
  return r.enumeration(key, required, kTrainingPrecisions);
}

}  // namespace io

namespace {

// The scenario's `rl` block (spec: issue 40; docs/contract.md; its keys: io/objects.cpp).
std::optional<RlWorkload> read_rl(const json& v, const Scenario& s, std::optional<Error>& err) {
  Reader r(v, "/rl", err);
  RlWorkload rl;
  rl.rollout.software = s.system.software;  // the rollout's software profile is laid over it
  // The rollout engine serves the checkpoint as published unless rl.rollout.precision says.
  if (s.model.checkpoint_precision) rl.rollout.precision = *s.model.checkpoint_precision;
  io::read_fields(io::rl_fields(), r, rl);
  if (rl.rollout.speculative)
    io::check_draft_vocab(r, "/rl/rollout/speculative/draft", *rl.rollout.speculative, s.model);
  const json* ro = v.is_object() && v.contains("rollout") ? &v["rollout"] : nullptr;
  rl.rollout.precision_from_checkpoint =
      s.model.checkpoint_precision && !(ro && ro->is_object() && ro->contains("precision"));
  r.finish();
  if (err) return std::nullopt;
  return rl;
}

// The economics preset a scenario without `economics` uses (presets/economics/).
constexpr const char* kDefaultEconomics = "us-2025";

// An economics object's keys laid over `e` (a preset's, then a scenario's own).
void read_economics_keys(const json& v, const std::string& path, Economics& e, std::optional<Error>& err) {
  Reader r(v, path, err);
  io::read_fields(io::economics_fields(), r, e);
  r.finish();
  if (err) return;
  const char* capital = r.has("gpu_price_usd")        ? "gpu_price_usd"
                        : r.has("amortisation_years") ? "amortisation_years"
                        : r.has("utilisation")        ? "utilisation"
                                                      : nullptr;
  if (r.has("usd_per_gpu_hour") && capital)
    return r.fail("economics.both_price_forms", r.child(capital),
                  std::string("give either usd_per_gpu_hour (a rental price) or the capital terms "
                              "(gpu_price_usd, amortisation_years, utilisation), not both: '") +
                      capital + "' is a capital term");
  if (capital) e.usd_per_gpu_hour = 0;
}

// The scenario's `economics`: a presets/economics id or an object laid over the default preset.
std::optional<Economics> read_economics(const json* v, std::optional<Error>& err) {
  Economics e;
  const auto preset = [&](const std::string& id, const std::string& path) -> bool {
    const std::string_view text = preset_json("economics", id);
    if (text.empty()) {
      err =
          make_error("preset.unknown_economics", path,
                     "unknown economics preset '" + id + "'; known: " + join(preset_ids("economics"), ", "));
      return false;
    }
    read_economics_keys(json::parse(text.begin(), text.end()), "presets/economics/" + id, e, err);
    return !err;
  };
  if (v && v->is_string()) {
    if (!preset(v->get<std::string>(), "/economics")) return std::nullopt;
    e.id = v->get<std::string>();
    return e;
  }
  if (!preset(kDefaultEconomics, "/economics")) return std::nullopt;
  if (!v) {
    e.id = kDefaultEconomics;
    return e;
  }
  read_economics_keys(*v, "/economics", e, err);
  if (err) return std::nullopt;
  return e;
}

// The text with each bare Infinity token (outside strings) written as kInfinityNumber, or
// nothing when there is none.
std::optional<std::string> with_infinity_as_number(std::string_view text) {
  std::string out;
  bool in_string = false, escaped = false, any = false;
  constexpr std::string_view word = "Infinity";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (text.substr(i, word.size()) == word) {
      out += "1.7976931348623157e308";
      i += word.size() - 1;
      any = true;
      continue;
    }
    out += c;
  }
  if (!any) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::string> infinity_as_number(std::string_view text) { return with_infinity_as_number(text); }

namespace {

// The scenario's `calibration` (hardware/calibration.h; optimus calibrate writes it). Its
// factors are checked against the scenario's system's bounds only where it applies.
std::optional<Calibration> read_calibration(const json& v, std::optional<Error>& err) {
  Reader r(v, "/calibration", err);
  Calibration c;
  io::read_fields(io::calibration_fields(), r, c);
  r.finish();
  if (err) return std::nullopt;
  return c;
}

}  // namespace

namespace {

// The required key `key` of `r`: a preset id (`preset`) or an inline object (`read`), into `out`.
template <class T>
std::optional<Error> preset_or_inline(Reader& r, const std::string& key,
                                      Result<T> (*preset)(std::string_view, const std::string&),
                                      Result<T> (*read)(const json&, const std::string&), T& out) {
  const json* v = r.get(key, true);
  if (!v) return std::nullopt;
  const std::string at = "/" + key;
  Result<T> x = v->is_string() ? preset(v->get<std::string>(), at) : read(*v, at);
  if (!x) return x.error();
  out = *x;
  return std::nullopt;
}

}  // namespace

namespace {

// A key stated twice in one object: JSON parsers keep one of the two silently (nlohmann's the
// last), so `"num_devices": 8, "num_devices": 16` read as 16 and failed as a layout that did not
// add up. A SAX pass over the text finds the first repeated key and its JSON Pointer.
class DuplicateKeys : public nlohmann::json_sax<json> {
 public:
  std::optional<std::string> path;  // the repeated key's, once found

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      path = here() + "/" + pointer_token(k);
      return false;  // stop: one is enough
    }
    f.key = k;
    return true;
  }
  // Where the text stops being JSON: the pointer of the value being read (the last key read in an
  // object, the next index in an array), so that a malformed or overflowing value (1e400) is
  // reported at its key, not at the document.
  std::optional<std::string> error_path;
  // An object's key that fails (a trailing comma, a quote missing) is reported at the object.
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    if (!frames_.empty()) {
      const Frame& f = frames_.back();
      const bool at_key = std::string_view(e.what()).find("object key") != std::string_view::npos;
      error_path =
          at_key ? here() : here() + "/" + (f.object ? pointer_token(f.key) : std::to_string(f.index));
    }
    return false;
  }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;
    std::size_t index = 0;
  };
  std::vector<Frame> frames_;

  // The pointer of the innermost container: each enclosing one's key or index.
  std::string here() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      p += "/" + (f.object ? pointer_token(f.key) : std::to_string(f.index));
    }
    return p;
  }
  bool scalar() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }
  bool open(bool object) {
    frames_.push_back(Frame{object, {}, {}, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return scalar();  // the container is one element of its parent
  }
};

}  // namespace

Result<Scenario> parse_scenario(std::string_view text) {
  // An empty file or stdin: said as such rather than as a parse error at line 1, column 1.
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return make_error("scenario.malformed_json", "",
                      "the scenario is empty: a scenario is one JSON object, e.g. {\"model\": \"llama3-8b\", "
                      "\"system\": \"dgx-h100\", \"num_devices\": 8, \"parallel\": \"auto\", \"training\": "
                      "{\"global_batch\": 256, \"seq_len\": 8192}}");
  DuplicateKeys dup;
  json::sax_parse(text.begin(), text.end(), &dup, nlohmann::detail::input_format_t::json, false);
  if (dup.path)
    return make_error("scenario.duplicate_key", *dup.path,
                      "the key '" + dup.path->substr(dup.path->rfind('/') + 1) +
                          "' is stated twice in one object; a JSON reader keeps one of the two silently: "
                          "state it once");
  json root;
  try {
    try {
      root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error&) {
      // Python's json module writes an infinite request rate as the bare literal Infinity.
      const auto fixed = with_infinity_as_number(text);
      if (!fixed) throw;
      root = json::parse(*fixed);
    }
  } catch (const json::exception& e) {  // syntax errors, and numbers beyond a double (1e400)
    const std::string what = std::string(e.what()).substr(std::string(e.what()).find(' ') + 1);
    const bool overflow = what.find("number overflow") != std::string::npos;
    const std::string at = dup.error_path.value_or("");
    const auto* parse = dynamic_cast<const json::parse_error*>(&e);
    return make_error("scenario.malformed_json", at,
                      "the scenario is not valid JSON" + (at.empty() ? std::string() : " at " + at) + ": " +
                          what +
                          (overflow ? " (a number beyond the largest a double holds, about 1.8e308)"
                                    : io::json_syntax_hint(what, text, parse ? parse->byte : 0)));
  }
  std::optional<Error> err;
  Reader r(root, "", err);
  if (err) return *err;
  Scenario s;
  if (auto v = r.integer("schema_version", false, 0, 1'000'000); v && *v != kSchemaVersion)
    return make_error("scenario.unsupported_version", "/schema_version",
                      "schema_version " + std::to_string(*v) +
                          " is not supported by this build (it reads version " +
                          std::to_string(kSchemaVersion) + ")");
  s.name = r.string("name", false).value_or("");

  // The model and the system: each a preset id or an inline object.
  if (auto e = preset_or_inline(r, "model", model_preset, io::read_model, s.model)) return *e;
  if (err) return *err;
  if (auto e = preset_or_inline(r, "system", system_preset, io::read_system, s.system)) return *e;
  if (err) return *err;
  if (const json* sv = r.get("software", false)) {
    json profile = *sv;
    std::string id;
    if (sv->is_string()) {
      id = sv->get<std::string>();
      auto preset = software_preset_json(id, "/software");
      if (!preset) return preset.error();
      profile = json::parse(preset->begin(), preset->end());
    }
    auto p = io::read_software_profile(profile, "/software", s.system.software, err);
    if (!p) return *err;
    p->id = id.empty() ? id : preset_id("software", id);  // the profile's own id, however written
    s.software = std::move(*p);
  }
  read_scenario_body(r, err, s);
  if (err) return *err;
  if (const json* rv = r.get("rl", false)) {
    auto rl = read_rl(*rv, s, err);
    if (!rl) return *err;
    if (s.training || s.inference)
      return make_error("rl.with_other_workload", "/rl",
                        "an 'rl' job plans its own rollout and training: give it without 'training' or "
                        "'inference'");
    s.rl = std::move(*rl);
  }
  {
    auto econ = read_economics(r.get("economics", false), err);
    if (!econ) return *err;
    s.economics = *econ;
  }
  if (const json* cv = r.get("calibration", false)) {
    auto c = read_calibration(*cv, err);
    if (!c) return *err;
    s.calibration = std::move(*c);
  }
  r.finish();
  if (err) return *err;
  if (!s.training && !s.inference && !s.rl)
    return make_error("scenario.no_workload", "",
                      "a scenario needs a 'training' or an 'inference' object (or both), or an 'rl' job");
  if (auto e = apply_calibration(s)) return *e;
  return s;
}

ojson calibration_json(const Calibration& c) { return io::write_fields(io::calibration_fields(), c); }

// The scenario with defaults filled in (validate's echo; reads back the same). Each object is
// written by its field table (io/objects.cpp).
std::string scenario_to_json(const Scenario& s, int indent) {
  ojson j;
  j["schema_version"] = kSchemaVersion;
  if (!s.name.empty()) j["name"] = s.name;
  j["model"] = io::write_fields(io::model_fields(), s.model);
  // The system as given: a calibration is applied again when the scenario is read back.
  j["system"] = io::write_fields(io::system_fields(), s.calibration && s.calibration->uncalibrated
                                                          ? *s.calibration->uncalibrated
                                                          : s.system);
  if (s.software)
    j["software"] = s.software->id.empty() ? ojson::parse(s.software->json) : ojson(s.software->id);
  j["num_devices"] = s.num_devices;
  j["parallel"] = s.parallel_auto ? ojson("auto") : plan_json(s.parallel);
  if (s.training) j["training"] = io::write_fields(io::training_fields(), *s.training);
  if (s.inference) j["inference"] = io::write_fields(io::inference_fields(), *s.inference);
  if (s.rl) j["rl"] = io::write_fields(io::rl_fields(), *s.rl);
  j["economics"] =
      s.economics.id.empty() ? io::write_fields(io::economics_fields(), s.economics) : ojson(s.economics.id);
  if (s.calibration) j["calibration"] = calibration_json(*s.calibration);
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

ojson pool_json(const ServingPool& p) { return io::write_fields(io::pool_fields(), p); }

std::string error_to_json(const Error& e, int indent) {
  ojson j;
  j["error"] = {{"code", e.code}, {"path", e.path}, {"message", e.message}};
  if (!e.fix.empty()) {
    ojson& fix = j["error"]["fix"] = ojson::object();
    // (no structured binding: a lambda capturing one needs a newer clang than Emscripten 3.1.6's)
    for (const auto& kv : e.fix) std::visit([&fix, &kv](const auto& x) { fix[kv.first] = x; }, kv.second);
  }
  if (e.fewest_devices > 0) j["error"]["fewest_devices"] = e.fewest_devices;
  if (e.fewest_rollout_devices > 0)
    j["error"]["fewest_pools"] = {{"rollout_devices", e.fewest_rollout_devices},
                                  {"train_devices", e.fewest_devices - e.fewest_rollout_devices}};
  if (!e.rejected.empty()) {
    ojson& rejected = j["error"]["rejected"] = ojson::object();
    for (const auto& [code, n] : e.rejected) rejected[code] = n;
  }
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

nlohmann::ordered_json plan_json(const ParallelPlan& p) { return io::write_fields(io::parallel_fields(), p); }

}  // namespace optimus
