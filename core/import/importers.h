// Importers (issue 38), a module above io/: a benchmark tool's own output and the scenario the run
// used in, measurement lines for optimus calibrate out ({"scenario", "metric", "measured"}), with the
// scenario keys the file states filled in and what the file holds that was not read listed.
#pragma once

#include <string>
#include <string_view>

namespace optimus::api {

// FORMAT: "vllm" (vllm bench serve --save-result JSON), "sglang" (sglang.bench_serving
// --output-file JSON Lines: the last line), "trtllm-bench" (trtllm-bench throughput report text),
// "megatron" (Megatron-LM / NeMo / torchtitan training log), "inferencex" (InferenceX result rows,
// CSV with its header), "verl" (verl's console metrics: an RL job's step and phase timings).
// Returns {"format", "measurements": [{"scenario", "metric", "measured"}],
// "filled": ["<scenario key> = <value> (from <field>)"], "unread": ["<field>", ...]} or an error
// object: import.unknown_format, import.malformed (the file is not what FORMAT writes),
// import.nothing_measured, import.scenario_invalid (the scenario with the file's keys filled in
// does not read: its own error inside the message, path into the scenario).
std::string import_measurements(std::string_view format, std::string_view file,
                                std::string_view scenario_json);

}  // namespace optimus::api
