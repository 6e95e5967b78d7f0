// Bad input: every malformed, impossible or absurd scenario gives a stable error code and the
// JSON Pointer of the key to fix, never a crash, NaN or a number.
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>

#include "base/precision.h"
#include "base/words.h"
#include "io/api.h"
#include "io/presets.h"

namespace io_test {

namespace {

using json = nlohmann::json;

// An inline Llama-style model and an inline system, for the keys only inline objects have.
std::string inline_model(const json& patch) {
  json j = json::parse(R"({"model": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
    "ffn_hidden": 14336, "vocab": 128256, "ffn_type": "swiglu", "norm": "rmsnorm"},
    "system": "dgx-h100", "num_devices": 8, "parallel": {"tp": 8},
    "training": {"global_batch": 8, "seq_len": 4096}})");
  j["model"].merge_patch(patch);
  return j.dump();
}
// A two-layer inline model with a layer_pattern, plus `patch`.
std::string pattern_model(const char* pattern, json patch = json::object()) {
  patch["layers"] = 2;
  patch["layer_pattern"] = pattern;
  return inline_model(patch);
}
// An inline model with small MLA attention, plus `attention` keys.
std::string mla_model(json attention) {
  attention.merge_patch({{"type", "mla"},
                         {"kv_lora_rank", 64},
                         {"qk_nope_head_dim", 16},
                         {"qk_rope_head_dim", 8},
                         {"v_head_dim", 16}});
  return inline_model({{"attention", attention}});
}
// A moe object of eight experts, plus `patch`.
json eight_experts(const json& patch = json::object()) {
  json moe = {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 1024}};
  moe.merge_patch(patch);
  return moe;
}
std::string inline_system(const json& patch) {
  json j = json::parse(R"({"model": "llama3-8b", "num_devices": 8, "parallel": {"tp": 8},
    "training": {"global_batch": 8, "seq_len": 4096}})");
  j["system"] = json::parse(optimus::api::preset("systems", "dgx-h100"));
  j["system"]["device"] = json::parse(optimus::api::preset("devices", "h100-sxm5-80gb"));
  j["system"].merge_patch(patch);
  return j.dump();
}

const char* kBase = R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 64,
  "parallel": {"tp": 8, "pp": 8, "dp": 1},
  "training": {"global_batch": 64, "seq_len": 2048}})";

std::string with(const std::string& pointer, const json& value) {
  json j = json::parse(kBase);
  j[json::json_pointer(pointer)] = value;
  return j.dump();
}
std::string without(const std::string& pointer) {
  json j = json::parse(kBase);
  const json::json_pointer p(pointer);
  j[p.parent_pointer()].erase(p.back());
  return j.dump();
}

struct BadCase {
  std::string name, input, code, path;
};
class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, GivesCodeAndPath) {
  const auto& c = GetParam();
  const std::string out = optimus::api::predict(c.input);
  ASSERT_TRUE(optimus::api::is_error(out)) << out;
  const json e = json::parse(out)["error"];
  EXPECT_EQ(e["code"], c.code) << e.dump();
  EXPECT_EQ(e["path"], c.path) << e.dump();
  EXPECT_FALSE(e["message"].get<std::string>().empty());
  // validate() agrees with predict().
  const json v = json::parse(optimus::api::validate(c.input));
  ASSERT_TRUE(v.contains("error")) << v.dump();
  EXPECT_EQ(v["error"]["code"], c.code);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, BadInput,
    ::testing::Values(
        BadCase{"malformed", "{\"model\": ", "scenario.malformed_json", "/model"},
        BadCase{"attention_mismatch", inline_model({{"attention", {{"type", "mha"}}}}),
                "model.attention_mismatch", "/model/attention/type"},
        BadCase{"attention_unknown", inline_model({{"attention", {{"type", "linear"}}}}),
                "scenario.invalid_value", "/model/attention/type"},
        BadCase{"attention_extra_key", inline_model({{"attention", {{"type", "gqa"}, {"kv_lora_rank", 512}}}}),
                "model.mla_key_without_mla", "/model/attention/kv_lora_rank"},
        BadCase{"linear_attention_incomplete",
                inline_model({{"attention", {{"type", "gqa"}, {"global_every", 4}, {"linear_heads", 32}}}}),
                "scenario.missing_key", "/model/attention/linear_key_head_dim"},
        // model.layer_pattern (Megatron-Core's hybrid notation): 32 layers are 32 mixers with their FFNs.
        BadCase{"layer_pattern_invalid", pattern_model("*-A-"),
                "model.layer_pattern_invalid", "/model/layer_pattern"},
        BadCase{"layer_pattern_empty", inline_model({{"layer_pattern", ""}}), "model.layer_pattern_invalid",
                "/model/layer_pattern"},
        BadCase{"layer_pattern_layers_mismatch", inline_model({{"layer_pattern", "*-*-*"}}),
                "model.layer_pattern_layers_mismatch", "/model/layers"},
        BadCase{"layer_pattern_with_global_every",
                pattern_model("M-*-", {{"attention", {{"type", "gqa"}, {"window", 4096}, {"global_every", 2}}}}),
                "model.layer_pattern_conflict", "/model/attention/global_every"},
        BadCase{"layer_pattern_with_layer_freq",
                pattern_model("*E*E", {{"moe", eight_experts({{"layer_freq", 2}})}}),
                "model.layer_pattern_conflict", "/model/moe/layer_freq"},
        BadCase{"layer_pattern_parallel_block",
                pattern_model("*-*-", {{"block", "parallel"}}),
                "model.layer_pattern_conflict", "/model/block"},
        BadCase{"layer_pattern_moe_without_moe", pattern_model("*E*-"),
                "model.layer_pattern_needs_moe", "/model/layer_pattern"},
        BadCase{"layer_pattern_moe_unused",
                pattern_model("*-*-", {{"moe", eight_experts()}}),
                "model.layer_pattern_needs_moe", "/model/moe"},
        BadCase{"layer_pattern_local_without_local", pattern_model("M-*-"),
                "model.layer_pattern_needs_local", "/model/layer_pattern"},
        BadCase{"layer_pattern_local_unused",
                pattern_model("*-*-", {{"attention", {{"type", "gqa"}, {"window", 4096}}}}),
                "model.layer_pattern_needs_local", "/model/attention"},
        // Linear attention's value heads split over tp, and its key heads unless there is one.
        BadCase{"linear_heads_not_divisible",
                inline_model({{"attention",
                               {{"type", "gqa"},
                                {"linear_heads", 12},
                                {"linear_key_heads", 1},
                                {"linear_key_head_dim", 128},
                                {"linear_value_head_dim", 64}}}}),
                "parallel.tp_not_divisor_of_linear_heads", "/parallel/tp"},
        BadCase{"linear_key_without_linear_attention",
                inline_model({{"attention", {{"type", "gqa"}, {"linear_conv_kernel", 4}}}}),
                "model.linear_key_without_linear_attention", "/model/attention/linear_conv_kernel"},
        BadCase{"linear_attention_with_window",
                inline_model({{"attention",
                               {{"type", "gqa"},
                                {"window", 4096},
                                {"linear_heads", 32},
                                {"linear_key_head_dim", 128},
                                {"linear_value_head_dim", 128}}}}),
                "model.linear_attention_with_window", "/model/attention/window"},
        BadCase{"linear_state_precision_fp8",
                inline_model({{"attention",
                               {{"type", "gqa"},
                                {"linear_heads", 32},
                                {"linear_key_head_dim", 128},
                                {"linear_value_head_dim", 128},
                                {"linear_state_precision", "fp8"}}}}),
                "scenario.invalid_value", "/model/attention/linear_state_precision"},
        BadCase{"linear_key_heads_not_divisor",
                inline_model({{"attention",
                               {{"type", "gqa"},
                                {"linear_heads", 32},
                                {"linear_key_heads", 12},
                                {"linear_key_head_dim", 128},
                                {"linear_value_head_dim", 128}}}}),
                "model.linear_key_heads_not_divisor", "/model/attention/linear_key_heads"},
        BadCase{"tp_not_divisor_of_linear_heads",
                inline_model({{"attention",
                               {{"type", "gqa"},
                                {"linear_heads", 8},
                                {"linear_key_heads", 4},
                                {"linear_key_head_dim", 128},
                                {"linear_value_head_dim", 128}}}}),
                "parallel.tp_not_divisor_of_linear_heads", "/parallel/tp"},
        BadCase{"cp_with_linear_attention", [] {
                  json j = json::parse(inline_model({{"attention",
                                                      {{"type", "gqa"},
                                                       {"linear_heads", 12},
                                                       {"linear_key_head_dim", 128},
                                                       {"linear_value_head_dim", 128}}}}));
                  j["parallel"] = {{"tp", 4}, {"cp", 2}};
                  return j.dump();
                }(),
                "parallel.cp_with_linear_attention", "/parallel/cp"},
        BadCase{"sparse_attention_without_mla",
                inline_model({{"attention",
                               {{"type", "gqa"}, {"index_heads", 64}, {"index_head_dim", 128}, {"index_top_k", 2048}}}}),
                "model.sparse_attention_without_mla", "/model/attention/index_heads"},
        BadCase{"output_gate_with_mla", mla_model({{"output_gate", true}}), "model.output_gate_with_mla",
                "/model/attention/output_gate"},
        BadCase{"sparse_attention_incomplete", mla_model({{"index_heads", 4}}), "scenario.missing_key",
                "/model/attention/index_head_dim"},
        BadCase{"gqa_without_kv_heads",
                inline_model({{"attention", {{"type", "gqa"}}}, {"kv_heads", nullptr}}),
                "scenario.missing_key", "/model/kv_heads"},
        BadCase{"position_invalid", inline_model({{"position", "alibi"}}), "scenario.invalid_value",
                "/model/position"},
        BadCase{"bias_not_bool", inline_model({{"bias", 1}}), "scenario.wrong_type", "/model/bias"},
        BadCase{"dropout_not_bool", inline_model({{"dropout", "no"}}), "scenario.wrong_type",
                "/model/dropout"},
        BadCase{"all_to_all_invalid", inline_system({{"scale_up", {{"all_to_all", "tree"}}}}),
                "scenario.invalid_value", "/system/scale_up/all_to_all"},
        BadCase{"activation_bytes_zero", inline_system({{"software", {{"activation_bytes", 0}}}}),
                "scenario.out_of_range", "/system/software/activation_bytes"},
        BadCase{"optimizer_bytes_absurd", inline_system({{"software", {{"optimizer_step_bytes", 1e300}}}}),
                "scenario.out_of_range", "/system/software/optimizer_step_bytes"},
        BadCase{"gemm_tiles_empty",
                inline_system({{"device", {{"calibration", {{"gemm_tiles", json::array()}}}}}}),
                "scenario.wrong_type", "/system/device/calibration/gemm_tiles"},
        BadCase{"gemm_tile_shape",
                inline_system({{"device", {{"calibration", {{"gemm_tiles", {{128, 128}, {64}}}}}}}}),
                "scenario.wrong_type", "/system/device/calibration/gemm_tiles/1"},
        BadCase{"gemm_tile_zero",
                inline_system({{"device", {{"calibration", {{"gemm_tiles", {{0, 128}}}}}}}}),
                "scenario.out_of_range", "/system/device/calibration/gemm_tiles/0"},
        BadCase{"split_k_zero", inline_system({{"device", {{"calibration", {{"split_k_max", 0}}}}}}),
                "scenario.out_of_range", "/system/device/calibration/split_k_max"},
        BadCase{"not_object", "[1,2]", "scenario.wrong_type", ""},
        BadCase{"empty", "", "scenario.malformed_json", ""},
        BadCase{"unknown_top", with("/modle", "x"), "scenario.unknown_key", "/modle"},
        BadCase{"unknown_nested", with("/parallel/tpp", 8), "scenario.unknown_key", "/parallel/tpp"},
        BadCase{"missing_model", without("/model"), "scenario.missing_key", "/model"},
        BadCase{"missing_seq", without("/training/seq_len"), "scenario.missing_key", "/training/seq_len"},
        BadCase{"wrong_type", with("/num_devices", "64"), "scenario.wrong_type", "/num_devices"},
        BadCase{"not_integer", with("/parallel/tp", 2.5), "scenario.not_integer", "/parallel/tp"},
        BadCase{"negative", with("/training/global_batch", -1), "scenario.out_of_range",
                "/training/global_batch"},
        BadCase{"huge_layers",
                with("/model", json{{"layers", 1e30},
                                    {"hidden", 1024},
                                    {"heads", 8},
                                    {"ffn_hidden", 4096},
                                    {"vocab", 1000}}),
                "scenario.out_of_range", "/model/layers"},
        BadCase{"huge_devices", with("/num_devices", 1e12), "scenario.out_of_range", "/num_devices"},
        BadCase{"huge_batch", with("/training/global_batch", 9.2e18), "scenario.out_of_range",
                "/training/global_batch"},
        BadCase{"bad_enum", with("/training/precision", "fp12"), "scenario.invalid_value",
                "/training/precision"},
        BadCase{"unknown_model", with("/model", "gpt-5"), "preset.unknown_model", "/model"},
        BadCase{"bad_block",
                with("/model", json{{"layers", 2},
                                    {"hidden", 1024},
                                    {"heads", 8},
                                    {"ffn_hidden", 4096},
                                    {"vocab", 1000},
                                    {"block", "interleaved"}}),
                "scenario.invalid_value", "/model/block"},
        BadCase{"cuda_graphs_not_bool",
                with("/inference",
                     json{{"batch", 1}, {"prompt_len", 8}, {"output_len", 8}, {"cuda_graphs", "yes"}}),
                "scenario.wrong_type", "/inference/cuda_graphs"},
        BadCase{"unknown_system", with("/system", "dgx-z"), "preset.unknown_system", "/system"},
        BadCase{"moe",
                with("/model", json{{"layers", 2},
                                    {"hidden", 1024},
                                    {"heads", 8},
                                    {"ffn_hidden", 4096},
                                    {"vocab", 1000},
                                    {"moe", {{"experts", 8}}}}),
                "scenario.missing_key", "/model/moe/top_k"},
        BadCase{"moe_top_k_exceeds", inline_model({{"moe", {{"experts", 8}, {"top_k", 9}, {"expert_ffn_hidden", 512}}}}),
                "model.moe_top_k_exceeds_experts", "/model/moe/top_k"},
        BadCase{"moe_no_moe_layers",
                inline_model({{"moe", {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 512}, {"first_dense_layers", 32}}}}),
                "model.moe_no_moe_layers", "/model/moe/first_dense_layers"},
        BadCase{"moe_experts_zero", inline_model({{"moe", {{"experts", 0}, {"top_k", 2}, {"expert_ffn_hidden", 512}}}}),
                "scenario.out_of_range", "/model/moe/experts"},
        BadCase{"moe_router_invalid",
                inline_model({{"moe", {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 512}, {"router_balance", "even"}}}}),
                "scenario.invalid_value", "/model/moe/router_balance"},
        BadCase{"moe_balanced_imbalance",
                inline_model({{"moe",
                               {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 512}, {"router_balance", "balanced"},
                                {"imbalance", 1.5}}}}),
                "model.moe_imbalance_with_balanced", "/model/moe/imbalance"},
        BadCase{"moe_capacity_negative",
                inline_model({{"moe", {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 512}, {"capacity_factor", -1}}}}),
                "scenario.out_of_range", "/model/moe/capacity_factor"},
        BadCase{"ep_not_divisor",
                [] {
                  json j = json::parse(inline_model({{"moe", {{"experts", 6}, {"top_k", 2}, {"expert_ffn_hidden", 512}}}}));
                  j["parallel"] = {{"tp", 1}, {"dp", 8}, {"ep", 4}};
                  return j.dump();
                }(),
                "parallel.ep_not_divisor_of_experts", "/parallel/ep"},
        BadCase{"ep_exceeds_ranks",
                [] {
                  json j = json::parse(inline_model({{"moe", {{"experts", 16}, {"top_k", 2}, {"expert_ffn_hidden", 512}}}}));
                  j["parallel"] = {{"tp", 1}, {"dp", 8}, {"ep", 16}};
                  return j.dump();
                }(),
                "parallel.expert_layout_mismatch", "/parallel/ep"},
        BadCase{"etp_without_moe", with("/parallel/etp", 2), "parallel.etp_without_moe", "/parallel/etp"},
        BadCase{"expert_slots_without_moe", with("/parallel/expert_slots", 8), "parallel.expert_slots_without_moe",
                "/parallel/expert_slots"},
        BadCase{"moe_needs_sp",
                [] {
                  json j = json::parse(inline_model({{"moe", {{"experts", 8}, {"top_k", 2}, {"expert_ffn_hidden", 512}}}}));
                  j["parallel"] = {{"tp", 8}, {"sequence_parallel", false}};
                  return j.dump();
                }(),
                "parallel.moe_needs_sequence_parallel", "/parallel/sequence_parallel"},
        BadCase{"mla_missing_rank", inline_model({{"attention", {{"type", "mla"}, {"qk_nope_head_dim", 128}}}}),
                "scenario.missing_key", "/model/attention/kv_lora_rank"},
        BadCase{"window_zero", inline_model({{"attention", {{"type", "gqa"}, {"window", 0}}}}),
                "scenario.out_of_range", "/model/attention/window"},
        BadCase{"kv_heads",
                with("/model", json{{"layers", 2},
                                    {"hidden", 1024},
                                    {"heads", 8},
                                    {"kv_heads", 3},
                                    {"ffn_hidden", 4096},
                                    {"vocab", 1000}}),
                "model.kv_heads_not_divisor_of_heads", "/model/kv_heads"},
        BadCase{"tp_heads", with("/parallel/tp", 7), "parallel.product_mismatch", "/parallel"},
        BadCase{"tp_not_divisor", with("/parallel", json{{"tp", 5}, {"pp", 1}, {"dp", 1}}),
                "parallel.product_mismatch", "/parallel"},
        BadCase{"product", with("/parallel/dp", 2), "parallel.product_mismatch", "/parallel"},
        BadCase{"pp_layers", with("/parallel", json{{"tp", 1}, {"pp", 128}, {"dp", 1}}),
                "parallel.product_mismatch", "/parallel"},
        BadCase{"batch", R"({"model": "gpt3-175b", "system": "dgx-a100-80gb", "num_devices": 64,
                  "parallel": {"tp": 8, "pp": 8, "dp": 1, "micro_batch": 2},
                  "training": {"global_batch": 63, "seq_len": 2048}})",
                "training.batch_not_divisible", "/training/global_batch"},
        BadCase{"no_workload", without("/training"), "scenario.no_workload", ""},
        BadCase{"version", with("/schema_version", 2), "scenario.unsupported_version", "/schema_version"},
        BadCase{"zero_prompt", with("/inference", json{{"batch", 1}, {"prompt_len", 0}, {"output_len", 8}}),
                "scenario.out_of_range", "/inference/prompt_len"},
        BadCase{"zero_batch", with("/inference", json{{"batch", 0}, {"prompt_len", 8}, {"output_len", 8}}),
                "scenario.out_of_range", "/inference/batch"}),
    [](const auto& param_info) { return param_info.param.name; });

struct LayoutCase {
  std::string name;
  json parallel;
  std::int64_t devices;
  std::string code, path;
};
class BadLayout : public ::testing::TestWithParam<LayoutCase> {};
TEST_P(BadLayout, Rejected) {
  const auto& c = GetParam();
  json j = json::parse(kBase);
  j["parallel"] = c.parallel;
  j["num_devices"] = c.devices;
  const json e = json::parse(optimus::api::predict(j.dump()));
  ASSERT_TRUE(e.contains("error")) << e.dump();
  EXPECT_EQ(e["error"]["code"], c.code);
  EXPECT_EQ(e["error"]["path"], c.path);
}
INSTANTIATE_TEST_SUITE_P(
    Layouts, BadLayout,
    ::testing::Values(LayoutCase{"tp_heads",
                                 {{"tp", 64}, {"pp", 1}, {"dp", 1}},
                                 64,
                                 "parallel.tp_not_divisor_of_heads",
                                 "/parallel/tp"},
                      LayoutCase{"pp_layers",
                                 {{"tp", 1}, {"pp", 128}, {"dp", 1}},
                                 128,
                                 "parallel.pp_exceeds_layers",
                                 "/parallel/pp"},
                      LayoutCase{"layers_div",
                                 {{"tp", 1}, {"pp", 64}, {"dp", 1}, {"interleave", 2}},
                                 64,
                                 "parallel.layers_not_divisible",
                                 "/parallel/pp"},
                      LayoutCase{"sp_no_tp",
                                 {{"tp", 1}, {"pp", 1}, {"dp", 64}, {"sequence_parallel", true}},
                                 64,
                                 "parallel.sequence_parallel_without_tp",
                                 "/parallel/sequence_parallel"},
                      LayoutCase{"interleave_no_pp",
                                 {{"tp", 8}, {"pp", 1}, {"dp", 8}, {"interleave", 2}},
                                 64,
                                 "parallel.interleave_without_pp",
                                 "/parallel/interleave"},
                      LayoutCase{"interleave_layers",
                                 {{"tp", 8}, {"pp", 8}, {"dp", 1}, {"interleave", 13}},
                                 64,
                                 "parallel.layers_not_divisible",
                                 "/parallel/pp"},
                      LayoutCase{"ep",
                                 {{"tp", 8}, {"pp", 8}, {"dp", 1}, {"ep", 2}},
                                 64,
                                 "parallel.ep_without_moe",
                                 "/parallel/ep"},
                      LayoutCase{"cp_seq",
                                 {{"tp", 8}, {"pp", 1}, {"dp", 1}, {"cp", 3}},
                                 24,
                                 "parallel.cp_not_divisor_of_seq_len",
                                 "/parallel/cp"}),
    [](const auto& param_info) { return param_info.param.name; });

// scale_up.allreduce_busbw_ranks (the devices a measured all-reduce sweep ran on): read and
// validated, written back by validate when not its default 8 (and absent when 8), and a group of
// one refused at its path; its effect on the collective: Collective.ASweepOfAnotherGroupSizeSetsThatGroup.
// Numbers in messages are written as a person writes them: a whole number whole (a calibration
// factor typed as 100 was said as "1e+02"), anything else with the fewest digits that read back.
TEST(Io, NumbersInMessagesAreWrittenPlainly) {
  using optimus::plain_number;
  EXPECT_EQ(plain_number(100), "100");
  EXPECT_EQ(plain_number(1500), "1500");
  EXPECT_EQ(plain_number(-20), "-20");
  EXPECT_EQ(plain_number(1e8), "100000000");
  EXPECT_EQ(plain_number(0.05), "0.05");
  // Down to a millionth in decimals, as the page writes numbers; below it, the exponent.
  EXPECT_EQ(plain_number(1e-5), "0.00001");
  EXPECT_EQ(plain_number(1e-6), "0.000001");
  EXPECT_EQ(plain_number(-2.5e-5), "-0.000025");
  EXPECT_EQ(plain_number(9.75e-5), "0.0000975");
  EXPECT_EQ(plain_number(1e-4), "0.0001");
  EXPECT_EQ(plain_number(1e-7), "1e-07");
  EXPECT_EQ(plain_number(1234.5), "1234.5");
  EXPECT_EQ(plain_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(plain_number(1e300), "1e+300");
  nlohmann::json s = nlohmann::json::parse(optimus::api::preset("scenarios", "default"));
  s["calibration"] = {{"device", "NVIDIA H100 SXM5 80GB"}, {"factors", {{"host", 100}}}};
  const nlohmann::json e = nlohmann::json::parse(optimus::api::predict(s.dump()));
  ASSERT_TRUE(e.contains("error")) << e.dump();
  EXPECT_EQ(e["error"]["code"], "calibration.factor_out_of_range");
  EXPECT_NE(
      e["error"]["message"].get<std::string>().find("host = 100 is outside its physical range [0.25, 4]"),
      std::string::npos)
      << e["error"]["message"];
}

// The error object predict answers for `text` (an empty object, and a failure, when it predicts).
nlohmann::json error_of(const std::string& text) {
  const nlohmann::json e = nlohmann::json::parse(optimus::api::predict(text));
  EXPECT_TRUE(e.contains("error")) << e.dump();
  return e.contains("error") ? e["error"] : nlohmann::json::object();
}

// A mistyped key is refused as before, and the message names the key it probably meant: the one
// known key of its object within a quarter of its characters (at least one); two as near (tpp: tp,
// pp) name none. A missing required key names a written key that near it, not yet read as a key of
// its own; a missing key under 4 characters names none.
TEST(Io, AMistypedKeySaysWhatItProbablyMeant) {
  const std::string head = R"({"model":"llama3-8b","system":"dgx-h100","num_devices":8,)";
  nlohmann::json e = error_of(head + R"("trainig":{"global_batch":512,"seq_len":4096}})");
  EXPECT_EQ(e["code"], "scenario.unknown_key");
  EXPECT_EQ(e["path"], "/trainig");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean 'training'?"), std::string::npos) << e;
  e = error_of(head + R"("training":{"global_batch":512,"seq_len":4096},"parallel":{"tpp":2}})");
  EXPECT_EQ(e["path"], "/parallel/tpp");
  EXPECT_EQ(e["message"].get<std::string>().find("did you mean"), std::string::npos) << e;
  e = error_of(head + R"("training":{"global_batch":512,"seq_len":4096},"parallel":{"zero_stag":1}})");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean 'zero_stage'?"), std::string::npos) << e;
  e = error_of(head + R"("training":{"global_batch":512,"seq_len":4096,"seqlen":4096}})");
  EXPECT_NE(e["message"].get<std::string>().find("unknown key 'seqlen'; did you mean 'seq_len'?"),
            std::string::npos)
      << e;
  e = error_of(head + R"("training":{"global_batch":512,"seqlen":4096}})");
  EXPECT_EQ(e["code"], "scenario.missing_key");
  EXPECT_EQ(e["path"], "/training/seq_len");
  EXPECT_NE(e["message"].get<std::string>().find("'seqlen' is written here: did you mean 'seq_len'?"),
            std::string::npos)
      << e;
  e = error_of(head + R"("training":{"global_batch":512}})");
  EXPECT_EQ(e["message"], "required key 'seq_len' is missing");
  EXPECT_EQ(optimus::edit_distance("modles", "models"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(optimus::edit_distance("trainig", "training"), 1u);
  EXPECT_EQ(optimus::edit_distance("tp", "pp"), 1u);
  EXPECT_EQ(optimus::edit_distance("abc", "ca"), 3u);
  EXPECT_EQ(optimus::edit_distance("", "abc"), 3u);
  EXPECT_EQ(optimus::nearest_word("seqence_len", std::vector<std::string>{"seq_len", "sequence_parallel"}),
            "");
  EXPECT_EQ(
      optimus::nearest_word("sequense_parallel", std::vector<std::string>{"seq_len", "sequence_parallel"}),
      "sequence_parallel");
}

// Empty or blank input is said as such, with an example scenario; the example predicts, and fits.
TEST(Io, AnEmptyScenarioIsSaidAsSuch) {
  const nlohmann::json e = error_of(" \n");
  EXPECT_EQ(e["code"], "scenario.malformed_json");
  EXPECT_EQ(e["message"].get<std::string>().rfind("the scenario is empty: a scenario is one JSON object", 0),
            0u)
      << e;
  const std::string m = e["message"];
  const nlohmann::json p = nlohmann::json::parse(optimus::api::predict(m.substr(m.find("e.g. ") + 5)));
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["memory"]["fits"], true);
}

// The hand-editing slips a parser names in its own terms get a hint in plain words, at the path of
// the value read last (where a missing comma belongs after).
TEST(Io, JsonSlipsAreNamedInPlainWords) {
  const auto message = [](const std::string& text) { return error_of(text)["message"].get<std::string>(); };
  const auto ends_with = [](const std::string& m, const std::string& hint) {
    return m.size() >= hint.size() && m.compare(m.size() - hint.size(), hint.size(), hint) == 0;
  };
  const nlohmann::json missing =
      error_of("{\"model\": \"llama3-8b\",\n \"system\": \"dgx-h100\"\n \"num_devices\": 8}");
  EXPECT_EQ(missing["code"], "scenario.malformed_json");
  EXPECT_EQ(missing["path"], "/system");
  EXPECT_TRUE(ends_with(missing["message"], "(a comma is probably missing before it)")) << missing;
  EXPECT_TRUE(ends_with(message("{\"parallel\": [1, 2 3]}"), "(a comma is probably missing before it)"));
  for (const char* trailing : {"{\"model\": \"x\",\n}", "{\"parallel\": [1, 2,]}"})
    EXPECT_TRUE(ends_with(message(trailing),
                          "(a comma before a closing bracket: JSON allows none after the last item)"))
        << trailing;
  EXPECT_TRUE(ends_with(message("{'model': 'x'}"), "(JSON writes keys and strings in double quotes)"));
  EXPECT_TRUE(ends_with(message("{model: \"x\"}"), "(a key must be in double quotes)"));
  for (const char* comment :
       {"{\"model\": \"x\", // c\n}", "{\"model\": \"x\", # c\n}", "{\"a\": 1 /* c */}"})
    EXPECT_TRUE(ends_with(message(comment), "(JSON has no comments)")) << comment << ": " << message(comment);
  EXPECT_TRUE(ends_with(message("{\"model\" \"x\"}"), "(a colon is probably missing after the key)"));
  for (const char* sum : {"{\"num_devices\": 1/2}", "{\"num_devices\": 4*2}", "{\"num_devices\": 4+4}"})
    EXPECT_TRUE(ends_with(message(sum), "(JSON has no arithmetic: write the number itself)")) << message(sum);
  for (const char* word : {"{\"cuda_graphs\": True}", "{\"cuda_graphs\": False}", "{\"x\": None}"})
    EXPECT_TRUE(ends_with(message(word), "(JSON writes true, false and null in lower case)"))
        << message(word);
  EXPECT_TRUE(ends_with(message("{True: 1}"), "(a key must be in double quotes)"));
  EXPECT_TRUE(ends_with(message("{\"x\": .5}"), "(a number needs a digit before its point, e.g. 0.5)"));
  EXPECT_TRUE(ends_with(message("{\"model\": \"x\"}}"), "(something after the scenario's last closing '}')"));
  // A leading zero reads as two numbers (0, then 8): named as such, with the number as typed.
  EXPECT_TRUE(ends_with(message("{\"parallel\": {\"tp\": 08}}"),
                        "(JSON numbers have no leading zeros: write 8, not 08)"));
  EXPECT_TRUE(
      ends_with(message("{\"x\": [-007, 1]}"), "(JSON numbers have no leading zeros: write -7, not -007)"));
  EXPECT_TRUE(ends_with(message("{\"x\": 00}"), "(JSON numbers have no leading zeros: write 0, not 00)"));
  // A second number of its own after a space is a comma missing, leading zero or not.
  for (const char* two : {"{\"x\": [1.5 08]}", "{\"x\": 0 8}"})
    EXPECT_TRUE(ends_with(message(two), "(a comma is probably missing before it)")) << message(two);
  // Text that is not JSON from its first character (YAML's "key: value") says what a scenario is;
  // a capitalised True there keeps its own hint.
  for (const char* yaml : {"model: llama3-8b\nsystem: dgx-h100\n", "  \n model: x"})
    EXPECT_TRUE(ends_with(message(yaml), "(a scenario is a JSON object, from '{' to '}')")) << message(yaml);
  EXPECT_TRUE(ends_with(message("True"), "(JSON writes true, false and null in lower case)"));
  // A file cut short keeps the parser's own words: nothing is missing but the rest.
  EXPECT_TRUE(ends_with(message("{\"model\": \"x\""), "unexpected end of input; expected '}'"));
}

TEST(Io, AllReduceSweepRanksAreReadAndWrittenBack) {
  json s = json::parse(optimus::api::preset("systems", "dgx-h100"));
  s["scale_up"]["allreduce_busbw_ranks"] = 4;
  const json sc = {{"schema_version", 1},
                   {"model", "llama3-8b"},
                   {"system", s},
                   {"num_devices", 4},
                   {"inference", {{"batch", 1}, {"prompt_len", 128}, {"output_len", 8}}}};
  const json v = json::parse(optimus::api::validate(sc.dump()));
  ASSERT_FALSE(v.contains("error")) << v.dump().substr(0, 300);
  EXPECT_EQ(v["scenario"]["system"]["scale_up"]["allreduce_busbw_ranks"], 4);
  s["scale_up"]["allreduce_busbw_ranks"] = 1;
  json bad = sc;
  bad["system"] = s;
  const json e = json::parse(optimus::api::validate(bad.dump()))["error"];
  EXPECT_EQ(e["code"], "scenario.out_of_range");
  EXPECT_EQ(e["path"], "/system/scale_up/allreduce_busbw_ranks");
  json plain = sc;
  plain["system"] = "dgx-h100";
  EXPECT_FALSE(json::parse(optimus::api::validate(plain.dump()))["scenario"]["system"]["scale_up"].contains(
      "allreduce_busbw_ranks"));
}

TEST(Io, PresetsListing) {
  const json p = json::parse(optimus::api::presets(""));
  for (const char* k : {"models", "devices", "systems"}) EXPECT_GE(p[k].size(), 6u) << k;
  EXPECT_TRUE(optimus::api::is_error(optimus::api::presets("nonsense")));
}

// Preset ids as people write them: case, '-', '_' and spaces do not matter ("Llama-3.1-8B" on
// "DGX_H100" with "TensorRT-LLM" is llama3.1-8b on dgx-h100 with tensorrt-llm), the answer is the
// same as with the ids, and the resolved scenario names the profile by its own id. Dots are kept
// ("llama31-8b" names nothing), so no two presets of a kind may fold alike.
TEST(Io, PresetIdsMatchAsPeopleWriteThem) {
  const json ids = {{"model", "llama3.1-8b"}, {"system", "dgx-h100"}, {"software", "tensorrt-llm"}};
  const json written = {{"model", "Llama-3.1-8B"}, {"system", "DGX_H100"}, {"software", "TensorRT LLM"}};
  json s = {{"num_devices", 8}, {"inference", {{"batch", 8}, {"prompt_len", 512}, {"output_len", 128}}}};
  s.update(ids);
  json w = s;
  w.update(written);
  const json a = json::parse(optimus::api::predict(s.dump())),
             b = json::parse(optimus::api::predict(w.dump()));
  ASSERT_FALSE(a.contains("error")) << a.dump().substr(0, 300);
  EXPECT_EQ(a, b);
  EXPECT_EQ(json::parse(optimus::api::validate(w.dump()))["scenario"]["software"], "tensorrt-llm");
  w["model"] = "llama31-8b";
  EXPECT_EQ(json::parse(optimus::api::predict(w.dump()))["error"]["code"], "preset.unknown_model");
  w["model"] = "-";
  EXPECT_EQ(json::parse(optimus::api::predict(w.dump()))["error"]["code"], "preset.unknown_model");
  // A typo is told what it may have meant: the presets it begins, else the nearest ones (ties all
  // named); nothing where none is near.
  const auto message = [&](const char* key, const char* id) {
    json t = s;
    t[key] = id;
    return json::parse(optimus::api::predict(t.dump()))["error"]["message"].get<std::string>();
  };
  EXPECT_NE(message("model", "qwen3-235b").find("did you mean 'qwen3-235b-a22b'?"), std::string::npos);
  EXPECT_NE(message("model", "llama31-8b").find("did you mean 'llama3-8b' or 'llama3.1-8b'?"),
            std::string::npos);
  EXPECT_NE(message("system", "dgx-h10").find("did you mean 'dgx-h100'?"), std::string::npos);
  // A whole part of an id names it: a GPU typed for a system, a family for a model; more than
  // three is ambiguous and names none.
  EXPECT_NE(message("system", "H100").find("did you mean 'dgx-h100'?"), std::string::npos);
  EXPECT_NE(message("system", "nvl72").find("did you mean 'gb200-nvl72' or 'gb300-nvl72'?"),
            std::string::npos);
  EXPECT_NE(message("model", "llama3").find("did you mean 'llama3-405b', 'llama3-70b' or 'llama3-8b'?"),
            std::string::npos);
  EXPECT_EQ(message("model", "deepseek").find("did you mean"), std::string::npos);
  EXPECT_EQ(message("model", "gpt5").find("did you mean"), std::string::npos);
  // two edits from gpt-j-6b and gpt-20b, over the quarter of its 5 characters: nothing named
  EXPECT_EQ(message("model", "gpt-j9").find("did you mean"), std::string::npos);
  EXPECT_EQ(message("model", std::string(100000, 'x').c_str()).find("did you mean"), std::string::npos);
  EXPECT_EQ(optimus::preset_id("devices", "H100_SXM5_80GB"), "h100-sxm5-80gb");
  // Every preset, written in capitals without its hyphens, is found as itself: were two to read
  // alike, one of them would name the other.
  const json all = json::parse(optimus::api::presets(""));
  for (const auto& [kind, list] : all.items())
    for (const auto& p : list) {
      const std::string id = p["id"];
      std::string shouted;
      for (const char c : id)
        if (c != '-') shouted += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      EXPECT_EQ(optimus::preset_id(kind, id), id) << kind;
      EXPECT_EQ(optimus::preset_id(kind, shouted), id) << kind << ": " << shouted;
    }
}

// The 2026 hardware presets (presets/README.md): every id loads; the Blackwell and MI355X devices
// state an fp4 tensor rate above their fp8 one and the Hopper / MI325X devices none (fp4 falls back
// to fp8 there); the systems name their device and carry the all-to-all efficiencies fitted by
// scripts/fit_all_to_all.py (0 = not set); a small training scenario predicts on each system.
// The KV cache follows the weights down to 8 bits and stays at 16 under 4-bit or integer weights:
// gpt-oss served as published (MXFP4 experts) keeps a bf16 cache, as vLLM's "auto" does; stated, a
// cache precision is kept.
TEST(Io, TheKvCacheStaysSixteenBitsUnderFourBitWeights) {
  const auto kv = [](json inference) {
    inference["prompt_len"] = 100;
    inference["output_len"] = 10;
    const json s = {
        {"model", "gpt-oss-120b"}, {"system", "dgx-h100"}, {"num_devices", 1}, {"inference", inference}};
    return json::parse(optimus::api::validate(s.dump()))["scenario"]["inference"]["kv_precision"];
  };
  EXPECT_EQ(kv({{"batch", 1}}), "bf16");
  EXPECT_EQ(kv({{"batch", 1}, {"precision", "nvfp4"}}), "bf16");
  EXPECT_EQ(kv({{"batch", 1}, {"precision", "int4"}, {"activation_precision", "fp16"}}), "fp16");
  EXPECT_EQ(kv({{"batch", 1}, {"precision", "fp8"}}), "fp8");
  EXPECT_EQ(kv({{"batch", 1}, {"precision", "mxfp4"}, {"kv_precision", "fp8"}}), "fp8");
}

// Under 8-bit weights the cache follows the runtime's "auto": TensorRT-LLM's (and the system's own
// software block) reads the checkpoint's KV quantisation, an 8-bit cache; vLLM's and SGLang's keep
// the model's 16-bit dtype unless told, so a DeepSeek-R1 FP8 served on them holds twice the cache
// bytes per token. A stated cache precision is kept on every runtime; 4-bit weights keep 16 bits on
// every runtime.
TEST(Io, TheKvCacheUnderEightBitWeightsIsTheRuntimesAutoChoice) {
  const auto kv = [](const char* software, json inference) {
    inference["prompt_len"] = 100;
    inference["output_len"] = 10;
    json s = {{"model", "llama3-8b"}, {"system", "dgx-h100"}, {"num_devices", 1}, {"inference", inference}};
    if (*software) s["software"] = software;
    return json::parse(optimus::api::validate(s.dump()))["scenario"]["inference"]["kv_precision"];
  };
  const json fp8 = {{"precision", "fp8"}};
  EXPECT_EQ(kv("", fp8), "fp8");
  EXPECT_EQ(kv("tensorrt-llm", fp8), "fp8");
  EXPECT_EQ(kv("vllm", fp8), "bf16");
  EXPECT_EQ(kv("sglang", fp8), "bf16");
  EXPECT_EQ(kv("vllm", {{"precision", "fp8"}, {"kv_precision", "fp8"}}), "fp8");
  EXPECT_EQ(kv("vllm", {{"precision", "fp16"}}), "fp16");
  EXPECT_EQ(kv("tensorrt-llm", {{"precision", "nvfp4"}}), "bf16");
  // An inline profile states it too.
  const json inline_profile = {{"name", "x"}, {"kv_cache_follows_weights", false}};
  const json stated = {{"model", "llama3-8b"},
                       {"system", "dgx-h100"},
                       {"num_devices", 1},
                       {"software", inline_profile},
                       {"inference", {{"precision", "fp8"}, {"prompt_len", 100}, {"output_len", 10}}}};
  EXPECT_EQ(json::parse(optimus::api::validate(stated.dump()))["scenario"]["inference"]["kv_precision"],
            "bf16");
  // And the bytes follow: the vLLM cache per token is twice TensorRT-LLM's.
  const auto kv_bytes = [](const char* software) {
    const json s = {
        {"model", "llama3-8b"},
        {"system", "dgx-h100"},
        {"num_devices", 1},
        {"software", software},
        {"inference", {{"precision", "fp8"}, {"batch", 8}, {"prompt_len", 4000}, {"output_len", 96}}}};
    return json::parse(optimus::api::predict(s.dump()))["memory"]["per_device_bytes"]["kv_cache"]
        .get<double>();
  };
  EXPECT_NEAR(kv_bytes("vllm") / kv_bytes("tensorrt-llm"), 2.0, 1e-6);
}

// A key stated twice in one object is refused at its JSON Pointer (a reader would keep one of the
// two silently), inside arrays too; the same key in two objects is not a duplicate.
TEST(Io, ADuplicateKeyIsRefusedWhereItIs) {
  const auto refused = [](const std::string& text) {
    return json::parse(optimus::api::predict(text))["error"];
  };
  json e = refused(R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 8, "num_devices": 16,
                       "training": {"global_batch": 64, "seq_len": 4096}})");
  EXPECT_EQ(e["code"], "scenario.duplicate_key");
  EXPECT_EQ(e["path"], "/num_devices");
  e = refused(R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 8,
                  "parallel": {"tp": 2, "tp": 4}, "training": {"global_batch": 64, "seq_len": 4096}})");
  EXPECT_EQ(e["path"], "/parallel/tp");
  e = refused(
      R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 8, "training": {"global_batch": 64,
                  "seq_len": 4096, "train_tokens": 1e10, "stages": [{"tokens": 1e9}, {"tokens": 2e9, "tokens": 3e9}]}})");
  EXPECT_EQ(e["path"], "/training/stages/1/tokens");
  const json fine = json::parse(optimus::api::predict(
      R"({"model": "llama3-8b", "system": "dgx-h100", "num_devices": 8, "parallel": {"tp": 2},
          "training": {"global_batch": 64, "seq_len": 4096, "precision": "bf16"},
          "inference": {"batch": 1, "prompt_len": 64, "output_len": 8, "precision": "bf16"}})"));
  EXPECT_FALSE(fine.contains("error")) << fine["error"].dump();
}

TEST(Io, HardwarePresets2026) {
  using optimus::Precision;
  for (const char* id : {"gb300", "b300", "mi355x", "rtx-pro-6000", "b200", "gb200"}) {
    const auto d = optimus::device_preset(id, "/system/device");
    ASSERT_TRUE(d) << id << ": " << d.error().message;
    EXPECT_GT(d->peak_for(Precision::fp4).value, d->peak_for(Precision::fp8).value) << id;
  }
  for (const char* id : {"mi325x", "h20", "h800"}) {
    const auto d = optimus::device_preset(id, "/system/device");
    ASSERT_TRUE(d) << id << ": " << d.error().message;
    EXPECT_EQ(d->peak_for(Precision::fp4).value, 0) << id;
    EXPECT_GT(d->peak_for(Precision::fp8).value, 0) << id;
  }
  struct Sys {
    const char* id;
    const char* device;
    double up_a2a, out_a2a;
  };
  for (const Sys& s :
       {Sys{"gb300-nvl72", "gb300", 0.50, 0.91}, Sys{"dgx-b300", "b300", 0.53, 0.91},
        Sys{"hgx-h800", "h800", 0.68, 0.88}, Sys{"mi355x-8", "mi355x", 0, 0}, Sys{"mi300x-8", "mi300x", 0, 0},
        Sys{"mi325x-8", "mi325x", 0, 0}, Sys{"dgx-h100", "h100-sxm5-80gb", 0.68, 0.72},
        Sys{"dgx-b200", "b200", 0.53, 0.91}, Sys{"gb200-nvl72", "gb200", 0.50, 0.91}}) {
    const auto sys = optimus::system_preset(s.id, "/system");
    ASSERT_TRUE(sys) << s.id << ": " << sys.error().message;
    EXPECT_EQ(sys->device_id, s.device);
    EXPECT_DOUBLE_EQ(sys->scale_up.all_to_all_efficiency, s.up_a2a) << s.id;
    EXPECT_DOUBLE_EQ(sys->scale_out.all_to_all_efficiency, s.out_a2a) << s.id;
    json j = json::parse(R"({"model": "llama3-8b", "num_devices": 8, "parallel": {"tp": 8},
      "training": {"global_batch": 8, "seq_len": 4096}})");
    j["system"] = s.id;
    const std::string out = optimus::api::predict(j.dump());
    EXPECT_FALSE(optimus::api::is_error(out)) << s.id << ": " << out;
  }
}

TEST(Io, ValidateFillsDefaults) {
  const json v = json::parse(optimus::api::validate(kBase));
  ASSERT_TRUE(v["ok"].get<bool>()) << v.dump();
  EXPECT_EQ(v["scenario"]["parallel"]["sequence_parallel"], true);  // default: tp > 1
  EXPECT_EQ(v["scenario"]["parallel"]["recompute"], "none");
  EXPECT_EQ(v["scenario"]["model"]["head_dim"], 128);
  // The resolved scenario predicts the same as the original.
  EXPECT_EQ(optimus::api::predict(v["scenario"].dump()), optimus::api::predict(kBase));
}

TEST(Io, DpDefaultsToRemainingDevices) {
  const json out = json::parse(optimus::api::validate(without("/parallel/dp")));
  EXPECT_EQ(out["scenario"]["parallel"]["dp"], 1);
}

}  // namespace

}  // namespace io_test
