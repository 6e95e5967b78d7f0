// Presets compiled into the binary (generated from presets/ by cmake/embed_presets.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace optimus {

struct EmbeddedPreset {
  std::string_view kind;  // "models", "devices", "systems", "scenarios", ...
  std::string_view id;    // file name without .json
  std::string_view json;
};

const std::vector<EmbeddedPreset>& embedded_presets();

}  // namespace optimus
