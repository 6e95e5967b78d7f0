// One description per output object (internal to io/): a table of the object's keys, each with its
// schema node (its type; its description and unit are the field's docs/contract.md row) and the
// code that reads its value off the engine's report.
// The writer (write) and the prediction schema (schema) both walk the same rows, so an output
// field is one row. io/outputs.cpp holds the tables of `optimus predict --json`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/node.h"

namespace optimus::io {

template <class T>
class Outputs {
 public:
  using Get = std::function<std::optional<ojson>(const T&)>;  // nullopt: the key is left out
  struct Row {
    std::string key;
    Node node;
    Get get;
    bool optional = false;  // not always written (the schema does not require it)
  };
  // Each adder returns the row's schema node, to add to it (.title, .def) or
  // to replace it with the node the schema shows instead (a $ref to a shared definition).

  // A key always written: `get` returns its value (anything an ojson is made from).
  template <class G>
  Node& add(std::string key, Node node, G get) {
    return push(std::move(key), std::move(node),
                [get](const T& o) -> std::optional<ojson> { return ojson(get(o)); });
  }
  // A key written only when `get` returns a value (a std::optional).
  template <class G>
  Node& maybe(std::string key, Node node, G get) {
    const auto value = [get](const T& o) -> std::optional<ojson> {
      const auto v = get(o);
      if (!v) return std::nullopt;
      return ojson(*v);
    };
    return push(std::move(key), std::move(node), value, true);
  }
  // A nested object: the rows of `sub` over the U that `get` returns.
  template <class U, class G>
  Node& sub(std::string key, const Outputs<U>& t, G get) {
    return push(std::move(key), t.schema(),
                [&t, get](const T& o) -> std::optional<ojson> { return t.write(get(o)); });
  }
  // An optional nested object: `get` returns a std::optional<U> (or a pointer), absent: left out.
  template <class U, class G>
  Node& maybe_sub(std::string key, const Outputs<U>& t, G get) {
    const auto value = [&t, get](const T& o) -> std::optional<ojson> {
      const auto& v = get(o);
      if (!v) return std::nullopt;
      return t.write(*v);
    };
    return push(std::move(key), t.schema(), value, true);
  }
  // An array of objects, each the rows of `item` (`get` returns a std::vector<U>).
  template <class U, class G>
  Node& list(std::string key, const Outputs<U>& item, G get) {
    return push(std::move(key), nodes::array_of(item.schema()),
                [&item, get](const T& o) -> std::optional<ojson> { return item.write_all(get(o)); });
  }

  // The object of `o` as the writer writes it.
  ojson write(const T& o) const {
    ojson j = ojson::object();
    for (const Row& r : rows_)
      if (auto v = r.get(o)) j[r.key] = std::move(*v);
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
  Node& push(std::string key, Node node, Get get, bool optional = false) {
    rows_.push_back(Row{std::move(key), std::move(node), std::move(get), optional});
    return rows_.back().node;
  }
  std::vector<Row> rows_;
  std::string title_, desc_;
};

}  // namespace optimus::io
