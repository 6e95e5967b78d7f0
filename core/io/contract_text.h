// docs/contract.md's key and field tables as C++ (internal to io/): generated at build time by
// cmake/contract_text.cmake, so the document is the one place a key's meaning and unit are
// written. The schema builder (io/schema.cpp) sets each property's `description` and `x-unit`
// from doc_text(); nothing else refers to it, so a module that never builds a schema (the page's
// first-load engine) links none of the text. doc_columns() (type, default, range as written) is
// for the test that checks those columns against the schema.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace optimus::io {

// The scenario's keys (the `| key | ...` tables) or the prediction's fields (`| field | ...`).
enum class DocTable : std::uint8_t { scenario, prediction };

struct DocText {
  const char* path;     // dotted path, e.g. "system.device.memory.bandwidth_GBps"
  const char* meaning;  // the `meaning` cell as plain text (no backticks, links as their text)
  const char* unit;     // the `unit` cell; "" when none
};

struct DocColumns {
  const char* path;
  const char* type;
  const char* def;    // the `default` cell as written ("" in field tables)
  const char* range;  // the `range` cell as written ("" in field tables)
};

// Each table sorted by path (byte order), one row per path.
std::span<const DocText> doc_text(DocTable t);
std::span<const DocColumns> doc_columns(DocTable t);

}  // namespace optimus::io
