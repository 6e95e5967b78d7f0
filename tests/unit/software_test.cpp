// Software-stack profiles (scenario `software`, presets/software/*.json): every profile loads and
// predicts, a profile's keys are laid over the system's software block and its serving defaults
// under the scenario's own keys, bad ids and values get codes and paths, and a runtime without a
// KV cache recomputes the context every step.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "io/api.h"
#include "io/presets.h"

namespace software_test {

namespace {

using json = nlohmann::json;

json predict(const json& s) { return json::parse(optimus::api::predict(s.dump())); }

// The error of a one-GPU training scenario whose inline software profile sets `key` to `value`.
json software_key_error(const char* key, const json& value) {
  return predict({{"model", "llama3.1-8b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 1},
                  {"software", {{"software", {{key, value}}}}},
                  {"training", {{"global_batch", 1}, {"seq_len", 512}}}})["error"];
}

json llama(const json& software) {
  json s = {{"model", "llama3.1-8b"},
            {"system", "dgx-h100"},
            {"num_devices", 1},
            {"inference",
             {{"batch", 8},
              {"prompt_len", 512},
              {"output_len", 64},
              {"serving", {{"arrival", "offline"}, {"num_requests", 64}}}}}};
  if (!software.is_null()) s["software"] = software;
  return s;
}

TEST(Software, EveryProfileLoadsAndPredicts) {
  int n = 0;
  for (const auto& p : optimus::list_presets("software")) {
    const json out = predict(llama(p.id));
    EXPECT_FALSE(out.contains("error")) << p.id << ": " << out.dump();
    EXPECT_FALSE(p.name.empty()) << p.id;
    EXPECT_FALSE(p.source.empty()) << p.id;
    ++n;
  }
  EXPECT_GE(n, 8);
}

TEST(Software, ProfilesSetTheSchedulerAndTheRuntime) {
  const json vllm = predict(llama("vllm"));
  EXPECT_EQ(vllm["serving"]["max_batch"], 1024);
  json own = llama("vllm");
  own["inference"]["serving"]["max_batch"] = 32;
  EXPECT_EQ(predict(own)["serving"]["max_batch"], 32);  // the scenario's own key wins
  EXPECT_EQ(predict(llama(nullptr))["serving"]["max_batch"], 2048);
  // cuda_graphs: vLLM replays graphs (no host floor), eager PyTorch pays a longer one.
  EXPECT_EQ(vllm["inference"]["assumed"]["launch_interval_us"], 0);
  EXPECT_EQ(predict(llama("pytorch-eager"))["inference"]["assumed"]["launch_interval_us"], 30);
  // The resolved scenario names the profile and carries its values in the system block.
  const json v = json::parse(optimus::api::validate(llama("megatron-lm-2021").dump()));
  EXPECT_EQ(v["scenario"]["software"], "megatron-lm-2021");
  EXPECT_EQ(v["scenario"]["system"]["software"]["attention"], "standard");
  EXPECT_EQ(v["scenario"]["system"]["software"]["overlap_grad_reduce"], false);
  EXPECT_EQ(predict(v["scenario"]).dump(), predict(llama("megatron-lm-2021")).dump());
}

TEST(Software, AnInlineProfileWorksLikeAPreset) {
  const json inline_profile = json::parse(optimus::preset_json("software", "vllm"));
  EXPECT_EQ(predict(llama(inline_profile))["serving"].dump(), predict(llama("vllm"))["serving"].dump());
}

TEST(Software, BadProfilesGetCodesAndPaths) {
  const auto error = [](const json& s) { return predict(s)["error"]; };
  json e = error(llama("no-such-stack"));
  EXPECT_EQ(e["code"], "preset.unknown_software");
  EXPECT_EQ(e["path"], "/software");
  e = error(llama(json{{"software", {{"launch_interval_us", -1}}}}));
  EXPECT_EQ(e["code"], "scenario.out_of_range");
  EXPECT_EQ(e["path"], "/software/software/launch_interval_us");
  e = error(llama(json{{"serving", {{"max_batch", 0}}}}));
  EXPECT_EQ(e["code"], "scenario.out_of_range");
  EXPECT_EQ(e["path"], "/software/serving/max_batch");
  e = error(llama(json{{"colour", "red"}}));
  EXPECT_EQ(e["code"], "scenario.unknown_key");
  e = error(llama(7));
  EXPECT_EQ(e["code"], "scenario.wrong_type");
  e = error(llama(json{{"software", {{"decode_kv_per_query_head", "yes"}}}}));
  EXPECT_EQ(e["code"], "scenario.wrong_type");
  EXPECT_EQ(e["path"], "/software/software/decode_kv_per_query_head");
  e = error(llama(json{{"software", {{"fused_elementwise", 0}}}}));
  EXPECT_EQ(e["code"], "scenario.wrong_type");
  EXPECT_EQ(e["path"], "/software/software/fused_elementwise");
}

// Without a KV cache a decode step is a prefill of the whole context: slower, and more so as
// the context grows.
TEST(Software, WithoutAKvCacheEveryStepRecomputesTheContext) {
  json s = llama(nullptr);
  s["inference"].erase("serving");
  json nocache = s;
  nocache["software"] = {{"software", {{"kv_cache", false}}}};
  const double cached = predict(s)["inference"]["tpot_s"],
               recomputed = predict(nocache)["inference"]["tpot_s"];
  EXPECT_GT(recomputed, 3 * cached);
  json longer = nocache;
  longer["inference"]["prompt_len"] = 2048;
  EXPECT_GT(predict(longer)["inference"]["tpot_s"].get<double>(), 2.5 * recomputed);
}

}  // namespace

// The training host bound (software.training_launch_interval_us): a dropless MoE layer waits on
// the host for its token counts, so a pass takes max(device time, operators x host time).
namespace {

// host_us: the host time per operator and per further local expert's GEMM alike (expert_us
// apart when given).
json qwen_moe(double host_us, int micro_batch, int ep, double expert_us = -1) {
  json system = json::parse(optimus::preset_json("systems", "dgx-b200"));
  system["software"]["training_launch_interval_us"] = host_us;
  system["software"]["training_expert_gemm_us"] = expert_us < 0 ? host_us : expert_us;
  return {{"model", "qwen3-30b-a3b"},
          {"system", system},
          {"num_devices", 8},
          {"parallel", {{"tp", 1}, {"pp", 1}, {"dp", 8}, {"ep", ep}, {"micro_batch", micro_batch}}},
          {"training", {{"global_batch", 512}, {"seq_len", 4096}, {"precision", "fp8"}}}};
}

double host_s(const json& s) { return predict(s)["training"]["breakdown_s"]["host"].get<double>(); }
double iteration_s(const json& s) { return predict(s)["training"]["iteration_time_s"].get<double>(); }

}  // namespace

TEST(Software, DroplessMoeWaitsForTheHostWhenItsLayersAreSmall) {
  // Off: no host time at all; on: the small micro-batch is host-bound, the larger one much less.
  EXPECT_EQ(host_s(qwen_moe(0, 1, 8)), 0.0);
  const double small = host_s(qwen_moe(100, 1, 8)), large = host_s(qwen_moe(100, 4, 8));
  EXPECT_GT(small, 0.0);
  EXPECT_LT(large, small / 4.0);
  EXPECT_NEAR(iteration_s(qwen_moe(100, 1, 8)) - iteration_s(qwen_moe(0, 1, 8)), small, 1e-9 * small + 1e-12);
  // Far past the device time the pass is all host: twice the interval, twice the pass time.
  const json far = predict(qwen_moe(10'000, 1, 8))["training"];
  const json farther = predict(qwen_moe(20'000, 1, 8))["training"];
  EXPECT_NEAR(farther["layer_s"]["forward"].get<double>() / far["layer_s"]["forward"].get<double>(), 2.0,
              1e-9);
  // More local experts per device (ep 4: 32 each, against 16 at ep 8) issue more GEMMs.
  EXPECT_GT(host_s(qwen_moe(100, 1, 4)), small);
}

// One kernel for all experts (training_expert_gemm_us 0, ScatterMoE): the host issues each expert
// matmul once, so the number of local experts no longer matters, and far past the device time a
// pass costs operators x interval with fewer operators than one launch per expert. Each further
// local expert's GEMM adds its own interval (the difference must be a whole number of 15-launch
// groups at 16 local experts).
TEST(Software, GroupedExpertsIssueOneLaunchPerMatmul) {
  EXPECT_LT(host_s(qwen_moe(100, 1, 8, 0)), host_s(qwen_moe(100, 1, 8)));
  // Far past the device time the pass is the host's alone: the same at 32 and 16 local experts.
  const auto far_fwd = [](int ep, double expert_us) {
    return predict(qwen_moe(10'000, 1, ep, expert_us))["training"]["layer_s"]["forward"].get<double>();
  };
  EXPECT_NEAR(far_fwd(4, 0), far_fwd(8, 0), 1e-12 * far_fwd(8, 0));
  const double a = predict(qwen_moe(10'000, 1, 8, 0))["training"]["layer_s"]["forward"].get<double>();
  const double b = predict(qwen_moe(10'000, 1, 8, 10'000))["training"]["layer_s"]["forward"].get<double>();
  // Both far past the device time: the difference is a whole number of 10 ms launches, 15 per
  // expert matmul (16 local experts, the first one inside the operator's own launch).
  const double launches = (b - a) / 10e-3;
  EXPECT_NEAR(launches, std::round(launches), 1e-6);
  EXPECT_EQ(static_cast<long>(std::round(launches)) % 15, 0);
  EXPECT_GT(launches, 0.0);
  // Bad value: code and path.
  json bad = qwen_moe(100, 1, 8);
  bad["system"]["software"]["training_expert_gemm_us"] = -1.5;
  const json e = json::parse(optimus::api::predict(bad.dump()))["error"];
  EXPECT_EQ(e["code"], "scenario.out_of_range");
  EXPECT_EQ(e["path"], "/system/software/training_expert_gemm_us");
}

TEST(Software, NoHostWaitWithACapacityFactorGraphsOrADenseModel) {
  json capped = qwen_moe(100, 1, 8);
  capped["model"] = json::parse(optimus::preset_json("models", "qwen3-30b-a3b"));
  capped["model"]["moe"]["capacity_factor"] = 1.25;  // static shapes: no host copy of the counts
  EXPECT_EQ(host_s(capped), 0.0);
  json graphs = qwen_moe(100, 1, 8);
  graphs["system"]["software"]["training_cuda_graphs"] = true;  // attention and router replayed
  EXPECT_LT(host_s(graphs), host_s(qwen_moe(100, 1, 8)));
  json dense = qwen_moe(100, 1, 1);
  dense["model"] = "llama3.1-8b";
  dense["parallel"].erase("ep");
  EXPECT_EQ(host_s(dense), 0.0);
}

TEST(Software, TrainingHostIntervalRejectsNegativeValues) {
  const json e = predict(qwen_moe(-1, 1, 8))["error"];
  EXPECT_EQ(e["code"], "scenario.out_of_range");
  EXPECT_EQ(e["path"], "/system/software/training_launch_interval_us");
}

namespace {

// The expert all-to-all overlapped with another micro-batch's computation (software
// ep_comm_overlap, DeepSeek-V3's DualPipe): with no SMs given up it is never slower and exposes
// no more expert communication than without; giving SMs to the communication slows the
// computation (compute time grows with the share); a dense model does not change.
TEST(Software, ExpertCommunicationOverlap) {
  const auto moe = [](const json& sw) {
    json s = {{"model", "deepseek-v3"},
              {"system", "dgx-h100"},
              {"num_devices", 256},
              {"parallel", {{"pp", 8}, {"ep", 32}, {"dp", 32}, {"zero_stage", 1}}},
              {"training", {{"global_batch", 512}, {"seq_len", 4096}, {"precision", "fp8"}}}};
    if (!sw.is_null()) s["software"] = {{"name", "test"}, {"software", sw}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["training"];
  };
  const json off = moe(nullptr);
  const json free = moe({{"ep_comm_overlap", true}, {"ep_comm_sm_share", 0.0}});
  const json busy = moe({{"ep_comm_overlap", true}, {"ep_comm_sm_share", 0.3}});
  EXPECT_LE(free["iteration_time_s"].get<double>(), off["iteration_time_s"].get<double>());
  EXPECT_LT(free["breakdown_s"]["ep_comm"].get<double>(), off["breakdown_s"]["ep_comm"].get<double>());
  EXPECT_NEAR(free["breakdown_s"]["compute"].get<double>(), off["breakdown_s"]["compute"].get<double>(),
              1e-9 * off["breakdown_s"]["compute"].get<double>());
  EXPECT_GT(busy["breakdown_s"]["compute"].get<double>(), free["breakdown_s"]["compute"].get<double>());
  EXPECT_LE(busy["breakdown_s"]["ep_comm"].get<double>(), free["breakdown_s"]["ep_comm"].get<double>());
  json d = {{"model", "llama3-8b"},
            {"system", "dgx-h100"},
            {"num_devices", 8},
            {"training", {{"global_batch", 64}, {"seq_len", 4096}}}};
  const json dense_off = predict(d);
  d["software"] = {{"name", "test"}, {"software", {{"ep_comm_overlap", true}}}};
  EXPECT_EQ(predict(d)["training"]["iteration_time_s"], dense_off["training"]["iteration_time_s"]);
  // The hai-llm profile carries it.
  json h = llama("hai-llm");
  const json v = json::parse(optimus::api::validate(h.dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["ep_comm_overlap"], true) << v.dump();
}

// A MoE layer with every expert local (ep 1) sends nothing, so overlapping its expert communication
// gives no SMs away: the prediction equals the one without the overlap, to the bit.
TEST(Software, ExpertCommunicationOverlapLeavesLayersWithoutCommunicationAlone) {
  const auto local = [](bool overlap) {
    json s = qwen_moe(0, 1, 1);
    s["system"]["software"]["ep_comm_overlap"] = overlap;
    s["system"]["software"]["ep_comm_sm_share"] = 0.3;
    return predict(s)["training"];
  };
  const json off = local(false), on = local(true);
  ASSERT_EQ(off["breakdown_s"]["ep_comm"], 0.0) << off.dump();
  EXPECT_EQ(on["iteration_time_s"], off["iteration_time_s"]);
  EXPECT_EQ(on["breakdown_s"]["compute"], off["breakdown_s"]["compute"]);
}

// The overlap pairs one micro-batch's dispatch and combine with another micro-batch's computation
// (Megatron-Core's combined 1F1B, DeepSeek-V3's DualPipe): a step of a single micro-batch has no
// partner, so the overlap changes nothing there; with two micro-batches it hides communication.
TEST(Software, ExpertCommunicationOverlapNeedsASecondMicroBatch) {
  const auto step = [](int global_batch, bool overlap) {
    json s = {{"model", "deepseek-v3"},
              {"system", "dgx-h100"},
              {"num_devices", 256},
              {"parallel", {{"pp", 8}, {"ep", 32}, {"dp", 32}, {"micro_batch", 1}, {"zero_stage", 1}}},
              {"training", {{"global_batch", global_batch}, {"seq_len", 4096}, {"precision", "fp8"}}}};
    if (overlap) s["software"] = {{"name", "test"}, {"software", {{"ep_comm_overlap", true}}}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["training"];
  };
  const json one_off = step(32, false), one_on = step(32, true);
  ASSERT_EQ(one_on["micro_batches"], 1);
  EXPECT_EQ(one_on["iteration_time_s"], one_off["iteration_time_s"]);
  EXPECT_GT(one_on["breakdown_s"]["ep_comm"].get<double>(), 0.0);
  const json two_off = step(64, false), two_on = step(64, true);
  ASSERT_EQ(two_on["micro_batches"], 2);
  EXPECT_LT(two_on["breakdown_s"]["ep_comm"].get<double>(), two_off["breakdown_s"]["ep_comm"].get<double>());
}

// The megatron-bridge-fullgraph profile (full-iteration CUDA graphs with static per-rank expert
// buffers, and the dispatch overlapped): a dropless MoE run on it waits for no host (the same run on
// the system's own stack, 100 us per operator, does at one micro-batch), and its expert
// communication is overlapped.
TEST(Software, FullGraphMoeProfileHasNoHostWaitAndOverlapsTheDispatch) {
  json s = qwen_moe(100, 1, 8);
  s["system"] = "dgx-b200";
  const json plain = predict(s)["training"];
  s["software"] = "megatron-bridge-fullgraph";
  const json graphed = predict(s)["training"];
  ASSERT_FALSE(graphed.is_null()) << predict(s).dump();
  EXPECT_GT(plain["breakdown_s"]["host"].get<double>(), 0.0);
  EXPECT_EQ(graphed["breakdown_s"]["host"], 0.0);
  EXPECT_LT(graphed["breakdown_s"]["ep_comm"].get<double>(), plain["breakdown_s"]["ep_comm"].get<double>());
  EXPECT_LT(graphed["iteration_time_s"].get<double>(), plain["iteration_time_s"].get<double>());
}

// ZeRO-3 that keeps each layer's forward gather for its backward (FSDP2
// reshard_after_forward=False): Llama 3.1 8B on 16 H100 of two nodes, fully sharded, the nodes
// joined at 1 GB/s so the gathers are exposed. Each micro-batch gathers every layer once instead of
// twice, so what the change saves is one gather per micro-batch: twice as much at 8 micro-batches
// as at 4. The weights are held whole when the backward starts: 16 shards' worth, the gradients and
// optimizer state as before.
json fsdp_llama(int micro_batches, bool reshard) {
  json system = json::parse(optimus::preset_json("systems", "dgx-h100"));
  system["scale_out"]["bandwidth_GBps"] = 1.0;
  system["software"]["zero3_reshard_after_forward"] = reshard;
  return {{"model", "llama3.1-8b"},
          {"system", system},
          {"num_devices", 16},
          {"parallel", {{"tp", 1}, {"pp", 1}, {"dp", 16}, {"micro_batch", 1}, {"zero_stage", 3}}},
          {"training", {{"global_batch", 16 * micro_batches}, {"seq_len", 4096}}}};
}

TEST(Software, KeepingTheForwardGatherSavesOneZero3GatherPerMicroBatch) {
  const auto run = [](int m, bool reshard) {
    const json out = predict(fsdp_llama(m, reshard));
    EXPECT_FALSE(out.contains("error")) << out.dump();
    return out;
  };
  const auto dp = [](const json& out) { return out["training"]["breakdown_s"]["dp_comm"].get<double>(); };
  const json kept4 = run(4, false), released4 = run(4, true);
  const double saved4 = dp(released4) - dp(kept4), saved8 = dp(run(8, true)) - dp(run(8, false));
  EXPECT_GT(saved4, 0.0);
  EXPECT_NEAR(saved8 / saved4, 2.0, 1e-9);
  const json kept = kept4["memory"]["per_device_bytes"];
  const json released = released4["memory"]["per_device_bytes"];
  // Released: a 16th of the weights plus two layers gathered whole (the one computed and the next,
  // prefetched), 218.1 M parameters each at 2 bytes; kept: every layer whole.
  EXPECT_NEAR(released["weights"].get<double>() - kept["weights"].get<double>() / 16.0,
              2.0 * 2.0 * 218112000.0, 1.0);
  EXPECT_EQ(kept["gradients"], released["gradients"]);
  EXPECT_EQ(kept["optimizer"], released["optimizer"]);
  // Llama 3 70B's whole 16-bit weights (141 GB) do not fit an H100: the warning names the key.
  json big = fsdp_llama(4, false);
  big["model"] = "llama3-70b";
  const json warnings = predict(big)["warnings"];
  bool named = false;
  for (const json& w : warnings)
    named = named ||
            (w["code"] == "memory.does_not_fit" &&
             w["message"].get<std::string>().find("zero3_reshard_after_forward true") != std::string::npos);
  EXPECT_TRUE(named) << warnings.dump();
}

// The nemo-automodel profile: DeepEP dispatch, the experts in one grouped kernel (no per-expert
// launch: less host wait than the same dropless layer issuing a GEMM per expert) and the forward's
// gathers kept.
TEST(Software, NemoAutomodelProfileIssuesTheExpertsAsOneKernelAndKeepsItsGathers) {
  const json v = json::parse(optimus::api::validate(llama("nemo-automodel").dump()));
  const json sw = v["scenario"]["system"]["software"];
  EXPECT_EQ(sw["moe_dispatcher"], "deepep") << v.dump();
  EXPECT_EQ(sw["training_expert_gemm_us"], 0);
  EXPECT_EQ(sw["zero3_reshard_after_forward"], false);
  EXPECT_EQ(sw["overlap_grad_reduce"], false);
  const json e = software_key_error("zero3_reshard_after_forward", "no");
  EXPECT_EQ(e["code"], "scenario.wrong_type");
  EXPECT_EQ(e["path"], "/software/software/zero3_reshard_after_forward");
  json s = qwen_moe(100, 1, 8);
  s["system"] = "dgx-h100";
  s["parallel"]["zero_stage"] = 3;
  s["software"] = "pytorch-fsdp";
  const double per_expert = host_s(s);
  s["software"] = "nemo-automodel";
  const double grouped = host_s(s);
  EXPECT_GT(per_expert, 0.0);
  EXPECT_LT(grouped, per_expert);
}

}  // namespace

// Per-tensor fp8 current scaling (software.fp8_scaling) reads each cast tensor once more for its
// amax: an fp8 step gets slower by memory-bound time only, a bf16 or mxfp8 step does not move, the
// megatron-bridge profile carries it, and a value outside the two recipes is refused at its path.
TEST(Software, Fp8CurrentScalingCostsOneMoreReadPerCast) {
  const auto step = [](const char* precision, const json& software, const char* system = "dgx-h100") {
    json s = {{"model", "llama3-8b"},
              {"system", system},
              {"num_devices", 8},
              {"training", {{"global_batch", 64}, {"seq_len", 4096}, {"precision", precision}}}};
    if (!software.is_null()) s["software"] = software;
    const json out = predict(s);
    EXPECT_FALSE(out.contains("error")) << out.dump();
    return out["training"];
  };
  const json current = {{"name", "test"}, {"software", {{"fp8_scaling", "current"}}}};
  const json fp8 = step("fp8", nullptr), fp8_cs = step("fp8", current);
  EXPECT_GT(fp8_cs["iteration_time_s"].get<double>(), fp8["iteration_time_s"].get<double>());
  EXPECT_GT(fp8_cs["by_bound_s"]["memory"].get<double>(), fp8["by_bound_s"]["memory"].get<double>());
  EXPECT_EQ(fp8_cs["by_bound_s"]["compute"], fp8["by_bound_s"]["compute"]);
  EXPECT_EQ(step("bf16", current)["iteration_time_s"], step("bf16", nullptr)["iteration_time_s"]);
  // mxfp8 where it is native (Blackwell; on Hopper it trains as fp8, training_format).
  EXPECT_EQ(step("mxfp8", current, "dgx-b200")["iteration_time_s"],
            step("mxfp8", nullptr, "dgx-b200")["iteration_time_s"]);
  EXPECT_GT(step("mxfp8", current)["iteration_time_s"], step("mxfp8", nullptr)["iteration_time_s"]);
  const json v = json::parse(optimus::api::validate(llama("megatron-bridge").dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["fp8_scaling"], "current") << v.dump();
  EXPECT_EQ(json::parse(optimus::api::validate(
                llama(nullptr).dump()))["scenario"]["system"]["software"]["fp8_scaling"],
            "delayed");
  const json e = software_key_error("fp8_scaling", "sometimes");
  EXPECT_EQ(e["code"], "scenario.invalid_value");
  EXPECT_EQ(e["path"], "/software/software/fp8_scaling");
}

// 4-bit training keeps the stack's tensor-parallel overlap only where the stack says it supports
// it there (software.tp_comm_overlap_fp4, off by default: Megatron-Bridge's NVFP4 recipes turn the
// overlap off); exposed collectives make the step slower; the scenario's own choice wins.
TEST(Software, FourBitTrainingRunsWithoutTensorParallelOverlapUnlessTheStackSupportsIt) {
  const auto training = [](const std::string& precision) {
    return json{{"model", "llama3-70b"},
                {"system", "gb200-nvl72"},
                {"num_devices", 64},
                {"software", {{"name", "overlapping stack"}, {"software", {{"tp_comm_overlap", true}}}}},
                {"parallel", {{"tp", 2}, {"pp", 4}, {"interleave", 5}, {"sequence_parallel", true}}},
                {"training", {{"global_batch", 256}, {"seq_len", 8192}, {"precision", precision}}}};
  };
  const json fp8 = predict(training("mxfp8")), fp4 = predict(training("nvfp4"));
  ASSERT_FALSE(fp4.contains("error")) << fp4.dump();
  EXPECT_EQ(fp8["training"]["assumed"]["tp_comm_overlap"], true);
  EXPECT_EQ(fp4["training"]["assumed"]["tp_comm_overlap"], false);
  json supported = training("nvfp4");
  supported["software"]["software"]["tp_comm_overlap_fp4"] = true;
  const json on = predict(supported);
  EXPECT_EQ(on["training"]["assumed"]["tp_comm_overlap"], true);
  EXPECT_LT(on["training"]["iteration_time_s"].get<double>(),
            fp4["training"]["iteration_time_s"].get<double>());
  json own = training("nvfp4");
  own["training"]["tp_comm_overlap"] = true;
  EXPECT_EQ(predict(own)["training"]["assumed"]["tp_comm_overlap"], true);
  json bad = training("nvfp4");
  bad["software"]["software"]["tp_comm_overlap_fp4"] = "yes";
  const json err = predict(bad);
  ASSERT_TRUE(err.contains("error"));
  EXPECT_EQ(err["error"]["path"], "/software/software/tp_comm_overlap_fp4");
}

// A stack that synchronises the device after every pipeline exchange (Megatron-LM's
// torch.cuda.synchronize() after batch_isend_irecv) waits pipeline_sync_us at each of the
// 2 (v m + p - 1) exchanges of an iteration; the wait is host time, and nothing else moves.
TEST(Software, PipelineSyncWaitsOncePerExchange) {
  auto gpt = [](double sync_us, int pp, int interleave) {
    json s = {{"model", "gpt3-175b"},
              {"system", "dgx-a100-80gb"},
              {"num_devices", 64},
              {"parallel", {{"tp", 8}, {"pp", pp}, {"interleave", interleave}, {"recompute", "full"}}},
              {"training", {{"global_batch", 32}, {"seq_len", 2048}}},
              {"software", {{"name", "sync"}, {"software", {{"pipeline_sync_us", sync_us}}}}}};
    return predict(s);
  };
  for (const auto& [pp, v] : {std::pair{8, 1}, {8, 3}, {4, 2}}) {
    const json a = gpt(0, pp, v), b = gpt(1000, pp, v);
    ASSERT_FALSE(a.contains("error")) << a.dump();
    const double m = a["training"]["micro_batches"].get<double>();
    // Hand count: m micro-batches of 1 sequence on each of 64 / (8 pp) replicas.
    EXPECT_DOUBLE_EQ(m, 32.0 / (64.0 / (8.0 * pp)));
    const double exchanges = 2.0 * (v * m + pp - 1.0);
    const double dh = b["training"]["breakdown_s"]["host"].get<double>() -
                      a["training"]["breakdown_s"]["host"].get<double>();
    EXPECT_NEAR(dh, exchanges * 1e-3, 1e-9) << "pp " << pp << " v " << v;
    EXPECT_NEAR(
        b["training"]["iteration_time_s"].get<double>() - a["training"]["iteration_time_s"].get<double>(),
        exchanges * 1e-3, 1e-9);
    EXPECT_EQ(a["training"]["breakdown_s"]["compute"], b["training"]["breakdown_s"]["compute"]);
  }
  // No pipeline, no exchange: nothing to wait for.
  EXPECT_EQ(gpt(0, 1, 1)["training"]["iteration_time_s"], gpt(1000, 1, 1)["training"]["iteration_time_s"]);
  // Bad values get a code and the JSON path.
  const json bad = gpt(-1, 8, 1);
  ASSERT_TRUE(bad.contains("error"));
  EXPECT_EQ(bad["error"]["path"], "/software/software/pipeline_sync_us");
  // Megatron-Core's 2024 defaults synchronise after each batched exchange on any system (the
  // megatron-core-2024 profile over an H100 system without a sync of its own).
  json h100 = {{"model", "gpt3-175b"},
               {"system", "dgx-h100"},
               {"num_devices", 64},
               {"parallel", {{"tp", 8}, {"pp", 8}, {"recompute", "full"}}},
               {"training", {{"global_batch", 32}, {"seq_len", 2048}}}};
  const json plain = predict(h100);
  h100["software"] = "megatron-core-2024";
  const json synced = predict(h100);
  const double exchanges = 2.0 * (plain["training"]["micro_batches"].get<double>() + 7.0);
  EXPECT_NEAR(synced["training"]["breakdown_s"]["host"].get<double>() -
                  plain["training"]["breakdown_s"]["host"].get<double>(),
              exchanges * 1.8e-3, 1e-9);
}

// Computation beside a data-parallel collective runs slower (dp_overlap_slowdown s, Lee et al.
// 2025): the hidden part H of the data-parallel traffic adds H s / (1 + s), counted in dp_comm,
// and traffic that is not hidden (an all-reduce after the backward pass) adds nothing.
TEST(Software, DataParallelOverlapSlowsTheComputationBesideIt) {
  auto fsdp = [](double slowdown, int zero, bool overlap) {
    json s = {{"model", "llama2-7b"},
              {"system", "dgx-h100"},
              {"num_devices", 8},
              {"parallel", {{"tp", 1}, {"dp", 8}, {"micro_batch", 2}, {"zero_stage", zero}}},
              {"training", {{"global_batch", 16}, {"seq_len", 2048}}},
              {"software",
               {{"name", "fsdp"},
                {"software", {{"dp_overlap_slowdown", slowdown}, {"overlap_grad_reduce", overlap}}}}}};
    return predict(s);
  };
  const auto dp = [](const json& o) { return o["training"]["breakdown_s"]["dp_comm"].get<double>(); };
  const json base = fsdp(0, 3, true);
  ASSERT_FALSE(base.contains("error")) << base.dump();
  const double d1 = dp(fsdp(1.0, 3, true)) - dp(base);   // H / 2
  const double d2 = dp(fsdp(0.25, 3, true)) - dp(base);  // H / 5
  EXPECT_GT(d1, 0.0);
  EXPECT_NEAR(d2 / d1, (0.25 / 1.25) / 0.5, 1e-9);
  // The whole difference is in dp_comm: the layer's own kernels are unchanged.
  EXPECT_EQ(base["training"]["breakdown_s"]["compute"],
            fsdp(1.0, 3, true)["training"]["breakdown_s"]["compute"]);
  EXPECT_NEAR(fsdp(1.0, 3, true)["training"]["iteration_time_s"].get<double>() -
                  base["training"]["iteration_time_s"].get<double>(),
              d1, 1e-12);
  // All-reduce after the backward pass: nothing runs beside it.
  EXPECT_EQ(dp(fsdp(0, 0, false)), dp(fsdp(1.0, 0, false)));
  // Bad values get a code and the JSON path.
  for (double v : {-0.1, 1.5}) {
    const json bad = fsdp(v, 3, true);
    ASSERT_TRUE(bad.contains("error")) << v;
    EXPECT_EQ(bad["error"]["path"], "/software/software/dp_overlap_slowdown");
  }
}

// The inference runtimes' one-shot custom all-reduce (software custom_allreduce_max_kb and
// custom_allreduce_us): a small tensor-parallel all-reduce inside one node costs the fixed time
// plus (P - 1) x bytes at the scale-up link rate, whichever of it and NCCL's ring is faster; by
// hand for Llama 2 7B at TP 8 on H100, batch 1: 64 all-reduces of 4096 x 2 bytes per decode step.
// Training, messages above the limit and groups that cross nodes keep NCCL.
TEST(Software, OneShotCustomAllReduceForSmallInferenceMessages) {
  const auto run = [](double kb, const json& extra) {
    json s = {{"model", "llama2-7b"},
              {"system", "dgx-h100"},
              {"num_devices", 8},
              {"parallel", {{"tp", 8}}},
              {"software",
               {{"name", "t"}, {"software", {{"custom_allreduce_max_kb", kb}, {"custom_allreduce_us", 6}}}}}};
    s.update(extra);
    return predict(s);
  };
  const json decode = {{"inference", {{"batch", 1}, {"prompt_len", 128}, {"output_len", 20}}}};
  const auto comm = [](const json& o) {
    return o["inference"]["decode_step_s"]["communication"].get<double>();
  };
  const double nccl = comm(run(0, decode)), custom = comm(run(64, decode));
  const auto sys = optimus::system_preset("dgx-h100", "/system");
  ASSERT_TRUE(sys.ok());
  const double link = sys->scale_up.bandwidth.value * sys->scale_up.efficiency;
  const double one = 6e-6 + 7.0 * 4096 * 2 / link;
  EXPECT_NEAR(custom, 64 * one, 1e-12);
  EXPECT_LT(custom, nccl);
  // A limit below the message size keeps NCCL.
  EXPECT_EQ(comm(run(4, decode)), nccl);
  // Training all-reduces are not the runtime's.
  const json train = {{"training", {{"global_batch", 8}, {"seq_len", 2048}}}};
  EXPECT_EQ(run(64, train)["training"]["breakdown_s"], run(0, train)["training"]["breakdown_s"]);
  // The profiles that carry it, and a bad value: code and path.
  const auto profile = [](const char* id, const json& workload) {
    json s = {{"model", "llama2-7b"},
              {"system", "dgx-h100"},
              {"num_devices", 8},
              {"parallel", {{"tp", 8}}},
              {"software", id}};
    s.update(workload);
    return predict(s);
  };
  for (const char* id : {"tensorrt-llm", "vllm", "sglang"}) EXPECT_LT(comm(profile(id, decode)), nccl) << id;
  // A decode step of 64 sequences all-reduces 512 KiB: every runtime still runs its own kernel
  // (vLLM's CustomAllreduce below 8 MiB, TensorRT-LLM's 8 MB workspace, SGLang's 8 MiB), not
  // NCCL's ring (docs/serving.md, "One model, three runtimes").
  const json batch64 = {{"inference", {{"batch", 64}, {"prompt_len", 128}, {"output_len", 20}}}};
  const double nccl64 = comm(run(0, batch64));
  for (const char* id : {"tensorrt-llm", "tensorrt-llm-pytorch", "vllm", "sglang"})
    EXPECT_LT(comm(profile(id, batch64)), 0.5 * nccl64) << id;
  const json bad = run(-1, decode);
  ASSERT_TRUE(bad.contains("error"));
  EXPECT_EQ(bad["error"]["path"], "/software/software/custom_allreduce_max_kb");
}

// A training stack's share of the device's matmul rate (software.training_matmul_share): every
// training matmul, and nothing else, takes 1 / share as long. A compute-bound layer without
// communication shows it directly; inference (its runtime's own kernels) does not move at all.
namespace {

json dense_layer(const json& software) {
  json s = {{"model", "llama3.1-8b"},
            {"system", "dgx-a100-80gb"},
            {"num_devices", 1},
            {"parallel", {{"tp", 1}, {"pp", 1}, {"dp", 1}, {"micro_batch", 1}, {"recompute", "none"}}},
            {"training", {{"global_batch", 1}, {"seq_len", 4096}, {"precision", "bf16"}}}};
  if (!software.is_null()) s["software"] = software;
  return s;
}

}  // namespace

TEST(Software, TheTrainingMatmulShareSlowsTheTrainingMatmulsOnly) {
  const json share_half = {{"software", {{"training_matmul_share", 0.5}}}};
  const json base = predict(dense_layer(nullptr))["training"];
  const json half = predict(dense_layer(share_half))["training"];
  // The layer is mostly matmuls: between 1.5x and 2x as long; the memory-bound rest unchanged.
  const double fwd = base["layer_s"]["forward"], fwd_half = half["layer_s"]["forward"];
  EXPECT_GT(fwd_half, 1.5 * fwd);
  EXPECT_LT(fwd_half, 2.0 * fwd);
  EXPECT_NEAR(base["by_bound_s"]["memory"].get<double>(), half["by_bound_s"]["memory"].get<double>(),
              1e-12 + 1e-9 * base["by_bound_s"]["memory"].get<double>());
  // Compute-bound kernels: twice the matmul time, less their fixed launch cost and the attention
  // exponentials on the special-function units, which the share does not touch.
  const double compute_ratio =
      half["by_bound_s"]["compute"].get<double>() / base["by_bound_s"]["compute"].get<double>();
  EXPECT_GT(compute_ratio, 1.85);
  EXPECT_LE(compute_ratio, 2.0);
  // A share of 1 is the default, exactly.
  EXPECT_EQ(predict(dense_layer(json{{"software", {{"training_matmul_share", 1.0}}}})).dump(),
            predict(dense_layer(nullptr)).dump());
  // Inference, prefill and decode alike, is not a training stack's: exactly unchanged.
  json infer = llama(share_half);
  infer["inference"].erase("serving");
  infer["inference"]["prompt_len"] = 4096;
  json infer_base = infer;
  infer_base.erase("software");
  EXPECT_EQ(predict(infer)["inference"].dump(), predict(infer_base)["inference"].dump());
}

// An inference runtime's matmul share slows its compute-bound GEMMs (a long prompt's) and
// nothing memory-bound: batch-1 decode streams the weights at the same rate; training is untouched.
TEST(Software, TheInferenceMatmulShareSlowsComputeBoundInferenceGemmsOnly) {
  const auto run = [](double share) {
    json s = llama(json{{"software", {{"inference_matmul_share", share}}}});
    s["inference"].erase("serving");
    s["inference"]["batch"] = 1;
    s["inference"]["prompt_len"] = 8192;
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["inference"];
  };
  const json base = run(1.0), half = run(0.5);
  const double ttft = base["ttft_s"], ttft_half = half["ttft_s"];
  // An 8192-token prompt of Llama 3.1 8B is mostly GEMMs: between 1.5x and 2x as long.
  EXPECT_GT(ttft_half, 1.5 * ttft);
  EXPECT_LT(ttft_half, 2.0 * ttft);
  EXPECT_DOUBLE_EQ(half["tpot_s"].get<double>(), base["tpot_s"].get<double>());
  // A share of 1 is the default, exactly; training does not read it.
  json plain = llama(nullptr);
  plain["inference"].erase("serving");
  plain["inference"]["batch"] = 1;
  plain["inference"]["prompt_len"] = 8192;
  EXPECT_EQ(predict(plain)["inference"].dump(), base.dump());
  EXPECT_EQ(predict(dense_layer(json{{"software", {{"inference_matmul_share", 0.5}}}}))["training"].dump(),
            predict(dense_layer(nullptr))["training"].dump());
  for (const double bad : {0.0, 1.5}) {
    const json e = predict(llama(json{{"software", {{"inference_matmul_share", bad}}}}))["error"];
    EXPECT_EQ(e["code"], "scenario.out_of_range") << bad;
    EXPECT_EQ(e["path"], "/software/software/inference_matmul_share") << bad;
  }
}

// The FasterTransformer profile: the unfused context attention of its v4-v5.0 GPT context phase
// and its fitted matmul share. The unfused prompt attention lengthens the prompt phase of a long
// prompt and leaves decode alone; the pytorch-eager profile runs the prompt unfused too.
TEST(Software, TheFasterTransformerProfileRunsTheContextPhaseUnfused) {
  const json v = json::parse(optimus::api::validate(llama("fastertransformer").dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["unfused_context_attention"], true);
  EXPECT_DOUBLE_EQ(v["scenario"]["system"]["software"]["inference_matmul_share"].get<double>(), 0.84);
  const json e = json::parse(optimus::api::validate(llama("pytorch-eager").dump()));
  EXPECT_EQ(e["scenario"]["system"]["software"]["unfused_context_attention"], true);
  const auto run = [](bool unfused) {
    json s = llama(json{{"name", "t"}, {"software", {{"unfused_context_attention", unfused}}}});
    s["inference"].erase("serving");
    s["inference"]["prompt_len"] = 4096;
    return predict(s)["inference"];
  };
  const json fused = run(false), unfused = run(true);
  EXPECT_GT(unfused["ttft_s"].get<double>(), 1.02 * fused["ttft_s"].get<double>());
  EXPECT_DOUBLE_EQ(unfused["tpot_s"].get<double>(), fused["tpot_s"].get<double>());
  // The score matrix of one layer is held per sequence: 32 heads x 4096^2 x 2 bytes x 8 sequences.
  const auto activations = [](const json& p) {
    return p["memory"]["per_device_bytes"]["activations"].get<double>();
  };
  EXPECT_NEAR(activations(unfused) - activations(fused), 32.0 * 4096 * 4096 * 2 * 8, 1.0);
  // Its decode layer is 9 kernels: the MLP's norm rides on the residual add after attention. On
  // DGX H100's 17 us launch interval each of Llama 3.1 8B's 32 layers loses that norm's interval
  // and keeps the write of its output (8 x 4096 x 2 bytes, under 0.1 us).
  EXPECT_EQ(v["scenario"]["system"]["software"]["fused_attention_residual_norm"], true);
  EXPECT_EQ(e["scenario"]["system"]["software"]["fused_attention_residual_norm"], false);
  const auto tpot = [](bool fused_norm) {
    json s = llama(json{{"name", "t"}, {"software", {{"fused_attention_residual_norm", fused_norm}}}});
    s["inference"].erase("serving");
    return predict(s)["inference"]["tpot_s"].get<double>();
  };
  EXPECT_NEAR(tpot(false) - tpot(true), 32 * 17e-6, 32 * 0.1e-6);
}

TEST(Software, TheMegatronDeepSpeedProfileCarriesItsFittedShare) {
  const json v = json::parse(optimus::api::validate(dense_layer("megatron-deepspeed").dump()));
  EXPECT_DOUBLE_EQ(v["scenario"]["system"]["software"]["training_matmul_share"].get<double>(), 0.74);
  EXPECT_EQ(v["scenario"]["system"]["software"]["overlap_grad_reduce"], false);
  // DeepSpeed's pipeline engine does not wait for the device after an exchange (the A100
  // system's own block, Megatron-LM's, does).
  EXPECT_EQ(v["scenario"]["system"]["software"]["pipeline_sync_us"].get<double>(), 0.0);
  // Other stacks keep the device's own rate.
  const json d = json::parse(optimus::api::validate(dense_layer(nullptr).dump()));
  EXPECT_DOUBLE_EQ(d["scenario"]["system"]["software"]["training_matmul_share"].get<double>(), 1.0);
}

// Meta's Llama 3 stack: the system's block (here DGX H100's: FlashAttention, overlapped gradient
// and tensor-parallel communication) with its fitted share and asynchronous pipeline exchanges.
TEST(Software, TheMetaLlama3ProfileIsTheSystemsBlockWithItsFittedShare) {
  json s = dense_layer("meta-llama3");
  s["system"] = "dgx-h100";
  json base = s;
  base.erase("software");
  const json v = json::parse(optimus::api::validate(s.dump()));
  const json d = json::parse(optimus::api::validate(base.dump()));
  json sw = v["scenario"]["system"]["software"], sd = d["scenario"]["system"]["software"];
  EXPECT_DOUBLE_EQ(sw["training_matmul_share"].get<double>(), 0.75);
  EXPECT_EQ(sw["pipeline_sync_us"].get<double>(), 0.0);
  for (json* j : {&sw, &sd}) {
    j->erase("training_matmul_share");
    j->erase("pipeline_sync_us");
    j->erase("notes");
  }
  EXPECT_EQ(sw.dump(), sd.dump());
}

// Block-scaled fp8 (DeepSeek-V3's FP8 checkpoint) decoding on Hopper: CUTLASS-based kernels (the
// default, TensorRT-LLM's) take longer than the roofline by DeepGEMM's published ratios; with
// DeepGEMM kernels, or on Blackwell (block-scaled tensor cores), or with per-tensor scales, nothing
// changes. fp8_block_scaled needs fp8.
TEST(Software, BlockScaledFp8OnHopperTakesTheCutlassKernelsTime) {
  const auto tpot = [](const std::string& system, bool block, const char* kernel) {
    json s = {{"model", "deepseek-v3"},
              {"system", system},
              {"num_devices", 8},
              {"parallel", {{"tp", 8}, {"ep", 8}}},
              {"inference",
               {{"batch", 64},
                {"prompt_len", 1024},
                {"output_len", 64},
                {"precision", "fp8"},
                {"cuda_graphs", true}}}};
    if (block) s["inference"]["fp8_block_scaled"] = true;
    if (kernel) s["software"] = {{"name", "kernels"}, {"software", {{"block_fp8_gemm", kernel}}}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["inference"]["tpot_s"].get<double>();
  };
  const double tensor = tpot("dgx-h200", false, nullptr), block = tpot("dgx-h200", true, nullptr);
  EXPECT_GT(block, 1.2 * tensor);   // the experts' GEMMs at 64 x 8 / 256 x 8 rows: about 1.78x
  EXPECT_LT(block, 1.78 * tensor);  // attention and communication unchanged
  EXPECT_DOUBLE_EQ(tpot("dgx-h200", true, "deepgemm"), tensor);
  EXPECT_DOUBLE_EQ(tpot("dgx-b200", true, nullptr), tpot("dgx-b200", false, nullptr));
  json bad = llama(nullptr);
  bad["inference"]["fp8_block_scaled"] = true;  // bf16 weights
  const json e = predict(bad)["error"];
  EXPECT_EQ(e["code"], "inference.fp8_block_scaled_without_fp8");
  EXPECT_EQ(e["path"], "/inference/fp8_block_scaled");
}

// A quantised dispatch (system.software.quantized_dispatch: DeepEP's FP8 dispatch with a fp32 scale
// per 128 channels, BF16 combine) sends 1 + 4/128 bytes a channel where the experts take 8-bit
// activations: of a prefill's dispatch + combine, once 2 + 2 bytes, 1.03125 + 2 remain (0.758 of the
// exchange, a little more with the latencies); NVFP4 experts on Blackwell 0.5 + 1/16 (0.641). An
// NVFP4 checkpoint on Hopper multiplies in bf16 and sends bf16. 16-bit experts and training are
// unchanged; the sglang-deepep profile states it.
TEST(Software, AQuantisedDispatchSendsTheExpertsInputFormat) {
  const auto comm = [](const char* precision, const json& software, const char* system = "dgx-h100") {
    json s = {{"model", "deepseek-v3"},
              {"system", system},
              {"num_devices", 32},
              {"parallel", {{"tp", 1}, {"dp", 32}, {"ep", 32}, {"expert_slots", 288}}},
              {"inference",
               {{"batch", 4},
                {"prompt_len", 4096},
                {"output_len", 1},
                {"precision", precision},
                {"cuda_graphs", true}}}};
    if (!software.is_null()) s["software"] = software;
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["inference"]["prefill_s"]["communication"].get<double>();
  };
  const json on = {{"name", "q"}, {"software", {{"quantized_dispatch", true}}}};
  const double plain = comm("fp8", nullptr), quantised = comm("fp8", on);
  // Bytes alone give (1 + 4/128 + 2) / (2 + 2); the latencies, paid either way, only raise it.
  EXPECT_GT(quantised / plain, (1.0 + 4.0 / 128.0 + 2.0) / 4.0);
  EXPECT_LT(quantised / plain, 0.77);
  EXPECT_DOUBLE_EQ(comm("fp8", "sglang-deepep"), quantised);
  EXPECT_DOUBLE_EQ(comm("bf16", on), comm("bf16", nullptr));
  const double fp4 = comm("nvfp4", on, "dgx-b200") / comm("nvfp4", nullptr, "dgx-b200");
  EXPECT_GT(fp4, (0.5 + 1.0 / 16.0 + 2.0) / 4.0);
  EXPECT_LT(fp4, 0.66);
  EXPECT_DOUBLE_EQ(comm("nvfp4", on), comm("nvfp4", nullptr));
  const auto step = [](const json& software) {
    json s = {{"model", "deepseek-v3"},
              {"system", "dgx-h100"},
              {"num_devices", 256},
              {"parallel", {{"tp", 1}, {"pp", 8}, {"ep", 32}, {"dp", 32}, {"micro_batch", 1}}},
              {"training", {{"global_batch", 256}, {"seq_len", 4096}, {"precision", "fp8"}}}};
    if (!software.is_null()) s["software"] = software;
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    return p["training"]["iteration_time_s"].get<double>();
  };
  EXPECT_DOUBLE_EQ(step(on), step(nullptr));
}

// A model whose checkpoint is published in FP8 with block scales (DeepSeek-R1, DeepSeek-V3, Kimi
// K2: model.checkpoint_precision) is served so when the scenario states no precision, with a
// warning that says it; a stated precision is kept; a model without one keeps 16 bits. The
// prediction equals the one that states fp8 and fp8_block_scaled outright.
TEST(Software, AnFp8CheckpointIsServedAsPublishedWhenNoPrecisionIsStated) {
  const auto scenario = [](const char* model, const char* precision) {
    json s = {{"model", model},
              {"system", "dgx-h200"},
              {"num_devices", 8},
              {"parallel", {{"tp", 8}, {"ep", 8}}},
              {"inference", {{"batch", 16}, {"prompt_len", 1000}, {"output_len", 100}}}};
    if (precision) s["inference"]["precision"] = precision;
    return s;
  };
  const auto warned = [](const json& p) {
    for (const json& w : p["warnings"])
      if (w["code"] == "inference.checkpoint_precision") return true;
    return false;
  };
  const json as_published = predict(scenario("deepseek-r1", nullptr));
  ASSERT_FALSE(as_published.contains("error")) << as_published.dump().substr(0, 300);
  EXPECT_EQ(as_published["inference"]["math_precision"], "fp8");
  EXPECT_TRUE(warned(as_published));
  json stated = scenario("deepseek-r1", "fp8");
  stated["inference"]["fp8_block_scaled"] = true;
  const json explicit_fp8 = predict(stated);
  EXPECT_DOUBLE_EQ(as_published["inference"]["tpot_s"].get<double>(),
                   explicit_fp8["inference"]["tpot_s"].get<double>());
  EXPECT_FALSE(warned(explicit_fp8));
  // The scenario validate writes states what was assumed, so it reads back the same.
  const json v = json::parse(optimus::api::validate(scenario("deepseek-r1", nullptr).dump()))["scenario"];
  EXPECT_EQ(v["inference"]["precision"], "fp8");
  EXPECT_EQ(v["inference"]["fp8_block_scaled"], true);
  const json bf16 = predict(scenario("deepseek-r1", "bf16"));
  EXPECT_EQ(bf16["inference"]["math_precision"], "bf16");
  EXPECT_FALSE(warned(bf16));
  const json dense = predict(scenario("mixtral-8x7b", nullptr));
  EXPECT_EQ(dense["inference"]["math_precision"], "fp16");
  EXPECT_FALSE(warned(dense));
  // Block scales describe fp8 weights only.
  json bad = scenario("deepseek-r1", nullptr);
  bad["model"] = json::parse(optimus::api::preset("models", "deepseek-r1"));
  bad["model"]["checkpoint_precision"] = "bf16";
  const json e = predict(bad)["error"];
  EXPECT_EQ(e["code"], "model.checkpoint_block_scaled_without_fp8");
  EXPECT_EQ(e["path"], "/model/checkpoint_block_scaled");
}

// Weight-only MXFP4 (gpt-oss's experts on Hopper under TensorRT-LLM's Triton MoE backend: MXFP4
// weights, BF16 activations): the weights are held and read at mxfp4 size (0.5 + 1/32 bytes) and
// the math runs at the bf16 rate, without a precision fallback (mxfp4 alone on Hopper runs so too,
// with one). An 8192-token prompt on one H100 is
// compute-bound: bf16's multiply-adds plus the conversion of every weight on the CUDA cores once
// per 128-row tile (with_fp4_weight_dequant), so it takes longer than the bf16 model's prompt
// (triton-lang/triton PR #11361 on H100: "Large M remains a speed/memory tradeoff" against a cast
// and a dense GEMM); one decode token is bound by reading the weights, a quarter of bf16's bytes
// for the experts. Activations narrower than the weights are refused.
TEST(Software, WeightOnlyMxfp4ReadsFourBitWeightsAndMultipliesAtTheBf16Rate) {
  const auto run = [](const char* precision, const char* activation) {
    json s = {{"model", "gpt-oss-20b"},
              {"system", "dgx-h100"},
              {"num_devices", 1},
              {"inference",
               {{"batch", 1},
                {"prompt_len", 8192},
                {"output_len", 64},
                {"precision", precision},
                {"cuda_graphs", true}}}};
    if (activation) s["inference"]["activation_precision"] = activation;
    return predict(s);
  };
  const json w4a16 = run("mxfp4", "bf16"), fp4 = run("mxfp4", nullptr), bf16 = run("bf16", nullptr),
             w4a8 = run("mxfp4", "fp8");
  ASSERT_FALSE(w4a16.contains("error")) << w4a16.dump();
  EXPECT_EQ(w4a16["inference"]["math_precision"], "bf16");
  EXPECT_TRUE(w4a16["warnings"].empty()) << w4a16["warnings"].dump();
  // mxfp4 alone: the same weight-only bf16 math, said (a warning)
  EXPECT_EQ(fp4["warnings"][0]["code"], "device.precision_fallback");
  EXPECT_EQ(fp4["inference"]["math_precision"], "bf16");
  const auto weights = [](const json& p) { return p["memory"]["per_device_bytes"]["weights"].get<double>(); };
  EXPECT_DOUBLE_EQ(weights(w4a16), weights(fp4));
  EXPECT_LT(weights(w4a16), 0.35 * weights(bf16));
  const auto ttft = [](const json& p) { return p["inference"]["ttft_s"].get<double>(); };
  const auto tpot = [](const json& p) { return p["inference"]["tpot_s"].get<double>(); };
  EXPECT_GT(ttft(w4a16), 1.1 * ttft(bf16));
  EXPECT_DOUBLE_EQ(ttft(w4a16), ttft(fp4));
  EXPECT_GT(ttft(w4a16), 1.3 * ttft(w4a8));  // fp8 activations stated: fp8's rate
  EXPECT_LT(tpot(w4a16), 0.75 * tpot(bf16));
  json bad = run("bf16", "fp8");
  EXPECT_EQ(bad["error"]["code"], "inference.activation_precision_narrower_than_weights");
  EXPECT_EQ(bad["error"]["path"], "/inference/activation_precision");
}

// gpt-oss ships its routed experts in MXFP4 and everything else in bf16 (model.checkpoint_
// experts_only): served at the checkpoint's precision, stated or not, the experts are held at
// mxfp4 size and the rest at 2 bytes a parameter; a decode step reads the 16-bit attention weights,
// so it is slower than with every matrix at mxfp4. Another precision quantises every matrix (the
// same as a model without the flag), and the flag needs experts and a checkpoint precision.
TEST(Software, ACheckpointQuantisedInItsExpertsAloneKeepsTheRestAt16Bits) {
  const json preset = json::parse(optimus::api::preset("models", "gpt-oss-120b"));
  ASSERT_EQ(preset["checkpoint_precision"], "mxfp4");
  ASSERT_EQ(preset["checkpoint_experts_only"], true);
  const auto run = [&](bool experts_only, const char* precision) {
    json model = preset;
    if (!experts_only) model.erase("checkpoint_experts_only");
    json s = {{"model", model},
              {"system", "dgx-b200"},
              {"num_devices", 1},
              {"inference", {{"batch", 8}, {"prompt_len", 1024}, {"output_len", 64}, {"cuda_graphs", true}}}};
    if (precision) s["inference"]["precision"] = precision;
    return predict(s);
  };
  const json as_published = run(true, nullptr), stated = run(true, "mxfp4"), all_fp4 = run(false, "mxfp4");
  ASSERT_FALSE(as_published.contains("error")) << as_published.dump().substr(0, 300);
  EXPECT_EQ(as_published["inference"]["tpot_s"], stated["inference"]["tpot_s"]);
  // The weights by hand: a layer's matrices outside the experts (config.json: hidden 2880, 64
  // query heads and 8 KV heads of 64, biases; the router's 128 experts; two norms) held at 2 bytes
  // instead of mxfp4's 0.5 + 1/32 (a 1-byte scale per 32 elements), over 36 layers; the embedding
  // and the LM head are 16-bit either way.
  const double h = 2880, q = 64 * 64, kv = 8 * 64;
  const double layer = (h * q + q) + 2 * (h * kv + kv) + (q * h + h) + (h * 128 + 128) + 2 * h;
  const auto weights = [](const json& p) { return p["memory"]["per_device_bytes"]["weights"].get<double>(); };
  EXPECT_NEAR(weights(as_published) - weights(all_fp4), 36 * layer * (2.0 - (0.5 + 1.0 / 32)),
              1e-4 * 36 * layer);
  // A decode step of 8 sequences on one B200 reads the 1.4 GB more: about 5% longer.
  EXPECT_GT(as_published["inference"]["tpot_s"].get<double>(),
            1.03 * all_fp4["inference"]["tpot_s"].get<double>());
  // By hand: those bytes at the B200 preset's sustained bandwidth (8,000 GB/s x 0.83) are the
  // decode step's added time, within 10% (the 16-bit GEMMs' own kernels differ a little).
  const double extra_s = 36 * layer * (2.0 - (0.5 + 1.0 / 32)) / (8000e9 * 0.83);
  EXPECT_NEAR(
      as_published["inference"]["tpot_s"].get<double>() - all_fp4["inference"]["tpot_s"].get<double>(),
      extra_s, 0.1 * extra_s);
  // Served at fp8: every matrix at fp8, as for a model without the flag.
  EXPECT_EQ(run(true, "fp8")["inference"]["tpot_s"], run(false, "fp8")["inference"]["tpot_s"]);
  json bad = {{"model", preset},
              {"system", "dgx-b200"},
              {"num_devices", 1},
              {"inference", {{"batch", 1}, {"prompt_len", 16}, {"output_len", 16}}}};
  bad["model"].erase("moe");
  const json e = predict(bad)["error"];
  EXPECT_EQ(e["code"], "model.checkpoint_experts_only_invalid");
  EXPECT_EQ(e["path"], "/model/checkpoint_experts_only");
}

TEST(Software, ATrainingMatmulShareOutOfRangeGetsItsPath) {
  for (const double bad : {0.0, -0.5, 1.5, 0.01}) {
    const json e = predict(dense_layer(json{{"software", {{"training_matmul_share", bad}}}}))["error"];
    EXPECT_EQ(e["code"], "scenario.out_of_range") << bad;
    EXPECT_EQ(e["path"], "/software/software/training_matmul_share") << bad;
  }
}

// A decode kernel that reads the cache once per query head (TensorRT-LLM before XQA, gpt-fast's
// and Hugging Face's expanded K/V) reads a GQA cache heads / kv_heads times per step: Llama 3.1
// 8B (32 heads, 8 KV heads) pays three more reads of its cache per decode step, a multi-head
// model nothing, and the prefill nothing.
TEST(Software, DecodeAttentionPerQueryHeadReadsAGroupedCacheOncePerHead) {
  const auto scenario = [](const std::string& model, bool per_head) {
    json s = {{"model", model},
              {"system", "dgx-h100"},
              {"num_devices", 1},
              {"inference", {{"batch", 64}, {"prompt_len", 2048}, {"output_len", 64}}}};
    if (per_head)
      s["software"] = {{"name", "per-head decode"}, {"software", {{"decode_kv_per_query_head", true}}}};
    return predict(s);
  };
  const json grouped = scenario("llama3.1-8b", false);
  const json per_head = scenario("llama3.1-8b", true);
  ASSERT_FALSE(per_head.contains("error")) << per_head.dump();
  EXPECT_DOUBLE_EQ(per_head["inference"]["ttft_s"].get<double>(),
                   grouped["inference"]["ttft_s"].get<double>());
  // The cache at the mean context of the decode steps (prompt + half the output), read three more
  // times at the H100's sustained bandwidth (3.35 TB/s x 0.89, its preset).
  const double full = grouped["inference"]["memory"]["per_device_bytes"]["kv_cache"].get<double>();
  const double mean_cache = full * (2048.0 + 32.0) / (2048.0 + 64.0);
  const double extra = 3.0 * mean_cache / (3350e9 * 0.89);
  const double added =
      per_head["inference"]["tpot_s"].get<double>() - grouped["inference"]["tpot_s"].get<double>();
  EXPECT_NEAR(added, extra, 0.1 * extra);
  // Multi-head attention (Llama 2 7B: 32 KV heads) reads its cache once per head anyway.
  EXPECT_DOUBLE_EQ(scenario("llama2-7b", true)["inference"]["tpot_s"].get<double>(),
                   scenario("llama2-7b", false)["inference"]["tpot_s"].get<double>());
  // The 2023 TensorRT-LLM profile carries it; today's does not.
  const json v = json::parse(optimus::api::validate(llama("tensorrt-llm-2023").dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["decode_kv_per_query_head"], true);
  const json t = json::parse(optimus::api::validate(llama("tensorrt-llm").dump()));
  EXPECT_EQ(t["scenario"]["system"]["software"]["decode_kv_per_query_head"], false);
}

namespace {

// A batch-1 decode of Llama 3.1 8B on one H100 (TPOT), and 64 x 4096-token Llama 3 8B training
// steps on 8 H100 (iteration time), under an inline software block `sw`.
double decode_tpot(const json& sw) {
  const json s = {{"model", "llama3.1-8b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 1},
                  {"inference", {{"batch", 1}, {"prompt_len", 128}, {"output_len", 16}}},
                  {"software", {{"name", "test"}, {"software", sw}}}};
  return predict(s)["inference"]["tpot_s"].get<double>();
}
double train_step(const json& sw) {
  const json s = {{"model", "llama3-8b"},
                  {"system", "dgx-h100"},
                  {"num_devices", 8},
                  {"parallel", {{"tp", 1}, {"micro_batch", 1}}},
                  {"training", {{"global_batch", 64}, {"seq_len", 4096}}},
                  {"software", {{"name", "test"}, {"software", sw}}}};
  return predict(s)["training"]["iteration_time_s"].get<double>();
}

}  // namespace

// Unfused element-wise kernels from an eager host: a batch-1 decode step of Llama 3.1 8B issues
// 20 more kernels per layer (RMSNorm 6 instead of 1, twice; SwiGLU 2 instead of 1; rotary 10
// instead of 1), each tiny and so held to the 30 us launch interval of the pytorch-eager
// profile: 32 layers x 20 x 30 us = 19.2 ms more per token. Training pays the extra traffic.
TEST(Software, UnfusedElementwiseKernelsCostLaunchesAndTraffic) {
  const auto decode = [](bool fused) {
    return decode_tpot({{"attention", "flash"}, {"launch_interval_us", 30}, {"fused_elementwise", fused}});
  };
  EXPECT_NEAR(decode(false) - decode(true), 32 * 20 * 30e-6, 1e-4);
  const auto train = [](bool fused) { return train_step({{"fused_elementwise", fused}}); };
  EXPECT_GT(train(false), 1.02 * train(true));
  // The pytorch-eager profile carries it.
  const json v = json::parse(optimus::api::validate(llama("pytorch-eager").dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["fused_elementwise"], false);
}

// A stack that fuses some element-wise operators and not others (unfused_elementwise): the
// decode step issues the extra kernels of the named ones only, the input RMSNorm (5 more) and
// SwiGLU (1 more) here: 32 layers x 6 x 30 us; naming all six is fused_elementwise false. The
// names read back in the enum's order, and a name given twice is an error at its index.
TEST(Software, SomeElementwiseOperatorsUnfused) {
  const auto error = [](const json& s) { return predict(s)["error"]; };
  const auto decode = [](const json& unfused) {
    return decode_tpot(
        {{"attention", "flash"}, {"launch_interval_us", 30}, {"unfused_elementwise", unfused}});
  };
  const double fused = decode_tpot({{"attention", "flash"}, {"launch_interval_us", 30}});
  EXPECT_NEAR(decode({"activation", "attn_norm"}) - fused, 32 * 6 * 30e-6, 1e-4);
  const json all = {"attn_norm", "mlp_norm", "final_norm", "activation", "rope", "dropout_add"};
  EXPECT_NEAR(decode(all),
              decode_tpot({{"attention", "flash"}, {"launch_interval_us", 30}, {"fused_elementwise", false}}),
              1e-12);
  const json v = json::parse(optimus::api::validate(
      llama(json{{"software", {{"unfused_elementwise", {"activation", "attn_norm"}}}}}).dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["unfused_elementwise"], json({"attn_norm", "activation"}));
  const json e = error(llama(json{{"software", {{"unfused_elementwise", {"rope", "rope"}}}}}));
  EXPECT_EQ(e["code"], "scenario.duplicate");
  EXPECT_EQ(e["path"], "/software/software/unfused_elementwise/1");
  EXPECT_EQ(error(llama(json{{"software", {{"unfused_elementwise", {"gelu"}}}}}))["code"],
            "scenario.invalid_value");
}

// Runtimes whose kernels absorb element-wise neighbours: a residual add fused with the norm after
// it, and the rotary embedding applied inside the attention kernel, each save the launch interval
// of a kernel per layer in a host-bound decode step (three per layer here: two norms, one rope);
// training graphs are not changed.
TEST(Software, FusedResidualNormAndRopeInAttentionDropKernels) {
  const auto decode = [](bool residual_norm, bool rope) {
    return decode_tpot({{"attention", "flash"},
                        {"launch_interval_us", 30},
                        {"fused_residual_norm", residual_norm},
                        {"rope_in_attention", rope}});
  };
  const double plain = decode(false, false);
  // 32 layers: two norms lose their kernels, and one rope per layer.
  EXPECT_NEAR(plain - decode(true, false), 32 * 2 * 30e-6, 2e-6);
  EXPECT_NEAR(plain - decode(false, true), 32 * 30e-6, 2e-6);
  EXPECT_LT(decode(true, true), decode(true, false));
  const auto train = [](bool fused) {
    return train_step({{"fused_residual_norm", fused}, {"rope_in_attention", fused}});
  };
  EXPECT_DOUBLE_EQ(train(true), train(false));
  // The profiles carry them: TensorRT-LLM's attention applies the rotary embedding, vLLM and
  // SGLang fuse the residual add into the norm.
  const auto sw = [](const char* id) {
    return json::parse(optimus::api::validate(llama(id).dump()))["scenario"]["system"]["software"];
  };
  EXPECT_EQ(sw("tensorrt-llm")["rope_in_attention"], true);
  EXPECT_EQ(sw("vllm")["fused_residual_norm"], true);
  EXPECT_EQ(sw("sglang")["fused_residual_norm"], true);
  EXPECT_EQ(sw("megatron-bridge")["fused_residual_norm"], false);
  const json e = predict(llama(json{{"software", {{"rope_in_attention", "on"}}}}))["error"];
  EXPECT_EQ(e["code"], "scenario.wrong_type");
  EXPECT_EQ(e["path"], "/software/software/rope_in_attention");
}

// FP8 context attention (software.fp8_context_attention, the tensorrt-llm-pytorch profile): with an
// fp8 KV cache and fp8 weights a long prompt's attention matmuls run at the fp8 rate (twice the
// H100's bf16 peak) while the exponentials of the scores stay on the special-function units
// (FlashAttention-3 Sec. 3.1), so the prompt's attention takes more than half and well under all
// of its 16-bit time; the decode step, bound by reading the cache, is unchanged; a 16-bit cache or
// 16-bit weights keep 16-bit attention.
TEST(Software, Fp8ContextAttentionSpeedsUpAPromptsAttention) {
  const auto run = [](bool key, const char* kv, const char* weights) {
    json s = {{"model", "llama3.1-8b"},
              {"system", "dgx-h100"},
              {"num_devices", 1},
              {"software", {{"software", {{"fp8_context_attention", key}}}}},
              {"inference",
               {{"batch", 1},
                {"prompt_len", 32768},
                {"output_len", 16},
                {"precision", weights},
                {"kv_precision", kv}}}};
    const json p = predict(s);
    EXPECT_FALSE(p.contains("error")) << p.dump();
    double attention = 0;
    for (const json& o : p["inference"]["operators"])
      if (o["name"] == "attention" && o["phase"] == "prefill") attention = o["time_s"].get<double>();
    return std::make_pair(attention, p["inference"]["tpot_s"].get<double>());
  };
  const auto off = run(false, "fp8", "fp8"), on = run(true, "fp8", "fp8");
  EXPECT_GT(on.first / off.first, 0.5);
  EXPECT_LT(on.first / off.first, 0.75);
  EXPECT_DOUBLE_EQ(on.second, off.second);
  EXPECT_DOUBLE_EQ(run(true, "bf16", "fp8").first, run(false, "bf16", "fp8").first);
  EXPECT_DOUBLE_EQ(run(true, "fp8", "bf16").first, run(false, "fp8", "bf16").first);
  // The profile carries it; validate writes it back.
  json s = llama("tensorrt-llm-pytorch");
  const json v = json::parse(optimus::api::validate(s.dump()));
  EXPECT_EQ(v["scenario"]["system"]["software"]["fp8_context_attention"], true);
}

// The 2025 PyTorch-runtime profile is the tensorrt-llm profile plus its five documented
// differences (CUDA graphs, FP8 context attention, windowed layers' caches kept whole, MoE buffers
// sized for the attention-DP group's tokens, the Python executor's per-request host time in every
// step): a copy, so this keeps the two from drifting.
TEST(Software, TensorRtLlmPytorchIsTensorRtLlmPlusItsFiveDifferences) {
  const json base = json::parse(optimus::preset_json("software", "tensorrt-llm"));
  json derived = json::parse(optimus::preset_json("software", "tensorrt-llm-pytorch"));
  EXPECT_EQ(derived["cuda_graphs"], true);
  EXPECT_EQ(derived["software"]["fp8_context_attention"], true);
  EXPECT_EQ(derived["software"]["windowed_layers_full_kv"], true);
  EXPECT_EQ(derived["software"]["moe_group_workspace"], true);
  EXPECT_EQ(derived["serving"]["step_overhead_us_per_request"], 13.8);
  derived["software"].erase("fp8_context_attention");
  derived["software"].erase("windowed_layers_full_kv");
  derived["software"].erase("moe_group_workspace");
  derived["serving"].erase("step_overhead_us_per_request");
  EXPECT_EQ(derived["software"], base["software"]);
  EXPECT_EQ(derived["serving"], base["serving"]);
}

// sglang-deepep is a copy of sglang with its MoE exchange on DeepEP: it differs in moe_dispatcher
// and quantized_dispatch only, so an edit to sglang's values that misses it fails here.
TEST(Software, SglangDeepepIsSglangPlusItsTwoDifferences) {
  const json base = json::parse(optimus::preset_json("software", "sglang"));
  json derived = json::parse(optimus::preset_json("software", "sglang-deepep"));
  EXPECT_EQ(derived["software"]["moe_dispatcher"], "deepep");
  EXPECT_EQ(derived["software"]["quantized_dispatch"], true);
  derived["software"].erase("moe_dispatcher");
  derived["software"].erase("quantized_dispatch");
  EXPECT_EQ(derived["software"], base["software"]);
  EXPECT_EQ(derived["serving"], base["serving"]);
  EXPECT_EQ(derived["cuda_graphs"], base["cuda_graphs"]);
  EXPECT_EQ(derived["kv_cache_follows_weights"], base["kv_cache_follows_weights"]);
}

// Under an 8- or 4-bit training format Transformer Engine keeps each projection's input quantised
// for the weight gradient: per layer and token the QKV, output, up and down projections' inputs
// (h + q + h + f elements) take the format's bytes instead of 2, and nothing else moves. A stack
// that keeps the 16-bit input (torchao, quantized_saved_inputs false) saves what bf16 saves.
TEST(Software, QuantisedTrainingKeepsQuantisedProjectionInputs) {
  const auto activations = [](const char* precision, const json& software, const char* system = "dgx-h100") {
    json s = {{"model",
               {{"layers", 4},
                {"hidden", 1024},
                {"heads", 8},
                {"ffn_hidden", 3072},
                {"vocab", 1000},
                {"ffn_type", "gelu"},
                {"norm", "layernorm"}}},
              {"system", system},
              {"num_devices", 1},
              {"parallel", {{"micro_batch", 2}}},
              {"training", {{"global_batch", 2}, {"seq_len", 512}, {"precision", precision}}}};
    if (!software.is_null()) s["software"] = software;
    const json out = predict(s);
    EXPECT_FALSE(out.contains("error")) << out.dump();
    return out["memory"]["per_device_bytes"]["activations"].get<double>();
  };
  const double tokens = 2 * 512, per_token = 1024 + 1024 + 1024 + 3072, layers = 4;
  const double bf16 = activations("bf16", nullptr);
  EXPECT_NEAR(bf16 - activations("fp8", nullptr), layers * tokens * per_token * (2.0 - 1.0), 1.0);
  // The block-scaled formats where they are native (Blackwell; the activations' other widths the
  // same there); on Hopper they train as fp8 (training_format) and save fp8's bytes.
  const double b200 = activations("bf16", nullptr, "dgx-b200");
  EXPECT_NEAR(b200 - activations("mxfp8", nullptr, "dgx-b200"),
              layers * tokens * per_token * (2.0 - 33.0 / 32.0), 1.0);
  EXPECT_NEAR(b200 - activations("nvfp4", nullptr, "dgx-b200"),
              layers * tokens * per_token * (2.0 - 9.0 / 16.0), 1.0);
  EXPECT_DOUBLE_EQ(activations("nvfp4", nullptr), activations("fp8", nullptr));
  EXPECT_DOUBLE_EQ(activations("fp8", json{{"software", {{"quantized_saved_inputs", false}}}}), bf16);
  EXPECT_DOUBLE_EQ(activations("fp8", "pytorch-fsdp"), activations("bf16", "pytorch-fsdp"));
  const json e = predict({{"model", "llama3.1-8b"},
                          {"system", "dgx-h100"},
                          {"num_devices", 1},
                          {"software", {{"software", {{"quantized_saved_inputs", 1}}}}},
                          {"training", {{"global_batch", 1}, {"seq_len", 512}}}})["error"];
  EXPECT_EQ(e["code"], "scenario.wrong_type");
  EXPECT_EQ(e["path"], "/software/software/quantized_saved_inputs");
}

}  // namespace software_test
