// Physics properties of predict() over generated cases (issue 6): models (every dense preset and
// random small ones), systems (every preset) and layouts come from a fixed-seed generator, each
// case is checked to be a valid scenario first, and a property that fails prints the exact
// scenario(s) it failed on. predict_test.cpp checks the same ideas on single shipped scenarios;
// here they must hold everywhere the generator reaches.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "io/api.h"

namespace property_test {

namespace {

using json = nlohmann::json;

constexpr int kMaxCases = 250;  // generated cases per property
constexpr double kRel = 1e-12;

// kMaxCases, or fewer where OPTIMUS_PROPERTY_CASES (1 to kMaxCases) says so. The sanitize test
// preset (CMakePresets.json) sets 60: under ASan + UBSan the twelve properties' 250 cases took 80
// of the suite's 210 CPU seconds (2026-11-28). That run checks each property on the first 60
// scenarios of the same seeded sequence, under the sanitizers; the native run checks all 250.
int cases() {
  static const int n = [] {
    const char* v = std::getenv("OPTIMUS_PROPERTY_CASES");
    const int k = v == nullptr ? kMaxCases : std::atoi(v);
    return k >= 1 && k <= kMaxCases ? k : kMaxCases;
  }();
  return n;
}

// Deterministic on every standard library: only raw mt19937_64 output is used (the standard
// fixes its sequence; the distributions are implementation-defined).
class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  std::int64_t in(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  template <class T>
  const T& of(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(in(0, static_cast<std::int64_t>(v.size()) - 1))];
  }
  bool coin() { return in(0, 1) == 1; }

 private:
  std::mt19937_64 rng_;
};

std::vector<std::string> preset_ids(const char* kind) {
  std::vector<std::string> ids;
  const json all = json::parse(optimus::api::presets(kind));
  for (const auto& p : all[kind]) ids.push_back(p["id"].get<std::string>());
  return ids;
}

// Dense preset models as inline objects (the generator needs their sizes).
const std::vector<json>& preset_models() {
  static const std::vector<json> models = [] {
    std::vector<json> out;
    for (const auto& id : preset_ids("models")) {
      json m = json::parse(optimus::api::preset("models", id));
      if (!m.contains("moe")) out.push_back(m);
    }
    return out;
  }();
  return models;
}

json random_model(Gen& g) {
  const std::int64_t heads = g.of<std::int64_t>({1, 2, 4, 8, 12, 16, 32, 64});
  std::vector<std::int64_t> kv;
  for (std::int64_t k = 1; k <= heads; ++k)
    if (heads % k == 0) kv.push_back(k);
  const std::int64_t head_dim = g.of<std::int64_t>({32, 64, 80, 128});
  const std::int64_t hidden = heads * head_dim;
  return {{"layers", g.in(1, 48)},
          {"hidden", hidden},
          {"heads", heads},
          {"kv_heads", g.of(kv)},
          {"ffn_hidden", hidden * g.in(2, 4) + (g.coin() ? 0 : 8 * g.in(1, 64))},
          {"vocab", g.of<std::int64_t>({1000, 32000, 50257, 128256})},
          {"ffn_type", g.of<std::string>({"gelu", "swiglu", "relu2"})},
          {"norm", g.of<std::string>({"layernorm", "rmsnorm"})},
          {"block", g.of<std::string>({"sequential", "parallel"})},
          {"tied_embeddings", g.coin()}};
}

json some_model(Gen& g) { return g.coin() ? g.of(preset_models()) : random_model(g); }

std::int64_t num(const json& m, const char* k) { return m[k].get<std::int64_t>(); }

bool tp_fits(const json& m, std::int64_t tp) {
  const std::int64_t kv = m.contains("kv_heads") ? num(m, "kv_heads") : num(m, "heads");
  return num(m, "heads") % tp == 0 && num(m, "ffn_hidden") % tp == 0 && (kv % tp == 0 || tp % kv == 0);
}

std::int64_t some_tp(Gen& g, const json& m) {
  std::vector<std::int64_t> tps;
  for (std::int64_t t : {1, 2, 4, 8})
    if (tp_fits(m, t)) tps.push_back(t);
  return g.of(tps);
}

std::int64_t some_pp(Gen& g, const json& m) {
  std::vector<std::int64_t> pps;
  for (std::int64_t p = 1; p <= std::min<std::int64_t>(16, num(m, "layers")); ++p)
    if (num(m, "layers") % p == 0) pps.push_back(p);
  return g.of(pps);
}

json layout_devices(json s) {
  const json& p = s["parallel"];
  s["num_devices"] = num(p, "tp") * num(p, "pp") * num(p, "dp") * num(p, "cp");
  return s;
}

// A training scenario with a valid layout (the caller checks validity through the engine).
json training_case(Gen& g) {
  const json m = some_model(g);
  const std::int64_t tp = some_tp(g, m), pp = some_pp(g, m);
  const std::int64_t cp = g.of<std::int64_t>({1, 1, 1, 2}), dp = g.of<std::int64_t>({1, 2, 4, 8});
  const std::int64_t mb = g.of<std::int64_t>({1, 2, 4});
  const std::int64_t v = pp > 1 && num(m, "layers") % (2 * pp) == 0 && g.coin() ? 2 : 1;
  const std::int64_t per_step = g.in(1, 16) * (v > 1 ? pp : 1);
  json s = {{"model", m},
            {"system", g.of(preset_ids("systems"))},
            {"parallel",
             {{"tp", tp},
              {"pp", pp},
              {"dp", dp},
              {"cp", cp},
              {"micro_batch", mb},
              {"interleave", v},
              {"sequence_parallel", tp > 1 && g.coin()},
              {"recompute", g.of<std::string>({"none", "selective", "full"})},
              {"zero_stage", g.in(0, 3)}}},
            {"training",
             {{"global_batch", dp * mb * per_step},
              {"seq_len", g.of<std::int64_t>({256, 512, 1024, 2048, 4096})},
              {"precision", g.of<std::string>({"bf16", "bf16", "fp16", "fp8", "fp32"})},
              {"attention", g.of<std::string>({"flash", "standard"})}}}};
  return layout_devices(s);
}

json inference_case(Gen& g) {
  const json m = some_model(g);
  json s = {{"model", m},
            {"system", g.of(preset_ids("systems"))},
            {"parallel", {{"tp", some_tp(g, m)}, {"pp", some_pp(g, m)}, {"dp", 1}, {"cp", 1}}},
            {"inference",
             {{"batch", g.in(1, 64)},
              {"prompt_len", g.in(1, 4096)},
              {"output_len", g.in(1, 512)},
              {"precision", g.of<std::string>({"fp16", "bf16", "fp8", "int8", "int4"})},
              {"kv_precision", g.of<std::string>({"fp16", "fp8", "int8"})}}}};
  return layout_devices(s);
}

json run(const json& s) { return json::parse(optimus::api::predict(s.dump())); }

double at(const json& out, const char* pointer) { return out[json::json_pointer(pointer)].get<double>(); }

// Runs `check` on cases() valid scenarios from `make`; the generator must reach enough valid ones
// for the property to mean something, and a property stops after three counterexamples.
template <class Make, class Check>
void for_cases(std::uint64_t seed, Make make, Check check, int want = cases()) {
  Gen g(seed);
  int valid = 0, tried = 0;
  while (valid < want && tried < 4 * want) {
    ++tried;
    const json s = make(g);
    const json out = run(s);
    if (out.contains("error")) continue;
    ++valid;
    check(g, s, out);
    if (::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count() >= 3) return;
  }
  EXPECT_EQ(valid, want) << "the generator reached only " << valid << " valid scenarios in " << tried;
  ::testing::Test::RecordProperty("cases", valid);
}

// Every number finite and non-negative: no negative time, byte count or rate anywhere.
void expect_non_negative(const json& j, const std::string& where, const json& s) {
  if (j.is_number()) {
    ASSERT_TRUE(std::isfinite(j.get<double>()) && j.get<double>() >= 0) << where << " = " << j << " in " << s;
  } else if (j.is_structured()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      expect_non_negative(it.value(), where + "/" + (j.is_object() ? it.key() : std::string("*")), s);
  } else {
    ASSERT_FALSE(j.is_null()) << where << " is null (NaN) in " << s;
  }
}

TEST(Property, NoNegativeOrNonFiniteNumber) {
  for_cases(1, training_case, [](Gen&, const json& s, const json& out) { expect_non_negative(out, "", s); });
  for_cases(2, inference_case, [](Gen&, const json& s, const json& out) { expect_non_negative(out, "", s); });
}

TEST(Property, BreakdownSumsToTotal) {
  for_cases(3, training_case, [](Gen&, const json& s, const json& out) {
    const json& t = out["training"];
    double sum = 0, bound = 0;
    for (const auto& [k, v] : t["breakdown_s"].items()) sum += v.get<double>();
    for (const auto& [k, v] : t["by_bound_s"].items()) bound += v.get<double>();
    const double total = t["iteration_time_s"];
    EXPECT_NEAR(sum / total, 1.0, 1e-9) << s;
    EXPECT_NEAR(bound / total, 1.0, 1e-9) << s;
    double mem = 0;
    for (const auto& [k, v] : out["memory"]["per_device_bytes"].items())
      if (k != "total") mem += v.get<double>();
    EXPECT_NEAR(mem / at(out, "/memory/per_device_bytes/total"), 1.0, 1e-12) << s;
    EXPECT_NEAR(at(out, "/training/tokens_per_s") * total,
                at(s, "/training/global_batch") * at(s, "/training/seq_len"),
                1e-6 * at(out, "/training/tokens_per_s") * total)
        << s;
  });
  for_cases(4, inference_case, [](Gen&, const json& s, const json& out) {
    const double ttft = at(out, "/inference/ttft_s"), tpot = at(out, "/inference/tpot_s");
    const double e2e = at(out, "/inference/e2e_latency_s");
    const double n = at(s, "/inference/output_len");
    EXPECT_NEAR(e2e / (ttft + (n - 1) * tpot), 1.0, 1e-12) << s;
    EXPECT_NEAR(at(out, "/inference/throughput_tokens_per_s") * e2e / (at(s, "/inference/batch") * n), 1.0,
                1e-12)
        << s;
  });
}

// A larger global batch (one more micro-batch per replica, or twice the batch) never makes an
// iteration shorter.
TEST(Property, IterationTimeNeverDecreasesWithGlobalBatch) {
  for_cases(5, training_case, [](Gen& g, const json& s, const json& out) {
    const json& p = s["parallel"];
    const std::int64_t step =
        num(p, "dp") * num(p, "micro_batch") * (num(p, "interleave") > 1 ? num(p, "pp") : 1);
    json more = s;
    more["training"]["global_batch"] =
        g.coin() ? num(s["training"], "global_batch") + step : 2 * num(s["training"], "global_batch");
    const json o2 = run(more);
    ASSERT_FALSE(o2.contains("error")) << more << o2;
    EXPECT_GE(at(o2, "/training/iteration_time_s"), at(out, "/training/iteration_time_s") * (1 - kRel))
        << "before: " << s << "\nafter: " << more;
  });
}

// none -> selective -> full recomputation never adds memory on the most loaded device.
TEST(Property, RecomputeNeverIncreasesMemory) {
  for_cases(6, training_case, [](Gen&, const json& s, const json&) {
    double prev = INFINITY;
    json prev_s;
    for (const char* rc : {"none", "selective", "full"}) {
      json x = s;
      x["parallel"]["recompute"] = rc;
      const json o = run(x);
      ASSERT_FALSE(o.contains("error")) << x << o;
      const double total = at(o, "/memory/per_device_bytes/total");
      EXPECT_LE(total, prev * (1 + kRel)) << "before: " << prev_s << "\nafter: " << x;
      prev = total;
      prev_s = x;
    }
  });
}

// Selective recompute of any set of modules (Megatron-Core recompute_modules) never adds memory
// against no recomputation and never makes an iteration faster; more modules never add memory.
TEST(Property, RecomputeModulesNeverAddMemoryOrSaveTime) {
  const std::vector<std::vector<std::string>> sets = {
      {"layernorm"},
      {"moe_act"},
      {"mla_up_proj"},
      {"mlp"},
      {"moe"},
      {"shared_experts"},
      {"core_attn", "mlp"},
      {"core_attn", "layernorm", "moe_act", "mla_up_proj", "mlp", "moe", "shared_experts"}};
  for_cases(16, training_case, [&](Gen& g, const json& s, const json&) {
    json none = s;
    none["parallel"]["recompute"] = "none";
    const json o0 = run(none);
    ASSERT_FALSE(o0.contains("error")) << none << o0;
    const auto& mods = sets[static_cast<std::size_t>(g.in(0, static_cast<std::int64_t>(sets.size()) - 1))];
    json x = none;
    x["parallel"]["recompute"] = "selective";
    x["parallel"]["recompute_modules"] = mods;
    const json o = run(x);
    ASSERT_FALSE(o.contains("error")) << x << o;
    EXPECT_LE(at(o, "/memory/per_device_bytes/total"), at(o0, "/memory/per_device_bytes/total") * (1 + kRel))
        << x;
    EXPECT_GE(at(o, "/training/iteration_time_s"), at(o0, "/training/iteration_time_s") * (1 - kRel)) << x;
    json all = x;
    all["parallel"]["recompute_modules"] = sets.back();
    const json oa = run(all);
    ASSERT_FALSE(oa.contains("error")) << all << oa;
    EXPECT_LE(at(oa, "/memory/per_device_bytes/total"), at(o, "/memory/per_device_bytes/total") * (1 + kRel))
        << all;
  });
}

// With sequence parallelism, doubling the tensor-parallel ranks (pp, dp, cp fixed) never adds
// activation memory per device.
TEST(Property, ActivationsNeverIncreaseWithTensorParallelUnderSp) {
  for_cases(7, training_case, [](Gen&, const json& s, const json& out) {
    const std::int64_t tp = num(s["parallel"], "tp");
    if (!tp_fits(s["model"], 2 * tp)) return;
    json x = s;
    x["parallel"]["tp"] = 2 * tp;
    x["parallel"]["sequence_parallel"] = true;
    x = layout_devices(x);
    json base = s;
    base["parallel"]["sequence_parallel"] = tp > 1;
    const json o1 = run(base), o2 = run(x);
    if (o2.contains("error")) return;  // e.g. seq_len not divisible by the larger tp
    ASSERT_FALSE(o1.contains("error")) << base << o1;
    EXPECT_LE(at(o2, "/memory/per_device_bytes/activations"),
              at(o1, "/memory/per_device_bytes/activations") * (1 + kRel))
        << "before: " << base << "\nafter: " << x;
    (void)out;
  });
}

// The KV cache is proportional to the context (prompt + output) and to the batch; decode and
// prefill never get faster with a longer prompt.
TEST(Property, KvCacheLinearInContext) {
  for_cases(8, inference_case, [](Gen& g, const json& s, const json& out) {
    json x = s;
    x["inference"]["prompt_len"] = num(s["inference"], "prompt_len") + g.in(1, 4096);
    x["inference"]["output_len"] = num(s["inference"], "output_len") + g.in(0, 512);
    const json o2 = run(x);
    ASSERT_FALSE(o2.contains("error")) << x << o2;
    const double c1 = at(s, "/inference/prompt_len") + at(s, "/inference/output_len");
    const double c2 = at(x, "/inference/prompt_len") + at(x, "/inference/output_len");
    const double kv1 = at(out, "/inference/memory/per_device_bytes/kv_cache");
    const double kv2 = at(o2, "/inference/memory/per_device_bytes/kv_cache");
    ASSERT_GT(kv1, 0) << s;
    // A sliding-window model's windowed layers keep at most `window` positions (Mistral 7B
    // v0.1, gpt-oss), a linear-attention hybrid's linear layers a state whatever the context
    // (Qwen3-Next, Nemotron-H): its cache grows no faster than the context, and does grow.
    const json model = json::parse(optimus::api::validate(s.dump()))["scenario"]["model"];
    const bool local = model.contains("attention") && (model["attention"].value("window", 0) > 0 ||
                                                       model["attention"].contains("linear_heads"));
    if (local) {
      EXPECT_GE(kv2, kv1) << s;
      EXPECT_LE((kv2 / kv1) / (c2 / c1), 1.0 + 1e-12) << "before: " << s << "\nafter: " << x;
    } else {
      EXPECT_NEAR((kv2 / kv1) / (c2 / c1), 1.0, 1e-12) << "before: " << s << "\nafter: " << x;
    }
    EXPECT_GE(at(o2, "/inference/ttft_s"), at(out, "/inference/ttft_s") * (1 - kRel)) << s << "\n" << x;
    EXPECT_GE(at(o2, "/inference/tpot_s"), at(out, "/inference/tpot_s") * (1 - kRel)) << s << "\n" << x;
    json b = s;
    b["inference"]["batch"] = 2 * num(s["inference"], "batch");
    const json o3 = run(b);
    ASSERT_FALSE(o3.contains("error")) << b << o3;
    EXPECT_NEAR(at(o3, "/inference/memory/per_device_bytes/kv_cache") / kv1, 2.0, 1e-12) << b;
  });
}

// The scenario with its system inline (validate resolves presets), every bandwidth or every
// peak rate multiplied by `k`.
json scaled_system(const json& s, double k, bool bandwidths) {
  json r = json::parse(optimus::api::validate(s.dump()))["scenario"];
  json& sys = r["system"];
  if (bandwidths) {
    sys["device"]["memory"]["bandwidth_GBps"] = k * sys["device"]["memory"]["bandwidth_GBps"].get<double>();
    sys["device"]["l2"]["bandwidth_GBps"] = k * sys["device"]["l2"]["bandwidth_GBps"].get<double>();
    for (const char* tier : {"scale_up", "scale_out"}) {
      json& t = sys[tier];
      t["bandwidth_GBps"] = k * t["bandwidth_GBps"].get<double>();
      if (t.contains("allreduce_busbw_GBps"))
        for (auto& row : t["allreduce_busbw_GBps"]) row[1] = k * row[1].get<double>();
    }
  } else {
    for (auto& [p, v] : sys["device"]["peak_tflops"].items()) v = k * v.get<double>();
    if (sys["device"].contains("vector_tflops"))
      sys["device"]["vector_tflops"] = k * sys["device"]["vector_tflops"].get<double>();
    if (sys["device"].contains("exp_tops"))
      sys["device"]["exp_tops"] = k * sys["device"]["exp_tops"].get<double>();
  }
  return r;
}

void expect_not_slower(const json& s, const json& faster) {
  const json o1 = run(s), o2 = run(faster);
  ASSERT_FALSE(o2.contains("error")) << faster << o2;
  for (const char* m :
       {"/training/iteration_time_s", "/inference/ttft_s", "/inference/tpot_s", "/inference/e2e_latency_s"}) {
    const json::json_pointer p(m);
    if (!o1.contains(p)) continue;
    EXPECT_LE(o2[p].get<double>(), o1[p].get<double>() * (1 + kRel))
        << m << "\nbefore: " << s << "\nafter: " << faster;
  }
}

TEST(Property, DoublingEveryBandwidthNeverSlowsDown) {
  for_cases(9, training_case,
            [](Gen&, const json& s, const json&) { expect_not_slower(s, scaled_system(s, 2.0, true)); });
  for_cases(10, inference_case,
            [](Gen&, const json& s, const json&) { expect_not_slower(s, scaled_system(s, 2.0, true)); });
}

TEST(Property, DoublingEveryPeakRateNeverSlowsDown) {
  for_cases(11, training_case,
            [](Gen&, const json& s, const json&) { expect_not_slower(s, scaled_system(s, 2.0, false)); });
  for_cases(12, inference_case,
            [](Gen&, const json& s, const json&) { expect_not_slower(s, scaled_system(s, 2.0, false)); });
}

// An RL job written as published runs are (docs/rl.md, At scale): preset models up to a 30B MoE,
// the rollout's tp and the trainer's layout left to the engine, colocated or split (on-policy or
// one step off), lengths as limits or with a stated mean. One job in 5 of cases(): a job is one
// serving simulation per rollout tp tried and the trainer's search.
int rl_cases() { return std::max(1, cases() / 5); }

json rl_case(Gen& g) {
  const std::int64_t n = g.of<std::int64_t>({8, 16});
  const std::int64_t limit = g.of<std::int64_t>({1024, 2048, 4096});
  json rl = {{"prompts_per_step", g.of<std::int64_t>({16, 32, 64})},
             {"samples_per_prompt", g.of<std::int64_t>({4, 8})},
             {"prompt_len", g.of<std::int64_t>({256, 1024})},
             {"response_len", g.coin() ? json(limit) : json{{"mean", limit / 4}, {"max", limit}}},
             {"mini_batches", g.of<std::int64_t>({1, 2})}};
  if (g.coin()) rl["train"] = "auto";
  if (g.coin()) {
    rl["placement"] = "split";
    rl["rollout_devices"] = rl["train_devices"] = n / 2;
    if (g.coin()) rl["async"] = {{"staleness", 1}};
  }
  return {{"model", g.of<std::string>({"qwen2.5-7b", "llama3.1-8b", "qwen3-8b", "qwen3-30b-a3b"})},
          {"system", g.of<std::string>({"dgx-h100", "hgx-h800", "dgx-b200", "gb200-nvl72"})},
          {"num_devices", n},
          {"rl", rl}};
}

double step_of(const json& s) {
  const json o = run(s);
  EXPECT_FALSE(o.contains("error")) << s << o;
  return o.contains("rl") ? o["rl"]["step_time_s"].get<double>() : 0.0;
}

// Faster devices never lengthen an RL step (the rollout tp and a searched trainer chosen again on
// them), and more work never shortens one: twice the prompts, twice the responses' lengths.
TEST(Property, RlStepNeverLengthensOnFasterDevicesNorShortensWithMoreWork) {
  for_cases(
      13, rl_case,
      [](Gen&, const json& s, const json& out) {
        const double step = out["rl"]["step_time_s"].get<double>();
        for (bool bandwidths : {true, false})
          EXPECT_LE(step_of(scaled_system(s, 2.0, bandwidths)), step * (1 + 1e-9))
              << (bandwidths ? "bandwidths" : "peak rates") << " doubled: " << s;
        json more = s;
        more["rl"]["prompts_per_step"] = 2 * s["rl"]["prompts_per_step"].get<std::int64_t>();
        EXPECT_GE(step_of(more), step * (1 - 1e-9)) << "prompts doubled: " << s;
        json longer = s;
        json& r = longer["rl"]["response_len"];
        if (r.is_object()) {
          r = {{"mean", 2 * r["mean"].get<std::int64_t>()}, {"max", 2 * r["max"].get<std::int64_t>()}};
        } else {
          r = 2 * r.get<std::int64_t>();
        }
        EXPECT_GE(step_of(longer), step * (1 - 1e-9)) << "responses doubled: " << s;
      },
      rl_cases());
}

// An RL step is its phases composed as docs/rl.md "The step" says, whatever the job: colocated the
// sum (the swap included), split on-policy the same without a swap, split with staleness the slower
// pool plus the sync; the training side is the sum of its passes with roles "shared" and, with
// roles "separate", the slowest forward plus the slower update. No phase is negative or longer than
// the step, and memory.does_not_fit warns exactly where a pool does not fit. The jobs of rl_case,
// with PPO (its critic), separate roles, a reward model and no reference mixed in.
TEST(Property, RlStepComposesItsPhases) {
  for_cases(
      15,
      [](Gen& g) {
        json s = rl_case(g);
        json& rl = s["rl"];
        if (g.coin()) {
          rl["algorithm"] = "ppo";
          rl["samples_per_prompt"] = 1;
          if (g.coin()) rl["roles"] = "separate";
        }
        if (g.coin()) rl["reward_model"] = "llama3.2-1b";
        if (g.coin()) rl["reference"] = false;
        return s;
      },
      [](Gen&, const json& s, const json& out) {
        const json& r = out["rl"];
        const json& ph = r["phases_s"];
        const auto at = [&](const char* k) { return ph[k].get<double>(); };
        const double step = r["step_time_s"].get<double>();
        for (const auto& [k, v] : ph.items()) {
          EXPECT_GE(v.get<double>(), 0.0) << k << " " << s;
          EXPECT_LE(v.get<double>(), step * (1 + 1e-12)) << k << " " << s;
        }
        const json& rl = s["rl"];
        const double train_side =
            rl.value("roles", "shared") == "separate"
                ? std::max({at("reward"), at("reference"), at("old_logprob")}) + at("train")
                : at("reward") + at("reference") + at("old_logprob") + at("train");
        const bool split = rl.value("placement", "colocated") == "split";
        const bool stale = split && rl.contains("async") && rl["async"]["staleness"].get<int>() > 0;
        if (split) {
          EXPECT_EQ(at("swap"), 0.0) << s;
        }
        const double composed = stale ? std::max(at("rollout"), train_side) + at("weight_sync")
                                      : at("rollout") + train_side + at("weight_sync") + at("swap");
        EXPECT_NEAR(step, composed, 1e-9 * step) << s;
        const bool fits =
            r["memory"]["train"]["fits"].get<bool>() && r["memory"]["rollout"]["fits"].get<bool>();
        bool warned = false;
        for (const json& w : out["warnings"]) warned = warned || w["code"] == "memory.does_not_fit";
        EXPECT_EQ(warned, !fits) << s;
      });
}

// The RL placement search (colocated against every split, every rollout tp in the domain, the
// trainer searched per candidate) never ranks first a step slower than the job's own prediction
// with the same choices left to the engine: the job itself (colocated, the fastest tp, the fastest
// searched trainer) is among the search's candidates. One job in 25 of cases(): a search predicts
// 7-31 placements.
TEST(Property, RlSearchNeverRanksFirstASlowerStepThanTheJobItself) {
  for_cases(
      14,
      [](Gen& g) {
        json s = rl_case(g);
        s["rl"].erase("placement");
        s["rl"].erase("rollout_devices");
        s["rl"].erase("train_devices");
        s["rl"].erase("async");
        s["rl"]["train"] = "auto";
        return s;
      },
      [](Gen&, const json& s, const json& out) {
        const json found = json::parse(optimus::api::search(s.dump(), R"({"top": 1})"));
        ASSERT_FALSE(found.contains("error")) << s << found;
        ASSERT_FALSE(found["best"].empty()) << s;
        EXPECT_LE(found["best"][0]["step_time_s"].get<double>(),
                  out["rl"]["step_time_s"].get<double>() * (1 + 1e-9))
            << s;
      },
      std::max(1, cases() / 25));
}

// The case the random search found once (a sampling change put it in reach): ZeRO-3 with its
// weight gathers longer than the compute, and the tensor-parallel traffic overlapped with the
// GEMMs. Faster GEMMs expose more tensor-parallel traffic; the data-parallel traffic hides behind
// that time too, so the iteration must not lengthen (it did by 1.8% while the data-parallel
// exposure was measured against the kernels alone).
TEST(Property, FasterGemmsBesideZero3GathersNeverSlowDown) {
  const json s = {{"model", "llama3-8b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 64},
                  {"parallel", {{"tp", 8}, {"dp", 8}, {"micro_batch", 4}, {"zero_stage", 3}}},
                  {"training", {{"global_batch", 448}, {"seq_len", 256}, {"precision", "fp8"}}}};
  expect_not_slower(s, scaled_system(s, 2.0, false));
}

}  // namespace

}  // namespace property_test
