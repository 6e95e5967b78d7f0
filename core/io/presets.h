// Preset lookup over the presets embedded at build time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "hardware/spec.h"
#include "hardware/uarch.h"
#include "model/spec.h"
#include "study/description.h"

namespace optimus {

struct PresetInfo {
  std::string id;
  std::string name;
  std::string source;
};

// Kinds: "models", "devices", "systems", "scenarios", "technology", "dram", "studies".
std::vector<PresetInfo> list_presets(std::string_view kind);
// The ids alone, in the same order, without parsing any preset (list_presets parses each one for
// its name and source: natively 47% of the first prediction's instructions, for a schema's lists
// of examples).
std::vector<std::string> preset_ids(std::string_view kind);
// Ids match as written, else folded: case, '-', '_' and spaces ignored ("Llama-3.1-8B" names
// llama3.1-8b). preset_id: the preset's own id for a spelling, empty if none matches.
bool has_preset(std::string_view kind, std::string_view id);
std::string preset_id(std::string_view kind, std::string_view id);
// The raw JSON text of a preset, empty if unknown.
std::string_view preset_json(std::string_view kind, std::string_view id);

// Parsed presets; `path` is where the id appeared in the scenario, for error messages.
Result<ModelSpec> model_preset(std::string_view id, const std::string& path);
Result<DeviceSpec> device_preset(std::string_view id, const std::string& path);
Result<SystemSpec> system_preset(std::string_view id, const std::string& path);
// The JSON text of a software-stack profile (presets/software/<id>.json); preset.unknown_software
// at `path` when there is none.
Result<std::string_view> software_preset_json(std::string_view id, const std::string& path);
// uArch engine inputs: presets/technology/<id>.json and presets/dram/<id>.json.
Result<TechnologyNode> technology_preset(std::string_view id, const std::string& path);
Result<DramTechnology> dram_preset(std::string_view id, const std::string& path);
// The description of a paper study: presets/studies/<study name>.json.
Result<StudyDescription> study_preset(std::string_view id, const std::string& path);

}  // namespace optimus
