// The contract objects described once (internal to io/): each table lists an object's keys with
// type, range and default (io/fields.h; each key's meaning and unit are its docs/contract.md row). The reader
// (io/json_io.cpp), the JSON Schema (io/schema.cpp), the writer (scenario_to_json) and through the schema the
// generated TypeScript types (web/src/engine/types.ts) all come from these tables.
#pragma once

#include "hardware/calibration.h"
#include "hardware/spec.h"
#include "hardware/uarch.h"
#include "io/fields.h"
#include "model/spec.h"
#include "run/run.h"
#include "scenario/rl_spec.h"
#include "scenario/scenario.h"

namespace optimus::io {

// An inline device (system.device): every key but peak_tflops's precisions and gemm_tiles is a
// plain field.
const Fields<DeviceSpec>& device_fields();
// A network tier (system.scale_up, system.scale_out).
const Fields<NetworkTier>& tier_fields(bool scale_up);
// system.operations.
const Fields<SystemOperations>& operations_fields();
// A system's software block (and a software profile's `software`).
const Fields<SoftwareDefaults>& software_fields();
inline constexpr const char* kSoftwareText = "What the software stack does when a scenario does not say.";
// An inline system (its device, tiers, software and operations through the tables above).
const Fields<SystemSpec>& system_fields();
// A parallel layout (scenario.parallel); plan_json writes it, outputs included.
const Fields<ParallelPlan>& parallel_fields();
// The serving scheduler's keys, shared by inference.serving and a software profile's `serving`.
const Fields<ServingSpec>& scheduler_fields();
// inference.serving: the request stream, the scheduler's keys and the objectives (the reader sets
// input_len and output_len to the inference block's first and checks the pools' devices).
const Fields<ServingSpec>& serving_fields();
// A request length: a whole number, {"mean", "max" (, "min")}, {"uniform": [min, max]} or
// [[length, weight], ...]; absent: `fallback` (one whole number).
std::optional<LengthDist> read_length(Reader& r, const std::string& key, std::int64_t fallback);
LengthDist fixed_length(std::int64_t n);
ojson length_json(const LengthDist& l);
// Its schema (the key's description is its docs/contract.md row).
Node length_schema();
// A disaggregated deployment's prefill or decode pool.
const Fields<ServingPool>& pool_fields();
// inference.serving.slo (at least one objective: checked by the serving reader).
const Fields<ServingSlo>& slo_fields();
// The inference workload's own keys (serving and speculative are read, described and written
// beside it: they depend on the scenario around them).
const Fields<InferenceWorkload>& inference_fields();
// The KV cache's precision where inference.kv_precision is absent, under a runtime whose "auto"
// cache follows the checkpoint's quantisation (`follows_weights`) or is the model's 16-bit dtype.
Precision default_kv_precision(const InferenceWorkload& w, bool follows_weights);
// The chip budgets of a technology-derived device (beside its "technology" and "dram" ids).
const Fields<UarchBudget>& budget_fields();
// An inline model (its moe block through a table of its own, attention by code beside it).
const Fields<ModelSpec>& model_fields();
// scenario.training (the cross-key checks that need train_tokens stay in the reader).
const Fields<TrainingWorkload>& training_fields();
// inference.speculative (the draft's vocabulary is checked against the target by the reader).
const Fields<Speculative>& speculative_fields();
// An economics object (presets/economics/*.json or the scenario's own, laid over a preset; the
// reader checks that it gives one price form).
const Fields<Economics>& economics_fields();
// The scenario's rl block (the reader lays the rollout's software profile over the system's).
const Fields<RlWorkload>& rl_fields();
// A software-stack profile (presets/software/*.json or inline): its `software` keys laid over
// `target`, the runtime's CUDA-graph default and the serving scheduler's defaults.
std::optional<SoftwareProfile> read_software_profile(const json& v, const std::string& path,
                                                     SoftwareDefaults& target, std::optional<Error>& err);
// A scenario's calibration block (optimus calibrate writes it).
const Fields<Calibration>& calibration_fields();
// The calibration factors' object (also in the prediction's calibration output).
Node calibration_factors_node();

}  // namespace optimus::io
