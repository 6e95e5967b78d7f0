// libFuzzer target: arbitrary bytes as a scenario (docs/contract.md) through validate() and
// predict(), checked by fuzz_check.h. Seeds: tests/fuzz/corpus/scenario_json/ (the preset
// scenarios, inline variants and error cases); scenario_json.dict gives the mutator the keys and enum
// values, so mutations reach past the parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;  // scenarios are small; longer inputs only slow the parser down
  optimus::fuzz::check_scenario(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
