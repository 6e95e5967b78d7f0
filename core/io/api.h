// The engine's JSON surface, shared by the CLI and the WebAssembly bindings: strings in,
// strings out, errors in band as {"error": {"code", "path", "message"}}. Never throws.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "scenario/scenario.h"

namespace optimus::api {

// Scenario JSON (docs/contract.md) -> prediction JSON, or an error object.
std::string predict(std::string_view scenario_json);

// Calibration to measurements (issue 38; docs/calibration.md): JSON Lines, one
// {"scenario", "metric", "measured"} per line -> {"calibration": <the scenario key `calibration`>,
// "fitted": [{"factor", "value", "low", "high", "fitted", "bounds"}], "cases": [{"line", "metric",
// "measured", "before", "after", "sensitivity"}], "warnings": [{"code", "message"}]} or an error
// object (paths "/<line>/...").
std::string calibrate(std::string_view jsonl);

// Scenario JSON -> {"ok": true, "scenario": <scenario with presets resolved and defaults
// filled in>} or an error object.
std::string validate(std::string_view scenario_json);

// validate's checks for native callers (the importers): the scenario read, its "auto" layouts
// resolved and checked as predict would, or the first error. May throw (validate catches).
Result<Scenario> checked_scenario(std::string_view scenario_json);

// {"models": [{"id", "name", ...}], "devices": [...], "systems": [...], "scenarios": [...],
// "technology": [...], "dram": [...], "studies": [...]}; kind = "" for all, or one of those
// names.
std::string presets(std::string_view kind);

// One preset's JSON object (as stored), or an error object with code "preset.unknown".
std::string preset(std::string_view kind, std::string_view id);

// Parallel-layout search (core/search/search.h): the keys the scenario's `parallel` gives are
// fixed, the others searched. options_json ("" or an object): "top" (1-1000, default 10),
// "mode" ("training" | "inference"; default training when the scenario has `training`),
// "objective" ("throughput" | "latency", inference only), "max_ttft_s" / "max_tpot_s"
// (inference latency bounds), "max_batch" (inference, default 1024), "points" (bool: add up
// to 5000 {"parallel", "time_s", "memory_bytes", "feasible", "reason"} entries for plots).
// Returns {"mode", "evaluated", "feasible", "rejected": {code: count}, "elapsed_s",
// "layouts_per_s", "cancelled", "best": [{"parallel", "training" | "inference", "memory",
// "warnings"}], "points"?: [...]} or an error object. progress(fraction) is called now and
// then; returning false cancels (the result then has "cancelled": true and what was found).
std::string search(std::string_view scenario_json, std::string_view options_json,
                   const std::function<bool(double)>& progress = {});

// The paper's studies (core/study/study.h): {"studies": [{"name", "title", "description"}, ...]}.
std::string studies();

// One study run on the engine: {"study", "title", "description", "columns": [row keys in
// order], "units": {key: unit}, "column_descriptions": {key: text}, "rows": [{...}], "notes":
// [...]}; unknown name -> error code "study.unknown" (path "").
// `job` (JSON text, empty for none): a person's own job for the cheapest-accelerator study
// (io/study_io.h read_study_job); another study given one is study.job_not_supported.
std::string study(std::string_view name, std::string_view job = {});

// The JSON Schemas (draft 2020-12) of the contract, built by the engine (io/schema.h):
// {"scenario": <what predict, validate and search accept>, "prediction": <what predict returns>}.
// Numbers with a unit carry it in their description and in the annotation keyword "x-unit"; a
// model key whose default follows the norm carries "x-default-by-norm".
std::string schema();

// Whether a JSON string is an error object (for callers that set exit codes).
bool is_error(std::string_view json);

}  // namespace optimus::api
