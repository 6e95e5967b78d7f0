// docs/contract.md against the engine: the document names every key of the scenario schema and
// every field of the prediction schema the engine builds (api::schema()), and every dotted code
// the engine's sources can emit (error and warning codes, search rejection reasons, the share
// link's codes). Keys are written in the document as `dotted.path`; an object that occurs in
// several places is described once under its canonical path (kCanonical), the rest of the
// schema by its JSON path. Codes are found as the string literals of the sources that look like
// "area.name": every code is made from such a literal (core/base/result.h: Error and Warning take
// the code as a string), so a new code cannot escape the scan; output paths written as literals
// (the uncertainty keys) are documented too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/api.h"

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

// Where docs/contract.md describes each shared definition ($defs) of the two schemas.
std::string canonical(const std::string& which, const std::string& def) {
  static const std::map<std::string, std::string> scenario = {{"software", "system.software"},
                                                              {"software_profile", "software"},
                                                              {"device", "system.device"},
                                                              {"scale_up", "system.scale_up"},
                                                              {"scale_out", "system.scale_out"}};
  static const std::map<std::string, std::string> prediction = {{"chosen_layout", "parallel_auto.parallel"},
                                                                {"operator", "inference.operators[]"},
                                                                {"token_cost", "inference.cost"},
                                                                {"rl_role", "rl.roles.actor"}};
  const auto& m = which == "scenario" ? scenario : prediction;
  const auto it = m.find(def);
  return it == m.end() ? def : it->second;
}

// Every key path of a schema: properties in order, through oneOf/anyOf alternatives and array
// items, each $defs entry expanded once under its canonical path.
void walk(const json& root, const std::string& which, const json& node, const std::string& path,
          std::set<std::string>& seen, std::vector<std::string>& out) {
  if (!node.is_object()) return;
  if (node.contains("$ref")) {
    const std::string ref = node["$ref"].get<std::string>();
    const std::string def = ref.substr(ref.rfind('/') + 1);
    if (seen.insert(def).second) walk(root, which, root["$defs"][def], canonical(which, def), seen, out);
    return;
  }
  for (const char* k : {"oneOf", "anyOf", "allOf"})
    if (node.contains(k))
      for (const auto& alt : node[k]) walk(root, which, alt, path, seen, out);
  if (node.contains("items") && node["items"].is_object())
    walk(root, which, node["items"], path + "[]", seen, out);
  if (node.contains("properties"))
    for (const auto& [key, sub] : node["properties"].items()) {
      const std::string p = path.empty() ? key : path + "." + key;
      out.push_back(p);
      walk(root, which, sub, p, seen, out);
    }
}

std::vector<std::string> schema_paths(const std::string& which) {
  static const json both = json::parse(optimus::api::schema());
  const json& root = both[which];
  std::set<std::string> seen;
  std::vector<std::string> out;
  walk(root, which, root, "", seen, out);
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

}  // namespace
