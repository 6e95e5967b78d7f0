// The paper's studies (core/study/study.h): each runs on the engine, has its documented
// columns and finite numbers, and shows the qualitative claims the engine reproduces.
#include "study/study.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "io/api.h"
#include "io/presets.h"
#include "io/study_io.h"

namespace study_test {

namespace {

using namespace optimus;
using json = nlohmann::json;

StudyTable run(const std::string& name) {
  auto t = run_study(name, io::embedded_preset_source());
  EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().code + " " + t.error().message);
  return t.ok() ? *t : StudyTable{};
}

bool finite_group(const StudyGroup& g) {
  for (const auto& [k, v] : g)
    if (!std::isfinite(v) || v < 0) return false;
  return true;
}

TEST(Studies, ListNamesTheStudies) {
  std::vector<std::string> names;
  for (const auto& s : study_list()) {
    names.push_back(s.name);
    EXPECT_FALSE(s.title.empty());
    EXPECT_FALSE(s.description.empty());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"memory-recompute", "gpu-generations", "technology-nodes",
                                      "matmul-boundedness", "memory-technology", "cheapest-accelerator"}));
}

// Every row has exactly the documented columns, in order; every number is finite and every
// group (breakdown) non-negative; columns marked with a unit of time, bytes or rate are positive.
TEST(Studies, RowsHaveTheDocumentedColumnsAndFiniteNumbers) {
  for (const auto& info : study_list()) {
    const StudyTable t = run(info.name);
    ASSERT_FALSE(t.rows.empty()) << info.name;
    EXPECT_EQ(t.info.name, info.name);
    EXPECT_FALSE(t.notes.empty()) << info.name;
    for (const auto& row : t.rows) {
      ASSERT_EQ(row.cells.size(), t.columns.size()) << info.name;
      for (std::size_t i = 0; i < t.columns.size(); ++i) {
        const auto& [key, value] = row.cells[i];
        EXPECT_EQ(key, t.columns[i].key) << info.name;
        if (const auto* x = std::get_if<double>(&value)) {
          EXPECT_TRUE(std::isfinite(*x)) << info.name << " " << key;
          EXPECT_GT(*x, 0) << info.name << " " << key;
        }
        if (const auto* g = std::get_if<StudyGroup>(&value)) {
          EXPECT_TRUE(finite_group(*g)) << info.name << key;
        }
      }
    }
  }
}

TEST(Studies, UnknownNameIsAnError) {
  auto t = run_study("nope", io::embedded_preset_source());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "study.unknown");
  EXPECT_EQ(t.error().path, "");
  const std::string out = api::study("nope");
  ASSERT_TRUE(api::is_error(out));
  EXPECT_EQ(json::parse(out)["error"]["code"], "study.unknown");
}

// Every study reads a description, presets/studies/<name>.json, and every description file
// belongs to a study; each says where it comes from.
TEST(Studies, EveryStudyHasItsDescriptionPreset) {
  std::set<std::string> names, files;
  for (const auto& s : study_list()) names.insert(s.name);
  for (const auto& p : list_presets("studies")) {
    files.insert(p.id);
    EXPECT_FALSE(p.name.empty()) << p.id;
    EXPECT_FALSE(p.source.empty()) << p.id;
  }
  EXPECT_EQ(names, files);
  const json listed = json::parse(api::presets("studies"));
  EXPECT_EQ(listed["studies"].size(), names.size());
  for (const auto& name : names) EXPECT_TRUE(study_preset(name, "").ok()) << name;
}

// A broken description is rejected with a code and the JSON Pointer of the offending key.
struct BrokenDescription {
  const char* test;
  const char* study;
  const char* pointer;  // the key changed (JSON Pointer into the description)
  json value;           // its new value; null removes it
  const char* code;
  const char* path;
};

class StudyDescriptions : public ::testing::TestWithParam<BrokenDescription> {};

TEST_P(StudyDescriptions, BrokenDescriptionIsRejectedWithCodeAndPath) {
  const BrokenDescription& c = GetParam();
  json d = json::parse(preset_json("studies", c.study));
  ASSERT_TRUE(io::read_study(c.study, d, "").ok()) << c.study;
  const json::json_pointer at(c.pointer);
  if (c.value.is_null())
    d[at.parent_pointer()].erase(at.back());
  else
    d[at] = c.value;
  auto r = io::read_study(c.study, d, "");
  ASSERT_FALSE(r.ok()) << c.test;
  EXPECT_EQ(r.error().code, c.code) << r.error().message;
  EXPECT_EQ(r.error().path, c.path) << r.error().message;
  EXPECT_FALSE(r.error().message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Studies, StudyDescriptions,
    ::testing::Values(BrokenDescription{"unknown_precision", "gpu-generations", "/rows/2/precision", "fp4",
                                        "scenario.invalid_value", "/rows/2/precision"},
                      BrokenDescription{"grid_not_array", "gpu-generations", "/grid/tp", 8,
                                        "scenario.wrong_type", "/grid/tp"},
                      BrokenDescription{"grid_fraction", "gpu-generations", "/grid/pp", json::array({1, 2.5}),
                                        "scenario.not_integer", "/grid/pp/1"},
                      BrokenDescription{"empty_layouts", "memory-recompute", "/layouts", json::array(),
                                        "scenario.out_of_range", "/layouts"},
                      BrokenDescription{"missing_model", "memory-recompute", "/layouts/1/model", nullptr,
                                        "scenario.missing_key", "/layouts/1/model"},
                      BrokenDescription{"unknown_recompute", "memory-recompute", "/recompute/1", "some",
                                        "scenario.invalid_value", "/recompute/1"},
                      BrokenDescription{"unknown_key", "technology-nodes", "/area_mm2", 826,
                                        "scenario.unknown_key", "/area_mm2"},
                      BrokenDescription{"budget_power", "technology-nodes", "/budget/power_W", -700,
                                        "scenario.out_of_range", "/budget/power_W"},
                      BrokenDescription{"layout_mismatch", "matmul-boundedness", "/parallel/tp", 3,
                                        "parallel.product_mismatch", "/parallel"},
                      BrokenDescription{"no_training", "technology-nodes", "/training", nullptr,
                                        "scenario.missing_key", "/training"},
                      BrokenDescription{"batch_twice", "matmul-boundedness", "/inference/batch", 4,
                                        "scenario.unknown_key", "/inference/batch"},
                      BrokenDescription{"batch_zero", "matmul-boundedness", "/batches/0", 0,
                                        "scenario.out_of_range", "/batches/0"},
                      BrokenDescription{"notes_not_text", "memory-technology", "/table_notes", "one line",
                                        "scenario.wrong_type", "/table_notes"},
                      BrokenDescription{"stacks_fraction", "memory-technology", "/dram_stacks", 4.5,
                                        "scenario.not_integer", "/dram_stacks"}),
    [](const auto& param_info) { return std::string(param_info.param.test); });

TEST(Studies, DescriptionOfNoStudyIsRejected) {
  auto r = io::read_study("nope", json::parse(preset_json("studies", "gpu-generations")), "/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "study.unknown");
  EXPECT_EQ(r.error().path, "/x");
  auto malformed = io::read_study("gpu-generations", json::array(), "");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().code, "scenario.wrong_type");
}

// A description that fails to load stops the study with that error, named after the study.
TEST(Studies, DescriptionErrorNamesTheStudy) {
  PresetSource ps = io::embedded_preset_source();
  ps.study = [](std::string_view) -> Result<StudyDescription> {
    return Error{"preset.malformed", "", "broken"};
  };
  auto t = run_study("memory-technology", ps);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "preset.malformed");
  EXPECT_EQ(t.error().message, "study memory-technology: broken");
}

TEST(Studies, JsonSurface) {
  const json list = json::parse(api::studies());
  ASSERT_EQ(list["studies"].size(), study_list().size());
  for (const auto& s : list["studies"]) {
    const json t = json::parse(api::study(s["name"].get<std::string>()));
    ASSERT_FALSE(t.contains("error")) << t.dump();
    EXPECT_EQ(t["study"], s["name"]);
    for (const char* k : {"title", "description", "columns", "units", "column_descriptions", "rows", "notes"})
      EXPECT_TRUE(t.contains(k)) << k;
    for (const auto& row : t["rows"])
      for (const auto& c : t["columns"]) EXPECT_TRUE(row.contains(c.get<std::string>())) << c;
  }
}

// Korthikanti et al. 2022 Figure 1 / Kundu et al.: recomputation trades activation memory;
// without it 175B, 530B and 1T exceed 80 GB, with selective recomputation all fit.
TEST(MemoryRecompute, RecomputationShrinksActivationsAndFitsTheLargeModels) {
  const StudyTable t = run("memory-recompute");
  ASSERT_EQ(t.rows.size(), 12u);
  std::map<std::string, std::map<std::string, const StudyRow*>> by;
  for (const auto& r : t.rows) by[r.text("model")][r.text("recompute")] = &r;
  for (const auto& [model, rc] : by) {
    const double none = rc.at("none")->number("activations_bytes");
    const double sel = rc.at("selective")->number("activations_bytes");
    const double full = rc.at("full")->number("activations_bytes");
    EXPECT_LT(full, sel) << model;
    EXPECT_LT(sel, none) << model;
    EXPECT_DOUBLE_EQ(rc.at("none")->number("weights_bytes"), rc.at("full")->number("weights_bytes"));
    for (const auto& [name, row] : rc) {
      const double sum = row->number("weights_bytes") + row->number("gradients_bytes") +
                         row->number("optimizer_bytes") + row->number("activations_bytes");
      EXPECT_NEAR(row->number("total_bytes"), sum, 1e-9 * sum);
      EXPECT_EQ(std::get<bool>(*row->find("fits")), sum <= row->number("capacity_bytes"));
    }
    EXPECT_TRUE(std::get<bool>(*rc.at("selective")->find("fits"))) << model;
    if (model != "megatron-22b") {
      EXPECT_FALSE(std::get<bool>(*rc.at("none")->find("fits"))) << model;
    }
  }
}

double group_sum(const StudyRow& r, const char* key) {
  double s = 0;
  for (const auto& [k, v] : std::get<StudyGroup>(*r.find(key))) s += v;
  return s;
}

TEST(GpuGenerations, NewerGpusAreFasterAndTheBreakdownAddsUp) {
  const StudyTable t = run("gpu-generations");
  ASSERT_GE(t.rows.size(), 6u);
  EXPECT_EQ(t.rows[0].text("label").rfind("A100", 0), 0u);
  EXPECT_DOUBLE_EQ(t.rows[0].number("normalized"), 1.0);
  double best_h100 = 0, best_b200 = 0;
  std::map<std::string, double> per_system_precision;  // "system precision batch" -> speedup
  for (const auto& r : t.rows) {
    const std::string label = r.text("label");
    EXPECT_TRUE(label.rfind("A100", 0) == 0 || label.rfind("H100", 0) == 0 || label.rfind("B200", 0) == 0)
        << label;
    EXPECT_NEAR(r.number("speedup") * r.number("normalized"), 1.0, 1e-12);
    // by_bound splits the whole iteration (predict.h BoundBreakdown).
    EXPECT_NEAR(group_sum(r, "breakdown_s"), r.number("iteration_time_s"),
                0.01 * r.number("iteration_time_s"))
        << label;
    if (label.rfind("A100", 0) != 0) {
      EXPECT_GT(r.number("speedup"), 1.0) << label;
    }
    if (label.rfind("H100", 0) == 0) best_h100 = std::max(best_h100, r.number("speedup"));
    if (label.rfind("B200", 0) == 0) best_b200 = std::max(best_b200, r.number("speedup"));
    per_system_precision[r.text("system") + " " + r.text("precision") + " " +
                         std::to_string(static_cast<int>(r.number("global_batch")))] = r.number("speedup");
  }
  EXPECT_GT(best_b200, best_h100);
  EXPECT_GT(per_system_precision.at("dgx-h100 fp8 1536"), per_system_precision.at("dgx-h100 bf16 1536"));
  EXPECT_GT(per_system_precision.at("dgx-b200 fp8 1536"), per_system_precision.at("dgx-b200 bf16 1536"));
  // The NVLink switch system beats InfiniBand at the same GPU, precision and batch.
  EXPECT_GT(per_system_precision.at("gb200-nvl72 fp8 1536"), per_system_precision.at("dgx-b200 fp8 1536"));
}

// The whole run priced per device-hour: cost = GPU-hours x price, GPU-hours = devices x elapsed
// hours, the elapsed time at least the steps' compute time (the iteration time x steps at the
// system's sustained share of the modelled rate) and within goodput 0.9 of it, and the row
// marked cheapest is the one with the lowest cost, at relative cost 1.
TEST(CheapestAccelerator, CostIsHoursTimesPriceAndTheCheapestIsMarked) {
  const StudyTable t = run("cheapest-accelerator");
  ASSERT_GE(t.rows.size(), 4u);
  double lowest = std::numeric_limits<double>::infinity();
  int marked = 0;
  const double steps = 15e12 / (2048.0 * 8192.0);
  for (const auto& r : t.rows) {
    const std::string label = r.text("label");
    EXPECT_NEAR(r.number("cost_usd"), r.number("gpu_hours") * r.number("usd_per_gpu_hour"),
                1e-9 * r.number("cost_usd"))
        << label;
    EXPECT_NEAR(r.number("gpu_hours"), 1024 * r.number("wall_days") * 24, 1e-6 * r.number("gpu_hours"))
        << label;
    // The steps at the system's sustained share of the modelled rate (operations.production_efficiency).
    const nlohmann::json sys = nlohmann::json::parse(optimus::api::preset("systems", r.text("system")));
    const double share = sys["operations"].value("production_efficiency", 1.0);
    const double compute_days = std::ceil(steps) * r.number("iteration_time_s") / share / 86400;
    EXPECT_GE(r.number("wall_days"), compute_days) << label;
    EXPECT_LT(r.number("wall_days"), 1.1 * compute_days) << label;  // 1024 devices: goodput above 0.9
    lowest = std::min(lowest, r.number("cost_usd"));
    marked += std::get<bool>(*r.find("cheapest")) ? 1 : 0;
  }
  EXPECT_EQ(marked, 1);
  for (const auto& r : t.rows) {
    EXPECT_NEAR(r.number("relative_cost"), r.number("cost_usd") / lowest, 1e-12);
    EXPECT_EQ(std::get<bool>(*r.find("cheapest")), r.number("cost_usd") == lowest);
  }
}

// A job of one's own runs in place of the study's: its model, devices and tokens reach every row
// (the note says which job; GPU-hours are its devices' and the steps its tokens'), a system that
// cannot hold it is named in a note rather than failing the table, and bad jobs get codes.
TEST(CheapestAccelerator, AJobOfOnesOwnReplacesTheStudys) {
  const json t = json::parse(optimus::api::study(
      "cheapest-accelerator", R"({"model": "llama3.1-8b", "num_devices": 64, "train_tokens": 1e12})"));
  ASSERT_TRUE(t.contains("rows")) << t.dump().substr(0, 300);
  ASSERT_GE(t["rows"].size(), 4u);
  EXPECT_NE(t["notes"][0].get<std::string>().find("Llama 3.1 8B, 1T tokens, seq 8192"), std::string::npos)
      << t["notes"][0];
  const double steps = std::ceil(1e12 / (2048.0 * 8192.0));
  for (const json& r : t["rows"]) {
    EXPECT_NEAR(r["gpu_hours"].get<double>(), 64 * r["wall_days"].get<double>() * 24,
                1e-6 * r["gpu_hours"].get<double>());
    EXPECT_GE(r["wall_days"].get<double>() * 86400, steps * r["iteration_time_s"].get<double>());
  }
  // Llama 3 405B on 8 GPUs fits no system's memory at any layout of the grid.
  const json none = json::parse(
      optimus::api::study("cheapest-accelerator", R"({"model": "llama3-405b", "num_devices": 8})"));
  EXPECT_EQ(none["error"]["code"], "study.no_feasible_layout") << none.dump().substr(0, 300);
  const auto code = [](const std::string& name, const std::string& job) {
    const json e = json::parse(optimus::api::study(name, job));
    return e.contains("error")
               ? e["error"]["code"].get<std::string>() + " " + e["error"]["path"].get<std::string>()
               : "none";
  };
  EXPECT_EQ(code("cheapest-accelerator", "{\"model\": "), "study.malformed_job ");
  EXPECT_EQ(code("cheapest-accelerator", R"({"model": "no-such-model"})"), "preset.unknown_model /model");
  EXPECT_EQ(code("cheapest-accelerator", R"({"num_devices": 0})"), "scenario.out_of_range /num_devices");
  EXPECT_EQ(code("cheapest-accelerator", R"({"gpus": 8})"), "scenario.unknown_key /gpus");
  EXPECT_EQ(code("gpu-generations", R"({"num_devices": 8})"), "study.job_not_supported ");
  EXPECT_EQ(code("gpu-generations", " "), "none");
}

// A MoE job's grid includes expert parallelism: the experts spread over the data-parallel ranks
// where that is fastest, the row's layout naming its ep (with the grid at ep 1 alone, every row of
// Qwen3-30B-A3B on 64 GPUs ran at ep 1), and no row left at a few percent of peak; a dense job
// stays at ep 1.
TEST(CheapestAccelerator, AMoeJobSpreadsItsExperts) {
  const json t = json::parse(optimus::api::study(
      "cheapest-accelerator", R"({"model": "qwen3-30b-a3b", "num_devices": 64, "train_tokens": 1e12})"));
  ASSERT_TRUE(t.contains("rows")) << t.dump().substr(0, 300);
  int spread = 0;
  for (const json& r : t["rows"]) {
    const std::string layout = r["layout"].get<std::string>();
    spread += layout.find(" ep") != std::string::npos ? 1 : 0;
    EXPECT_GT(r["mfu"].get<double>(), 0.15) << r["label"] << ": " << layout;
  }
  EXPECT_GE(spread, 4) << t.dump().substr(0, 600);
  const json dense = json::parse(optimus::api::study(
      "cheapest-accelerator", R"({"model": "llama3.1-8b", "num_devices": 64, "train_tokens": 1e12})"));
  for (const json& r : dense["rows"])
    EXPECT_EQ(r["layout"].get<std::string>().find(" ep"), std::string::npos);
}

// The engine's finding over nodes (reported next to the paper's in docs/studies.md): scaling
// everything together always speeds up, and exposed communication takes a growing share of
// the iteration (flat between 7 and 5 nm, where NVLink-class SerDes double with the logic,
// then rising to ~2.8x the 12 nm share at 1 nm); scaling logic alone makes the network the
// largest part from 5 nm on.
TEST(TechnologyNodes, ScalingSpeedsUpAndCommunicationShareGrows) {
  const StudyTable t = run("technology-nodes");
  ASSERT_EQ(t.rows.size(), 1u + 5u * 4u);
  double prev_time = 1e300, prev_comm_share = 0, first_comm_share = 0;
  for (const auto& r : t.rows) {
    const std::string bound = r.text("bound");
    EXPECT_TRUE(bound == "compute" || bound == "memory" || bound == "network") << bound;
    EXPECT_GE(r.number("speedup"), 1.0 - 1e-12) << r.number("node_nm") << r.text("scaling");
    if (r.text("scaling") != "all") continue;
    const double time = r.number("iteration_time_s");
    EXPECT_LT(time, prev_time * (1 + 1e-12)) << r.number("node_nm");
    double comm = 0;
    for (const auto& [k, v] : std::get<StudyGroup>(*r.find("breakdown_s")))
      if (k == "communication") comm = v;
    EXPECT_GT(comm / time, prev_comm_share - 0.01) << r.number("node_nm");
    if (first_comm_share == 0) first_comm_share = comm / time;
    prev_time = time;
    prev_comm_share = comm / time;
  }
  EXPECT_GT(prev_comm_share, 2.0 * first_comm_share);  // 1 nm vs the 12 nm baseline
  EXPECT_EQ(t.rows.front().text("bound"), "compute");  // the 12 nm baseline
  for (const auto& r : t.rows) {
    if (r.text("scaling") == "logic" && r.number("node_nm") <= 5) {
      EXPECT_EQ(r.text("bound"), "network") << r.number("node_nm");
    }
  }
}

TEST(MatmulBoundedness, DecodeGemvsMemoryBoundLargePrefillGemmsComputeBound) {
  const StudyTable t = run("matmul-boundedness");
  std::set<std::string> gpus;
  int decode = 0, prefill = 0;
  for (const auto& r : t.rows) {
    gpus.insert(r.text("gpu"));
    const std::string op = r.text("operator");
    const bool linear = op == "qkv_proj" || op == "attn_out_proj" || op == "mlp_up" || op == "mlp_down";
    if (r.text("phase") == "decode" && r.number("batch") == 1) {
      EXPECT_EQ(r.text("bound"), "memory") << r.text("gpu") << " " << op;
      EXPECT_LT(r.number("arithmetic_intensity"), r.number("ridge_intensity"));
      ++decode;
    }
    if (r.text("phase") == "prefill" && r.number("batch") == 64 && linear) {
      EXPECT_EQ(r.text("bound"), "compute") << r.text("gpu") << " " << op;
      EXPECT_GT(r.number("arithmetic_intensity"), r.number("ridge_intensity"));
      ++prefill;
    }
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"A100", "H100", "B200"}));
  EXPECT_EQ(decode, 3 * 6);
  EXPECT_EQ(prefill, 3 * 4);
}

TEST(MemoryTechnology, FasterDramLowersTimePerOutputToken) {
  const StudyTable t = run("memory-technology");
  ASSERT_EQ(t.rows.size(), 12u);
  for (std::size_t i = 1; i < t.rows.size(); ++i) {
    const StudyRow& a = t.rows[i - 1];
    const StudyRow& b = t.rows[i];
    if (a.number("batch") != b.number("batch")) continue;
    EXPECT_GT(b.number("bandwidth_GBps"), a.number("bandwidth_GBps"));
    EXPECT_LT(b.number("tpot_s"), a.number("tpot_s")) << b.text("dram");
  }
  // Over the whole span (HBM2 -> HBM4E) decode gains more from bandwidth than prefill does.
  for (std::size_t first = 0; first + 5 < t.rows.size(); first += 6) {
    const StudyRow& a = t.rows[first];
    const StudyRow& b = t.rows[first + 5];
    EXPECT_LT(b.number("tpot_s") / a.number("tpot_s"), b.number("ttft_s") / a.number("ttft_s"));
  }
}

}  // namespace

// The studies that report headline numbers of real systems carry their 80% bands (band_80,
// io/uncertainty.h): each band holds its column's value, and a source without bands gives an
// empty group, so every row keeps the documented columns.
TEST(Studies, HeadlineColumnsCarryTheirBands) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> studies = {
      {"gpu-generations", {"iteration_time_s", "tokens_per_s", "mfu"}},
      {"cheapest-accelerator", {"iteration_time_s", "wall_days", "gpu_hours", "energy_mwh", "cost_usd"}},
      {"memory-recompute", {"total_bytes"}}};
  for (const auto& study : studies) {
    const std::string& name = study.first;  // a plain reference: lambdas may capture it
    const std::vector<std::string>& columns = study.second;
    const StudyTable t = run(name);
    for (const StudyRow& row : t.rows) {
      const auto* g = std::get_if<StudyGroup>(row.find("band_80"));
      ASSERT_NE(g, nullptr) << name;
      auto entry = [&](const std::string& k) {
        for (const auto& [key, v] : *g)
          if (key == k) return v;
        ADD_FAILURE() << name << ": no " << k;
        return 0.0;
      };
      for (const std::string& c : columns) {
        EXPECT_LE(entry(c + ".low"), row.number(c)) << name << " " << c;
        EXPECT_GE(entry(c + ".high"), row.number(c)) << name << " " << c;
        EXPECT_LT(entry(c + ".low"), entry(c + ".high")) << name << " " << c;
      }
    }
  }
  PresetSource no_bands = io::embedded_preset_source();
  no_bands.band = nullptr;
  auto t = run_study("gpu-generations", no_bands);
  ASSERT_TRUE(t.ok());
  for (const StudyRow& row : t->rows) EXPECT_TRUE(std::get<StudyGroup>(*row.find("band_80")).empty());
}

}  // namespace study_test
