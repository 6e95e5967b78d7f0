// RL post-training (core/rl/): the issue's hand-computed properties of one step (a colocated
// synchronous step is the sum of its phases; a split step with staleness 1 is the slower pool plus
// the sync; doubling the samples doubles the rollout tokens; the longest response governs the
// synchronous rollout; the weight-sync bytes are the policy's weights at the engine's precision),
// the colocated swap, PPO's critic, the validate round trip, the placement search, and every bad
// input with its code and JSON path. Then the mechanisms of the published stacks: the trainer's
// models on GPUs of their own (roles "separate", OpenRLHF), partial rollouts (verl fully_async,
// AReaL), the trainer's state offloaded to host memory (verl param / optimizer offload), and the
// response-length prior that stops growing with the limit.
#include "rl/rl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "io/api.h"
#include "io/json_io.h"
#include "io/presets.h"

namespace rl_test {

namespace {

using json = nlohmann::json;

// Llama 3.1 8B on one 8 x H100 node, 32 prompts x 8 samples of exactly 256 + 512 tokens (weights
// lists of one length: a whole-number prompt_len or response_len is a limit with a long tail below it).
json base(const json& rl_overrides = json::object(), std::int64_t devices = 8) {
  json rl = {{"prompts_per_step", 32},
             {"samples_per_prompt", 8},
             {"prompt_len", json::array({{256, 1}})},
             {"response_len", json::array({{512, 1}})},
             {"rollout", {{"tp", 1}}},
             {"train", {{"zero_stage", 3}}},
             // No single-controller passes: each test checks its own mechanism's phases
             // (RlController checks the passes).
             {"controller_GBps", 0}};
  rl.merge_patch(rl_overrides);  // a null removes the key
  return {{"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"num_devices", devices}, {"rl", rl}};
}

json predict(const json& scenario) { return json::parse(optimus::api::predict(scenario.dump())); }

json rl_of(const json& scenario) {
  const json p = predict(scenario);
  EXPECT_FALSE(p.contains("error")) << p.dump();
  return p.contains("rl") ? p["rl"] : json::object();
}

double num(const json& v) { return v.get<double>(); }

// Whether a prediction carries the warning `code`.
bool warns(const json& p, const std::string& code) {
  for (const json& w : p.value("warnings", json::array()))
    if (w["code"] == code) return true;
  return false;
}

double phase_sum(const json& r) {
  double sum = 0;
  for (const auto& [k, v] : r["phases_s"].items()) sum += v.get<double>();
  return sum;
}

// A trainer that fits the capacity but leaves less than the runtime holds before any tensor (the
// CUDA context and NCCL's communicators, memory/footprint.h runtime_reserve: 1.92 GiB on more than
// one device) is warned about when its layout and token budget are stated, as predict warns a
// training footprint; an assumed budget is halved until it leaves that room, as a stack's
// out-of-memory guide would have it.
TEST(Rl, ATrainerWithLittleRoomIsWarnedOrGivenRoom) {
  const auto run = [](double spare_gib, bool stated) {
    json s = base();
    if (stated) {
      s["rl"]["train"]["micro_batch_tokens"] = 2 * (256 + 512);
      s["rl"]["train"]["offload"] = "none";
    }
    s["system"] = json::parse(optimus::api::validate(s.dump()))["scenario"]["system"];
    const double bytes = num(rl_of(s)["memory"]["train"]["per_device_bytes"]);
    s["system"]["device"]["memory"]["capacity_GiB"] = bytes / (1024.0 * 1024 * 1024) + spare_gib;
    const json p = predict(s);
    EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>()) << p.dump().substr(0, 300);
    return std::make_pair(warns(p, "memory.little_headroom"),
                          num(p["rl"]["memory"]["train"]["per_device_bytes"]) / bytes);
  };
  EXPECT_TRUE(run(1.0, true).first);
  EXPECT_DOUBLE_EQ(run(1.0, true).second, 1.0);
  EXPECT_FALSE(run(2.5, true).first);
  const auto assumed = run(1.0, false);
  EXPECT_FALSE(assumed.first);
  EXPECT_LT(assumed.second, 1.0);  // a smaller pack
}

// A reward model or critic whose shape the trainer's layout does not take is named at its own
// key (a probe found tp 4, which divides the policy's 28 heads, blamed on /rl/train for a reward
// model of 14 heads); a layout the policy itself refuses stays the trainer's.
TEST(Rl, AModelTheTrainersLayoutDoesNotTakeIsNamedAtItsKey) {
  const json small = {{"layers", 4},        {"hidden", 1400},  {"heads", 14},       {"kv_heads", 2},
                      {"ffn_hidden", 4096}, {"vocab", 152064}, {"norm", "rmsnorm"}, {"ffn_type", "swiglu"}};
  json reward = base({{"train", {{"tp", 4}}}, {"reward_model", small}});
  json critic = base({{"train", {{"tp", 4}}}, {"algorithm", "ppo"}, {"critic", small}});
  const json r = predict(reward), c = predict(critic);
  EXPECT_EQ(r["error"]["code"], "rl.reward_model_invalid") << r.dump().substr(0, 300);
  EXPECT_EQ(r["error"]["path"], "/rl/reward_model");
  EXPECT_EQ(c["error"]["code"], "rl.critic_invalid") << c.dump().substr(0, 300);
  EXPECT_EQ(c["error"]["path"], "/rl/critic");
  const json policy = predict(base({{"train", {{"tp", 3}}}, {"reward_model", small}}));
  EXPECT_EQ(policy["error"]["path"], "/rl/train") << policy.dump().substr(0, 300);
}

// A rollout that fits no tp for want of memory says so (rl.rollout_does_not_fit), not that a wider
// tp does not divide the heads (a probe's gpu_memory_utilization 0.01 on Qwen2.5-7B, 28 heads, was
// told tp 8 does not divide them).
TEST(Rl, ARolloutWithoutMemoryAtAnyTpSaysMemory) {
  json s = base({{"rollout", {{"tp", nullptr}, {"gpu_memory_utilization", 0.01}}}});
  s["model"] = "qwen2.5-7b";
  const json p = predict(s);
  EXPECT_EQ(p["error"]["code"], "rl.rollout_does_not_fit") << p.dump().substr(0, 400);
  EXPECT_EQ(p["error"]["message"].get<std::string>().find("does not divide"), std::string::npos);
}

// {"mean", "max"} with the mean at the limit: every response that long, the same step as the list of
// one length (where a whole number would be read as a limit with a tail below it); a mean at the
// shortest likewise; a mean past either end is refused at the mean.
TEST(Rl, AMeanAtTheLimitIsEveryResponseThatLong) {
  const json exact = rl_of(base());
  const json at_max = rl_of(base({{"response_len", {{"mean", 512}, {"max", 512}}}}));
  const json at_min = rl_of(base({{"response_len", {{"mean", 512}, {"max", 4096}, {"min", 512}}}}));
  for (const json& r : {at_max, at_min}) {
    ASSERT_TRUE(r.contains("step_time_s"));
    EXPECT_DOUBLE_EQ(num(r["step_time_s"]), num(exact["step_time_s"]));
    EXPECT_DOUBLE_EQ(num(r["phases_s"]["rollout"]), num(exact["phases_s"]["rollout"]));
  }
  EXPECT_LT(num(rl_of(base({{"response_len", {{"mean", 511}, {"max", 512}}}}))["phases_s"]["rollout"]),
            num(exact["phases_s"]["rollout"]) * 1.001);
  const json above = predict(base({{"response_len", {{"mean", 513}, {"max", 512}}}}));
  EXPECT_EQ(above["error"]["code"], "serving.length_mean_out_of_range") << above.dump();
  EXPECT_EQ(above["error"]["path"], "/rl/response_len/mean");
  EXPECT_EQ(above["error"]["message"],
            "'response_len' needs min <= mean <= max (got min 1, mean 513, max 512)");
}

TEST(Rl, ColocatedSynchronousStepIsTheSumOfItsPhases) {
  const json r = rl_of(base({{"reference", true}}));
  ASSERT_TRUE(r.contains("step_time_s"));
  EXPECT_NEAR(r["step_time_s"].get<double>(), phase_sum(r), 1e-9 * phase_sum(r));
  for (const char* k : {"rollout", "reference", "old_logprob", "train", "weight_sync", "swap"})
    EXPECT_GT(r["phases_s"][k].get<double>(), 0) << k;
  EXPECT_EQ(r["phases_s"]["reward"].get<double>(), 0);  // rule-based reward
  EXPECT_EQ(r["idle_s"]["rollout"].get<double>(), 0);
  EXPECT_EQ(r["idle_s"]["train"].get<double>(), 0);
  EXPECT_TRUE(predict(base())["warnings"].empty());
  EXPECT_TRUE(predict(base({{"response_len", {{"mean", 400}, {"max", 2048}}}}))["warnings"].empty());
}

// A whole-number response_len is the longest response (max_response_length): the step is
// predicted as with {"mean": a quarter of it, "max": it} with the step's longest response cut at
// the limit, and the assumption is said.
TEST(Rl, WholeNumberResponseLenIsTheLimitOfALongTail) {
  const json p = predict(base({{"response_len", 2048}}));
  ASSERT_EQ(p["warnings"].size(), 1u) << p["warnings"].dump();
  EXPECT_EQ(p["warnings"][0]["code"], "rl.response_len_assumed");
  EXPECT_NE(p["warnings"][0]["message"].get<std::string>().find("512 tokens"), std::string::npos);
  const json limit = p["rl"];
  const json tail = rl_of(base({{"response_len", {{"mean", 512}, {"max", 2048}}}}));
  // The same draws (same seed and distribution) but the longest, which is now 2,048 tokens: the
  // step's tokens grow by 2,048 less the stated form's longest draw, which is under 2,048.
  const double extra = num(limit["tokens_per_step"]) - num(tail["tokens_per_step"]);
  EXPECT_GE(extra, 0);
  EXPECT_LT(extra, 2048);
  EXPECT_GE(num(limit["rollout"]["longest_response_s"]), num(tail["rollout"]["longest_response_s"]));
  // A third of the tokens of every response at the limit ((256 + 512) / (256 + 2048)); the update
  // costs more than a third (the long tail's sequences are longer than the mean, E[L^2] / E[L]).
  const json fixed = rl_of(base({{"response_len", json::array({{2048, 1}})}}));
  EXPECT_LT(limit["phases_s"]["train"].get<double>(), 0.75 * fixed["phases_s"]["train"].get<double>());
  EXPECT_GT(limit["rollout"]["longest_response_s"].get<double>(), 0);
}

// A whole-number prompt_len is the longest prompt (max_prompt_length): predicted as with
// {"mean": a fifth of it, "max": it} (verl's GSM8K example: 104.9 of 512), the assumption said.
TEST(Rl, WholeNumberPromptLenIsTheLimitOfALongTail) {
  const json p = predict(base({{"prompt_len", 1000}}));
  ASSERT_EQ(p["warnings"].size(), 1u) << p["warnings"].dump();
  EXPECT_EQ(p["warnings"][0]["code"], "rl.prompt_len_assumed");
  EXPECT_NE(p["warnings"][0]["message"].get<std::string>().find("200 tokens"), std::string::npos);
  const json limit = p["rl"];
  const json tail = rl_of(base({{"prompt_len", {{"mean", 200}, {"max", 1000}}}}));
  EXPECT_EQ(limit["step_time_s"], tail["step_time_s"]);
  EXPECT_EQ(limit["phases_s"], tail["phases_s"]);
  EXPECT_EQ(limit["tokens_per_step"], tail["tokens_per_step"]);
  // The prompts prefilled and trained are about 256 x 200 tokens, not 256 x 1000: the step's
  // tokens are 256 x (200 + 512) = 182,272 (the simulator draws the prompts: within 3%).
  EXPECT_NEAR(limit["tokens_per_step"].get<double>(), 256.0 * (200 + 512), 0.03 * 256 * (200 + 512));
  const json fixed = rl_of(base({{"prompt_len", json::array({{1000, 1}})}}));
  EXPECT_NEAR(fixed["tokens_per_step"].get<double>(), 256.0 * (1000 + 512), 1e-6 * 256 * 1512);
  EXPECT_LT(limit["phases_s"]["train"].get<double>(), fixed["phases_s"]["train"].get<double>());
  // A stated mean is used as given, with no warning.
  const json stated = predict(base({{"prompt_len", {{"mean", 150}, {"max", 1000}}}}));
  EXPECT_TRUE(stated["warnings"].empty()) << stated["warnings"].dump();
  EXPECT_NEAR(stated["rl"]["tokens_per_step"].get<double>(), 256.0 * (150 + 512), 0.03 * 256 * (150 + 512));
  // The limit itself still bounds the longest prompt + response against the context.
  const json over = predict(base({{"prompt_len", 131000}, {"response_len", 2048}}));
  EXPECT_EQ(over["error"]["code"], "rl.response_exceeds_context") << over.dump();
  // Both lengths given as limits: both assumptions said.
  const json both = predict(base({{"prompt_len", 1000}, {"response_len", 2048}}));
  ASSERT_EQ(both["warnings"].size(), 2u) << both["warnings"].dump();
  EXPECT_EQ(both["warnings"][0]["code"], "rl.response_len_assumed");
  EXPECT_EQ(both["warnings"][1]["code"], "rl.prompt_len_assumed");
}

TEST(Rl, SplitWithStalenessOneIsTheSlowerPoolPlusSync) {
  const json r = rl_of(base(
      {{"placement", "split"}, {"rollout_devices", 4}, {"train_devices", 4}, {"async", {{"staleness", 1}}}}));
  const json& ph = r["phases_s"];
  const double train_side = ph["reward"].get<double>() + ph["reference"].get<double>() +
                            ph["old_logprob"].get<double>() + ph["train"].get<double>();
  const double rollout = ph["rollout"].get<double>();
  const double expected = std::max(rollout, train_side) + ph["weight_sync"].get<double>();
  EXPECT_NEAR(r["step_time_s"].get<double>(), expected, 1e-9 * expected);
  EXPECT_EQ(ph["swap"].get<double>(), 0);  // nothing time-shares a device
  // The faster pool waits for the slower.
  EXPECT_NEAR(r["idle_s"]["rollout"].get<double>() + r["idle_s"]["train"].get<double>(),
              std::fabs(rollout - train_side), 1e-9 * expected);
  // On-policy (staleness 0) the pools wait on each other: the phases add up.
  const json sync = rl_of(base({{"placement", "split"}, {"rollout_devices", 4}, {"train_devices", 4}}));
  EXPECT_NEAR(sync["step_time_s"].get<double>(), phase_sum(sync), 1e-9 * phase_sum(sync));
  EXPECT_GT(sync["step_time_s"].get<double>(), r["step_time_s"].get<double>());
}

TEST(Rl, DoublingTheSamplesDoublesTheRolloutTokens) {
  const json a = rl_of(base());
  const json b = rl_of(base({{"samples_per_prompt", 16}}));
  EXPECT_EQ(a["rollout"]["responses"].get<double>(), 256);
  EXPECT_EQ(b["rollout"]["responses"].get<double>(), 512);
  EXPECT_NEAR(b["rollout"]["output_tokens"].get<double>(), 2 * a["rollout"]["output_tokens"].get<double>(),
              1e-6 * b["rollout"]["output_tokens"].get<double>());
  EXPECT_NEAR(a["rollout"]["output_tokens"].get<double>(), 256.0 * 512.0, 1e-6 * 256 * 512);
  EXPECT_NEAR(b["tokens_per_step"].get<double>(), 2 * a["tokens_per_step"].get<double>(),
              1e-6 * b["tokens_per_step"].get<double>());
}

TEST(Rl, TheLongestResponseGovernsTheSynchronousRollout) {
  // One response in 64 eight times longer: 11% more tokens, but the step waits for the long ones,
  // which decode on after the short ones have finished.
  const json a = rl_of(base({{"prompts_per_step", 80}}));
  const json b =
      rl_of(base({{"prompts_per_step", 80}, {"response_len", json::array({{512, 63}, {4096, 1}})}}));
  const double tokens_a = a["rollout"]["output_tokens"].get<double>(),
               tokens_b = b["rollout"]["output_tokens"].get<double>();
  EXPECT_LT(tokens_b, 1.25 * tokens_a);
  EXPECT_GT(b["phases_s"]["rollout"].get<double>(), 3 * a["phases_s"]["rollout"].get<double>());
  // The phase is the makespan (first prompt to last response), not the mean response time.
  EXPECT_EQ(b["phases_s"]["rollout"].get<double>(), b["rollout"]["longest_response_s"].get<double>());
  EXPECT_GT(b["rollout"]["longest_response_s"].get<double>(),
            2 * b["rollout"]["mean_response_s"].get<double>());
}

TEST(Rl, WeightSyncBytesAreThePolicyWeightsAtTheEnginePrecision) {
  const json p = predict(base());
  const double params = p["params"]["total"].get<double>();
  EXPECT_NEAR(p["rl"]["weight_sync"]["bytes"].get<double>(), 2 * params, 1e-9 * params);
  const json fp8 = rl_of(base({{"rollout", {{"tp", 1}, {"precision", "fp8"}}}}));
  EXPECT_NEAR(fp8["weight_sync"]["bytes"].get<double>(), params, 1e-9 * params);
  // Colocated on one node: the trainer gathers whole tensors from its shards (ZeRO-3 over 8 ranks:
  // 7/8 of the bytes received over NVLink) and hands them to the engine on the same devices, with
  // no broadcast; the engine copies them into its parameters (its weights per device, here all of
  // them at tp 1, read and written at the device's streaming rate): bytes x 7/8 / (bandwidth x
  // efficiency) + 2 x bytes / (HBM x memory efficiency) + latency.
  const json sys = json::parse(optimus::preset_json("systems", "dgx-h100"));
  const json dev = json::parse(optimus::preset_json("devices", "h100-sxm5-80gb"));
  const double bw =
      sys["scale_up"]["bandwidth_GBps"].get<double>() * 1e9 * sys["scale_up"]["efficiency"].get<double>();
  const double hbm = dev["memory"]["bandwidth_GBps"].get<double>() * 1e9 *
                     dev["calibration"]["memory_efficiency"].get<double>();
  const double latency = sys["scale_up"]["latency_us"].get<double>() * 1e-6;
  const double bytes = 2 * params;
  const double load = 2 * bytes / hbm;
  EXPECT_NEAR(p["rl"]["phases_s"]["weight_sync"].get<double>(), bytes * 7 / 8 / bw + load + latency, 1e-6);
  // Unsharded weights (ZeRO-1, tp 1: every rank holds them whole): nothing to gather or send, the
  // engine's copy only.
  const json whole = rl_of(base({{"train", {{"zero_stage", 1}}}}));
  EXPECT_NEAR(whole["phases_s"]["weight_sync"].get<double>(), load + latency, 1e-9);
  // Tensor parallelism 2 (ZeRO-1): half of each tensor gathered from the other rank.
  const json tp2 = rl_of(base({{"train", {{"zero_stage", 1}, {"tp", 2}}}}));
  EXPECT_NEAR(tp2["phases_s"]["weight_sync"].get<double>(), bytes / 2 / bw + load + latency, 1e-6);
  // Split 4 + 4 on the node: ZeRO-3 over the 4 trainer ranks (3/4 gathered), then every engine
  // rank receives every tensor over NVLink: bytes x 3/4 / bw + bytes / bw + latency.
  const json split = rl_of(base({{"placement", "split"}, {"rollout_devices", 4}, {"train_devices", 4}}));
  EXPECT_NEAR(split["phases_s"]["weight_sync"].get<double>(), bytes * 3 / 4 / bw + bytes / bw + latency,
              1e-6);
  const json split1 = rl_of(base({{"placement", "split"},
                                  {"rollout_devices", 4},
                                  {"train_devices", 4},
                                  {"train", {{"zero_stage", 1}}}}));
  EXPECT_NEAR(split1["phases_s"]["weight_sync"].get<double>(), bytes / bw + latency, 1e-6);
  // Through storage it is slower than NVLink.
  const json ck = rl_of(base({{"weight_sync", "checkpoint"}}));
  EXPECT_GT(ck["phases_s"]["weight_sync"].get<double>(), p["rl"]["phases_s"]["weight_sync"].get<double>());
}

// weight_sync "host" (MoonshotAI checkpoint-engine): the weights read bucket by bucket from host
// memory and broadcast, pipelined: bytes over the slower of one device's host link and the
// broadcast, plus the fabric's latency; no gather on the devices.
TEST(Rl, HostWeightSyncRunsAtTheSlowerOfTheHostLinkAndTheBroadcast) {
  const json sys = json::parse(optimus::preset_json("systems", "dgx-h100"));
  const double host = sys["host_link_GBps"].get<double>() * 1e9;
  const double nvlink =
      sys["scale_up"]["bandwidth_GBps"].get<double>() * 1e9 * sys["scale_up"]["efficiency"].get<double>();
  const double nic =
      sys["scale_out"]["bandwidth_GBps"].get<double>() * 1e9 * sys["scale_out"]["efficiency"].get<double>();
  ASSERT_LT(host, nvlink);
  // One node: the host link (63 GB/s) is slower than NVLink.
  const json one = rl_of(base({{"weight_sync", "host"}}));
  const double bytes = one["weight_sync"]["bytes"].get<double>();
  EXPECT_EQ(one["weight_sync"]["method"], "host");
  EXPECT_NEAR(num(one["phases_s"]["weight_sync"]),
              bytes / host + sys["scale_up"]["latency_us"].get<double>() * 1e-6, 1e-9);
  // The same whatever the trainer's sharding: its shards are already in host memory.
  const json tp2 = rl_of(base({{"weight_sync", "host"}, {"train", {{"zero_stage", 1}, {"tp", 2}}}}));
  EXPECT_EQ(num(tp2["phases_s"]["weight_sync"]), num(one["phases_s"]["weight_sync"]));
  // Two nodes: the broadcast leaves a node over its 8 NICs (rail rings), still faster than one
  // host link, so the host link sets the time again, at the scale-out latency.
  ASSERT_LT(host, 8 * nic);
  const json two = rl_of(base({{"weight_sync", "host"}}, 16));
  EXPECT_NEAR(num(two["phases_s"]["weight_sync"]),
              bytes / host + sys["scale_out"]["latency_us"].get<double>() * 1e-6, 1e-9);
  // A host link faster than the broadcast: the broadcast sets it, the node's 8 NICs capped by
  // NVLink out of the source.
  json fast = base({{"weight_sync", "host"}}, 16);
  fast["system"] = sys;
  fast["system"]["host_link_GBps"] = 1000;
  EXPECT_NEAR(num(rl_of(fast)["phases_s"]["weight_sync"]),
              bytes / std::min(8 * nic, nvlink) + sys["scale_out"]["latency_us"].get<double>() * 1e-6, 1e-9);
  json thin = fast;
  thin["system"]["scale_out"]["bandwidth_GBps"] = 12.5;  // 100 Gb/s NICs: 8 of them under NVLink
  const double thin_nic = 12.5e9 * sys["scale_out"]["efficiency"].get<double>();
  ASSERT_LT(8 * thin_nic, nvlink);
  EXPECT_NEAR(num(rl_of(thin)["phases_s"]["weight_sync"]),
              bytes / (8 * thin_nic) + sys["scale_out"]["latency_us"].get<double>() * 1e-6, 1e-9);
  // No host link: refused, at the key.
  json none = base({{"weight_sync", "host"}});
  none["system"] = sys;
  none["system"].erase("host_link_GBps");
  const json e = predict(none);
  EXPECT_EQ(e["error"]["code"], "rl.host_sync_needs_host_link") << e.dump().substr(0, 300);
  EXPECT_EQ(e["error"]["path"], "/rl/weight_sync");
}

TEST(Rl, ColocatedSwapMovesTheEngineWeightsBothWaysOverTheHostLink) {
  // Half of each device for the engine: the trainer's ZeRO-3 state (18 bytes x 8B / 8) stays beside it.
  const json p = predict(base({{"rollout", {{"tp", 1}, {"gpu_memory_utilization", 0.5}}}}));
  const json sys = json::parse(optimus::preset_json("systems", "dgx-h100"));
  ASSERT_TRUE(sys.contains("host_link_GBps"));
  const double link = sys["host_link_GBps"].get<double>() * 1e9;
  // tp 1: each device holds the whole engine (2 bytes per parameter).
  const double weights = 2 * p["params"]["total"].get<double>();
  EXPECT_NEAR(p["rl"]["swap_bytes_per_device"].get<double>(), weights, 0.01 * weights);
  EXPECT_NEAR(p["rl"]["phases_s"]["swap"].get<double>(),
              2 * p["rl"]["swap_bytes_per_device"].get<double>() / link, 1e-9);
  // At vLLM's 0.9 the trainer's state does not fit beside the engine: it goes to host memory and
  // back as well.
  const json full = predict(base());
  const json& m = full["memory"]["per_device_bytes"];
  const double trainer =
      m["weights"].get<double>() + m["gradients"].get<double>() + m["optimizer"].get<double>();
  EXPECT_NEAR(full["rl"]["swap_bytes_per_device"].get<double>(), weights + trainer, 0.01 * weights);
}

TEST(Rl, PpoAddsACriticAndOneSamplePerPrompt) {
  const json grpo = rl_of(base({{"samples_per_prompt", 1}}));
  const json ppo = rl_of(base({{"algorithm", "ppo"}, {"samples_per_prompt", json()}}));
  EXPECT_EQ(ppo["rollout"]["responses"].get<double>(), 32);  // samples_per_prompt defaults to 1
  EXPECT_GT(ppo["train"]["critic_s"].get<double>(), 0);
  EXPECT_GT(ppo["phases_s"]["train"].get<double>(), 1.5 * grpo["phases_s"]["train"].get<double>());
  EXPECT_GT(ppo["step_time_s"].get<double>(), grpo["step_time_s"].get<double>());
  // A reward model costs a forward pass; the rule-based reward none.
  const json rm = rl_of(base({{"reward_model", "llama3.2-1b"}}));
  EXPECT_GT(rm["phases_s"]["reward"].get<double>(), 0);
}

TEST(Rl, MiniBatchesAreOptimizerStepsOverTheStepsTokens) {
  const json one = rl_of(base());
  const json four = rl_of(base({{"mini_batches", 4}}));
  EXPECT_EQ(four["train"]["global_batch"].get<int>(), 64);
  EXPECT_NEAR(four["phases_s"]["train"].get<double>(), 4 * four["train"]["iteration_time_s"].get<double>(),
              1e-9);
  // Four optimizer steps over the same tokens cost at least the one step (more optimizer time).
  EXPECT_GT(four["phases_s"]["train"].get<double>(), one["phases_s"]["train"].get<double>());
}

TEST(Rl, UnequalLengthsAreTrainedAsTheirTokensAndSquaredLengths) {
  // Fixed lengths: the sequences themselves.
  const json fixed = rl_of(base());
  EXPECT_EQ(fixed["train"]["seq_len"].get<int>(), 768);
  EXPECT_EQ(fixed["train"]["global_batch"].get<int>(), 256);
  // Half the responses 128 tokens, half 896 (prompts 256): E[L] = 768, E[L^2] = 384^2 + 1152^2
  // halves = 737,280, so 960-token sequences, 0.8 of them: the same tokens and sum of squares.
  const json two = rl_of(base({{"response_len", json::array({{128, 1}, {896, 1}})}}));
  EXPECT_EQ(two["train"]["seq_len"].get<int>(), 960);
  EXPECT_EQ(two["train"]["global_batch"].get<int>(),
            208);  // 0.8 x 256 = 204.8 -> 205, whole micro-batches of 8 ranks
  // A long tail: longer effective sequences than the mean, the tokens kept (unpacked: whole
  // micro-batches of one sequence; RlPacking below packs them).
  const json unpacked = {{"train", {{"micro_batch_tokens", 0}}}};
  json tail_rl = {{"response_len", {{"mean", 512}, {"max", 8192}}}};
  tail_rl.merge_patch(unpacked);
  const json tail = rl_of(base(tail_rl));
  const int len = tail["train"]["seq_len"].get<int>();
  EXPECT_GT(len, 768 + 100);
  EXPECT_NEAR(tail["train"]["global_batch"].get<double>() * len, 256.0 * 768, 0.05 * 256 * 768);
  // A uniform range [384, 640] (mean 512): E[L^2] = 768^2 + (257^2 - 1) / 12, sequences of about 775.
  json uni_rl = {{"response_len", {{"uniform", {384, 640}}}}};
  uni_rl.merge_patch(unpacked);
  const json uni = rl_of(base(uni_rl));
  const int u = uni["train"]["seq_len"].get<int>();
  EXPECT_GT(u, 768);
  EXPECT_LT(u, 790);
  EXPECT_NEAR(uni["train"]["global_batch"].get<double>() * u, 256.0 * 768, 0.05 * 256 * 768);
}

// Packed micro-batches (verl use_dynamic_bsz, NeMo-RL sequence packing): a rank's sequences in
// micro-batches of a token budget per device, 2 x (longest prompt + response) when not given.
TEST(RlPacking, TheTokenBudgetSetsTheSequencesPerMicroBatch) {
  const auto mb = [](const json& r) { return r["train"]["parallel"]["micro_batch"].get<int>(); };
  // 256 + 512 = 768-token sequences, 256 of them over dp 8: 32 per rank. The assumed budget
  // 2 x 768 = 1,536 tokens holds 2 sequences.
  const json r = rl_of(base());
  EXPECT_EQ(mb(r), 2);
  EXPECT_EQ(r["train"]["global_batch"].get<int>(), 256);
  // 7,680 tokens hold 10: 32 sequences in ceil(32 / 10) = 4 packs of 8.
  EXPECT_EQ(mb(rl_of(base({{"train", {{"micro_batch_tokens", 7680}}}}))), 8);
  // A budget past the rank's sequences: one pack of all 32.
  EXPECT_EQ(mb(rl_of(base({{"train", {{"micro_batch_tokens", 1000000}}}}))), 32);
  // Under context parallelism a sequence puts seq_len / cp tokens on each rank: cp 2 halves a
  // sequence's share, so 1,536 tokens hold 4 (dp 4: 64 per rank).
  EXPECT_EQ(mb(rl_of(base({{"train", {{"cp", 2}}}}))), 4);
  // 0, or a stated micro_batch: fixed micro-batches.
  EXPECT_EQ(mb(rl_of(base({{"train", {{"micro_batch_tokens", 0}}}}))), 1);
  EXPECT_EQ(mb(rl_of(base({{"train", {{"micro_batch", 4}}}}))), 4);
  // Both: the budget, as stated.
  EXPECT_EQ(mb(rl_of(base({{"train", {{"micro_batch", 4}, {"micro_batch_tokens", 7680}}}}))), 8);
}

TEST(RlPacking, PacksPayTheMicroBatchCostsOncePerPack) {
  // A dropless MoE layer's host issue is paid per micro-batch (predict/training.cpp): packing the
  // same tokens into fewer micro-batches shortens the update; a dense layer is not slower.
  for (const char* model : {"qwen3-30b-a3b", "llama3.1-8b"}) {
    json s = base({{"train", {{"micro_batch_tokens", 0}}}});
    s["model"] = model;
    const double unpacked = num(rl_of(s)["phases_s"]["train"]);
    s["rl"]["train"]["micro_batch_tokens"] = 100000;
    const double packed = num(rl_of(s)["phases_s"]["train"]);
    if (std::string(model) == "qwen3-30b-a3b")
      EXPECT_LT(packed, 0.9 * unpacked) << model;
    else
      EXPECT_LE(packed, unpacked * (1 + 1e-9)) << model;
  }
}

// padding "longest" (OpenRLHF before --packing_samples, TRL without padding_free): a micro-batch of n
// sequences is computed at its longest. By hand: prompts of 100 tokens, responses of 100 or 300
// with equal weight, so sequences of 200 or 400; the longer of two draws is 400 unless both are
// 200 (probability 1/4): 0.75 x 400 + 0.25 x 200 = 350 tokens, and every one of the 64 x 4
// sequences counts at it. With padding removed the trainer times E[L^2] / E[L] = 100,000 / 300 =
// 333 tokens for E[L]^2 / E[L^2] = 0.9 of the sequences (rounded up to whole micro-batches).
TEST(RlPacking, PaddedMicroBatchesAreTimedAtTheirLongestSequence) {
  json s = base({{"prompts_per_step", 64},
                 {"samples_per_prompt", 4},
                 {"prompt_len", json::array({{100, 1}})},
                 {"response_len", json::array({{100, 0.5}, {300, 0.5}})},
                 {"train", {{"tp", 1}, {"dp", 8}, {"micro_batch", 2}, {"padding", "longest"}}}});
  const json padded = rl_of(s);
  EXPECT_EQ(padded["train"]["seq_len"], 350);
  EXPECT_EQ(padded["train"]["global_batch"], 256);
  s["rl"]["train"].erase("padding");
  const json removed = rl_of(s);
  EXPECT_EQ(removed["train"]["seq_len"], 333);
  EXPECT_EQ(removed["train"]["global_batch"], 240);
  // 256 x 350 tokens against 240 x 333: the padded update is the longer.
  EXPECT_GT(num(padded["phases_s"]["train"]), num(removed["phases_s"]["train"]));
  // One sequence a micro-batch has no padding; nor have sequences of one length.
  s["rl"]["train"]["micro_batch"] = 1;
  const double one = num(rl_of(s)["phases_s"]["train"]);
  s["rl"]["train"]["padding"] = "longest";
  EXPECT_DOUBLE_EQ(num(rl_of(s)["phases_s"]["train"]), one);
  json fixed = base({{"train", {{"micro_batch", 4}}}});
  const double unpadded = num(rl_of(fixed)["step_time_s"]);
  fixed["rl"]["train"]["padding"] = "longest";
  EXPECT_DOUBLE_EQ(num(rl_of(fixed)["step_time_s"]), unpadded);
  // Packed micro-batches have their padding removed: the two together are refused.
  fixed["rl"]["train"]["micro_batch_tokens"] = 8192;
  const json e = predict(fixed);
  EXPECT_EQ(e["error"]["code"], "rl.padding_with_packing");
  EXPECT_EQ(e["error"]["path"], "/rl/train/padding");
  // The resolved scenario states it.
  fixed["rl"]["train"].erase("micro_batch_tokens");
  const json v = json::parse(optimus::api::validate(fixed.dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump();
  EXPECT_EQ(v["scenario"]["rl"]["train"]["padding"], "longest");
}

// rl.rollout.static_batching: the engines generate in calls of max_batch responses, each to its
// longest (OpenRLHF's Ray trainer before its whole-batch rollout). With long-tailed responses the
// rollout is longer than continuous batching at the same max_batch; with equal lengths the same.
TEST(Rl, StaticRolloutBatchesWaitForTheirLongestResponse) {
  const auto rollout = [](const json& response_len, bool static_batching) {
    json s = base({{"response_len", response_len},
                   {"rollout", {{"tp", 1}, {"max_batch", 8}, {"static_batching", static_batching}}}});
    return num(rl_of(s)["phases_s"]["rollout"]);
  };
  const json tail = json::array({json::array({32, 0.75}), json::array({1024, 0.25})});
  EXPECT_GT(rollout(tail, true), 1.2 * rollout(tail, false));
  const json even = json::array({json::array({512, 1})});
  EXPECT_NEAR(rollout(even, true), rollout(even, false), 1e-9 * rollout(even, false));
}

TEST(Rl, AnEagerRolloutWaitsOnTheHostForEveryKernel) {
  // verl's and OpenRLHF's enforce_eager: no CUDA graph replay, so each decode step issues its
  // kernels one by one from Python (the vllm profile's launch interval, 30 us): a kernel shorter
  // than that waits on the host, and the longest response's 512 steps, each of 32 layers of at
  // least 8 kernels, cannot take less than 512 x 32 x 8 x 30 us.
  const auto rollout = [](const json& graphs) {
    json s = base({{"rollout", {{"tp", 1}, {"cuda_graphs", graphs}}}});
    return num(rl_of(s)["phases_s"]["rollout"]);
  };
  const double replayed = rollout(nullptr), eager = rollout(false);
  EXPECT_NEAR(rollout(true), replayed, 1e-9 * replayed);  // the vllm profile replays graphs
  EXPECT_GT(eager, 1.1 * replayed);
  EXPECT_GT(eager, 512 * 32 * 8 * 30e-6);
  // The key is kept by validate.
  const json v = json::parse(optimus::api::validate(base({{"rollout", {{"cuda_graphs", false}}}}).dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump();
  EXPECT_EQ(v["scenario"]["rl"]["rollout"]["cuda_graphs"], false);
}

TEST(Rl, SpeculativeRolloutEnginesNeedFewerDecodeSteps) {
  // rl.rollout.speculative: each engine step drafts three tokens with Llama 3.2 1B (the target's
  // tokenizer) and verifies them, accepted at 0.7 each: (1 - 0.7^4) / 0.3 = 2.533 tokens a step.
  // The 512-token responses need a 2.533rd of the steps, each a verification of four tokens a
  // sequence plus three passes of the 1B draft: faster than plain decoding, never faster than the
  // token gain alone; the same tokens are generated.
  const json draft = {{"draft", "llama3.2-1b"}, {"draft_tokens", 3}, {"acceptance_rate", 0.7}};
  const json plain = rl_of(base());
  const json spec = rl_of(base({{"rollout", {{"tp", 1}, {"speculative", draft}}}}));
  const double p = num(plain["phases_s"]["rollout"]), q = num(spec["phases_s"]["rollout"]);
  EXPECT_LT(q, 0.8 * p);
  EXPECT_GT(q, p / 2.533);
  EXPECT_NEAR(num(spec["rollout"]["output_tokens"]), num(plain["rollout"]["output_tokens"]), 1e-9);
  // An MTP draft on Llama 3.1 8B, which ships no MTP module, is warned about as in inference; the
  // draft model is not.
  EXPECT_FALSE(
      warns(predict(base({{"rollout", {{"tp", 1}, {"speculative", draft}}}})), "speculative.mtp_not_native"));
  EXPECT_TRUE(warns(predict(base({{"rollout", {{"tp", 1}, {"speculative", {{"draft_tokens", 1}}}}}})),
                    "speculative.mtp_not_native"));
  // The key is kept by validate; a draft with another vocabulary is refused at its path.
  const json v =
      json::parse(optimus::api::validate(base({{"rollout", {{"tp", 1}, {"speculative", draft}}}}).dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump();
  EXPECT_EQ(v["scenario"]["rl"]["rollout"]["speculative"]["draft_tokens"], 3);
  json other = draft;
  other["draft"] = "qwen2.5-7b";
  const json e = predict(base({{"rollout", {{"tp", 1}, {"speculative", other}}}}));
  ASSERT_TRUE(e.contains("error")) << e.dump();
  EXPECT_EQ(e["error"]["code"], "inference.draft_vocab_mismatch");
  EXPECT_EQ(e["error"]["path"], "/rl/rollout/speculative/draft");
}

TEST(Rl, ATrainingStackAsTheRolloutEngineIsSaidToTakeTheServingDefaults) {
  // A profile without a scheduler (a training stack's) is accepted as the rollout engine (its
  // kernels are what the engine runs: Hugging Face generate under pytorch-eager), and the warning
  // says which scheduler was assumed; a serving profile warns nothing.
  const json p =
      predict(base({{"rollout", {{"tp", 1}, {"software", "megatron-bridge"}, {"max_batch", 64}}}}));
  ASSERT_TRUE(p.contains("rl")) << p.dump();
  ASSERT_TRUE(warns(p, "rl.rollout_not_serving"));
  for (const json& w : p["warnings"])
    if (w["code"] == "rl.rollout_not_serving") {
      EXPECT_NE(w["message"].get<std::string>().find("megatron-bridge"), std::string::npos);
      EXPECT_NE(w["message"].get<std::string>().find("up to 64 sequences"), std::string::npos);
    }
  EXPECT_FALSE(warns(predict(base()), "rl.rollout_not_serving"));
  EXPECT_FALSE(
      warns(predict(base({{"rollout", {{"tp", 1}, {"software", "sglang"}}}})), "rl.rollout_not_serving"));
}

TEST(Rl, AMixtureOfExpertsTrainerWithoutAStatedLayoutIsSaidToRunEveryExpertEverywhere) {
  // Qwen3-30B-A3B with rl.train absent: tp 1, ep 1 and dp the pool, as verl's FSDP backend runs it,
  // which the warning says with the other trainers' practice; so does a train block without ep. A
  // stated ep (even 1), "auto" and a dense policy warn nothing, and the echo keeps ep absent.
  json moe = base({{"train", nullptr}});
  moe["model"] = "qwen3-30b-a3b";
  const json p = predict(moe);
  ASSERT_TRUE(p.contains("rl")) << p.dump();
  EXPECT_EQ(p["rl"]["train"]["parallel"]["ep"], 1);
  ASSERT_TRUE(warns(p, "rl.train_layout_assumed"));
  for (const json& w : p["warnings"]) {
    if (w["code"] == "rl.train_layout_assumed") {
      EXPECT_NE(w["message"].get<std::string>().find("over 8 devices"), std::string::npos) << w["message"];
    }
  }
  moe["rl"]["train"] = {{"zero_stage", 3}};
  EXPECT_TRUE(warns(predict(moe), "rl.train_layout_assumed"));
  const json v = json::parse(optimus::api::validate(moe.dump()));
  ASSERT_TRUE(v.contains("scenario")) << v.dump();
  EXPECT_FALSE(v["scenario"]["rl"]["train"].contains("ep")) << v["scenario"]["rl"]["train"].dump();
  EXPECT_TRUE(warns(predict(v["scenario"]), "rl.train_layout_assumed"));
  moe["rl"]["train"] = {{"ep", 1}};
  EXPECT_FALSE(warns(predict(moe), "rl.train_layout_assumed"));
  moe["rl"]["train"] = "auto";
  EXPECT_FALSE(warns(predict(moe), "rl.train_layout_assumed"));
  EXPECT_FALSE(warns(predict(base({{"train", nullptr}})), "rl.train_layout_assumed"));
}

TEST(Rl, ARuleBasedRewardWaitsForItsHostTime) {
  // 32 prompts x 8 samples = 256 responses scored at 40 ms each by 4 processes: 2.56 s in the
  // reward phase, and a colocated synchronous step longer by exactly that.
  const json none = rl_of(base());
  const json scored = rl_of(base({{"reward_cpu_ms", 40}, {"reward_workers", 4}}));
  EXPECT_NEAR(num(scored["reward_cpu_s"]), 256 * 0.040 / 4, 1e-12);
  EXPECT_NEAR(num(scored["phases_s"]["reward"]) - num(none["phases_s"]["reward"]), 2.56, 1e-9);
  EXPECT_NEAR(num(scored["step_time_s"]) - num(none["step_time_s"]), 2.56, 1e-9);
  EXPECT_EQ(num(none["reward_cpu_s"]), 0.0);
  // Split and asynchronous, it is on the trainer's side: 10 s a response makes the trainer the
  // slower pool, and the step is the trainer's phases plus the sync.
  const json split = rl_of(base({{"placement", "split"},
                                 {"rollout_devices", 4},
                                 {"train_devices", 4},
                                 {"async", {{"staleness", 1}}},
                                 {"reward_cpu_ms", 10000}}));
  const json& ph = split["phases_s"];
  const double trainer = num(ph["reward"]) + num(ph["reference"]) + num(ph["old_logprob"]) + num(ph["train"]);
  EXPECT_GT(trainer, num(ph["rollout"]));
  EXPECT_NEAR(num(split["step_time_s"]), trainer + num(ph["weight_sync"]), 1e-9 * trainer);
  EXPECT_NEAR(num(split["idle_s"]["rollout"]), trainer - num(ph["rollout"]), 1e-9 * trainer);
  // The host time is the stated inputs' arithmetic: no range of its own. Beside a reward model the
  // model's forward keeps its range, shifted by the host time.
  const json p = predict(base({{"reward_cpu_ms", 40}, {"reward_workers", 4}}));
  EXPECT_FALSE(p["uncertainty"].contains("rl.phases_s.reward")) << p["uncertainty"].dump();
  const json with_model = predict(base({{"reward_model", "llama3.2-1b"}}));
  const json both =
      predict(base({{"reward_model", "llama3.2-1b"}, {"reward_cpu_ms", 40}, {"reward_workers", 4}}));
  const json& b0 = with_model["uncertainty"]["rl.phases_s.reward"];
  const json& b1 = both["uncertainty"]["rl.phases_s.reward"];
  EXPECT_NEAR(num(b1["low"]) - num(b0["low"]), 2.56, 1e-9);
  EXPECT_NEAR(num(b1["high"]) - num(b0["high"]), 2.56, 1e-9);
  const json bad = predict(base({{"reward_cpu_ms", -1}}));
  EXPECT_EQ(bad["error"]["path"], "/rl/reward_cpu_ms");
  EXPECT_EQ(predict(base({{"reward_workers", 0}}))["error"]["path"], "/rl/reward_workers");
}

TEST(RlPacking, AnAssumedBudgetIsFittedToMemory) {
  // 16,384-token responses: the assumed 2 x 16,640-token pack holds 2 sequences per device, whose
  // activations without recompute pass an H100's 80 GB. The stacks' answer (verl's OOM guide):
  // gradient checkpointing, then a smaller pack. The trainer then fits, recomputing, stated
  // "none" or not (absent, it recomputes from the start, as the stacks' defaults do).
  for (const json& recompute : {json(nullptr), json("none")}) {
    const json r =
        rl_of(base({{"response_len", json::array({{16384, 1}})}, {"train", {{"recompute", recompute}}}}));
    EXPECT_TRUE(r["memory"]["train"]["fits"].get<bool>()) << recompute;
    EXPECT_EQ(r["train"]["parallel"]["recompute"], "full") << recompute;
  }
  // A stated budget is kept as stated: it does not fit, and the warning says so.
  const json p = predict(base({{"response_len", json::array({{16384, 1}})},
                               {"train", {{"micro_batch_tokens", 65536}, {"recompute", "none"}}}}));
  EXPECT_FALSE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_EQ(p["rl"]["train"]["parallel"]["recompute"], "none");
  EXPECT_TRUE(warns(p, "memory.does_not_fit"));
  // At ZeRO 3 the warning names the remedies left, not a higher stage.
  for (const json& w : p["warnings"]) {
    if (w["code"] == "memory.does_not_fit") {
      EXPECT_EQ(w["message"].get<std::string>().find("zero_stage"), std::string::npos) << w.dump();
    }
  }
}

TEST(Rl, TheTrainerRecomputesUnlessToldNot) {
  // verl's ppo_trainer.yaml (enable_gradient_checkpointing: True) and slime's scripts
  // (--recompute-granularity full) train with activations recomputed: so does an rl.train that
  // does not say. A stated "none" that fits is kept, and its update is shorter by the forward
  // passes run again.
  const json by_default = rl_of(base());
  const json none = rl_of(base({{"train", {{"recompute", "none"}}}}));
  EXPECT_EQ(by_default["train"]["parallel"]["recompute"], "full");
  EXPECT_EQ(none["train"]["parallel"]["recompute"], "none");
  EXPECT_LT(num(none["phases_s"]["train"]), 0.9 * num(by_default["phases_s"]["train"]));
  // Forward-only passes do not recompute.
  EXPECT_NEAR(num(none["phases_s"]["reference"]), num(by_default["phases_s"]["reference"]),
              1e-9 * num(none["phases_s"]["reference"]));
}

TEST(Rl, WholeRunFromTrainSteps) {
  const json r = rl_of(base({{"train_steps", 100}}));
  ASSERT_TRUE(r.contains("run"));
  EXPECT_NEAR(r["run"]["wall_days"].get<double>(), 100 * r["step_time_s"].get<double>() / 86400, 1e-9);
  EXPECT_NEAR(r["run"]["gpu_hours"].get<double>(), 8 * 100 * r["step_time_s"].get<double>() / 3600, 1e-6);
  EXPECT_GT(r["run"]["energy_mwh"].get<double>(), 0);
  EXPECT_GT(r["run"]["cost_usd"].get<double>(), 0);
  EXPECT_FALSE(rl_of(base()).contains("run"));
  // GPUs without a price: no cost (its electricity alone is not one), and the warning says why;
  // a rental price gives the device-hours at it.
  json unpriced = base({{"train_steps", 100}});
  unpriced["system"] = "dgx-h200";
  const json p = predict(unpriced);
  ASSERT_TRUE(p["rl"].contains("run")) << p.dump().substr(0, 300);
  EXPECT_FALSE(p["rl"]["run"].contains("cost_usd"));
  EXPECT_TRUE(warns(p, "run.no_price"));
  unpriced["economics"] = {{"usd_per_gpu_hour", 2}};
  const json rented = rl_of(unpriced);
  EXPECT_NEAR(rented["run"]["cost_usd"].get<double>(), rented["run"]["gpu_hours"].get<double>() * 2, 1e-9);
}

TEST(Rl, ChosenRolloutLayoutAndAutoTrainer) {
  json s = base({{"rollout", {{"tp", nullptr}}}, {"train", "auto"}});
  const json r = rl_of(s);
  // The chosen tp is the fastest rollout of the powers of two in the node (an 8B model fits one
  // H100, so every one of them holds it), its dp the rest of the pool.
  const int chosen = r["rollout"]["parallel"]["tp"].get<int>();
  EXPECT_EQ(chosen * r["rollout"]["parallel"]["dp"].get<int>(), 8);
  for (int tp : {1, 2, 4, 8}) {
    json stated = s;
    stated["rl"]["rollout"]["tp"] = tp;
    const json o = rl_of(stated);
    EXPECT_LE(num(r["phases_s"]["rollout"]), num(o["phases_s"]["rollout"]) * (1 + 1e-12)) << "tp " << tp;
    if (tp == chosen) {
      EXPECT_DOUBLE_EQ(num(r["phases_s"]["rollout"]), num(o["phases_s"]["rollout"]));
    }
  }
  const json& t = r["train"]["parallel"];
  EXPECT_EQ(t["tp"].get<int>() * t["pp"].get<int>() * t["cp"].get<int>() * t["dp"].get<int>(), 8);
  // A 70B model needs tensor parallelism to hold its rollout.
  s["model"] = "llama3.1-70b";
  s["rl"]["train"] = {{"tp", 8}};
  const json big = rl_of(s);
  EXPECT_GE(big["rollout"]["parallel"]["tp"].get<int>(), 2);
}

// A trainer without a stated ZeRO stage takes the smallest one under which it fits. Llama 3.1 8B
// (8.03e9 parameters) on 8 H100 of 80 GB, 18 bytes of state per parameter (2 weights, 4 fp32
// gradients, 4 master weights, 8 Adam moments): unsharded 144 GB per device; ZeRO-1 shards the
// 12 bytes of master weights and moments over the 8 ranks, 2 + 4 + 12 / 8 = 7.5 bytes, 60 GB, which
// leaves room for the activations of its packs. A stated stage is kept, fitting or not; a small
// model that fits unsharded stays at 0.
TEST(Rl, AnUnstatedZeroStageIsTheSmallestThatFits) {
  const json fitted = predict(base({{"train", {{"zero_stage", nullptr}}}}));
  ASSERT_TRUE(fitted.contains("rl")) << fitted.dump().substr(0, 400);
  EXPECT_EQ(fitted["rl"]["train"]["parallel"]["zero_stage"], 1);
  EXPECT_FALSE(warns(fitted, "memory.does_not_fit"));
  const json stated = predict(base({{"train", {{"zero_stage", 0}}}}));
  ASSERT_TRUE(stated.contains("rl")) << stated.dump().substr(0, 400);
  EXPECT_EQ(stated["rl"]["train"]["parallel"]["zero_stage"], 0);
  EXPECT_TRUE(warns(stated, "memory.does_not_fit"));
  json small = base({{"train", {{"zero_stage", nullptr}}}});
  small["model"] = "deepseek-r1-distill-qwen-1.5b";  // 1.78e9 x 18 bytes = 32 GB unsharded
  const json r = rl_of(small);
  EXPECT_EQ(r["train"]["parallel"]["zero_stage"], 0);
  // The echo leaves an unstated stage unstated, so the scenario reads back the same.
  const json v = json::parse(optimus::api::validate(base({{"train", {{"zero_stage", nullptr}}}}).dump()));
  ASSERT_TRUE(v.value("ok", false)) << v.dump();
  EXPECT_FALSE(v["scenario"]["rl"]["train"].contains("zero_stage"));
  EXPECT_EQ(predict(v["scenario"])["rl"]["step_time_s"], fitted["rl"]["step_time_s"]);
}

// The smallest stage that fits is the pool's, not the policy's alone: PPO's critic (Llama 3.1 8B
// again) keeps its state on the same devices while the actor updates. At ZeRO-1 the actor fits
// alone (7.5 bytes a parameter, 60 GB, above), but beside the critic's 60 GB no 80 GB device holds
// it; ZeRO-3 holds both (2.25 bytes each, 18 GB). The unstated stage is the smallest under which
// the pool fits, and predicts what stating it does; every stage below it does not fit.
TEST(Rl, AnUnstatedZeroStageMakesRoomForTheCritic) {
  const json job = base({{"algorithm", "ppo"}, {"train", {{"zero_stage", nullptr}}}});
  const json p = predict(job);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 400);
  EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_FALSE(warns(p, "memory.does_not_fit"));
  const int stage = p["rl"]["train"]["parallel"]["zero_stage"].get<int>();
  EXPECT_GE(stage, 2);
  for (int z = 1; z <= stage; ++z) {
    json stated = job;
    stated["rl"]["train"]["zero_stage"] = z;
    const json q = predict(stated);
    ASSERT_TRUE(q.contains("rl")) << q.dump().substr(0, 400);
    EXPECT_EQ(q["rl"]["memory"]["train"]["fits"].get<bool>(), z == stage) << "zero_stage " << z;
    if (z == stage) {
      EXPECT_EQ(q["rl"]["step_time_s"], p["rl"]["step_time_s"]);
    }
  }
}

// Where the smallest stage that fits does so only with its pack halved, a higher stage that holds
// the whole pack is taken when it runs faster: Qwen3-30B-A3B at ep 1 on 32 H100 fits at ZeRO-2 with
// one sequence a micro-batch (every expert's weights read per sequence), at ZeRO-3 with seven.
// The unstated stage predicts what stating the fastest fitting stage does, and no fitting stage
// stated runs a faster update.
TEST(Rl, AnUnstatedZeroStageIsTheFastestThatFits) {
  json job = base({{"prompts_per_step", 64},
                   {"samples_per_prompt", 16},
                   {"prompt_len", 1024},
                   {"response_len", 8192},
                   {"rollout", {{"tp", 4}}},
                   {"train", {{"zero_stage", nullptr}}}},
                  32);
  job["model"] = "qwen3-30b-a3b";
  const json p = predict(job);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 400);
  EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  const int stage = p["rl"]["train"]["parallel"]["zero_stage"].get<int>();
  EXPECT_EQ(stage, 3);
  int smallest_fitting = 0;
  for (int z = 1; z <= 3; ++z) {
    json stated = job;
    stated["rl"]["train"]["zero_stage"] = z;
    const json q = predict(stated);
    ASSERT_TRUE(q.contains("rl")) << q.dump().substr(0, 400);
    if (!q["rl"]["memory"]["train"]["fits"].get<bool>()) continue;
    if (smallest_fitting == 0) smallest_fitting = z;
    EXPECT_LE(num(p["rl"]["phases_s"]["train"]), num(q["rl"]["phases_s"]["train"])) << "zero_stage " << z;
    if (z == stage) {
      EXPECT_EQ(q["rl"]["step_time_s"], p["rl"]["step_time_s"]);
    }
  }
  EXPECT_LT(smallest_fitting, stage);  // the smallest that fits is not the one taken
}

// A job that states no trainer, whose default (ep 1, data parallelism over the pool) fits under no
// stage: DeepSeek-V3 on 64 H100 needs 146 GiB a device so even with ZeRO-3 and the optimizer on the
// host. It is predicted with the layout search's trainer, as "auto" predicts it, and says so; a
// stated trainer that fits nowhere is still predicted as stated (the test below).
TEST(Rl, AnUnfittingDefaultTrainerIsSearched) {
  json job = base({{"rollout", {{"tp", 16}, {"precision", "fp8"}}}, {"train", nullptr}}, 64);
  job["model"] = "deepseek-v3";
  const json p = predict(job);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 400);
  EXPECT_TRUE(warns(p, "rl.train_layout_searched"));
  EXPECT_FALSE(warns(p, "rl.train_layout_assumed"));
  EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_GT(p["rl"]["train"]["parallel"]["ep"].get<int>(), 1);
  json searched = job;
  searched["rl"]["train"] = "auto";
  const json q = predict(searched);
  ASSERT_TRUE(q.contains("rl")) << q.dump().substr(0, 400);
  EXPECT_EQ(q["rl"]["step_time_s"], p["rl"]["step_time_s"]);
  EXPECT_EQ(q["rl"]["train"]["parallel"], p["rl"]["train"]["parallel"]);
  // Stated, even as {}, the default is kept: it does not fit and says so.
  json stated = job;
  stated["rl"]["train"] = json::object();
  const json r = predict(stated);
  ASSERT_TRUE(r.contains("rl")) << r.dump().substr(0, 400);
  EXPECT_FALSE(warns(r, "rl.train_layout_searched"));
  EXPECT_FALSE(r["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_EQ(r["rl"]["train"]["parallel"]["ep"], 1);
}

// A trainer that fits under no stage (Llama 3.1 405B on one 8 x H100 node: 405e9 x 2 bytes of
// weights and as many of gradients are 202 GB a device at ZeRO-3) is predicted at the layout nearest to
// fitting, the most sharded, and says it does not fit; colocated, its weight sync is then the gather of 7/8
// of the weights over NVLink, not the no-gather of an unsharded replica.
TEST(Rl, ATrainerThatFitsNoStageIsPredictedNearestToFitting) {
  json s = base({{"train", {{"zero_stage", nullptr}}}});
  s["model"] = "llama3.1-405b";
  s["rl"]["rollout"] = {{"tp", 8}, {"precision", "fp8"}};  // 405 GB of weights: 51 GB a device
  const json p = predict(s);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 400);
  EXPECT_TRUE(warns(p, "memory.does_not_fit"));
  EXPECT_EQ(p["rl"]["train"]["parallel"]["zero_stage"], 3);
  EXPECT_FALSE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  // Nearest to fitting here is with the optimizer on the host too, and the warning says it still
  // does not fit.
  for (const json& w : p["warnings"])
    if (w["code"] == "rl.train_optimizer_offload_assumed") {
      EXPECT_NE(w["message"].get<std::string>().find("does not fit even with"), std::string::npos);
    }
  EXPECT_TRUE(warns(p, "rl.train_optimizer_offload_assumed"));
  const json sys = json::parse(optimus::preset_json("systems", "dgx-h100"));
  const double bw =
      sys["scale_up"]["bandwidth_GBps"].get<double>() * 1e9 * sys["scale_up"]["efficiency"].get<double>();
  const double latency = sys["scale_up"]["latency_us"].get<double>() * 1e-6;
  const json dev = json::parse(optimus::preset_json("devices", "h100-sxm5-80gb"));
  const double hbm = dev["memory"]["bandwidth_GBps"].get<double>() * 1e9 *
                     dev["calibration"]["memory_efficiency"].get<double>();
  const double bytes = num(p["rl"]["weight_sync"]["bytes"]);
  // The gather, then the engine's copy of its tp-8 shard into its parameters: the weights per
  // device of the same model served at tp 8 in fp8 (the tensors it keeps at 16 bits included).
  const json served = {
      {"model", "llama3.1-405b"},
      {"system", "dgx-h100"},
      {"num_devices", 8},
      {"parallel", {{"tp", 8}}},
      {"inference", {{"precision", "fp8"}, {"batch", 1}, {"prompt_len", 256}, {"output_len", 512}}}};
  const double engine = num(predict(served)["inference"]["memory"]["per_device_bytes"]["weights"]);
  EXPECT_NEAR(num(p["rl"]["phases_s"]["weight_sync"]), bytes * 7 / 8 / bw + 2 * engine / hbm + latency, 1e-6);
  // Stated, the stage is kept.
  s["rl"]["train"]["zero_stage"] = 1;
  const json kept = predict(s);
  EXPECT_EQ(kept["rl"]["train"]["parallel"]["zero_stage"], 1);
  EXPECT_TRUE(warns(kept, "memory.does_not_fit"));
}

// A rollout pool whose chosen engines cannot hold the model says how wide it looked: DeepSeek-V3
// in bf16 (1.34 TB) on 36 GB200 of 186 GB, where tp 4 is the widest power of two dividing 36.
TEST(Rl, ARolloutPoolNoEngineFitsNamesTheWidestTpTried) {
  const json s = {{"model", "deepseek-v3"},
                  {"system", "gb200-nvl72"},
                  {"num_devices", 72},
                  {"rl",
                   {{"prompts_per_step", 128},
                    {"samples_per_prompt", 8},
                    {"prompt_len", {{"mean", 256}, {"max", 1024}}},
                    {"response_len", {{"mean", 2048}, {"max", 8192}}},
                    {"placement", "split"},
                    {"rollout_devices", 36},
                    {"train_devices", 36},
                    {"rollout", {{"precision", "bf16"}}}}}};
  const json p = predict(s);
  ASSERT_TRUE(p.contains("error")) << p.dump().substr(0, 300);
  EXPECT_EQ(p["error"]["code"], "rl.rollout_does_not_fit");
  EXPECT_EQ(p["error"]["path"], "/rl/rollout");
  const std::string m = p["error"]["message"];
  EXPECT_NE(m.find("up to tp 4"), std::string::npos) << m;
  EXPECT_NE(m.find("pool of 36 devices"), std::string::npos) << m;
  EXPECT_NE(m.find("rl.rollout.tp"), std::string::npos) << m;
}

TEST(Rl, ValidateEchoesTheBlockAndItReadsBackTheSame) {
  const json s =
      base({{"placement", "split"}, {"rollout_devices", 2}, {"train_devices", 6}, {"mini_batches", 2}});
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_TRUE(v.value("ok", false)) << v.dump();
  const json again = predict(v["scenario"]);
  EXPECT_EQ(again["rl"]["step_time_s"], predict(s)["rl"]["step_time_s"]);
}

// A mixture-of-experts engine that one device cannot hold (Mixtral 8x7B, 93 GB in bf16, on 80 GB
// H100s) is tried at tp 1 with its experts over 2, 4, ... replicas (attention data parallelism),
// and so is every wider tp (an engine that holds the model may decode faster so); with expert
// parallelism stated, only as stated.
TEST(Rl, PlacementSearchSpreadsTheExpertsOfAnEngineThatDoesNotFit) {
  json s = base({{"rollout", nullptr}});
  s["model"] = "mixtral-8x7b";
  auto sc = optimus::parse_scenario(s.dump());
  ASSERT_TRUE(sc) << sc.error().message;
  auto res = optimus::search_rl(*sc, 100, false);
  ASSERT_TRUE(res) << res.error().message;
  bool spread = false;
  for (const auto& c : res->best) {
    if (c.rollout_plan.ep > c.rollout_plan.tp && c.rollout_plan.tp == 1) {
      spread = true;
      // It holds the model only so: its tp alone does not (ep 1 at tp 1 is refused).
      json alone = s;
      alone["rl"]["rollout"] = {{"tp", 1}};
      alone["rl"]["placement"] = "colocated";
      EXPECT_EQ(predict(alone)["error"]["code"], "rl.rollout_does_not_fit");
    }
  }
  EXPECT_TRUE(spread);
  json stated = s;
  stated["rl"]["rollout"] = {{"ep", 1}};
  auto st = optimus::parse_scenario(stated.dump());
  ASSERT_TRUE(st) << st.error().message;
  auto fixed = optimus::search_rl(*st, 100, false);
  ASSERT_TRUE(fixed) << fixed.error().message;
  for (const auto& c : fixed->best) EXPECT_EQ(c.rollout_plan.ep, 1);
}

// The placement search remembers a training pool's searched layouts (RlTrainSearchMemo) and
// reuses them for the next rollout layout on a pool of the same size: each candidate's prediction
// is the one it gets alone, pool by pool, whatever the order they come in. Mixtral on 16 H100
// with train "auto": colocated at rollout tp 2, 4 and 8, then split 8 + 8 at tp 2 and 4, then
// colocated again.
TEST(Rl, RememberedTrainerLayoutsPredictWhatEachCandidateGetsAlone) {
  json s = base({{"rollout", nullptr}, {"train", "auto"}}, 16);
  s["model"] = "mixtral-8x7b";
  optimus::RlTrainSearchMemo memo;
  int remembered_once = 0;
  for (const auto& [split, tp] : std::vector<std::pair<bool, int>>{
           {false, 2}, {false, 4}, {false, 8}, {true, 2}, {true, 4}, {false, 4}}) {
    json c = s;
    c["rl"]["rollout"] = {{"tp", tp}};
    if (split) c["rl"].update({{"placement", "split"}, {"rollout_devices", 8}, {"train_devices", 8}});
    auto sc = optimus::parse_scenario(c.dump());
    ASSERT_TRUE(sc) << sc.error().message;
    const auto alone = optimus::predict_rl(*sc);
    const auto shared = optimus::predict_rl(*sc, &memo);
    ASSERT_EQ(alone.ok(), shared.ok()) << c.dump();
    if (!alone) {
      EXPECT_EQ(alone.error().code, shared.error().code);
      continue;
    }
    ++remembered_once;
    EXPECT_EQ(alone->step_time_s, shared->step_time_s) << c.dump();
    EXPECT_EQ(alone->train_plan.tp, shared->train_plan.tp);
    EXPECT_EQ(alone->train_plan.pp, shared->train_plan.pp);
    EXPECT_EQ(alone->train_plan.ep, shared->train_plan.ep);
    EXPECT_EQ(alone->train_plan.zero_stage, shared->train_plan.zero_stage);
  }
  EXPECT_GE(remembered_once, 4);
}

TEST(Rl, PlacementSearchRanksColocatedAndSplits) {
  const json s = base();
  auto sc = optimus::parse_scenario(s.dump());
  ASSERT_TRUE(sc) << sc.error().message;
  auto res = optimus::search_rl(*sc, 100, false);
  ASSERT_TRUE(res) << res.error().message;
  bool colocated = false, split = false;
  for (const auto& c : res->best) {
    colocated = colocated || c.placement == optimus::RlPlacement::colocated;
    split = split || c.placement == optimus::RlPlacement::split;
    if (c.placement == optimus::RlPlacement::split) {
      EXPECT_EQ(c.rollout_devices + c.train_devices, 8);
    }
  }
  EXPECT_TRUE(colocated);
  EXPECT_TRUE(split);
  for (std::size_t i = 1; i < res->best.size(); ++i)
    EXPECT_LE(res->best[i - 1].step_time_s, res->best[i].step_time_s);
  // The API's search takes the rl scenario the same way.
  const json api = json::parse(optimus::api::search(s.dump(), R"({"top": 3})"));
  ASSERT_FALSE(api.contains("error")) << api.dump();
  EXPECT_EQ(api["mode"], "rl");
  ASSERT_EQ(api["best"].size(), 3u);
  EXPECT_NEAR(api["best"][0]["step_time_s"].get<double>(), res->best[0].step_time_s, 1e-9);
  // Ranked by cost: the step's device-hours at the economics' price, cheapest first.
  const json cost = json::parse(optimus::api::search(s.dump(), R"({"rank_by": "cost"})"));
  for (std::size_t i = 1; i < cost["best"].size(); ++i)
    EXPECT_LE(cost["best"][i - 1]["cost_per_step_usd"].get<double>(),
              cost["best"][i]["cost_per_step_usd"].get<double>());
  // A device without a price: no cost (absent, not $0), and no ranking by one. With a rental
  // price, the step's device-hours at it.
  json unpriced = s;
  unpriced["system"] = "dgx-h200";
  const json by_time = json::parse(optimus::api::search(unpriced.dump(), R"({"top": 2})"));
  ASSERT_FALSE(by_time.contains("error")) << by_time.dump().substr(0, 300);
  EXPECT_FALSE(by_time["best"][0].contains("cost_per_step_usd"));
  const json by_cost = json::parse(optimus::api::search(unpriced.dump(), R"({"rank_by": "cost"})"));
  EXPECT_EQ(by_cost["error"]["code"], "search.rank_without_price") << by_cost.dump().substr(0, 300);
  EXPECT_EQ(by_cost["error"]["path"], "/rank_by");
  unpriced["economics"] = {{"usd_per_gpu_hour", 2}};
  const json rented = json::parse(optimus::api::search(unpriced.dump(), R"({"rank_by": "cost", "top": 1})"));
  ASSERT_FALSE(rented.contains("error")) << rented.dump().substr(0, 300);
  EXPECT_NEAR(rented["best"][0]["cost_per_step_usd"].get<double>(),
              rented["best"][0]["step_time_s"].get<double>() * 8 / 3600 * 2, 1e-9);
  // Owned devices (a purchase price): the step's device-hours at the amortised rate plus its
  // electricity, the same as a one-step run of that placement costs.
  json owned = s;
  owned["economics"] = {{"gpu_price_usd", 30000}, {"usd_per_kwh", 0.3}};
  const json bought = json::parse(optimus::api::search(owned.dump(), R"({"rank_by": "cost", "top": 1})"));
  ASSERT_FALSE(bought.contains("error")) << bought.dump().substr(0, 300);
  const json& cheapest = bought["best"][0];
  json one_step = owned;
  one_step["rl"]["placement"] = cheapest["placement"];
  if (cheapest["placement"] == "split") {
    one_step["rl"]["rollout_devices"] = cheapest["rollout_devices"];
    one_step["rl"]["train_devices"] = cheapest["train_devices"];
  }
  one_step["rl"]["rollout"]["tp"] = cheapest["rl"]["rollout"]["parallel"]["tp"];
  one_step["rl"]["train_steps"] = 1;
  const json run = rl_of(one_step)["run"];
  EXPECT_GT(run["energy_mwh"].get<double>(), 0);
  EXPECT_NEAR(bought["best"][0]["cost_per_step_usd"].get<double>(), run["cost_usd"].get<double>(),
              1e-9 * run["cost_usd"].get<double>());
  EXPECT_GT(run["cost_usd"].get<double>(), run["gpu_hours"].get<double>() * 30000 / (4 * 365.25 * 24));
  // Options it does not take.
  const json energy = json::parse(optimus::api::search(s.dump(), R"({"rank_by": "energy"})"));
  EXPECT_EQ(energy["error"]["code"], "search.option_not_applicable");
  EXPECT_EQ(energy["error"]["path"], "/rank_by");
  const json unknown = json::parse(optimus::api::search(s.dump(), R"({"max_ttft_s": 1})"));
  EXPECT_EQ(unknown["error"]["code"], "search.unknown_option");
  EXPECT_EQ(unknown["error"]["path"], "/max_ttft_s");
}

// The trainer's search ranks the optimizer-sharded layouts (ZeRO 1) beside the fully sharded ones
// (ZeRO 3): Qwen3-30B-A3B on a training pool of 4 H200 took a ZeRO 1 layout that only just fit,
// at 13% MFU, though a ZeRO 3 one trains faster. "auto" trains no slower than the fully sharded
// layout stated.
TEST(Rl, TheTrainersSearchRanksZero1AndZero3Together) {
  json s = {{"model", "qwen3-30b-a3b"},
            {"system", "dgx-h200"},
            {"num_devices", 8},
            {"rl",
             {{"placement", "split"},
              {"rollout_devices", 4},
              {"train_devices", 4},
              {"prompts_per_step", 64},
              {"samples_per_prompt", 8},
              {"prompt_len", {{"mean", 256}, {"max", 1024}}},
              {"response_len", {{"mean", 2048}, {"max", 8192}}},
              {"async", {{"staleness", 1}}},
              {"train", "auto"}}}};
  const json autod = predict(s);
  ASSERT_FALSE(autod.contains("error")) << autod["error"].dump();
  s["rl"]["train"] = {{"ep", 4}, {"zero_stage", 3}};
  const json stated = predict(s);
  ASSERT_FALSE(stated.contains("error")) << stated["error"].dump();
  EXPECT_LE(autod["rl"]["phases_s"]["train"].get<double>(),
            stated["rl"]["phases_s"]["train"].get<double>() * 1.0001);
  EXPECT_EQ(autod["rl"]["train"]["parallel"]["zero_stage"], 3);
}

// A step past the simulation's bound is refused before it simulates: the bound counts each rollout
// engine's steps, so 8 engines of 16 sequences need at least 800,000 x 2,048 / (16 x 8) steps each
// for 800,000 responses of 2,048 tokens, and fewer engines (a wider tp) more. (Before, each tp the
// rollout tried simulated 4,000,000 steps first: 5 s to the same refusal; with the engine's tp
// chosen, the last tp's layout error came out.) The bound is an engine's, not the pool's: 40,000
// such responses are refused on one engine and run on eight (summed over the engines, the bound
// once refused a job that more GPUs would serve).
TEST(Rl, AStepPastTheBoundIsRefusedBeforeItSimulates) {
  for (const json& tp : {json(1), json(nullptr)}) {
    const json p = predict(base({{"prompts_per_step", 100000},
                                 {"response_len", json::array({{2048, 1}})},
                                 {"rollout", {{"tp", tp}, {"max_batch", 16}}}}));
    ASSERT_TRUE(p.contains("error")) << p.dump().substr(0, 300);
    EXPECT_EQ(p["error"]["code"], "serving.too_many_steps") << p["error"].dump();
    EXPECT_EQ(p["error"]["path"], "/rl/rollout");
    if (tp.is_number()) {
      EXPECT_NE(
          p["error"]["message"].get<std::string>().find("at least 12160000 scheduler steps on a replica"),
          std::string::npos)
          << p["error"].dump();
    }
  }
  const json shared = {{"prompts_per_step", 5000},
                       {"response_len", json::array({{2048, 1}})},
                       {"rollout", {{"tp", 1}, {"max_batch", 16}}}};
  const json one = predict(base(shared, 1));
  EXPECT_EQ(one["error"]["code"], "serving.too_many_steps") << one.dump().substr(0, 300);
  const json eight = predict(base(shared, 8));
  ASSERT_FALSE(eight.contains("error")) << eight["error"].dump();
  EXPECT_EQ(eight["rl"]["rollout"]["responses"], 40000);
}

// The rollout engines of a model with an FP8 checkpoint (DeepSeek-V3) load it as published when
// rl.rollout.precision is not stated: the weight sync sends 671e9 one-byte weights, with a
// warning; stated bf16, twice that and no warning.
TEST(Rl, TheRolloutServesAnFp8CheckpointAsPublished) {
  const auto job = [](const char* model, const char* system, int devices, int prompts, const json& train) {
    return json{{"model", model},
                {"system", system},
                {"num_devices", devices},
                {"rl",
                 {{"prompts_per_step", prompts},
                  {"samples_per_prompt", 4},
                  {"prompt_len", json::array({{256, 1}})},
                  {"response_len", json::array({{512, 1}})},
                  {"train", train}}}};
  };
  json s = job("deepseek-v3", "dgx-h200", 64, 32, {{"pp", 8}, {"ep", 8}, {"zero_stage", 1}});
  const auto warned = [](const json& p) {
    for (const json& w : p["warnings"])
      if (w["code"] == "rl.rollout_checkpoint_precision") return true;
    return false;
  };
  const json fp8 = predict(s);
  ASSERT_FALSE(fp8.contains("error")) << fp8.dump().substr(0, 300);
  EXPECT_TRUE(warned(fp8));
  const double params = fp8["params"]["total"].get<double>();
  EXPECT_NEAR(fp8["rl"]["weight_sync"]["bytes"].get<double>(), params, 0.01 * params);
  s["rl"]["rollout"] = {{"precision", "bf16"}};
  const json bf16 = predict(s);
  ASSERT_FALSE(bf16.contains("error")) << bf16.dump().substr(0, 300);
  EXPECT_FALSE(warned(bf16));
  EXPECT_NEAR(bf16["rl"]["weight_sync"]["bytes"].get<double>(), 2 * params, 0.02 * params);
  // gpt-oss-20b's checkpoint quantises its experts alone (model.checkpoint_experts_only): its
  // engines get MXFP4 experts (0.5 + 1/32 bytes a weight) and 16-bit everything else. Not counted
  // so, the rest went at 0.53 bytes: the difference is the non-expert weights x 1.47 bytes.
  json oss = job("gpt-oss-20b", "dgx-h100", 8, 8, {{"zero_stage", 3}});
  const json published = predict(oss);
  ASSERT_FALSE(published.contains("error")) << published.dump().substr(0, 300);
  oss["model"] = json::parse(optimus::api::preset("models", "gpt-oss-20b"));
  oss["model"].erase("checkpoint_experts_only");
  const json every_matrix = predict(oss);
  // 24 layers of attention (hidden 2880, 64 query and 8 KV heads of 64, biases, sinks), router
  // (32 experts) and two norms; the embedding and the LM head (201,088 x 2,880 each); the final norm.
  const double h = 2880, q = 64 * 64, kv = 8 * 64;
  const double layer = (h * q + q) + 2 * (h * kv + kv) + (q * h + h) + 64 + (h * 32 + 32) + 2 * h;
  const double rest = 24 * layer + 2 * 201088 * h + h;
  EXPECT_NEAR(published["rl"]["weight_sync"]["bytes"].get<double>() -
                  every_matrix["rl"]["weight_sync"]["bytes"].get<double>(),
              rest * (2.0 - (0.5 + 1.0 / 32)), 1e-3 * rest);
}

struct BadCase {
  const char* what;
  json patch;  // merged into the scenario (null removes a key)
  const char* code;
  const char* path;
};

// More trainer ranks than a mini-batch's sequences warn (the update is padded past the responses).
TEST(Rl, RanksBeyondTheSequencesWarn) {
  const auto warned = [](const json& p) {
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "rl.train_ranks_beyond_sequences") return true;
    return false;
  };
  const json few = predict(base());  // 256 responses on 8 devices
  ASSERT_FALSE(few.contains("error")) << few["error"].dump();
  EXPECT_FALSE(warned(few));
  const json many = predict(base(json::object(), 512));
  ASSERT_FALSE(many.contains("error")) << many["error"].dump();
  EXPECT_TRUE(warned(many));
}

// More rollout engines than the step's responses warn, naming the idle count: 256 responses on 8
// engines do not, on 512 engines at tp 1 they leave 256 idle.
TEST(Rl, RolloutEnginesBeyondTheResponsesWarn) {
  const auto idle = [](const json& p) {
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "rl.rollout_engines_idle") return w["message"].get<std::string>();
    return std::string();
  };
  const json few = predict(base());
  ASSERT_FALSE(few.contains("error")) << few["error"].dump();
  EXPECT_EQ(idle(few), "");
  const json many = predict(base(json::object(), 512));
  ASSERT_FALSE(many.contains("error")) << many["error"].dump();
  EXPECT_NE(idle(many).find("512 engines outnumber the step's 256 responses: 256 of them"), std::string::npos)
      << idle(many);
}

// A layout that does not tile its pool says what would, in the keys the person wrote.
TEST(Rl, LayoutErrorsSayWhatWould) {
  const auto message = [](const json& rl) {
    const json p = predict(base(rl));
    EXPECT_TRUE(p.contains("error")) << p.dump().substr(0, 300);
    return p.value("error", json::object()).value("message", std::string());
  };
  const std::string tp3 = message({{"rollout", {{"tp", 3}}}});
  EXPECT_NE(
      tp3.find(
          "tp 3 x pp 1 = 3 devices does not divide its pool of 8 devices; with pp 1, tp 1, 2, 4 or 8 would"),
      std::string::npos)
      << tp3;
  const std::string dp3 = message({{"rollout", {{"tp", nullptr}, {"dp", 3}}}});
  EXPECT_NE(dp3.find("dp 3 x pp 1 does not divide the rollout pool of 8 devices"), std::string::npos) << dp3;
  const std::string train = message({{"train", {{"tp", 4}, {"dp", 4}}}});
  EXPECT_NE(train.find("= 16 devices, more than its pool of 8 devices; with tp x pp x cp = 4, dp 2 would"),
            std::string::npos)
      << train;
}

TEST(Rl, BadInputHasACodeAndAPath) {
  const BadCase cases[] = {
      {"a rollout past the simulation's bound (80,000 responses decoded one at a time)",
       {{"rl", {{"prompts_per_step", 10000}, {"rollout", {{"max_batch", 1}}}}}},
       "serving.too_many_steps",
       "/rl/rollout"},
      {"devices that do not add up",
       {{"rl", {{"placement", "split"}, {"rollout_devices", 4}, {"train_devices", 6}}}},
       "rl.devices_mismatch",
       "/rl/rollout_devices"},
      {"split without pools",
       {{"rl", {{"placement", "split"}}}},
       "rl.split_needs_devices",
       "/rl/rollout_devices"},
      {"pools when colocated",
       {{"rl", {{"train_devices", 4}}}},
       "rl.devices_for_colocated",
       "/rl/train_devices"},
      {"staleness without split",
       {{"rl", {{"async", {{"staleness", 1}}}}}},
       "rl.async_needs_split",
       "/rl/async/staleness"},
      {"zero prompts", {{"rl", {{"prompts_per_step", 0}}}}, "scenario.out_of_range", "/rl/prompts_per_step"},
      {"unknown response style",
       {{"rl", {{"response_style", "medium_cot"}}}},
       "scenario.invalid_value",
       "/rl/response_style"},
      {"response style not a string",
       {{"rl", {{"response_style", 1}}}},
       "scenario.wrong_type",
       "/rl/response_style"},
      {"zero samples",
       {{"rl", {{"samples_per_prompt", 0}}}},
       "scenario.out_of_range",
       "/rl/samples_per_prompt"},
      {"response above the context",
       {{"model", "llama2-7b"}, {"rl", {{"response_len", 8192}}}},
       "rl.response_exceeds_context",
       "/rl/response_len"},
      {"rollout layout that does not fill its pool",
       {{"rl", {{"rollout", {{"tp", 2}, {"dp", 3}}}}}},
       "rl.rollout_layout_mismatch",
       "/rl/rollout"},
      {"rollout layout that does not fit the model",
       {{"model", "llama3.1-405b"}, {"rl", {{"rollout", {{"tp", 1}}}, {"train", {{"tp", 8}}}}}},
       "rl.rollout_does_not_fit",
       "/rl/rollout"},
      {"trainer layout that does not fill its pool",
       {{"rl", {{"train", {{"tp", 2}, {"dp", 3}}}}}},
       "rl.train_layout_mismatch",
       "/rl/train"},
      {"rollout layout far past its pool (no integer overflow)",
       {{"rl", {{"rollout", {{"tp", 100000000}, {"pp", 100000000}, {"dp", 100000000}}}}}},
       "rl.rollout_layout_mismatch",
       "/rl/rollout"},
      {"trainer layout far past its pool",
       {{"rl", {{"train", {{"tp", 100000000}, {"pp", 100000000}, {"cp", 100000000}}}}}},
       "rl.train_layout_mismatch",
       "/rl/train"},
      {"rl beside training",
       {{"training", {{"global_batch", 8}, {"seq_len", 1024}}}},
       "rl.with_other_workload",
       "/rl"},
      {"critic for grpo", {{"rl", {{"critic", "llama3.2-1b"}}}}, "rl.critic_without_ppo", "/rl/critic"},
      {"more mini-batches than responses",
       {{"rl", {{"mini_batches", 1000}}}},
       "rl.mini_batches_exceed_responses",
       "/rl/mini_batches"},
      {"unknown placement", {{"rl", {{"placement", "remote"}}}}, "scenario.invalid_value", "/rl/placement"},
      {"unknown rollout software",
       {{"rl", {{"rollout", {{"software", "nope"}}}}}},
       "preset.unknown_software",
       "/rl/rollout/software"},
      {"train neither object nor auto", {{"rl", {{"train", "fast"}}}}, "scenario.invalid_value", "/rl/train"},
      {"unknown key", {{"rl", {{"rollouts", 2}}}}, "scenario.unknown_key", "/rl/rollouts"},
      {"role counts that do not make the pool",
       {{"rl", {{"roles", {{"actor", 4}, {"reference", 2}}}}}},
       "rl.roles_devices_mismatch",
       "/rl/roles"},
      {"role counts past the pool",
       {{"rl", {{"roles", {{"actor", 8}}}}}},
       "rl.roles_devices_mismatch",
       "/rl/roles"},
      {"a critic's devices for grpo",
       {{"rl", {{"roles", {{"actor", 4}, {"critic", 4}}}, {"reference", false}}}},
       "rl.roles_role_absent",
       "/rl/roles/critic"},
      {"a reward model's devices without one",
       {{"rl", {{"roles", {{"actor", 4}, {"reward", 4}}}, {"reference", false}}}},
       "rl.roles_role_absent",
       "/rl/roles/reward"},
      {"train.dp with separate roles",
       {{"rl", {{"roles", "separate"}, {"train", {{"dp", 4}}}}}},
       "rl.roles_dp_given",
       "/rl/train/dp"},
      {"a role's devices not whole replicas",
       {{"rl", {{"roles", {{"actor", 5}, {"reference", 3}}}, {"train", {{"tp", 2}}}}}},
       "rl.train_layout_mismatch",
       "/rl/roles/actor"},
      {"devices left to the roles not whole replicas",
       {{"rl", {{"roles", {{"actor", 3}}}, {"train", {{"pp", 3}}}}}},
       "rl.train_layout_mismatch",
       "/rl/roles"},
      {"unknown roles mode", {{"rl", {{"roles", "pooled"}}}}, "scenario.invalid_value", "/rl/roles"},
      {"a negative micro-batch token budget",
       {{"rl", {{"train", {{"micro_batch_tokens", -1}}}}}},
       "scenario.out_of_range",
       "/rl/train/micro_batch_tokens"},
      {"a fractional micro-batch token budget",
       {{"rl", {{"train", {{"micro_batch_tokens", 1.5}}}}}},
       "scenario.not_integer",
       "/rl/train/micro_batch_tokens"},
      {"micro-batch token budget past the bound",
       {{"rl", {{"train", {{"micro_batch_tokens", 2e9}}}}}},
       "scenario.out_of_range",
       "/rl/train/micro_batch_tokens"},
      {"zero devices for a role",
       {{"rl", {{"roles", {{"actor", 0}}}}}},
       "scenario.out_of_range",
       "/rl/roles/actor"},
      {"unknown role", {{"rl", {{"roles", {{"judge", 2}}}}}}, "scenario.unknown_key", "/rl/roles/judge"},
      {"partial rollout on-policy",
       {{"rl",
         {{"placement", "split"},
          {"rollout_devices", 4},
          {"train_devices", 4},
          {"async", {{"staleness", 0}, {"partial_rollout", true}}}}}},
       "rl.partial_rollout_needs_staleness",
       "/rl/async/partial_rollout"},
      {"partial rollout not a boolean",
       {{"rl",
         {{"placement", "split"},
          {"rollout_devices", 4},
          {"train_devices", 4},
          {"async", {{"staleness", 1}, {"partial_rollout", "yes"}}}}}},
       "scenario.wrong_type",
       "/rl/async/partial_rollout"},
      {"unknown offload",
       {{"rl", {{"train", {{"offload", "disk"}}}}}},
       "scenario.invalid_value",
       "/rl/train/offload"},
  };
  for (const BadCase& c : cases) {
    json s = base();
    s.merge_patch(c.patch);
    const json p = predict(s);
    ASSERT_TRUE(p.contains("error")) << c.what << ": " << p.dump().substr(0, 200);
    EXPECT_EQ(p["error"]["code"], c.code) << c.what << ": " << p["error"].dump();
    EXPECT_EQ(p["error"]["path"], c.path) << c.what << ": " << p["error"].dump();
    // The simulation's bound says what an RL planner can change.
    if (std::string(c.code) == "serving.too_many_steps") {
      EXPECT_NE(p["error"]["message"].get<std::string>().find("fewer prompts_per_step"), std::string::npos)
          << p["error"].dump();
    }
    // validate reports the same problem.
    const json v = json::parse(optimus::api::validate(s.dump()));
    ASSERT_TRUE(v.contains("error")) << c.what;
    EXPECT_EQ(v["error"]["code"], c.code) << c.what;
  }
}

// ---- The stacks' mechanisms: roles, partial rollout, offload, the response-length prior ----

// PPO with a reward model: four models on the trainer.
json ppo(const json& more = json::object()) {
  json rl = {{"algorithm", "ppo"}, {"samples_per_prompt", nullptr}, {"reward_model", "llama3.1-8b"}};
  rl.merge_patch(more);
  return base(rl);
}

TEST(RlRoles, SeparateRunsTheForwardsAtOnceThenTheSlowerUpdate) {
  const json r = rl_of(ppo({{"roles", {{"actor", 2}, {"critic", 2}, {"reference", 2}, {"reward", 2}}}}));
  ASSERT_TRUE(r.contains("roles"));
  const json& roles = r["roles"];
  EXPECT_EQ(roles["mode"], "separate");
  const json& ph = r["phases_s"];
  EXPECT_EQ(num(ph["train"]), std::max(num(roles["actor"]["update_s"]), num(roles["critic"]["update_s"])));
  EXPECT_EQ(num(ph["old_logprob"]),
            std::max(num(roles["actor"]["forward_s"]), num(roles["critic"]["forward_s"])));
  EXPECT_EQ(num(ph["reference"]), num(roles["reference"]["forward_s"]));
  EXPECT_EQ(num(ph["reward"]), num(roles["reward"]["forward_s"]));
  EXPECT_EQ(num(roles["reference"]["update_s"]), 0);  // frozen
  const double side =
      std::max({num(ph["reward"]), num(ph["reference"]), num(ph["old_logprob"])}) + num(ph["train"]);
  const double step = num(ph["rollout"]) + side + num(ph["weight_sync"]) + num(ph["swap"]);
  EXPECT_NEAR(num(r["step_time_s"]), step, 1e-9 * step);
  const double forwards = std::max({num(ph["reward"]), num(ph["reference"]), num(ph["old_logprob"])});
  for (const char* k : {"actor", "critic", "reference", "reward"}) {
    const json& x = roles[k];
    EXPECT_EQ(x["devices"].get<int>(), 2) << k;
    EXPECT_NEAR(num(x["idle_s"]), side - num(x["forward_s"]) - num(x["update_s"]), 1e-9 * side) << k;
    // The idle time in its two waits: after the role's forward, for the slowest forward; after
    // its update, for the slower update (a frozen role waits through the whole update).
    EXPECT_NEAR(num(x["wait_after_forward_s"]), forwards - num(x["forward_s"]), 1e-9 * side) << k;
    EXPECT_NEAR(num(x["wait_after_update_s"]), num(ph["train"]) - num(x["update_s"]), 1e-9 * side) << k;
    EXPECT_NEAR(num(x["idle_s"]), num(x["wait_after_forward_s"]) + num(x["wait_after_update_s"]), 1e-9 * side)
        << k;
  }
  EXPECT_EQ(num(roles["reference"]["wait_after_update_s"]), num(ph["train"]));
  // The actor's update on its 2 devices is the update of the same job's policy on a pool of 2
  // (the same trainer scenario: one mini-batch over dp 2).
  const json alone = rl_of(base({{"reference", false}, {"samples_per_prompt", 1}}, 2));
  EXPECT_NEAR(num(roles["actor"]["update_s"]), num(alone["phases_s"]["train"]),
              1e-9 * num(alone["phases_s"]["train"]));
  // Shared roles run the same models one after another on all 8 devices: the phases add up.
  const json shared = rl_of(ppo());
  EXPECT_EQ(shared["roles"]["mode"], "shared");
  EXPECT_FALSE(shared["roles"].contains("actor"));
}

TEST(RlRoles, AbsentCountsSplitThePoolInProportionToTheWork) {
  // OpenRLHF's benchmark: 6 trainer devices over reference, reward, actor, critic. The actor
  // (update 3 + old log-probs 1) and the critic (values 1 + update 3) do four forwards' work per
  // token each, the reference and the reward model one: 2 : 2 : 1 : 1.
  json s = ppo({{"placement", "split"}, {"rollout_devices", 2}, {"train_devices", 6}, {"roles", "separate"}});
  const json r = rl_of(s);
  EXPECT_EQ(r["roles"]["actor"]["devices"].get<int>(), 2);
  EXPECT_EQ(r["roles"]["critic"]["devices"].get<int>(), 2);
  EXPECT_EQ(r["roles"]["reference"]["devices"].get<int>(), 1);
  EXPECT_EQ(r["roles"]["reward"]["devices"].get<int>(), 1);
  // One count given: the rest share what is left (actor 3; critic 1, reference 1, reward 1).
  s["rl"]["roles"] = {{"actor", 3}};
  const json g = rl_of(s);
  EXPECT_EQ(g["roles"]["actor"]["devices"].get<int>(), 3);
  EXPECT_EQ(g["roles"]["critic"]["devices"].get<int>() + g["roles"]["reference"]["devices"].get<int>() +
                g["roles"]["reward"]["devices"].get<int>(),
            3);
  // GRPO without a reference: the actor alone takes the pool.
  const json one = rl_of(base({{"reference", false}, {"roles", "separate"}}));
  EXPECT_EQ(one["roles"]["actor"]["devices"].get<int>(), 8);
  EXPECT_FALSE(one["roles"].contains("critic"));
}

TEST(RlRoles, MemoryIsCheckedPerRole) {
  // Llama 2 70B's reference on one device: its weights alone (140 GB) do not fit an 80 GB H100.
  json s = ppo({{"roles", {{"actor", 4}, {"critic", 2}, {"reference", 1}, {"reward", 1}}},
                {"reward_model", "llama3.2-1b"}});
  s["model"] = "llama2-70b";
  s["rl"]["rollout"] = {{"tp", 4}};
  s["rl"]["response_len"] = json::array({{256, 1}});
  const json p = predict(s);
  ASSERT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
  const json& roles = p["rl"]["roles"];
  EXPECT_FALSE(roles["reference"]["fits"].get<bool>());
  EXPECT_TRUE(roles["reward"]["fits"].get<bool>());
  EXPECT_GT(num(roles["reference"]["per_device_bytes"]), 80e9);
  EXPECT_FALSE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_TRUE(warns(p, "memory.does_not_fit"));
}

TEST(RlPartialRollout, TheStepCostsItsThroughputShareNotItsStraggler) {
  // One response in 64 sixteen times longer: without partial rollout the asynchronous rollout
  // still waits for it; with it, unfinished responses carry over and the step costs the
  // marginal time of one more step's responses.
  const json split = {{"placement", "split"},
                      {"rollout_devices", 4},
                      {"train_devices", 4},
                      {"prompts_per_step", 64},
                      {"response_len", json::array({{256, 63}, {4096, 1}})}};
  json whole = split;
  whole["async"] = {{"staleness", 1}};
  json partial = split;
  partial["async"] = {{"staleness", 1}, {"partial_rollout", true}};
  const json a = rl_of(base(whole)), b = rl_of(base(partial));
  const double t1 = num(a["phases_s"]["rollout"]);
  EXPECT_EQ(num(b["rollout"]["makespan_s"]), t1);
  EXPECT_TRUE(b["rollout"]["partial"].get<bool>());
  // Hand-computed: the run of twice the responses (128 prompts) less the run of the step's.
  json twice = whole;
  twice["prompts_per_step"] = 128;
  const double t2 = num(rl_of(base(twice))["rollout"]["makespan_s"]);
  const double expected = std::max(t2 - t1, t1 / 2);  // staleness 1: at least the makespan / 2
  EXPECT_NEAR(num(b["phases_s"]["rollout"]), expected, 1e-9 * expected);
  EXPECT_LT(num(b["phases_s"]["rollout"]), 0.75 * t1);
  EXPECT_LT(num(b["step_time_s"]), num(a["step_time_s"]));
  // Staleness 2 lowers the floor (a response may span three steps), never raises the step.
  partial["async"]["staleness"] = 2;
  EXPECT_LE(num(rl_of(base(partial))["phases_s"]["rollout"]), num(b["phases_s"]["rollout"]));
}

TEST(RlOffload, ParamsAndOptimizerCrossTheHostLinkAroundEachPass) {
  const json sys = json::parse(optimus::preset_json("systems", "dgx-h100"));
  const double link = num(sys["host_link_GBps"]) * 1e9;
  const json none = predict(base({{"reference", true}}));
  const json off =
      predict(base({{"reference", true}, {"train", {{"zero_stage", 3}, {"offload", "params_optimizer"}}}}));
  ASSERT_FALSE(off.contains("error")) << off.dump().substr(0, 300);
  const json& m = off["memory"]["per_device_bytes"];
  const double w = num(m["weights"]), o = num(m["optimizer"]);
  const json &a = none["rl"]["phases_s"], &b = off["rl"]["phases_s"];
  // A forward pass loads and offloads the parameter shard; the update the parameters and the
  // optimizer state; the sync loads and offloads the parameters to gather them.
  EXPECT_NEAR(num(b["old_logprob"]) - num(a["old_logprob"]), 2 * w / link, 1e-9);
  EXPECT_NEAR(num(b["reference"]) - num(a["reference"]), 2 * w / link, 1e-9);
  EXPECT_NEAR(num(b["train"]) - num(a["train"]), 2 * (w + o) / link, 1e-9);
  EXPECT_NEAR(num(b["weight_sync"]) - num(a["weight_sync"]), 2 * w / link, 1e-9);
  const double bytes = 2 * w + 2 * w + 2 * (w + o) + 2 * w;
  EXPECT_NEAR(num(off["rl"]["train"]["offload_bytes_per_device"]), bytes, 1e-6 * bytes);
  EXPECT_NEAR(num(off["rl"]["train"]["offload_s"]), bytes / link, 1e-9);
  EXPECT_EQ(off["rl"]["train"]["offload"], "params_optimizer");
  // The offloaded state is not swapped again around the rollout: only the engine's weights move.
  EXPECT_LT(num(off["rl"]["swap_bytes_per_device"]), num(none["rl"]["swap_bytes_per_device"]));
  // Optimizer only: the update moves the optimizer state; forwards move nothing.
  const json opt =
      predict(base({{"reference", true}, {"train", {{"zero_stage", 3}, {"offload", "optimizer"}}}}));
  EXPECT_NEAR(num(opt["rl"]["phases_s"]["train"]) - num(a["train"]), 2 * o / link, 1e-9);
  EXPECT_EQ(num(opt["rl"]["phases_s"]["old_logprob"]), num(a["old_logprob"]));
}

// A trainer that fits no ZeRO stage keeps its optimizer in host memory where no offload is stated
// (rl.train.offload cpu_optimizer, Megatron-Core's --optimizer-cpu-offload as slime runs it): a
// Qwen3-30B-A3B policy on a 4-device trainer needs 18 bytes a parameter (137 GB a device under
// ZeRO 3) and fits at 6 (weights and gradients), so the job predicts instead of refusing
// (train "auto": rl.train_no_layout) or predicting a trainer that cannot exist.

json moe_on_four(const json& train) {
  json s = base({{"placement", "split"},
                 {"rollout_devices", 4},
                 {"train_devices", 4},
                 {"rollout", {{"tp", 4}}},
                 {"train", nullptr}});
  s["model"] = "qwen3-30b-a3b";
  s["rl"]["train"] = train;
  return s;
}

TEST(RlOffload, ATrainerThatFitsNoOtherWayKeepsItsOptimizerInHostMemory) {
  for (const json& train : {json("auto"), json{{"tp", 1}}}) {
    const json p = predict(moe_on_four(train));
    ASSERT_FALSE(p.contains("error")) << train.dump() << p.dump().substr(0, 300);
    EXPECT_TRUE(warns(p, "rl.train_optimizer_offload_assumed")) << train.dump();
    EXPECT_FALSE(warns(p, "memory.does_not_fit")) << train.dump();
    EXPECT_TRUE(p["rl"]["train"]["parallel"]["optimizer_offload"].get<bool>()) << train.dump();
    EXPECT_EQ(p["rl"]["train"]["offload"], "cpu_optimizer") << train.dump();
    EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>()) << train.dump();
  }
  // Stated offloads are kept: none leaves the trainer that does not fit, and says so.
  json none = moe_on_four(json{{"tp", 1}, {"offload", "none"}});
  const json kept = predict(none);
  EXPECT_TRUE(warns(kept, "memory.does_not_fit"));
  EXPECT_FALSE(warns(kept, "rl.train_optimizer_offload_assumed"));
  EXPECT_FALSE(kept["rl"]["train"]["parallel"].contains("optimizer_offload"));
  EXPECT_EQ(kept["rl"]["train"]["offload"], "none");
  // A stated cpu_optimizer on a trainer that fits anyway: the optimizer's step moves to the CPU
  // and its state leaves the device; no assumption is warned about.
  const json gpu = predict(base({{"train", {{"zero_stage", 3}}}}));
  const json cpu = predict(base({{"train", {{"zero_stage", 3}, {"offload", "cpu_optimizer"}}}}));
  ASSERT_FALSE(cpu.contains("error")) << cpu.dump().substr(0, 300);
  EXPECT_FALSE(warns(cpu, "rl.train_optimizer_offload_assumed"));
  EXPECT_EQ(cpu["rl"]["train"]["offload"], "cpu_optimizer");
  EXPECT_TRUE(cpu["rl"]["train"]["parallel"]["optimizer_offload"].get<bool>());
  EXPECT_LT(num(cpu["rl"]["memory"]["train"]["per_device_bytes"]),
            num(gpu["rl"]["memory"]["train"]["per_device_bytes"]));
  EXPECT_GT(num(cpu["rl"]["phases_s"]["train"]), num(gpu["rl"]["phases_s"]["train"]));
  const double fwd = num(gpu["rl"]["phases_s"]["old_logprob"]);
  EXPECT_NEAR(num(cpu["rl"]["phases_s"]["old_logprob"]), fwd, 1e-9 * fwd);
}

// The assumed mean under a whole-number limit, read from the warning.
std::string assumed_mean(const json& scenario) {
  const json p = predict(scenario);
  for (const auto& w : p["warnings"])
    if (w["code"] == "rl.response_len_assumed") return w["message"].get<std::string>();
  ADD_FAILURE() << p.dump().substr(0, 400);
  return {};
}

bool says(const std::string& message, const std::string& what) {
  return message.find(what) != std::string::npos;
}

TEST(RlPrior, TheAssumedMeanResponseStopsGrowingWithTheLimit) {
  // A base or instruct policy: a quarter of the limit up to 4,096; 1,024 tokens above it.
  EXPECT_TRUE(says(assumed_mean(base({{"response_len", 2048}})), "512 tokens"));
  EXPECT_TRUE(says(assumed_mean(base({{"response_len", 4096}})), "1024 tokens"));
  const std::string at32k = assumed_mean(base({{"response_len", 32768}}));
  EXPECT_TRUE(says(at32k, "1024 tokens for a base or instruct model")) << at32k;
  EXPECT_TRUE(says(at32k, "read from the model's name")) << at32k;
  // Same draws as the stated mean, the longest at the limit: tokens grow by less than the limit.
  const json limit = rl_of(base({{"response_len", 32768}}));
  const json stated = rl_of(base({{"response_len", {{"mean", 1024}, {"max", 32768}}}}));
  const double extra = num(limit["tokens_per_step"]) - num(stated["tokens_per_step"]);
  EXPECT_GT(extra, 0);
  EXPECT_LT(extra, 32768);
}

// base() with the model inline under another name (Llama 3.1 8B's shape).
json named(const std::string& name, const json& rl_overrides = json::object()) {
  json s = base(rl_overrides);
  json model = json::parse(optimus::preset_json("models", "llama3.1-8b"));
  model["name"] = name;
  s["model"] = model;
  return s;
}

TEST(RlPrior, ALongChainOfThoughtModelWritesHalfTheLimitUpTo5500Tokens) {
  // DeepScaleR's R1-Distill-Qwen-1.5B: 3,500-5,500 tokens under 8,192.
  const json r1 = {{"response_len", 8192}};
  EXPECT_TRUE(says(assumed_mean(named("DeepSeek-R1-Distill-Llama-8B", r1)), "4096 tokens for a long"));
  const json at32k = {{"response_len", 32768}};
  EXPECT_TRUE(says(assumed_mean(named("DeepSeek-R1-Distill-Llama-8B", at32k)), "5500 tokens for a long"));
  // The markers are whole name tokens, case ignored.
  for (const char* name : {"QwQ-32B", "Qwen3-8B-Thinking-2507", "deepseek-r1", "Skywork-OR1-7B",
                           "DeepScaleR-1.5B-Preview", "OpenThinker-7B", "Phi-4-reasoning"})
    EXPECT_TRUE(says(assumed_mean(named(name, at32k)), "5500 tokens")) << name;
  for (const char* name : {"Llama 3.1 8B", "Qwen3-8B", "Kimi-K2", "R1X-8B", "Qwen2.5-Math-7B", "Marker1"})
    EXPECT_TRUE(says(assumed_mean(named(name, at32k)), "1024 tokens")) << name;
  // rl.response_style states it either way, and says so.
  const std::string stated_long =
      assumed_mean(base({{"response_len", 32768}, {"response_style", "long_cot"}}));
  EXPECT_TRUE(says(stated_long, "5500 tokens")) << stated_long;
  EXPECT_TRUE(says(stated_long, "as rl.response_style states")) << stated_long;
  EXPECT_TRUE(says(assumed_mean(named("DeepSeek-R1-Distill-Llama-8B",
                                      {{"response_len", 32768}, {"response_style", "short_cot"}})),
                   "1024 tokens"));
  // The predictions follow: the same as the stated means (but the longest response at the limit).
  const json limit = rl_of(named("DeepSeek-R1-Distill-Llama-8B", at32k));
  const json mean =
      rl_of(named("DeepSeek-R1-Distill-Llama-8B", {{"response_len", {{"mean", 5500}, {"max", 32768}}}}));
  const double extra = num(limit["tokens_per_step"]) - num(mean["tokens_per_step"]);
  EXPECT_GE(extra, 0);
  EXPECT_LT(extra, 32768);
  // A stated mean is used as given whatever the style: no warning, the same step.
  const json given =
      predict(base({{"response_len", {{"mean", 700}, {"max", 32768}}}, {"response_style", "long_cot"}}));
  EXPECT_TRUE(given["warnings"].empty()) << given["warnings"].dump();
  EXPECT_EQ(given["rl"], rl_of(base({{"response_len", {{"mean", 700}, {"max", 32768}}}})));
}

TEST(RlMechanisms, ValidateEchoesTheNewKeysAndTheyReadBackTheSame) {
  json s = base({{"placement", "split"},
                 {"rollout_devices", 4},
                 {"train_devices", 4},
                 {"async", {{"staleness", 1}, {"partial_rollout", true}}},
                 {"roles", {{"actor", 4}}},
                 {"reference", false},
                 {"response_style", "long_cot"},
                 {"train", {{"zero_stage", 3}, {"offload", "optimizer"}}}});
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_FALSE(v.contains("error")) << v.dump().substr(0, 300);
  const json& rl = v["scenario"]["rl"];
  EXPECT_EQ(rl["roles"]["actor"], 4);
  EXPECT_EQ(rl["async"]["partial_rollout"], true);
  EXPECT_EQ(rl["train"]["offload"], "optimizer");
  EXPECT_EQ(rl["response_style"], "long_cot");
  EXPECT_EQ(predict(v["scenario"])["rl"], predict(s)["rl"]);
}

// The data-parallel straggler (rl_straggler_share): a mini-batch's responses on a rank are a
// draw of the step's lengths, and the optimizer step waits for the heaviest of dp ranks.
optimus::RlWorkload workload(const json& scenario) {
  auto s = optimus::parse_scenario(scenario.dump());
  EXPECT_TRUE(static_cast<bool>(s));
  return s ? *s->rl : optimus::RlWorkload{};
}

TEST(RlStraggler, NoneForFixedLengthsOrOneRank) {
  EXPECT_EQ(optimus::rl_straggler_share(workload(base()), 8), 0.0);
  const json two = base({{"response_len", json::array({{128, 1}, {896, 1}})}});
  EXPECT_EQ(optimus::rl_straggler_share(workload(two), 1), 0.0);
  EXPECT_GT(optimus::rl_straggler_share(workload(two), 2), 0.0);
  // Through the step: fixed lengths add nothing to the optimizer steps; a trainer of one
  // data-parallel rank (tp 8 on 8 devices) neither.
  const json fixed = rl_of(base({{"mini_batches", 4}}));
  EXPECT_EQ(num(fixed["train"]["straggler_s"]), 0.0);
  EXPECT_NEAR(num(fixed["phases_s"]["train"]), 4 * num(fixed["train"]["iteration_time_s"]), 1e-9);
  json one_rank_rl = {{"response_len", json::array({{128, 1}, {896, 1}})}, {"train", {{"tp", 8}}}};
  const json one_rank = rl_of(base(one_rank_rl));
  EXPECT_EQ(num(one_rank["train"]["parallel"]["dp"]), 1);
  EXPECT_EQ(num(one_rank["train"]["straggler_s"]), 0.0);
}

TEST(RlStraggler, TheHeaviestRankByHand) {
  // Prompts 256, responses 128 or 896 (equal weights): L = 384 or 1152, E[L] = 768, sd 384, CV
  // 1/2. 32 x 8 = 256 responses, one mini-batch, 8 ranks: n = 32 a rank. The heaviest of 8 ranks
  // expects z_8 = 1.4236 standard deviations above the mean (the expected largest of 8 standard
  // normals, Harter 1961's table; Blom's approximation gives 1.434): 1.4236 x 0.5 / sqrt(32) =
  // 0.1258 of the mean rank's tokens.
  const json two = base({{"response_len", json::array({{128, 1}, {896, 1}})}});
  const double share = optimus::rl_straggler_share(workload(two), 8);
  EXPECT_NEAR(share, 1.4236 * 0.5 / std::sqrt(32.0), 0.01 * 0.1258);
  // Four times the responses per rank: half the share (1 / sqrt n); four mini-batches of the same
  // step: twice it.
  EXPECT_NEAR(
      optimus::rl_straggler_share(
          workload(base({{"prompts_per_step", 128}, {"response_len", json::array({{128, 1}, {896, 1}})}})),
          8),
      share / 2, 1e-12);
  EXPECT_NEAR(
      optimus::rl_straggler_share(
          workload(base({{"mini_batches", 4}, {"response_len", json::array({{128, 1}, {896, 1}})}})), 8),
      share * 2, 1e-12);
  // Two ranks: z_2 = 1 / sqrt(pi) = 0.5642 exactly; Blom's approximation reads 0.5895 (+4.5%).
  EXPECT_NEAR(optimus::rl_straggler_share(workload(two), 2), 0.5895 * 0.5 / std::sqrt(128.0), 0.001 * 0.026);
  // In the step, inside train: the iteration of sequences longer by the share, less the mean
  // rank's. Here the token-proportional seconds are most of the iteration, so about the share of
  // it; a little more, as the longer sequences add attention's square and whole GEMM tiles
  // (2 x 1,082 rows against 2 x 960).
  const json r = rl_of(two);
  const double straggler = num(r["train"]["straggler_s"]), iteration = num(r["train"]["iteration_time_s"]);
  EXPECT_NEAR(num(r["phases_s"]["train"]), iteration + straggler, 1e-9);
  EXPECT_GT(straggler, 0.8 * share * iteration);
  EXPECT_LT(straggler, 1.25 * share * iteration);
  // By hand: the trainer as the step reports it (layout, mini-batch, sequence length) predicted as
  // a training scenario, at its sequence length and at one longer by the share (no cp, no sequence
  // parallelism: no padding); the difference is the straggler.
  const json& t = r["train"];
  const auto iteration_at = [&](std::int64_t seq_len) {
    const json p = predict(
        {{"model", "llama3.1-8b"},
         {"system", "dgx-h100"},
         {"num_devices", 8},
         {"parallel", t["parallel"]},
         {"training", {{"global_batch", t["global_batch"]}, {"seq_len", seq_len}, {"precision", "bf16"}}}});
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return p.contains("training") ? num(p["training"]["iteration_time_s"]) : 0.0;
  };
  const std::int64_t seq = t["seq_len"].get<std::int64_t>();
  EXPECT_NEAR(iteration_at(seq), iteration, 1e-9 * iteration);
  EXPECT_NEAR(straggler, iteration_at(std::llround(static_cast<double>(seq) * (1 + share))) - iteration,
              1e-9 * iteration);
}

TEST(RlStraggler, TheResponseCutAtTheLimitHoldsUpItsMiniBatch) {
  // A whole-number limit: responses a truncated exponential with mean 1,024 below 16,384, the
  // step's longest at 16,384. 4 prompts x 8 samples on 8 ranks, 2 mini-batches: n = 2 a rank.
  // The mini-batch with the longest waits for its rank: that response (prompt mean + 16,384)
  // plus one mean sequence, (16,384 - 1,024) / (2 x E[L]) over the mean load, which exceeds the
  // spread; the other mini-batch has the spread alone.
  const json lim = base({{"prompts_per_step", 4},
                         {"prompt_len", json::array({{256, 1}})},
                         {"response_len", 16384},
                         {"mini_batches", 2}});
  auto s = optimus::parse_scenario(lim.dump());
  ASSERT_TRUE(static_cast<bool>(s));
  const json p = predict(lim);
  // The responses as the step reads the limit (rl.cpp read_length_limits: the short_cot prior's
  // mean of 1,024 under 16,384, the longest at the limit), written out here.
  optimus::RlWorkload rl = *s->rl;
  optimus::LengthDist r;
  r.shaped = true;
  r.min = 1;
  r.max = 16384;
  r.mean = 1024;
  r.rate = optimus::truncated_exponential_rate(1024, 1, 16384);
  r.longest_at_max = true;
  rl.response_len = r;
  const double with = optimus::rl_straggler_share(rl, 8);
  rl.response_len.longest_at_max = false;
  const double spread = optimus::rl_straggler_share(rl, 8);
  const double mean = 256 + 1024;
  EXPECT_NEAR(with, (spread + (16384 - 1024) / (2 * mean)) / 2, 1e-9);
  EXPECT_GT(with, spread);
  ASSERT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
  EXPECT_GT(num(p["rl"]["train"]["straggler_s"]), 0.0);
}

// The layout search behind rl.train "auto" and the placement search reads back: a ranked
// placement loaded the way the page's search view loads it (web/src/ui/search.ts, rlWithCandidate:
// the placement, its pools, the rollout tp and the trainer's tp, pp, cp, ep, etp, ZeRO stage and
// recompute) predicts the step the search reported. rl.train has no sequence_parallel key (it is on
// where tp > 1), so the search keeps it so too: it had ranked a tp 2 trainer without it (an 8-A100
// job of 29-token packs, 0.17680 s) that read back with it (padded to 30 tokens, 0.17691 s).
TEST(Rl, ASearchedPlacementReadsBackToTheStepTheSearchReported) {
  const json s = {{"model", "llama3.2-1b"},
                  {"system", "aws-p4d"},
                  {"num_devices", 8},
                  {"economics", {{"usd_per_gpu_hour", 2}}},
                  {"rl",
                   {{"prompts_per_step", 4},
                    {"samples_per_prompt", 4},
                    {"prompt_len", 64},
                    {"response_len", {{"mean", 8}, {"max", 256}}},
                    {"train", "auto"}}}};
  const json found = json::parse(optimus::api::search(s.dump(), R"({"top": 4})"));
  ASSERT_FALSE(found.contains("error")) << found.dump().substr(0, 300);
  ASSERT_FALSE(found["best"].empty());
  for (const json& c : found["best"]) {
    const json& p = c["rl"]["train"]["parallel"];
    EXPECT_EQ(p["sequence_parallel"].get<bool>(), p["tp"].get<int>() > 1) << p.dump();
    json loaded = s;
    json& rl = loaded["rl"];
    rl["placement"] = c["placement"];
    if (c["placement"] == "split") {
      rl["rollout_devices"] = c["rollout_devices"];
      rl["train_devices"] = c["train_devices"];
    }
    rl["rollout"] = {{"tp", c["rl"]["rollout"]["parallel"]["tp"]}};
    rl["train"] = json::object();
    for (const char* k : {"tp", "pp", "cp", "ep", "etp", "zero_stage", "recompute"}) rl["train"][k] = p[k];
    const json again = rl_of(loaded);
    EXPECT_NEAR(again["step_time_s"].get<double>(), c["step_time_s"].get<double>(),
                1e-9 * c["step_time_s"].get<double>())
        << c["placement"] << " " << p.dump();
  }
}

// validate refuses `s` with `code` at `path`, and predict with the same error.
void expect_validate_refuses_as_predict(const json& s, const char* code, const char* path) {
  const json v = json::parse(optimus::api::validate(s.dump()));
  ASSERT_TRUE(v.contains("error")) << v.dump().substr(0, 300);
  EXPECT_EQ(v["error"]["code"], code);
  EXPECT_EQ(v["error"]["path"], path);
  EXPECT_EQ(v["error"], predict(s)["error"]);
}

// A rollout layout that no engine runs is refused by validate as by predict (the fuzzer's finding:
// ep 16 over 8 attention data-parallel ranks passed validate).
TEST(Rl, ValidateRefusesTheRolloutLayoutsPredictRefuses) {
  const json s = {{"model", "qwen3-30b-a3b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 16},
                  {"rl",
                   {{"prompts_per_step", 4},
                    {"placement", "split"},
                    {"rollout_devices", 8},
                    {"train_devices", 8},
                    {"rollout", {{"tp", 1}, {"dp", 8}, {"ep", 16}}}}}};
  expect_validate_refuses_as_predict(s, "rl.rollout_layout_invalid", "/rl/rollout");
}

// train "auto" where no trainer layout fits: validate refuses it as predict does (the fuzzer's
// finding: gpt-oss-120b's 117 B parameters, 16 bytes each with the optimizer, on 8 H100 passed
// validate, which did not search the trainer's layout, and predict refused it).
TEST(Rl, ValidateRefusesAnAutoTrainerThatNoLayoutFits) {
  json s = json::parse(optimus::api::preset("scenarios", "qwen2.5-7b-grpo-8xh100"));
  s["model"] = "gpt-oss-120b";
  s["rl"]["train"] = "auto";
  expect_validate_refuses_as_predict(s, "rl.train_no_layout", "/rl/train");
  // The 7B job it came from: its trainer found, validate and predict both answer.
  s["model"] = "qwen2.5-7b";
  EXPECT_FALSE(json::parse(optimus::api::validate(s.dump())).contains("error"));
  EXPECT_FALSE(predict(s).contains("error"));
}

// A trainer that no layout fits names the fewest devices whose trainer search finds one (2-32
// times the trainer's): Qwen3-235B's GRPO job, rollout in fp8, on 8 H100 needs 32 (16 do not);
// split 8 + 8, a training pool of 32 (40 in all). The job predicts there and is refused at half.
TEST(Rl, ATrainerThatNoLayoutFitsNamesTheFewestDevices) {
  json s = json::parse(optimus::api::preset("scenarios", "qwen2.5-7b-grpo-8xh100"));
  s["model"] = "qwen3-235b-a22b";
  s["rl"]["rollout"] = {{"precision", "fp8"}};
  json split = s;
  split["num_devices"] = 16;
  split["rl"]["placement"] = "split";
  split["rl"]["rollout_devices"] = 8;
  split["rl"]["train_devices"] = 8;
  // (the job, the devices named, its words, the trainer's devices there and the largest refused:
  // 16 and 32 were tried, then 24, the one whole node between them)
  for (const auto& [job, fewest, words, trainer, below] :
       {std::tuple{s, 24, "; 24 devices would (no layout of 16 does)", 24, 16},
        std::tuple{split, 32, "; a training pool of 24 devices would (32 in all; no layout of 16 does)", 24,
                   16}}) {
    const json e = predict(job)["error"];
    ASSERT_EQ(e["code"], "rl.train_no_layout") << e.dump();
    EXPECT_EQ(e["fewest_devices"], fewest) << e.dump();
    EXPECT_NE(e["message"].get<std::string>().find(words), std::string::npos) << e["message"];
    EXPECT_EQ(json::parse(optimus::api::validate(job.dump()))["error"]["fewest_devices"], fewest);
    const bool pools = job["rl"].contains("train_devices");
    // Split: the rollout pool as stated (its engines passed) and the training pool grown.
    if (pools)
      EXPECT_EQ(e["fewest_pools"], (json{{"rollout_devices", 8}, {"train_devices", trainer}})) << e.dump();
    else
      EXPECT_FALSE(e.contains("fewest_pools")) << e.dump();
    for (const int t : {trainer, below}) {
      json at = job;
      at["num_devices"] = pools ? 8 + t : t;
      if (pools) at["rl"]["train_devices"] = t;
      const json p = predict(at);
      if (t == trainer)
        EXPECT_TRUE(p.contains("rl")) << p.dump().substr(0, 300);
      else
        EXPECT_EQ(p["error"]["code"], "rl.train_no_layout") << p.dump().substr(0, 300);
    }
  }
}

// Engines that hold no response at any tp they may choose (DeepSeek-V3 at 8 bits is 671 GB, over 8
// H100's 640 GB) are refused with the fewest devices at which the job validates: colocated, the
// whole job (the rollout fits at 16 and 32, the trainer's search first at 64, not at 40, 48 or 56);
// split 8 + 8, a rollout pool of 16, and since no trainer layout of 8 fits beside it, a training
// pool of 56 in the same remedy (48 does not): both pools named (`fewest_pools`), one edit for the
// page. A stated tp is a replica more devices do not widen: no count.
TEST(Rl, EnginesThatHoldNoResponseNameTheFewestDevices) {
  json s = json::parse(optimus::api::preset("scenarios", "qwen2.5-7b-grpo-8xh100"));
  s["model"] = "deepseek-v3";
  json split = s;
  split["num_devices"] = 16;
  split["rl"]["placement"] = "split";
  split["rl"]["rollout_devices"] = 8;
  split["rl"]["train_devices"] = 8;
  for (const auto& [job, fewest, words] :
       {std::tuple{s, 64, "; 64 devices would (no layout of 56 does)"},
        std::tuple{split, 72,
                   "; a rollout pool of 16 devices and a training pool of 56 would (72 in all; no "
                   "training pool of 48 does)"}}) {
    const json e = predict(job)["error"];
    ASSERT_EQ(e["code"], "rl.rollout_does_not_fit") << e.dump();
    EXPECT_EQ(e["fewest_devices"], fewest) << e.dump();
    EXPECT_NE(e["message"].get<std::string>().find(words), std::string::npos) << e["message"];
    EXPECT_EQ(json::parse(optimus::api::validate(job.dump()))["error"]["fewest_devices"], fewest);
    // Pools are named for a split job only, and add up to the count.
    EXPECT_EQ(e.contains("fewest_pools"), job["rl"].contains("rollout_devices")) << e.dump();
  }
  EXPECT_EQ(predict(split)["error"]["fewest_pools"], (json{{"rollout_devices", 16}, {"train_devices", 56}}));
  json at = s;
  at["num_devices"] = 64;
  EXPECT_TRUE(predict(at).contains("rl")) << predict(at).dump().substr(0, 300);
  at["num_devices"] = 32;
  EXPECT_EQ(predict(at)["error"]["code"], "rl.train_no_layout");
  // At the named pools the job runs; with the trainer's one node fewer, its own refusal.
  json pools = split;
  pools["num_devices"] = 72;
  pools["rl"]["rollout_devices"] = 16;
  pools["rl"]["train_devices"] = 56;
  EXPECT_TRUE(predict(pools).contains("rl")) << predict(pools).dump().substr(0, 300);
  pools["num_devices"] = 64;
  pools["rl"]["train_devices"] = 48;
  EXPECT_EQ(predict(pools)["error"]["code"], "rl.train_no_layout");
  json stated = s;
  stated["rl"]["rollout"] = {{"tp", 8}};
  const json e = predict(stated)["error"];
  EXPECT_EQ(e["code"], "rl.rollout_does_not_fit");
  EXPECT_FALSE(e.contains("fewest_devices")) << e.dump();
  // The placement search, which finds no placement on 8: the same count, for the colocated job
  // with its engines' tp chosen (the stated tp 8 is one the search varies anyway).
  for (const json& job : {s, split, stated}) {
    const json found = json::parse(optimus::api::search(job.dump(), ""));
    EXPECT_EQ(found["feasible"], 0) << found.dump().substr(0, 300);
    EXPECT_EQ(found["fewest_devices"], 64) << found.dump().substr(0, 300);
  }
  at["num_devices"] = 64;
  const json runs = json::parse(optimus::api::search(at.dump(), ""));
  EXPECT_GT(runs["feasible"], 0) << runs.dump().substr(0, 300);
  EXPECT_FALSE(runs.contains("fewest_devices"));
}

// DeepSeek-V3 colocated on 8 H100 (too few for its engines) with the trainer `train`.
json deepseek_v3_on_8(const json& train) {
  return {{"schema_version", 1},
          {"model", "deepseek-v3"},
          {"system", "dgx-h100"},
          {"num_devices", 8},
          {"rl",
           {{"prompts_per_step", 64},
            {"samples_per_prompt", 8},
            {"prompt_len", 1024},
            {"response_len", 4096},
            {"train", train}}}};
}

// Where the stated trainer (here the default layout, stated as {}) fits at none of the counts the
// look tries, the count named is the one that runs the engines, and the message says the trainer
// does not fit anywhere and what to state instead: DeepSeek-V3 under ZeRO-3 at ep 1 gathers an
// 11 B-parameter layer. With no trainer stated, an unfitting default is searched
// (Rl.AnUnfittingDefaultTrainerIsSearched), so the count named is one where a searched trainer fits.
TEST(Rl, ATrainerThatFitsNowhereIsSaidBesideTheCountThatRuns) {
  json job = deepseek_v3_on_8(json::object());
  const json e = predict(job)["error"];
  ASSERT_EQ(e["code"], "rl.rollout_does_not_fit") << e.dump();
  const std::string m = e["message"];
  EXPECT_NE(
      m.find("devices would run the engines, but the trainer as stated (tp 1, ep 1, any ZeRO stage) fits "
             "in memory at none of the counts tried"),
      std::string::npos)
      << m;
  job["rl"].erase("train");
  const json absent = predict(job)["error"];
  ASSERT_EQ(absent["code"], "rl.rollout_does_not_fit") << absent.dump();
  const std::string a = absent["message"];
  EXPECT_EQ(a.find("fits in memory at none"), std::string::npos) << a;
  job["num_devices"] = absent["fewest_devices"];
  const json p = predict(job);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 400);
  EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>());
}

// A trainer not stated grows with the engines as "auto" does: Llama 3.1 405B split 4 + 4 on H100
// holds no response at the engines' 4 devices (a rollout pool of 16 would), and its default trainer
// fits on 4 nowhere, so the remedy names a training pool too, at which the predicted job fits.
TEST(Rl, AnUnstatedTrainerGrowsWithTheEngines) {
  json job = {{"schema_version", 1},
              {"model", "llama3.1-405b"},
              {"system", "dgx-h100"},
              {"num_devices", 8},
              {"rl",
               {{"prompts_per_step", 16},
                {"samples_per_prompt", 4},
                {"prompt_len", 512},
                {"response_len", 1024},
                {"placement", "split"},
                {"rollout_devices", 4},
                {"train_devices", 4}}}};
  const json e = predict(job)["error"];
  ASSERT_EQ(e["code"], "rl.rollout_does_not_fit") << e.dump();
  ASSERT_TRUE(e.contains("fewest_pools")) << e.dump();
  EXPECT_EQ(e["fewest_pools"]["rollout_devices"], 16) << e.dump();
  EXPECT_GT(e["fewest_pools"]["train_devices"].get<int>(), 4) << e.dump();
  job["num_devices"] = e["fewest_devices"];
  job["rl"].merge_patch(e["fewest_pools"]);
  const json p = predict(job);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 400);
  EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_TRUE(p["rl"]["memory"]["rollout"]["fits"].get<bool>());
}

// A stated or default trainer layout validates at any count it tiles, fitting or not: the look
// names the count at which the predicted job also fits. DeepSeek-V3 colocated on 8 H100 with a
// trainer of ep 8 (ZeRO 3 by default) was told "16 devices would", where that trainer needs about
// 250 GB a device; the count named now runs with both pools in memory, and the look's largest
// refused count either does not run or does not fit. (At ep 1 ZeRO-3 gathers a whole MoE layer,
// 11 B parameters, on every device: it fits at no count.)
TEST(Rl, TheFewestDevicesOfAStatedTrainerFitItsMemory) {
  json s = deepseek_v3_on_8({{"ep", 8}});
  const json e = predict(s)["error"];
  ASSERT_EQ(e["code"], "rl.rollout_does_not_fit") << e.dump();
  const int fewest = e["fewest_devices"];
  EXPECT_GT(fewest, 16) << e.dump();
  const auto fits = [](const json& p) {
    return p.contains("rl") && p["rl"]["memory"]["train"]["fits"] == true &&
           p["rl"]["memory"]["rollout"]["fits"] == true;
  };
  json at = s;
  at["num_devices"] = fewest;
  EXPECT_TRUE(fits(predict(at))) << predict(at).dump().substr(0, 400);
  // 16 runs (its engines fit) but its trainer does not: what the look used to name.
  at["num_devices"] = 16;
  const json p16 = predict(at);
  ASSERT_TRUE(p16.contains("rl")) << p16.dump().substr(0, 400);
  EXPECT_FALSE(fits(p16));
}

// The placement search reports its progress after each candidate: on one 8-device node, colocated
// with rollout tp 1, 2, 4 and 8, then rollout pools of 1, 2 and 4 devices with every tp that
// divides them (10 candidates), a share that rises to 1 (the first 1/4 of the colocated quarter);
// it stops where the caller says so: the candidates done are ranked and the answer says it was
// cancelled. A million-response job's search took 47 s natively with the page's progress bar at 0
// and no way to stop it but killing the worker; 262,144 responses took 5 s before a first report
// per placement (the fuzzer's slow unit).
TEST(Rl, PlacementSearchReportsProgressAndStopsWhenTold) {
  const json s = base({{"rollout", nullptr}});
  std::vector<double> seen;
  const json all = json::parse(optimus::api::search(s.dump(), "", [&](double f) {
    seen.push_back(f);
    return true;
  }));
  ASSERT_FALSE(all.contains("error")) << all.dump().substr(0, 300);
  EXPECT_FALSE(all["cancelled"].get<bool>());
  ASSERT_EQ(seen.size(), 10u);
  EXPECT_DOUBLE_EQ(seen.front(), 1.0 / 16.0);
  EXPECT_DOUBLE_EQ(seen[3], 0.25);
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_EQ(all["evaluated"], 10);
  int calls = 0;
  const json first =
      json::parse(optimus::api::search(s.dump(), R"({"top": 100})", [&](double) { return ++calls < 1; }));
  ASSERT_FALSE(first.contains("error")) << first.dump().substr(0, 300);
  EXPECT_TRUE(first["cancelled"].get<bool>());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first["evaluated"], 1);
  ASSERT_EQ(first["best"].size(), 1u);
  EXPECT_EQ(first["best"][0]["placement"], "colocated");
}

// The single controller's data plane (docs/rl.md): one pass of the padded batch, responses x 8 x
// (3 x (longest prompt + longest response) + longest response) bytes at rl.controller_GBps, inside
// each phase that runs; a rule-based reward moves nothing, a reward model's forward one more pass.
TEST(RlController, OnePassOfThePaddedBatchInsideEachPhaseThatRuns) {
  const json off = rl_of(base());
  const json on = rl_of(base({{"controller_GBps", 0.5}}));
  const double bytes = 256.0 * 8 * (3 * (256 + 512) + 512);
  EXPECT_DOUBLE_EQ(num(on["controller"]["bytes_per_pass"]), bytes);
  const double pass = bytes / 0.5e9;
  for (const char* phase : {"rollout", "reference", "old_logprob", "train"})
    EXPECT_NEAR(num(on["phases_s"][phase]), num(off["phases_s"][phase]) + pass, 1e-9) << phase;
  EXPECT_EQ(num(on["phases_s"]["reward"]), 0.0);
  EXPECT_NEAR(num(on["controller"]["seconds"]), 4 * pass, 1e-12);
  EXPECT_EQ(on["controller"]["passes"], 4);
  EXPECT_EQ(num(on["controller"]["GBps"]), 0.5);
  EXPECT_NEAR(num(on["step_time_s"]), num(off["step_time_s"]) + 4 * pass, 1e-9);
  EXPECT_EQ(num(off["controller"]["seconds"]), 0.0);
  // Twice the rate, half the time; a reward model's forward is a fifth pass.
  const json fast = rl_of(base({{"controller_GBps", 1.0}}));
  EXPECT_NEAR(num(fast["controller"]["seconds"]), 2 * pass, 1e-12);
  const json rm = rl_of(base({{"controller_GBps", 0.5}, {"reward_model", "llama3.2-1b"}}));
  EXPECT_NEAR(num(rm["controller"]["seconds"]), 5 * pass, 1e-12);
  // Split and asynchronous, the passes lengthen each pool's own phases.
  const json split = rl_of(base({{"controller_GBps", 0.5},
                                 {"placement", "split"},
                                 {"rollout_devices", 4},
                                 {"train_devices", 4},
                                 {"async", {{"staleness", 1}}}}));
  EXPECT_NEAR(num(split["controller"]["seconds"]), 4 * pass, 1e-12);
}

// A calibration's host factor speeds the driver as it speeds the other host work.
TEST(RlController, ACalibratedHostFactorScalesTheDriversRate) {
  json fast = base({{"controller_GBps", 0.5}});
  fast["calibration"] = {{"device", "NVIDIA H100 SXM5 80GB"}, {"factors", {{"host", 2}}}};
  const json p = predict(fast);
  ASSERT_TRUE(p.contains("rl")) << p.dump().substr(0, 300);
  EXPECT_TRUE(p["calibration"]["applied"].get<bool>());
  EXPECT_EQ(num(p["rl"]["controller"]["GBps"]), 1.0);  // the rate in effect, as the page shows it
  EXPECT_NEAR(num(p["rl"]["controller"]["seconds"]),
              num(rl_of(base({{"controller_GBps", 1.0}}))["controller"]["seconds"]), 1e-12);
}

TEST(RlController, TheAssumedRateIsSaidAndAStatedOneIsEchoed) {
  json absent = base();
  absent["rl"].erase("controller_GBps");
  const json p = predict(absent);
  ASSERT_TRUE(warns(p, "rl.controller_assumed")) << p.dump();
  EXPECT_GT(num(p["rl"]["controller"]["seconds"]), 0.0);
  EXPECT_FALSE(warns(predict(base({{"controller_GBps", 0.25}})), "rl.controller_assumed"));
  EXPECT_FALSE(warns(predict(base()), "rl.controller_assumed"));  // 0 stated: none, and said nothing
  const json echoed = json::parse(optimus::api::validate(base({{"controller_GBps", 0.4}}).dump()));
  EXPECT_EQ(num(echoed["scenario"]["rl"]["controller_GBps"]), 0.4);
  EXPECT_FALSE(
      json::parse(optimus::api::validate(absent.dump()))["scenario"]["rl"].contains("controller_GBps"));
  // Negative, or so slow that a step would last past any number (0 is "no controller").
  for (double v : {-1.0, 1e-300, 0.0005}) {
    const json bad = predict(base({{"controller_GBps", v}}));
    EXPECT_EQ(bad["error"]["code"], "scenario.out_of_range") << v;
    EXPECT_EQ(bad["error"]["path"], "/rl/controller_GBps") << v;
  }
}

}  // namespace

// Roles shared: the actor and PPO's critic are built on the same devices and keep their state
// there between their passes, so the pool holds the larger update beside the other's resident
// weights, gradients and optimizer state; a probe found PPO's 70B critic never sized (75.7 GiB,
// "fits", as GRPO) and a 405B reward model "fitting" 8 H100. With their state offloaded
// (rl.train.offload params_optimizer) only the update's own footprint remains.
TEST(Rl, SharedRolesHoldBothTrainedModelsAndAFrozenModelsWeights) {
  json ppo = {{"schema_version", 1},
              {"model", "llama3.1-70b"},
              {"system", "dgx-h100"},
              {"num_devices", 16},
              {"rl",
               {{"algorithm", "ppo"},
                {"prompts_per_step", 64},
                {"samples_per_prompt", 4},
                {"prompt_len", {{"mean", 300}, {"max", 1024}}},
                {"response_len", {{"mean", 1000}, {"max", 4096}}},
                {"train", {{"tp", 8}, {"pp", 2}, {"zero_stage", 1}, {"recompute", "full"}}},
                {"controller_GBps", 0}}}};
  json grpo = ppo;
  grpo["rl"]["algorithm"] = "grpo";
  const json p = predict(ppo), g = predict(grpo);
  ASSERT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
  const json& pm = p["memory"]["per_device_bytes"];
  const json& gm = g["memory"]["per_device_bytes"];
  // The critic has the actor's shape: its resident state doubles the weights, gradients and
  // optimizer state of the actor's update alone (GRPO's).
  EXPECT_DOUBLE_EQ(pm["weights"].get<double>(), 2 * gm["weights"].get<double>());
  EXPECT_DOUBLE_EQ(pm["optimizer"].get<double>(), 2 * gm["optimizer"].get<double>());
  EXPECT_DOUBLE_EQ(pm["activations"].get<double>(), gm["activations"].get<double>());
  EXPECT_FALSE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_TRUE(g["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_NE(p["rl"]["memory"]["train"]["what"].get<std::string>().find("critic"), std::string::npos);
  json off = ppo;
  off["rl"]["train"]["offload"] = "params_optimizer";
  json grpo_off = grpo;
  grpo_off["rl"]["train"]["offload"] = "params_optimizer";
  EXPECT_DOUBLE_EQ(predict(off)["memory"]["per_device_bytes"]["total"].get<double>(),
                   predict(grpo_off)["memory"]["per_device_bytes"]["total"].get<double>());
  // A reward model whose weights alone exceed the devices (405B in bf16 on 8 H100, 101 GB each).
  json rm = grpo;
  rm["model"] = "qwen2.5-7b", rm["num_devices"] = 8, rm["rl"]["train"] = "auto",
  rm["rl"]["reward_model"] = "llama3.1-405b";
  const json r = predict(rm);
  ASSERT_FALSE(r.contains("error")) << r.dump().substr(0, 300);
  EXPECT_FALSE(r["rl"]["memory"]["train"]["fits"].get<bool>());
  EXPECT_NE(r["rl"]["memory"]["train"]["what"].get<std::string>().find("reward model"), std::string::npos);
}

// The trainer's precision fallback is said, as a training scenario says it: nvfp4 on H100 trains as
// fp8 (a probe found it silent, and faster than fp8), roles shared or separate.
TEST(Rl, TheTrainersPrecisionFallbackIsSaid) {
  json s = {{"schema_version", 1},
            {"model", "qwen2.5-7b"},
            {"system", "dgx-h100"},
            {"num_devices", 16},
            {"rl",
             {{"prompts_per_step", 32},
              {"samples_per_prompt", 4},
              {"prompt_len", {{"mean", 300}, {"max", 1024}}},
              {"response_len", {{"mean", 1000}, {"max", 4096}}},
              {"train", {{"precision", "nvfp4"}}},
              {"controller_GBps", 0}}}};
  const auto fell_back = [](const json& p) {
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "device.precision_fallback") return true;
    return false;
  };
  EXPECT_TRUE(fell_back(predict(s)));
  s["rl"]["train"]["precision"] = "fp8";
  EXPECT_FALSE(fell_back(predict(s)));
}

// A pipelined (split, staleness >= 1) run pays its fill once: the first rollout overlaps no update
// and the last update no rollout, so a run of N steps is N steps plus the shorter of the two pools'
// times; a probe found one step's run at one step (87 s) where a rollout then an update take 162.
TEST(Rl, AnAsynchronousRunPaysItsPipelineFillOnce) {
  json s = {{"schema_version", 1},
            {"model", "qwen2.5-7b"},
            {"system", "dgx-h100"},
            {"num_devices", 8},
            {"rl",
             {{"placement", "split"},
              {"rollout_devices", 4},
              {"train_devices", 4},
              {"async", {{"staleness", 1}}},
              {"prompts_per_step", 32},
              {"samples_per_prompt", 4},
              {"prompt_len", {{"mean", 300}, {"max", 1024}}},
              {"response_len", {{"mean", 1000}, {"max", 4096}}},
              {"train_steps", 1},
              {"controller_GBps", 0}}}};
  const auto wall = [&](int steps, int staleness) {
    s["rl"]["train_steps"] = steps;
    s["rl"]["async"]["staleness"] = staleness;
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump().substr(0, 300);
    return std::pair<double, json>(p["rl"]["run"]["wall_days"].get<double>() * 86400.0, p["rl"]);
  };
  const auto [one, rl] = wall(1, 1);
  const double fill =
      std::min(rl["phases_s"]["rollout"].get<double>(),
               rl["phases_s"]["train"].get<double>() + rl["phases_s"]["old_logprob"].get<double>() +
                   rl["phases_s"]["reference"].get<double>() + rl["phases_s"]["reward"].get<double>());
  EXPECT_NEAR(one, rl["step_time_s"].get<double>() + fill, 1e-6 * one);
  EXPECT_NEAR(wall(100, 1).first, 100 * rl["step_time_s"].get<double>() + fill, 1e-6 * one * 100);
  const auto [sync, srl] = wall(10, 0);  // on-policy: no overlap, no fill
  EXPECT_NEAR(sync, 10 * srl["step_time_s"].get<double>(), 1e-6 * sync);
}

// The placement search keeps a stated rollout tp (as it keeps every stated key), and spreads a
// mixture-of-experts engine's experts over replicas at tps that hold the model too: Qwen3-30B-A3B
// on 16 H100, where a probe found tp 2 ep 8 faster than the tp 4 listed first (ep never varied).
TEST(Rl, PlacementSearchKeepsAStatedRolloutTpAndSpreadsExpertsThatFit) {
  json s = {{"schema_version", 1},
            {"model", "qwen3-30b-a3b"},
            {"system", "dgx-h100"},
            {"num_devices", 16},
            {"rl",
             {{"prompts_per_step", 64},
              {"samples_per_prompt", 8},
              {"prompt_len", {{"mean", 300}, {"max", 1024}}},
              {"response_len", {{"mean", 1500}, {"max", 8192}}},
              {"placement", "colocated"},
              {"train", "auto"},
              {"controller_GBps", 0}}}};
  const json all = json::parse(optimus::api::search(s.dump(), R"({"top": 100})"));
  ASSERT_FALSE(all.contains("error")) << all.dump().substr(0, 300);
  // At tp 2 (the probe's), the experts spread over the replicas beat the same tp without: the
  // search lists both, and each device of the spread engine holds a sixteenth of the experts.
  // (tp 4 without a spread is within 1% of the fastest spread layouts, so the first place is
  // the requests' draw, not a property.)
  double plain = 1e300, spread = 1e300;
  for (const json& c : all["best"]) {
    const json& rp = c["rl"]["rollout"]["parallel"];
    if (rp["tp"] != 2) continue;
    double& slot = rp["ep"] == 1 ? plain : spread;
    slot = std::min(slot, c["step_time_s"].get<double>());
  }
  ASSERT_LT(spread, 1e300);
  ASSERT_LT(plain, 1e300);
  EXPECT_LT(spread, 0.97 * plain);
  s["rl"]["rollout"] = {{"tp", 1}};
  const json fixed = json::parse(optimus::api::search(s.dump(), R"({"top": 100})"));
  ASSERT_FALSE(fixed["best"].empty()) << fixed.dump().substr(0, 300);
  for (const json& c : fixed["best"])
    EXPECT_EQ(c["rl"]["rollout"]["parallel"]["tp"], 1) << c.dump().substr(0, 200);
}

// An RL job's search is its placements': a training, inference or serving mode and a whole-run
// budget are refused at their option's path (a probe found --mode inference running the RL search
// silently, and --max-cost named an unknown key).
TEST(Rl, PlacementSearchRefusesOptionsOfOtherSearches) {
  const json s = base({{"rollout", nullptr}});
  for (const auto& [options, path] :
       std::vector<std::pair<std::string, std::string>>{{R"({"mode": "inference"})", "/mode"},
                                                        {R"({"mode": "training"})", "/mode"},
                                                        {R"({"max_cost_usd": 10})", "/max_cost_usd"},
                                                        {R"({"max_energy_mwh": 1})", "/max_energy_mwh"}}) {
    const json r = json::parse(optimus::api::search(s.dump(), options));
    ASSERT_TRUE(r.contains("error")) << options;
    EXPECT_EQ(r["error"]["code"], "search.option_not_applicable") << options;
    EXPECT_EQ(r["error"]["path"], path) << options;
  }
  EXPECT_FALSE(json::parse(optimus::api::search(s.dump(), R"({"mode": "rl", "top": 2})")).contains("error"));
}

// An SGLang rollout engine takes SGLang's device-sized capture (ServingSpec::sizing) at its own tp:
// 256 sequences on an H100 below tp 4. 4,096 responses on 8 engines at max_batch 512: at tp 1 the
// steps past 256 sequences run eager besides the prefill steps (SGLang prefills eager), fewer where
// the block states 512; at tp 4 the sized 512 is what stating it gives.
TEST(Rl, AnSglangRolloutCapturesWhatSglangSizesAtItsTp) {
  const auto eager = [](const json& rollout) {
    json s = base({{"prompts_per_step", 512}, {"rollout", rollout}});
    s["rl"]["rollout"]["software"] = "sglang";
    s["rl"]["rollout"]["max_batch"] = 512;
    const json r = rl_of(s);
    EXPECT_TRUE(r.contains("rollout")) << r.dump().substr(0, 300);
    return r.contains("rollout") ? r["rollout"]["eager_steps"].get<std::int64_t>() : -1;
  };
  const std::int64_t tp1 = eager({{"tp", 1}});
  EXPECT_GT(tp1, 0);
  EXPECT_EQ(eager({{"tp", 4}}), eager({{"tp", 4}, {"cuda_graph_max_batch", 512}}));
  EXPECT_LT(eager({{"tp", 1}, {"cuda_graph_max_batch", 512}}), tp1);
}

// The samples of a prompt share its prefill and its KV blocks (rl.rollout.prefix_caching, default
// true: vLLM's n samples and prefix cache, SGLang's radix cache). A rollout of one-token responses
// is all prefill: 32 prompts of 4,096 tokens x 8 samples then take about what 32 x 1 do (each later
// sample prefills the prompt's last partial block and one token), and without the cache about 8
// times as long.
TEST(Rl, SamplesOfAPromptShareItsPrefill) {
  const auto rollout = [](std::int64_t samples, bool cache) {
    json s = base({{"samples_per_prompt", samples},
                   {"prompt_len", json::array({{4096, 1}})},
                   {"response_len", json::array({{1, 1}})},
                   {"rollout", {{"tp", 1}, {"prefix_caching", cache}}}});
    return num(rl_of(s)["phases_s"]["rollout"]);
  };
  const double one = rollout(1, true);
  EXPECT_NEAR(rollout(8, true) / one, 1.0, 0.15);
  EXPECT_GT(rollout(8, false) / one, 6.0);
}

// ... and its KV blocks: 8 prompts of 16,384 tokens x 16 samples of 512 on one H100 engine. Llama
// 3.1 8B holds 128 KiB a token (32 layers x 8 KV heads x 128 x 2 x 2 bytes): 128 private copies of
// the prompt are 256 GiB, far past the engine's cache, so without sharing the engine runs a few
// dozen samples at a time and preempts; shared, the 8 prompts (16 GiB) and 128 x 512 response
// tokens (8 GiB) fit at once.
TEST(Rl, SamplesOfAPromptShareItsKvBlocks) {
  const auto rollout = [](bool cache) {
    json s = base({{"prompts_per_step", 8},
                   {"samples_per_prompt", 16},
                   {"prompt_len", json::array({{16384, 1}})},
                   {"response_len", json::array({{512, 1}})},
                   {"placement", "split"},
                   {"rollout_devices", 1},
                   {"train_devices", 7},
                   {"rollout", {{"tp", 1}, {"prefix_caching", cache}}}});
    return rl_of(s);
  };
  const json shared = rollout(true), own = rollout(false);
  EXPECT_EQ(shared["rollout"]["preemptions"], 0);
  EXPECT_GT(num(shared["rollout"]["mean_batch"]), 100.0);
  EXPECT_GT(own["rollout"]["preemptions"].get<std::int64_t>(), 0);
  EXPECT_LT(num(own["rollout"]["mean_batch"]), 40.0);
  EXPECT_LT(num(shared["phases_s"]["rollout"]) * 3, num(own["phases_s"]["rollout"]));
}

}  // namespace rl_test

namespace rl_test {

// ... and with fewer prompts than engines, its samples are spread over the engines, as verl's
// rollout (a contiguous chunk of the repeated batch per data-parallel rank) and OpenRLHF's (the
// prompt list split evenly over its engines) spread them: 4 prompts x 256 samples on 64 H100 at
// tp 1 keep all 64 engines busy, 16 samples a prompt on each, instead of 4 engines with 256 each
// and 60 idle. Sharing the prompt then never makes the rollout slower than not sharing it (it
// saves prefill and blocks), and the mean running batch is an engine's 16 samples at most.
TEST(Rl, FewerPromptsThanEnginesSpreadTheirSamples) {
  const auto rollout = [](bool cache) {
    json s = base({{"prompts_per_step", 4},
                   {"samples_per_prompt", 256},
                   {"prompt_len", {{"mean", 1000}, {"max", 1024}}},
                   {"response_len", {{"mean", 1500}, {"max", 4096}}},
                   {"rollout", {{"tp", 1}, {"prefix_caching", cache}}}},
                  64);
    return rl_of(s);
  };
  const json shared = rollout(true), own = rollout(false);
  EXPECT_EQ(shared["rollout"]["parallel"]["dp"], 64);
  EXPECT_LE(num(shared["rollout"]["mean_batch"]), 16.0);
  EXPECT_LE(num(shared["phases_s"]["rollout"]), num(own["phases_s"]["rollout"]));
}

}  // namespace rl_test

namespace rl_test {

// Prefix caching changes what the engines prefill and store, not the responses: the rollout draws
// the same response lengths with it and without (each prompt's length comes from a stream of its
// own), so the two rollouts generate the same tokens and sharing never makes one longer. Qwen2.5 7B,
// one prompt x 2 samples of up to 8,192 tokens (mean 2,000) on a 4-GPU rollout pool: drawn after
// the prompts' lengths, the responses differed with the grouping, and the step's longest response
// with them (29.9 s with caching, 11.4 s without).
TEST(Rl, PrefixCachingServesTheSameResponses) {
  const auto rl = [](std::int64_t prompts, std::int64_t samples, bool cache) {
    json s = base({{"prompts_per_step", prompts},
                   {"samples_per_prompt", samples},
                   {"prompt_len", {{"mean", 100}, {"max", 200}}},
                   {"response_len", {{"mean", 2000}, {"max", 8000}}},
                   {"placement", "split"},
                   {"rollout_devices", 4},
                   {"train_devices", 4},
                   {"rollout", {{"prefix_caching", cache}}}});
    s["model"] = "qwen2.5-7b";
    return rl_of(s);
  };
  for (const auto& [prompts, samples] : {std::pair<std::int64_t, std::int64_t>{1, 2}, {16, 8}, {64, 4}}) {
    const json on = rl(prompts, samples, true), off = rl(prompts, samples, false);
    EXPECT_DOUBLE_EQ(num(on["rollout"]["output_tokens"]), num(off["rollout"]["output_tokens"])) << prompts;
    EXPECT_LE(num(on["phases_s"]["rollout"]), 1.02 * num(off["phases_s"]["rollout"])) << prompts;
  }
}

}  // namespace rl_test
