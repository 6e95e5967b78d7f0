// One description per output object (internal to io/): a table of the object's keys, each with its
// schema node (its type; its description and unit are the field's docs/contract.md row) and the
// code that reads its value off the engine's report.
// The writer (write) and the prediction schema (schema) both walk the same rows, so an output
// field is one row. io/outputs.cpp holds the tables of `optimus predict --json`.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/node.h"

namespace optimus::io {

template <class T>
class Outputs {
 public:
  // A row's value read off `o` (nullopt: the key is left out); `ctx` is the row's own context (the
  // table a nested row writes with, or what maybe_with was given), else null. A plain function
  // pointer, not a std::function: each of the about 240 rows would otherwise bring its own
  // type-erasure code into the page's first-load module (docs/web.md "Weight").
  using Get = std::optional<ojson> (*)(const void* ctx, const T& o);
  struct Row {
    std::string key;
    Node node;
    Get get;
    const void* ctx = nullptr;
    bool optional = false;  // not always written (the schema does not require it)
    bool integer = false;   // the schema says integer: a whole count held as a double is written as one
  };
  // Each adder returns the row's schema node, to add to it (.title, .def) or
  // to replace it with the node the schema shows instead (a $ref to a shared definition).
  // `get` is a captureless lambda (VAL in outputs.cpp): called through a default-constructed copy.

  // A key always written: `get` returns its value (anything an ojson is made from).
  template <class G>
  Node& add(std::string key, Node node, G) {
    stateless<G>();
    return push(std::move(key), std::move(node),
                [](const void*, const T& o) -> std::optional<ojson> { return ojson(G{}(o)); });
  }
  // A key written only when `get` returns a value (a std::optional).
  template <class G>
  Node& maybe(std::string key, Node node, G) {
    stateless<G>();
    const Get value = [](const void*, const T& o) -> std::optional<ojson> {
      const auto v = G{}(o);
      if (!v) return std::nullopt;
      return ojson(*v);
    };
    return push(std::move(key), std::move(node), value, nullptr, true);
  }
  // A key written only when `get(ctx, o)` returns a value: a row that needs more than `o` (ctx must
  // outlive the table: a string literal, another table).
  Node& maybe_with(std::string key, Node node, const void* ctx, Get get) {
    return push(std::move(key), std::move(node), get, ctx, true);
  }
  // A nested object: the rows of `sub` over the U that `get` returns.
  template <class U, class G>
  Node& sub(std::string key, const Outputs<U>& t, G) {
    stateless<G>();
    const Get value = [](const void* ctx, const T& o) -> std::optional<ojson> {
      return static_cast<const Outputs<U>*>(ctx)->write(G{}(o));
    };
    return push(std::move(key), t.schema(), value, &t);
  }
  // An optional nested object: `get` returns a std::optional<U> (or a pointer), absent: left out.
  template <class U, class G>
  Node& maybe_sub(std::string key, const Outputs<U>& t, G) {
    stateless<G>();
    const Get value = [](const void* ctx, const T& o) -> std::optional<ojson> {
      const auto& v = G{}(o);
      if (!v) return std::nullopt;
      return static_cast<const Outputs<U>*>(ctx)->write(*v);
    };
    return push(std::move(key), t.schema(), value, &t, true);
  }
  // An array of objects, each the rows of `item` (`get` returns a std::vector<U>).
  template <class U, class G>
  Node& list(std::string key, const Outputs<U>& item, G) {
    stateless<G>();
    const Get value = [](const void* ctx, const T& o) -> std::optional<ojson> {
      return static_cast<const Outputs<U>*>(ctx)->write_all(G{}(o));
    };
    return push(std::move(key), nodes::array_of(item.schema()), value, &item);
  }

  // The object of `o` as the writer writes it.
  ojson write(const T& o) const {
    ojson j = ojson::object();
    for (const Row& r : rows_)
      if (auto v = r.get(r.ctx, o)) {
        // 48, not 48.0: strict decoders (Go's encoding/json into int, serde into i64) refuse the latter.
        if (r.integer && v->is_number_float()) {
          const double x = v->template get<double>();
          if (std::nearbyint(x) == x) *v = static_cast<std::int64_t>(x);
        }
        j[r.key] = std::move(*v);
      }
    return j;
  }
  template <class V>
  ojson write_all(const V& items) const {
    ojson a = ojson::array();
    for (const auto& x : items) a.push_back(write(x));
    return a;
  }
  // The object's schema: every key, all but the optional ones required.
  Node schema() const {
    Props props;
    std::vector<std::string> optional;
    for (const Row& r : rows_) {
      props.emplace_back(r.key, r.node);
      if (r.optional) optional.push_back(r.key);
    }
    Node n = nodes::output(props, optional);
    if (!title_.empty()) n.title(title_);
    if (!desc_.empty()) n.desc(desc_);
    return n;
  }
  const std::vector<Row>& rows() const { return rows_; }
  // The object's own title and description in the schema.
  void describe(std::string title, std::string text = "") {
    title_ = std::move(title);
    desc_ = std::move(text);
  }

 private:
  Node& push(std::string key, Node node, Get get, const void* ctx = nullptr, bool optional = false) {
    const bool integer = node.json().value("type", "") == "integer";
    rows_.push_back(Row{std::move(key), std::move(node), get, ctx, optional, integer});
    return rows_.back().node;
  }
  template <class G>
  static constexpr void stateless() {
    static_assert(std::is_empty_v<G> && std::is_default_constructible_v<G>,
                  "an output row's reader is a captureless lambda (VAL); use maybe_with for more");
  }
  std::vector<Row> rows_;
  std::string title_, desc_;
};

}  // namespace optimus::io
