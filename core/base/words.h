#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// A number as a message writes it: a whole number as one ("100", not "1e+02"), else the fewest
// significant digits that read back as the same double (what a JSON writer prints: 1.5, 0.05,
// 1e-05). Whole numbers beyond 9e15 (past 2^53 every double is whole) keep the short form.
inline std::string plain_number(double v) {
  char buf[32];
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace optimus
