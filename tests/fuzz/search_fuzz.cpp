// libFuzzer target for the layout search (api::search): a recipe (mutate.h) edits one of a few
// small scenarios (at most 16 devices, so one input runs in milliseconds) and builds the options
// object; the progress callback cancels after a few calls (it is called every 1024 layouts), which
// bounds any input and exercises cancelling. Checks: the answer is JSON, errors are well-formed,
// numbers are finite and non-negative (a layout rejected before timing has null times in
// `points`, nothing else may be null), the counts add up, `best` is ranked, at most `top` long,
// and each of its first layouts put into the scenario predicts exactly the reported numbers.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mutate.h"

namespace {

using optimus::fuzz::fail;
using optimus::fuzz::json;
using optimus::fuzz::Recipe;

const char* kBases[] = {
    R"({"model": {"layers": 4, "hidden": 256, "heads": 8, "kv_heads": 2, "ffn_hidden": 688, "vocab": 1000,
                  "ffn_type": "swiglu", "norm": "rmsnorm"},
        "system": "dgx-h100", "num_devices": 8, "parallel": {"recompute": "selective", "zero_stage": 1},
        "training": {"global_batch": 16, "seq_len": 512}})",
    R"({"model": {"layers": 4, "hidden": 256, "heads": 8, "ffn_hidden": 688, "vocab": 1000,
                  "ffn_type": "swiglu", "norm": "rmsnorm",
                  "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 128}},
        "system": "dgx-h100", "num_devices": 8, "economics": {"usd_per_gpu_hour": 2},
        "training": {"global_batch": 16, "seq_len": 512, "train_tokens": 1e9}})",
    R"({"model": "llama2-7b", "system": "dgx-a100-80gb", "num_devices": 4,
        "inference": {"batch": 1, "prompt_len": 128, "output_len": 16}})",
    R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 16,
        "parallel": {"tp": 8, "sequence_parallel": true, "recompute": "full", "zero_stage": 1},
        "training": {"global_batch": 32, "seq_len": 2048}})",
    R"({"model": {"layers": 2, "hidden": 64, "heads": 4, "ffn_hidden": 256, "vocab": 512},
        "system": {"device": "h100-sxm5-80gb", "devices_per_node": 2,
                   "scale_up": {"bandwidth_GBps": 10, "latency_us": 1, "domain_size": 2},
                   "scale_out": {"bandwidth_GBps": 1, "latency_us": 10}},
        "num_devices": 8, "parallel": {"tp": 2, "pp": 2},
        "training": {"global_batch": 8, "seq_len": 128, "precision": "fp8"},
        "inference": {"batch": 2, "prompt_len": 16, "output_len": 4, "precision": "int8"}})",
    R"({"model": {"layers": 2, "hidden": 64, "heads": 4, "ffn_hidden": 256, "vocab": 512},
        "system": "dgx-h100", "num_devices": 4,
        "inference": {"batch": 1, "prompt_len": 32, "output_len": 8, "cuda_graphs": true,
                      "serving": {"arrival": "poisson", "requests_per_s": 50, "num_requests": 12,
                                  "input_len": {"mean": 32, "max": 64}, "output_len": 8,
                                  "slo": {"ttft_s": 0.05, "tpot_s": 0.01}}}})",
    // An RL job's placement search (colocated against every split, the trainer "auto").
    R"({"model": "llama3.2-1b", "system": "dgx-h100", "num_devices": 8, "economics": {"usd_per_gpu_hour": 2},
        "rl": {"prompts_per_step": 4, "samples_per_prompt": 4, "prompt_len": 64,
               "response_len": {"mean": 96, "max": 256}, "train": "auto"}})"};

const optimus::fuzz::Material& bases() {
  static const optimus::fuzz::Material m = [] {
    std::vector<json> scenarios;
    for (const char* b : kBases) scenarios.push_back(json::parse(b));
    return optimus::fuzz::material(std::move(scenarios));
  }();
  return m;
}

std::string options(Recipe& r) {
  static const char* kRaw[] = {"", "{}", " ", "{\"top\": 1e400}", "[", "null", "{\"top\": 3, \"top\": 0}"};
  if (r.below(8) == 0) return kRaw[r.below(std::size(kRaw))];
  json o = json::object();
  const auto some = [&](double small) {
    return r.below(2)
               ? optimus::fuzz::number(small)
               : optimus::fuzz::number(optimus::fuzz::kNumbers[r.below(std::size(optimus::fuzz::kNumbers))]);
  };
  if (r.below(3) == 0) o["top"] = some(static_cast<double>(1 + r.below(12)));
  if (r.below(3) == 0) {
    static const char* kModes[] = {"training", "inference", "serving", "both"};
    o["mode"] = kModes[r.below(std::size(kModes))];
  }
  if (r.below(4) == 0) {
    static const char* kObjectives[] = {"throughput", "latency", "goodput", "capacity", "speed"};
    o["objective"] = kObjectives[r.below(std::size(kObjectives))];
  }
  if (r.below(4) == 0) o["max_ttft_s"] = some(0.001 * static_cast<double>(1 + r.below(1000)));
  if (r.below(4) == 0) o["max_tpot_s"] = some(0.0001 * static_cast<double>(1 + r.below(1000)));
  if (r.below(4) == 0) o["max_batch"] = some(static_cast<double>(1 + r.below(64)));
  if (r.below(4) == 0) o["points"] = r.below(5) ? json(r.below(2) == 1) : json("yes");
  if (r.below(5) == 0) {
    static const char* kRanks[] = {"time", "energy", "cost", "money"};
    o["rank_by"] = kRanks[r.below(std::size(kRanks))];
  }
  if (r.below(5) == 0) o["max_cost_usd"] = some(static_cast<double>(1 + r.below(100000)));
  if (r.below(6) == 0) o["max_energy_mwh"] = some(0.001 * static_cast<double>(1 + r.below(1000)));
  if (r.below(16) == 0) o["tpo"] = 1;
  return o.dump();
}

// Numbers finite and non-negative; null only for the times of a point rejected before timing.
void check_search_numbers(const json& j, const std::string& in, const std::string& out) {
  json rest = j;
  rest.erase("points");
  optimus::fuzz::check_numbers(rest, in, out);
  if (!j.contains("points")) return;
  for (const auto& p : j["points"]) {
    for (auto it = p.begin(); it != p.end(); ++it) {
      if (it.value().is_null()) {
        if ((it.key() != "time_s" && it.key() != "throughput_tokens_per_s") || p["feasible"].get<bool>())
          fail("null in a search point", in, out);
      } else {
        optimus::fuzz::check_numbers(it.value(), in, out);
      }
    }
  }
}

// The job with a ranked placement loaded as the page's search view loads it (web/src/ui/search.ts,
// rlWithCandidate): the placement and its pools, the rollout engine's tp, the trainer's layout.
json rl_with_candidate(const json& doc, const json& c) {
  json s = doc;
  json& rl = s["rl"];
  rl["placement"] = c.at("placement");
  if (c.at("placement") == "split") {
    rl["rollout_devices"] = c.at("rollout_devices");
    rl["train_devices"] = c.at("train_devices");
  } else {
    rl.erase("rollout_devices");
    rl.erase("train_devices");
    rl.erase("async");
  }
  json rollout = rl.contains("rollout") && rl["rollout"].is_object() ? rl["rollout"] : json::object();
  const json& engine = c.at("rl").at("rollout").at("parallel");
  rollout["tp"] = engine.at("tp");
  // Experts the search spread over replicas (ep above tp: an engine its tp alone cannot hold) are
  // stated, as the page's rlWithCandidate states them.
  if (engine.value("ep", 1) > engine.at("tp").get<int>()) rollout["ep"] = engine.at("ep");
  rollout.erase("dp");
  rl["rollout"] = rollout;
  const json& p = c.at("rl").at("train").at("parallel");
  json train = json::object();
  for (const char* k : {"tp", "pp", "cp", "ep", "etp", "zero_stage", "recompute"}) train[k] = p.at(k);
  if (rl.contains("train") && rl["train"].is_object() && rl["train"].contains("precision"))
    train["precision"] = rl["train"]["precision"];
  rl["train"] = train;
  return s;
}

// An RL placement search: ranked by step time (or cost per step), and its best placement loaded
// into the job predicts the same step through predict().
void check_rl_search(const json& doc, const json& j, const std::string& in, const std::string& out) {
  const json& best = j.at("best");
  const bool cost = j.at("rank_by") == "cost";
  // Ranked by cost, every candidate has one (without a price the search refuses: search.rank_without_price).
  const char* key = cost ? "cost_per_step_usd" : "step_time_s";
  double prev = 0;
  for (const json& c : best) {
    const double v = c.at(key).get<double>();
    if (v < prev)
      fail(cost ? "RL placements are not ranked by cost" : "RL placements are not ranked by step time", in,
           out);
    prev = v;
  }
  if (best.empty()) return;
  const json s = rl_with_candidate(doc, best[0]);
  const std::string p_out = optimus::api::predict(s.dump());
  const json p = optimus::fuzz::parse_answer(in, p_out);
  if (optimus::fuzz::is_error_answer(p, in, p_out))
    fail("the best RL placement does not predict", in, out + "\n" + s.dump() + "\n" + p_out);
  if (!optimus::fuzz::close(p.at("rl").at("step_time_s"), best[0].at("step_time_s"), 1e-9))
    fail("the best RL placement predicts another step through predict()", in,
         out + "\n" + s.dump() + "\n" + p_out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  Recipe r(data, size);
  const json doc = optimus::fuzz::mutated(r, bases());
  const std::string scenario = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string opts = options(r);
  const std::string in = scenario + "\n--- options\n" + opts;
  const std::size_t max_calls = 2 + r.below(3);
  std::size_t calls = 0;
  double last = 0;
  const std::string out = optimus::api::search(scenario, opts, [&](double f) {
    if (!(f >= last && f <= 1.0))
      fail("progress is not a non-decreasing fraction in [0, 1]", in, std::to_string(f));
    last = f;
    return ++calls < max_calls;
  });
  const json j = optimus::fuzz::parse_answer(in, out);
  if (optimus::fuzz::is_error_answer(j, in, out)) return 0;
  check_search_numbers(j, in, out);
  const std::int64_t evaluated = j.at("evaluated"), feasible = j.at("feasible");
  std::int64_t rejected = 0;
  for (const auto& [code, n] : j.at("rejected").items()) rejected += n.get<std::int64_t>();
  if (feasible > evaluated) fail("more feasible layouts than evaluated ones", in, out);
  if (!j.at("cancelled").get<bool>() && feasible + rejected != evaluated)
    fail("feasible + rejected != evaluated", in, out);
  const json& best = j.at("best");
  if (best.size() > static_cast<std::size_t>(feasible)) fail("more best layouts than feasible ones", in, out);
  if (j.at("mode") == "rl") {
    check_rl_search(doc, j, in, out);
    return 0;
  }
  if (j.at("mode") == "serving") {
    // Ranked by score; each deployment put into the scenario serves the same way through predict.
    double prev_score = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < best.size(); ++i) {
      const json& b = best[i];
      const double score = b.at("score_requests_per_s_per_device");
      if (score > prev_score) fail("serving deployments are not ranked by score", in, out);
      prev_score = score;
      if (i >= 2) continue;
      json s = doc;
      s.erase("training");
      s["parallel"] = b.at("parallel");
      const json& dep = b.at("deployment");
      s["inference"]["serving"]["max_batch"] = dep.at("max_batch");
      if (dep.contains("disaggregated"))
        s["inference"]["serving"]["disaggregated"] = dep["disaggregated"];
      else
        s["inference"]["serving"].erase("disaggregated");
      if (j.at("objective") == "capacity") continue;  // the capacity run is at another rate
      const std::string p_out = optimus::api::predict(s.dump());
      const json p = optimus::fuzz::parse_answer(in, p_out);
      if (optimus::fuzz::is_error_answer(p, in, p_out))
        fail("a best deployment does not predict", in, out + "\n" + p_out);
      if (!optimus::fuzz::close(p["serving"]["requests_per_s"], b["serving"]["requests_per_s"], 1e-9))
        fail("a best deployment serves differently through predict()", in, out + "\n" + p_out);
    }
    return 0;
  }
  const bool training = j.at("mode") == "training";
  // A training search ranks by the step's time, energy or cost (rank_by).
  const std::string rank = training ? j.value("rank_by", "time") : "time";
  const char* ranked = rank == "energy" ? "step_energy_j" : rank == "cost" ? "step_cost_usd" : nullptr;
  double prev = 0;
  for (std::size_t i = 0; i < best.size(); ++i) {
    const json& b = best[i];
    if (b.contains("error")) fail("a best layout does not predict", in, out);
    if (training) {
      const double v =
          ranked ? b.at(ranked).get<double>() : b.at("training").at("iteration_time_s").get<double>();
      if (v < prev) fail("best is not ranked by " + rank, in, out);
      prev = v;
    }
    if (i >= 3) continue;
    // The layout put into the scenario predicts the same numbers.
    json s = doc;
    s["parallel"] = b.at("parallel");
    if (training) {
      s.erase("inference");
    } else {
      // A static inference search reports the static batch: its request stream, if any, is not
      // part of the entry (best_json in core/io/api.cpp).
      s.erase("training");
      s["inference"]["batch"] = b.at("inference").at("batch");
      s["inference"].erase("serving");
    }
    const std::string p_out = optimus::api::predict(s.dump());
    const json p = optimus::fuzz::parse_answer(in, p_out);
    if (optimus::fuzz::is_error_answer(p, in, p_out))
      fail("a best layout does not predict", in, out + "\n" + p_out);
    const bool same =
        training ? optimus::fuzz::same_answer(p.at("training"), b.at("training"), 1e-9)
                 : optimus::fuzz::close(p["inference"]["ttft_s"], b["inference"]["ttft_s"], 1e-9) &&
                       optimus::fuzz::close(p["inference"]["tpot_s"], b["inference"]["tpot_s"], 1e-9);
    if (!same || !optimus::fuzz::same_answer(p.at("memory"), b.at("memory"), 1e-9))
      fail("a best layout predicts differently through predict()", in, out + "\n" + p_out);
  }
  return 0;
}
