#pragma once

#include <string>
#include <vector>

namespace optimus {

// Items as a person lists them in a message: "a", "a or b", "a, b or c" (the layout errors' valid
// values, a preset id's suggestions).
inline std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

}  // namespace optimus
