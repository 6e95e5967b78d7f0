#include "io/api.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/words.h"
#include "io/calibrate_io.h"
#include "io/json_io.h"
#include "io/json_write.h"
#include "io/presets.h"
#include "io/reader.h"
#include "io/schema.h"
#include "io/study_io.h"
#include "memory/footprint.h"
#include "predict/serving.h"
#include "rl/rl.h"
#include "search/auto_layout.h"
#include "search/search.h"
#include "search/serving_search.h"
#include "study/study.h"

namespace optimus::api {

namespace {

std::string internal_error(const char* what) {
  return error_to_json(Error{"internal.exception", "", std::string("internal error: ") + what});
}

// The headline numbers a calibrated prediction shows uncalibrated beside it (dotted output paths,
// as the uncertainty bands key them).
constexpr std::array<const char*, 26> kHeadline = {"training.iteration_time_s",
                                                   "training.tokens_per_s",
                                                   "training.mfu",
                                                   "training.time_to_train_s",
                                                   "inference.ttft_s",
                                                   "inference.tpot_s",
                                                   "inference.e2e_latency_s",
                                                   "inference.throughput_tokens_per_s",
                                                   "serving.output_tokens_per_s",
                                                   "serving.output_tokens_per_s_per_gpu",
                                                   "serving.requests_per_s",
                                                   "serving.ttft_s.mean",
                                                   "serving.ttft_s.p50",
                                                   "serving.ttft_s.p90",
                                                   "serving.tpot_s.mean",
                                                   "serving.tpot_s.p50",
                                                   "serving.tpot_s.p90",
                                                   "serving.mean_itl_s",
                                                   "run.wall_days",
                                                   "run.gpu_hours",
                                                   "run.energy_mwh",
                                                   "run.cost_usd",
                                                   "rl.step_time_s",
                                                   "rl.tokens_per_s_per_gpu",
                                                   "rl.phases_s.rollout",
                                                   "rl.phases_s.train"};

// The prediction as `predict` writes it (an RL scenario's: its rl block), or nullopt when the
// engine refuses the scenario.
std::optional<nlohmann::ordered_json> prediction_json(const Scenario& s) {
  if (s.rl) {
    auto rl = predict_rl(s);
    if (!rl) return std::nullopt;
    return nlohmann::ordered_json::parse(rl_prediction_to_json(s, *rl));
  }
  auto p = optimus::predict(s);
  if (!p) return std::nullopt;
  return nlohmann::ordered_json::parse(prediction_to_json(s, *p));
}

// The prediction's `calibration`: whether it applied, its factors and, when it did, the headline
// numbers of the same scenario (the same layout) on the system before the factors.
nlohmann::ordered_json calibration_output(const Scenario& s) {
  const Calibration& c = *s.calibration;
  const nlohmann::ordered_json cj = calibration_json(c);
  nlohmann::ordered_json out = {{"applied", c.applied}, {"factors", cj["factors"]}};
  if (cj.contains("band")) out["band"] = cj["band"];
  if (!c.applied) {
    out["reason"] = c.not_applicable;
    return out;
  }
  Scenario u = s;
  u.system = *c.uncalibrated;
  u.calibration.reset();
  nlohmann::ordered_json before = nlohmann::ordered_json::object();
  if (auto j = prediction_json(u)) {
    for (const char* path : kHeadline) {
      const nlohmann::ordered_json* at = &*j;
      std::string_view rest = path;
      while (at && !rest.empty()) {
        const std::size_t dot = rest.find('.');
        const std::string key(rest.substr(0, dot));
        at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
        rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
      }
      if (at && at->is_number()) before[path] = *at;
    }
  }
  out["uncalibrated"] = before;
  return out;
}

}  // namespace

std::string calibrate(std::string_view jsonl) {
  try {
    return io::calibrate_json(jsonl, [](Scenario& s) -> std::optional<Error> {
      if (auto a = resolve_parallel_auto(s); !a) return a.error();
      return std::nullopt;
    });
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

std::string predict(std::string_view scenario_json) {
  try {
    auto s = parse_scenario(scenario_json);
    if (!s) return error_to_json(s.error());
    if (s->rl) {
      auto rl = predict_rl(*s);
      if (!rl) {
        Error e = rl.error();
        add_rl_fewest_devices(*s, e);
        return error_to_json(e);
      }
      if (!s->calibration) return rl_prediction_to_json(*s, *rl);
      auto j = nlohmann::ordered_json::parse(rl_prediction_to_json(*s, *rl));
      j["calibration"] = calibration_output(*s);
      return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    }
    auto resolved = resolve_parallel_auto(s.value());
    if (!resolved) return error_to_json(resolved.error());
    const std::optional<AutoLayout>& chosen = resolved.value();
    auto p = optimus::predict(*s);
    if (!p) return error_to_json(p.error());
    if (!chosen && !s->calibration) return prediction_to_json(*s, *p);
    auto j = nlohmann::ordered_json::parse(prediction_to_json(*s, *p));
    if (chosen) j["parallel_auto"] = parallel_auto_json(s->parallel, *chosen);
    if (s->calibration) j["calibration"] = calibration_output(*s);
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

Result<Scenario> checked_scenario(std::string_view scenario_json) {
  auto s = parse_scenario(scenario_json);
  if (!s) return s.error();
  if (s->rl) {
    // In the order predict meets them (rl/rl.cpp, predict_rl): the rollout, then the trainer.
    if (auto err = check_rl(*s)) return *err;
    if (auto ro = rl_rollout_scenario(*s); !ro) {
      Error e = ro.error();
      add_rl_fewest_devices(*s, e);
      return e;
    }
    if (!s->rl->train_auto) {
      if (auto t = rl_train_scenario(*s, s->model); !t) return t.error();
    } else if (auto err = check_rl_train_auto(*s)) {
      add_rl_fewest_devices(*s, *err);
      return *err;
    }
    return s;
  }
  if (auto a = resolve_parallel_auto(s.value()); !a) return a.error();
  if (auto err = validate_plan(*s)) return *err;
  if (auto err = check_run(*s)) return *err;
  if (s->inference && s->inference->serving)
    if (auto err = check_serving(*s)) return *err;
  return s;
}

std::string validate(std::string_view scenario_json) {
  try {
    auto s = checked_scenario(scenario_json);
    if (!s) return error_to_json(s.error());
    return "{\"ok\":true,\"scenario\":" + scenario_to_json(*s) + "}";
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

namespace {
constexpr const char* kPresetKinds[] = {"models", "devices", "systems",  "scenarios", "technology",
                                        "dram",   "studies", "software", "economics"};
Error unknown_kind(std::string_view kind) {
  return Error{
      "preset.unknown_kind", "",
      "unknown preset kind '" + std::string(kind) +
          "'; use models, devices, systems, scenarios, technology, dram, studies, software or economics"};
}
}  // namespace

std::string presets(std::string_view kind) {
  try {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const char* k : kPresetKinds) {
      if (!kind.empty() && kind != k) continue;
      nlohmann::ordered_json arr = nlohmann::ordered_json::array();
      for (const auto& p : list_presets(k))
        arr.push_back({{"id", p.id}, {"name", p.name}, {"source", p.source}});
      out[k] = arr;
    }
    if (out.empty()) return error_to_json(unknown_kind(kind));
    return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  }
}

std::string preset(std::string_view kind, std::string_view id) {
  const std::string_view j = preset_json(kind, id);
  if (!j.empty()) return std::string(j);
  if (std::find(std::begin(kPresetKinds), std::end(kPresetKinds), kind) == std::end(kPresetKinds))
    return error_to_json(unknown_kind(kind));
  return error_to_json(Error{"preset.unknown", "",
                             "no " + std::string(kind) + " preset '" + std::string(id) +
                                 "'; known: " + join(preset_ids(kind), ", ")});
}

namespace {

// Search options (api.h); their errors point into the options object and carry search.* codes.
struct ParsedOptions {
  SearchOptions options;
  ServingObjective serving_objective = ServingObjective::goodput;
  std::optional<Error> error;
};

// The search options' text as JSON: blank text is no options (an empty object); text that is not
// JSON (a syntax error, a number beyond a double) is search.malformed_options.
Result<io::json> read_options(std::string_view text) {
  if (text.find_first_not_of(" \t\n\v\f\r") == std::string_view::npos) return io::json::object();
  try {
    return io::json::parse(text.begin(), text.end());
  } catch (const io::json::exception& e) {
    return Error{"search.malformed_options", "",
                 std::string("the search options are not valid JSON: ") + e.what()};
  }
}

ParsedOptions parse_search_options(std::string_view text, const Scenario& s) {
  ParsedOptions out;
  SearchOptions& o = out.options;
  o.mode = s.training                            ? SearchMode::training
           : s.inference && s.inference->serving ? SearchMode::serving
                                                 : SearchMode::inference;
  auto parsed = read_options(text);
  if (!parsed) {
    out.error = parsed.error();
    return out;
  }
  const io::json& root = *parsed;
  std::optional<Error> err;
  io::Reader r(root, "", err);
  if (auto top = r.integer("top", false, 1, static_cast<std::int64_t>(kMaxSearchTop)))
    o.top = static_cast<std::size_t>(*top);
  o.mode = r.enumeration<SearchMode>("mode", false).value_or(o.mode);
  if (o.mode == SearchMode::serving) {
    out.serving_objective =
        r.enumeration<ServingObjective>("objective", false).value_or(out.serving_objective);
  } else if (o.mode == SearchMode::inference) {
    if (const auto objective = r.enumeration<InferenceObjective>("objective", false))
      o.objective = *objective;
  } else {
    r.get("objective", false);  // a training or RL search has no objective: said below, whatever its value
  }
  o.rank_by = r.enumeration<TrainingRank>("rank_by", false).value_or(o.rank_by);
  if (auto t = r.number("max_ttft_s", false, 1e-12, 1e9)) o.max_ttft = Seconds(*t);
  if (auto t = r.number("max_tpot_s", false, 1e-12, 1e9)) o.max_tpot = Seconds(*t);
  o.max_cost_usd = r.number("max_cost_usd", false, 1e-6, 1e15);
  o.max_energy_mwh = r.number("max_energy_mwh", false, 1e-9, 1e12);
  const auto max_batch = r.integer("max_batch", false, 1, kMaxSearchBatch);
  if (max_batch) o.max_batch = *max_batch;
  o.points = r.boolean("points", false).value_or(false);
  r.finish();
  if (err) {
    err->code = err->code == "scenario.unknown_key" ? "search.unknown_option" : "search.invalid_option";
    out.error = err;
    return out;
  }
  if (o.mode != SearchMode::inference) {
    for (const char* key : {"objective", "max_ttft_s", "max_tpot_s", "max_batch"})
      if (root.contains(key) && !(o.mode == SearchMode::serving && std::string_view(key) == "objective"))
        out.error =
            Error{"search.option_not_applicable", std::string("/") + key,
                  std::string("'") + key +
                      (std::string_view(key) == "objective"
                           ? "' applies to an inference or serving search (mode \"inference\" or \"serving\")"
                           : "' applies to an inference search (mode \"inference\")")};
  } else {
    for (const char* key : {"rank_by", "max_cost_usd", "max_energy_mwh"})
      if (root.contains(key))
        out.error = Error{"search.option_not_applicable", std::string("/") + key,
                          std::string("'") + key + "' applies to a training search (mode \"training\")"};
  }
  // A serving search ranks deployments by its objective: a training search's ranking and budgets
  // would be ignored, the list read as ranked by cost when it is not.
  if (o.mode == SearchMode::serving)
    for (const char* key : {"rank_by", "max_cost_usd", "max_energy_mwh"})
      if (root.contains(key))
        out.error = Error{"search.option_not_applicable", std::string("/") + key,
                          std::string("'") + key + "' applies to a training search (mode \"training\")"};
  if (o.mode == SearchMode::serving && root.contains("points"))
    out.error = Error{"search.option_not_applicable", "/points",
                      "'points' applies to a layout search (mode \"training\" or \"inference\")"};
  return out;
}

// The parallel keys the scenario gives are fixed; their values come from the parsed scenario.
FixedLayout fixed_keys(std::string_view scenario_json, const Scenario& s) {
  FixedLayout f;
  const io::json root = io::json::parse(scenario_json.begin(), scenario_json.end());
  const auto it = root.find("parallel");
  if (it == root.end() || !it->is_object()) return f;
  const ParallelPlan& p = s.parallel;
  const auto has = [&](const char* k) { return it->contains(k); };
  if (has("tp")) f.tp = p.tp;
  if (has("pp")) f.pp = p.pp;
  if (has("dp")) f.dp = p.dp;
  if (has("cp")) f.cp = p.cp;
  if (has("ep")) f.ep = p.ep;
  if (has("etp")) f.etp = p.etp;
  if (has("micro_batch")) f.micro_batch = p.micro_batch;
  if (has("interleave")) f.interleave = p.interleave;
  if (has("sequence_parallel")) f.sequence_parallel = p.sequence_parallel;
  if (has("recompute")) f.recompute = p.recompute;
  if (has("recompute_fraction")) f.recompute_fraction = p.recompute_fraction;
  if (has("zero_stage")) f.zero_stage = p.zero_stage;
  f.optimizer_offload = p.optimizer_offload;
  return f;
}

// One ranked layout as predict reports it: the layout is put into the scenario (only the
// searched workload kept) and predicted, so the numbers are exactly predict's.
nlohmann::ordered_json best_json(const Scenario& s, const LayoutResult& r, const SearchOptions& o) {
  using ojson = nlohmann::ordered_json;
  Scenario c = s;
  c.parallel = r.plan;
  if (o.mode == SearchMode::training) {
    c.inference.reset();
  } else {
    // A static batch: what the entry reports (its inference block and memory, which a serving
    // block leaves as they are). The request stream is not simulated for each entry: that run was
    // thrown away, and one too long for the simulation's bound (serving.too_many_steps) made every
    // entry an error (the search fuzzer's finding).
    c.training.reset();
    c.inference->batch = r.batch;
    c.inference->serving.reset();
  }
  auto p = optimus::predict(c);
  ojson j;
  j["parallel"] = plan_json(r.plan);
  if (!p) {  // cannot happen for a layout the search validated; reported rather than hidden
    j["error"] = ojson::parse(error_to_json(p.error()))["error"];
    return j;
  }
  ojson full = ojson::parse(prediction_to_json(c, *p));
  if (o.mode == SearchMode::training) {
    j["training"] = full["training"];
  } else {
    ojson inf = full["inference"];
    inf.erase("operators");
    inf.erase("memory");
    inf["batch"] = r.batch;
    inf["replicas"] = r.plan.dp;
    inf["throughput_all_replicas_tokens_per_s"] = r.throughput;
    j["inference"] = inf;
  }
  if (o.mode == SearchMode::training && o.rank_by != TrainingRank::time) {
    j["step_energy_j"] = r.step_energy_j;
    // Without a price a step's cost would be its electricity alone: absent (run/run.h has_price).
    if (r.step_cost_usd) j["step_cost_usd"] = *r.step_cost_usd;
  }
  if (o.mode == SearchMode::training && (o.max_cost_usd || o.max_energy_mwh)) {
    j["run_cost_usd"] = r.run_cost_usd;
    j["run_energy_mwh"] = r.run_energy_mwh;
  }
  j["memory"] = full["memory"];
  j["warnings"] = full["warnings"];
  return j;
}

// The counts every search result starts with (api.h): layouts evaluated, feasible, rejected by
// code, the time taken and whether it was cancelled.
template <class SearchRes>
void add_counts(nlohmann::ordered_json& j, const SearchRes& res, double elapsed) {
  j["evaluated"] = res.evaluated;
  j["feasible"] = res.feasible;
  nlohmann::ordered_json rejected = nlohmann::ordered_json::object();
  for (const auto& [code, n] : res.rejected) rejected[code] = n;
  j["rejected"] = rejected;
  j["elapsed_s"] = elapsed;
  j["layouts_per_s"] = elapsed > 0 ? static_cast<double>(res.evaluated) / elapsed : 0.0;
  j["cancelled"] = res.cancelled;
}

// A serving deployment search (search/serving_search.h) as JSON: each deployment with its
// serving block as predict writes it (without the timeline).
std::string serving_search_json(const Scenario& s, const FixedLayout& fixed, std::size_t top,
                                ServingObjective objective, const std::function<bool(double)>& progress) {
  using ojson = nlohmann::ordered_json;
  const auto start = std::chrono::steady_clock::now();
  auto res = search_serving(s, fixed.tp, fixed.pp, fixed.ep, top, objective, progress);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!res) return error_to_json(res.error());
  ojson j;
  j["mode"] = "serving";
  j["objective"] = std::string(name_of(objective));
  add_counts(j, *res, elapsed);
  ojson best = ojson::array();
  for (const ServingCandidate& c : res->best) {
    const ServingDeployment& d = c.deployment;
    ojson dep;
    if (d.disaggregated()) {
      dep["disaggregated"] = {{"prefill", pool_json(*d.prefill)}, {"decode", pool_json(*d.decode)}};
    } else {
      dep["tp"] = d.tp;
      dep["pp"] = d.pp;
      dep["ep"] = d.ep;
      dep["replicas"] = d.replicas;
      // Whether the experts span the replicas (parallel/plan.h), so a reader need not restate the rule.
      dep["attention_data_parallel"] = attention_data_parallel(with_deployment(s, d).parallel);
    }
    dep["max_batch"] = d.max_batch;
    ojson e;
    e["deployment"] = dep;
    e["parallel"] = plan_json(with_deployment(s, d).parallel);
    e["score_requests_per_s_per_device"] = c.score;
    if (objective == ServingObjective::capacity) {
      e["capacity_requests_per_s"] = c.capacity_requests_per_s;
      e["capacity_at_least"] = c.capacity_at_least;
    }
    ojson sv = serving_json(*c.result);
    sv.erase("timeline");
    e["serving"] = sv;
    best.push_back(std::move(e));
  }
  j["best"] = best;
  return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

// The RL placement search (rl/rl.h search_rl): options "top" (1-1000, default 10) and "rank_by"
// ("time" | "cost"). Each candidate with its rl block as predict writes it.
std::string rl_search_json(const Scenario& s, std::string_view options_text,
                           const std::function<bool(double)>& progress) {
  using ojson = nlohmann::ordered_json;
  std::size_t top = 10;
  TrainingRank rank = TrainingRank::time;
  {
    auto parsed = read_options(options_text);
    if (!parsed) return error_to_json(parsed.error());
    const io::json& root = *parsed;
    std::optional<Error> err;
    io::Reader r(root, "", err);
    if (auto t = r.integer("top", false, 1, static_cast<std::int64_t>(kMaxSearchTop)))
      top = static_cast<std::size_t>(*t);
    rank = r.enumeration<TrainingRank>("rank_by", false).value_or(rank);
    const std::optional<std::string> mode = r.string("mode", false);
    // A whole-run budget is the training search's (an RL step has no run to hold under it): read
    // as the training search reads it, then refused at its path.
    r.number("max_cost_usd", false, 1e-6, 1e15);
    r.number("max_energy_mwh", false, 1e-9, 1e12);
    r.finish();
    if (!err && mode && *mode != "rl")
      err = Error{"search.option_not_applicable", "/mode",
                  "a scenario with an rl job is searched for its placements (mode \"rl\"), not as " + *mode +
                      "; take the rl block out to search its " + *mode + " layouts"};
    for (const char* key : {"max_cost_usd", "max_energy_mwh"})
      if (!err && root.contains(key))
        err = Error{
            "search.option_not_applicable", std::string("/") + key,
            "an RL placement search has no whole-run budget: it ranks one step by \"time\" or \"cost\""};
    if (!err && rank == TrainingRank::energy)
      err = Error{"search.option_not_applicable", "/rank_by",
                  "an RL placement search ranks by \"time\" or \"cost\""};
    if (err) {
      if (err->code.rfind("scenario.", 0) == 0)
        err->code = err->code == "scenario.unknown_key" ? "search.unknown_option" : "search.invalid_option";
      return error_to_json(*err);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  auto res = search_rl(s, top, rank == TrainingRank::cost, progress);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!res) return error_to_json(res.error());
  ojson j;
  j["mode"] = "rl";
  j["rank_by"] = std::string(name_of(rank));
  add_counts(j, *res, elapsed);
  ojson best = ojson::array();
  for (const RlCandidate& c : res->best) {
    Scenario cs = s;
    cs.rl->placement = c.placement;
    cs.rl->staleness = c.staleness;  // colocated: on-policy
    cs.rl->partial_rollout = c.partial_rollout;
    ojson e;
    e["placement"] = std::string(name_of(c.placement));
    e["rollout_devices"] = c.rollout_devices;
    e["train_devices"] = c.train_devices;
    e["step_time_s"] = c.step_time_s;
    // No price (run/run.h has_price): the cost is absent, not zero.
    if (c.cost_per_step_usd) e["cost_per_step_usd"] = *c.cost_per_step_usd;
    e["rl"] = ojson::parse(rl_prediction_to_json(cs, c.prediction))["rl"];
    best.push_back(std::move(e));
  }
  j["best"] = best;
  if (res->fewest_devices > 0) j["fewest_devices"] = res->fewest_devices;
  return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace

std::string search(std::string_view scenario_json, std::string_view options_json,
                   const std::function<bool(double)>& progress) {
  using ojson = nlohmann::ordered_json;
  try {
    auto s = parse_scenario(scenario_json);
    if (!s) return error_to_json(s.error());
    if (s->rl) return rl_search_json(*s, options_json, progress);
    if (auto err = resolve_auto_stages(s.value())) return error_to_json(*err);
    const ParsedOptions po = parse_search_options(options_json, *s);
    if (po.error) return error_to_json(*po.error);
    const SearchOptions& o = po.options;
    FixedLayout fixed = fixed_keys(scenario_json, *s);
    if (o.mode == SearchMode::serving)
      return serving_search_json(*s, fixed, o.top, po.serving_objective, progress);
    const auto start = std::chrono::steady_clock::now();
    // A training space past the cap is narrowed as parallel "auto" narrows it (a 1,024-GPU
    // mixture of experts that auto searched had been refused here: probe finding).
    std::vector<std::pair<std::string, std::int64_t>> narrowed;
    auto res = o.mode == SearchMode::training ? search_narrowed(*s, fixed, o, &narrowed, progress)
                                              : search_layouts(*s, fixed, o, progress);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!res) return error_to_json(res.error());
    const bool training = o.mode == SearchMode::training;
    ojson j;
    j["mode"] = std::string(name_of(o.mode));
    if (!training) j["objective"] = std::string(name_of(o.objective));
    if (training) j["rank_by"] = std::string(name_of(o.rank_by));
    add_counts(j, *res, elapsed);
    if (!narrowed.empty()) {
      ojson keys = ojson::object();
      for (const auto& [key, value] : narrowed) keys[key] = value;
      j["narrowed"] = keys;
    }
    ojson best = ojson::array();
    for (const auto& r : res->best) best.push_back(best_json(*s, r, o));
    j["best"] = best;
    // Nothing feasible: the fewest devices that would have a layout (search/auto_layout.h).
    if (res->feasible == 0 && !res->cancelled)
      if (const std::int64_t n = fewest_devices(*s, fixed, o); n > 0) j["fewest_devices"] = n;
    if (o.points) {
      ojson pts = ojson::array();
      for (const auto& r : res->points) {
        ojson pt;
        pt["parallel"] = plan_json(r.plan);
        if (!training) pt["batch"] = r.batch;
        pt["time_s"] = r.timed ? ojson(r.time.value) : ojson(nullptr);
        if (!training) pt["throughput_tokens_per_s"] = r.timed ? ojson(r.throughput) : ojson(nullptr);
        pt["memory_bytes"] = r.memory.value;
        pt["feasible"] = r.reason.empty();
        pt["reason"] = r.reason;
        pts.push_back(std::move(pt));
      }
      j["points"] = pts;
      j["points_truncated"] = res->points_truncated;
      // The device's memory (a prediction's memory.capacity_bytes), and what each point's
      // memory_bytes is held against: that less the runtime's reserve (the search refuses a layout
      // that leaves it no room: search.cpp, leaves_runtime_room).
      j["capacity_bytes"] = s->system.device.hbm_capacity.value;
      j["usable_bytes"] = usable_capacity(s->system.device.hbm_capacity, s->num_devices).value;
    }
    return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

std::string studies() {
  try {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const StudyInfo& s : study_list())
      arr.push_back({{"name", s.name}, {"title", s.title}, {"description", s.description}});
    nlohmann::ordered_json out;
    out["studies"] = arr;
    return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  }
}

std::string study(std::string_view name, std::string_view job_json) {
  try {
    auto job = io::read_study_job(job_json);
    if (!job) return error_to_json(job.error());
    auto t = run_study(name, io::embedded_preset_source(), *job);
    if (!t) return error_to_json(t.error());
    return io::study_to_json(*t);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("unknown");
  }
}

std::string schema() {
  try {
    nlohmann::ordered_json out;
    out["scenario"] = io::scenario_schema();
    out["prediction"] = io::prediction_schema();
    return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  }
}

bool is_error(std::string_view json) {
  // Error objects start with {"error": (we write them); anything else is a result.
  return json.rfind("{\"error\":", 0) == 0;
}

}  // namespace optimus::api
