// The parallel-layout search (core/search): on small spaces the search must give exactly what
// brute force gives (every layout of the space put into the scenario and run through the
// public predict()), the space must hold every layout predict accepts, fixed keys must stay
// fixed, best[0] must re-predict to the same numbers, and bad requests must fail with codes.
#include "search/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"
#include "memory/footprint.h"
#include "predict/serving.h"
#include "search/auto_layout.h"

namespace search_test {

namespace {

using json = nlohmann::json;
using optimus::FixedLayout;
using optimus::LayoutResult;
using optimus::ParallelPlan;
using optimus::Recompute;
using optimus::Scenario;
using optimus::SearchMode;
using optimus::SearchOptions;

// A 1.3B-class GPT on one DGX A100 node: small enough for brute force, large enough that
// memory rejects some layouts.
json small_gpt(int devices = 8, int global_batch = 32) {
  return {
      {"schema_version", 1},
      {"model", {{"layers", 24}, {"hidden", 2048}, {"heads", 16}, {"ffn_hidden", 8192}, {"vocab", 51200}}},
      {"system", "dgx-a100-40gb"},
      {"num_devices", devices},
      {"training", {{"global_batch", global_batch}, {"seq_len", 2048}, {"precision", "bf16"}}}};
}

// A 13B-class GPT on 16 A100 40GB: most layouts do not fit.
json tight_gpt() {
  return {
      {"schema_version", 1},
      {"model", {{"layers", 40}, {"hidden", 5120}, {"heads", 40}, {"ffn_hidden", 20480}, {"vocab", 50257}}},
      {"system", "dgx-a100-40gb"},
      {"num_devices", 16},
      {"training", {{"global_batch", 64}, {"seq_len", 2048}, {"precision", "bf16"}}}};
}

// Layers that split over pp only with the embedding/loss-as-a-layer rule (6 + 2 = 8 = 4 * 2).
json uneven_gpt() {
  return {{"schema_version", 1},
          {"model", {{"layers", 6}, {"hidden", 1024}, {"heads", 16}, {"ffn_hidden", 4096}, {"vocab", 32000}}},
          {"system", "dgx-h100"},
          {"num_devices", 8},
          {"training", {{"global_batch", 16}, {"seq_len", 1024}, {"precision", "bf16"}}}};
}

json small_llama_inference() {
  return {{"schema_version", 1},
          {"model", "llama2-13b"},
          {"system", "dgx-a100-80gb"},
          {"num_devices", 8},
          {"inference", {{"batch", 1}, {"prompt_len", 512}, {"output_len", 64}, {"precision", "fp16"}}}};
}

Scenario parse(const json& j) {
  auto s = optimus::parse_scenario(j.dump());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.value();
}

// The layouts fixed in j["parallel"], the way the API reads them.
FixedLayout fixed_from(const json& j, const Scenario& s) {
  FixedLayout f;
  if (!j.contains("parallel")) return f;
  const json& p = j["parallel"];
  if (p.contains("tp")) f.tp = s.parallel.tp;
  if (p.contains("pp")) f.pp = s.parallel.pp;
  if (p.contains("dp")) f.dp = s.parallel.dp;
  if (p.contains("cp")) f.cp = s.parallel.cp;
  if (p.contains("micro_batch")) f.micro_batch = s.parallel.micro_batch;
  if (p.contains("interleave")) f.interleave = s.parallel.interleave;
  if (p.contains("sequence_parallel")) f.sequence_parallel = s.parallel.sequence_parallel;
  if (p.contains("recompute")) f.recompute = s.parallel.recompute;
  if (p.contains("zero_stage")) f.zero_stage = s.parallel.zero_stage;
  return f;
}

struct Brute {
  std::int64_t evaluated = 0, feasible = 0;
  std::map<std::string, std::int64_t> rejected;
  std::vector<LayoutResult> ranked;  // every feasible layout, best first
};

// Every layout of the space through the public predict(), no pruning, no sharing.
Brute brute_force(const Scenario& s, const FixedLayout& f, const SearchOptions& o) {
  Brute out;
  auto space = optimus::enumerate_layouts(s, f, o);
  EXPECT_TRUE(space.ok());
  for (const auto& l : space.value()) {
    ++out.evaluated;
    Scenario c = s;
    c.parallel = l.plan;
    if (o.mode == SearchMode::inference) c.inference->batch = l.batch;
    auto p = optimus::predict(c);
    if (!p) {
      ++out.rejected[p.error().code];
      continue;
    }
    // The search leaves out balanced splits with more than an eighth of the slots empty.
    if (!f.pp && optimus::balanced_pipeline_split(c.model, c.parallel) &&
        !optimus::searches_uneven_pp(c.model.layers, c.parallel.pp)) {
      ++out.rejected["parallel.layers_not_divisible"];
      continue;
    }
    LayoutResult r;
    r.plan = l.plan;
    r.batch = l.batch;
    const auto& mem = o.mode == SearchMode::training ? *p->training_memory : *p->inference_memory;
    r.memory = mem.per_device.total();
    // A layout leaves the runtime's own memory free (memory/footprint.h, runtime_reserve).
    if (!optimus::leaves_runtime_room(r.memory, mem.capacity, c.num_devices)) {
      ++out.rejected["memory.does_not_fit"];
      continue;
    }
    if (o.mode == SearchMode::training) {
      r.time = p->training->iteration_time;
    } else {
      const auto& i = *p->inference;
      r.time = i.e2e_latency;
      r.ttft = i.ttft;
      r.tpot = i.tpot;
      r.throughput = i.throughput_tokens_per_s * static_cast<double>(l.plan.dp);
      if (o.max_ttft && i.ttft.value > o.max_ttft->value) {
        ++out.rejected["search.ttft_above_bound"];
        continue;
      }
      if (o.max_tpot && i.tpot.value > o.max_tpot->value) {
        ++out.rejected["search.tpot_above_bound"];
        continue;
      }
    }
    ++out.feasible;
    out.ranked.push_back(r);
  }
  std::sort(out.ranked.begin(), out.ranked.end(),
            [&](const LayoutResult& a, const LayoutResult& b) { return optimus::better_layout(a, b, o); });
  return out;
}

auto key(const LayoutResult& r) {
  const ParallelPlan& p = r.plan;
  return std::make_tuple(p.tp, p.pp, p.dp, p.cp, p.micro_batch, p.interleave, p.sequence_parallel,
                         static_cast<int>(p.recompute), p.zero_stage, r.batch);
}

void expect_search_equals_brute_force(const json& j, SearchOptions o) {
  const Scenario s = parse(j);
  const FixedLayout f = fixed_from(j, s);
  auto res = optimus::search_layouts(s, f, o);
  ASSERT_TRUE(res.ok()) << res.error().code << ": " << res.error().message;
  const Brute b = brute_force(s, f, o);
  EXPECT_EQ(res->evaluated, b.evaluated);
  EXPECT_EQ(res->feasible, b.feasible);
  EXPECT_EQ(res->rejected, b.rejected);
  ASSERT_EQ(res->best.size(), std::min(o.top, b.ranked.size()));
  for (std::size_t i = 0; i < res->best.size(); ++i) {
    EXPECT_EQ(key(res->best[i]), key(b.ranked[i])) << "rank " << i;
    EXPECT_EQ(res->best[i].time.value, b.ranked[i].time.value) << "rank " << i;  // exact: same function
    EXPECT_EQ(res->best[i].throughput, b.ranked[i].throughput) << "rank " << i;
    EXPECT_EQ(res->best[i].memory.value, b.ranked[i].memory.value) << "rank " << i;
  }
  EXPECT_GT(b.feasible, 0);
  std::int64_t sum = res->feasible;
  for (const auto& [code, n] : res->rejected) sum += n;
  EXPECT_EQ(sum, res->evaluated);
}

SearchOptions top(std::size_t k, SearchMode mode = SearchMode::training) {
  SearchOptions o;
  o.top = k;
  o.mode = mode;
  return o;
}

TEST(Search, EqualsBruteForceOnFreeSpace) { expect_search_equals_brute_force(small_gpt(), top(25)); }

TEST(Search, EqualsBruteForceWhenMemoryIsTight) {
  const json j = tight_gpt();
  expect_search_equals_brute_force(j, top(10));
  auto res = optimus::search_layouts(parse(j), {}, top(1));
  ASSERT_TRUE(res.ok());
  EXPECT_GT(res->rejected.at("memory.does_not_fit"), res->feasible);  // the case is what it claims
}

TEST(Search, EqualsBruteForceWithFixedKeys) {
  json j = small_gpt(16, 64);
  j["parallel"] = {{"tp", 2}, {"recompute", "full"}};
  expect_search_equals_brute_force(j, top(50));
}

TEST(Search, EqualsBruteForceWithUnevenPipelineSplit) {
  expect_search_equals_brute_force(uneven_gpt(), top(20));
}

// DeepSeek-V3's 61 layers take no interleaving at pp 8 (neither 61 nor 63 divides by 16 chunks),
// unless the run trains its MTP module: 61 + 1 + 2 slots fill 16 chunks of 4, the layout
// Megatron-Bridge's recipe runs at pp 8 x vp 2, which the search then tries.
TEST(Search, TriesTheInterleavingThatTrainedMtpModulesFill) {
  const auto interleaves = [](const json& mtp) {
    json j = {
        {"model", "deepseek-v3"},
        {"system", "dgx-h100"},
        {"num_devices", 512},
        {"parallel", {{"tp", 1}, {"pp", 8}, {"cp", 1}, {"ep", 64}, {"micro_batch", 1}, {"zero_stage", 1}}},
        {"training", {{"global_batch", 1024}, {"seq_len", 4096}, {"precision", "fp8"}}}};
    if (!mtp.is_null()) j["training"]["mtp_layers"] = mtp;
    const Scenario s = parse(j);
    auto space = optimus::enumerate_layouts(s, fixed_from(j, s), top(1));
    EXPECT_TRUE(space.ok());
    std::set<std::int64_t> v;
    for (const auto& l : space.value()) v.insert(l.plan.interleave);
    return v;
  };
  EXPECT_EQ(interleaves(nullptr), (std::set<std::int64_t>{1}));
  EXPECT_EQ(interleaves(1), (std::set<std::int64_t>{1, 2}));
}

TEST(Search, EqualsBruteForceForEveryLayoutWhenTopIsLarge) {
  // top larger than the feasible count: the whole ranking must match.
  expect_search_equals_brute_force(uneven_gpt(), top(optimus::kMaxSearchTop));
}

TEST(Search, EqualsBruteForceForInference) {
  SearchOptions o = top(20, SearchMode::inference);
  o.max_batch = 256;
  expect_search_equals_brute_force(small_llama_inference(), o);
  o.objective = optimus::InferenceObjective::latency;
  expect_search_equals_brute_force(small_llama_inference(), o);
}

TEST(Search, InferenceRespectsLatencyBounds) {
  const Scenario s = parse(small_llama_inference());
  SearchOptions o = top(optimus::kMaxSearchTop, SearchMode::inference);
  o.max_batch = 256;
  auto free = optimus::search_layouts(s, {}, o);
  ASSERT_TRUE(free.ok());
  // A bound between the smallest and the largest time per output token found.
  double lo = 1e300, hi = 0;
  for (const auto& r : free->best) {
    lo = std::min(lo, r.tpot.value);
    hi = std::max(hi, r.tpot.value);
  }
  ASSERT_LT(lo, hi);
  o.max_tpot = optimus::Seconds((lo + hi) / 2);
  o.max_ttft = optimus::Seconds(1e9);
  auto bounded = optimus::search_layouts(s, {}, o);
  ASSERT_TRUE(bounded.ok());
  ASSERT_FALSE(bounded->best.empty());
  for (const auto& r : bounded->best) EXPECT_LE(r.tpot.value, o.max_tpot->value);
  EXPECT_GT(bounded->rejected.at("search.tpot_above_bound"), 0);
  EXPECT_LT(bounded->feasible, free->feasible);
  // The best under the bound is the best of the unbounded list that meets it.
  for (const auto& r : free->best) {
    if (r.tpot.value > o.max_tpot->value) continue;
    EXPECT_EQ(key(r), key(bounded->best[0]));
    break;
  }
  expect_search_equals_brute_force(small_llama_inference(), o);
}

// Every layout that predict accepts (searched keys over generous ranges, nothing pruned) is
// in the enumerated space, and the space holds no duplicates.
TEST(Search, SpaceHoldsEveryLayoutPredictAccepts) {
  for (const json& j : {small_gpt(8, 16), uneven_gpt()}) {
    const Scenario s = parse(j);
    auto space = optimus::enumerate_layouts(s, {}, top(1));
    ASSERT_TRUE(space.ok());
    std::set<std::tuple<long, long, long, long, long, long, bool, int, int>> in_space;
    for (const auto& l : space.value()) {
      const auto& p = l.plan;
      EXPECT_TRUE(in_space
                      .insert({p.tp, p.pp, p.dp, p.cp, p.micro_batch, p.interleave, p.sequence_parallel,
                               static_cast<int>(p.recompute), p.zero_stage})
                      .second);
    }
    const long n = s.num_devices;
    const long batch = s.training->global_batch;
    std::int64_t valid = 0;
    Scenario c = s;
    for (long tp = 1; tp <= n; ++tp)
      for (long pp = 1; pp <= n; ++pp)
        for (long cp = 1; cp <= n; ++cp)
          for (long dp = 1; dp <= n; ++dp) {
            if (tp * pp * cp * dp != n) continue;
            for (long mb = 1; mb <= batch; ++mb)
              for (long v = 1; v <= s.model.layers; ++v)
                for (bool sp : {false, true})
                  for (int rc = 0; rc < 3; ++rc)
                    for (int z = 0; z < 4; ++z) {
                      c.parallel = ParallelPlan{tp, pp, dp, cp, 1, sp, mb, v, static_cast<Recompute>(rc), z};
                      // The search interleaves only chunks that split the layers evenly (or
                      // by the embedding/loss rule); a balanced uneven pp it takes unchunked,
                      // when at most an eighth of its stages' layer slots are empty.
                      const bool balanced = optimus::balanced_pipeline_split(c.model, c.parallel);
                      if (optimus::validate_plan(c) ||
                          (balanced && (v > 1 || !optimus::searches_uneven_pp(s.model.layers, pp))))
                        continue;
                      ++valid;
                      EXPECT_TRUE(in_space.count({tp, pp, dp, cp, mb, v, sp, rc, z}))
                          << tp << " " << pp << " " << dp << " " << cp << " " << mb << " " << v;
                    }
          }
    EXPECT_GT(valid, 100);
  }
}

// Mixture of experts: every (ep, etp) pair predict accepts for a layout is in the space (etp 1 or
// tp, ep over the experts' divisors that fold into tp x cp x dp / etp), with sequence
// parallelism wherever tp > 1 (MoE needs it), and the search finds layouts with etp > 1.
TEST(Search, SpaceHoldsEveryExpertLayoutPredictAccepts) {
  json j = {{"model",
             {{"layers", 4},
              {"hidden", 512},
              {"heads", 8},
              {"ffn_hidden", 2048},
              {"vocab", 32000},
              {"norm", "rmsnorm"},
              {"ffn_type", "swiglu"},
              {"moe", {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 512}}}}},
            {"system", "dgx-h100"},
            {"num_devices", 8},
            {"parallel",
             {{"pp", 1},
              {"cp", 1},
              {"micro_batch", 1},
              {"interleave", 1},
              {"recompute", "none"},
              {"zero_stage", 1}}},
            {"training", {{"global_batch", 16}, {"seq_len", 1024}, {"precision", "bf16"}}}};
  const Scenario s = parse(j);
  auto space = optimus::enumerate_layouts(s, fixed_from(j, s), top(1));
  ASSERT_TRUE(space.ok());
  std::set<std::tuple<long, long, long, bool>> in_space;  // tp, ep, etp, sp
  bool etp_above_one = false;
  for (const auto& l : space.value()) {
    in_space.insert({l.plan.tp, l.plan.ep, l.plan.etp, l.plan.sequence_parallel});
    etp_above_one = etp_above_one || l.plan.etp > 1;
  }
  EXPECT_TRUE(etp_above_one);
  int valid = 0;
  Scenario c = s;
  for (long tp : {1, 2, 4, 8})
    for (long ep : {1, 2, 4, 8})
      for (long etp : {1, 2, 4, 8})
        for (bool sp : {false, true}) {
          c.parallel = s.parallel;
          c.parallel.tp = tp;
          c.parallel.dp = 8 / tp;
          c.parallel.ep = ep;
          c.parallel.etp = etp;
          c.parallel.sequence_parallel = sp;
          // The search keeps etp to 1 or tp (the recipes' settings); predict also accepts other
          // divisors and etp folded over data-parallel ranks (etp > tp).
          if (optimus::validate_plan(c) || (etp != 1 && etp != tp)) continue;
          ++valid;
          EXPECT_TRUE(in_space.count({tp, ep, etp, sp})) << tp << " " << ep << " " << etp << " " << sp;
        }
  EXPECT_GT(valid, 10);
}

// Enumeration bounds on a hand-countable case: 2 devices, 2 layers, global batch 2, no cp
// (seq_len 2 would allow cp=2 only with odd chunks: 2/2 = 1 is odd, rejected at the prefix).
// A pp that does not split the layers evenly is searched as the balanced split predict takes
// (DeepSeek-V3's 61 layers run on pp 2 to 16 in Megatron-Bridge's recipes), and a stated one
// keeps its layout in the space: the DeepSeek-V3 GB300 preset's own pp 2 used to leave an empty
// space (no interleave candidate for 61 / 2).
TEST(Search, PipelineSplitsNeedNotBeEven) {
  json j = json::parse(optimus::preset_json("scenarios", "deepseek-v3-256-gb300"));
  const Scenario s = parse(j);
  auto fixed = optimus::search_layouts(s, fixed_from(j, s), top(1));
  ASSERT_TRUE(fixed.ok()) << fixed.error().code << ": " << fixed.error().message;
  ASSERT_EQ(fixed->best.size(), 1u);
  EXPECT_EQ(fixed->best[0].plan.pp, 2);
  auto space = optimus::enumerate_layouts(s, {}, top(1));
  ASSERT_TRUE(space.ok());
  std::set<long> pps;
  for (const auto& l : space.value()) pps.insert(l.plan.pp);
  for (long pp : {2, 4, 8, 16}) EXPECT_TRUE(pps.count(pp)) << pp;
}

TEST(Search, SpaceSizeByHand) {
  json j = {{"model", {{"layers", 2}, {"hidden", 64}, {"heads", 2}, {"ffn_hidden", 256}, {"vocab", 100}}},
            {"system", "dgx-h100"},
            {"num_devices", 2},
            {"training", {{"global_batch", 2}, {"seq_len", 2}}}};
  // Prefixes (tp, pp, cp, dp): (1,1,1,2) (1,1,2,1) (1,2,1,1) (2,1,1,1).
  //  (1,1,1,2): mb {1}, v {1}, sp {off}, 3 rc, 4 zero        = 12
  //  (1,1,2,1): cp chunk odd -> 1 rejected layout             =  1
  //  (1,2,1,1): mb {1,2}, v {1, 2} (2 layers / 2; or 4 chunks of one slot: the embedding
  //             alone, a layer, a layer, the loss alone), sp {off}  = 48
  //  (2,1,1,1): mb {1,2}, v {1}, sp {off, on}                 = 48
  auto n = optimus::search_space_size(parse(j), {}, top(1));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 12 + 1 + 48 + 48);
}

TEST(Search, RejectedLayoutsCarryCodes) {
  json j = tight_gpt();
  j["parallel"] = {{"zero_stage", 1}};
  const json r = json::parse(optimus::api::search(j.dump(), R"({"points": true, "top": 3})"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  const std::regex code("^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+$");
  std::int64_t sum = r["feasible"];
  for (auto& [c, n] : r["rejected"].items()) {
    EXPECT_TRUE(std::regex_match(c, code)) << c;
    EXPECT_GT(n.get<std::int64_t>(), 0);
    sum += n.get<std::int64_t>();
  }
  EXPECT_EQ(sum, r["evaluated"].get<std::int64_t>());
  ASSERT_FALSE(r["points"].empty());
  bool any_rejected = false;
  // The capacity every best layout reports, and what the points' memory is held against: that
  // less the runtime's reserve of more than one device (1.92 GiB).
  const double capacity = r["capacity_bytes"].get<double>();
  ASSERT_FALSE(r["best"].empty());
  for (const auto& b : r["best"]) EXPECT_EQ(b["memory"]["capacity_bytes"].get<double>(), capacity);
  const double usable = r["usable_bytes"].get<double>();
  EXPECT_NEAR(capacity - usable, 1.92 * 1024 * 1024 * 1024, 1e3);
  for (const auto& p : r["points"]) {
    EXPECT_EQ(p["feasible"].get<bool>(), p["reason"].get<std::string>().empty());
    EXPECT_EQ(p["parallel"]["zero_stage"], 1);
    if (!p["feasible"].get<bool>()) {
      any_rejected = true;
      EXPECT_EQ(p["reason"], "memory.does_not_fit");
      EXPECT_TRUE(p["time_s"].is_null());
      EXPECT_GT(p["memory_bytes"].get<double>(), usable);
    } else {
      EXPECT_GT(p["time_s"].get<double>(), 0.0);
      EXPECT_LE(p["memory_bytes"].get<double>(), usable);
    }
  }
  EXPECT_TRUE(any_rejected);
}

TEST(Search, FixedKeysAreRespected) {
  json j = small_gpt(16, 64);
  j["parallel"] = {{"tp", 4}, {"pp", 2}, {"sequence_parallel", false}, {"micro_batch", 2}};
  const json r = json::parse(optimus::api::search(j.dump(), R"({"top": 1000, "points": true})"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  ASSERT_FALSE(r["best"].empty());
  for (const json& list : {r["best"], r["points"]})
    for (const auto& b : list) {
      EXPECT_EQ(b["parallel"]["tp"], 4);
      EXPECT_EQ(b["parallel"]["pp"], 2);
      EXPECT_EQ(b["parallel"]["sequence_parallel"], false);
      EXPECT_EQ(b["parallel"]["micro_batch"], 2);
    }
  // dp and cp vary over the rest: 16 / (4 * 2) = 2 = dp * cp.
  std::set<int> cps;
  for (const auto& b : r["best"]) cps.insert(b["parallel"]["cp"].get<int>());
  EXPECT_EQ(cps, (std::set<int>{1, 2}));
}

TEST(Search, BestRepredictsToTheSameNumbers) {
  json j = json::parse(optimus::preset_json("scenarios", "gpt3-175b-1024-a100"));
  j.erase("parallel");
  j["parallel"] = {{"tp", 8}};  // a faster test: tp fixed
  const json r = json::parse(optimus::api::search(j.dump(), R"({"top": 3})"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  ASSERT_EQ(r["best"].size(), 3u);
  for (const auto& b : r["best"]) {
    json again = j;
    again["parallel"] = b["parallel"];
    const json p = json::parse(optimus::api::predict(again.dump()));
    ASSERT_FALSE(p.contains("error")) << p.dump();
    EXPECT_EQ(p["training"], b["training"]);
    EXPECT_EQ(p["memory"], b["memory"]);
  }
  EXPECT_LE(r["best"][0]["training"]["iteration_time_s"].get<double>(),
            r["best"][1]["training"]["iteration_time_s"].get<double>());
}

// A whole run with a batch ramp and a later stage: layouts whose run could not train them (the
// ramp's or the stage's batch does not split over their dp x micro_batch) are rejected with the
// run's codes, so every ranked layout re-predicts with its run, and parallel "auto" picks one that
// plans.
TEST(Search, LayoutsTheRunCannotTrainAreRejected) {
  json j = small_gpt(16, 64);
  j["training"]["train_tokens"] = 1e10;
  j["training"]["batch_ramp"] = {{1e8, 16}};
  j["training"]["stages"] = {
      {{"tokens", 1e8}, {"seq_len", 8192}, {"global_batch", 8}, {"parallel", {{"cp", 2}}}}};
  const json r = json::parse(optimus::api::search(j.dump(), R"({"top": 25})"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_GT(r["rejected"].value("run.ramp_batch_invalid", 0), 0) << r["rejected"].dump();
  EXPECT_GT(r["rejected"].value("run.stage_invalid", 0), 0) << r["rejected"].dump();
  ASSERT_FALSE(r["best"].empty());
  for (const auto& b : r["best"]) {
    ASSERT_FALSE(b.contains("error")) << b.dump();
    json again = j;
    again["parallel"] = b["parallel"];
    const json p = json::parse(optimus::api::predict(again.dump()));
    ASSERT_TRUE(p.contains("run")) << p.dump();
    EXPECT_EQ(p["training"], b["training"]);
  }
  json a = j;
  a["parallel"] = "auto";
  const json p = json::parse(optimus::api::predict(a.dump()));
  ASSERT_TRUE(p.contains("run")) << p.dump();
  EXPECT_EQ(p["run"]["stages"].size(), 1u);
}

TEST(Search, InferenceBestRepredicts) {
  const json j = small_llama_inference();
  const json r = json::parse(
      optimus::api::search(j.dump(), R"({"mode": "inference", "objective": "latency", "top": 2})"));
  ASSERT_FALSE(r.contains("error")) << r.dump();
  json again = j;
  again["parallel"] = r["best"][0]["parallel"];
  again["inference"]["batch"] = r["best"][0]["inference"]["batch"];
  const json p = json::parse(optimus::api::predict(again.dump()));
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["inference"]["e2e_latency_s"], r["best"][0]["inference"]["e2e_latency_s"]);
  EXPECT_EQ(p["inference"]["tpot_s"], r["best"][0]["inference"]["tpot_s"]);
  EXPECT_EQ(p["memory"], r["best"][0]["memory"]);
}

TEST(Search, ProgressIsReportedAndCancels) {
  const json j = small_gpt(16, 64);
  std::vector<double> seen;
  const json r = json::parse(optimus::api::search(j.dump(), "", [&](double f) {
    seen.push_back(f);
    return true;
  }));
  ASSERT_FALSE(r.contains("error"));
  ASSERT_GE(seen.size(), 2u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.back(), 1.0);
  EXPECT_FALSE(r["cancelled"].get<bool>());

  int calls = 0;
  const json c = json::parse(optimus::api::search(j.dump(), "{}", [&](double) { return ++calls < 2; }));
  ASSERT_FALSE(c.contains("error"));
  EXPECT_TRUE(c["cancelled"].get<bool>());
  EXPECT_EQ(calls, 2);
  EXPECT_LT(c["evaluated"].get<std::int64_t>(), r["evaluated"].get<std::int64_t>());
}

struct BadCase {
  const char* name;
  json scenario;
  const char* options;
  const char* code;
  const char* path;
};

TEST(Search, BadRequestsFailWithCodes) {
  json huge = small_gpt();
  huge["model"] = {
      {"layers", 1024}, {"hidden", 16384}, {"heads", 1024}, {"ffn_hidden", 65536}, {"vocab", 1024}};
  // 768 divisors (the most of any count up to 1e8): too large even once narrowed as auto narrows
  // (2^20 devices is not, since the search narrows: ParallelAuto.NarrowsASpacePastTheCap).
  huge["num_devices"] = 73513440;
  huge["training"] = {{"global_batch", 735134400}, {"seq_len", 2048}};
  json mismatch = small_gpt();
  mismatch["parallel"] = {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"cp", 2}};
  const std::vector<BadCase> cases = {
      {"malformed", small_gpt(), "{\"top\":", "search.malformed_options", ""},
      {"not an object", small_gpt(), "[1]", "search.invalid_option", ""},
      {"unknown key", small_gpt(), R"({"tpo": 3})", "search.unknown_option", "/tpo"},
      {"top zero", small_gpt(), R"({"top": 0})", "search.invalid_option", "/top"},
      {"top fraction", small_gpt(), R"({"top": 1.5})", "search.invalid_option", "/top"},
      {"bad mode", small_gpt(), R"({"mode": "fast"})", "search.invalid_option", "/mode"},
      {"points type", small_gpt(), R"({"points": 1})", "search.invalid_option", "/points"},
      {"objective in training", small_gpt(), R"({"objective": "latency"})", "search.option_not_applicable",
       "/objective"},
      // A serving objective on a training search is not applicable either (it had been read as an
      // inference objective and refused as an invalid value).
      {"goodput in training", small_gpt(), R"({"objective": "goodput"})", "search.option_not_applicable",
       "/objective"},
      {"negative bound", small_llama_inference(), R"({"max_tpot_s": -1})", "search.invalid_option",
       "/max_tpot_s"},
      {"no inference", small_gpt(), R"({"mode": "inference"})", "search.no_inference", "/inference"},
      {"no training", small_llama_inference(), R"({"mode": "training"})", "search.no_training", "/training"},
      {"too large", huge, "", "search.space_too_large", "/parallel"},
      {"empty", mismatch, "", "search.empty_space", "/parallel"},
  };
  for (const auto& c : cases) {
    const json r = json::parse(optimus::api::search(c.scenario.dump(), c.options));
    ASSERT_TRUE(r.contains("error")) << c.name << ": " << r.dump().substr(0, 200);
    EXPECT_EQ(r["error"]["code"], c.code) << c.name;
    EXPECT_EQ(r["error"]["path"], c.path) << c.name;
    EXPECT_FALSE(r["error"]["message"].get<std::string>().empty()) << c.name;
  }
  // Scenario errors come through unchanged.
  const json bad = json::parse(optimus::api::search("{\"model\":", ""));
  EXPECT_EQ(bad["error"]["code"], "scenario.malformed_json");
}

// parallel: "auto" (issue 17): predict searches every key and predicts the best layout; it is
// never slower than a hand-picked layout that fits, says which layout it took, and fails with a
// code when nothing fits.
TEST(ParallelAuto, NeverSlowerThanHandPickedLayouts) {
  json s = small_gpt(8, 32);
  s["parallel"] = "auto";
  s["training"]["train_tokens"] = 1e9;
  const json a = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(a.contains("parallel_auto")) << a.dump();
  const double best = a["training"]["iteration_time_s"].get<double>();
  EXPECT_TRUE(a["memory"]["fits"].get<bool>());
  // The chosen layout, stated by hand, predicts the same numbers.
  json fixed = s;
  fixed["parallel"] = a["parallel_auto"]["parallel"];
  const json f = json::parse(optimus::api::predict(fixed.dump()));
  EXPECT_EQ(f["training"]["iteration_time_s"], a["training"]["iteration_time_s"]);
  EXPECT_EQ(f["run"], a["run"]);
  int compared = 0;
  for (const json& hand : {json{{"tp", 1}}, json{{"tp", 2}}, json{{"tp", 4}, {"sequence_parallel", true}},
                           json{{"tp", 8}}, json{{"pp", 2}, {"micro_batch", 2}}, json{{"tp", 2}, {"pp", 2}},
                           json{{"tp", 1}, {"zero_stage", 1}, {"micro_batch", 4}},
                           json{{"tp", 2}, {"recompute", "selective"}, {"micro_batch", 2}}}) {
    json h = s;
    h["parallel"] = hand;
    const json p = json::parse(optimus::api::predict(h.dump()));
    ASSERT_FALSE(p.contains("error")) << hand.dump() << p.dump();
    if (!p["memory"]["fits"].get<bool>()) continue;
    ++compared;
    EXPECT_LE(best, p["training"]["iteration_time_s"].get<double>()) << hand.dump();
  }
  EXPECT_GE(compared, 4);
}

// A space past the search's cap (a MoE model on thousands of devices): "auto" fixes zero_stage to
// 1 (then micro_batch, then interleave) until it fits, says so, and takes the best layout of what
// it searched; the layout search narrows it the same way and says so (it had refused the space
// that auto searched: probe finding), never changing a key the scenario fixes.
TEST(ParallelAuto, NarrowsASpacePastTheCap) {
  json s = {{"model", "gpt-oss-120b"},
            {"system", "dgx-h100"},
            {"num_devices", 3072},
            {"parallel", json::object()},
            {"training", {{"global_batch", 8192}, {"seq_len", 4096}, {"train_tokens", 1e12}}}};
  const json searched = json::parse(optimus::api::search(s.dump(), R"({"top": 1})"));
  ASSERT_TRUE(searched.contains("best")) << searched.dump().substr(0, 400);
  EXPECT_EQ(searched["narrowed"], (json{{"zero_stage", 1}}));
  EXPECT_LE(searched["evaluated"].get<double>(), 1e6);
  // zero_stage fixed by the scenario stays: the narrowing goes on to the next key
  json zero2 = s;
  zero2["parallel"] = {{"zero_stage", 2}};
  const json z = json::parse(optimus::api::search(zero2.dump(), R"({"top": 1})"));
  ASSERT_TRUE(z.contains("best")) << z.dump().substr(0, 400);
  EXPECT_FALSE(z.contains("narrowed") && z["narrowed"].contains("zero_stage"))
      << z.value("narrowed", json()).dump();
  EXPECT_EQ(z["best"][0]["parallel"]["zero_stage"], 2);
  s["parallel"] = "auto";
  const json a = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(a.contains("parallel_auto")) << a.dump().substr(0, 400);
  EXPECT_EQ(a["parallel_auto"]["narrowed"], (json{{"zero_stage", 1}}));
  EXPECT_EQ(a["parallel_auto"]["parallel"]["zero_stage"], 1);
  EXPECT_LE(a["parallel_auto"]["evaluated"].get<double>(), 1e6);
  EXPECT_EQ(searched["best"][0]["parallel"], a["parallel_auto"]["parallel"]);
  s["parallel"] = {{"zero_stage", 1}};
  const json best = json::parse(optimus::api::search(s.dump(), R"({"top": 1})"));
  ASSERT_TRUE(best.contains("best")) << best.dump().substr(0, 400);
  EXPECT_FALSE(best.contains("narrowed"));  // the space with zero_stage stated fits the cap
  EXPECT_EQ(best["best"][0]["parallel"], a["parallel_auto"]["parallel"]);
}

// parallel: "auto" resolved by the engine (search/auto_layout.h), as a native caller of predict()
// does it: the scenario's layout and each "auto" stage's are the API's, and predict() then gives
// the API's numbers; a scenario without "auto" is left as it is; nothing fitting is an error.
TEST(ParallelAuto, ResolvedNativelyAsTheApiResolvesIt) {
  json s = small_gpt(8, 32);
  s["parallel"] = "auto";
  s["training"]["train_tokens"] = 1e9;
  s["training"]["stages"] = {
      {{"tokens", 1e9}, {"seq_len", 4096}, {"global_batch", 16}, {"parallel", "auto"}}};
  Scenario sc = parse(s);
  ASSERT_TRUE(sc.parallel_auto);
  // Unresolved, the engine refuses the "auto" stage rather than guess its layout.
  ASSERT_FALSE(optimus::predict(sc).ok());
  const auto chosen = optimus::resolve_parallel_auto(sc);
  ASSERT_TRUE(chosen.ok()) << chosen.error().message;
  ASSERT_TRUE(chosen.value().has_value());
  const optimus::AutoLayout& a = *chosen.value();
  EXPECT_EQ(a.mode, SearchMode::training);
  EXPECT_GT(a.feasible, 0);
  EXPECT_GE(a.evaluated, a.feasible);
  EXPECT_TRUE(a.narrowed.empty());
  ASSERT_TRUE(sc.training->stages[0].plan.has_value());
  const auto p = optimus::predict(sc);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const json api = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(api.contains("parallel_auto")) << api.dump().substr(0, 400);
  EXPECT_EQ(api["parallel_auto"]["parallel"]["tp"], sc.parallel.tp);
  EXPECT_EQ(api["parallel_auto"]["parallel"]["pp"], sc.parallel.pp);
  EXPECT_EQ(api["parallel_auto"]["parallel"]["dp"], sc.parallel.dp);
  EXPECT_EQ(api["parallel_auto"]["parallel"]["micro_batch"], sc.parallel.micro_batch);
  EXPECT_EQ(api["parallel_auto"]["evaluated"], a.evaluated);
  EXPECT_EQ(api["parallel_auto"]["mode"], "training");
  EXPECT_EQ(api["training"]["iteration_time_s"].get<double>(), p->training->iteration_time.value);

  // No "auto": nothing chosen, the layout as given.
  Scenario fixed = parse(small_gpt(8, 32));
  const ParallelPlan before = fixed.parallel;
  const auto none = optimus::resolve_parallel_auto(fixed);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none.value().has_value());
  EXPECT_EQ(fixed.parallel.tp, before.tp);
  EXPECT_EQ(fixed.parallel.dp, before.dp);

  // Nothing fits: the code and path the API reports.
  json huge = small_gpt(8, 32);
  huge["parallel"] = "auto";
  huge["model"] = "megatron-1t";  // 1T parameters on 8 A100 40GB: no layout holds it
  Scenario h = parse(huge);
  const auto err = optimus::resolve_auto_layout(h);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().code, "parallel.auto_no_layout");
  EXPECT_EQ(err.error().path, "/parallel");
  EXPECT_EQ(json::parse(optimus::api::predict(huge.dump()))["error"]["code"], "parallel.auto_no_layout");
}

// A refusal names the host-memory optimizer as a remedy, with the layout it would take, only where
// one would fit: Llama 3.1 70B on 8 H100 (18 bytes a parameter: 158 GB a device at best) fits
// with the optimizer in host memory (6 bytes); a 1T model on 8 does not (750 GB of weights and
// gradients a device), so its refusal says nothing of it; a system without a host link is not
// told. The hinted layout fits when stated, and the error's fix is that layout with the optimizer
// in host memory, key for key (the page offers it as an edit; no fix where no hint).
TEST(ParallelAuto, RefusalNamesTheHostMemoryOptimizerWhereItWouldFit) {
  const auto refusal = [](const std::string& model, const json& system) {
    const json s = {{"model", model},
                    {"system", system},
                    {"num_devices", 8},
                    {"parallel", "auto"},
                    {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
    const json e = json::parse(optimus::api::predict(s.dump()));
    EXPECT_EQ(e["error"]["code"], "parallel.auto_no_layout") << e.dump().substr(0, 300);
    return e["error"];
  };
  const std::string hint = "with the optimizer state in host memory (parallel.optimizer_offload) one would: ";
  const json e70 = refusal("llama3.1-70b", "dgx-h100");
  const std::string m70 = e70["message"];
  const auto at = m70.find(hint);
  ASSERT_NE(at, std::string::npos) << m70;
  const json e1t = refusal("megatron-1t", "dgx-h100");
  EXPECT_EQ(e1t["message"].get<std::string>().find(hint), std::string::npos);
  EXPECT_FALSE(e1t.contains("fix")) << e1t.dump();
  json bare = json::parse(optimus::preset_json("systems", "dgx-h100"));
  bare.erase("host_link_GBps");
  const json e_bare = refusal("llama3.1-70b", bare);
  EXPECT_EQ(e_bare["message"].get<std::string>().find(hint), std::string::npos);
  EXPECT_FALSE(e_bare.contains("fix"));
  // "tp 4, pp 2, dp 1, zero_stage 1, micro_batch 1, recompute full" (and cp, ep, etp, interleave,
  // sequence_parallel where not their defaults): the whole layout, which stated with the optimizer
  // in host memory fits.
  const std::string rest = m70.substr(at + hint.size());
  ASSERT_TRUE(std::regex_search(
      rest,
      std::regex(
          R"(^tp \d+, pp \d+, dp \d+, zero_stage \d, micro_batch \d+, recompute (none|selective|full)(, \w+ \w+)*$)")))
      << m70;
  json layout = {{"optimizer_offload", true}};
  const std::regex pair(R"((\w+) (\w+))");
  for (std::sregex_iterator it(rest.begin(), rest.end(), pair), end; it != end; ++it) {
    const std::string key = (*it)[1], value = (*it)[2];
    layout[key] = key == "recompute" ? json(value) : value == "true" ? json(true) : json(std::stoll(value));
  }
  // every pair a key of its own, beside optimizer_offload
  EXPECT_EQ(layout.size(), 2 + static_cast<std::size_t>(std::count(rest.begin(), rest.end(), ','))) << rest;
  EXPECT_EQ(e70["fix"], layout) << e70.dump();
  const json stated = {{"model", "llama3.1-70b"},
                       {"system", "dgx-h100"},
                       {"num_devices", 8},
                       {"parallel", e70["fix"]},
                       {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
  const json p = json::parse(optimus::api::predict(stated.dump()));
  ASSERT_TRUE(p.contains("memory")) << p.dump().substr(0, 300);
  EXPECT_TRUE(p["memory"]["fits"].get<bool>());
  // A stage's refusal keeps the words but no fix: a stage's layout cannot state the optimizer's place.
  json staged = stated;
  staged["training"]["train_tokens"] = 1e9;
  staged["training"]["stages"] = json::array({{{"tokens", 1e8}, {"seq_len", 8192}, {"parallel", "auto"}}});
  const json es = json::parse(optimus::api::predict(staged.dump()))["error"];
  EXPECT_EQ(es["path"], "/training/stages/0/parallel") << es.dump();
  EXPECT_NE(es["message"].get<std::string>().find(hint), std::string::npos) << es.dump();
  EXPECT_FALSE(es.contains("fix")) << es.dump();
  EXPECT_FALSE(es.contains("fewest_devices")) << es.dump();
}

// 64 closed-loop clients of `model` in fp8 on 8 devices of `system`, the layout "auto".
json closed_loop_on_8(const char* model, const char* system) {
  return {{"model", model},
          {"system", system},
          {"num_devices", 8},
          {"parallel", "auto"},
          {"inference",
           {{"batch", 32},
            {"prompt_len", 1024},
            {"output_len", 256},
            {"precision", "fp8"},
            {"serving", {{"arrival", "closed"}, {"concurrency", 64}, {"num_requests", 256}}}}}};
}

// The look's counts (search.h fewest_count): doubling until one runs, then every whole node
// between the largest refused count and it (at most 15 counts: whole nodes further apart where more
// would fit), fewest first; `below` the largest count that did not run.
TEST(Search, FewestCountTriesWholeNodesBelowTheFirstThatRuns) {
  std::vector<std::int64_t> asked;
  std::int64_t below = 0;
  // runs from 192 on, on multiples of 64 only (a layout must divide the count)
  const auto runs = [&](std::int64_t c) {
    asked.push_back(c);
    return c >= 192 && c % 64 == 0;
  };
  EXPECT_EQ(optimus::fewest_count(32, 8, runs, below), 192);
  EXPECT_EQ(asked, (std::vector<std::int64_t>{64, 128, 256, 136, 144, 152, 160, 168, 176, 184, 192}));
  EXPECT_EQ(below, 184);
  // Every node counts: 168 runs where the eighths of 256 (160, 192, 224) would have missed it.
  asked.clear();
  EXPECT_EQ(optimus::fewest_count(
                32, 8, [&](std::int64_t c) { return asked.push_back(c), c >= 168 && c % 8 == 0; }, below),
            168);
  EXPECT_EQ(below, 160);
  // 1,024 nodes between 1,024 and 2,048 devices: 8 nodes apart, 15 counts at most.
  asked.clear();
  EXPECT_EQ(optimus::fewest_count(
                1024, 8, [&](std::int64_t c) { return asked.push_back(c), c >= 1500; }, below),
            1536);
  EXPECT_EQ(asked, (std::vector<std::int64_t>{2048, 1088, 1152, 1216, 1280, 1344, 1408, 1472, 1536}));
  EXPECT_EQ(below, 1472);
  // Below one node of 8 there is no whole node between 4 and 8: the doubling's count.
  asked.clear();
  EXPECT_EQ(optimus::fewest_count(
                2, 8, [&](std::int64_t c) { return asked.push_back(c), c >= 6; }, below),
            8);
  EXPECT_EQ(asked, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(below, 4);
  // Twice as many runs: the counts between are tried (48 does), and nothing below the scenario's own
  // is said to have been refused but it.
  asked.clear();
  EXPECT_EQ(optimus::fewest_count(
                32, 8, [&](std::int64_t c) { return asked.push_back(c), c >= 48; }, below),
            48);
  EXPECT_EQ(asked, (std::vector<std::int64_t>{64, 40, 48}));
  EXPECT_EQ(below, 40);
  // None of 2-32 times: 0, the largest refused the last doubling.
  EXPECT_EQ(optimus::fewest_count(
                4, 8, [](std::int64_t) { return false; }, below),
            0);
  EXPECT_EQ(below, 128);
}

// `model` trained on `devices` of `system` in a global batch of `batch` sequences of `seq_len`,
// the layout "auto".
json auto_training(const char* model, const char* system, std::int64_t devices, std::int64_t batch,
                   std::int64_t seq_len) {
  return {{"model", model},
          {"system", system},
          {"num_devices", devices},
          {"parallel", "auto"},
          {"training", {{"global_batch", batch}, {"seq_len", seq_len}}}};
}

// A refusal names the fewest devices that a layout runs it on (the rest of the scenario as stated),
// of 2, 4, 8, 16 and 32 times the scenario's, then the whole nodes below the first that runs
// (search.h fewest_count): predicted there, refused at the largest count it says has no layout.
// DeepSeek-V3 on H100: 64 and 128 have none, 256 has; 136-160 have none, 168 (21 nodes) has.
TEST(ParallelAuto, RefusalNamesTheFewestDevicesThatRunIt) {
  json training = auto_training("deepseek-v3", "dgx-h100", 32, 1024, 4096);
  training["training"]["precision"] = "fp8";
  // DeepSeek-R1's fp8 weights leave 8 H100 no room (ServingLayoutsHoldARequestInTheirKvBudget).
  const json served = closed_loop_on_8("deepseek-r1", "dgx-h100");
  for (const auto& [s, fewest, words, below] :
       {std::tuple{training, 168, "; 168 devices would (no layout of 160 does)", 160},
        std::tuple{served, 16, "; 16 devices would", 8}}) {
    const json e = json::parse(optimus::api::predict(s.dump()))["error"];
    ASSERT_EQ(e["code"], "parallel.auto_no_layout") << e.dump();
    EXPECT_EQ(e["fewest_devices"], fewest) << e.dump();
    EXPECT_NE(e["message"].get<std::string>().find(words), std::string::npos) << e["message"];
    json at = s;
    at["num_devices"] = fewest;
    EXPECT_TRUE(json::parse(optimus::api::predict(at.dump())).contains("parallel_auto")) << s["model"];
    at["num_devices"] = below;
    EXPECT_EQ(json::parse(optimus::api::predict(at.dump()))["error"]["code"], "parallel.auto_no_layout");
    // validate refuses the same way
    EXPECT_EQ(json::parse(optimus::api::validate(s.dump()))["error"]["fewest_devices"], fewest);
  }
  json half = training;
  half["num_devices"] = 128;  // the doubling's last refused count, below the nodes tried
  EXPECT_EQ(json::parse(optimus::api::predict(half.dump()))["error"]["code"], "parallel.auto_no_layout");
  // A search that finds nothing feasible says the same: Llama 3 70B's training on 4 H100 (and on
  // 8), first on 16; with some layout feasible it says nothing.
  json few = {{"model", "llama3-70b"},
              {"system", "dgx-h100"},
              {"num_devices", 4},
              {"training", {{"global_batch", 64}, {"seq_len", 8192}}}};
  const json searched = json::parse(optimus::api::search(few.dump(), ""));
  EXPECT_EQ(searched["feasible"], 0) << searched.dump().substr(0, 300);
  EXPECT_EQ(searched["fewest_devices"], 16) << searched.dump().substr(0, 300);
  few["num_devices"] = 8;
  EXPECT_EQ(json::parse(optimus::api::search(few.dump(), ""))["feasible"], 0);
  few["num_devices"] = 16;
  const json found = json::parse(optimus::api::search(few.dump(), ""));
  EXPECT_GT(found["feasible"], 0);
  EXPECT_FALSE(found.contains("fewest_devices"));
  // GPT-3 175B in a global batch of 8 on 40 GB devices: none of 2 to 32 of them runs it, so none is named.
  const json big = auto_training("gpt3-175b", "dgx-a100-40gb", 1, 8, 2048);
  const json e = json::parse(optimus::api::predict(big.dump()))["error"];
  EXPECT_EQ(e["code"], "parallel.auto_no_layout");
  EXPECT_FALSE(e.contains("fewest_devices")) << e.dump();
  EXPECT_EQ(e["message"].get<std::string>().find("devices would"), std::string::npos) << e["message"];
}

// A job no layout divides over its devices (Llama 3 8B in a global batch of 64 on 100,000 H100:
// heads, layers, sequence and batch run out of divisors, no layout runs out of memory) is not told
// that more devices would run it, and names no count: fewer would.
TEST(ParallelAuto, AJobNoLayoutDividesIsToldFewerDevices) {
  const json s = auto_training("llama3-8b", "dgx-h100", 100000, 64, 8192);
  const json e = json::parse(optimus::api::predict(s.dump()))["error"];
  ASSERT_EQ(e["code"], "parallel.auto_no_layout") << e.dump();
  const std::string m = e["message"];
  EXPECT_EQ(m.find("memory.does_not_fit"), std::string::npos) << m;
  EXPECT_NE(m.find("none divides the job over these devices: fewer devices or a larger global batch would"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("more devices"), std::string::npos) << m;
  EXPECT_FALSE(e.contains("fewest_devices"));
  // The layouts tried, counted by the code that refused each, as the message lists them: none for
  // memory, and every one of the message's count accounted for.
  ASSERT_TRUE(e.contains("rejected") && e["rejected"].is_object()) << e.dump();
  EXPECT_FALSE(e["rejected"].contains("memory.does_not_fit")) << e.dump();
  std::int64_t counted = 0;
  for (const auto& [code, n] : e["rejected"].items()) {
    EXPECT_NE(m.find(code + " x" + std::to_string(n.get<std::int64_t>())), std::string::npos) << code;
    counted += n.get<std::int64_t>();
  }
  EXPECT_NE(m.find("(" + std::to_string(counted) + " layouts: "), std::string::npos) << m;
  // Out of memory instead (the same model on one device): more devices, as before.
  json one = s;
  one["num_devices"] = 1;
  const json e1 = json::parse(optimus::api::predict(one.dump()))["error"];
  const std::string m1 = e1["message"];
  EXPECT_NE(m1.find("memory.does_not_fit"), std::string::npos) << m1;
  EXPECT_NE(m1.find("more devices, a smaller model or batch would"), std::string::npos) << m1;
  EXPECT_GT(e1["rejected"].value("memory.does_not_fit", 0), 0) << e1.dump();
  // validate answers the same counts; an error of another code carries none.
  EXPECT_EQ(json::parse(optimus::api::validate(s.dump()))["error"]["rejected"], e["rejected"]);
  json bad = s;
  bad["num_devices"] = 0;
  EXPECT_FALSE(json::parse(optimus::api::predict(bad.dump()))["error"].contains("rejected"));
}

TEST(ParallelAuto, InferenceValidateAndErrors) {
  json s = small_gpt(8, 32);
  s.erase("training");
  s["inference"] = {{"batch", 8}, {"prompt_len", 512}, {"output_len", 64}};
  s["parallel"] = "auto";
  const json p = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(p.contains("parallel_auto")) << p.dump();
  EXPECT_EQ(p["parallel_auto"]["mode"], "inference");
  // validate keeps "auto" in the resolved scenario (it predicts the same).
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_TRUE(v.contains("ok")) << v.dump();
  EXPECT_EQ(v["scenario"]["parallel"], "auto");
  // Nothing fits: a 175B model on one 40 GB device.
  json big = {{"model", "gpt3-175b"},
              {"system", "dgx-a100-40gb"},
              {"num_devices", 1},
              {"parallel", "auto"},
              {"training", {{"global_batch", 8}, {"seq_len", 2048}}}};
  json e = json::parse(optimus::api::predict(big.dump()));
  ASSERT_TRUE(e.contains("error")) << e.dump();
  EXPECT_EQ(e["error"]["code"], "parallel.auto_no_layout");
  EXPECT_EQ(e["error"]["path"], "/parallel");
  EXPECT_EQ(json::parse(optimus::api::validate(big.dump()))["error"]["code"], "parallel.auto_no_layout");
  big["parallel"] = "fastest";
  e = json::parse(optimus::api::predict(big.dump()));
  EXPECT_EQ(e["error"]["code"], "scenario.invalid_value");
  EXPECT_EQ(e["error"]["path"], "/parallel");
}

// A served scenario's "auto" keeps only layouts whose replicas hold one request in their KV
// budget (check_serving): the static search fits its batch in the device less the runtime's own
// memory, a serving replica only in gpu_memory_utilization of it. Falcon-180B in fp8 (about 180 GB
// of weights) on GB200 (186 GB): one device per replica fits the static batch and leaves serving
// no KV room at 0.9.
TEST(ParallelAuto, ServingLayoutsHoldARequestInTheirKvBudget) {
  json s = closed_loop_on_8("falcon-180b", "gb200-nvl72");
  // The static search alone ranks a one-device replica first (batch 32: 176 of 185 GiB, the
  // runtime's reserve left free; batch 64 would leave it 0.7 GiB and be refused).
  json statically = s;
  statically["inference"].erase("serving");
  Scenario st = parse(statically);
  const auto a0 = optimus::resolve_auto_layout(st);
  ASSERT_TRUE(a0.ok()) << a0.error().message;
  EXPECT_EQ(st.parallel.tp * st.parallel.pp, 1);
  Scenario sc = parse(s);
  ASSERT_TRUE(optimus::check_serving([&] {
                Scenario t = sc;
                t.parallel = st.parallel;
                return t;
              }())
                  .has_value());
  const auto a = optimus::resolve_auto_layout(sc);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_GT(sc.parallel.tp * sc.parallel.pp, 1);
  EXPECT_FALSE(optimus::check_serving(sc).has_value());
  EXPECT_LT(a.value().feasible, a0.value().feasible);
  const json p = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(p.contains("serving")) << p.dump().substr(0, 400);
  EXPECT_EQ(p["parallel_auto"]["feasible"], a.value().feasible);
  // No layout leaves room: DeepSeek-R1's fp8 weights (79.2 GiB per device over 8) on 8 H100
  // (79.6 GiB) leave less than the runtime's own memory, before any KV cache.
  s["model"] = "deepseek-r1";
  s["system"] = "dgx-h100";
  const json e = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(e.contains("error")) << e.dump().substr(0, 400);
  EXPECT_EQ(e["error"]["code"], "parallel.auto_no_layout");
  EXPECT_NE(e["error"]["message"].get<std::string>().find("memory.does_not_fit"), std::string::npos)
      << e["error"]["message"];
}

// A served scenario's "auto" is the layout that serves its own stream best: the static order
// (throughput of a batch of inference.batch sequences, one here) ranks many small replicas first,
// while 128 closed-loop clients of Llama 3.3 70B on 8 H100 earn the most goodput on 2 x TP4, the
// serving search's first deployment at the scenario's max_batch.
TEST(ParallelAuto, AServedScenarioTakesTheLayoutThatServesItsStreamBest) {
  const json s = {{"model", "llama3.3-70b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 8},
                  {"parallel", "auto"},
                  {"inference",
                   {{"prompt_len", 1000},
                    {"output_len", 250},
                    {"serving", {{"arrival", "closed"}, {"concurrency", 128}, {"num_requests", 500}}}}}};
  const json p = json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(p.contains("serving")) << p.dump().substr(0, 400);
  EXPECT_EQ(p["parallel_auto"]["mode"], "serving");
  EXPECT_GE(p["parallel_auto"]["simulated"].get<int>(), 2);
  const json searched = json::parse(optimus::api::search(s.dump(), R"({"mode": "serving", "top": 1})"));
  ASSERT_TRUE(searched.contains("best")) << searched.dump().substr(0, 400);
  const json& best = searched["best"][0];
  EXPECT_EQ(p["parallel_auto"]["parallel"]["tp"], best["parallel"]["tp"]) << best.dump();
  EXPECT_EQ(p["parallel_auto"]["parallel"]["dp"], best["parallel"]["dp"]) << best.dump();
  EXPECT_EQ(p["parallel_auto"]["parallel"]["tp"], 4);
  // Every layout the static order ranked first serves this stream no better.
  json statically = s;
  statically["inference"].erase("serving");
  const json st = json::parse(optimus::api::predict(statically.dump()));
  json pinned = s;
  pinned["parallel"] = st["parallel_auto"]["parallel"];
  const json q = json::parse(optimus::api::predict(pinned.dump()));
  ASSERT_TRUE(q.contains("serving")) << q.dump().substr(0, 400);
  EXPECT_GE(p["serving"]["goodput_requests_per_s"].get<double>(),
            q["serving"]["goodput_requests_per_s"].get<double>());
}

// Ranking a training search by energy or cost (issue 17): the ranking is by the step's energy
// (or cost), the energy-best layout uses no more energy than the fastest one, and with a rental
// price (cost proportional to device-hours) cost ranks exactly as time.
TEST(SearchRankBy, EnergyAndCost) {
  json s = small_gpt(8, 32);
  s.erase("parallel");
  const json e = json::parse(optimus::api::search(s.dump(), R"({"rank_by": "energy", "top": 1000})"));
  ASSERT_TRUE(e.contains("best")) << e.dump();
  EXPECT_EQ(e["rank_by"], "energy");
  const json& best = e["best"];
  ASSERT_GT(best.size(), 3u);
  for (std::size_t i = 1; i < best.size(); ++i)
    EXPECT_LE(best[i - 1]["step_energy_j"].get<double>(), best[i]["step_energy_j"].get<double>()) << i;
  const json t = json::parse(optimus::api::search(s.dump(), R"({"top": 1})"));
  const json& fastest = t["best"][0]["parallel"];
  bool found = false;
  for (const json& b : best)
    if (b["parallel"] == fastest) {
      found = true;
      EXPECT_LE(best[0]["step_energy_j"].get<double>(), b["step_energy_j"].get<double>());
    }
  EXPECT_TRUE(found);
  s["economics"] = {{"usd_per_gpu_hour", 2.0}};
  const json c = json::parse(optimus::api::search(s.dump(), R"({"rank_by": "cost", "top": 1})"));
  EXPECT_EQ(c["best"][0]["parallel"], fastest);
  EXPECT_NEAR(c["best"][0]["step_cost_usd"].get<double>(),
              8 * c["best"][0]["training"]["iteration_time_s"].get<double>() / 3600 * 2.0, 1e-12);
  json inf = small_gpt(8, 32);
  inf.erase("training");
  inf["inference"] = {{"batch", 4}, {"prompt_len", 128}, {"output_len", 16}};
  const json bad = json::parse(optimus::api::search(inf.dump(), R"({"rank_by": "energy"})"));
  EXPECT_EQ(bad["error"]["code"], "search.option_not_applicable");
  EXPECT_EQ(bad["error"]["path"], "/rank_by");
}

}  // namespace

namespace {

// The fastest layout within a budget (issue 17): every layout returned has a whole run within
// the budget, and its run cost is what predict reports for it; a budget between the cheapest and
// the dearest layout's run keeps some and rejects others with search.cost_above_budget; bad
// requests get codes and paths.
TEST(SearchBudget, FastestWithinACostOrEnergyBudget) {
  json s = small_gpt(8, 32);
  s.erase("parallel");
  s["training"]["train_tokens"] = 1e10;
  const json all = json::parse(optimus::api::search(s.dump(), R"({"top": 1000, "max_cost_usd": 1e15})"));
  ASSERT_TRUE(all.contains("best")) << all.dump();
  double lo = 1e300, hi = 0;
  for (const json& b : all["best"]) {
    lo = std::min(lo, b["run_cost_usd"].get<double>());
    hi = std::max(hi, b["run_cost_usd"].get<double>());
  }
  ASSERT_LT(lo, hi);
  const double budget = (lo + hi) / 2;
  const json r =
      json::parse(optimus::api::search(s.dump(), json{{"top", 1000}, {"max_cost_usd", budget}}.dump()));
  ASSERT_GT(r["best"].size(), 0u);
  EXPECT_GT(r["rejected"]["search.cost_above_budget"].get<int>(), 0);
  for (const json& b : r["best"]) EXPECT_LE(b["run_cost_usd"].get<double>(), budget);
  // The first layout re-predicted: the same run cost.
  json again = s;
  again["parallel"] = r["best"][0]["parallel"];
  const json p = json::parse(optimus::api::predict(again.dump()));
  EXPECT_NEAR(p["run"]["cost_usd"].get<double>(), r["best"][0]["run_cost_usd"].get<double>(),
              1e-9 * p["run"]["cost_usd"].get<double>());
  // An energy budget below every layout's run leaves none.
  const json none = json::parse(optimus::api::search(s.dump(), R"({"max_energy_mwh": 1e-9})"));
  EXPECT_EQ(none["feasible"], 0);
  EXPECT_GT(none["rejected"]["search.energy_above_budget"].get<int>(), 0);
  // Without train_tokens there is no run to bound; inference has no budget.
  json no_tokens = small_gpt(8, 32);
  const json e1 = json::parse(optimus::api::search(no_tokens.dump(), R"({"max_cost_usd": 100})"));
  EXPECT_EQ(e1["error"]["code"], "search.budget_without_tokens");
  EXPECT_EQ(e1["error"]["path"], "/max_cost_usd");
  json inf = small_gpt(8, 32);
  inf.erase("training");
  inf["inference"] = {{"batch", 4}, {"prompt_len", 128}, {"output_len", 16}};
  const json e2 = json::parse(optimus::api::search(inf.dump(), R"({"max_energy_mwh": 1})"));
  EXPECT_EQ(e2["error"]["code"], "search.option_not_applicable");
  EXPECT_EQ(e2["error"]["path"], "/max_energy_mwh");
  json no_price = s;
  no_price.erase("economics");
  no_price["system"] = "dgx-h200";  // its device states no price
  const json e4 = json::parse(optimus::api::search(no_price.dump(), R"({"max_cost_usd": 100})"));
  EXPECT_EQ(e4["error"]["code"], "search.budget_without_price") << e4.dump();
  // Nor can it rank by cost: each step's cost would be its electricity alone.
  const json e5 = json::parse(optimus::api::search(no_price.dump(), R"({"rank_by": "cost"})"));
  EXPECT_EQ(e5["error"]["code"], "search.rank_without_price") << e5.dump();
  EXPECT_EQ(e5["error"]["path"], "/rank_by");
  // Ranked by energy, its layouts carry their energy and no cost.
  const json by_energy =
      json::parse(optimus::api::search(no_price.dump(), R"({"rank_by": "energy", "top": 1})"));
  ASSERT_FALSE(by_energy.contains("error")) << by_energy.dump();
  EXPECT_GT(by_energy["best"][0]["step_energy_j"].get<double>(), 0);
  EXPECT_FALSE(by_energy["best"][0].contains("step_cost_usd"));
  no_price["economics"] = {{"usd_per_gpu_hour", 3.5}};
  const json rented = json::parse(optimus::api::search(no_price.dump(), R"({"rank_by": "cost", "top": 2})"));
  ASSERT_FALSE(rented.contains("error")) << rented.dump();
  EXPECT_GT(rented["best"][0]["step_cost_usd"].get<double>(), 0);
  const json e3 = json::parse(optimus::api::search(s.dump(), R"({"max_cost_usd": -1})"));
  EXPECT_EQ(e3["error"]["code"], "search.invalid_option");
}

// A static inference search of a scenario that also states a request stream reports each layout's
// static batch: the stream is not simulated per entry. One too long for the simulation (12 requests
// of 8,000,000 tokens: serving.too_many_steps) made every listed layout an error (the search
// fuzzer's finding); its entries now carry the static numbers, as predict gives them without it.
TEST(SearchInference, EntriesAreTheStaticBatchWhateverTheStream) {
  json s = {
      {"model", {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"ffn_hidden", 256}, {"vocab", 512}}},
      {"system", "dgx-h100"},
      {"num_devices", 4},
      {"inference",
       {{"batch", 1},
        {"prompt_len", 32},
        {"output_len", 8},
        {"serving",
         {{"arrival", "poisson"}, {"requests_per_s", 50}, {"num_requests", 12}, {"output_len", 8000000}}}}}};
  EXPECT_EQ(json::parse(optimus::api::predict(s.dump()))["error"]["code"], "serving.too_many_steps");
  const json r = json::parse(optimus::api::search(s.dump(), R"({"mode": "inference", "top": 3})"));
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 300);
  ASSERT_EQ(r["best"].size(), 3u);
  s["inference"].erase("serving");
  for (const json& b : r["best"]) {
    ASSERT_FALSE(b.contains("error")) << b.dump();
    json one = s;
    one["parallel"] = b["parallel"];
    one["inference"]["batch"] = b["inference"]["batch"];
    const json p = json::parse(optimus::api::predict(one.dump()));
    EXPECT_DOUBLE_EQ(p["inference"]["tpot_s"].get<double>(), b["inference"]["tpot_s"].get<double>());
  }
}

}  // namespace

}  // namespace search_test
