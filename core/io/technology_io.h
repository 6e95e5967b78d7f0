// JSON readers for the uArch engine's inputs (presets/technology, presets/dram) and for a
// device or system given as a technology node plus budgets (presets/README.md,
// "Technology presets"). Internal to io/.
#pragma once

#include <string>

#include "hardware/uarch.h"
#include "io/reader.h"

namespace optimus::io {

Result<TechnologyNode> read_technology(const json& v, const std::string& path);
Result<DramTechnology> read_dram(const json& v, const std::string& path);

// The budget keys of such an object (all but technology and dram): area_mm2, power_W, ...
UarchBudget read_budget(Reader& r);

// {"technology": "<node id>", "dram": "<dram id>" (optional), "area_mm2", "power_W", ...}:
// the derived device, or a system around it. Path of errors: where the object sits.
Result<UarchDerivation> read_uarch(const json& v, const std::string& path, UarchBudget* budget_out = nullptr);
Result<DeviceSpec> read_uarch_device(const json& v, const std::string& path);
Result<SystemSpec> read_uarch_system(const json& v, const std::string& path);

// Whether an inline device or system object asks for the uArch engine.
inline bool is_uarch_object(const json& v) { return v.is_object() && v.contains("technology"); }

}  // namespace optimus::io
