// Absurd but well-formed inputs (issue 6): values past every accepted range, zeros and negatives
// in every numeric field of the inline model, device and network, integers at 2^63 and beyond, and
// pathological JSON give a clear range error with the key's JSON Pointer, quickly; the largest
// values still accepted give finite, non-negative numbers, also quickly. io_test.cpp covers the
// first few of these (1e30 layers, 1e12 devices, 9.2e18 batch); these extend them field by field.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "io/api.h"

namespace limits_test {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// A guard against hangs, not a speed measure (speed is measured by the benchmarks): one answer
// takes microseconds and the 1 MiB inputs below a few hundred milliseconds natively, several
// times that in the sanitizer build on a loaded machine (ctest -j16); a loop or a blow-up takes
// far longer than this bound.
constexpr double kMaxSeconds = 10.0;
// The layout search's refusal of a space too large to finish (search.space_too_large) comes
// before any candidate is predicted: 0.2 s natively, about 2 s in the sanitizer build, 5.2-6.1 s
// there with three processes on 2 cores (2026-12-06, when a 5 s bound failed); searching the
// space would take minutes natively. The suite's bound for a sanitized run on a loaded machine.
constexpr double kRefusalSeconds = kMaxSeconds;

// Every object the scenario format has, inline, so every numeric field can be pushed.
const char* kBase = R"({
  "model": {"layers": 4, "hidden": 512, "heads": 8, "kv_heads": 4, "ffn_hidden": 2048, "vocab": 32000},
  "system": {"device": {"name": "test device", "peak_tflops": {"bf16": 1000, "fp16": 1000, "fp8": 2000},
                        "vector_tflops": 60, "exp_tops": 4,
                        "memory": {"capacity_GiB": 80, "bandwidth_GBps": 3350},
                        "l2": {"capacity_MiB": 50, "bandwidth_GBps": 10000}, "compute_units": 132},
             "devices_per_node": 8,
             "scale_up": {"bandwidth_GBps": 450, "latency_us": 3, "domain_size": 8},
             "scale_out": {"bandwidth_GBps": 50, "latency_us": 5}},
  "num_devices": 8,
  "parallel": {"tp": 2, "pp": 2, "dp": 2},
  "training": {"global_batch": 16, "seq_len": 2048},
  "inference": {"batch": 4, "prompt_len": 512, "output_len": 64}})";

json base() { return json::parse(kBase); }

std::string with(const std::string& pointer, const json& value) {
  json j = base();
  j[json::json_pointer(pointer)] = value;
  return j.dump();
}

struct Timed {
  std::string out;
  double seconds;
};
Timed timed_predict(const std::string& in) {
  const auto t0 = Clock::now();
  std::string out = optimus::api::predict(in);
  return {std::move(out), std::chrono::duration<double>(Clock::now() - t0).count()};
}

struct RangeCase {
  std::string name, pointer;
  json value;
  std::string code;  // expected error code
  std::string path;  // expected error path, when not `pointer`
};
// A case whose error path is the pointer itself (or `path` when given).
RangeCase range_case(std::string name, std::string pointer, json value, std::string code,
                     std::string path = "") {
  return RangeCase{std::move(name), std::move(pointer), std::move(value), std::move(code), std::move(path)};
}

class OutOfRange : public ::testing::TestWithParam<RangeCase> {};

TEST_P(OutOfRange, ClearErrorQuickly) {
  const auto& c = GetParam();
  const std::string in = with(c.pointer, c.value);
  const Timed t = timed_predict(in);
  EXPECT_LT(t.seconds, kMaxSeconds);
  ASSERT_TRUE(optimus::api::is_error(t.out)) << t.out;
  const json e = json::parse(t.out)["error"];
  EXPECT_EQ(e["code"], c.code) << e.dump();
  EXPECT_EQ(e["path"], c.path.empty() ? c.pointer : c.path) << e.dump();
  if (!c.path.empty()) return;
  // The message names the key and, for a range error, the accepted range.
  const std::string key = c.pointer.substr(c.pointer.rfind('/') + 1);
  EXPECT_NE(e["message"].get<std::string>().find(key), std::string::npos) << e.dump();
  if (c.code == "scenario.out_of_range") {
    EXPECT_NE(e["message"].get<std::string>().find("accepted range"), std::string::npos) << e.dump();
  }
}

const json kTwoTo63 = 9223372036854775808.0;
const json kU64Max = std::numeric_limits<std::uint64_t>::max();
const json kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr const char* kRange = "scenario.out_of_range";

INSTANTIATE_TEST_SUITE_P(
    Limits, OutOfRange,
    ::testing::Values(
        // Counts: 2^63, 2^64 - 1, -2^63, and far past the documented maxima.
        range_case("batch_2_63", "/training/global_batch", kTwoTo63, kRange),
        range_case("batch_u64_max", "/training/global_batch", kU64Max, kRange),
        range_case("batch_i64_min", "/training/global_batch", kI64Min, kRange),
        range_case("seq_len_huge", "/training/seq_len", 1e12, kRange),
        range_case("seq_len_zero", "/training/seq_len", 0, kRange),
        range_case("train_tokens_negative", "/training/train_tokens", -1, kRange),
        range_case("train_tokens_huge", "/training/train_tokens", 1e30, kRange),
        range_case("vocab_huge", "/model/vocab", 1e12, kRange),
        range_case("vocab_zero", "/model/vocab", 0, kRange),
        range_case("hidden_huge", "/model/hidden", 1e30, kRange),
        range_case("heads_negative", "/model/heads", -8, kRange),
        range_case("ffn_2_63", "/model/ffn_hidden", kTwoTo63, kRange),
        range_case("max_seq_len_huge", "/model/max_seq_len", 1e300, kRange),
        range_case("devices_zero", "/num_devices", 0, kRange),
        range_case("devices_negative", "/num_devices", -8, kRange),
        range_case("devices_u64_max", "/num_devices", kU64Max, kRange),
        range_case("tp_zero", "/parallel/tp", 0, kRange),
        range_case("pp_negative", "/parallel/pp", -2, kRange),
        range_case("dp_2_63", "/parallel/dp", kTwoTo63, kRange),
        range_case("micro_batch_zero", "/parallel/micro_batch", 0, kRange),
        range_case("interleave_zero", "/parallel/interleave", 0, kRange),
        range_case("interleave_huge", "/parallel/interleave", 1e9, kRange),
        range_case("zero_stage_4", "/parallel/zero_stage", 4, kRange),
        range_case("zero_stage_negative", "/parallel/zero_stage", -1, kRange),
        range_case("batch_inference_huge", "/inference/batch", 1e15, kRange),
        range_case("output_len_zero", "/inference/output_len", 0, kRange),
        range_case("output_len_negative", "/inference/output_len", -5, kRange),
        range_case("prompt_len_huge", "/inference/prompt_len", 1e300, kRange),
        range_case("schema_negative", "/schema_version", -1, kRange),
        // The device: every rate, size and calibration term at zero, negative and absurd.
        range_case("peak_zero", "/system/device/peak_tflops/bf16", 0, kRange),
        range_case("peak_negative", "/system/device/peak_tflops/bf16", -1000, kRange),
        range_case("peak_huge", "/system/device/peak_tflops/bf16", 1e30, kRange),
        range_case("vector_zero", "/system/device/vector_tflops", 0, kRange),
        range_case("exp_negative", "/system/device/exp_tops", -4, kRange),
        range_case("hbm_capacity_zero", "/system/device/memory/capacity_GiB", 0, kRange),
        range_case("hbm_capacity_huge", "/system/device/memory/capacity_GiB", 1e300, kRange),
        range_case("hbm_bandwidth_zero", "/system/device/memory/bandwidth_GBps", 0, kRange),
        range_case("hbm_bandwidth_tiny", "/system/device/memory/bandwidth_GBps", 1e-9, kRange),
        range_case("hbm_bandwidth_huge", "/system/device/memory/bandwidth_GBps", 1e30, kRange),
        range_case("l2_bandwidth_negative", "/system/device/l2/bandwidth_GBps", -1, kRange),
        // Rates where 0 means "not modelled": a denormal divided times into infinity (fuzz finding).
        range_case("l2_bandwidth_denormal", "/system/device/l2/bandwidth_GBps", 4.9e-324, kRange),
        range_case("exp_denormal", "/system/device/exp_tops", 4.9e-324, kRange),
        range_case("exp_tiny", "/system/device/exp_tops", 1e-9, kRange),
        range_case("compute_units_zero", "/system/device/compute_units", 0, kRange),
        range_case("compute_units_2_63", "/system/device/compute_units", kTwoTo63, kRange),
        range_case("matmul_efficiency_zero", "/system/device/calibration/matmul_efficiency", 0, kRange),
        range_case("matmul_efficiency_above_1", "/system/device/calibration/matmul_efficiency", 1.5, kRange),
        range_case("memory_efficiency_negative", "/system/device/calibration/memory_efficiency", -0.5,
                   kRange),
        range_case("kernel_overhead_negative", "/system/device/calibration/kernel_overhead_us", -1, kRange),
        range_case("tile_overhead_huge", "/system/device/calibration/tile_overhead_k", 1e30, kRange),
        // The networks.
        range_case("scale_up_bw_zero", "/system/scale_up/bandwidth_GBps", 0, kRange),
        range_case("scale_up_bw_tiny", "/system/scale_up/bandwidth_GBps", 1e-9, kRange),
        range_case("scale_up_bw_huge", "/system/scale_up/bandwidth_GBps", 1e12, kRange),
        range_case("scale_out_bw_negative", "/system/scale_out/bandwidth_GBps", -50, kRange),
        range_case("scale_out_latency_negative", "/system/scale_out/latency_us", -1, kRange),
        range_case("scale_up_latency_huge", "/system/scale_up/latency_us", 1e30, kRange),
        range_case("domain_zero", "/system/scale_up/domain_size", 0, kRange),
        range_case("domain_huge", "/system/scale_up/domain_size", 1e12, kRange),
        range_case("efficiency_zero", "/system/scale_up/efficiency", 0, kRange),
        range_case("ll_efficiency_above_1", "/system/scale_out/ll_efficiency", 2, kRange),
        range_case("bulk_latency_negative", "/system/scale_out/bulk_latency_us", -3, kRange),
        range_case("launch_interval_negative", "/system/software/launch_interval_us", -1, kRange),
        range_case("launch_interval_huge", "/system/software/launch_interval_us", 1e300, kRange),
        range_case("devices_per_node_zero", "/system/devices_per_node", 0, kRange),
        range_case("peer_link_zero", "/system/scale_up/peer_link_GBps", 0, kRange),
        range_case("peer_link_negative", "/system/scale_up/peer_link_GBps", -64, kRange),
        range_case("peer_link_huge", "/system/scale_up/peer_link_GBps", 1e12, kRange),
        range_case("busbw_not_ascending", "/system/scale_up/allreduce_busbw_GBps",
                   json::array({json::array({1e6, 100}), json::array({1e5, 200})}), kRange,
                   "/system/scale_up/allreduce_busbw_GBps/1"),
        range_case("busbw_zero", "/system/scale_up/allreduce_busbw_GBps",
                   json::array({json::array({1e6, 0})}), kRange, "/system/scale_up/allreduce_busbw_GBps/0"),
        // A denormal bandwidth made the collective's time infinite (found by the structure-aware
        // fuzzer: a served stream's times came out null).
        range_case("busbw_denormal", "/system/scale_up/allreduce_busbw_GBps",
                   json::array({json::array({1e6, 5e-324})}), kRange,
                   "/system/scale_up/allreduce_busbw_GBps/0")),
    [](const auto& test) { return test.param.name; });

// Accepted extremes: the largest and smallest values the reader takes give finite, non-negative
// numbers (or a clear layout or workload error), quickly.
void expect_sane(const std::string& in) {
  const Timed t = timed_predict(in);
  EXPECT_LT(t.seconds, kMaxSeconds) << in;
  const json out = json::parse(t.out);
  if (out.contains("error")) {
    EXPECT_NE(out["error"]["code"], "internal.exception") << t.out;
    return;
  }
  std::function<void(const json&, const std::string&)> walk = [&](const json& j, const std::string& where) {
    if (j.is_null()) {
      ADD_FAILURE() << where << " is null (NaN or infinity) for " << in;
    }
    if (j.is_number()) {
      EXPECT_TRUE(std::isfinite(j.get<double>()) && j.get<double>() >= 0)
          << where << " = " << j << " for " << in;
    }
    if (j.is_object())
      for (auto it = j.begin(); it != j.end(); ++it) walk(it.value(), where + "/" + it.key());
    if (j.is_array())
      for (const auto& x : j) walk(x, where + "/*");
  };
  walk(out, "");
}

TEST(Limits, TinyAndHugeBandwidthsGiveFiniteNumbers) {
  for (double bw : {1e-6, 1e-3, 1e8}) {
    json j = base();
    j["system"]["scale_up"]["bandwidth_GBps"] = bw;
    j["system"]["scale_out"]["bandwidth_GBps"] = bw;
    expect_sane(j.dump());
    j["system"]["scale_up"]["peer_link_GBps"] = bw;  // a mesh of the smallest and largest links
    expect_sane(j.dump());
    j["system"]["scale_up"].erase("peer_link_GBps");
    j["system"]["device"]["memory"]["bandwidth_GBps"] = std::max(bw, 1e-3);
    j["system"]["device"]["l2"]["bandwidth_GBps"] = bw;
    expect_sane(j.dump());
  }
  json j = base();
  j["system"]["device"]["peak_tflops"] = {{"bf16", 1e-6}, {"fp16", 1e7}};
  j["system"]["device"]["vector_tflops"] = 1e-6;
  j["system"]["scale_up"]["latency_us"] = 1e7;
  expect_sane(j.dump());
  // The largest latencies accepted: validate writes the bulk latencies they imply (2 x each), and
  // that resolved scenario validates again (the scenario_mutate fuzzer found it refused at
  // /system/scale_out/bulk_latency_us when the range was the latency's).
  j["system"]["scale_out"]["latency_us"] = 1e7;
  const json resolved = json::parse(optimus::api::validate(j.dump()));
  ASSERT_TRUE(resolved.contains("scenario")) << resolved.dump();
  EXPECT_EQ(resolved["scenario"]["system"]["scale_out"]["bulk_latency_us"].get<double>(), 2e7);
  const json again = json::parse(optimus::api::validate(resolved["scenario"].dump()));
  EXPECT_TRUE(again.contains("scenario")) << again.dump();
}

TEST(Limits, LargestAcceptedSizesGiveFiniteNumbers) {
  // Every size at (or near) the top of its accepted range at once.
  json j = base();
  j["model"] = {{"layers", 100000},
                {"hidden", 1000000},
                {"heads", 100000},
                {"ffn_hidden", 100000000},
                {"vocab", 100000000}};
  j["num_devices"] = 100000000;
  j["parallel"] = {{"tp", 100}, {"pp", 100000}, {"dp", 10}, {"micro_batch", 1000}};
  j["training"] = {{"global_batch", 1000000000}, {"seq_len", 100000000}, {"train_tokens", 1e18}};
  j["inference"] = {{"batch", 100000000}, {"prompt_len", 100000000}, {"output_len", 100000000}};
  j["system"]["scale_up"]["domain_size"] = 100000000;
  j["system"]["devices_per_node"] = 100000000;
  expect_sane(j.dump());
  j.erase("inference");
  expect_sane(j.dump());
  j["parallel"]["micro_batch"] = 1000000;
  j["training"]["global_batch"] = 1000000000;
  j["training"]["seq_len"] = 1000000;
  expect_sane(j.dump());
  // A one-layer model with every other size at its maximum.
  json k = base();
  k["model"] = {{"layers", 1},        {"hidden", 1000000}, {"heads", 1}, {"ffn_hidden", 100000000},
                {"vocab", 100000000}, {"head_dim", 100000}};
  k["parallel"] = {{"tp", 1}, {"pp", 1}, {"dp", 8}};
  k["training"] = {{"global_batch", 1000000000}, {"seq_len", 100000000}};
  k["inference"] = {{"batch", 100000000},
                    {"prompt_len", 100000000},
                    {"output_len", 100000000},
                    {"precision", "int4"},
                    {"kv_precision", "int4"}};
  expect_sane(k.dump());
}

TEST(Limits, LargestKvCacheGivesFiniteNumbersAndAMessage) {
  // Inference at the top of every range on one device: ~1e32 bytes of KV cache, far past what
  // a tenths-of-GiB integer holds in the "does not fit" message (found by review of the
  // fuzz targets' reach: predict.cpp's gib() cast overflowed).
  json j = base();
  j.erase("training");
  j["model"] = {{"layers", 100000},   {"hidden", 1000000},       {"heads", 100000},
                {"head_dim", 100000}, {"ffn_hidden", 100000000}, {"vocab", 100000000}};
  j["num_devices"] = 1;
  j["parallel"] = {{"tp", 1}, {"pp", 1}};
  j["inference"] = {
      {"batch", 100000000}, {"prompt_len", 100000000}, {"output_len", 100000000}, {"precision", "fp32"}};
  j["system"]["device"]["peak_tflops"]["fp32"] = 60;
  expect_sane(j.dump());
  const json out = json::parse(optimus::api::predict(j.dump()));
  ASSERT_TRUE(out.contains("warnings")) << out.dump().substr(0, 300);
  EXPECT_EQ(out["warnings"].back()["code"], "memory.does_not_fit");
}

// Regressions of findings: each was a NaN, an overflow or an escaped exception before its fix.
TEST(Limits, ParallelDegreesWhoseProductOverflowsInt64) {
  // tp*pp*dp*cp = 1e32 wrapped to a negative int64 (undefined behaviour) in validate_plan.
  const json e = json::parse(optimus::api::predict(
      with("/parallel", {{"tp", 100000000}, {"pp", 100000000}, {"dp", 100000000}, {"cp", 100000000}})));
  ASSERT_TRUE(e.contains("error")) << e;
  EXPECT_EQ(e["error"]["code"], "parallel.product_mismatch");
  EXPECT_EQ(e["error"]["message"].get<std::string>().find('-'), std::string::npos) << e;
}

TEST(Limits, DeviceWithoutARateForThePrecision) {
  // An int8-only device timed bf16 training at rate 0: compute vanished from the matmul roof
  // and mfu was NaN (printed null).
  json j = base();
  j["system"]["device"]["peak_tflops"] = {{"int8", 100}};
  j["system"]["device"].erase("vector_tflops");
  for (const char* drop : {"inference", "training"}) {
    json k = j;
    k.erase(drop);
    const json e = json::parse(optimus::api::predict(k.dump()));
    ASSERT_TRUE(e.contains("error")) << e.dump().substr(0, 300);
    EXPECT_EQ(e["error"]["code"], "device.no_rate_for_precision");
    EXPECT_EQ(e["error"]["path"], "/system/device/peak_tflops");
    EXPECT_EQ(json::parse(optimus::api::validate(k.dump()))["error"]["code"], "device.no_rate_for_precision");
  }
  // fp8 training also needs a 16-bit rate for attention; fp16 alone does not give bf16.
  json f = base();
  f.erase("inference");
  f["system"]["device"]["peak_tflops"] = {{"fp8", 2000}, {"fp16", 1000}};
  f["system"]["device"].erase("vector_tflops");
  f["training"]["precision"] = "fp8";
  EXPECT_EQ(json::parse(optimus::api::predict(f.dump()))["error"]["code"], "device.no_rate_for_precision");
  // With vector units the same device runs everything on them: slow, finite, mfu included.
  j["system"]["device"]["vector_tflops"] = 60;
  expect_sane(j.dump());
  const json out = json::parse(optimus::api::predict(j.dump()));
  ASSERT_TRUE(out.contains("training")) << out.dump().substr(0, 300);
  EXPECT_GT(out["training"]["mfu"].get<double>(), 0.0);
}

TEST(Limits, SmallestAcceptedValuesGiveFiniteNumbers) {
  json j = base();
  j["model"] = {{"layers", 1}, {"hidden", 1}, {"heads", 1}, {"ffn_hidden", 1}, {"vocab", 1}};
  j["num_devices"] = 1;
  j["parallel"] = {{"tp", 1}, {"pp", 1}, {"dp", 1}};
  j["training"] = {{"global_batch", 1}, {"seq_len", 1}};
  j["inference"] = {{"batch", 1}, {"prompt_len", 1}, {"output_len", 1}};
  j["system"]["device"]["memory"]["capacity_GiB"] = 1e-3;
  j["system"]["device"]["compute_units"] = 1;
  j["system"]["device"]["calibration"] = {{"matmul_efficiency", 1e-3},
                                          {"memory_efficiency", 1e-3},
                                          {"tile_overhead_k", 0},
                                          {"kernel_overhead_us", 0}};
  j["system"]["scale_up"] = {{"bandwidth_GBps", 1e-6}, {"latency_us", 0},       {"domain_size", 1},
                             {"efficiency", 1e-3},     {"ll_efficiency", 1e-3}, {"bulk_latency_us", 0}};
  expect_sane(j.dump());
}

// JSON that is valid but hostile to a parser: deep nesting, huge exponents, long strings,
// duplicate keys, large whitespace. Each gives an error object (or, for duplicates, an answer)
// without crashing or taking long.
TEST(Limits, HostileJson) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string deep_obj = [] {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "{\"a\":";
    s += "1";
    for (int i = 0; i < 20000; ++i) s += "}";
    return s;
  }();
  // Numbers past the double range cannot even be parsed into a json value: splice them in.
  std::string overflow = kBase;
  overflow.replace(overflow.find("\"layers\": 4"), std::string("\"layers\": 4").size(), "\"layers\": 1e400");
  std::string underflow = kBase;
  underflow.replace(underflow.find("\"num_devices\": 8"), std::string("\"num_devices\": 8").size(),
                    "\"num_devices\": -1e400");
  for (const std::string& in : {deep, deep_obj, std::string(100000, '['), overflow, underflow,
                                with("/name", std::string(1 << 20, 'x')), std::string(1 << 20, ' ') + "{}",
                                with("/parallel/tp", json::parse("8.0000000000000000001")),
                                std::string(R"({"num_devices": 8, "num_devices": 1e12})")}) {
    const Timed t = timed_predict(in);
    EXPECT_LT(t.seconds, kMaxSeconds) << in.substr(0, 80);
    const json out = json::parse(t.out, nullptr, false);
    ASSERT_FALSE(out.is_discarded()) << t.out.substr(0, 200);
    if (out.contains("error")) {
      EXPECT_NE(out["error"]["code"], "internal.exception") << t.out;
    }
  }
  // 1e400 is not a finite number: the parser refuses it (JSON numbers must fit a double here),
  // which is the scenario's error, not an internal one, at the key that holds it.
  const json e = json::parse(optimus::api::predict(overflow));
  ASSERT_TRUE(e.contains("error")) << e;
  EXPECT_EQ(e["error"]["code"], "scenario.malformed_json") << e;
  EXPECT_EQ(e["error"]["path"], "/model/layers") << e;
}

}  // namespace

namespace {

// The layout search refuses a space it cannot finish interactively (search.space_too_large),
// and finds that out quickly even for the device count with the most divisors in range.
TEST(Limits, SearchRefusesHugeSpacesQuickly) {
  json j = base();
  j.erase("inference");
  j.erase("parallel");
  j["model"] = {{"layers", 96}, {"hidden", 12288}, {"heads", 96}, {"ffn_hidden", 49152}, {"vocab", 51200}};
  j["num_devices"] = 73513440;  // 768 divisors: the most of any count up to 1e8
  j["training"] = {{"global_batch", 735134400}, {"seq_len", 2048}};
  for (const char* options : {"", "{\"mode\": \"training\", \"top\": 1000, \"points\": true}"}) {
    const auto t0 = Clock::now();
    const json out = json::parse(optimus::api::search(j.dump(), options));
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_LT(seconds, kRefusalSeconds) << options;
    ASSERT_TRUE(out.contains("error")) << out.dump().substr(0, 300);
    EXPECT_EQ(out["error"]["code"], "search.space_too_large");
  }
  // Inference: every batch size up to the largest max_batch over the same devices.
  json inf = base();
  inf.erase("training");
  inf.erase("parallel");
  inf["model"] = j["model"];
  inf["num_devices"] = 73513440;
  const auto t0 = Clock::now();
  const json out = json::parse(optimus::api::search(inf.dump(), "{\"max_batch\": 1048576}"));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), kRefusalSeconds);
  ASSERT_TRUE(out.contains("error") || out.contains("best")) << out.dump().substr(0, 300);
  if (out.contains("error")) {
    EXPECT_EQ(out["error"]["code"], "search.space_too_large");
  }
}

// A search cancelled at its first progress report stops there and says so.
TEST(Limits, SearchCancelsAtOnce) {
  json j = base();
  j.erase("inference");
  j.erase("parallel");
  j["num_devices"] = 64;
  j["training"] = {{"global_batch", 512}, {"seq_len", 2048}};
  int calls = 0;
  const json out = json::parse(optimus::api::search(j.dump(), "", [&](double) { return ++calls < 1; }));
  ASSERT_FALSE(out.contains("error")) << out.dump().substr(0, 300);
  EXPECT_TRUE(out["cancelled"].get<bool>());
  EXPECT_EQ(calls, 1);
  EXPECT_LE(out["evaluated"].get<std::int64_t>(), 1024);
}

}  // namespace

}  // namespace limits_test
