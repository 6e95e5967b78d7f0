// The paper's studies in JSON: their descriptions (presets/studies/<name>.json, read strictly
// into study/description.h), the PresetSource the studies read from, and their output tables.
// Internal to io/.
#pragma once

#include <string>
#include <string_view>

#include "io/reader.h"
#include "study/study.h"

namespace optimus::io {

// The description of study `name` (the file's id picks the struct). Errors carry the JSON
// Pointer of the offending key under `path`; a name no study knows is "study.unknown".
Result<StudyDescription> read_study(std::string_view name, const json& v, const std::string& path);

// A person's job for a study (study/study.h StudyJob) from JSON text: {"model" (a preset id or
// an inline model), "num_devices", "seq_len", "global_batch", "train_tokens"}, each optional, with
// the scenario's ranges; empty text is no job. Errors: study.malformed_job, or the scenario's
// codes at the key's JSON Pointer.
Result<StudyJob> read_study_job(std::string_view text);

// The presets and study descriptions the studies read, from the embedded presets.
PresetSource embedded_preset_source();

// {"study", "title", "description", "columns", "units", "column_descriptions", "rows", "notes"}.
std::string study_to_json(const StudyTable& t, int indent = -1);

}  // namespace optimus::io
