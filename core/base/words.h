#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optimus {

// Names joined by `sep` ("a, b, c"): the known names an error lists, a chain of presets.
template <class Names>
std::string join(const Names& names, std::string_view sep) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? std::string() : std::string(sep)) + std::string(n);
  return out;
}

// Items as a person lists them in a message: "a", "a or b", "a, b or c" (the layout errors' valid
// values, a preset id's suggestions).
inline std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

// A number as a message writes it: a whole number as one ("100", not "1e+02"), else the fewest
// significant digits that read back as the same double (1.5, 0.05), in decimals down to a
// millionth ("0.000001", where %g and a JSON writer print 1e-06) as the page's formatter writes
// them (web/src/base/format.ts sig). Smaller magnitudes, and whole numbers beyond 9e15 (past 2^53
// every double is whole), keep the exponent form.
inline std::string plain_number(double v) {
  char buf[40];
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  if (std::fabs(v) >= 1e-6 && std::fabs(v) < 1e-4) {
    // %g's exponent form below 1e-4: the same digits after the decimal point instead.
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    std::snprintf(buf, sizeof buf, "%.*f", std::min(digits, 17) - 1 - exponent, v);
  }
  return buf;
}

// Edit distance with adjacent transpositions (the optimal string alignment distance): insertions,
// deletions, substitutions and swaps of two neighbouring characters, one each, as people mistype
// ("modles" is one swap from models, where plain Levenshtein counts two).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

// The one word of `words` a mistyped `word` most likely meant: the nearest by edit distance, at
// most a quarter of its characters (and at least one) away ("trainig" -> training, "seqlen" ->
// seq_len); empty when none is that near or two are equally near. Words over 64 characters are no
// typo of a key.
template <class Words>
std::string nearest_word(std::string_view word, const Words& words);

// The key among `unread` (keys a reader did not take) that a missing `key` was probably written
// as: nearest_word's pick, for keys of four characters or more (shorter ones are too near to
// anything); empty when none.
template <class Words>
std::string misspelt_as(std::string_view key, const Words& unread) {
  return key.size() >= 4 ? nearest_word(key, unread) : "";
}

// "; did you mean 'x'?" for the name nearest_word finds among `words`, else empty: what an error
// about an unknown name appends.
template <class Words>
std::string did_you_mean(std::string_view word, const Words& words) {
  const std::string near = nearest_word(word, words);
  return near.empty() ? "" : "; did you mean '" + near + "'?";
}

template <class Words>
std::string nearest_word(std::string_view word, const Words& words) {
  if (word.empty() || word.size() > 64) return "";
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 4);
  std::size_t best = limit + 1;
  std::string pick;
  bool tie = false;
  for (const auto& w : words) {
    const std::size_t d = edit_distance(word, w);
    if (d == 0 || d > limit || d > best) continue;
    tie = d == best;
    if (d < best) best = d, pick = std::string(w);
  }
  return tie ? "" : pick;
}

}  // namespace optimus
