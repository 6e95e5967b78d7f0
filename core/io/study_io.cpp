#include "io/study_io.h"

#include <optional>

#include "io/presets.h"
#include "io/technology_io.h"
#include "io/uncertainty.h"

namespace optimus::io {

using ojson = nlohmann::ordered_json;

namespace {

const std::vector<std::string> kRecompute = {"none", "selective", "full"};

// name, source, notes (text) and table_notes (the lines printed under the table).
std::vector<std::string> read_text(Reader& r) {
  r.string("name", true);
  r.string("source", true);
  r.string("notes", false);
  return r.strings("table_notes", true);
}

std::vector<Recompute> recompute_modes(Reader& r, const std::string& key) {
  std::vector<Recompute> out;
  for (std::size_t i : r.choices(key, true, kRecompute)) out.push_back(static_cast<Recompute>(i));
  return out;
}

// A non-empty array of objects at `key`, each read strictly by `fill(reader, element)`.
template <class T, class F>
std::vector<T> objects(Reader& r, std::optional<Error>& err, const std::string& key, F fill) {
  return r.list<T>(key, true,
                   [&](const json& v, const std::string&, const std::string& at) -> std::optional<T> {
                     Reader er(v, at, err);
                     T x;
                     fill(er, x);
                     er.finish();
                     if (err) return std::nullopt;
                     return x;
                   });
}

// The scenario every row shares, in the scenario format (num_devices, parallel and the
// `workload` object, "training" or "inference"), without the model and system, which the
// study sets. An inference batch comes from the study's batches.
Scenario read_shared_scenario(Reader& r, std::optional<Error>& err, const std::string& workload) {
  const std::string other = workload == "training" ? "inference" : "training";
  if (r.has(other)) r.fail("scenario.unknown_key", r.child(other), "this study runs " + workload + " only");
  if (const json* w = r.get(workload, true);
      w && workload == "inference" && w->is_object() && w->contains("batch"))
    r.fail("scenario.unknown_key", r.child(workload) + "/batch",
           "the batch comes from the study's 'batches'");
  Scenario s;
  read_scenario_body(r, err, s);
  return s;
}

StudyDescription read_memory_recompute(Reader& r, std::optional<Error>& err) {
  MemoryRecomputeStudy d;
  d.table_notes = read_text(r);
  d.system = r.string("system", true).value_or("");
  d.dp = r.integer("dp", true, 1, 1'000'000).value_or(1);
  d.micro_batch = r.integer("micro_batch", true, 1, 1'000'000).value_or(1);
  d.sequence_parallel = r.boolean("sequence_parallel", true).value_or(false);
  d.seq_len = r.integer("seq_len", true, 1, 100'000'000).value_or(1);
  d.precision = read_training_precision(r, "precision", true).value_or(d.precision);
  d.recompute = recompute_modes(r, "recompute");
  d.layouts = objects<MemoryRecomputeStudy::Layout>(r, err, "layouts", [](Reader& lr, auto& l) {
    l.model = lr.string("model", true).value_or("");
    l.tp = lr.integer("tp", true, 1, 1'000'000).value_or(1);
    l.pp = lr.integer("pp", true, 1, 1'000'000).value_or(1);
    l.interleave = lr.integer("interleave", true, 1, 100'000).value_or(1);
    l.global_batch = lr.integer("global_batch", true, 1, 1'000'000'000).value_or(1);
  });
  return d;
}

// The layouts a study's grid search tries (study/description.h LayoutGrid).
LayoutGrid read_grid(Reader& r, std::optional<Error>& err) {
  LayoutGrid g;
  if (const json* gv = r.get("grid", true)) {
    Reader gr(*gv, r.child("grid"), err);
    g.tp = gr.integers("tp", true, 1, 1'000'000);
    g.pp = gr.integers("pp", true, 1, 1'000'000);
    g.micro_batch = gr.integers("micro_batch", true, 1, 1'000'000);
    g.interleave = gr.integers("interleave", true, 1, 100'000);
    if (gr.has("ep")) g.ep = gr.integers("ep", false, 1, 1'000'000);
    g.recompute = recompute_modes(gr, "recompute");
    g.zero_stage = static_cast<int>(gr.integer("zero_stage", true, 0, 3).value_or(0));
    gr.finish();
  }
  return g;
}

StudyDescription read_gpu_generations(Reader& r, std::optional<Error>& err) {
  GpuGenerationsStudy d;
  d.table_notes = read_text(r);
  d.model = r.string("model", true).value_or("");
  d.num_devices = r.integer("num_devices", true, 1, 100'000'000).value_or(1);
  d.seq_len = r.integer("seq_len", true, 1, 100'000'000).value_or(1);
  d.grid = read_grid(r, err);
  d.rows = objects<GpuGenerationsStudy::Row>(r, err, "rows", [](Reader& rr, auto& row) {
    row.label = rr.string("label", true).value_or("");
    row.system = rr.string("system", true).value_or("");
    row.precision = read_training_precision(rr, "precision", true).value_or(row.precision);
    row.global_batch = rr.integer("global_batch", true, 1, 1'000'000'000).value_or(1);
  });
  return d;
}

StudyDescription read_technology_nodes(Reader& r, std::optional<Error>& err) {
  TechnologyNodesStudy d;
  d.table_notes = read_text(r);
  d.model = r.string("model", true).value_or("");
  if (const json* bv = r.get("budget", true)) {
    Reader br(*bv, r.child("budget"), err);
    d.budget = read_budget(br);
    br.finish();
  }
  d.nodes = r.strings("nodes", true);
  d.scenario = read_shared_scenario(r, err, "training");
  return d;
}

StudyDescription read_matmul_boundedness(Reader& r, std::optional<Error>& err) {
  MatmulBoundednessStudy d;
  d.table_notes = read_text(r);
  d.model = r.string("model", true).value_or("");
  d.gpus = objects<MatmulBoundednessStudy::Gpu>(r, err, "gpus", [](Reader& gr, auto& g) {
    g.label = gr.string("label", true).value_or("");
    g.system = gr.string("system", true).value_or("");
  });
  d.batches = r.integers("batches", true, 1, 100'000'000);
  d.scenario = read_shared_scenario(r, err, "inference");
  return d;
}

StudyDescription read_memory_technology(Reader& r, std::optional<Error>& err) {
  MemoryTechnologyStudy d;
  d.table_notes = read_text(r);
  d.model = r.string("model", true).value_or("");
  d.system = r.string("system", true).value_or("");
  d.dram_stacks = r.integer("dram_stacks", true, 1, 1000).value_or(1);
  d.drams = r.strings("drams", true);
  d.batches = r.integers("batches", true, 1, 100'000'000);
  d.scenario = read_shared_scenario(r, err, "inference");
  return d;
}

StudyDescription read_cheapest_accelerator(Reader& r, std::optional<Error>& err) {
  CheapestAcceleratorStudy d;
  d.table_notes = read_text(r);
  d.model = r.string("model", true).value_or("");
  d.num_devices = r.integer("num_devices", true, 1, 100'000'000).value_or(1);
  d.seq_len = r.integer("seq_len", true, 1, 100'000'000).value_or(1);
  d.global_batch = r.integer("global_batch", true, 1, 1'000'000'000).value_or(1);
  d.train_tokens = r.number("train_tokens", true, 1, 1e18).value_or(1);
  d.grid = read_grid(r, err);
  d.rows = objects<CheapestAcceleratorStudy::Row>(r, err, "rows", [](Reader& rr, auto& row) {
    row.label = rr.string("label", true).value_or("");
    row.system = rr.string("system", true).value_or("");
    row.precision = read_training_precision(rr, "precision", true).value_or(row.precision);
    row.usd_per_gpu_hour = rr.number("usd_per_gpu_hour", true, 1e-6, 1e6).value_or(1);
  });
  return d;
}

}  // namespace

Result<StudyDescription> read_study(std::string_view name, const json& v, const std::string& path) {
  using ReadFn = StudyDescription (*)(Reader&, std::optional<Error>&);
  const std::pair<std::string_view, ReadFn> readers[] = {
      {"memory-recompute", read_memory_recompute},   {"gpu-generations", read_gpu_generations},
      {"technology-nodes", read_technology_nodes},   {"matmul-boundedness", read_matmul_boundedness},
      {"memory-technology", read_memory_technology}, {"cheapest-accelerator", read_cheapest_accelerator},
  };
  for (const auto& [id, read] : readers) {
    if (id != name) continue;
    std::optional<Error> err;
    Reader r(v, path, err);
    StudyDescription d = read(r, err);
    r.finish();
    if (err) return *err;
    return d;
  }
  return make_error("study.unknown", path, "no study is called '" + std::string(name) + "'");
}

Result<StudyJob> read_study_job(std::string_view text) {
  StudyJob job;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return job;
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return make_error("study.malformed_job", "",
                      std::string("the study's job is not valid JSON: ") + e.what());
  }
  std::optional<Error> err;
  Reader r(root, "", err);
  if (const json* m = r.get("model", false)) {
    auto model = m->is_string() ? model_preset(m->get<std::string>(), "/model") : read_model(*m, "/model");
    if (!model) return model.error();
    job.model = *model;
  }
  job.num_devices = r.integer("num_devices", false, 1, 100'000'000);
  job.seq_len = r.integer("seq_len", false, 1, 100'000'000);
  job.global_batch = r.integer("global_batch", false, 1, 1'000'000'000);
  job.train_tokens = r.number("train_tokens", false, 1, 1e18);
  r.finish();
  if (err) return *err;
  return job;
}

PresetSource embedded_preset_source() {
  PresetSource ps;
  ps.model = [](std::string_view id) { return model_preset(id, ""); };
  ps.system = [](std::string_view id) { return system_preset(id, ""); };
  ps.technology = [](std::string_view id) { return technology_preset(id, ""); };
  ps.dram = [](std::string_view id) { return dram_preset(id, ""); };
  ps.study = [](std::string_view id) { return study_preset(id, ""); };
  ps.band = [](const Scenario& s, const Prediction& p,
               std::string_view path) -> std::optional<std::pair<double, double>> {
    const auto bands = uncertainty_json(s, p);
    const auto it = bands.find(std::string(path));
    if (it == bands.end()) return std::nullopt;
    return std::pair{(*it)["low"].get<double>(), (*it)["high"].get<double>()};
  };
  return ps;
}

std::string study_to_json(const StudyTable& t, int indent) {
  ojson j;
  j["study"] = t.info.name;
  j["title"] = t.info.title;
  j["description"] = t.info.description;
  ojson cols = ojson::array(), units = ojson::object(), descs = ojson::object();
  for (const StudyColumn& c : t.columns) {
    cols.push_back(c.key);
    units[c.key] = c.unit;
    descs[c.key] = c.description;
  }
  j["columns"] = cols;
  j["units"] = units;
  j["column_descriptions"] = descs;
  ojson rows = ojson::array();
  for (const StudyRow& row : t.rows) {
    ojson o = ojson::object();
    for (const auto& [key, value] : row.cells) {
      if (const auto* x = std::get_if<double>(&value))
        o[key] = *x;
      else if (const auto* s = std::get_if<std::string>(&value))
        o[key] = *s;
      else if (const auto* b = std::get_if<bool>(&value))
        o[key] = *b;
      else {
        ojson g = ojson::object();
        for (const auto& [k, num] : std::get<StudyGroup>(value)) g[k] = num;
        o[key] = g;
      }
    }
    rows.push_back(o);
  }
  j["rows"] = rows;
  j["notes"] = t.notes;
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace optimus::io
