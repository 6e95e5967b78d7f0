#include "study/study.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace optimus {

const StudyValue* StudyRow::find(std::string_view key) const {
  for (const auto& [k, v] : cells)
    if (k == key) return &v;
  return nullptr;
}

double StudyRow::number(std::string_view key) const {
  const StudyValue* v = find(key);
  return v && std::holds_alternative<double>(*v) ? std::get<double>(*v) : 0.0;
}

std::string StudyRow::text(std::string_view key) const {
  const StudyValue* v = find(key);
  return v && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : std::string();
}

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

const char* recompute_name(Recompute r) {
  return r == Recompute::none ? "none" : r == Recompute::selective ? "selective" : "full";
}

std::string layout_name(const ParallelPlan& p) {
  std::string s = "tp" + std::to_string(p.tp) + " pp" + std::to_string(p.pp) + " dp" + std::to_string(p.dp) +
                  " mb" + std::to_string(p.micro_batch);
  if (p.interleave > 1) s += " v" + std::to_string(p.interleave);
  s += std::string(" ") + recompute_name(p.recompute);
  return s;
}

// Wraps an engine error with the study that hit it.
Error in_study(const char* study, const Error& e) {
  return Error{e.code, e.path, std::string("study ") + study + ": " + e.message};
}

TrainingWorkload gpt_training(std::int64_t global_batch, Precision precision) {
  TrainingWorkload w;
  w.global_batch = global_batch;
  w.seq_len = 2048;
  w.precision = precision;
  return w;
}

StudyGroup by_bound(const TrainingPrediction& t) {
  return {{"compute", t.by_bound.compute.value},
          {"memory", t.by_bound.memory.value},
          {"communication", t.by_bound.communication.value},
          {"other", t.by_bound.other.value}};
}

// ---------------------------------------------------------------------------------------
// memory-recompute: Korthikanti et al. 2022 (arXiv 2205.05198) Figure 1 and Table 3 layouts.

Result<StudyTable> memory_recompute(const PresetSource& ps) {
  StudyTable t;
  t.columns = {{"model", "", "model preset id"},
               {"layout", "", "tensor/pipeline/data parallel degrees, micro-batch, interleave"},
               {"recompute", "", "activation recomputation: none, selective (attention core) or full"},
               {"weights_bytes", "bytes", "16-bit weights on the most loaded device (first pipeline stage)"},
               {"gradients_bytes", "bytes", "gradients on that device"},
               {"optimizer_bytes", "bytes", "optimizer state (fp32 master weights and Adam moments)"},
               {"activations_bytes", "bytes", "activations kept for the backward pass"},
               {"total_bytes", "bytes", "sum of the above"},
               {"capacity_bytes", "bytes", "device memory (A100 80GB)"},
               {"fits", "", "total_bytes <= capacity_bytes"}};
  auto sys = ps.system("dgx-a100-80gb");
  if (!sys) return in_study("memory-recompute", sys.error());
  struct Case {
    const char* model;
    std::int64_t tp, pp, global_batch, interleave;
  };
  // Korthikanti et al. 2022 Table 3: 22B tp8 pp1; 175B tp8 pp8; 530B tp8 pp35; 1T tp8 pp64; no
  // data parallelism, global batch 4/64/280/512; interleaved schedule with 3 chunks for 175B
  // and 530B (their Sec. 6). Micro-batch 1 and sequence parallelism on for every row.
  const std::array<Case, 4> cases = {{{"megatron-22b", 8, 1, 4, 1},
                                      {"gpt3-175b", 8, 8, 64, 3},
                                      {"megatron-530b", 8, 35, 280, 3},
                                      {"megatron-1t", 8, 64, 512, 1}}};
  for (const Case& c : cases) {
    auto model = ps.model(c.model);
    if (!model) return in_study("memory-recompute", model.error());
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      Scenario s;
      s.name = std::string(c.model) + " " + recompute_name(rc);
      s.model = *model;
      s.system = *sys;
      s.num_devices = c.tp * c.pp;
      s.parallel.tp = c.tp;
      s.parallel.pp = c.pp;
      s.parallel.dp = 1;
      s.parallel.sequence_parallel = true;
      s.parallel.micro_batch = 1;
      s.parallel.interleave = c.interleave;
      s.parallel.recompute = rc;
      s.training = gpt_training(c.global_batch, Precision::bf16);
      auto p = predict(s);
      if (!p) return in_study("memory-recompute", p.error());
      const MemoryBreakdown& b = p->memory.per_device;
      StudyRow row;
      row.set("model", std::string(c.model));
      row.set("layout", layout_name(s.parallel));
      row.set("recompute", std::string(recompute_name(rc)));
      row.set("weights_bytes", b.weights.value);
      row.set("gradients_bytes", b.gradients.value);
      row.set("optimizer_bytes", b.optimizer.value);
      row.set("activations_bytes", b.activations.value);
      row.set("total_bytes", b.total().value);
      row.set("capacity_bytes", p->memory.capacity.value);
      row.set("fits", p->memory.fits);
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = {
      "Layouts of Korthikanti et al. 2022 Table 3 (interleave 3 for 175B and 530B), sequence "
      "parallelism on, micro-batch 1, bf16, seq 2048, no ZeRO, on DGX A100 80GB; memory of the "
      "first pipeline stage, which also holds the embedding.",
      "Paper's statement (Kundu et al. Fig. 6 after Korthikanti et al. Fig. 1): without "
      "recomputation the larger models exceed the 80 GB line; selective recomputation brings "
      "them under it at a fraction of full recomputation's cost."};
  return t;
}

// ---------------------------------------------------------------------------------------
// gpu-generations: GPT-3 175B training on 1024 GPUs of each generation.

struct Best {
  std::optional<Scenario> scenario;
  std::optional<Prediction> prediction;
  std::int64_t evaluated = 0;
};

// The fastest of a small grid of Megatron layouts that fits in device memory (a fair layout
// per system rather than one layout tuned to one GPU). Grid: tp 2/4/8, pp 1-16, micro-batch
// 1/2/4, interleave 1/2, recompute none/selective/full, distributed optimizer (ZeRO-1).
Best best_layout(const Scenario& base) {
  Best best;
  double best_time = std::numeric_limits<double>::infinity();
  for (std::int64_t tp : {2, 4, 8})
    for (std::int64_t pp : {1, 2, 4, 8, 16})
      for (std::int64_t mb : {1, 2, 4})
        for (std::int64_t v : {1, 2})
          for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
            if (base.num_devices % (tp * pp) != 0 || (v > 1 && pp == 1)) continue;
            Scenario s = base;
            s.parallel.tp = tp;
            s.parallel.pp = pp;
            s.parallel.dp = base.num_devices / (tp * pp);
            s.parallel.micro_batch = mb;
            s.parallel.interleave = v;
            s.parallel.recompute = rc;
            s.parallel.sequence_parallel = tp > 1;
            s.parallel.zero_stage = 1;
            auto p = predict(s);
            ++best.evaluated;
            if (!p || !p->memory.fits) continue;
            const double time = p->training->iteration_time.value;
            if (time < best_time) {
              best_time = time;
              best.scenario = s;
              best.prediction = *p;
            }
          }
  return best;
}

Result<StudyTable> gpu_generations(const PresetSource& ps) {
  StudyTable t;
  t.columns = {{"label", "", "GPU, system (scale-out network), precision, global batch"},
               {"system", "", "system preset id"},
               {"precision", "", "training math precision"},
               {"global_batch", "sequences", "sequences per iteration (seq 2048)"},
               {"layout", "", "fastest layout of the grid that fits in memory"},
               {"iteration_time_s", "s", "one optimizer step"},
               {"tokens_per_s", "tokens/s", "whole job"},
               {"normalized", "", "time per token relative to the A100 row (A100 = 1, lower is faster)"},
               {"speedup", "", "throughput relative to the A100 row (1 / normalized)"},
               {"breakdown_s", "s",
                "per iteration: compute-bound kernels, memory-bound kernels, exposed communication, other "
                "(pipeline bubble + optimizer step)"},
               {"mfu", "", "model FLOPs utilisation against the precision's dense peak"}};
  struct Case {
    const char* label;
    const char* system;
    Precision precision;
    std::int64_t global_batch;
  };
  const std::array<Case, 9> cases = {{
      {"A100 80GB, DGX A100 (HDR InfiniBand), bf16, batch 1536", "dgx-a100-80gb", Precision::bf16, 1536},
      {"H100, DGX H100 (NDR InfiniBand), bf16, batch 1536", "dgx-h100", Precision::bf16, 1536},
      {"H100, DGX H100 (NDR InfiniBand), fp8, batch 1536", "dgx-h100", Precision::fp8, 1536},
      {"B200, DGX B200 (NDR InfiniBand), bf16, batch 1536", "dgx-b200", Precision::bf16, 1536},
      {"B200, DGX B200 (NDR InfiniBand), fp8, batch 1536", "dgx-b200", Precision::fp8, 1536},
      {"B200, GB200 NVL72 (NVLink switch), fp8, batch 1536", "gb200-nvl72", Precision::fp8, 1536},
      {"H100, DGX H100 (NDR InfiniBand), fp8, batch 4608", "dgx-h100", Precision::fp8, 4608},
      {"B200, DGX B200 (NDR InfiniBand), fp8, batch 4608", "dgx-b200", Precision::fp8, 4608},
      {"B200, GB200 NVL72 (NVLink switch), fp8, batch 4608", "gb200-nvl72", Precision::fp8, 4608},
  }};
  auto model = ps.model("gpt3-175b");
  if (!model) return in_study("gpu-generations", model.error());
  double a100_per_token = 0;
  std::int64_t evaluated = 0;
  for (const Case& c : cases) {
    auto sys = ps.system(c.system);
    if (!sys) return in_study("gpu-generations", sys.error());
    Scenario base;
    base.name = c.label;
    base.model = *model;
    base.system = *sys;
    base.num_devices = 1024;
    base.training = gpt_training(c.global_batch, c.precision);
    const Best best = best_layout(base);
    evaluated += best.evaluated;
    if (!best.prediction)
      return Error{"study.no_feasible_layout", "",
                   std::string("study gpu-generations: no layout of the grid fits for ") + c.label};
    const TrainingPrediction& tr = *best.prediction->training;
    const double per_token = tr.iteration_time.value / (d(c.global_batch) * 2048.0);
    if (a100_per_token == 0) a100_per_token = per_token;
    StudyRow row;
    row.set("label", std::string(c.label));
    row.set("system", std::string(c.system));
    row.set("precision", std::string(to_string(c.precision)));
    row.set("global_batch", d(c.global_batch));
    row.set("layout", layout_name(best.scenario->parallel));
    row.set("iteration_time_s", tr.iteration_time.value);
    row.set("tokens_per_s", tr.tokens_per_s);
    row.set("normalized", per_token / a100_per_token);
    row.set("speedup", a100_per_token / per_token);
    row.set("breakdown_s", by_bound(tr));
    row.set("mfu", tr.mfu);
    t.rows.push_back(std::move(row));
  }
  t.notes = {
      "GPT-3 175B, seq 2048, 1024 GPUs per row; each row uses the fastest layout of a grid (tp 2/4/8, pp "
      "1-16, micro-batch 1/2/4, interleave 1/2, recompute none/selective/full, distributed optimizer) that "
      "fits in device memory: " +
          std::to_string(evaluated) + " predictions in all.",
      "Paper's statement (Kundu et al. 2024, Fig. 8): about 35x from A100 to B200, in a setting that "
      "includes fp8/fp4-class precision and larger batches on B200. This engine has no fp4 training "
      "precision; its best B200 rows use fp8. Compare the speedup column with 35x.",
      "breakdown_s splits the iteration the paper's way (TrainingPrediction::by_bound): kernels bound by "
      "compute, kernels bound by memory, exposed communication, and other = pipeline bubble + "
      "optimizer step."};
  return t;
}

// ---------------------------------------------------------------------------------------
// technology-nodes: one chip budget swept over nodes, scaling logic, memory, network
// separately and together (Kundu et al. 2024, Sec. IV-C design-space exploration).

constexpr double kTechArea = 826;   // mm^2, an A100/H100-size die
constexpr double kTechPower = 700;  // W, an H100-class device power

Result<StudyTable> technology_nodes(const PresetSource& ps) {
  StudyTable t;
  t.columns = {
      {"node_nm", "nm", "technology node of the scaled component(s)"},
      {"scaling", "",
       "what moves to node_nm: logic (compute + SRAM), memory (DRAM generation), "
       "network (SerDes), all; the rest stays at the 12 nm baseline"},
      {"frequency_GHz", "GHz", "clock the power solve settled on"},
      {"peak_tflops", "TFLOP/s", "derived device's dense bf16 peak"},
      {"dram_stacks", "", "DRAM stacks on the die edge"},
      {"hbm_bandwidth_GBps", "GB/s", "derived device's DRAM bandwidth"},
      {"scale_up_GBps", "GB/s", "derived scale-up link bandwidth per device per direction"},
      {"iteration_time_s", "s", "GPT-3 175B iteration on 1024 derived devices"},
      {"speedup", "", "12 nm baseline iteration time / this row's"},
      {"breakdown_s", "s", "compute-bound kernels, memory-bound kernels, exposed communication, other"},
      {"bound", "", "largest of breakdown_s compute / memory / communication: compute, memory or network"},
      {"fits", "", "training memory fits the derived device"}};
  auto model = ps.model("gpt3-175b");
  if (!model) return in_study("technology-nodes", model.error());
  const std::array<const char*, 6> ids = {"12nm", "7nm", "5nm", "3nm", "2nm", "1nm"};
  std::vector<TechnologyNode> nodes;
  std::vector<DramTechnology> drams;
  for (const char* id : ids) {
    auto n = ps.technology(id);
    if (!n) return in_study("technology-nodes", n.error());
    auto dr = ps.dram(n->dram);
    if (!dr) return in_study("technology-nodes", dr.error());
    nodes.push_back(*n);
    drams.push_back(*dr);
  }
  UarchBudget budget;
  budget.area_mm2 = kTechArea;
  budget.power_w = kTechPower;
  const TechnologyNode& base = nodes[0];
  double baseline_time = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const char* scaling : {"logic", "memory", "network", "all"}) {
      const std::string sc = scaling;
      if (i == 0 && sc != "all") continue;  // at the baseline node all four are the same chip
      TechnologyNode node = base;
      DramTechnology dram = drams[0];
      if (sc == "logic" || sc == "all") {
        const TechnologyNode& n = nodes[i];
        node.logic_density_mtr_per_mm2 = n.logic_density_mtr_per_mm2;
        node.energy_pj_per_flop = n.energy_pj_per_flop;
        node.nominal_voltage = n.nominal_voltage;
        node.threshold_voltage = n.threshold_voltage;
        node.min_voltage = n.min_voltage;
        node.max_voltage = n.max_voltage;
        node.nominal_frequency_hz = n.nominal_frequency_hz;
        node.static_fraction = n.static_fraction;
        node.unit_flops_per_cycle = n.unit_flops_per_cycle;
        node.sram_mib_per_mm2 = n.sram_mib_per_mm2;
        node.sram_energy_pj_per_byte = n.sram_energy_pj_per_byte;
      }
      if (sc == "memory" || sc == "all") dram = drams[i];
      if (sc == "network" || sc == "all") {
        node.serdes_lane_gbps = nodes[i].serdes_lane_gbps;
        node.serdes_lanes_per_mm = nodes[i].serdes_lanes_per_mm;
        node.serdes_energy_pj_per_bit = nodes[i].serdes_energy_pj_per_bit;
      }
      node.id = base.id + "+" + sc + "@" + nodes[i].id;
      node.name = nodes[i].name + " " + sc;
      auto der = derive_device(node, dram, budget);
      if (!der) return in_study("technology-nodes", der.error());
      Scenario s;
      s.name = "GPT-3 175B on " + der->device.name;
      s.model = *model;
      s.system = derived_system(*der, budget);
      s.num_devices = 1024;
      s.parallel.tp = 8;
      s.parallel.pp = 8;
      s.parallel.dp = 16;
      s.parallel.sequence_parallel = true;
      s.parallel.micro_batch = 1;
      s.parallel.recompute = Recompute::selective;
      s.parallel.zero_stage = 1;
      s.training = gpt_training(1536, Precision::bf16);
      auto p = predict(s);
      if (!p) return in_study("technology-nodes", p.error());
      const TrainingPrediction& tr = *p->training;
      if (baseline_time == 0) baseline_time = tr.iteration_time.value;
      const double c = tr.by_bound.compute.value, m = tr.by_bound.memory.value,
                   n = tr.by_bound.communication.value;
      const char* bound = (c >= m && c >= n) ? "compute" : (m >= n ? "memory" : "network");
      StudyRow row;
      row.set("node_nm", nodes[i].node_nm);
      row.set("scaling", sc);
      row.set("frequency_GHz", der->frequency_hz / 1e9);
      row.set("peak_tflops", der->device.peak_for(Precision::bf16).value / kTera);
      row.set("dram_stacks", d(der->dram_stacks));
      row.set("hbm_bandwidth_GBps", der->device.hbm_bandwidth.value / kGB);
      row.set("scale_up_GBps", der->scale_up_bandwidth.value / kGB);
      row.set("iteration_time_s", tr.iteration_time.value);
      row.set("speedup", baseline_time / tr.iteration_time.value);
      row.set("breakdown_s", by_bound(tr));
      row.set("bound", std::string(bound));
      row.set("fits", p->memory.fits);
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = {
      "Chip budget fixed at 826 mm^2 and 700 W (uArch engine defaults for the area, edge and power "
      "split); devices derived from presets/technology and presets/dram; 8-device scale-up domains. "
      "Workload: GPT-3 175B, 1024 devices, tp8 pp8 dp16, micro-batch 1, selective recompute, "
      "distributed optimizer, global batch 1536, bf16, seq 2048 (one layout for every row, so rows "
      "differ only in hardware).",
      "Paper's statement (Kundu et al. 2024, Sec. IV-C): scaling the nodes moves the bottleneck from "
      "compute to memory to interconnect. The bound column is what this engine finds; it is not "
      "forced to agree."};
  return t;
}

// The inference scenario both hardware studies below use: Llama 2 70B, tensor parallel over 8
// devices, fp16, prompt 1024, 256 output tokens. Graph replay (cuda_graphs): the studies compare
// hardware, so no host launch bound may hide it.
Scenario llama2_70b_tp8_inference(std::string name, const ModelSpec& model, const SystemSpec& system,
                                  std::int64_t batch) {
  Scenario s;
  s.name = std::move(name);
  s.model = model;
  s.system = system;
  s.num_devices = 8;
  s.parallel.tp = 8;
  InferenceWorkload w;
  w.batch = batch;
  w.prompt_len = 1024;
  w.output_len = 256;
  w.precision = Precision::fp16;
  w.kv_precision = Precision::fp16;
  w.cuda_graphs = true;
  s.inference = w;
  return s;
}

// ---------------------------------------------------------------------------------------
// matmul-boundedness: each prefill and decode matrix multiply, compute- or memory-bound.

bool is_matmul(const std::string& name) {
  return name == "qkv_proj" || name == "attention" || name == "attn_out_proj" || name == "mlp_up" ||
         name == "mlp_down" || name == "lm_head";
}

Result<StudyTable> matmul_boundedness(const PresetSource& ps) {
  StudyTable t;
  t.columns = {{"gpu", "", "device of the system"},
               {"batch", "sequences", "inference batch"},
               {"phase", "", "prefill (prompt) or decode (one token per sequence)"},
               {"operator", "", "matrix multiply of one layer (attention = QK^T and PV), or the LM head"},
               {"flops", "FLOP", "per device, one execution"},
               {"bytes", "bytes", "DRAM traffic per device, one execution"},
               {"arithmetic_intensity", "FLOP/byte", "flops / bytes"},
               {"ridge_intensity", "FLOP/byte", "device's 16-bit peak / DRAM bandwidth"},
               {"time_s", "s", "roofline time of one execution"},
               {"bound", "", "binding roof: compute, memory or l2"}};
  auto model = ps.model("llama2-70b");
  if (!model) return in_study("matmul-boundedness", model.error());
  struct Gpu {
    const char* label;
    const char* system;
  };
  const std::array<Gpu, 3> gpus = {{{"A100", "dgx-a100-80gb"}, {"H100", "dgx-h100"}, {"B200", "dgx-b200"}}};
  for (const Gpu& g : gpus) {
    auto sys = ps.system(g.system);
    if (!sys) return in_study("matmul-boundedness", sys.error());
    const DeviceSpec& dev = sys->device;
    const double ridge = dev.peak_for(Precision::fp16).value / dev.hbm_bandwidth.value;
    for (std::int64_t batch : {1, 64}) {
      const Scenario s =
          llama2_70b_tp8_inference(std::string("Llama 2 70B on 8 ") + g.label, *model, *sys, batch);
      auto p = predict(s);
      if (!p) return in_study("matmul-boundedness", p.error());
      for (const OperatorReport& op : p->inference->operators) {
        if (!is_matmul(op.name)) continue;
        StudyRow row;
        row.set("gpu", std::string(g.label));
        row.set("batch", d(batch));
        row.set("phase", op.phase);
        row.set("operator", op.name);
        row.set("flops", op.flops);
        row.set("bytes", op.bytes);
        row.set("arithmetic_intensity", op.intensity);
        row.set("ridge_intensity", ridge);
        row.set("time_s", op.time.value);
        row.set("bound", std::string(to_string(op.bound)));
        t.rows.push_back(std::move(row));
      }
    }
  }
  t.notes = {
      "Llama 2 70B, tensor parallel over 8 GPUs (per-device shapes), fp16, prompt 1024, decode "
      "operators at the middle of 256 output tokens; batch 1 and 64.",
      "Paper's statement (Kundu et al. 2024, Sec. V): prefill GEMMs are compute-bound, decode GEMVs "
      "memory-bound; a larger batch raises the decode intensity towards the ridge point."};
  return t;
}

// ---------------------------------------------------------------------------------------
// memory-technology: decode latency as the DRAM generation changes under a fixed device.

Result<StudyTable> memory_technology(const PresetSource& ps) {
  StudyTable t;
  t.columns = {{"dram", "", "DRAM generation (presets/dram id)"},
               {"batch", "sequences", "inference batch"},
               {"bandwidth_GBps", "GB/s", "device DRAM bandwidth: stacks x the generation's per-stack rate"},
               {"capacity_GiB", "GiB", "device DRAM capacity"},
               {"tpot_s", "s", "time per output token"},
               {"ttft_s", "s", "time to first token"},
               {"speedup_tpot", "", "tpot of the first generation (HBM2) / this row's"}};
  auto model = ps.model("llama2-70b");
  if (!model) return in_study("memory-technology", model.error());
  auto sys = ps.system("dgx-h100");
  if (!sys) return in_study("memory-technology", sys.error());
  constexpr std::int64_t kStacks = 5;  // the H100 SXM5's active HBM stacks
  const std::array<const char*, 6> gens = {"hbm2", "hbm2e", "hbm3", "hbm3e", "hbm4", "hbm4e"};
  for (std::int64_t batch : {1, 32}) {
    double first_tpot = 0;
    for (const char* g : gens) {
      auto dram = ps.dram(g);
      if (!dram) return in_study("memory-technology", dram.error());
      SystemSpec with_dram = *sys;
      with_dram.device.hbm_bandwidth = dram->stack_bandwidth * static_cast<double>(kStacks);
      with_dram.device.hbm_capacity = dram->stack_capacity * static_cast<double>(kStacks);
      with_dram.device.name += std::string(" with ") + dram->name;
      const Scenario s = llama2_70b_tp8_inference(std::string("Llama 2 70B on 8 H100 with ") + dram->name,
                                                  *model, with_dram, batch);
      auto p = predict(s);
      if (!p) return in_study("memory-technology", p.error());
      const InferencePrediction& inf = *p->inference;
      if (first_tpot == 0) first_tpot = inf.tpot.value;
      StudyRow row;
      row.set("dram", std::string(g));
      row.set("batch", d(batch));
      row.set("bandwidth_GBps", s.system.device.hbm_bandwidth.value / kGB);
      row.set("capacity_GiB", s.system.device.hbm_capacity.value / kGiB);
      row.set("tpot_s", inf.tpot.value);
      row.set("ttft_s", inf.ttft.value);
      row.set("speedup_tpot", first_tpot / inf.tpot.value);
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = {
      "H100 SXM5 compute, L2 and links (dgx-h100) with 5 DRAM stacks of each generation at its rated "
      "per-stack rate (presets/dram); Llama 2 70B, tp8, fp16, prompt 1024, 256 output tokens.",
      "Paper's statement (Kundu et al. 2024, Sec. V): decode is memory-bound, so newer DRAM "
      "generations cut the time per output token; prefill (ttft) changes little."};
  return t;
}

struct Entry {
  StudyInfo info;
  Result<StudyTable> (*run)(const PresetSource&);
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> list = {
      {{"memory-recompute", "Memory breakdown under activation recomputation",
        "Weights, gradients, optimizer state and activations per GPU for GPT 22B, 175B, 530B and 1T on A100 "
        "80GB with no, selective and full recomputation (Korthikanti et al. 2022 layouts), against the "
        "80 GB line."},
       memory_recompute},
      {{"gpu-generations", "GPT-3 175B training across GPU generations",
        "Iteration time of GPT-3 175B on 1024 A100, H100 and B200 GPUs (InfiniBand or NVL72 NVLink "
        "switch, bf16 and fp8, larger-batch variants), normalized to A100 and split into compute, "
        "memory, communication and other."},
       gpu_generations},
      {{"technology-nodes", "Technology-node design-space exploration",
        "Devices derived by the uArch engine for 12, 7, 5, 3, 2 and 1 nm under one area and power budget, "
        "scaling logic, memory and network separately and together; GPT-3 175B iteration time and its "
        "bottleneck."},
       technology_nodes},
      {{"matmul-boundedness", "Compute- vs memory-bound matrix multiplies in inference",
        "Every prefill and decode matrix multiply of Llama 2 70B (tp8, batch 1 and 64) on A100, H100 and "
        "B200, with arithmetic intensity against the device's ridge point."},
       matmul_boundedness},
      {{"memory-technology", "DRAM technology and decode latency",
        "Time per output token of Llama 2 70B on H100-class devices as the DRAM generation changes from "
        "HBM2 to HBM4E."},
       memory_technology},
  };
  return list;
}

}  // namespace

const std::vector<StudyInfo>& study_list() {
  static const std::vector<StudyInfo> list = [] {
    std::vector<StudyInfo> out;
    for (const Entry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return list;
}

Result<StudyTable> run_study(std::string_view name, const PresetSource& presets) {
  for (const Entry& e : entries()) {
    if (e.info.name != name) continue;
    auto r = e.run(presets);
    if (!r) return r.error();
    StudyTable t = std::move(r).value();
    t.info = e.info;
    return t;
  }
  std::string known;
  for (const Entry& e : entries()) known += (known.empty() ? "" : ", ") + e.info.name;
  return Error{"study.unknown", "", "unknown study '" + std::string(name) + "'; known: " + known};
}

}  // namespace optimus
