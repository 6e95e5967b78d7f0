#include "io/presets.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <vector>

#include "base/words.h"
#include "io/embedded_presets.h"
#include "io/reader.h"
#include "io/study_io.h"
#include "io/technology_io.h"

namespace optimus {

using io::json;

namespace {

// An id as people write it, for matching: letters lowered, '-', '_' and spaces left out, so
// "Llama-3.1-8B", "DGX_H100" and "TensorRT-LLM" name llama3.1-8b, dgx-h100 and tensorrt-llm. Dots
// and digits stay ("llama3.1" is not "llama31"). No two presets of a kind fold alike
// (Io.PresetIdsMatchAsPeopleWriteThem).
std::string folded(std::string_view id) {
  std::string out;
  for (const char c : id)
    if (c != '-' && c != '_' && c != ' ')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The preset of that id, else the one whose id folds alike.
const EmbeddedPreset* find(std::string_view kind, std::string_view id) {
  for (const auto& p : embedded_presets())
    if (p.kind == kind && p.id == id) return &p;
  const std::string want = folded(id);
  if (want.empty()) return nullptr;
  for (const auto& p : embedded_presets())
    if (p.kind == kind && folded(p.id) == want) return &p;
  return nullptr;
}

std::string known_ids(std::string_view kind) {
  std::string out;
  for (const auto& p : embedded_presets())
    if (p.kind == kind) out += (out.empty() ? "" : ", ") + std::string(p.id);
  return out;
}

// Whether one of the id's hyphen-separated parts folds to `want` ("h100" in dgx-h100).
bool has_part(std::string_view id, const std::string& want) {
  for (std::size_t start = 0; start <= id.size();) {
    const std::size_t dash = std::min(id.find('-', start), id.size());
    if (folded(id.substr(start, dash - start)) == want) return true;
    start = dash + 1;
  }
  return false;
}

// What a mistyped id of that kind may have meant, as "'a' or 'b'", else empty: the presets of
// which it is a whole part (a GPU named for a system: "h100" -> dgx-h100; "llama3" -> its three
// sizes), else those whose folded id begins with it (at least 4 characters: "qwen3-235b" ->
// qwen3-235b-a22b), else the nearest by edit distance (at most a quarter of its characters, and at
// least one, away: "dgx-h10" -> dgx-h100); ties all named, three at most (more: none, it is
// ambiguous: "deepseek").
std::string nearest_ids(std::string_view kind, std::string_view id) {
  const std::string want = folded(id);
  // Ids are short; a longer "id" is no typo of one (and the distance would cost its length times
  // every preset's).
  if (want.empty() || want.size() > 64) return "";
  std::vector<std::string> prefixed, parts, nearest;
  const std::size_t limit = std::max<std::size_t>(1, want.size() / 4);
  std::size_t best = limit;
  for (const auto& p : embedded_presets()) {
    if (p.kind != kind) continue;
    const std::string f = folded(p.id);
    if (want.size() >= 4 && f.starts_with(want)) prefixed.emplace_back(p.id);
    if (has_part(p.id, want)) parts.emplace_back(p.id);
    const std::size_t d = edit_distance(want, f);
    if (d > best) continue;
    if (d < best) best = d, nearest.clear();
    nearest.emplace_back(p.id);
  }
  const std::vector<std::string>& pick = !parts.empty() ? parts : !prefixed.empty() ? prefixed : nearest;
  if (pick.empty() || pick.size() > 3) return "";
  std::vector<std::string> quoted;
  for (const std::string& name : pick) quoted.push_back("'" + name + "'");
  return or_list(quoted);
}

Error unknown(std::string_view kind, std::string_view id, const std::string& path) {
  // "models" -> "model", "studies" -> "study"; kinds without a plural s ("technology", "dram")
  // stay as they are.
  std::string singular(kind.back() == 's' ? kind.substr(0, kind.size() - 1) : kind);
  if (singular.ends_with("ie")) singular.replace(singular.size() - 2, 2, "y");
  const std::string near = nearest_ids(kind, id);
  return make_error("preset.unknown_" + singular, path,
                    "unknown " + singular + " preset '" + std::string(id) + "'" +
                        (near.empty() ? "" : "; did you mean " + near + "?") + "; known: " + known_ids(kind));
}

// Presets are parsed once and cached (they are immutable and embedded).
template <class T, class F>
Result<T> cached(std::string_view kind, std::string_view id, const std::string& path, F parse) {
  static std::mutex mu;
  static std::map<std::string, Result<T>, std::less<>> cache;
  const EmbeddedPreset* p = find(kind, id);
  if (!p) return unknown(kind, id, path);
  std::string key(p->id);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  Result<T> r = [&]() -> Result<T> {
    json j;
    try {
      j = json::parse(p->json.begin(), p->json.end());
    } catch (const json::exception& e) {
      return make_error("preset.malformed", path,
                        "preset " + std::string(kind) + "/" + key + " is not valid JSON: " + e.what());
    }
    auto parsed = parse(j, "presets/" + std::string(kind) + "/" + key);
    if (!parsed) {
      Error e = parsed.error();
      e.message = "in preset " + std::string(kind) + "/" + key + " at " + e.path + ": " + e.message;
      e.path = path;
      return e;
    }
    return parsed;
  }();
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, r);
  return r;
}

}  // namespace

std::vector<PresetInfo> list_presets(std::string_view kind) {
  std::vector<PresetInfo> out;
  for (const auto& p : embedded_presets()) {
    if (p.kind != kind) continue;
    PresetInfo info{std::string(p.id), "", ""};
    try {
      const json j = json::parse(p.json.begin(), p.json.end());
      if (j.is_object()) {
        if (j.contains("name") && j["name"].is_string()) info.name = j["name"].get<std::string>();
        if (j.contains("source") && j["source"].is_string()) info.source = j["source"].get<std::string>();
      }
    } catch (const json::exception&) {
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::string> preset_ids(std::string_view kind) {
  std::vector<std::string> out;
  for (const auto& p : embedded_presets())
    if (p.kind == kind) out.emplace_back(p.id);
  return out;
}

bool has_preset(std::string_view kind, std::string_view id) { return find(kind, id) != nullptr; }

std::string preset_id(std::string_view kind, std::string_view id) {
  const EmbeddedPreset* p = find(kind, id);
  return p ? std::string(p->id) : std::string();
}

Result<std::string_view> software_preset_json(std::string_view id, const std::string& path) {
  const EmbeddedPreset* p = find("software", id);
  if (!p) return unknown("software", id, path);
  return p->json;
}

std::string_view preset_json(std::string_view kind, std::string_view id) {
  const EmbeddedPreset* p = find(kind, id);
  return p ? p->json : std::string_view();
}

Result<ModelSpec> model_preset(std::string_view id, const std::string& path) {
  return cached<ModelSpec>("models", id, path, io::read_model);
}

Result<DeviceSpec> device_preset(std::string_view id, const std::string& path) {
  return cached<DeviceSpec>("devices", id, path, io::read_device);
}

Result<SystemSpec> system_preset(std::string_view id, const std::string& path) {
  return cached<SystemSpec>("systems", id, path, io::read_system);
}

Result<TechnologyNode> technology_preset(std::string_view id, const std::string& path) {
  auto r = cached<TechnologyNode>("technology", id, path, io::read_technology);
  if (!r) return r;
  TechnologyNode n = *r;
  n.id = preset_id("technology", id);
  return n;
}

Result<DramTechnology> dram_preset(std::string_view id, const std::string& path) {
  auto r = cached<DramTechnology>("dram", id, path, io::read_dram);
  if (!r) return r;
  DramTechnology d = *r;
  d.id = preset_id("dram", id);
  return d;
}

Result<StudyDescription> study_preset(std::string_view id, const std::string& path) {
  return cached<StudyDescription>(
      "studies", id, path, [id](const json& j, const std::string& at) { return io::read_study(id, j, at); });
}

}  // namespace optimus
