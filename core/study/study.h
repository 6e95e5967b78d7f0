// The paper's studies as built-in sweeps (Kundu et al. 2024, Sec. IV-V): each reads its
// description (presets/studies/<name>.json, study/description.h), builds the scenarios it
// describes from presets, runs the real engine (predict) on every one and returns a flat
// table. No number in a table is written here; all come out of predict() or the uArch engine.
// Descriptions and presets reach this module through PresetSource, so the core does not
// depend on io/.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/result.h"
#include "hardware/uarch.h"
#include "predict/predict.h"
#include "study/description.h"

namespace optimus {

// A cell: a number, a text, a flag, or a small named group of numbers (one level deep, e.g.
// breakdown_s = {compute, memory, communication, other}).
using StudyGroup = std::vector<std::pair<std::string, double>>;
using StudyValue = std::variant<double, std::string, bool, StudyGroup>;

struct StudyRow {
  std::vector<std::pair<std::string, StudyValue>> cells;  // in column order
  void set(std::string key, StudyValue v) { cells.emplace_back(std::move(key), std::move(v)); }
  const StudyValue* find(std::string_view key) const;
  double number(std::string_view key) const;  // 0 when absent or not a number
  std::string text(std::string_view key) const;
};

struct StudyColumn {
  std::string key;
  std::string unit;  // "s", "bytes", "GB/s", "" for text or ratio
  std::string description;
};

struct StudyInfo {
  std::string name;
  std::string title;
  std::string description;
};

// The column of a study table that holds each row's 80% bands: {"<column>.low", "<column>.high", ...}
// for the row's headline columns (docs/studies.md).
inline constexpr const char* kStudyBandColumn = "band_80";

struct StudyTable {
  StudyInfo info;
  std::vector<StudyColumn> columns;
  std::vector<StudyRow> rows;
  std::vector<std::string> notes;
};

// Where the studies read presets from (io/presets.h in the API; tests may pass fakes).
struct PresetSource {
  std::function<Result<ModelSpec>(std::string_view)> model;
  std::function<Result<SystemSpec>(std::string_view)> system;
  std::function<Result<TechnologyNode>(std::string_view)> technology;
  std::function<Result<DramTechnology>(std::string_view)> dram;
  std::function<Result<StudyDescription>(std::string_view)> study;  // by study name
  // The 80% band {low, high} of the output at a dotted path of a prediction (io/uncertainty.h);
  // empty when none applies. Absent (tests' fakes): the tables carry no bands.
  std::function<std::optional<std::pair<double, double>>(const Scenario&, const Prediction&,
                                                         std::string_view)>
      band;
};

// A person's own job for the study that trains one model (cheapest-accelerator): each key given
// replaces the study's, so the table answers "which accelerator trains *this* model cheapest".
// Another study given a job refuses it (study.job_not_supported): their rows are the paper's.
struct StudyJob {
  std::optional<ModelSpec> model;
  std::optional<std::int64_t> num_devices, seq_len, global_batch;
  std::optional<double> train_tokens;
  bool empty() const { return !model && !num_devices && !seq_len && !global_batch && !train_tokens; }
};

// The studies this build knows, in a stable order.
const std::vector<StudyInfo>& study_list();

// Runs one study. Unknown name: Error{"study.unknown", "", ...}. A description or preset that
// fails to load or a scenario the engine rejects is returned as that error, its message
// prefixed with the study (a bug in the study, not a user's choice: tests assert every study
// runs).
// With a job (StudyJob), the cheapest-accelerator study runs it in place of its own.
Result<StudyTable> run_study(std::string_view name, const PresetSource& presets, const StudyJob& job = {});

}  // namespace optimus
