// docs/contract.md against the engine: the document names every key of the scenario schema and
// every field of the prediction schema the engine builds (api::schema()), its key and field tables
// are where the schema's descriptions and units come from (a row per property; cmake/
// contract_text.cmake reads them, io/contract_text.h), their type, default and range columns
// agree with the schema, and the document names every dotted code
// the engine's sources can emit (error and warning codes, search rejection reasons, the share
// link's codes). Keys are written in the document as `dotted.path`; an object that occurs in
// several places is described once under its canonical path (kCanonical), the rest of the
// schema by its JSON path. Codes are found as the string literals of the sources that look like
// "area.name": every code is made from such a literal (core/base/result.h: Error and Warning take
// the code as a string), so a new code cannot escape the scan; output paths written as literals
// (the uncertainty keys) are documented too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "hardware/spec.h"
#include "io/api.h"
#include "io/contract_text.h"
#include "io/reader.h"
#include "io/schema.h"
#include "model/spec.h"

namespace contract_doc_test {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

const fs::path kSource = OPTIMUS_SOURCE_DIR;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& contract() {
  static const std::string doc = read_file(kSource / "docs" / "contract.md");
  return doc;
}

bool documented(const std::string& name) { return contract().find("`" + name + "`") != std::string::npos; }

const json& schemas() {
  static const json both = json::parse(optimus::api::schema());
  return both;
}

optimus::io::DocTable table_of(const std::string& which) {
  return which == "scenario" ? optimus::io::DocTable::scenario : optimus::io::DocTable::prediction;
}

// Every property of one schema (io::walk_schema): its dotted path, node and whether it is required.
struct Property {
  std::string path;
  json node;
  bool required;
};
std::vector<Property> properties(const std::string& which) {
  json root = schemas()[which];
  std::vector<Property> out;
  optimus::io::walk_schema(root, table_of(which), [&](const std::string& p, json& node, bool required) {
    out.push_back({p, node, required});
  });
  return out;
}

std::vector<std::string> schema_paths(const std::string& which) {
  std::vector<std::string> out;
  for (const auto& p : properties(which)) out.push_back(p.path);
  return out;
}

// The dotted literals of the sources: "area.name" in C++ (core/, cli/, wasm/) and 'area.name' in
// the share-link codec (web/src/codec/). A literal ending in '_' is a prefix the code completes
// ("preset.unknown_" + kind).
std::set<std::string> code_literals() {
  std::set<std::string> out;
  const std::regex cpp("\"([a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*)\"");
  const std::regex ts("'([a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*)'");
  const auto scan = [&](const fs::path& dir, const std::regex& re, std::initializer_list<const char*> exts) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      bool wanted = false;
      for (const char* x : exts) wanted = wanted || ext == x;
      if (!wanted) continue;
      const std::string text = read_file(e.path());
      for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
        out.insert((*it)[1].str());
    }
  };
  for (const char* d : {"core", "cli", "wasm"}) scan(kSource / d, cpp, {".cpp", ".h"});
  scan(kSource / "web" / "src" / "codec", ts, {".ts"});
  return out;
}

TEST(ContractDoc, Exists) { ASSERT_GT(contract().size(), 1000u) << (kSource / "docs" / "contract.md"); }

TEST(ContractDoc, NamesEveryScenarioKey) {
  const auto paths = schema_paths("scenario");
  EXPECT_GT(paths.size(), 300u);  // the walk reached the whole schema
  for (const auto& p : paths)
    EXPECT_TRUE(documented(p)) << "docs/contract.md does not name the scenario key `" << p << "`";
}

TEST(ContractDoc, NamesEveryPredictionField) {
  const auto paths = schema_paths("prediction");
  EXPECT_GT(paths.size(), 200u);
  for (const auto& p : paths)
    EXPECT_TRUE(documented(p)) << "docs/contract.md does not name the prediction field `" << p << "`";
}

TEST(ContractDoc, NamesEveryCode) {
  const auto codes = code_literals();
  // The scan finds the codes the tests assert elsewhere (a guard against a scan that finds nothing).
  for (const char* known : {"scenario.unknown_key", "parallel.tp_not_divisor_of_heads", "memory.does_not_fit",
                            "run.no_price", "internal.exception", "link.corrupt"})
    EXPECT_TRUE(codes.count(known)) << known;
  for (const auto& c : codes) {
    if (c.back() == '_') {
      EXPECT_NE(contract().find("`" + c), std::string::npos)
          << "docs/contract.md names no code `" << c << "...`";
    } else {
      EXPECT_TRUE(documented(c)) << "docs/contract.md does not name the code `" << c << "`";
    }
  }
}

// The other direction: a table row of docs/contract.md that names a key, field or code (its first
// cell one `name`) names one the engine still has, so a removed key cannot stay documented (the
// search options' table aside: they are not in the scenario schema).
TEST(ContractDoc, RowsNameWhatTheEngineHas) {
  std::set<std::string> known;
  for (const char* which : {"scenario", "prediction"})
    for (const auto& p : schema_paths(which)) known.insert(p);
  const auto codes = code_literals();
  const std::regex row("^\\| `([a-z0-9_.\\[\\]]+)` \\|");
  std::istringstream lines(contract());
  int rows = 0;
  bool search_options = false;  // the search's options are not part of the scenario schema
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("## ")) search_options = line == "## Search and studies";
    std::smatch m;
    if (search_options || !std::regex_search(line, m, row)) continue;
    ++rows;
    const std::string name = m[1].str();
    bool ok = known.count(name) || codes.count(name);
    for (const auto& c : codes) ok = ok || (c.back() == '_' && name.starts_with(c));
    EXPECT_TRUE(ok) << "docs/contract.md has a row for `" << name << "`, which the engine does not have";
  }
  EXPECT_GT(rows, 600);
}

// ---- The document as the schema's text (issue 41) ------------------------------------------------

template <class Row>
const Row* row_of(std::span<const Row> rows, const std::string& path) {
  const auto it = std::lower_bound(rows.begin(), rows.end(), path, [](const Row& r, const std::string& p) {
    return std::string(r.path) < p;
  });
  return it != rows.end() && it->path == path ? &*it : nullptr;
}

TEST(ContractDoc, TablesAreSortedWithOneRowPerPath) {
  for (const char* which : {"scenario", "prediction"}) {
    const auto rows = optimus::io::doc_text(table_of(which));
    const auto columns = optimus::io::doc_columns(table_of(which));
    EXPECT_GT(rows.size(), 200u) << which;
    ASSERT_EQ(rows.size(), columns.size()) << which;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(std::string(rows[i].path), columns[i].path);
      if (i > 0) {
        EXPECT_LT(std::string(rows[i - 1].path), rows[i].path) << which;
      }
    }
  }
}

// Every property of both schemas has a row in docs/contract.md with a meaning, and its description
// and unit are that row's.
TEST(ContractDoc, EveryPropertyIsDescribedByItsRow) {
  for (const char* which : {"scenario", "prediction"}) {
    const auto rows = optimus::io::doc_text(table_of(which));
    for (const auto& p : properties(which)) {
      const auto* row = row_of(rows, p.path);
      if (!row) {
        ADD_FAILURE() << "docs/contract.md has no " << (std::string(which) == "scenario" ? "key" : "field")
                      << " table row for the " << which << " property `" << p.path << "`";
        continue;
      }
      const std::string meaning = row->meaning, unit = row->unit;
      EXPECT_FALSE(meaning.empty()) << "docs/contract.md: the row of `" << p.path << "` has no meaning";
      const std::string text = meaning + (unit.empty() ? "" : " Unit: " + unit + ".");
      EXPECT_EQ(p.node.value("description", ""), text) << which << " " << p.path;
      EXPECT_EQ(p.node.value(optimus::io::kUnitKeyword, ""), unit) << which << " " << p.path;
    }
  }
}

// A number written as docs/contract.md writes a range bound or a default.
bool same_number(const json& a, const json& b) {
  if (!a.is_number() || !b.is_number()) return a == b;
  const double x = a.get<double>(), y = b.get<double>();
  return std::fabs(x - y) <= 1e-5 * std::max(std::fabs(x), std::fabs(y));  // the document rounds to 6 digits
}

// The `[lo, hi]` a range cell starts with (a bound may follow: "[0.01, 100], bounds ...").
json range_of(const std::string& cell) {
  if (!cell.starts_with("[")) return nullptr;
  return json::parse(cell.substr(0, cell.find(']') + 1), nullptr, false);
}

// The key tables' hand-written type, default and range columns say what the schema says: a key the
// schema requires is `**required**` (and only then), a stated default is the schema's, a
// [minimum, maximum] range is the schema's, an enum lists its values as `a` | `b`, any other type
// starts with the schema's type.
TEST(ContractDoc, KeyColumnsAgreeWithTheSchema) {
  const auto columns = optimus::io::doc_columns(optimus::io::DocTable::scenario);
  int checked = 0;
  for (const auto& p : properties("scenario")) {
    const auto* row = row_of(columns, p.path);
    if (!row) continue;  // EveryPropertyIsDescribedByItsRow names it
    ++checked;
    const std::string type = row->type, def = row->def, range = row->range;
    const json& n = p.node;
    EXPECT_EQ(def == "**required**", p.required) << "`" << p.path << "`: default column '" << def << "'";
    if (n.contains("default")) {
      std::string cell = def;
      std::erase(cell, '`');
      const json stated = json::parse(cell, nullptr, false);
      EXPECT_TRUE(same_number(stated, n["default"]))
          << "`" << p.path << "`: the schema's default is " << n["default"].dump() << ", the document's '"
          << def << "'";
    }
    if (n.contains("minimum") && n.contains("maximum")) {
      const json r = range_of(range);
      EXPECT_TRUE(r.is_array() && r.size() == 2 && same_number(r[0], n["minimum"]) &&
                  same_number(r[1], n["maximum"]))
          << "`" << p.path << "`: the schema's range is [" << n["minimum"].dump() << ", "
          << n["maximum"].dump() << "], the document's '" << range << "'";
    }
    if (n.contains("enum")) {
      std::string want;
      for (const auto& e : n["enum"]) want += (want.empty() ? "`" : " | `") + e.get<std::string>() + "`";
      EXPECT_EQ(type, want) << "`" << p.path << "`: type column";
    } else if (n.contains("type")) {
      EXPECT_TRUE(type.starts_with(n["type"].get<std::string>()))
          << "`" << p.path << "`: the schema's type is " << n["type"] << ", the document's '" << type << "'";
    }
  }
  EXPECT_GT(checked, 300);
}

// The field tables' type column starts with the schema's type (an enum's lists its values).
TEST(ContractDoc, FieldTypesAgreeWithTheSchema) {
  const auto columns = optimus::io::doc_columns(optimus::io::DocTable::prediction);
  for (const auto& p : properties("prediction")) {
    const auto* row = row_of(columns, p.path);
    if (!row || !p.node.contains("type")) continue;
    const std::string type = row->type;
    EXPECT_TRUE(type.starts_with(p.node["type"].get<std::string>()) || p.node.contains("enum"))
        << "`" << p.path << "`: the schema's type is " << p.node["type"] << ", the document's '" << type
        << "'";
  }
}

// Descriptions the engine once built from its constants are the document's text now: the numbers
// in them are the engine's.
TEST(ContractDoc, NumbersInTheTextAreTheEngines) {
  const auto rows = optimus::io::doc_text(optimus::io::DocTable::scenario);
  const auto text = [&](const std::string& path) {
    const auto* r = row_of(rows, path);
    return r ? std::string(r->meaning) : std::string();
  };
  using optimus::plain_number;
  const std::string bulk =
      "Default: " + plain_number(optimus::NetworkTier::default_bulk_latency(optimus::Seconds(1)).value) +
      " x latency_us.";
  for (const char* tier : {"system.scale_up", "system.scale_out"})
    EXPECT_NE(text(std::string(tier) + ".bulk_latency_us").find(bulk), std::string::npos)
        << tier << ": " << bulk;
  EXPECT_NE(text("model.moe.imbalance").find(plain_number(optimus::kMeasuredImbalance) + " when measured"),
            std::string::npos);
  // The per-norm defaults (x-default-by-norm) as the text states them.
  for (const auto& p : properties("scenario")) {
    if (!p.node.contains(optimus::io::kDefaultByNormKeyword)) continue;
    std::string want = "Default by norm: ";
    bool first = true;
    for (const auto& [norm, v] : p.node[optimus::io::kDefaultByNormKeyword].items()) {
      want += (first ? "" : ", ") + norm + " " + v.dump();
      first = false;
    }
    EXPECT_NE(text(p.path).find(want + "."), std::string::npos) << p.path << ": " << want;
  }
}

// The README is a front door (issue 41): at most 200 lines, and one fenced block of set-up commands
// with exactly two of them (run, test), the one `.ci/run` calls among them.
TEST(Readme, IsAFrontDoorWithTwoCommands) {
  std::ifstream in(kSource / "README.md");
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  EXPECT_LE(lines.size(), 200u) << "README.md has " << lines.size() << " lines";
  const auto open = std::find(lines.begin(), lines.end(), "```sh");
  ASSERT_NE(open, lines.end()) << "README.md has no ```sh block";
  const auto close = std::find(open + 1, lines.end(), "```");
  ASSERT_EQ(close - open, 3) << "the set-up block holds two commands";
  const std::string runner = read_file(kSource / ".ci" / "run");
  const std::string test_command = (open + 2)->substr(0, (open + 2)->find(' '));
  EXPECT_EQ(test_command, "scripts/test");
  EXPECT_NE(runner.find(test_command), std::string::npos) << ".ci/run does not call " << test_command;
  // A picture of the page, a PNG in the repository (issue 41's front door).
  const auto picture =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("![", 0) == 0; });
  ASSERT_NE(picture, lines.end()) << "README.md shows no picture of the page";
  const auto at = picture->find("](");
  ASSERT_NE(at, std::string::npos);
  const std::string target = picture->substr(at + 2, picture->find(')', at) - at - 2);
  const std::string png = read_file(kSource / target);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8))
      << target << " is not a PNG in the repository";
}

}  // namespace

}  // namespace contract_doc_test
