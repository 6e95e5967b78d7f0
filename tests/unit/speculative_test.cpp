// Speculative decoding (inference.speculative; core/predict/inference.cpp and core/serving/): the
// expected tokens per step against Leviathan et al.'s closed form computed by hand, the step made
// of k draft passes and one verification of k + 1 tokens, the draft's memory, the serving
// simulation's token count, and every bad input with its code and path.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "io/api.h"
#include "scenario/scenario.h"

namespace speculative_test {

namespace {

using json = nlohmann::json;

json scenario(const json& speculative, std::int64_t batch = 1) {
  json s = {{"model", "llama3-70b"},
            {"system", "dgx-h100"},
            {"num_devices", 8},
            {"parallel", {{"tp", 8}}},
            {"inference",
             {{"batch", batch},
              {"prompt_len", 1024},
              {"output_len", 256},
              {"precision", "fp8"},
              {"cuda_graphs", true}}}};
  if (!speculative.is_null()) s["inference"]["speculative"] = speculative;
  return s;
}

json predict(const json& s) { return json::parse(optimus::api::predict(s.dump())); }

json inference(const json& s) {
  const json p = predict(s);
  EXPECT_FALSE(p.contains("error")) << p.dump();
  return p.contains("inference") ? p["inference"] : json::object();
}

void expect_error(const json& s, const std::string& code, const std::string& path) {
  const json p = predict(s);
  ASSERT_TRUE(p.contains("error")) << s.dump();
  EXPECT_EQ(p["error"]["code"], code) << p.dump();
  EXPECT_EQ(p["error"]["path"], path) << p.dump();
}

// (1 - a^(k+1)) / (1 - a) by hand: a = 0.8, k = 4: (1 - 0.32768) / 0.2 = 3.3616; a = 0 gives 1
// (only the target's own token); a = 1 gives k + 1.
TEST(Speculative, TokensPerStepIsLeviathansClosedForm) {
  optimus::Speculative sp;
  sp.acceptance_decay = 1;  // independent positions
  sp.draft_tokens = 4;
  sp.acceptance_rate = 0.8;
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 1), 3.3616, 1e-12);
  sp.acceptance_rate = 0;
  EXPECT_DOUBLE_EQ(optimus::speculative_tokens_per_step(sp, 1), 1.0);
  sp.acceptance_rate = 1;
  EXPECT_DOUBLE_EQ(optimus::speculative_tokens_per_step(sp, 1), 5.0);
  sp.draft_tokens = 1;
  sp.acceptance_rate = 0.5;
  EXPECT_DOUBLE_EQ(optimus::speculative_tokens_per_step(sp, 1), 1.5);
}

// Past the draft's own positions each drafted token is accepted, given the ones before it, at
// a x d^(positions past them), by hand for a = d = 0.85 and k = 3: conditionals 0.85, 0.7225,
// 0.614125; tokens 1 + 0.85 + 0.614125 + 0.377149515625 = 2.841274515625. A checkpoint with two
// MTP modules owns the first two positions: 0.85, 0.85, 0.7225 and 1 + 0.85 + 0.7225 +
// 0.52200625 = 3.09450625. A draft model owns its first position only, like one MTP module.
TEST(Speculative, PositionsPastTheDraftsOwnDecay) {
  optimus::Speculative sp;
  sp.draft_tokens = 3;
  sp.acceptance_rate = 0.85;
  sp.acceptance_decay = 0.85;
  const auto a = optimus::speculative_acceptance(sp, 1);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_NEAR(a[0], 0.85, 1e-15);
  EXPECT_NEAR(a[1], 0.7225, 1e-15);
  EXPECT_NEAR(a[2], 0.614125, 1e-15);
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 1), 2.841274515625, 1e-12);
  // No module in the checkpoint: the head is costed as one, and owns one position.
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 0), 2.841274515625, 1e-12);
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 2), 3.09450625, 1e-12);
  sp.draft = optimus::ModelSpec{};
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 2), 2.841274515625, 1e-12);
  // Unstated, the decay is the draft's default: a draft model's positions are independent, a
  // reused MTP module's decay (kMtpReuseDecay).
  sp.acceptance_decay.reset();
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 1), (1 - std::pow(0.85, 4)) / 0.15, 1e-12);
  sp.draft.reset();
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 1), 2.841274515625, 1e-12);
  // A decay of 1 is Leviathan et al.'s closed form: (1 - 0.85^4) / 0.15.
  sp.acceptance_decay = 1;
  EXPECT_NEAR(optimus::speculative_tokens_per_step(sp, 1), (1 - std::pow(0.85, 4)) / 0.15, 1e-12);
}

// `model` (a DeepSeek checkpoint with its MTP module) on 8 H200 at tp 8, fp8, batch 1, drafting k
// tokens a step with the mtp draft.
json mtp_on_h200(const std::string& model, std::int64_t k) {
  return {{"model", model},
          {"system", "dgx-h200"},
          {"num_devices", 8},
          {"parallel", {{"tp", 8}}},
          {"inference",
           {{"batch", 1},
            {"prompt_len", 1024},
            {"output_len", 64},
            {"precision", "fp8"},
            {"speculative", {{"draft_tokens", k}}}}}};
}

// DeepSeek-V3 ships one MTP module: drafting three tokens reuses it twice, so an "mtp" draft
// takes the decay of a reused module (kMtpReuseDecay) unless the scenario states one (a draft
// model's independent positions: PositionsPastTheDraftsOwnDecay). The engine reports the
// acceptance it used, and refuses a decay out of [0, 1].
TEST(Speculative, AReusedMtpModuleTakesTheDecayByDefault) {
  json s = mtp_on_h200("deepseek-v3", 3);
  const json r = inference(s)["speculative"];
  EXPECT_NEAR(r["tokens_per_step"].get<double>(), 2.841274515625, 1e-9);
  ASSERT_EQ(r["acceptance_by_position"].size(), 3u);
  EXPECT_NEAR(r["acceptance_by_position"][2].get<double>(), 0.614125, 1e-12);
  s["inference"]["speculative"]["acceptance_decay"] = 1;
  EXPECT_NEAR(inference(s)["speculative"]["tokens_per_step"].get<double>(), (1 - std::pow(0.85, 4)) / 0.15,
              1e-9);
  s["inference"]["speculative"]["acceptance_decay"] = 1.5;
  expect_error(s, "scenario.out_of_range", "/inference/speculative/acceptance_decay");
}

// Drafting past the checkpoint's MTP modules rests on the fitted decay: the warning says so, with
// the acceptance by position and both token counts; it goes when the decay is stated, when k does
// not pass the modules, and for a draft model.
TEST(Speculative, AnAssumedDecayIsWarnedAbout) {
  const auto decay_warning = [](const json& p) -> std::string {
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "speculative.decay_assumed") return w["message"].get<std::string>();
    return "";
  };
  json s = mtp_on_h200("deepseek-r1", 3);
  const std::string w = decay_warning(predict(s));
  EXPECT_NE(w.find("0.85, 0.72, 0.61"), std::string::npos) << w;
  EXPECT_NE(w.find("2.84 tokens a step, 3.19 if"), std::string::npos) << w;
  s["inference"]["speculative"]["acceptance_decay"] = 0.9;
  EXPECT_EQ(decay_warning(predict(s)), "");
  s["inference"]["speculative"] = {{"draft_tokens", 1}};
  EXPECT_EQ(decay_warning(predict(s)), "");
  s["model"] = "llama3.1-70b";
  s["inference"]["speculative"] = {{"draft_tokens", 3}, {"acceptance_rate", 0.6}, {"draft", "llama3.2-1b"}};
  const json drafted = predict(s);
  ASSERT_TRUE(drafted.contains("inference")) << drafted.dump().substr(0, 300);
  EXPECT_EQ(decay_warning(drafted), "");
}

// The step is the draft's k passes plus one verification, and the time per token is the step
// over the tokens it yields; the plain decode step is what the scenario predicts without it.
TEST(Speculative, TimePerTokenIsTheStepOverItsTokens) {
  const json plain = inference(scenario(nullptr));
  const json spec =
      inference(scenario({{"draft_tokens", 4}, {"acceptance_rate", 0.8}, {"draft", "llama3-8b"}}));
  const json& r = spec["speculative"];
  EXPECT_NEAR(r["tokens_per_step"].get<double>(), 3.3616, 1e-9);
  EXPECT_NEAR(r["step_s"].get<double>(), r["draft_s"].get<double>() + r["verify_s"].get<double>(), 1e-12);
  EXPECT_NEAR(spec["tpot_s"].get<double>(), r["step_s"].get<double>() / 3.3616, 1e-9);
  EXPECT_NEAR(r["tpot_without_s"].get<double>(), plain["tpot_s"].get<double>(), 1e-12);
  EXPECT_NEAR(r["speedup"].get<double>(), plain["tpot_s"].get<double>() / spec["tpot_s"].get<double>(), 1e-9);
  // The draft also reads the prompt: the first token comes later.
  EXPECT_GT(spec["ttft_s"].get<double>(), plain["ttft_s"].get<double>());
  // Four passes of the 8B draft cost four times one pass: the draft of k = 1 is a quarter.
  const json one =
      inference(scenario({{"draft_tokens", 1}, {"acceptance_rate", 0.8}, {"draft", "llama3-8b"}}));
  EXPECT_NEAR(one["speculative"]["draft_s"].get<double>() * 4, r["draft_s"].get<double>(), 1e-9);
  // Verifying five tokens per sequence costs at least what one token does (the weights are read
  // once either way at batch 1, so not much more).
  EXPECT_GE(r["verify_s"].get<double>(), r["tpot_without_s"].get<double>());
  EXPECT_LT(r["verify_s"].get<double>(), 1.5 * r["tpot_without_s"].get<double>());
}

// Speculation pays off where decode is memory-bound (batch 1) and stops paying where the
// verification's extra tokens make the step compute-bound (a large batch); with nothing accepted
// it only costs.
TEST(Speculative, PaysAtSmallBatchAndNotWhereDecodeIsComputeBound) {
  const json mtp = {{"draft_tokens", 3}};
  const double small = inference(scenario(mtp, 1))["speculative"]["speedup"].get<double>();
  const double large = inference(scenario(mtp, 512))["speculative"]["speedup"].get<double>();
  EXPECT_GT(small, 2.0);
  EXPECT_LT(large, small);
  const json none = inference(scenario({{"draft_tokens", 3}, {"acceptance_rate", 0}}));
  EXPECT_LT(none["speculative"]["speedup"].get<double>(), 1.0);
}

// The draft's weights and its KV cache share the devices: the largest batch shrinks.
TEST(Speculative, TheDraftTakesMemory) {
  const json plain = predict(scenario(nullptr));
  const json spec =
      predict(scenario({{"draft_tokens", 4}, {"acceptance_rate", 0.7}, {"draft", "llama3-8b"}}));
  const double w0 = plain["memory"]["per_device_bytes"]["weights"].get<double>();
  const double w1 = spec["memory"]["per_device_bytes"]["weights"].get<double>();
  // Llama 3 8B at fp8 over tp 8: ~1 GB per device more.
  EXPECT_NEAR((w1 - w0) / 1e9, 8.0 / 8, 0.15);
  EXPECT_LT(spec["inference"]["max_batch"].get<std::int64_t>(),
            plain["inference"]["max_batch"].get<std::int64_t>());
  // An MTP head adds one layer: 1/80 of the 70B's layers' weights, about 0.1 GB per device.
  const json mtp = predict(scenario({{"draft_tokens", 1}}));
  const double w2 = mtp["memory"]["per_device_bytes"]["weights"].get<double>();
  EXPECT_GT(w2, w0);
  EXPECT_LT((w2 - w0) / 1e9, 0.12);
}

// Under continuous batching every request still gets exactly its output tokens, and a low rate
// (decode memory-bound) sees its time per token fall by about the static speed-up.
TEST(Speculative, ServingEmitsEveryTokenFaster) {
  const json serving = {{"arrival", "poisson"},
                        {"requests_per_s", 0.5},
                        {"num_requests", 60},
                        {"input_len", 1024},
                        {"output_len", 256}};
  json plain = scenario(nullptr);
  plain["inference"]["serving"] = serving;
  json spec = scenario({{"draft_tokens", 3}});
  spec["inference"]["serving"] = serving;
  const json a = predict(plain), b = predict(spec);
  ASSERT_FALSE(a.contains("error")) << a.dump();
  ASSERT_FALSE(b.contains("error")) << b.dump();
  // Same requests, same tokens: the output rate over the same arrivals is the same.
  EXPECT_NEAR(
      b["serving"]["output_tokens_per_s"].get<double>() / a["serving"]["output_tokens_per_s"].get<double>(),
      1.0, 0.05);
  const double speedup =
      a["serving"]["tpot_s"]["mean"].get<double>() / b["serving"]["tpot_s"]["mean"].get<double>();
  const double static_speedup = b["inference"]["speculative"]["speedup"].get<double>();
  EXPECT_GT(speedup, 2.0);
  EXPECT_NEAR(speedup / static_speedup, 1.0, 0.2);
  EXPECT_LT(b["serving"]["steps"].get<double>(), a["serving"]["steps"].get<double>());
}

// An mtp draft is the model's own multi-token-prediction module where the checkpoint ships one
// (DeepSeek-R1: model.mtp_layers 1); on a model without one (Llama 3 70B) it is costed the same
// way and warned about, the acceptance rate being DeepSeek-V3's measured one. A draft model
// never warns.
TEST(Speculative, AnMtpDraftOnAModelWithoutAnMtpModuleWarns) {
  const auto warned = [](const json& p) {
    for (const json& w : p.value("warnings", json::array()))
      if (w["code"] == "speculative.mtp_not_native") return true;
    return false;
  };
  const json llama = predict(scenario({{"draft_tokens", 3}}));
  ASSERT_TRUE(llama.contains("inference")) << llama.dump().substr(0, 300);
  EXPECT_TRUE(warned(llama));
  json r1 = scenario({{"draft_tokens", 3}});
  r1["model"] = "deepseek-r1";
  r1["system"] = "dgx-b200";
  r1["inference"]["precision"] = "nvfp4";
  const json native = predict(r1);
  ASSERT_TRUE(native.contains("inference")) << native.dump().substr(0, 300);
  EXPECT_FALSE(warned(native));
  json drafted = scenario({{"draft_tokens", 3}, {"draft", "llama3.2-1b"}, {"acceptance_rate", 0.7}});
  drafted["model"] = "llama3.1-70b";  // the 1B draft shares Llama 3.1's vocabulary
  const json d = predict(drafted);
  ASSERT_TRUE(d.contains("inference")) << d.dump().substr(0, 300);
  EXPECT_FALSE(warned(d));
}

TEST(Speculative, BadInputGetsCodesAndPaths) {
  const std::string at = "/inference/speculative";
  expect_error(scenario(json::object()), "scenario.missing_key", at + "/draft_tokens");
  expect_error(scenario({{"draft_tokens", 0}}), "scenario.out_of_range", at + "/draft_tokens");
  expect_error(scenario({{"draft_tokens", 2}, {"acceptance_rate", 1.5}}), "scenario.out_of_range",
               at + "/acceptance_rate");
  expect_error(scenario({{"draft_tokens", 2}, {"draft", "llama3-8b"}}), "scenario.missing_key",
               at + "/acceptance_rate");
  // Llama 2 7B's 32,000-token vocabulary is not Llama 3's.
  expect_error(scenario({{"draft_tokens", 2}, {"acceptance_rate", 0.6}, {"draft", "llama2-7b"}}),
               "inference.draft_vocab_mismatch", at + "/draft");
  expect_error(scenario({{"draft_tokens", 2}, {"acceptance_rate", 0.6}, {"draft", "no-such-model"}}),
               "preset.unknown_model", at + "/draft");
  expect_error(scenario({{"draft_tokens", 2}, {"x", 1}}), "scenario.unknown_key", at + "/x");
  json tight = scenario({{"draft_tokens", 8}});
  tight["inference"]["serving"] = {{"max_num_tokens", 4}, {"num_requests", 10}};
  expect_error(tight, "serving.budget_below_speculation", "/inference/serving/max_num_tokens");
  // A draft whose heads do not split over the target's tp.
  const json draft = {{"name", "odd"},      {"layers", 4},     {"hidden", 1020},       {"heads", 15},
                      {"ffn_hidden", 4096}, {"vocab", 128256}, {"ffn_type", "swiglu"}, {"norm", "rmsnorm"}};
  const json odd = scenario({{"draft_tokens", 2}, {"acceptance_rate", 0.6}, {"draft", draft}});
  const json p = predict(odd);
  ASSERT_TRUE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["error"]["path"], at + "/draft") << p.dump();
}

}  // namespace

}  // namespace speculative_test
