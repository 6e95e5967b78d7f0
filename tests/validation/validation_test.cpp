// Predicts every published measurement in tests/validation/data and reports, per source, the
// number of cases and the mean and max absolute relative error. The gates below are what the
// engine is held to today; they are set from measured accuracy with room for noise only, so a
// regression fails the run. Targets that are not met yet are stated next to each gate.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cost/op_timer.h"
#include "cost/roofline.h"
#include "io/api.h"
#include "io/presets.h"
#include "model/graph.h"
#include "uncertainty/uncertainty.h"

namespace {

using json = nlohmann::json;

struct Case {
  std::string id, group;
  double expected = 0, predicted = 0;
  std::string error;
  std::string model;  // the scenario model's name or preset id
};

double metric(const json& p, const std::string& dotted) {
  const json* node = &p;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      double sum = 0;  // "a+b+c" sums sibling fields
      std::size_t s = 0;
      for (;;) {
        const std::size_t plus = key.find('+', s);
        sum +=
            (*node).at(key.substr(s, plus == std::string::npos ? std::string::npos : plus - s)).get<double>();
        if (plus == std::string::npos) break;
        s = plus + 1;
      }
      return sum;
    }
    node = &node->at(key);
    start = dot + 1;
  }
}

// One CSV line split into fields (RFC 4180 quoting: "" inside quotes is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

// case_id -> framework column of inference.csv: the FasterTransformer guide measures its own
// kernels and an unoptimised Megatron (PyTorch) baseline on identical scenarios, and a scenario
// has no framework key, so the report splits the two.
std::map<std::string, std::string> inference_frameworks() {
  std::map<std::string, std::string> out;
  std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/inference.csv");
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  std::size_t id_col = 0, fw_col = 0;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "case_id") id_col = i;
    if (header[i] == "framework") fw_col = i;
  }
  while (std::getline(in, line)) {
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() > std::max(id_col, fw_col)) out[f[id_col]] = f[fw_col];
  }
  return out;
}

// Case ids of the FasterTransformer guide's unoptimised PyTorch baseline rows.
const std::set<std::string>& baseline_ids() {
  static const std::set<std::string> ids = [] {
    std::set<std::string> b;
    for (const auto& [id, fw] : inference_frameworks())
      if (fw.find("baseline") != std::string::npos) b.insert(id);
    return b;
  }();
  return ids;
}

// A data set's rows (each case as read) with the engine's prediction (or its error), predicted
// once per test process: the whole runs' layout searches take seconds each, and the gates, the
// uncertainty coverage and the accuracy report all read the same predictions.
struct Row {
  json c, p;
};

const std::vector<Row>& rows_of(const std::string& name) {
  static std::map<std::string, std::vector<Row>> cache;
  if (const auto it = cache.find(name); it != cache.end()) return it->second;
  std::vector<Row> out;
  std::map<std::string, std::size_t>
      seen;  // a scenario met again (several numbers of one run) is predicted once
  std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    Row r;
    r.c = json::parse(line);
    const std::string text = r.c["scenario"].dump();
    const auto it = seen.find(text);
    r.p = it != seen.end() ? out[it->second].p : json::parse(optimus::api::predict(text));
    seen.emplace(text, out.size());
    out.push_back(std::move(r));
  }
  return cache.emplace(name, std::move(out)).first->second;
}

std::vector<Case> run_file(const std::string& name) {
  std::vector<Case> out;
  for (const Row& r : rows_of(name)) {
    const json& c = r.c;
    Case k;
    k.id = c["id"];
    k.group = c["group"];
    k.expected = c["expected"];
    const json& model = c["scenario"]["model"];
    k.model = model.is_object() ? model.value("name", "inline") : model.get<std::string>();
    if (r.p.contains("error")) {
      k.error = r.p["error"].dump();
    } else {
      k.predicted = metric(r.p, c["metric"]);
    }
    out.push_back(k);
  }
  return out;
}

// A row its group marks "not gated" (the Llama 3.1 whole-run cards, post-training included) is
// reported beside the others but kept out of the gates and the uncertainty fit.
// Groups that are not independent evidence (tests/validation/data/not_independent.json): later
// versions or other tables of documents whose rows are in the shared public data, probably part of
// the measurement withheld from the project. Reported apart: no band, refitted constant or
// headline figure uses them.
bool independent(const std::string& file, const std::string& group) {
  static const json list = [] {
    std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/not_independent.json");
    return json::parse(in);
  }();
  for (const json& g : list["groups"])
    if (g["file"] == file && group.rfind(g["group_prefix"].get<std::string>(), 0) == 0) return false;
  return true;
}

bool reported_only(const std::string& group) { return group.find("not gated") != std::string::npos; }

struct Stats {
  int n = 0;
  double mean = 0, max = 0, bias = 0;
};

// Count, mean absolute, largest absolute and mean signed value of relative errors.
Stats stats(const std::vector<double>& errors) {
  Stats s;
  s.n = static_cast<int>(errors.size());
  for (double e : errors) {
    s.mean += std::fabs(e);
    s.bias += e;
    s.max = std::max(s.max, std::fabs(e));
  }
  if (s.n) {
    s.mean /= s.n;
    s.bias /= s.n;
  }
  return s;
}

// `errors_as_misses`: a case the engine cannot predict counts as a 100% miss (as the shared
// accuracy tool counts it) instead of failing the test.
Stats report(const std::string& title, const std::vector<Case>& cases, bool errors_as_misses = false) {
  std::map<std::string, std::vector<double>> groups;
  std::vector<double> all;
  for (const auto& c : cases) {
    if (errors_as_misses && !c.error.empty()) {
      std::printf("  cannot predict %s: %s\n", c.id.c_str(), c.error.c_str());
      groups[c.group].push_back(-1.0);
      all.push_back(-1.0);
      continue;
    }
    EXPECT_TRUE(c.error.empty()) << c.id << ": " << c.error;
    if (!c.error.empty()) continue;
    const double e = c.predicted / c.expected - 1.0;
    EXPECT_TRUE(std::isfinite(e)) << c.id;
    groups[c.group].push_back(e);
    all.push_back(e);
  }
  std::printf("\n%s\n%-78s %5s %8s %8s %8s\n", title.c_str(), "source", "cases", "mean", "max", "bias");
  for (const auto& [g, v] : groups) {
    const Stats s = stats(v);
    std::printf("%-78s %5d %7.1f%% %7.1f%% %+7.1f%%\n", g.c_str(), s.n, 100 * s.mean, 100 * s.max,
                100 * s.bias);
  }
  const Stats s = stats(all);
  std::printf("%-78s %5d %7.1f%% %7.1f%% %+7.1f%%\n", "all", s.n, 100 * s.mean, 100 * s.max, 100 * s.bias);
  if (std::getenv("OPTIMUS_VALIDATION_VERBOSE"))
    for (const auto& c : cases)
      std::printf("  %-46s expected %-12.6g predicted %-12.6g %+6.1f%%\n", c.id.c_str(), c.expected,
                  c.predicted, 100 * (c.predicted / c.expected - 1));
  return s;
}

// The rows of a kernel CSV in tests/validation/data, each handed to `fn` as a column
// reader: `col("name")` is that column's text.
template <class Fn>
void each_row(const std::string& file, Fn fn) {
  std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << file;
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> f = csv_fields(line);
    fn([&](const char* name) -> const std::string& {
      const auto at =
          static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
      if (at >= f.size()) throw std::runtime_error(file + ": no column " + name + " in row " + line);
      return f[at];
    });
  }
}

template <class Col>
std::int64_t integer(const Col& col, const char* name) {
  return std::stoll(col(name));
}

// Kernel level: DeepGEMM's published FP8 GEMM times on H800 (tests/validation/data/
// kernels_deepgemm.csv: 28 shapes of DeepSeek-V3/R1 inference, dense, grouped contiguous and
// grouped masked as MoE experts run them; block-scaled e4m3 in, bf16 out) against the engine's
// roofline for one matmul on the h800 device preset (tile and wave quantization, per-tile fill, the
// device's fp8 matmul efficiency and HBM streaming efficiency; the block scales, 3% of the
// activation bytes, are not counted). Measured at this commit: 11.6% mean, bias +6.5% (the engine
// slower); the largest miss is the smallest kernel (M 64, N 7168, K 2048: 6.4 us measured, the
// engine's 4 us per-kernel overhead on top of its bandwidth time). Nothing is fitted on these
// rows. The published speedup column, over DeepSeek's CUTLASS 3.6 implementation of the same
// block-scaled GEMMs (1.4-2.7x at M 64-128), is kept in the file: a runtime on such kernels
// decodes slower than this roofline. Gate: no regression past the measured mean plus noise.
TEST(Validation, KernelsDeepGemmReported) {
  const optimus::DeviceSpec d = optimus::device_preset("h800", "/device").value();
  std::vector<Case> cases;
  each_row("kernels_deepgemm.csv", [&](const auto& col) {
    const std::int64_t g = integer(col, "groups"), m = integer(col, "m_per_group"), n = integer(col, "n"),
                       k = integer(col, "k");
    Case c;
    c.id = col("case_id");
    c.group = "DeepGEMM FP8 GEMMs on H800, " + col("layout");
    const double flops = 2.0 * static_cast<double>(g * m) * static_cast<double>(n * k);
    c.expected = flops / (std::stod(col("meas_tflops")) * 1e12);
    c.predicted = optimus::matmul_cost(d, {m, n, k, g}, optimus::Precision::fp8, 1, 1, 2).time.value;
    cases.push_back(c);
  });
  const Stats s = report("Kernel time, DeepGEMM FP8 GEMMs (kernels_deepgemm.csv)", cases);
  EXPECT_EQ(s.n, 28);
  EXPECT_LE(s.mean, 0.13);
}

// Kernel level, measured here: GEMMs, grouped (MoE expert) GEMMs and attention kernels timed
// with PyTorch 2.11 (CUDA 13.0, cuDNN 9.19) on one H200 SXM (tests/validation/data/h200/:
// scripts/device/h200_kernels.py, two runs; kernels_h200.csv and attention_h200.csv pair them).
// Each kernel is replayed back to back in a CUDA graph, the weights rotated over copies larger
// than the L2, so the times hold no host launch cost and read the weights from HBM, as one layer
// of a CUDA-graph decode step does. The expected time is the mean of the two runs (they differ by
// 2.1% on average). Predicted: the engine's roofline on the h200-sxm-141gb preset, nothing fitted
// on these rows. Measured at this commit (docs/method.md, "Checked against kernels measured on
// one H200"):
// - GEMMs, 336 rows: 13.8% mean (14.9% with the wave model alone). Dense bf16 (cuBLAS) 7.2%
//   (8.9%): shapes with a partial last wave of tiles run as fast as full ones (N 1280, K 8192 at
//   M 1024: 30 us measured, 56 us by the waves, 33 us now), Hopper's cuBLAS sharing the partial
//   wave's work over every SM (stream-K, the preset's calibration.stream_k). fp8 with row-wise
//   scales at M < 64 runs PyTorch's own CUTLASS kernel, 2-4x slower than cuBLAS's tensor-wise
//   one; grouped GEMMs (torch._grouped_mm, _scaled_grouped_mm) 15-30% slower than the roofline,
//   where DeepGEMM's (KernelsDeepGemmReported) are within 12%.
// - Attention, 36 rows: 40.3% mean. cuDNN's prompt attention within 16% (the engine slower: it
//   adds the exponentials, which cuDNN and FlashAttention 3 overlap with the matmuls); PyTorch's
//   FlashAttention 2 path 33-41% slower than the engine (no Hopper tensor-core instructions),
//   its memory-efficient path 65% slower. Decode: cuDNN within 10% from 16 sequences up; one
//   sequence reads its cache with 8 thread blocks (one per KV head) and runs 3-10x longer than
//   the bandwidth roofline; PyTorch's FlashAttention 2 decode reaches 2.4 TB/s (the engine
//   4.1). The engine predicts one kernel per operator and no stack's choice among these.
// Gates: no regression past the measured means plus noise, the kernels production stacks run
// (cuBLAS bf16, cuDNN prompt attention) each within 20%.
// The mean of the two runs' times (the second run's column is empty where it did not measure).
template <class Col>
double measured_mean(const Col& col) {
  const std::string& second = col("time_run2_s");
  const double first = std::stod(col("time_run1_s"));
  return second.empty() ? first : 0.5 * (first + std::stod(second));
}

// The errors of the cases whose group starts with `prefix`; a prefix that matches no case fails
// (a renamed group must not leave its gate checking nothing).
Stats group_stats(const std::vector<Case>& cases, const std::string& prefix) {
  std::vector<double> errors;
  for (const auto& c : cases)
    if (c.group.rfind(prefix, 0) == 0) errors.push_back(c.predicted / c.expected - 1.0);
  EXPECT_FALSE(errors.empty()) << "no case in a group starting with " << prefix;
  return stats(errors);
}

const optimus::DeviceSpec& h200() {
  static const optimus::DeviceSpec d = optimus::device_preset("h200-sxm-141gb", "/device").value();
  return d;
}

TEST(Validation, KernelsH200Measured) {
  std::vector<Case> cases, waves;  // waves: the same rows on the preset with stream_k off
  optimus::DeviceSpec waves_device = h200();
  waves_device.stream_k = false;
  each_row("kernels_h200.csv", [&](const auto& col) {
    const std::int64_t g = integer(col, "groups"), m = integer(col, "m_per_group"), n = integer(col, "n"),
                       k = integer(col, "k");
    const bool fp8 = col("dtype") != "bf16";
    Case c;
    c.id = col("case_id");
    c.group = std::string(col("kind") == "gemm" ? "GEMM" : "grouped GEMM") + ", " +
              (fp8 ? "fp8 e4m3, " + col("scaling") + "-wise scales" : "bf16") +
              (m < 64 ? ", M < 64" : ", M >= 64");
    c.expected = measured_mean(col);
    const double b = fp8 ? 1 : 2;
    const optimus::Precision p = fp8 ? optimus::Precision::fp8 : optimus::Precision::bf16;
    c.predicted = optimus::matmul_cost(h200(), {m, n, k, g}, p, b, b, 2).time.value;
    cases.push_back(c);
    c.predicted = optimus::matmul_cost(waves_device, {m, n, k, g}, p, b, b, 2).time.value;
    waves.push_back(c);
  });
  const Stats s = report("Kernel time, GEMMs measured on one H200 (kernels_h200.csv)", cases);
  EXPECT_EQ(s.n, 336);
  EXPECT_LE(s.mean, 0.145);
  // Dense bf16: 7.2% with stream-K (calibration.stream_k), 8.9% with the waves alone; the
  // worst dense bf16 shape 30.5% against 84.5%. The evidence for the mechanism stays checked: the
  // same rows on the preset with stream-K off do worse, on average and at the worst shape.
  const Stats dense = group_stats(cases, "GEMM, bf16"), dense_waves = group_stats(waves, "GEMM, bf16");
  EXPECT_LE(dense.mean, 0.08);
  EXPECT_LT(dense.mean + 0.01, dense_waves.mean);
  EXPECT_LT(dense.max + 0.3, dense_waves.max);
}

// One causal prompt (q > 1) or decode (q = 1) attention operator over `keys` keys per sequence.
optimus::Op attention_op(std::int64_t batch, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim,
                         std::int64_t q, std::int64_t keys) {
  optimus::Op op;
  op.kind = optimus::OpKind::attention;
  op.role = optimus::OpRole::attention;
  op.m = q;
  op.n = keys;
  op.k = op.v_dim = head_dim;
  op.batch = batch * heads;
  op.sequences = batch;
  op.kv_heads = kv_heads;
  op.kv_bytes = 2.0 * static_cast<double>(kv_heads * head_dim) * 2.0;
  // a causal prompt visits the lower triangle with its diagonal: (s + 1) / 2s of the square
  op.causal_fraction = q > 1 ? (static_cast<double>(q) + 1) / (2.0 * static_cast<double>(q)) : 1.0;
  return op;
}

TEST(Validation, AttentionH200Measured) {
  optimus::OpContext ctx;
  ctx.dev = &h200();
  ctx.workload = optimus::Workload::inference;
  std::vector<Case> cases;
  each_row("attention_h200.csv", [&](const auto& col) {
    Case c;
    c.id = col("case_id");
    c.group = col("kind") + ", " + col("backend");
    c.expected = measured_mean(col);
    const optimus::Op op =
        attention_op(integer(col, "batch"), integer(col, "q_heads"), integer(col, "kv_heads"),
                     integer(col, "head_dim"), integer(col, "q_len"), integer(col, "kv_len"));
    c.predicted = optimus::forward_cost(ctx, op).time.value;
    cases.push_back(c);
  });
  const Stats s = report("Kernel time, attention measured on one H200 (attention_h200.csv)", cases);
  EXPECT_EQ(s.n, 36);
  EXPECT_LE(s.mean, 0.42);
  EXPECT_LE(group_stats(cases, "attention_prefill, cudnn").mean, 0.20);
}

// Training-shape causal attention on the same H200 (attention_train_h200.csv, the third and
// fourth runs): forward, and forward + backward, for head dims 64 (gpt-oss: 64 heads, also with 8
// KV heads), 128 (32 and 64 heads, also 64 with 8 KV heads) and 192 (DeepSeek-V3's MLA query/key
// width, values padded to 192), 2K-16K tokens, through PyTorch's FlashAttention 2 path and
// cuDNN's fused kernel (Transformer Engine's default on Hopper). Predicted: training_attention with the fused
// kernel, whose matmuls go through the GEMM roofline including its HBM roof for the score blocks
// (docs/method.md, "A known weakness"). Measured at this commit: forward and backward together 52.5% off
// cuDNN on average, the engine slower (+38% at head dim 128, +85% at 64, -15% at 192, where cuDNN's backward
// drops to 300 TFLOP/s), and 23.7% off FlashAttention 2; 46.3% over all 64. The training rows do not show it
// because fitted constants absorb it (docs/method.md). Reported; the gate holds against
// regressions only.
TEST(Validation, AttentionTrainingH200Measured) {
  optimus::OpContext ctx;
  ctx.dev = &h200();
  std::vector<Case> cases;
  each_row("attention_train_h200.csv", [&](const auto& col) {
    const std::int64_t seq = integer(col, "seq");
    const optimus::Op op = attention_op(integer(col, "batch"), integer(col, "heads"),
                                        integer(col, "kv_heads"), integer(col, "head_dim"), seq, seq);
    const optimus::TrainingAttention ta =
        optimus::training_attention(ctx, op, optimus::AttentionKernel::flash);
    const double fwd = (ta.fwd.matmuls.time + ta.fwd.scores.time).value;
    const double bwd = (ta.bwd.matmuls.time + ta.bwd.scores.time).value;
    for (const bool both : {false, true}) {
      Case c;
      c.id = col("case_id") + (both ? "_fwd_bwd" : "_fwd");
      c.group =
          col("backend") + (both ? ", forward + backward" : ", forward") + ", head dim " + col("head_dim");
      c.expected = std::stod(col(both ? "fwd_bwd_s" : "fwd_s"));
      c.predicted = both ? fwd + bwd : fwd;
      cases.push_back(c);
    }
  });
  const Stats s =
      report("Kernel time, training attention measured on one H200 (attention_train_h200.csv)", cases);
  EXPECT_EQ(s.n, 64);
  EXPECT_LE(s.mean, 0.48);
}

// Decoder layers trained on the same H200 at one micro-batch of 2K-8K tokens (train_layer_h200.csv,
// runs 9-12 of scripts/device/h200_kernels.py: bf16, cuDNN attention, random weights): Llama 3 8B
// layers, and one rank's shard of Llama 3 70B layers under 8-way tensor parallelism (8 query
// heads, 1 KV head, 3584 FFN columns; no collective run). Per layer: the wall time of 3 s of
// steady forward + backward steps at the 700 W cap, and the profiler's kernel time by kind. Two
// ways of writing the layer: eager PyTorch, whose rotary embedding and SwiGLU are chains of
// primitives over strided halves (the norm is F.rms_norm, one kernel), and torch.compile, which
// fuses every element-wise chain, as Megatron-Core with Transformer Engine does. Predicted: the
// engine's layer on the h200-sxm-141gb preset, its GEMMs (forward, input and weight gradients),
// attention and element-wise operators (the eager rows with unfused_elementwise rope and
// activation); for the unsharded rows that sum is checked equal to the whole engine's
// training.layer_s on dgx-h200. Measured at this commit: the compiled layers +0.3% to +4.1% (2.3%
// mean), the eager ones 3-10% fast (their strided slices and autograd's zero-fills and gradient sums
// cost more than the unfused model charges); GEMMs 3-20% slow (in a step, memory-bound kernels
// leave the 700 W cap room: power_mix_h200.csv), attention 9% fast to 23% slow. Nothing is fitted
// on these rows; the gates hold against regressions (docs/method.md, "Measured since: trained
// layers on the H200").
TEST(Validation, TrainLayerH200Measured) {
  optimus::OpContext ctx;
  ctx.dev = &h200();
  std::vector<Case> total, gemm, attention;
  std::vector<double> compiled, eager_errors;  // the layer's error, by how it was written
  each_row("train_layer_h200.csv", [&](const auto& col) {
    const std::int64_t seq = integer(col, "seq"), batch = integer(col, "batch");
    const bool eager = col("variant") == "eager", shard = col("model") == "llama3-70b-tp8";
    const optimus::ModelSpec model =
        optimus::model_preset(shard ? "llama3-70b" : "llama3-8b", "/model").value();
    optimus::LayerShape shape;
    shape.group = optimus::SeqGroup{batch, seq, seq};
    shape.tp = shard ? 8 : 1;
    if (eager)
      shape.unfused_elementwise = optimus::elementwise_bit(optimus::ElementwiseOp::rope) |
                                  optimus::elementwise_bit(optimus::ElementwiseOp::activation);
    const std::string group = col("model") + " " + col("variant");
    Case t{col("case_id"),
           group + ", layer forward + backward",
           std::stod(col("steady_fwd_bwd_s")),
           0.0,
           "",
           ""};
    Case g{col("case_id") + "_gemm", group + ", GEMMs", std::stod(col("gemm_s")), 0.0, "", ""};
    Case a{col("case_id") + "_attention", group + ", attention", std::stod(col("attention_s")), 0.0, "", ""};
    double rest = 0;
    for (const optimus::Op& op : optimus::layer_forward_ops(model, shape)) {
      if (op.kind == optimus::OpKind::matmul) {
        const optimus::MatmulCosts m = optimus::matmul_costs(ctx, op, true);
        g.predicted += (m.fwd.time + m.dx.time + m.dw.time).value;
      } else if (op.kind == optimus::OpKind::attention) {
        const optimus::TrainingAttention ta =
            optimus::training_attention(ctx, op, optimus::AttentionKernel::flash);
        a.predicted +=
            (ta.fwd.matmuls.time + ta.fwd.scores.time + ta.bwd.matmuls.time + ta.bwd.scores.time).value;
      } else if (op.kind == optimus::OpKind::elementwise) {
        rest += optimus::forward_cost(ctx, op).time.value +
                optimus::elementwise_backward(ctx, op).time.value * op.backward_kernels;
      }
    }
    t.predicted = g.predicted + a.predicted + rest;
    if (!shard) {  // the same layer through the whole engine
      json sc = {{"schema_version", 1},
                 {"model", "llama3-8b"},
                 {"system", "dgx-h200"},
                 {"num_devices", 1},
                 {"parallel", {{"tp", 1}, {"micro_batch", batch}, {"recompute", "none"}, {"zero_stage", 0}}},
                 {"training", {{"global_batch", batch}, {"seq_len", seq}, {"precision", "bf16"}}}};
      if (eager) sc["software"] = {{"software", {{"unfused_elementwise", {"rope", "activation"}}}}};
      const json p = json::parse(optimus::api::predict(sc.dump()));
      ASSERT_FALSE(p.contains("error")) << p.dump();
      const json& layer = p["training"]["layer_s"];
      EXPECT_NEAR(layer["forward"].get<double>() + layer["backward"].get<double>(), t.predicted,
                  1e-6 * t.predicted)
          << t.id;
    }
    (eager ? eager_errors : compiled).push_back(t.predicted / t.expected - 1.0);
    total.push_back(t);
    gemm.push_back(g);
    attention.push_back(a);
  });
  const Stats t = report("Training layer time on one H200 (train_layer_h200.csv)", total);
  const Stats g = report("Training layer GEMMs by kernel time, same rows", gemm);
  const Stats a = report("Training layer attention by kernel time, same rows", attention);
  EXPECT_EQ(t.n, 10);
  EXPECT_EQ(compiled.size(), 4u);
  EXPECT_LE(stats(compiled).mean, 0.04);
  EXPECT_LE(stats(compiled).max, 0.06);
  EXPECT_LE(stats(eager_errors).mean, 0.09);
  EXPECT_LE(g.mean, 0.11);
  EXPECT_LE(a.mean, 0.15);
}

// Training iteration time. Target (issue 2): mean <= 5%. Measured at this commit: 3.2% mean
// (Narayanan 6.9%, Korthikanti 2.0%, DGX Cloud Llama 3.1 8B 0.6%). The H100 preset's
// sustained_ratio is fitted on the DGX Cloud rows (presets/devices/h100-sxm5-80gb.json), and the
// A100 systems' pipeline_sync_us on the 7 pipelined Korthikanti rows, so those are in-sample;
// the Narayanan rows are not fitted. Gate: mean <= 4%, every case within 16%.
TEST(Validation, TrainingIterationTime) {
  const Stats s = report("Training iteration time (train_public.jsonl)", run_file("train_public.jsonl"));
  EXPECT_EQ(s.n, 29);
  EXPECT_LE(s.mean, 0.04);
  EXPECT_LE(s.max, 0.16);
}

// Korthikanti et al. 2022 Figure 1, with the paper's interleaved schedule for 175B/530B.
// Target: within 5%. The weights+gradients+optimizer figures of the paper leave out the
// embedding the first stage holds (+7% for 530B, +11% for 1T at pp=35/64): reported as is.
TEST(Validation, MemoryPaperSchedule) {
  const Stats s = report("Memory per GPU, paper schedule (memory_paper_config.jsonl)",
                         run_file("memory_paper_config.jsonl"));
  EXPECT_EQ(s.n, 12);
  EXPECT_LE(s.mean, 0.05);
  EXPECT_LE(s.max, 0.12);
}

// The same rows as published in the shared cases (no interleave given for 175B/530B): the
// activation rows of those two models come out 22-24% low because the interleaved schedule's
// extra in-flight activations are not in the scenario. Gate against regressions only.
TEST(Validation, MemoryPublicRows) {
  const Stats s =
      report("Memory per GPU, public rows (memory_public.jsonl)", run_file("memory_public.jsonl"));
  EXPECT_EQ(s.n, 12);
  EXPECT_LE(s.mean, 0.12);
}

// Inference latency. The engine models optimised inference kernels (fused, KV-cached), so the
// gate (issue 3: mean <= 15%) holds over the rows measured with FasterTransformer and
// TensorRT-LLM. The FasterTransformer guide's unoptimised Megatron (PyTorch) baseline rows, 1.3-3.7x
// slower than FasterTransformer on the same scenarios, are reported but not gated: a scenario
// has no framework key. These 69 rows are also what the systems' host launch interval
// (software.launch_interval_us, 17 us, scripts/fit_launch_interval.py) is fitted on, so they
// are in-sample for that one parameter; the 53 FasterTransformer rows are in-sample for its
// profile's inference_matmul_share (0.84, scripts/fit_inference_share.py). Each row names the
// software profile of its stack as the shared cases do (fastertransformer, tensorrt-llm-2023,
// pytorch-eager for the Megatron baseline). Measured at this commit: optimised 5.6% mean (FT
// 4.7%, 6.9% before the unfused context attention and the share; TRT-LLM first-token 8.4%);
// Megatron baseline 51.1%; all 82 rows 12.8% (14.3% before).
// Gate: optimised mean <= 7% (was 10%).
TEST(Validation, InferenceLatency) {
  const std::map<std::string, std::string> frameworks = inference_frameworks();
  std::vector<Case> all = run_file("infer_public.jsonl"), optimised;
  for (Case& c : all) {
    const auto it = frameworks.find(c.id.substr(0, c.id.find(':')));
    ASSERT_NE(it, frameworks.end()) << c.id << " not in inference.csv";
    c.group += " | " + it->second;
    if (it->second.find("baseline") == std::string::npos) optimised.push_back(c);
  }
  const Stats s = report("Inference latency (infer_public.jsonl)", all);
  EXPECT_EQ(s.n, 82);
  const Stats o =
      report("Inference latency, optimised frameworks (FasterTransformer, TensorRT-LLM)", optimised);
  EXPECT_EQ(o.n, 69);
  EXPECT_LE(o.mean, 0.07);
}

// Held-out inference runs not in the shared data (tests/validation/README.md): NeMo Framework
// Llama-2 whole-request latencies; FasterTransformer GPT-6.7B/20B/89B and Megatron-530B (TP up to
// 32 over 4 nodes, TP8 x PP3); TensorRT-LLM v0.6.1/v0.9.0 H100 FP8 static-batch throughput at
// batch 48-1024 and first-token latency; the TensorRT-LLM H100 blog's GPT-J batch-64 TTFT and
// throughput; NVIDIA NIM Llama-3.3-70B TTFT and inter-token latency (a prefill/decode split);
// gpt-fast batch-1 decode on A100 (bf16, int8, int4; TP 1-8; CUDA graphs). The rows run on
// TensorRT-LLM (NeMo Framework inference, NIM, TensorRT-LLM's own) name the tensorrt-llm software
// profile: its one-shot custom all-reduce for small tensor-parallel messages (custom_allreduce_*,
// from a published kernel measurement, not fitted) took them from 14.1% to 12.3% (NeMo 7B on
// H100 23.3% -> 12.2%, on A100 9.4% -> 7.2%), and the gpt-fast rows name the gpt-fast profile
// (PyTorch's intra-node one-shot all-reduce, as its README launches tensor parallelism; 17 us
// measured in a PyTorch issue): 20.3% -> 15.3%, all rows 11.7%. Aim (issue 3): mean <= 15%;
// issue 15 asks for a gate of 12%. The FasterTransformer rows name the fastertransformer profile
// (the stack the guide measured; its unfused context attention and matmul share, fitted on the
// public rows only): those 42 rows 10.5% -> 9.6%. Measured at this commit over the 119 rows
// below: 9.3% mean (9.7% with the FasterTransformer rows on the system's block; 19.8% before the
// launch interval). The NeMo 13B rows are reported as published but are
// physically inconsistent with the 7B rows of the same table (13B, twice the weights, is listed
// up to 40% faster than 7B at equal TP and batch), so the gate leaves them out. Gate: mean <= 11%
// (was 12%).
// The FasterTransformer and TensorRT-LLM v0.6.1 / v0.9.0 rows are not independent evidence
// (not_independent.json): the gate guards against regressions; nothing is to be tuned on them.
TEST(Validation, InferenceHeldOut) {
  const std::vector<Case> all = run_file("infer_heldout.jsonl");
  std::vector<Case> gated;
  for (const Case& c : all)
    if (c.group.find(", 13B") == std::string::npos) gated.push_back(c);
  const Stats s = report("Inference, held-out runs (infer_heldout.jsonl)", all);
  EXPECT_EQ(s.n, 141);
  const Stats o = report("Inference, held-out runs without the inconsistent NeMo 13B rows", gated);
  EXPECT_EQ(o.n, 119);
  EXPECT_LE(o.mean, 0.11);
}

// Held-out training runs not in the shared data (tests/validation/README.md): Megatron-Bridge's
// published pre-training throughput for dense Llama 3 8B / 70B / 3.1 405B in fp8 on DGX H100 (up
// to 1024 GPUs, context parallel), DGX B200 and GB200 NVL72, and Nemotron-4 340B's pretraining
// iteration times on 1,536-6,144 H100 (its report's Table 2; the interleave degree ASSUMED).
// Aim (issue 2): mean <= 10%; issue 15 asks for a gate of 8%. Measured at this commit: 3.7% mean
// (the 12 Megatron-Bridge rows 4.3%; Nemotron-4 340B 0.3-1.7% on the megatron-core-2024 profile,
// Megatron-Core's device synchronize after every batched pipeline exchange with the 1.8 ms fitted on
// the A100 Korthikanti rows; 12-13% fast without it, flat from 1,536 to 6,144 GPUs; the sustained
// ratios are fitted on other rows, the public ones). Gate: mean <= 8%.
// The 12 Megatron-Bridge rows are not independent evidence (not_independent.json): the gate guards
// against regressions; nothing is to be tuned on them.
TEST(Validation, TrainingHeldOut) {
  const Stats s =
      report("Training iteration time, held-out runs (train_heldout.jsonl)", run_file("train_heldout.jsonl"));
  EXPECT_EQ(s.n, 15);
  EXPECT_LE(s.mean, 0.08);
}

// PyTorch FSDP (ZeRO-3) without model parallelism (tests/validation/data/train_fsdp.jsonl,
// collected for this repository): llm-foundry's published MPT throughput on 8-64 H100, 8-64
// A100-80GB and 8-128 A100-40GB over RoCE (FULL_SHARD, bf16), and torchtitan's FSDP2 A100 rows.
// Nothing numeric is fitted on these rows; every row states the FSDP stack's gradient
// reduce-scatters as not overlapped (overlap_grad_reduce false, the pytorch-fsdp profile), which
// the A100 rows had from their systems' default stack already. Measured at this commit: 6.0% mean
// (H100 5.9%, 12.1% with the H100 systems' overlapped default; A100-80GB 6.2%, A100-40GB 6.8%,
// torchtitan 4.5%). Two mechanisms brought the
// H100 rows from 22.7%: the benchmark ran llm-foundry v0.0.4's Triton FlashAttention, a first-generation
// kernel at about half FlashAttention-2's speed (software.attention flash1, kFlash1Slowdown from the
// FlashAttention-2 paper), and sharded gradients are reduce-scattered every micro-batch. What remained
// (H100 rows on short sequences without activation checkpointing, 15-28% fast) went with the
// stated non-overlapped reduce-scatters. Before the computation
// beside the parameter all-gathers was slowed (software.dp_overlap_slowdown 0.189, Lee et al. 2025) the H100
// mean was 26.9%. Reported; gate: no regression past the measured mean plus noise.
TEST(Validation, TrainingFsdpReported) {
  const Stats s =
      report("Training throughput, PyTorch FSDP (train_fsdp.jsonl)", run_file("train_fsdp.jsonl"));
  EXPECT_EQ(s.n, 39);
  EXPECT_LE(s.mean, 0.08);
}

// DeepSpeed ZeRO-3 without model parallelism (tests/validation/data/train_zero3.jsonl, collected
// for this repository; docs/zero3.md): the ZeRO-3 baseline bars of the ZeRO++ evaluation (DeepSpeed
// blog, 2023: an 18B GPT on 384 V100 with 100-800 Gb/s per node, 1K and 2K tokens per GPU), run on
// the deepspeed profile. Nothing is fitted on them. Measured at this commit: 12.7% mean, 22.5% at
// most; the engine is 15-23% fast where the network hides the traffic (400 and 800 Gb/s) and 8-9%
// slow where it does not (100 Gb/s). The recompute re-gather and the per-tensor reductions of
// docs/zero3.md do not move these rows (the 18B layer keeps every matrix under DeepSpeed's 1e9
// reuse distance; the rows ran DeepSpeed >= v0.9, not the deepspeed-2021 profile's synchronised
// fetches, which would give 10.8%). Reported; gate: no regression past the measured mean plus
// noise.
TEST(Validation, TrainingZero3Reported) {
  const Stats s =
      report("Training iteration time, DeepSpeed ZeRO-3 (train_zero3.jsonl)", run_file("train_zero3.jsonl"));
  EXPECT_EQ(s.n, 6);
  EXPECT_LE(s.mean, 0.14);
}

// Megatron-DeepSpeed (tests/validation/data/train_megatron_deepspeed.jsonl, collected for this
// repository), run on the megatron-deepspeed software profile:
// - 58 BigScience topology benchmarks for BLOOM (chronicles-prequel.md, Feb 2022: 176-206B models on
//   Jean Zay's A100 80GB, TP 1-8, PP 2-48, micro-batch 1-8). The profile's one fitted value,
//   training_matmul_share 0.74 (scripts/fit_stack_rate.py), is fitted on these rows: 22.6% -> 6.8%.
// - MT-NLG 530B's published iteration times (Smith et al. 2022; TP 8, PP 35, 2,240-3,360 A100 on
//   Selene), out of sample: 29.8% at a share of 1 (every row 29-31% fast) -> 10.0%.
// The same layers in Megatron-LM on Selene are predicted within 2-7% at a share of 1
// (train_public.jsonl), so the share belongs to the stack. The profile has no wait after a
// pipeline exchange (DeepSpeed's p2p does not synchronise the device as Megatron-LM's does); with
// the A100 systems' 1800 us inherited, MT-NLG was 8.4%. Gates: the fitted rows at their measured
// mean plus noise, MT-NLG within 11% (10% before that correction; 10.0% measured).
TEST(Validation, TrainingMegatronDeepSpeedReported) {
  std::vector<Case> cases = run_file("train_megatron_deepspeed.jsonl");
  const Stats s =
      report("Training iteration time, Megatron-DeepSpeed (train_megatron_deepspeed.jsonl)", cases);
  EXPECT_EQ(s.n, 61);
  EXPECT_LE(s.mean, 0.075);
  std::vector<Case> mtnlg;
  for (const Case& c : cases)
    if (c.group.rfind("MT-NLG", 0) == 0) mtnlg.push_back(c);
  const Stats m = report("Out of the fit: MT-NLG 530B", mtnlg);
  EXPECT_EQ(m.n, 3);
  EXPECT_LE(m.mean, 0.11);
}

// Meta's Llama 3 pretraining stack (tests/validation/data/train_meta_llama3.jsonl, collected for
// this repository): the three scaling configurations of Llama 3 405B that the Llama 3 paper
// measured (Table 4: 8,192 and 16,384 H100, sequence 8K and 128K, 380-430 BF16 TFLOP/s per GPU),
// run on the meta-llama3 software profile. Its one fitted value, training_matmul_share 0.75
// (scripts/fit_stack_rate.py), is fitted on these three rows: 21.0% at a share of 1 (every row
// 19-24% fast) -> 3.3%. NVIDIA's stack at the same scale on the same GPUs is predicted within 2%
// at a share of 1 (Nemotron-4 340B, train_heldout.jsonl), so the share belongs to Meta's stack and
// cluster. The interleave is not published (8 assumed; at 4 the fit is 0.78, at 2 0.96). Out of
// the fit, the Llama 3 whole runs (whole_run.jsonl) check it: 405B's GPU-hours -21.4% -> +0.4%,
// 70B -36.5% -> -21.4%, 8B -65.6% -> -57.2%. Gate: the fitted rows at their mean plus noise.
TEST(Validation, TrainingMetaLlama3Reported) {
  const Stats s = report("Training iteration time, Meta's Llama 3 stack (train_meta_llama3.jsonl)",
                         run_file("train_meta_llama3.jsonl"));
  EXPECT_EQ(s.n, 3);
  EXPECT_LE(s.mean, 0.045);
}

// Mixture-of-experts and fp4 training, the public wave-2 rows (tests/validation/data/
// train_moe_public.jsonl, copied from the shared cases; NVIDIA Megatron-Bridge performance
// summaries 25.09-26.02.01 and DGX Cloud recipes v25.02 for Grok-1, with the routers forced to a
// balanced split where the source says so). Aim (issue 14): mean <= 15%; NOT met. Measured at
// this commit: 29.9% mean over 108 cases, 3 of which (Llama 3.1 405B on GB200 with 128 chunks for
// 126 layers) cannot be predicted and count as 100%. The NVL72 systems are close (DeepSeek-V3
// within 10%, Qwen3-235B within 15%); DGX B200/B300 runs are predicted 40-135% too fast, and
// nvfp4 runs 10-36% too fast (fp4 GEMMs get the fp8 efficiency). Gate: no regression past 35%.
TEST(Validation, TrainingMoePublic) {
  std::vector<Case> cases = run_file("train_moe_public.jsonl");
  const Stats s = report("Training, MoE and fp4 public rows (train_moe_public.jsonl)", cases, true);
  for (auto& c : cases) c.group = c.model;
  report("The same rows by model", cases, true);
  EXPECT_EQ(s.n, 108);
  EXPECT_LE(s.mean, 0.35);
}

// Training on the DGX Cloud recipes v25.05 (tests/validation/data/train_dgxc.jsonl, collected here
// from github.com/NVIDIA/dgxc-benchmarking @c5c765f2, NeMo 25.04): Llama 4 Maverick and Grok-1 on
// 128-512 GB200 and 512 H100 in bf16 and fp8, DeepSeek-V3 bf16 on 512-1024 H100 and 128-512 GB200,
// Llama 3.1 405B on 128-512 GB200 and 512 H100, Nemotron-4 340B on 128-512 GB200 (weak and strong
// scaling), written as a case built from the READMEs' tables would be (no software named). Nothing
// fitted. Measured at this commit: 15.1% mean over 41. Llama 4 Maverick 4.6%, Llama 3.1 405B 6.1%
// (GB200 fp8 8-13% fast), Nemotron-4 340B 12.8% (all fast: bf16 7-12%, fp8 14-20%), Grok-1 18.2%
// (bf16 +24% to +28%: the same H100 layout took 21.4 s on NeMo 24.12, 15.9 s here, the engine
// 20.3 s; fp8 +3% to +15%), DeepSeek-V3 47.1% (H100 -26% and -30%, -4% and -9% with the all-to-all
// dispatcher the recipe ran; GB200 -59% to -62%, 10% MFU published, not explained).
// Reported; gate: no regression past the measured mean plus noise.
// These rows are not independent evidence (not_independent.json): the gate guards against
// regressions; nothing is to be tuned on them.
TEST(Validation, TrainingDgxCloudReported) {
  const Stats s =
      report("Training on the DGX Cloud recipes v25.05 (train_dgxc.jsonl)", run_file("train_dgxc.jsonl"));
  EXPECT_EQ(s.n, 41);
  EXPECT_LE(s.mean, 0.18);
}

// Whole training runs (tests/validation/data/whole_run.jsonl, rows of the shared whole_run.csv
// copied to whole_run.csv): published GPU-hours, wall days, ideal days and measured GPU energy,
// each row a scenario with the model, the system preset, the tokens and a layout (the published
// one for BLOOM, OPT, MPT, the Pythia suite (its GPT-NeoX configs), BloombergGPT (ZeRO-3 over
// 128-GPU groups, parallel.zero_shard) and Falcon-180B, the last two on the aws-p4d system they
// ran on, and the four Granite 3.0 models (IBM's report: TP/PP/DP, ZeRO-1, the MoE models on
// data parallelism alone with ScatterMoE experts, the scattermoe software profile) and
// DeepSeek-V2 (PP 16, EP 8, ZeRO-1; its paper's GPU-hours per trillion tokens, beside the dense
// DeepSeek LLM 67B's with parallel "auto"); parallel "auto" where no
// layout is published: the LLaMA (2023), Llama 2 34B, Phi and Llama 4 Scout / Maverick (MoE, FP8;
// -43% and -37% on Meta's stack, as far below Meta's hours as its Llama 3 rows) rows (StarCoderBase,
// SmolLM3, OLMo 1B, OLMo 2 13B and Llama 3.1 405B take the layouts their papers, configs or launch
// scripts state);
// otherwise one picked by model size before predicting). BLOOM (Jean Zay, jean-zay-a100) and the
// Pythia suite (GPT-NeoX) name the stack they ran on, megatron-deepspeed, whose one fitted value is
// fitted on other rows (the BigScience topology benchmarks): BLOOM -33.7% -> -11.4% (with the
// dropout its run inherited), Pythia 19.4% -> 11.7%, the gated mean 25.0% -> 22.2%. Phase caveats (the shared
// README-whole-run.md): Llama 2/3 cards count pretraining, Llama 3.1 cards "training" (post-training not
// split out, reported and not gated); OPT's 33 days and TinyLlama's hours are ideal figures (compared with
// run.ideal_time_s); OLMo's energy is measured on the GPUs alone (compared with run.device_energy_mwh).
// No value is fitted on these rows' elapsed times (issue 37). Until then the H100-generation
// presets carried operations.production_efficiency 0.69, fitted on the 20 H100/H800 rows (38.3% ->
// 25.8% on them, 31.1% with each source left out; gated mean 18.8% in sample, 21.1% left out): a
// fleet-average discount on every run, which put Llama 3.1 405B at its published layout at 44.9M
// GPU-hours against 30.8M published. Without it (the failures per device-hour from the published
// counts, scripts/fit_failure_rate.py, restarts and checkpoint saves are what the run adds; a
// user's stated share still applies) the gated mean is 24.1% (max 74.0%, OLMo 1B's energy), bias
// -16.5%: the H100 makers' runs spend 1.1-2.4x the modelled time on what no source breaks down
// (evaluations, ablations, stalls, stragglers, less tuned code), which the run's band
// (presets/uncertainty/bands.json, run/fp8-generation) now holds instead; Llama 3.1 405B: 31.0M
// (+0.4%, reported, not gated). Then (scripts/diagnose_whole_run.py) the rows whose stack is
// named by its maker run on it: the Phi rows on Microsoft's (PyTorch, DeepSpeed, FlashAttention, as
// the Phi-2 card names it; the deepspeed profile's values, fitted on other rows), Llama 4 on Meta's
// (meta-llama3), OLMo 1B on its official config (FSDP, micro-batch 8): Phi 43.5% -> 35.1%, Llama 4
// 48.4% -> 40.2%, OLMo 1B -74.0% -> -72.5%, the gated mean 24.1% -> 22.6% (max 72.5%). Where a
// source states its step rate the MFU its elapsed time implies matches it (SmolLM3 31.5% against
// 29.4% stated, BloombergGPT 24.9% against 25%, Llama 3.1 405B 40.4% against 38-43%): what is
// left misses in the step of the makers' stacks, not in the run around it.
// Aim (issue 37): mean within 20% on unseen runs; NOT met here.
// Measured at this commit: see the printed table and README "Accuracy". Beside each row the one-line
// estimate, 6 x (active) parameters x tokens at 40% of the dense peak of the row's training precision, for
// GPU-hours and days. Gate: no regression past the measured mean and max plus noise.
TEST(Validation, WholeRun) {
  std::vector<Case> all = run_file("whole_run.jsonl"), gated;
  for (const auto& c : all)
    if (!reported_only(c.group)) gated.push_back(c);
  report("Whole runs, every row (whole_run.jsonl)", all);
  const Stats s = report("Whole runs, gated rows", gated);
  // The one-line estimate on the same rows (time metrics only).
  std::vector<Case> baseline;
  for (const Row& r : rows_of("whole_run.jsonl")) {
    const json &c = r.c, &p = r.p;
    if (reported_only(c["group"].get<std::string>())) continue;
    const std::string m = c["metric"];
    if (m.find("energy") != std::string::npos) continue;
    const json& t = p["training"];
    const double n = c["scenario"]["num_devices"].get<double>();
    const double peak =
        t["model_flops"].get<double>() / (t["iteration_time_s"].get<double>() * t["mfu"].get<double>() * n);
    // Parameters active per token (the total for a dense model; a MoE model's routed share).
    const double seconds = 6.0 * p["params"]["active"].get<double>() *
                           c["scenario"]["training"]["train_tokens"].get<double>() / (0.4 * peak * n);
    Case k;
    k.id = c["id"];
    k.group = "6 x params x tokens at 40% of peak";
    k.expected = c["expected"];
    k.predicted = m == "run.gpu_hours"   ? seconds * n / 3600
                  : m == "run.wall_days" ? seconds / 86400
                                         : seconds;
    baseline.push_back(k);
  }
  report("The one-line estimate on the same time rows", baseline);
  EXPECT_EQ(s.n, 48);
  EXPECT_LE(s.mean, 0.23);  // 22.6%
  EXPECT_LE(s.max, 0.73);   // 72.5%
}

// Every published training layout ran, so each should fit in its device's memory. Counts the
// layouts (parallel given, not searched) of the training files that the engine says do not fit,
// prints them with needed / capacity, and gates the count: a memory model that over-counts is as
// wrong as one that under-counts, and says "does not fit" with a confident face. Layouts whose case
// names no ZeRO stage take the spec's default, 0 (every rank keeps the whole optimizer state),
// while the NVIDIA recipes they come from (DGX Cloud Llama 3.1 8B, Grok-1) shard it with the
// distributed optimizer: they are counted apart. Measured at this commit: 22 of the 287 that name
// their stage (the shared case files of Megatron-Bridge's GB200 / GB300 Llama 3 70B recipes leave
// out their activation offloading to the Grace CPU, which our held-out rows of the same recipe
// state, parallel.offload_layers; gpt-oss in bf16 and torchtitan's 70B on A100 come out 11-49%
// over; the rest within 12%), and 26 of the 47 that name none. 15 before memory became the
// heaviest pipeline stage's instead of the first's; the 7 added: Llama 3 405B at Meta's pp 16 x
// interleave 8 (two Table 4 rows and the whole run: its middle stages hold 8 layers to the end
// stages' 7, 141 layers' worth in flight to the first's 125: 1.11x), DeepSeek-V2's whole run at
// pp 16 (60 layers: 4 on the last twelve middle stages, 1.12x) and three Llama 3.1 405B GB300 rows
// (1.00-1.01x). A first-stage figure under-counted those stages; that the published runs fit says
// the per-layer activations (Korthikanti et al.'s, memory_public 3.8%) run high at these scales.
TEST(Validation, PublishedLayoutsFit) {
  int layouts = 0, unnamed = 0;
  std::vector<std::pair<double, std::string>> over, over_unnamed;
  for (const char* file :
       {"train_public.jsonl", "train_moe_public.jsonl", "train_dgxc.jsonl", "train_heldout.jsonl",
        "train_fsdp.jsonl", "train_megatron_deepspeed.jsonl", "train_meta_llama3.jsonl", "whole_run.jsonl"}) {
    std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/" + file);
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const json c = json::parse(line);
      const json& sc = c["scenario"];
      if (!sc.contains("training") || sc.value("parallel", json()).is_string()) continue;
      const json p = json::parse(optimus::api::predict(sc.dump()));
      ASSERT_FALSE(p.contains("error")) << c["id"] << p.dump();
      const bool named = sc.contains("parallel") && sc["parallel"].contains("zero_stage");
      ++(named ? layouts : unnamed);
      const json& mem = p["memory"];
      if (!mem["fits"].get<bool>())
        (named ? over : over_unnamed)
            .emplace_back(
                mem["per_device_bytes"]["total"].get<double>() / mem["capacity_bytes"].get<double>(),
                std::string(file) + " " + c["id"].get<std::string>());
    }
  }
  for (auto* list : {&over, &over_unnamed}) std::sort(list->rbegin(), list->rend());
  std::printf("\nPublished training layouts predicted not to fit: %zu of %d that name their ZeRO stage\n",
              over.size(), layouts);
  for (const auto& [ratio, id] : over) std::printf("  %5.2fx  %s\n", ratio, id.c_str());
  std::printf("and %zu of %d that name none (the spec's default 0; their recipes shard the optimizer)\n",
              over_unnamed.size(), unnamed);
  for (const auto& [ratio, id] : over_unnamed) std::printf("  %5.2fx  %s\n", ratio, id.c_str());
  EXPECT_GE(layouts + unnamed, 330);
  EXPECT_LE(over.size(), 22u);
}

// Continuous-batching serving, the public wave-2 rows (tests/validation/data/serve_public.jsonl):
// TensorRT-LLM v0.17 offline throughput (Mixtral 8x7B / 8x22B, TP 1-8, H100 / H200 / A100) and
// the v0.14.0 online-serving table (Llama 3.1 8B / 70B at Poisson rates 2-32 and infinite, mean
// TTFT, mean inter-token latency and output throughput). The scheduler defaults are
// TensorRT-LLM's documented ones and the step time is the engine's; two host times are fitted
// together on the 216 online rows (scripts/fit_serving_overheads.py): the front end's per request
// (request_overhead_ms 4) and the scheduler's between steps (step_overhead_ms 1.5): TTFT 20.1% ->
// 10.3%, inter-token latency 15.6% -> 12.3%, online throughput 9.3% -> 8.5%; the offline v0.17
// rows, not in the fit, 8.9% -> 8.2%. Aim (issue 12): throughput within 15% and TTFT / ITL within
// 25% on average. Measured at this commit: see the table printed (README "Validation"). Gates:
// those aims per metric, TTFT's and ITL's tightened to 15% with the fitted host times.
TEST(Validation, ServingPublic) {
  std::vector<Case> cases = run_file("serve_public.jsonl");
  const Stats s = report("Serving, public rows (serve_public.jsonl)", cases, true);
  EXPECT_EQ(s.n, 342);
  std::map<std::string, std::vector<Case>> by_metric;
  for (auto c : cases) {
    const std::string metric = c.id.substr(c.id.find(':') + 1);
    by_metric[metric].push_back(c);
  }
  const Stats tput = report("Serving: output tokens/s", by_metric["serving.output_tokens_per_s"], true);
  const Stats ttft = report("Serving: mean TTFT", by_metric["serving.ttft_s.mean"], true);
  const Stats tpot = report("Serving: mean inter-token latency", by_metric["serving.tpot_s.mean"], true);
  EXPECT_LE(tput.mean, 0.15);
  EXPECT_LE(ttft.mean, 0.15);
  EXPECT_LE(tpot.mean, 0.15);
}

// A nightly serving benchmark (tests/validation/data/serve_inferencemax_public.jsonl, the public
// part of SemiAnalysis' InferenceX, copied from the shared wave 3 with inferencemax_public.csv):
// DeepSeek-R1-0528 under SGLang on one node of B200 (fp4, fp8), H200 (fp8) and MI355X (fp4, fp8),
// TP 4 / 8 with and without expert parallelism, a closed loop of 1-256 clients at 1k/1k, 1k/8k and
// 8k/1k with lengths uniform over [0.8 L, L]; output tokens/s per GPU and median TPOT. Nothing is
// fitted on these rows: what took them from 30.6% to 7.4% is the sglang profile's overlap scheduler,
// no all-to-all where the tensor-parallel ranks hold the same tokens, and SGLang's custom all-reduce
// up to 8 MiB (docs/serving.md). Aim (issue 36): 12%. Gate: the aim, and each group within 15%.
TEST(Validation, ServingInferenceXPublic) {
  const std::vector<Case> all = run_file("serve_inferencemax_public.jsonl");
  const Stats s =
      report("Serving, InferenceX DeepSeek-R1 on SGLang (serve_inferencemax_public.jsonl)", all, true);
  EXPECT_EQ(s.n, 128);
  EXPECT_LE(s.mean, 0.12);
  std::map<std::string, std::vector<Case>> by_group;
  for (const Case& c : all) by_group[c.group].push_back(c);
  for (const auto& [group, cases] : by_group) EXPECT_LE(report(group, cases, true).mean, 0.15) << group;
}

// Held-out serving of 2025 models (tests/validation/data/serve_trtllm_perf.jsonl, collected for this
// repository): TensorRT-LLM's perf overview for its PyTorch backend (trtllm-bench offline, output
// tokens/s per GPU; DeepSeek R1, Llama 4 Maverick, Qwen3 235B / 30B, gpt-oss 120B / 20B and Llama
// 3.3 70B on B200, GB200, H200, H100 in FP4 / FP8, the MoE models at their published "DEP" layouts,
// attention data parallelism). Nothing is fitted on these rows (the per-request host time of the
// profile is a published measurement; its additive form was chosen on these rows). Measured at this commit:
// see the table printed and README, Accuracy: the dense Llama 3.3 70B and the large MoE models on Blackwell
// with attention data parallelism are close, the MoE models on Hopper and the small-expert models
// (gpt-oss, Qwen3 30B) are predicted far too fast. The block-scaled FP8 rows on Hopper (DeepSeek
// R1, Qwen3 235B: inference.fp8_block_scaled, TensorRT-LLM's CUTLASS MoE kernels at DeepGEMM's
// published ratios, nothing fitted here) went from 46.8% to 18.6% mean with them, all rows from
// 37.1% to 34.3%. The Hopper gpt-oss rows state what TensorRT-LLM's Triton MoE backend runs there
// (MXFP4 weights, BF16 activations: inference.activation_precision) instead of fp8: 20B 41.4% ->
// 24.1%, 120B 48.5% -> 72.7% (the fp8 weights had left a single H200 almost no KV cache), all rows
// 20.3% -> 20.8% (docs/serving.md). Reported, not gated by an aim; the gate holds the measured means
// against regressions.
// These rows are not independent evidence (not_independent.json): the gates guard against
// regressions; nothing is to be tuned on them.
TEST(Validation, ServingTensorRtLlmPerfOverviewReported) {
  const std::vector<Case> all = run_file("serve_trtllm_perf.jsonl");
  const Stats s = report("Serving, TensorRT-LLM perf overview 2025 (serve_trtllm_perf.jsonl)", all, true);
  EXPECT_EQ(s.n, 123);
  std::vector<Case> dense, blackwell_dep, hopper_block;
  for (const Case& c : all) {
    if ((c.id.find("deepseek-r1_h") != std::string::npos ||
         c.id.find("qwen3-235b-a22b_h") != std::string::npos))
      hopper_block.push_back(c);
    if (c.group.find("Llama 3.3") != std::string::npos) dense.push_back(c);
    const bool large = c.group.find("DeepSeek") != std::string::npos ||
                       c.group.find("Maverick") != std::string::npos ||
                       c.group.find("235B") != std::string::npos;
    if (large && c.group.find("Blackwell") != std::string::npos) blackwell_dep.push_back(c);
  }
  const Stats d = report("Serving 2025: dense Llama 3.3 70B", dense, true);
  const Stats b = report("Serving 2025: DeepSeek R1, Llama 4 Maverick, Qwen3 235B on Blackwell (DEP)",
                         blackwell_dep, true);
  const Stats h =
      report("Serving 2025: block-scaled FP8 DeepSeek R1 and Qwen3 235B on Hopper (DEP)", hopper_block, true);
  EXPECT_EQ(h.n, 12);
  // The Python executor's per-request host time (the profile's step_overhead_us_per_request, 13.8 us
  // from TensorRT-LLM PR #11983) costs the dense rows a point (5.9% -> 7.0%: the Hopper ones go
  // -8%) and takes the rest down: all rows 34.3% -> 20.3%.
  EXPECT_LE(d.mean, 0.08);  // 7.0% measured (9.2% before FP8 context attention)
  EXPECT_LE(b.mean, 0.15);  // 13.0% (16.5% before the per-request host time)
  // 18.7%: 15.9% before pairwise all-to-alls paid one latency for all peers instead of one per
  // peer (these rows' all-to-all stands in for TensorRT-LLM's all-gather on HGX, docs/serving.md,
  // and its seven latencies were part of that stand-in); 18.6% before the per-request host time,
  // 46.8% before the CUTLASS block-scaled kernels.
  EXPECT_LE(h.mean, 0.19);
  EXPECT_LE(s.mean, 0.23);  // 20.8% (20.3% with gpt-oss on Hopper as fp8; 34.3% before it, 37.1% before the
                            // block-scaled kernels)
}

// Wide expert parallelism on SGLang (tests/validation/data/serve_sglang_large_ep.jsonl, collected for
// this repository from the LMSYS blogs of 2025-05-05 and 2025-09-25): DeepSeek-V3 on H100 nodes
// under attention data parallelism with DeepEP and DeepGEMM, prefill on 32 GPUs (EP32, 16,384
// tokens a device) and decode on 72 (EP72, 256 sequences a device), each phase measured alone,
// and DeepSeek V3/R1 decode on 48 GB200 of one NVL72 rack (NVFP4 experts, 1,408 a device). The
// first public check of the engine's attention-DP and wide expert exchange. The H100 runs used
// two-batch overlap, which the engine does not model; one decode row is the blog's own no-overlap
// figure (derived from its stated 25.5% speedup). Measured at this commit: prefill 40-45% slow,
// H100 decode 4% slow with the overlap and 17% fast without it, GB200 decode 5% fast, 25.5% mean
// (21.3% with the exchange at the mean rank's volume instead of the busiest's; 39.5% with a 16-bit
// dispatch). Nothing is fitted on them. Reported, not gated by an aim: the gate holds the mean
// against regressions.
TEST(Validation, ServingLargeEpReported) {
  const std::vector<Case> all = run_file("serve_sglang_large_ep.jsonl");
  const Stats s = report("Serving, wide EP on SGLang (serve_sglang_large_ep.jsonl)", all, true);
  EXPECT_EQ(s.n, 6);
  EXPECT_LE(s.mean, 0.27);  // 25.5%
}

// Linear attention served (tests/validation/data/serve_linear_attention.jsonl, collected for this
// repository from two SGLang pull requests of September 2025): Qwen3-Next-80B-A3B in bf16, closed
// loops of 8 clients on one H200 node at tp 2, 4 and 8 and of 32 on one H20 node at tp 4 and 8,
// 1,000 tokens in and 2,000 out. The first check of the engine's linear-attention layers and
// of SGLang's serving without the overlap scheduler for such models (linear_attention_overlap).
// Measured at this commit: 5.4% mean (-5.8, -4.7, -1.7, +4.9, +9.7%); with the overlap scheduler
// on, 23.8%. Nothing is fitted on them. Reported, not gated by an aim: the gate holds the mean
// against regressions.
TEST(Validation, ServingLinearAttentionReported) {
  const std::vector<Case> all = run_file("serve_linear_attention.jsonl");
  const Stats s = report("Serving, linear attention on SGLang (serve_linear_attention.jsonl)", all);
  EXPECT_EQ(s.n, 5);
  EXPECT_LE(s.mean, 0.07);  // 5.4%
}

// RL post-training (issue 40; tests/validation/data/rl_public.jsonl and rl_post_training.csv, copied
// from the shared validation data with their sources): verl's fully_async and one_step_off recipes on
// H20, OpenRLHF's PPO benchmark on A800 (as A100 80GB), AReaL v0.3 on H800 and MoonshotAI
// checkpoint-engine's weight-update times. 67 published numbers of 28 scenarios: step times and
// the phases that are published. Nothing is fitted on them. Each distinct scenario is predicted
// once. Measured at this commit (table printed; docs/rl.md): every row gives its maximum prompt
// and response lengths as whole numbers (their means are not published), which the engine reads
// as limits with assumed means (a fifth of the prompt limit; for the responses a quarter of the
// limit up to 1,024 tokens for a base or instruct policy, half of it up to 5,500 for a long
// chain-of-thought model, the step's longest cut at the limit; the update waits for the heaviest
// data-parallel rank); OpenRLHF's PPO rows too fast (DeepSpeed on
// Hugging Face models, costed as the fused default stack, and actor and critic each on their own GPUs there,
// not on the whole trainer pool). Reported, not gated by an aim: the gate holds every row predicted and the
// means against regressions.
TEST(Validation, RlPostTrainingReported) {
  const std::vector<Case> all = run_file("rl_public.jsonl");
  const Stats s = report("RL post-training, public rows (rl_public.jsonl)", all);
  EXPECT_EQ(s.n, 67);
  std::map<std::string, std::vector<Case>> by_metric;
  for (const Case& c : all) by_metric[c.id.substr(c.id.find(':') + 1)].push_back(c);
  for (const auto& [m, v] : by_metric) report("RL: " + m, v);
  std::vector<Case> openrlhf;
  for (const Case& c : all)
    if (c.group.find("OpenRLHF") != std::string::npos) openrlhf.push_back(c);
  const Stats sync = report("RL: weight sync", by_metric["rl.phases_s.weight_sync"]);
  const Stats orlhf = report("RL: OpenRLHF PPO", openrlhf);
  // 61.8% measured (checkpoint-engine 42.4%, verl 100.6%). verl's three rows are its sync
  // benchmark with no rollout workload and no trainer layout ("auto"): the 7B row's 0.02 s for
  // 15 GB is above any link's rate, and the searched trainer's shards (what the sync gathers) are
  // the engine's choice, not the run's. checkpoint-engine reads the weights from host memory
  // (docs/rl.md: weight_sync "host" brings its six rows to 8%).
  EXPECT_LE(sync.mean, 0.80);
  // 92.0%, every phase too fast: DeepSpeed-Chat's benchmark generates every response to its full
  // 1,024 tokens, where the rows state the limit only (docs/rl.md, Accuracy).
  EXPECT_LE(orlhf.mean, 0.95);
  // 41.7% (39.3% before the rollout tp was chosen as the fastest and a searched trainer weighed as
  // the step runs it: verl's 30B colocated rollout moved to tp 4, and the sync benchmarks above).
  EXPECT_LE(s.mean, 0.45);
}

// Uncertainty bands (issue 15). presets/uncertainty/bands.json holds, by regime, the 10th and
// 90th percentiles of ln(measured / predicted) (time sense) over every independent validation row
// (scripts/fit_uncertainty.py). Checked here: (1) the shipped bands, as the engine writes them
// into each prediction, hold about 80% of those rows; (2) out of sample, leaving each source out
// in turn (its rows' bands fitted on the other sources, with the same parent fallback below 8
// cases), 70-90% of the rows' measured values fall inside: what a user's unseen run should see.
// The unoptimised PyTorch baseline rows and the contradictory NeMo 13B rows are left out, as in
// the accuracy gates, and OpenRLHF's README benchmark rows, whose stack generates and trains in
// small batches padded to their longest sequence (scripts/fit_uncertainty.py says why). Rows that
// are not independent evidence (not_independent.json) fit no band and are printed on a line of
// their own. Measured at this commit: see the printed table and docs/accuracy.md.
struct Residual {
  std::string set, group, regime;
  double r = 0;  // ln(measured / predicted), time sense
  bool inside = false;
  double width = 0;         // high / low of the shipped band
  bool independent = true;  // not_independent.json: reported apart, fits no band
};

// Every data set the suite scores: its file, its title in docs/accuracy.md, and its row of the
// README's table. The band residuals and the accuracy report both read this list.
struct DataSet {
  std::string file, title, readme;
};
const std::vector<DataSet>& data_sets() {
  static const std::vector<DataSet> sets = {
      {"train_public.jsonl", "training iteration time, public",
       "Training step time: Megatron-LM on A100 (2021-22), NVIDIA DGX Cloud on H100"},
      {"train_heldout.jsonl", "training, held out (Nemotron-4)",
       "Training step time: Nemotron-4 340B pretraining, NeMo on 1,536-6,144 H100"},
      {"train_dgxc.jsonl", "training, DGX Cloud recipes v25.05",
       "Training step time: DGX Cloud recipes v25.05 (DeepSeek-V3, Grok-1, Llama, Nemotron)"},
      {"train_fsdp.jsonl", "training, PyTorch FSDP",
       "Training step time: PyTorch FSDP (llm-foundry, torchtitan)"},
      {"train_zero3.jsonl", "training, DeepSpeed ZeRO-3",
       "Training step time: DeepSpeed ZeRO-3 (the ZeRO++ evaluation's baseline, 384 V100)"},
      {"train_megatron_deepspeed.jsonl", "training, Megatron-DeepSpeed",
       "Training step time: Megatron-DeepSpeed (BLOOM topology benchmarks, MT-NLG)"},
      {"train_meta_llama3.jsonl", "training, Meta's Llama 3 stack",
       "Training step time: Meta's Llama 3 405B stack"},
      {"train_moe_public.jsonl", "MoE and fp4 training, public",
       "MoE and fp4 training: Megatron-Bridge and DGX Cloud, H100 to GB300"},
      {"memory_public.jsonl", "memory per GPU, public",
       "Memory per GPU: Korthikanti et al. 2022 (rows as published)"},
      {"infer_public.jsonl", "inference latency, public (optimised runtimes)",
       "Inference latency: FasterTransformer, TensorRT-LLM v0.5"},
      {"infer_heldout.jsonl", "inference, held out",
       "Inference latency: NeMo Framework, NIM, TensorRT-LLM's GPT-J blog, gpt-fast"},
      {"serve_public.jsonl", "serving, public", "Serving: TensorRT-LLM v0.14 online and v0.17 offline"},
      {"serve_trtllm_perf.jsonl", "serving, TensorRT-LLM 2025 perf overview",
       "Serving: TensorRT-LLM 2025 PyTorch backend, MoE and dense"},
      {"serve_inferencemax_public.jsonl", "serving, InferenceX DeepSeek-R1 on SGLang, public",
       "Serving: InferenceX DeepSeek-R1 on SGLang, B200 / H200 / MI355X"},
      {"serve_sglang_large_ep.jsonl", "serving, wide expert parallelism on SGLang",
       "Serving: DeepSeek prefill and decode under wide EP on H100 and GB200 (SGLang, DeepEP)"},
      {"serve_linear_attention.jsonl", "serving, linear attention on SGLang",
       "Serving: Qwen3-Next (Gated DeltaNet) on SGLang, H200 and H20"},
      {"whole_run.jsonl", "whole training runs (gated rows)",
       "Whole runs: days, GPU-hours, energy of published runs"},
      {"rl_public.jsonl", "RL post-training steps and phases, public",
       "RL post-training steps and phases: verl, OpenRLHF, AReaL, checkpoint-engine"},
  };
  return sets;
}

std::vector<Residual> residuals() {
  const std::set<std::string>& baseline = baseline_ids();
  std::vector<Residual> out;
  for (const DataSet& d : data_sets()) {
    const std::string& file = d.file;
    for (const Row& row : rows_of(file)) {
      const json &k = row.c, &p = row.p;
      const std::string id = k["id"];
      if (baseline.count(id.substr(0, id.find(':'))) ||
          k["group"].get<std::string>().find(", 13B") != std::string::npos || reported_only(k["group"]) ||
          k["group"].get<std::string>().rfind("OpenRLHF benchmark README", 0) == 0)
        continue;
      if (p.contains("error")) continue;
      const std::string m = k["metric"];
      const double predicted = metric(p, m), expected = k["expected"];
      const std::string last = m.substr(m.rfind('.') + 1);
      const bool rate = last == "tokens_per_s" || last == "throughput_tokens_per_s" ||
                        last == "output_tokens_per_s" || last == "output_tokens_per_s_per_gpu";
      Residual x;
      x.set = file;
      x.group = k["group"];
      x.independent = independent(file, x.group);
      x.r = std::log(expected / predicted) * (rate ? -1.0 : 1.0);
      const std::string head = m.substr(0, m.find('.'));
      if (head == "serving") {
        const std::string part = m.substr(8, m.find('.', 8) - 8);
        x.regime = p["regime"]["serving"].get<std::string>() + "/" +
                   (part.find("_per_s") != std::string::npos ? std::string("throughput")
                                                             : part.substr(0, part.size() - 2));
      } else if (head == "rl") {
        // An RL number's band regime, rl/<kind>/<placement> (core/uncertainty rl_band_regime).
        const std::string kind = last == "step_time_s" ? "step"
                                 : last == "reward" || last == "reference" || last == "old_logprob"
                                     ? "forward"
                                     : last;
        x.regime = optimus::rl_band_regime(kind, p["regime"]["rl"]);
      } else {
        x.regime = p["regime"][head];
      }
      if (p["uncertainty"].contains(m)) {
        const json& b = p["uncertainty"][m];
        x.inside = expected >= b["low"].get<double>() && expected <= b["high"].get<double>();
        x.width = b["high"].get<double>() / b["low"].get<double>();
      }
      out.push_back(x);
    }
  }
  return out;
}

// The split-conformal 80% interval of n residuals (scripts/fit_uncertainty.py): the k-th
// smallest and k-th largest, k = floor((n + 1) x 0.1), at least 1.
std::pair<double, double> conformal_bounds(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto k = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::floor(static_cast<double>(v.size() + 1) * 0.1 + 1e-12)));
  // A band always holds its own prediction (scripts/fit_uncertainty.py).
  return {std::min(v[k - 1], 0.0), std::max(v[v.size() - k], 0.0)};
}

// Whether residual x falls in the band of its regime fitted on `pool` (parents below 8 cases).
std::optional<bool> inside_band(const Residual& x, const std::vector<const Residual*>& pool) {
  for (std::string regime = x.regime; !regime.empty();) {
    std::vector<double> v;
    for (const Residual* y : pool)
      if (y->regime == regime || y->regime.rfind(regime + "/", 0) == 0) v.push_back(y->r);
    if (v.size() >= 8) {
      const auto [low, high] = conformal_bounds(v);
      return x.r >= low && x.r <= high;
    }
    const auto slash = regime.rfind('/');
    regime = slash == std::string::npos ? "" : regime.substr(0, slash);
  }
  return std::nullopt;
}

// For each residual, whether it falls in its regime's band fitted without its own source (its
// group), or nullopt where no band has enough rows.
std::vector<std::optional<bool>> inside_left_out(const std::vector<Residual>& all) {
  std::vector<std::optional<bool>> out;
  for (const Residual& x : all) {
    std::vector<const Residual*> others;
    for (const Residual& y : all)
      if (y.group != x.group && y.independent) others.push_back(&y);
    out.push_back(inside_band(x, others));
  }
  return out;
}

TEST(Validation, UncertaintyCoverage) {
  const std::vector<Residual> all = residuals();
  const std::vector<std::optional<bool>> left_out = inside_left_out(all);
  std::map<std::string, std::array<int, 4>> by_set;  // shipped n, inside; out-of-source n, inside
  std::map<std::string, std::vector<double>> widths;
  std::array<int, 4> total{};
  // Rows that are not independent evidence are shown on a line of their own, out of the totals.
  const std::string apart = "(not independent)";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Residual& x = all[i];
    const std::string& line = x.independent ? x.set : apart;
    auto& row = by_set[line];
    if (x.width > 0) {
      ++row[0];
      row[1] += x.inside;
      widths[line].push_back(x.width);
    }
    if (left_out[i]) {
      ++row[2];
      row[3] += *left_out[i];
    }
  }
  std::printf(
      "\nUncertainty bands (presets/uncertainty/bands.json): share of measured values inside the 80%% "
      "band\n");
  std::printf("%-26s %6s %9s %14s %10s\n", "data set", "cases", "shipped", "source left out", "median x");
  for (const auto& [set, n] : by_set) {
    if (set != apart)
      for (int i = 0; i < 4; ++i) total[static_cast<std::size_t>(i)] += n[static_cast<std::size_t>(i)];
    std::vector<double> w = widths[set];
    std::sort(w.begin(), w.end());
    std::printf("%-26s %6d %8.1f%% %13.1f%% %10.3f\n", set.c_str(), n[0], n[0] ? 100.0 * n[1] / n[0] : 0.0,
                n[2] ? 100.0 * n[3] / n[2] : 0.0, w.empty() ? 0.0 : w[w.size() / 2]);
  }
  const double shipped = static_cast<double>(total[1]) / total[0],
               loso = static_cast<double>(total[3]) / total[2];
  std::printf("%-26s %6d %8.1f%% %13.1f%%\n", "all", total[0], 100 * shipped, 100 * loso);
  // The independent held-out rows alone (few since not_independent.json), printed.
  const auto& th = by_set["train_heldout.jsonl"];
  const auto& ih = by_set["infer_heldout.jsonl"];
  std::printf("%-26s %6d %23.1f%%\n", "held out, source left out", th[2] + ih[2],
              100.0 * (th[3] + ih[3]) / std::max(1, th[2] + ih[2]));
  // The shipped bands are the quantiles of these residuals (stale after a model change: rerun
  // scripts/fit_uncertainty.py).
  const json bands = json::parse(optimus::preset_json("uncertainty", "bands"));
  for (const auto& [regime, b] : bands["regimes"].items()) {
    std::vector<double> v;
    for (const Residual& x : all)
      if (x.independent && (x.regime == regime || x.regime.rfind(regime + "/", 0) == 0)) v.push_back(x.r);
    EXPECT_EQ(static_cast<int>(v.size()), b["cases"].get<int>())
        << regime << ": run scripts/fit_uncertainty.py";
    if (v.empty()) continue;
    const auto [low, high] = conformal_bounds(v);
    EXPECT_NEAR(low, b["q_low"].get<double>(), 2e-6) << regime << ": run scripts/fit_uncertainty.py";
    EXPECT_NEAR(high, b["q_high"].get<double>(), 2e-6) << regime << ": run scripts/fit_uncertainty.py";
  }
  EXPECT_GT(total[0], 600);
  EXPECT_NEAR(shipped, 0.8, 0.05);
  // The issue's measure: every independent row, its band fitted without the row's own source.
  EXPECT_GE(loso, 0.70);
  EXPECT_LE(loso, 0.90);
}

// ---------------------------------------------------------------------------------------------
// docs/accuracy.md and the README's accuracy table, written from this suite's own results (issue
// 37): per data set and source, the error in sample (every constant as shipped, each fitted on
// whatever rows its script used) and left out (every constant that was fitted on the source's rows refitted
// here, on the other sources' rows alone, and the source's rows predicted by that), with the 80% band's
// coverage in and out of sample. The test fails when a committed table differs from what the suite measures
// (numbers compared to within a rounding step, so compilers and sanitizers agree); regenerate with
//   OPTIMUS_WRITE_ACCURACY=1 build/native/tests/optimus_validation_tests
//   --gtest_filter=Validation.AccuracyReport

json inline_preset(const json& v, const char* kind) {
  return v.is_string() ? json::parse(optimus::preset_json(kind, v.get<std::string>())) : v;
}

// One fitted constant of the presets, as the suite refits it. `pool`: the rows that may fit it
// (the rows its script fitted it on, and where stated other sources' rows of the same stack and
// device that it touches alike); `shipped_on`: whether a source's rows were in the fit that gave
// the shipped value (those sources get a left-out column); `apply` sets it in a scenario.
struct FittedConstant {
  std::string name, shipped, script;
  std::vector<std::string> files;
  std::function<bool(const Row&)> pool;
  std::function<bool(const std::string& group)> shipped_on;
  std::vector<double> grid;  // searched in order; ties go to the first
  double reference = 0;      // the value without the fit (a source that is the only one gets it)
  std::function<void(json& scenario, double value)> apply;
};

std::vector<double> grid_of(double from, double to, double step) {
  std::vector<double> g;
  for (int i = 0; from + i * step <= to + 1e-9; ++i) g.push_back(from + i * step);
  return g;
}

// A software profile's block lies over the system's, so a row that names a profile gets the trial
// value in the profile too.
void set_system_software(json& sc, const char* key, double v) {
  sc["system"] = inline_preset(sc["system"], "systems");
  sc["system"]["software"][key] = v;
  if (sc.contains("software")) {
    sc["software"] = inline_preset(sc["software"], "software");
    sc["software"]["software"][key] = v;
  }
}

std::string pool_regime(const Row& r, const char* head) {
  return r.p.contains("regime") && r.p["regime"].contains(head) ? r.p["regime"][head].get<std::string>() : "";
}

std::vector<FittedConstant> fitted_constants() {
  const auto on_system = [](const Row& r, const char* id) {
    return r.c["scenario"]["system"].is_string() && r.c["scenario"]["system"] == id;
  };
  const auto group_has = [](const Row& r, const char* text) {
    return r.c["group"].get<std::string>().find(text) != std::string::npos;
  };
  std::vector<FittedConstant> out;
  out.push_back({"software.launch_interval_us of the system presets (host time per inference kernel)",
                 "17 us",
                 "scripts/fit_launch_interval.py",
                 {"infer_public.jsonl"},
                 [](const Row& r) {
                   const std::string id = r.c["id"];
                   return !baseline_ids().count(id.substr(0, id.find(':')));
                 },
                 [](const std::string&) { return true; },
                 grid_of(0, 30, 1),
                 0,
                 [](json& sc, double v) { set_system_software(sc, "launch_interval_us", v); }});
  out.push_back(
      {"software.training_launch_interval_us (host time per MoE training operator; the further expert "
       "GEMMs at the measured 10 us)",
       "320 us",
       "scripts/fit_training_host.py --expert-us 10",
       {"train_moe_public.jsonl"},
       [](const Row& r) { return pool_regime(r, "training").find("/moe") != std::string::npos; },
       [](const std::string&) { return true; },
       grid_of(0, 500, 20),
       0,
       [](json& sc, double v) { set_system_software(sc, "training_launch_interval_us", v); }});
  out.push_back({"software.pipeline_sync_us of the A100 system presets (wait after a pipeline exchange)",
                 "1800 us",
                 "fitted on Korthikanti et al.'s pipelined rows (train_public.jsonl)",
                 {"train_public.jsonl"},
                 [on_system](const Row& r) {
                   const json& sc = r.c["scenario"];
                   // Korthikanti's rows alone: refitted on Narayanan's pipelined rows instead, the
                   // value runs to any grid's end (those rows absorb other errors into it).
                   return on_system(r, "dgx-a100-80gb") && sc["parallel"].value("pp", 1) > 1 &&
                          r.c["group"].get<std::string>().find("Korthikanti") != std::string::npos;
                 },
                 [](const std::string& g) { return g.find("Korthikanti") != std::string::npos; },
                 grid_of(0, 3000, 100),
                 0,
                 [](json& sc, double v) { set_system_software(sc, "pipeline_sync_us", v); }});
  const auto sustained = [](json& sc, double v) {
    sc["system"] = inline_preset(sc["system"], "systems");
    sc["system"]["device"] = inline_preset(sc["system"]["device"], "devices");
    sc["system"]["device"]["calibration"]["sustained_ratio"] = v;
  };
  out.push_back(
      {"calibration.sustained_ratio of the H100 device (also H200, H800)",
       "0.87",
       "fitted on the DGX Cloud v24.11.1 rows (train_public.jsonl)",
       {"train_public.jsonl"},
       [on_system, group_has](const Row& r) { return on_system(r, "dgx-h100") && group_has(r, "v24.11.1"); },
       [](const std::string& g) { return g.find("v24.11.1") != std::string::npos; },
       grid_of(0.7, 1.0, 0.01),
       1,
       sustained});
  out.push_back({"calibration.sustained_ratio of the GB200 device (also B200)",
                 "0.76",
                 "fitted on the dense fp8 / MXFP8 GB200 rows of Megatron-Bridge 26.02 and 26.02.01 "
                 "(train_moe_public.jsonl)",
                 {"train_moe_public.jsonl"},
                 [on_system](const Row& r) {
                   const json& sc = r.c["scenario"];
                   if (!on_system(r, "gb200-nvl72")) return false;
                   const json& m = sc["model"];
                   const std::string prec = sc["training"].value("precision", "");
                   return m.is_object() && !m.contains("moe") && (prec == "fp8" || prec == "mxfp8");
                 },
                 [](const std::string& g) {
                   return g.find("(26.02 NeMo") != std::string::npos ||
                          g.find("(26.02.01 NeMo") != std::string::npos;
                 },
                 grid_of(0.6, 1.0, 0.01),
                 1,
                 sustained});
  const auto share = [](json& sc, double v) {
    sc["software"] = inline_preset(sc["software"], "software");
    sc["software"]["software"]["training_matmul_share"] = v;
  };
  out.push_back({"training_matmul_share of the megatron-deepspeed profile",
                 "0.74",
                 "scripts/fit_stack_rate.py",
                 {"train_megatron_deepspeed.jsonl"},
                 [](const Row&) { return true; },
                 [](const std::string& g) { return g.find("BigScience") != std::string::npos; },
                 grid_of(0.5, 1.0, 0.01),
                 1,
                 share});
  out.back().grid = std::vector<double>(out.back().grid.rbegin(), out.back().grid.rend());  // ties: larger
  out.push_back({"training_matmul_share of the meta-llama3 profile",
                 "0.75",
                 "scripts/fit_stack_rate.py",
                 {"train_meta_llama3.jsonl"},
                 [](const Row&) { return true; },
                 [](const std::string&) { return true; },
                 {},
                 1,
                 share});
  out.back().grid = grid_of(0.5, 1.0, 0.01);
  std::reverse(out.back().grid.begin(), out.back().grid.end());
  // The FasterTransformer guide's tables: the shipped value was fitted on the public rows (the
  // guide's other tables in infer_heldout.jsonl are not independent and refit nothing).
  out.push_back({"inference_matmul_share of the fastertransformer profile",
                 "0.84",
                 "scripts/fit_inference_share.py",
                 {"infer_public.jsonl"},
                 [](const Row& r) {
                   const json& sw = r.c["scenario"].value("software", json());
                   const std::string id = r.c["id"];
                   return sw == "fastertransformer" && !baseline_ids().count(id.substr(0, id.find(':')));
                 },
                 [](const std::string& g) { return g == "FasterTransformer GPT guide"; },
                 grid_of(0.5, 1.0, 0.02),
                 1,
                 [](json& sc, double v) {
                   sc["software"] = inline_preset(sc["software"], "software");
                   sc["software"]["software"]["inference_matmul_share"] = v;
                 }});
  std::reverse(out.back().grid.begin(), out.back().grid.end());  // ties: the larger share
  // The single controller's rate: verl's two public sources (their weight-sync rows move no batch).
  out.push_back({"rl.controller_GBps (a single-controller RL trainer's driver moving the padded batch)",
                 "0.25 GB/s",
                 "scripts/fit_rl_controller.py",
                 {"rl_public.jsonl"},
                 [](const Row& r) {
                   const std::string g = r.c["group"], m = r.c["metric"];
                   return g.rfind("verl", 0) == 0 && m.find("weight_sync") == std::string::npos;
                 },
                 [](const std::string& g) { return g.rfind("verl", 0) == 0; },
                 grid_of(0.05, 1.0, 0.05),
                 0,
                 [](json& sc, double v) { sc["rl"]["controller_GBps"] = v; }});
  // Two host times fitted together on one source: the suite does not refit them (a grid of
  // factors on the defaults would be a second fit beside the script's); left out, both are 0.
  out.push_back(
      {"inference.serving.request_overhead_ms and step_overhead_ms (serving host times, fitted "
       "together), as a factor on their defaults",
       "1 (4 ms and 1.5 ms)",
       "scripts/fit_serving_overheads.py",
       {"serve_public.jsonl"},
       [](const Row& r) { return r.c["group"].get<std::string>().find("v0.14") != std::string::npos; },
       [](const std::string&) { return true; },
       {1},
       0,
       [](json& sc, double v) {
         if (v == 1) return;  // as shipped
         sc["inference"]["serving"]["request_overhead_ms"] = 0;
         sc["inference"]["serving"]["step_overhead_ms"] = 0;
       }});
  return out;
}

// A source's rows and errors: in sample, and left out where a constant was fitted on it.
struct SourceRows {
  std::vector<double> in, out;  // signed relative errors (a refused prediction: -1, a 100% miss)
  std::vector<std::string> constants;
};

double row_error(const json& c, const json& p) {
  if (p.contains("error")) return -1.0;
  return metric(p, c["metric"]) / c["expected"].get<double>() - 1.0;
}

// The rows the gates leave out (the unoptimised PyTorch baseline, the NeMo 13B rows that
// contradict their own table, the whole-run cards that include post-training) are left out here.
bool report_row(const json& c, const std::set<std::string>& baseline) {
  const std::string id = c["id"], group = c["group"];
  return !baseline.count(id.substr(0, id.find(':'))) && group.find(", 13B") == std::string::npos &&
         !reported_only(group);
}

struct RefitResult {
  std::string name, shipped, script, refit_all;
  std::map<std::string, std::string> held;  // source -> left-out value ("reference" when it was the only one)
};

// Refits `f` without each source it was fitted on; fills the left-out errors of `sources` (keyed
// by data set and group) for the pool's rows of those sources.
RefitResult refit(const FittedConstant& f, std::map<std::pair<std::string, std::string>, SourceRows>& sources,
                  std::map<const void*, double>& out_error) {
  struct PoolRow {
    const Row* row;
    std::string file, group;
    std::vector<double> err;  // per grid value
  };
  std::vector<PoolRow> pool;
  for (const std::string& file : f.files)
    for (const Row& r : rows_of(file))
      if (f.pool(r) && independent(file, r.c["group"]))
        pool.push_back({&r, file, r.c["group"].get<std::string>(), {}});
  std::vector<double> grid = f.grid;
  grid.push_back(f.reference);
  // A scenario met again (the TTFT, TPOT and throughput rows of one serving run, which follow each
  // other in the files) is predicted once per grid value, as rows_of() predicts it once; the
  // predictions of the scenario before are dropped.
  std::map<std::string, json> predicted;
  std::string scenario_before;
  for (PoolRow& x : pool) {
    if (std::string s = x.row->c["scenario"].dump(); s != scenario_before) {
      predicted.clear();
      scenario_before = std::move(s);
    }
    for (double v : grid) {
      json sc = x.row->c["scenario"];
      f.apply(sc, v);
      std::string text = sc.dump();
      auto it = predicted.find(text);
      if (it == predicted.end()) it = predicted.emplace(text, json::parse(optimus::api::predict(text))).first;
      x.err.push_back(row_error(x.row->c, it->second));
    }
  }
  const auto fit = [&](const std::function<bool(const PoolRow&)>& use) -> std::optional<std::size_t> {
    std::optional<std::size_t> best;
    double best_mean = 0;
    for (std::size_t g = 0; g + 1 < grid.size(); ++g) {
      double sum = 0;
      int n = 0;
      for (const PoolRow& x : pool)
        if (use(x)) {
          sum += std::fabs(x.err[g]);
          ++n;
        }
      if (n && (!best || sum / n < best_mean - 1e-12)) {
        best = g;
        best_mean = sum / n;
      }
    }
    return best;
  };
  const auto label = [&](std::size_t g) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", grid[g]);
    return std::string(buf);
  };
  RefitResult res{f.name, f.shipped, f.script, "", {}};
  if (const auto all = fit([](const PoolRow&) { return true; })) res.refit_all = label(*all);
  std::set<std::string> groups;
  for (const PoolRow& x : pool)
    if (f.shipped_on(x.group)) groups.insert(x.group);
  for (const std::string& g : groups) {
    const auto held = fit([&](const PoolRow& x) { return x.group != g; });
    const std::size_t k = held ? *held : grid.size() - 1;
    res.held[g] = held ? label(k) : label(k) + " (the only source: the value without the fit)";
    for (const PoolRow& x : pool)
      if (x.group == g) {
        out_error[x.row] = x.err[k];
        auto& s = sources[{x.file, g}];
        if (std::find(s.constants.begin(), s.constants.end(), f.name) == s.constants.end())
          s.constants.push_back(f.name);
      }
  }
  return res;
}

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

double mean_abs_value(const std::vector<double>& v) {
  double sum = 0;
  for (double e : v) sum += std::fabs(e);
  return sum / static_cast<double>(v.size());
}

std::string mean_max(const std::vector<double>& v) {
  if (v.empty()) return "| - | - ";
  double mx = 0;
  for (double e : v) mx = std::max(mx, std::fabs(e));
  return "| " + pct(mean_abs_value(v)) + " | " + pct(mx) + " ";
}

std::string share(const std::array<int, 4>& n, int at) {
  const int cases = n[static_cast<std::size_t>(at)], hit = n[static_cast<std::size_t>(at + 1)];
  return cases ? pct(static_cast<double>(hit) / cases) + " of " + std::to_string(cases) : "-";
}

// Numbers in `a` and `b` agree to within a rounding step, and the text around them is the same.
bool same_report(const std::string& a, const std::string& b) {
  const auto split = [](const std::string& s) {
    std::vector<std::string> text;
    std::vector<double> nums;
    std::string cur;
    for (std::size_t i = 0; i < s.size();) {
      if (std::isdigit(static_cast<unsigned char>(s[i]))) {
        // Digits with at most one decimal point (no sign, exponent or hex: text around them).
        std::size_t end = i;
        while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
        if (end + 1 < s.size() && s[end] == '.' && std::isdigit(static_cast<unsigned char>(s[end + 1]))) {
          ++end;
          while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
        }
        nums.push_back(std::stod(s.substr(i, end - i)));
        text.push_back(cur + "#");
        cur.clear();
        i = end;
      } else {
        cur += s[i++];
      }
    }
    text.push_back(cur);
    return std::make_pair(text, nums);
  };
  const auto [ta, na] = split(a);
  const auto [tb, nb] = split(b);
  if (ta != tb || na.size() != nb.size()) return false;
  for (std::size_t i = 0; i < na.size(); ++i)
    if (std::fabs(na[i] - nb[i]) > 0.15 + 1e-9) return false;
  return true;
}

std::string mean_abs(const std::vector<double>& v) { return v.empty() ? "-" : pct(mean_abs_value(v)); }

// A generated part of a committed file: the whole file (`begin` empty) or the lines between the
// marker lines `begin` and `end`. Written with OPTIMUS_WRITE_ACCURACY set; otherwise the committed
// text must agree with `text` to within a rounding step.
void write_or_check(const std::string& path, const std::string& text, const std::string& begin = "",
                    const std::string& end = "") {
  std::ifstream in(path);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t from = 0, to = file.size();
  if (!begin.empty()) {
    from = file.find(begin);
    to = from == std::string::npos ? from : file.find(end, from);
    ASSERT_NE(to, std::string::npos) << path << " lacks the marker lines\n" << begin << end;
    from += begin.size();
  }
  if (std::getenv("OPTIMUS_WRITE_ACCURACY")) {
    std::ofstream(path) << file.substr(0, from) + text + file.substr(to);
    std::printf("wrote %s\n", path.c_str());
    return;
  }
  EXPECT_TRUE(same_report(file.substr(from, to - from), text))
      << path << " is stale: OPTIMUS_WRITE_ACCURACY=1 optimus_validation_tests "
      << "--gtest_filter=Validation.AccuracyReport\n"
      << text;
}

TEST(Validation, AccuracyReport) {
  const std::set<std::string>& baseline = baseline_ids();
  const std::vector<DataSet>& sets = data_sets();

  std::map<std::pair<std::string, std::string>, SourceRows> sources;
  std::map<const void*, double> out_error;
  std::vector<RefitResult> refits;
  for (const FittedConstant& f : fitted_constants()) refits.push_back(refit(f, sources, out_error));
  for (const DataSet& d : sets)
    for (const Row& r : rows_of(d.file)) {
      if (!report_row(r.c, baseline)) continue;
      SourceRows& s = sources[{d.file, r.c["group"].get<std::string>()}];
      const double e = row_error(r.c, r.p);
      s.in.push_back(e);
      const auto it = out_error.find(&r);
      s.out.push_back(it == out_error.end() ? e : it->second);
    }
  // Band coverage per source: the shipped bands, and bands fitted without the row's own source.
  const std::vector<Residual> res = residuals();
  const std::vector<std::optional<bool>> left = inside_left_out(res);
  std::map<std::pair<std::string, std::string>, std::array<int, 4>> cover;
  std::map<std::string, std::array<int, 4>> cover_set;
  std::array<int, 4> cover_apart{};  // the rows that are not independent evidence
  for (std::size_t i = 0; i < res.size(); ++i) {
    for (auto* n :
         {&cover[{res[i].set, res[i].group}], res[i].independent ? &cover_set[res[i].set] : &cover_apart}) {
      if (res[i].width > 0) {
        ++(*n)[0];
        (*n)[1] += res[i].inside;
      }
      if (left[i]) {
        ++(*n)[2];
        (*n)[3] += *left[i];
      }
    }
  }

  std::string md =
      "# Accuracy, in sample and out of sample\n\n"
      "Written by the validation suite from its own predictions (`Validation.AccuracyReport` in\n"
      "`tests/validation/validation_test.cpp`); never edit it by hand. Regenerate after a change that moves\n"
      "predictions:\n\n"
      "    OPTIMUS_WRITE_ACCURACY=1 build/native/tests/optimus_validation_tests "
      "--gtest_filter=Validation.AccuracyReport\n\n"
      "The test fails when this file is stale.\n\n"
      "- **In sample**: every row predicted with the presets as shipped, whose fitted constants were fitted\n"
      "  on whatever rows their scripts used (some of them these).\n"
      "- **Left out**: the same, except that every constant below that was fitted on the source's own rows\n"
      "  is refitted here on the other sources' rows alone (a grid search of least mean error, as its\n"
      "  script does where there is one), and the source's rows are predicted with that value. A source\n"
      "  no constant was fitted on is out of sample already: both columns are equal. A constant fitted\n"
      "  on a single source falls back to the value the engine takes without the fit.\n"
      "- Error = |predicted / measured - 1|; a row the engine refuses counts as a 100% miss.\n"
      "- **Band**: the share of measured values inside the 80% uncertainty band, the shipped bands\n"
      "  (`presets/uncertainty/bands.json`) and bands fitted without the row's own source.\n"
      "- Left out of every column, as in the gates: the FasterTransformer guide's unoptimised PyTorch\n"
      "  baseline rows, the NeMo 13B rows that contradict their own table, the whole-run cards that include\n"
      "  post-training (`not gated`).\n"
      "- Counted apart (section \"Not independent evidence\"): the rows of\n"
      "  `tests/validation/data/not_independent.json`.\n\n"
      "Constants fitted on other data than these rows (the devices' matmul efficiencies on MAMF kernel\n"
      "sweeps, the collective and all-to-all terms on NCCL / DeepEP microbenchmarks) leave every row here\n"
      "out of sample; their own leave-one-sweep-out errors are printed by `scripts/fit_collectives.py`\n"
      "and `scripts/fit_all_to_all.py`. Where a refitted value is transferred to other presets (H100 to\n"
      "H200 and H800, GB200 to B200, the serving host times to the offline rows), only the pool's rows\n"
      "move with it here.\n\n"
      "## By data set\n\n"
      "| data set | rows | in sample mean | max | left out mean | max | band, shipped | band, source left "
      "out |\n"
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  // The README's table (issue 37: regenerated here, never edited by hand), out of sample first.
  std::string readme =
      "| workload: published sources | rows | out of sample | in sample | inside the 80% band, source "
      "left out |\n"
      "| --- | ---: | ---: | ---: | ---: |\n";
  std::vector<double> every_in, every_out;
  std::array<int, 4> cover_all{};
  for (const auto& [file, title, label] : sets) {
    std::vector<double> in, out;
    for (const auto& [key, s] : sources)
      if (key.first == file && independent(key.first, key.second)) {
        in.insert(in.end(), s.in.begin(), s.in.end());
        out.insert(out.end(), s.out.begin(), s.out.end());
      }
    if (in.empty()) continue;  // every source of the set is reported apart (not independent)
    const auto& c = cover_set[file];
    md += "| " + title + " (`" + file + "`) | " + std::to_string(in.size()) + " " + mean_max(in) +
          mean_max(out) + "| " + share(c, 0) + " | " + share(c, 2) + " |\n";
    readme += "| " + label + " | " + std::to_string(in.size()) + " | " + mean_abs(out) + " | " +
              mean_abs(in) + " | " + share(c, 2) + " |\n";
    every_in.insert(every_in.end(), in.begin(), in.end());
    every_out.insert(every_out.end(), out.begin(), out.end());
    for (std::size_t i = 0; i < 4; ++i) cover_all[i] += c[i];
  }
  md += "| every row above | " + std::to_string(every_in.size()) + " " + mean_max(every_in) +
        mean_max(every_out) + "| " + share(cover_all, 0) + " | " + share(cover_all, 2) + " |\n";
  readme += "| every row above | " + std::to_string(every_in.size()) + " | " + mean_abs(every_out) + " | " +
            mean_abs(every_in) + " | " + share(cover_all, 2) + " |\n";
  md += "\n## By source\n\n";
  const auto source_rows = [&](bool wanted, std::vector<double>* in, std::vector<double>* out) {
    std::string t;
    for (const auto& [file, title, label] : sets)
      for (const auto& [key, s] : sources) {
        if (key.first != file || s.in.empty() || independent(key.first, key.second) != wanted) continue;
        const auto& c = cover[key];
        t += "| `" + file + "` | " + key.second + (s.constants.empty() ? "" : " *") + " | " +
             std::to_string(s.in.size()) + " " + mean_max(s.in) + mean_max(s.out) + "| " + share(c, 0) +
             " | " + share(c, 2) + " |\n";
        if (in) in->insert(in->end(), s.in.begin(), s.in.end());
        if (out) out->insert(out->end(), s.out.begin(), s.out.end());
      }
    return t;
  };
  const std::string source_head =
      "| data set | source | rows | in sample mean | max | left out mean | max | band, shipped | band, left "
      "out |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  md += source_head + source_rows(true, nullptr, nullptr);
  std::vector<double> apart_in, apart_out;
  const std::string apart = source_rows(false, &apart_in, &apart_out);
  md +=
      "\n\\* a constant below was fitted on this source's rows.\n\n"
      "## Not independent evidence\n\n"
      "These rows are not counted above. Each source comes from a later version, or another table, of a\n"
      "document whose rows are already in the shared public data "
      "(`tests/validation/data/not_independent.json`\n"
      "names the document). Earlier sessions collected them as held out. They are probably part of the\n"
      "measurement withheld from the project on purpose, and some engine changes were chosen with them in\n"
      "view (the windowed layers' whole-context KV of the `tensorrt-llm-pytorch` profile, for one). No\n"
      "band, refitted constant or headline figure uses them; they stay as regression checks. The band\n"
      "columns show bands that were not fitted on them.\n\n" +
      source_head + apart + "| all of them | | " + std::to_string(apart_in.size()) + " " +
      mean_max(apart_in) + mean_max(apart_out) + "| " + share(cover_apart, 0) + " | " +
      share(cover_apart, 2) + " |\n" + "\n## Fitted constants, refitted without each source\n\n";
  readme +=
      "\nNot in the table: " + std::to_string(apart_in.size()) +
      " rows from later versions or other tables of documents whose public rows are in the shared data " +
      "(probably part of the measurement withheld from the project; some engine changes were chosen " +
      "with them in view): " + mean_abs(apart_in) + " off, " + share(cover_apart, 0) +
      " inside bands not fitted on them ([docs/accuracy.md](docs/accuracy.md#not-independent-evidence)).\n";
  for (const RefitResult& r : refits) {
    md += "- **" + r.name + "**: shipped " + r.shipped + " (" + r.script +
          "); refitted here on the whole pool: " + (r.refit_all.empty() ? "-" : r.refit_all) +
          ". Without each source it was fitted on:\n";
    for (const auto& [g, v] : r.held) md += "  - " + g + ": " + v + "\n";
  }

  write_or_check(std::string(OPTIMUS_DOCS_DIR) + "/accuracy.md", md);
  write_or_check(
      std::string(OPTIMUS_DOCS_DIR) + "/../README.md", readme,
      "<!-- accuracy table: written by Validation.AccuracyReport; regenerate it, never edit it -->\n",
      "<!-- end of the accuracy table -->\n");
}

// not_independent.json names groups by file and prefix: each entry must match rows (a typo would
// silently count a collection as independent again), 243 in all as docs/accuracy.md reports.
TEST(Validation, NotIndependentListNamesRowsThatExist) {
  std::ifstream in(std::string(OPTIMUS_VALIDATION_DIR) + "/not_independent.json");
  const json list = json::parse(in);
  int total = 0;
  for (const json& g : list["groups"]) {
    int n = 0;
    for (const Row& r : rows_of(g["file"].get<std::string>()))
      n += r.c["group"].get<std::string>().rfind(g["group_prefix"].get<std::string>(), 0) == 0;
    EXPECT_GT(n, 0) << g.dump();
    EXPECT_FALSE(g.value("public_part", "").empty()) << g.dump();
    total += n;
  }
  EXPECT_EQ(total, 243);
}

}  // namespace
