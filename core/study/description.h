// What each of the paper's studies runs: the facts it takes from its sources (models, layouts,
// systems, batches, chip budgets, technology and DRAM generations), described in
// presets/studies/<name>.json (presets/README.md) and read by io/ into these structs. The study
// code (study.cpp) holds only the method: how a description becomes scenarios and how the
// engine's results become rows. Preset ids stay ids; the study resolves them through
// PresetSource.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hardware/uarch.h"
#include "scenario/scenario.h"

namespace optimus {

// memory-recompute: each layout run once per recompute mode, on one system.
struct MemoryRecomputeStudy {
  struct Layout {
    std::string model;  // models/ preset id
    std::int64_t tp = 1, pp = 1, interleave = 1, global_batch = 1;
  };
  std::string system;  // systems/ preset id
  std::int64_t dp = 1, micro_batch = 1, seq_len = 1;
  bool sequence_parallel = false;
  Precision precision = Precision::bf16;
  std::vector<Recompute> recompute;
  std::vector<Layout> layouts;
  std::vector<std::string> table_notes;
};

// The layouts a grid search tries, in this order (the first fastest one wins a tie).
struct LayoutGrid {
  std::vector<std::int64_t> tp, pp, micro_batch, interleave;
  // Expert-parallel degrees, tried for a MoE model where they divide its experts and the
  // data-parallel ranks (a dense model runs at 1 whatever the list says).
  std::vector<std::int64_t> ep{1};
  std::vector<Recompute> recompute;
  int zero_stage = 0;
};

// gpu-generations: one model on each row's system, precision and batch, at the fastest layout
// of the grid that fits; the first row is the reference of `normalized`.
struct GpuGenerationsStudy {
  struct Row {
    std::string label;
    std::string system;  // systems/ preset id
    Precision precision = Precision::bf16;
    std::int64_t global_batch = 1;
  };
  std::string model;
  std::int64_t num_devices = 1, seq_len = 1;
  LayoutGrid grid;
  std::vector<Row> rows;
  std::vector<std::string> table_notes;  // "{predictions}" stands for the number of grid points run
};

// technology-nodes: a device derived for `budget` at each node (the first is the baseline),
// each running `scenario` (model and system set by the study).
struct TechnologyNodesStudy {
  std::string model;
  UarchBudget budget;
  std::vector<std::string> nodes;  // technology/ preset ids
  Scenario scenario;
  std::vector<std::string> table_notes;
};

// matmul-boundedness: `scenario` (inference) on each GPU's system at each batch.
struct MatmulBoundednessStudy {
  struct Gpu {
    std::string label;
    std::string system;  // systems/ preset id
  };
  std::string model;
  std::vector<Gpu> gpus;
  std::vector<std::int64_t> batches;
  Scenario scenario;
  std::vector<std::string> table_notes;
};

// memory-technology: `system` with `dram_stacks` stacks of each DRAM generation (the first is
// the reference of speedup_tpot), running `scenario` (inference) at each batch.
struct MemoryTechnologyStudy {
  std::string model;
  std::string system;
  std::int64_t dram_stacks = 1;
  std::vector<std::string> drams;  // dram/ preset ids
  std::vector<std::int64_t> batches;
  Scenario scenario;
  std::vector<std::string> table_notes;
};

// cheapest-accelerator: one whole training run (model, devices, tokens) on each row's system at
// the fastest layout of the grid that fits, priced at the row's rental price per device-hour.
struct CheapestAcceleratorStudy {
  struct Row {
    std::string label;
    std::string system;  // systems/ preset id
    Precision precision = Precision::bf16;
    double usd_per_gpu_hour = 0;
  };
  std::string model;
  std::optional<ModelSpec> own_model;  // a person's model (StudyJob), in place of `model`'s preset
  std::int64_t num_devices = 1, seq_len = 1, global_batch = 1;
  double train_tokens = 0;
  LayoutGrid grid;
  std::vector<Row> rows;
  // "{predictions}" as in gpu-generations; "{job}": the model, tokens, sequence, batch and
  // devices in words (the study's own or a person's, study.cpp job_words).
  std::vector<std::string> table_notes;
};

using StudyDescription =
    std::variant<MemoryRecomputeStudy, GpuGenerationsStudy, TechnologyNodesStudy, MatmulBoundednessStudy,
                 MemoryTechnologyStudy, CheapestAcceleratorStudy>;

}  // namespace optimus
