// The structure-aware mutation shared by the scenario_mutate and search fuzz targets: the fuzz
// input is read as a recipe of edits to a valid JSON document (see scenario_mutate_fuzz.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "fuzz_check.h"

namespace optimus::fuzz {

using Pointer = json::json_pointer;

// Reads the recipe; past its end every read is 0, so any input is a complete recipe.
class Recipe {
 public:
  Recipe(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint64_t bits(int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(pos_ < size_ ? data_[pos_++] : 0) << (8 * i);
    return v;
  }
  std::size_t below(std::size_t n) {
    if (n <= 1) return 0;
    return static_cast<std::size_t>(bits(n <= 256 ? 1 : 2) % n);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

inline const char* kStrings[] = {
    "",        "x",      "none",     "selective", "full",       "fp32",          "tf32",     "fp16",
    "bf16",    "fp8",    "int8",     "int4",      "gelu",       "swiglu",        "relu2",    "layernorm",
    "rmsnorm", "flash",  "standard", "gpt3-175b", "llama2-70b", "dgx-a100-80gb", "dgx-h100", "h100-sxm5-80gb",
    "learned", "rotary", "mha",      "gqa",       "mqa",        "pairwise",      "ring"};

inline const double kNumbers[] = {0,
                                  -1,
                                  1,
                                  2,
                                  3,
                                  4,
                                  7,
                                  8,
                                  16,
                                  64,
                                  96,
                                  1000,
                                  1024,
                                  65536,
                                  1e6,
                                  1e8,
                                  1e9,
                                  2147483647.0,
                                  2147483648.0,
                                  4294967296.0,
                                  9007199254740992.0,
                                  9.2e18,
                                  9223372036854775808.0,
                                  1.8446744073709552e19,
                                  1e30,
                                  1e300,
                                  1.7976931348623157e308,
                                  -1e300,
                                  1e-3,
                                  1e-6,
                                  1e-7,
                                  1e-300,
                                  4.9e-324,
                                  0.5,
                                  0.999,
                                  1.5,
                                  2.5};

inline json number(double v) {
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.2e18)
    return json(static_cast<std::int64_t>(v));
  return json(v);
}

// What edits draw from besides the document itself.
struct Material {
  std::vector<json> scenarios;    // other documents to copy subtrees from
  std::vector<std::string> keys;  // every key the documents use, for additions
  std::vector<std::string> models, systems, devices;
};

inline void collect_keys(const json& j, std::set<std::string>& keys) {
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) {
      keys.insert(it.key());
      collect_keys(it.value(), keys);
    }
  else if (j.is_array())
    for (const auto& x : j) collect_keys(x, keys);
}

inline std::vector<std::string> preset_ids(const char* kind) {
  std::vector<std::string> ids;
  const json all = json::parse(optimus::api::presets(kind));
  for (const auto& p : all[kind]) ids.push_back(p["id"].get<std::string>());
  ids.push_back("no-such-preset");
  return ids;
}

inline Material material(std::vector<json> scenarios) {
  Material m;
  m.scenarios = std::move(scenarios);
  std::set<std::string> keys;
  for (const auto& s : m.scenarios) collect_keys(s, keys);
  m.keys.assign(keys.begin(), keys.end());
  m.models = preset_ids("models");
  m.systems = preset_ids("systems");
  m.devices = preset_ids("devices");
  return m;
}

inline void collect_pointers(const json& j, const Pointer& p, std::vector<Pointer>& out) {
  out.push_back(p);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) collect_pointers(it.value(), p / it.key(), out);
  else if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) collect_pointers(j[i], p / i, out);
}

inline json some_value(Recipe& r) {
  switch (r.below(4)) {
    case 0:
      return number(kNumbers[r.below(std::size(kNumbers))]);
    case 1: {
      const std::uint64_t b = r.bits(8);
      double v;
      std::memcpy(&v, &b, sizeof v);
      return json(v);  // may be NaN or infinity: nlohmann writes null
    }
    case 2:
      return json(kStrings[r.below(std::size(kStrings))]);
    default:
      switch (r.below(5)) {
        case 0:
          return json(true);
        case 1:
          return json(false);
        case 2:
          return json(nullptr);
        case 3:
          return json::array();
        default:
          return json::object();
      }
  }
}

inline void remove(json& doc, const Pointer& p) {
  if (p.empty()) return;
  json& parent = doc[p.parent_pointer()];
  if (parent.is_object())
    parent.erase(p.back());
  else if (parent.is_array())
    parent.erase(static_cast<std::size_t>(std::stoul(p.back())));
}

inline void edit(json& doc, Recipe& r, const Material& b) {
  std::vector<Pointer> ptrs;
  collect_pointers(doc, Pointer(), ptrs);
  const Pointer p = ptrs[r.below(ptrs.size())];
  json& node = doc[p];
  switch (r.below(10)) {
    case 0:
    case 1:
    case 2:
      if (node.is_number()) {
        const double v = node.get<double>();
        const double scaled[] = {v * 2,   v / 2, v + 1, v - 1, v * 10, -v, v * 1e6, std::floor(v / 3),
                                 v * 1024};
        node = number(scaled[r.below(std::size(scaled))]);
      } else {
        node = number(kNumbers[r.below(std::size(kNumbers))]);
      }
      break;
    case 3:
      node = number(kNumbers[r.below(std::size(kNumbers))]);
      break;
    case 4:
      node = some_value(r);
      break;
    case 5:
      remove(doc, p);
      break;
    case 6: {
      json& obj = node.is_object() || p.empty() ? node : doc[p.parent_pointer()];
      if (obj.is_object()) obj[b.keys[r.below(b.keys.size())]] = some_value(r);
      break;
    }
    case 7: {
      const json& other = b.scenarios[r.below(b.scenarios.size())];
      if (other.contains(p)) {
        node = other[p];
      } else {
        std::vector<Pointer> optrs;
        collect_pointers(other, Pointer(), optrs);
        node = other[optrs[r.below(optrs.size())]];
      }
      break;
    }
    case 8:
      if (doc.is_object()) {
        switch (r.below(3)) {
          case 0:
            doc["model"] = b.models[r.below(b.models.size())];
            break;
          case 1:
            doc["system"] = b.systems[r.below(b.systems.size())];
            break;
          default:
            if (doc.contains("system") && doc["system"].is_object())
              doc["system"]["device"] = b.devices[r.below(b.devices.size())];
        }
      }
      break;
    default:
      if (!p.empty() && doc[p.parent_pointer()].is_object()) {
        json value = node;
        const std::string key = p.back() + (r.below(2) ? "s" : "_");
        remove(doc, p);
        doc[p.parent_pointer()][key] = value;
      }
  }
}

// A base document from `m` with 1-6 edits (fewer when the recipe runs out).
inline json mutated(Recipe& r, const Material& m) {
  json doc = m.scenarios[r.below(m.scenarios.size())];
  const std::size_t edits = 1 + r.below(6);
  for (std::size_t i = 0; i < edits && !r.done(); ++i) edit(doc, r, m);
  // OPTIMUS_FUZZ_SHOW=1 prints the document a recipe decodes to (to triage a slow or failing input
  // replayed by optimus_fuzz_replay_<target>).
  if (std::getenv("OPTIMUS_FUZZ_SHOW")) std::fprintf(stderr, "%s\n", doc.dump().c_str());
  return doc;
}

}  // namespace optimus::fuzz
