#include "study/study.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "base/math.h"
#include "base/words.h"

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

std::string layout_name(const ParallelPlan& p) {
  std::string s = "tp" + std::to_string(p.tp) + " pp" + std::to_string(p.pp) + " dp" + std::to_string(p.dp) +
                  " mb" + std::to_string(p.micro_batch);
  if (p.interleave > 1) s += " v" + std::to_string(p.interleave);
  if (p.ep > 1) s += " ep" + std::to_string(p.ep);
  if (p.etp > 1) s += " etp" + std::to_string(p.etp);
  s += std::string(" ") + std::string(name_of(p.recompute));
  return s;
}

// Wraps an error with the study that hit it.
Error in_study(std::string_view study, const Error& e) {
  return Error{e.code, e.path, "study " + std::string(study) + ": " + e.message};
}

TrainingWorkload training(std::int64_t global_batch, std::int64_t seq_len, Precision precision) {
  TrainingWorkload w;
  w.global_batch = global_batch;
  w.seq_len = seq_len;
  w.precision = precision;
  return w;
}

// A described scenario with the model and system the study picked and, for inference, the batch.
Scenario described(const Scenario& scenario, const ModelSpec& model, const SystemSpec& system,
                   std::int64_t batch = 0) {
  Scenario s = scenario;
  s.name = model.name + " on " + std::to_string(s.num_devices) + " " + system.device.name;
  s.model = model;
  s.system = system;
  if (batch > 0) s.inference->batch = batch;
  return s;
}

StudyGroup by_bound(const TrainingPrediction& t) {
  return {{"compute", t.by_bound.compute.value},
          {"memory", t.by_bound.memory.value},
          {"communication", t.by_bound.communication.value},
          {"other", t.by_bound.other.value}};
}

// The 80% bands of a row's headline columns (PresetSource::band, io/uncertainty.h: fitted on the
// published rows of the scenario's regime), as one group cell kStudyBandColumn = {"<column>.low",
// "<column>.high", ...}, empty when none applies (a PresetSource without bands).
constexpr const char* kBandDescription =
    "80% bands of the headline columns, <column>.low and <column>.high: the range that held 80% of "
    "the published measurements of the row's regime around the prediction (scripts/fit_uncertainty.py)";

void set_bands(StudyRow& row, const PresetSource& ps, const Scenario& s, const Prediction& p,
               std::initializer_list<std::pair<const char*, const char*>> column_paths) {
  StudyGroup g;
  if (ps.band) {
    for (const auto& [column, path] : column_paths) {
      if (const auto b = ps.band(s, p, path)) {
        g.emplace_back(std::string(column) + ".low", b->first);
        g.emplace_back(std::string(column) + ".high", b->second);
      }
    }
  }
  row.set(kStudyBandColumn, std::move(g));
}

// ---------------------------------------------------------------------------------------
// memory-recompute: Korthikanti et al. 2022 (arXiv 2205.05198) Figure 1 and Table 3 layouts.

Result<StudyTable> run(const MemoryRecomputeStudy& desc, const PresetSource& ps) {
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
               {"fits", "", "total_bytes <= capacity_bytes"},
               {kStudyBandColumn, "", kBandDescription}};
  auto sys = ps.system(desc.system);
  if (!sys) return sys.error();
  for (const MemoryRecomputeStudy::Layout& layout : desc.layouts) {
    auto model = ps.model(layout.model);
    if (!model) return model.error();
    for (Recompute rc : desc.recompute) {
      Scenario s;
      s.name = layout.model + " " + std::string(name_of(rc));
      s.model = *model;
      s.system = *sys;
      s.num_devices = layout.tp * layout.pp * desc.dp;
      s.parallel.tp = layout.tp;
      s.parallel.pp = layout.pp;
      s.parallel.dp = desc.dp;
      s.parallel.sequence_parallel = desc.sequence_parallel;
      s.parallel.micro_batch = desc.micro_batch;
      s.parallel.interleave = layout.interleave;
      s.parallel.recompute = rc;
      s.training = training(layout.global_batch, desc.seq_len, desc.precision);
      auto p = predict(s);
      if (!p) return p.error();
      const MemoryBreakdown& b = p->memory.per_device;
      StudyRow row;
      row.set("model", layout.model);
      row.set("layout", layout_name(s.parallel));
      row.set("recompute", std::string(name_of(rc)));
      row.set("weights_bytes", b.weights.value);
      row.set("gradients_bytes", b.gradients.value);
      row.set("optimizer_bytes", b.optimizer.value);
      row.set("activations_bytes", b.activations.value);
      row.set("total_bytes", b.total().value);
      row.set("capacity_bytes", p->memory.capacity.value);
      row.set("fits", p->memory.fits);
      set_bands(row, ps, s, *p, {{"total_bytes", "memory.per_device_bytes.total"}});
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = desc.table_notes;
  return t;
}

// ---------------------------------------------------------------------------------------
// gpu-generations: GPT-3 175B training on 1024 GPUs of each generation.

struct Best {
  std::optional<Scenario> scenario;
  std::optional<Prediction> prediction;
  std::int64_t evaluated = 0;
};

// The fastest Megatron layout of the grid that fits in device memory (a fair layout per system
// rather than one layout tuned to one GPU). Sequence parallelism wherever tp > 1; interleaving
// only with a pipeline; expert parallelism over the data-parallel ranks for a MoE model.
Best best_layout(const Scenario& base, const LayoutGrid& grid) {
  Best best;
  double best_time = std::numeric_limits<double>::infinity();
  const auto try_layout = [&](Scenario& s) {
    auto p = predict(s);
    ++best.evaluated;
    if (!p || !p->memory.fits) return;
    const double time = p->training->iteration_time.value;
    if (time < best_time) {
      best_time = time;
      best.scenario = s;
      best.prediction = *p;
    }
  };
  // Megatron-Core spreads the experts over the data-parallel ranks of a stage (expert tensor
  // parallelism 1): an ep that does not divide dp, or the experts, is not a layout.
  const auto spreads = [&](std::int64_t ep, std::int64_t dp) {
    return ep == 1 || (base.model.moe && base.model.moe->experts % ep == 0 && dp % ep == 0);
  };
  for (std::int64_t tp : grid.tp)
    for (std::int64_t pp : grid.pp)
      for (std::int64_t ep : grid.ep)
        for (std::int64_t mb : grid.micro_batch)
          for (std::int64_t v : grid.interleave)
            for (Recompute rc : grid.recompute) {
              if (base.num_devices % (tp * pp) != 0 || (v > 1 && pp == 1)) continue;
              const std::int64_t dp = base.num_devices / (tp * pp);
              if (!spreads(ep, dp)) continue;
              Scenario s = base;
              s.parallel.tp = tp;
              s.parallel.pp = pp;
              s.parallel.dp = dp;
              s.parallel.ep = ep;
              s.parallel.micro_batch = mb;
              s.parallel.interleave = v;
              s.parallel.recompute = rc;
              s.parallel.sequence_parallel = tp > 1;
              s.parallel.zero_stage = grid.zero_stage;
              try_layout(s);
            }
  return best;
}

// A grid study's row before its workload: the model on the row's system.
std::optional<Error> row_base(const PresetSource& ps, const ModelSpec& model, const std::string& label,
                              const std::string& system, std::int64_t num_devices, Scenario& base) {
  auto sys = ps.system(system);
  if (!sys) return sys.error();
  base.name = label;
  base.model = model;
  base.system = *sys;
  base.num_devices = num_devices;
  return std::nullopt;
}

// The notes with "{predictions}" replaced by the number of predictions the grids took.
std::vector<std::string> with_predictions(std::vector<std::string> notes, std::int64_t evaluated) {
  const std::string placeholder = "{predictions}";
  for (std::string& note : notes)
    for (auto at = note.find(placeholder); at != std::string::npos; at = note.find(placeholder, at))
      note.replace(at, placeholder.size(), std::to_string(evaluated));
  return notes;
}

Result<StudyTable> run(const GpuGenerationsStudy& desc, const PresetSource& ps) {
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
               {"mfu", "", "model FLOPs utilisation against the precision's dense peak"},
               {kStudyBandColumn, "", kBandDescription}};
  auto model = ps.model(desc.model);
  if (!model) return model.error();
  double reference_per_token = 0;
  std::int64_t evaluated = 0;
  for (const GpuGenerationsStudy::Row& r : desc.rows) {
    Scenario base;
    if (auto err = row_base(ps, *model, r.label, r.system, desc.num_devices, base)) return *err;
    base.training = training(r.global_batch, desc.seq_len, r.precision);
    const Best best = best_layout(base, desc.grid);
    evaluated += best.evaluated;
    if (!best.prediction)
      return Error{"study.no_feasible_layout", "", "no layout of the grid fits for " + r.label};
    const TrainingPrediction& tr = *best.prediction->training;
    const double per_token = tr.iteration_time.value / (d(r.global_batch) * d(desc.seq_len));
    if (reference_per_token == 0) reference_per_token = per_token;
    StudyRow row;
    row.set("label", r.label);
    row.set("system", r.system);
    row.set("precision", std::string(to_string(r.precision)));
    row.set("global_batch", d(r.global_batch));
    row.set("layout", layout_name(best.scenario->parallel));
    row.set("iteration_time_s", tr.iteration_time.value);
    row.set("tokens_per_s", tr.tokens_per_s);
    row.set("normalized", per_token / reference_per_token);
    row.set("speedup", reference_per_token / per_token);
    row.set("breakdown_s", by_bound(tr));
    row.set("mfu", tr.mfu);
    set_bands(row, ps, *best.scenario, *best.prediction,
              {{"iteration_time_s", "training.iteration_time_s"},
               {"tokens_per_s", "training.tokens_per_s"},
               {"mfu", "training.mfu"}});
    t.rows.push_back(std::move(row));
  }
  t.notes = with_predictions(desc.table_notes, evaluated);
  return t;
}

// ---------------------------------------------------------------------------------------
// cheapest-accelerator: one whole training run on each system, priced by the device-hour (the
// whole-run model of run/run.h: steps at the steady-state time, checkpoints and failures).

// "Llama 3 70B, 15T tokens, seq 8192, 16.8M-token batch, 1024 devices per row": the job a
// cheapest-accelerator table ran, for its "{job}" note.
std::string job_words(const CheapestAcceleratorStudy& desc, const ModelSpec& model) {
  const auto short_num = [](double x) {
    char b[32];
    if (x >= 1e12)
      std::snprintf(b, sizeof b, "%.3gT", x / 1e12);
    else if (x >= 1e9)
      std::snprintf(b, sizeof b, "%.3gB", x / 1e9);
    else if (x >= 1e6)
      std::snprintf(b, sizeof b, "%.3gM", x / 1e6);
    else
      std::snprintf(b, sizeof b, "%.0f", x);
    return std::string(b);
  };
  return (model.name.empty() ? desc.model : model.name) + ", " + short_num(desc.train_tokens) +
         " tokens, seq " + std::to_string(desc.seq_len) + ", " +
         short_num(d(desc.global_batch) * d(desc.seq_len)) + "-token batch, " +
         std::to_string(desc.num_devices) + " devices per row";
}

std::vector<std::string> with_job(std::vector<std::string> notes, const std::string& words) {
  const std::string placeholder = "{job}";
  for (std::string& note : notes)
    for (auto at = note.find(placeholder); at != std::string::npos; at = note.find(placeholder, at))
      note.replace(at, placeholder.size(), words);
  return notes;
}

Result<StudyTable> run(const CheapestAcceleratorStudy& desc, const PresetSource& ps) {
  StudyTable t;
  t.columns = {{"label", "", "GPU, system, precision"},
               {"system", "", "system preset id"},
               {"precision", "", "training math precision"},
               {"layout", "", "fastest layout of the grid that fits in memory"},
               {"usd_per_gpu_hour", "USD", "rental price per device-hour (energy included)"},
               {"iteration_time_s", "s", "one optimizer step"},
               {"mfu", "", "model FLOPs utilisation against the precision's dense peak"},
               {"wall_days", "days", "elapsed time with checkpoints and failures"},
               {"gpu_hours", "h", "devices x elapsed hours"},
               {"energy_mwh", "MWh", "at the meter (devices, node overhead, PUE)"},
               {"cost_usd", "USD", "gpu_hours x usd_per_gpu_hour"},
               {kStudyBandColumn, "", kBandDescription},
               {"relative_cost", "", "cost / the cheapest row's (cheapest = 1)"},
               {"cheapest", "", "the row with the lowest cost"}};
  auto model = desc.own_model ? Result<ModelSpec>(*desc.own_model) : ps.model(desc.model);
  if (!model) return model.error();
  std::int64_t evaluated = 0;
  double cheapest = std::numeric_limits<double>::infinity();
  std::vector<std::string> unfit;
  for (const CheapestAcceleratorStudy::Row& r : desc.rows) {
    Scenario base;
    if (auto err = row_base(ps, *model, r.label, r.system, desc.num_devices, base)) return *err;
    base.training = training(desc.global_batch, desc.seq_len, r.precision);
    base.training->train_tokens = desc.train_tokens;
    base.economics.usd_per_gpu_hour = r.usd_per_gpu_hour;
    const Best best = best_layout(base, desc.grid);
    evaluated += best.evaluated;
    // A person's job that some systems cannot hold: those rows are named in a note, not priced.
    if ((!best.prediction || !best.prediction->run) && desc.own_model) {
      unfit.push_back(r.label);
      continue;
    }
    if (!best.prediction || !best.prediction->run)
      return Error{"study.no_feasible_layout", "", "no layout of the grid fits for " + r.label};
    const TrainingPrediction& tr = *best.prediction->training;
    const RunReport& run = *best.prediction->run;
    const double cost = run.cost_usd.value_or(0);
    cheapest = std::min(cheapest, cost);
    StudyRow row;
    row.set("label", r.label);
    row.set("system", r.system);
    row.set("precision", std::string(to_string(r.precision)));
    row.set("layout", layout_name(best.scenario->parallel));
    row.set("usd_per_gpu_hour", r.usd_per_gpu_hour);
    row.set("iteration_time_s", tr.iteration_time.value);
    row.set("mfu", tr.mfu);
    row.set("wall_days", run.wall_days());
    row.set("gpu_hours", run.gpu_hours);
    row.set("energy_mwh", run.energy_mwh);
    row.set("cost_usd", cost);
    set_bands(row, ps, *best.scenario, *best.prediction,
              {{"iteration_time_s", "training.iteration_time_s"},
               {"wall_days", "run.wall_days"},
               {"gpu_hours", "run.gpu_hours"},
               {"energy_mwh", "run.energy_mwh"},
               {"cost_usd", "run.cost_usd"}});
    t.rows.push_back(std::move(row));
  }
  for (StudyRow& row : t.rows) {
    row.set("relative_cost", row.number("cost_usd") / cheapest);
    row.set("cheapest", row.number("cost_usd") == cheapest);
  }
  if (t.rows.empty())
    return Error{"study.no_feasible_layout", "",
                 "no layout of the grid fits on any of the systems for " + job_words(desc, *model)};
  t.notes = with_job(with_predictions(desc.table_notes, evaluated), job_words(desc, *model));
  if (!unfit.empty()) {
    std::string names;
    for (const std::string& u : unfit) names += (names.empty() ? "" : "; ") + u;
    t.notes.push_back("No layout of the grid holds this job in device memory on: " + names + ".");
  }
  return t;
}

// ---------------------------------------------------------------------------------------
// technology-nodes: one chip budget swept over nodes, scaling logic, memory, network
// separately and together (Kundu et al. 2024, Sec. IV-C design-space exploration).

// The baseline node with the components `sc` names (logic, network, all) taken from `at`, named
// after the mix; the DRAM generation (memory) is chosen beside it.
TechnologyNode scaled_node(const TechnologyNode& base, const TechnologyNode& at, const std::string& sc) {
  TechnologyNode node = base;
  if (sc == "logic" || sc == "all") {
    node.logic_density_mtr_per_mm2 = at.logic_density_mtr_per_mm2;
    node.energy_pj_per_flop = at.energy_pj_per_flop;
    node.nominal_voltage = at.nominal_voltage;
    node.threshold_voltage = at.threshold_voltage;
    node.min_voltage = at.min_voltage;
    node.max_voltage = at.max_voltage;
    node.nominal_frequency_hz = at.nominal_frequency_hz;
    node.static_fraction = at.static_fraction;
    node.unit_flops_per_cycle = at.unit_flops_per_cycle;
    node.sram_mib_per_mm2 = at.sram_mib_per_mm2;
    node.sram_energy_pj_per_byte = at.sram_energy_pj_per_byte;
    node.wafer_usd = at.wafer_usd;  // the logic die is made on the new node
    node.defect_density_per_cm2 = at.defect_density_per_cm2;
    node.yield_clustering = at.yield_clustering;
  }
  if (sc == "network" || sc == "all") {
    node.serdes_lane_gbps = at.serdes_lane_gbps;
    node.serdes_lanes_per_mm = at.serdes_lanes_per_mm;
    node.serdes_energy_pj_per_bit = at.serdes_energy_pj_per_bit;
  }
  node.id = base.id + "+" + sc + "@" + at.id;
  node.name = at.name + " " + sc;
  return node;
}

// The first row's iteration time and device cost, which the others are compared with.
struct Baseline {
  double time_s = 0, cost_usd = 0;
};

// A technology-nodes row: the derived device, its iteration, its price and the same device as
// four chiplets (`cost4_usd`).
StudyRow technology_row(double node_nm, const std::string& sc, const UarchDerivation& der,
                        const Prediction& p, const UarchCost& price, Baseline base, double cost4_usd) {
  const TrainingPrediction& tr = *p.training;
  const double c = tr.by_bound.compute.value, m = tr.by_bound.memory.value,
               n = tr.by_bound.communication.value;
  const char* bound = (c >= m && c >= n) ? "compute" : (m >= n ? "memory" : "network");
  StudyRow row;
  row.set("node_nm", node_nm);
  row.set("scaling", sc);
  row.set("frequency_GHz", der.frequency_hz / 1e9);
  row.set("peak_tflops", der.device.peak_for(Precision::bf16).value / kTera);
  row.set("dram_stacks", d(der.dram_stacks));
  row.set("hbm_bandwidth_GBps", der.device.hbm_bandwidth.value / kGB);
  row.set("scale_up_GBps", der.scale_up_bandwidth.value / kGB);
  row.set("iteration_time_s", tr.iteration_time.value);
  row.set("speedup", base.time_s / tr.iteration_time.value);
  row.set("breakdown_s", by_bound(tr));
  row.set("bound", std::string(bound));
  row.set("fits", p.memory.fits);
  row.set("device_cost_usd", price.total_usd);
  row.set(
      "cost_split_usd",
      StudyGroup{{"logic", price.logic_usd}, {"dram", price.dram_usd}, {"packaging", price.packaging_usd}});
  row.set("die_yield", price.die_yield);
  row.set("perf_per_dollar", price.total_usd > 0
                                 ? base.time_s * base.cost_usd / (tr.iteration_time.value * price.total_usd)
                                 : 0);
  row.set("cost_4_chiplets_usd", cost4_usd);
  return row;
}

Result<StudyTable> run(const TechnologyNodesStudy& desc, const PresetSource& ps) {
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
      {"fits", "", "training memory fits the derived device"},
      {"device_cost_usd", "USD",
       "manufacturing cost: known-good logic die (wafer price / good dies per wafer, negative-binomial "
       "yield), DRAM stacks, packaging, over the assembly yield"},
      {"cost_split_usd", "USD", "device_cost_usd before the assembly yield: logic die, DRAM, packaging"},
      {"die_yield", "", "share of logic dies free of killer defects"},
      {"perf_per_dollar", "", "(1 / iteration time) / device cost, relative to the 12 nm baseline"},
      {"cost_4_chiplets_usd", "USD", "the same device with its logic split into four chiplets"}};
  auto model = ps.model(desc.model);
  if (!model) return model.error();
  std::vector<TechnologyNode> nodes;
  std::vector<DramTechnology> drams;
  for (const std::string& id : desc.nodes) {
    auto n = ps.technology(id);
    if (!n) return n.error();
    auto dr = ps.dram(n->dram);
    if (!dr) return dr.error();
    nodes.push_back(*n);
    drams.push_back(*dr);
  }
  const UarchBudget& budget = desc.budget;
  const TechnologyNode& base = nodes[0];
  double baseline_time = 0, baseline_cost = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const char* scaling : {"logic", "memory", "network", "all"}) {
      const std::string sc = scaling;
      if (i == 0 && sc != "all") continue;  // at the baseline node all four are the same chip
      const TechnologyNode node = scaled_node(base, nodes[i], sc);
      const DramTechnology& dram = sc == "memory" || sc == "all" ? drams[i] : drams[0];
      auto der = derive_device(node, dram, budget);
      if (!der) return der.error();
      const Scenario s = described(desc.scenario, *model, derived_system(*der, budget));
      auto p = predict(s);
      if (!p) return p.error();
      const TrainingPrediction& tr = *p->training;
      if (baseline_time == 0) baseline_time = tr.iteration_time.value;
      // Every preset node and DRAM states its prices; a custom one without them costs 0.
      const UarchCost price = der->cost.value_or(UarchCost{});
      if (baseline_cost == 0) baseline_cost = price.total_usd;
      // The same chip split into four chiplets (the chiplet cost model; same performance).
      UarchBudget split = budget;
      split.chiplets = 4;
      const auto cost4 = device_cost(node, dram, split, der->dram_stacks);
      t.rows.push_back(technology_row(nodes[i].node_nm, sc, *der, *p, price, {baseline_time, baseline_cost},
                                      cost4 ? cost4->total_usd : 0));
    }
  }
  t.notes = desc.table_notes;
  return t;
}

// ---------------------------------------------------------------------------------------
// matmul-boundedness: each prefill and decode matrix multiply, compute- or memory-bound.

bool is_matmul(const std::string& name) {
  return name == "qkv_proj" || name == "attention" || name == "attn_out_proj" || name == "mlp_up" ||
         name == "mlp_down" || name == "lm_head";
}

Result<StudyTable> run(const MatmulBoundednessStudy& desc, const PresetSource& ps) {
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
  auto model = ps.model(desc.model);
  if (!model) return model.error();
  for (const MatmulBoundednessStudy::Gpu& g : desc.gpus) {
    auto sys = ps.system(g.system);
    if (!sys) return sys.error();
    const DeviceSpec& dev = sys->device;
    const double ridge = dev.peak_for(Precision::fp16).value / dev.hbm_bandwidth.value;
    for (std::int64_t batch : desc.batches) {
      const Scenario s = described(desc.scenario, *model, *sys, batch);
      auto p = predict(s);
      if (!p) return p.error();
      for (const OperatorReport& op : p->inference->operators) {
        if (!is_matmul(op.name)) continue;
        StudyRow row;
        row.set("gpu", g.label);
        row.set("batch", d(batch));
        row.set("phase", op.phase);
        row.set("operator", op.name);
        row.set("flops", op.flops);
        row.set("bytes", op.bytes);
        row.set("arithmetic_intensity", op.intensity);
        row.set("ridge_intensity", ridge);
        row.set("time_s", op.time.value);
        row.set("bound", std::string(name_of(op.bound)));
        t.rows.push_back(std::move(row));
      }
    }
  }
  t.notes = desc.table_notes;
  return t;
}

// ---------------------------------------------------------------------------------------
// memory-technology: decode latency as the DRAM generation changes under a fixed device.

Result<StudyTable> run(const MemoryTechnologyStudy& desc, const PresetSource& ps) {
  StudyTable t;
  t.columns = {{"dram", "", "DRAM generation (presets/dram id)"},
               {"batch", "sequences", "inference batch"},
               {"bandwidth_GBps", "GB/s", "device DRAM bandwidth: stacks x the generation's per-stack rate"},
               {"capacity_GiB", "GiB", "device DRAM capacity"},
               {"tpot_s", "s", "time per output token"},
               {"ttft_s", "s", "time to first token"},
               {"speedup_tpot", "", "tpot of the first generation (HBM2) / this row's"}};
  auto model = ps.model(desc.model);
  if (!model) return model.error();
  auto sys = ps.system(desc.system);
  if (!sys) return sys.error();
  for (std::int64_t batch : desc.batches) {
    double first_tpot = 0;
    for (const std::string& g : desc.drams) {
      auto dram = ps.dram(g);
      if (!dram) return dram.error();
      SystemSpec with_dram = *sys;
      with_dram.device.hbm_bandwidth = dram->stack_bandwidth * d(desc.dram_stacks);
      with_dram.device.hbm_capacity = dram->stack_capacity * d(desc.dram_stacks);
      with_dram.device.name += " with " + dram->name;
      const Scenario s = described(desc.scenario, *model, with_dram, batch);
      auto p = predict(s);
      if (!p) return p.error();
      const InferencePrediction& inf = *p->inference;
      if (first_tpot == 0) first_tpot = inf.tpot.value;
      StudyRow row;
      row.set("dram", g);
      row.set("batch", d(batch));
      row.set("bandwidth_GBps", s.system.device.hbm_bandwidth.value / kGB);
      row.set("capacity_GiB", s.system.device.hbm_capacity.value / kGiB);
      row.set("tpot_s", inf.tpot.value);
      row.set("ttft_s", inf.ttft.value);
      row.set("speedup_tpot", first_tpot / inf.tpot.value);
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = desc.table_notes;
  return t;
}

}  // namespace

const std::vector<StudyInfo>& study_list() {
  static const std::vector<StudyInfo> list = {
      {"memory-recompute", "Memory breakdown under activation recomputation",
       "Weights, gradients, optimizer state and activations per GPU for GPT 22B, 175B, 530B and 1T on A100 "
       "80GB with no, selective and full recomputation (Korthikanti et al. 2022 layouts), against the "
       "80 GB line."},
      {"gpu-generations", "GPT-3 175B training across GPU generations",
       "Iteration time of GPT-3 175B on 1024 A100, H100 and B200 GPUs (InfiniBand or NVL72 NVLink "
       "switch, bf16 and fp8, larger-batch variants), normalized to A100 and split into compute, "
       "memory, communication and other."},
      {"technology-nodes", "Technology-node design-space exploration",
       "Devices derived by the uArch engine for 12, 7, 5, 3, 2 and 1 nm under one area and power budget, "
       "scaling logic, memory and network separately and together; GPT-3 175B iteration time and its "
       "bottleneck."},
      {"matmul-boundedness", "Compute- vs memory-bound matrix multiplies in inference",
       "Every prefill and decode matrix multiply of Llama 2 70B (tp8, batch 1 and 64) on A100, H100 and "
       "B200, with arithmetic intensity against the device's ridge point."},
      {"memory-technology", "DRAM technology and decode latency",
       "Time per output token of Llama 2 70B on H100-class devices as the DRAM generation changes from "
       "HBM2 to HBM4E."},
      {"cheapest-accelerator", "Which accelerator trains this model cheapest",
       "One whole training run (Llama 3 70B, 15T tokens, 1024 devices, or a job of your own) on A100, H100, "
       "H200, B200 and "
       "MI300X at the fastest layout of a grid, bf16 and fp8, priced at 2026 rental prices per device-hour: "
       "days, "
       "GPU-hours, energy and money, with checkpoints and failures."},
  };
  return list;
}

// The study's description with a person's job in place of its own (StudyJob).
std::optional<Error> apply_job(StudyDescription& desc, const StudyJob& job) {
  if (job.empty()) return std::nullopt;
  auto* c = std::get_if<CheapestAcceleratorStudy>(&desc);
  if (!c)
    return Error{"study.job_not_supported", "",
                 "only the cheapest-accelerator study runs a job of your own; the others run the paper's"};
  if (job.model) c->own_model = *job.model;
  c->num_devices = job.num_devices.value_or(c->num_devices);
  c->seq_len = job.seq_len.value_or(c->seq_len);
  c->global_batch = job.global_batch.value_or(c->global_batch);
  c->train_tokens = job.train_tokens.value_or(c->train_tokens);
  return std::nullopt;
}

Result<StudyTable> run_study(std::string_view name, const PresetSource& presets, const StudyJob& job) {
  for (const StudyInfo& info : study_list()) {
    if (info.name != name) continue;
    auto desc = presets.study(name);
    if (!desc) return in_study(name, desc.error());
    StudyDescription d = std::move(desc).value();
    if (auto err = apply_job(d, job)) return *err;
    auto r = std::visit([&](const auto& study) { return run(study, presets); }, d);
    if (!r) return in_study(name, r.error());
    StudyTable t = std::move(r).value();
    t.info = info;
    return t;
  }
  std::vector<std::string> names;
  for (const StudyInfo& info : study_list()) names.push_back(info.name);
  return Error{"study.unknown", "",
               "unknown study '" + std::string(name) + "'" + did_you_mean(name, names) +
                   "; known: " + join(names, ", ")};
}

}  // namespace optimus
