// A JSON Schema node under construction (internal to io/): the schema builder's unit, used by
// io/schema.cpp and by the field tables (io/fields.h) that describe each contract object once.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "io/presets.h"
#include "io/schema.h"

namespace optimus::io {

using ojson = nlohmann::ordered_json;

// A whole number written as one (1e7 as 10000000, not 10000000.0); other values as they are.
inline ojson tidy(const ojson& v) {
  if (!v.is_number_float()) return v;
  const double x = v.get<double>();
  if (std::isfinite(x) && std::floor(x) == x && std::fabs(x) < 9e15) return static_cast<std::int64_t>(x);
  return v;
}

// One schema under construction. Its keywords keep the order they were set in, after "title",
// "type", the description (with the unit appended), the unit annotation and the default. A
// property's description and unit are its docs/contract.md row's, set when the whole schema is
// built (describe_from_doc, io/schema.h); desc and unit are for the nodes the document has no row
// for: an object's own description, the alternatives of a oneOf, the items of a pair.
class Node {
 public:
  explicit Node(ojson keywords) : j_(std::move(keywords)) {}
  Node& title(std::string t) {
    title_ = std::move(t);
    return *this;
  }
  Node& desc(std::string text) {
    desc_ = std::move(text);
    return *this;
  }
  Node& unit(std::string u) {
    unit_ = std::move(u);
    return *this;
  }
  Node& def(ojson v) {
    default_ = std::move(v);
    return *this;
  }
  Node& set(const std::string& keyword, ojson v) {
    j_[keyword] = std::move(v);
    return *this;
  }
  ojson json() const {
    ojson out = ojson::object();
    if (!title_.empty()) out["title"] = title_;
    if (j_.contains("type")) out["type"] = j_["type"];
    std::string d = desc_;
    if (!unit_.empty()) d += (d.empty() ? "" : " ") + ("Unit: " + unit_ + ".");
    if (!d.empty()) out["description"] = d;
    if (!unit_.empty()) out[kUnitKeyword] = unit_;
    if (default_) out["default"] = tidy(*default_);
    for (const auto& [k, v] : j_.items())
      if (k != "type") out[k] = k == "minimum" || k == "maximum" || k == "exclusiveMinimum" ? tidy(v) : v;
    return out;
  }

 private:
  ojson j_;
  std::string title_, desc_, unit_;
  std::optional<ojson> default_;
};

using Props = std::vector<std::pair<std::string, Node>>;

inline Node object(const Props& props, const std::vector<std::string>& required = {}) {
  ojson p = ojson::object();
  for (const auto& [k, n] : props) p[k] = n.json();
  ojson j = {{"type", "object"}, {"properties", p}};
  if (!required.empty()) j["required"] = required;
  j["additionalProperties"] = false;
  return Node(std::move(j));
}
// The builders of schema nodes.
namespace nodes {

inline Node node(ojson keywords) { return Node(std::move(keywords)); }

inline Node number(double lo, double hi) {
  return node({{"type", "number"}, {"minimum", lo}, {"maximum", hi}});
}
// A rate where 0 means "not modelled", else in [lo, hi] (json_io.cpp rate_or_zero).
inline Node rate_or_zero(double lo, double hi) {
  return node({{"type", "number"},
               {"minimum", 0},
               {"maximum", hi},
               {"anyOf", ojson::array({{{"const", 0}}, {{"minimum", lo}}})}});
}
inline Node integer(std::int64_t lo, std::int64_t hi) {
  return node({{"type", "integer"}, {"minimum", lo}, {"maximum", hi}});
}
inline Node boolean() { return node({{"type", "boolean"}}); }
inline Node text() { return node({{"type", "string"}}); }
inline Node notes() { return text(); }  // "notes": free text, read and never used
// Outputs: a quantity that is never negative, and a count.
inline Node amount() { return node({{"type", "number"}, {"minimum", 0}}); }
inline Node count() { return node({{"type", "integer"}, {"minimum", 0}}); }

template <class E>
inline ojson name(E e) {
  return std::string(name_of(e));
}
template <class E, std::size_t N>
inline Node choice(const std::array<E, N>& values) {
  return node({{"type", "string"}, {"enum", enum_names(values)}});
}
template <class E>
inline Node choice() {
  return choice(enum_values<E>());
}

// An output object: every key always written but `optional`.
inline Node output(const Props& props, const std::vector<std::string>& optional = {}) {
  std::vector<std::string> required;
  for (const auto& [k, n] : props)
    if (std::find(optional.begin(), optional.end(), k) == optional.end()) required.push_back(k);
  return object(props, required);
}
inline Node ref(const std::string& def) { return node({{"$ref", "#/$defs/" + def}}); }
inline Node one_of(const std::vector<Node>& alternatives) {
  ojson a = ojson::array();
  for (const auto& n : alternatives) a.push_back(n.json());
  return node({{"oneOf", a}});
}
inline Node array_of(const Node& item, std::size_t min_items = 0, std::size_t max_items = 0) {
  ojson j = {{"type", "array"}, {"items", item.json()}};
  if (min_items > 0) j["minItems"] = min_items;
  if (max_items > 0) j["maxItems"] = max_items;
  return Node(std::move(j));
}
// A two-element array [first, second].
inline Node pair_of(const Node& first, const Node& second) {
  return node({{"type", "array"},
               {"prefixItems", ojson::array({first.json(), second.json()})},
               {"items", false},
               {"minItems", 2},
               {"maxItems", 2}});
}

// A preset id of `kind`; the presets this build embeds are listed as examples.
inline Node preset_id(const std::string& kind) {
  ojson ids = ojson::array();
  for (auto& id : preset_ids(kind)) ids.push_back(std::move(id));
  return node({{"type", "string"}, {"examples", ids}})
      .desc("The id of a '" + kind + "' preset (optimus presets " + kind + ").");
}

// Three lists of properties in order.
inline Props concat(Props a, const Props& b, const Props& c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}
}  // namespace nodes

}  // namespace optimus::io
