// One description per contract object (internal to io/): a table of the object's keys, each with
// its type, range, default and where it lives in the engine struct (its meaning and unit are
// docs/contract.md's row for it, which the schema builder adds: io/contract_text.h). The strict
// reader (read_fields), the JSON Schema (schema_of) and the writer (write_fields) all walk the
// same table, so a key is stated once. Keys with unusual rules (cross-key checks, tables, unions)
// stay as code beside the table: a `custom` field carries its own reader, writer and schema node.
//
// Size: the per-kind functions are instantiated once per struct and value type, not per field;
// a field's accessor is a captureless lambda stored as a plain function pointer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "io/node.h"
#include "io/reader.h"

namespace optimus::io {

// How a key is written back (scenario_to_json): always, only when not 0 / empty, only when not
// its stated default (a choice whose default a scenario that never named it must read back as),
// or never (notes, keys the engine does not keep).
enum class Write : std::uint8_t { always, nonzero, non_default, never };

// A rate where 0 means "not modelled": a positive value below `lo` (a denormal, say) would make
// the times divided by it infinite.
inline std::optional<double> read_rate_or_zero(Reader& r, const std::string& key, double lo, double hi) {
  auto x = r.number(key, false, 0, hi);
  if (x && *x > 0 && *x < lo) {
    r.fail("scenario.out_of_range", r.child(key),
           "'" + key + "' = " + plain_number(*x) + " is outside the accepted range: 0 (not modelled) or [" +
               plain_number(lo) + ", " + plain_number(hi) + "]");
    return std::nullopt;
  }
  return x;
}

template <class T>
class Fields;
template <class T>
void read_fields(const Fields<T>& t, Reader& r, T& o);
template <class T>
ojson write_fields(const Fields<T>& t, const T& o);
template <class T>
Node schema_of(const Fields<T>& t);

// One key of an object of type T.
template <class T>
struct Field {
  using ReadFn = void (*)(const Field&, Reader&, T&);
  using ValueFn = std::optional<ojson> (*)(const Field&, const T&);

  std::string key;
  ojson keywords;  // the value's schema keywords: type, range, enum, items ...
  std::string title_text;
  std::optional<ojson> shown;           // the schema node shown instead (shown_as)
  std::optional<ojson> stated_default;  // the schema's "default" when stated outright
  bool show_default = false;            // state the value of a default-constructed T as "default"
  bool required = false;
  Write write = Write::always;
  double lo = 0, hi = 0;           // the accepted range (number, integer)
  double scale = 1;                // engine value = JSON value x scale
  double back = 0;                 // written JSON value = engine value x back (0: engine value / scale)
  std::vector<std::string> names;  // a choice's accepted strings
  std::vector<int> codes;          // the enum values they stand for
  void (*raw)() = nullptr;         // the member accessor, its type erased
  const void* sub = nullptr;       // a nested object's table (a Fields<U>)
  Node (*sub_schema)(const void*) = nullptr;
  ReadFn read = nullptr;
  ValueFn value = nullptr;  // the value to write back; nullopt: nothing
  bool hidden = false;      // no key: the checks of an included table (Fields::include)
  void (*check)(Reader&, T&) = nullptr;

  Field& title(std::string t) {
    title_text = std::move(t);
    return *this;
  }
  // The default a default-constructed T holds, stated in the schema.
  Field& def() {
    show_default = true;
    return *this;
  }
  Field& def(ojson v) {
    stated_default = std::move(v);
    return *this;
  }
  Field& req(bool r = true) {
    required = r;
    return *this;
  }
  Field& written(Write w) {
    write = w;
    return *this;
  }
  Field& scaled(double s, double b = 0) {
    scale = s;
    back = b;
    return *this;
  }
  Field& set(const std::string& keyword, ojson v) {
    keywords[keyword] = std::move(v);
    return *this;
  }
  // The node the schema shows instead of the value's own (a $ref to a shared definition).
  Field& shown_as(const Node& n) {
    shown = n.json();
    return *this;
  }
  Field& writer(ValueFn fn) {
    value = fn;
    return *this;
  }

  template <class V>
  V& at(T& o) const {
    return reinterpret_cast<V& (*)(T&)>(raw)(o);
  }
  template <class V>
  const V& at(const T& o) const {
    return reinterpret_cast<V& (*)(T&)>(raw)(const_cast<T&>(o));
  }
  std::optional<std::int64_t> read_integer(Reader& r) const {
    return r.integer(key, required, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
  }
  // Rounded to 15 significant digits, which every decimal a scenario states survives: the engine's
  // seconds back in microseconds otherwise carry the division's last bit (a default of 100 us
  // written as 100.00000000000001).
  double to_json(double engine) const {
    const double v = back != 0 ? engine * back : engine / scale;
    if (scale == 1.0 && back == 0) return v;
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", v);
    return std::strtod(text, nullptr);
  }
};

template <class T>
class Fields {
 public:
  using F = Field<T>;
  template <class V>
  using Ref = V& (*)(T&);

  const std::vector<F>& list() const { return list_; }
  // Checks and derived values after the keys are read (`r` still open for errors).
  void (*after)(Reader& r, T& o) = nullptr;

  F& number(std::string key, double lo, double hi, Ref<double> ref) {
    F& f = add(std::move(key), {{"type", "number"}, {"minimum", lo}, {"maximum", hi}}, ref);
    f.lo = lo;
    f.hi = hi;
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = r.number(self.key, self.required, self.lo, self.hi))
        self.template at<double>(o) = *x * self.scale;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      return ojson(self.to_json(self.template at<double>(o)));
    };
    return f;
  }
  // A number that may be left unstated (absent = not known): read into the optional, written
  // only when it holds a value.
  F& optional_number(std::string key, double lo, double hi, Ref<std::optional<double>> ref) {
    F& f = add(std::move(key), {{"type", "number"}, {"minimum", lo}, {"maximum", hi}}, ref);
    f.lo = lo;
    f.hi = hi;
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = r.number(self.key, self.required, self.lo, self.hi))
        self.template at<std::optional<double>>(o) = *x * self.scale;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      const auto& v = self.template at<std::optional<double>>(o);
      if (!v) return std::nullopt;
      return ojson(self.to_json(*v));
    };
    return f;
  }
  // A rate where 0 means "not modelled", else in [lo, hi].
  F& rate_or_zero(std::string key, double lo, double hi, Ref<double> ref) {
    F& f = number(std::move(key), 0, hi, ref);
    f.keywords["minimum"] = 0;
    f.keywords["anyOf"] = ojson::array({{{"const", 0}}, {{"minimum", lo}}});
    f.lo = lo;
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = read_rate_or_zero(r, self.key, self.lo, self.hi))
        self.template at<double>(o) = *x * self.scale;
    };
    return f;
  }
  // The same, where absent is a default of the engine's (read into the optional).
  F& optional_rate_or_zero(std::string key, double lo, double hi, Ref<std::optional<double>> ref) {
    F& f = optional_number(std::move(key), 0, hi, ref);
    f.keywords["anyOf"] = ojson::array({{{"const", 0}}, {{"minimum", lo}}});
    f.lo = lo;
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = read_rate_or_zero(r, self.key, self.lo, self.hi))
        self.template at<std::optional<double>>(o) = *x * self.scale;
    };
    return f;
  }
  F& integer(std::string key, std::int64_t lo, std::int64_t hi, Ref<std::int64_t> ref) {
    F& f = ranged(std::move(key), lo, hi, ref);
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = self.read_integer(r)) self.template at<std::int64_t>(o) = *x;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      return ojson(self.template at<std::int64_t>(o));
    };
    return f;
  }
  F& boolean(std::string key, Ref<bool> ref) {
    F& f = add(std::move(key), {{"type", "boolean"}}, ref);
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = r.boolean(self.key, self.required)) self.template at<bool>(o) = *x;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      return ojson(self.template at<bool>(o));
    };
    return f;
  }
  F& text(std::string key, Ref<std::string> ref) {
    F& f = add(std::move(key), {{"type", "string"}}, ref);
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = r.string(self.key, self.required)) self.template at<std::string>(o) = *x;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      return ojson(self.template at<std::string>(o));
    };
    return f;
  }
  // A string naming one of `allowed` (EnumNames<E>, base/enums.h).
  template <class E, std::size_t N>
  F& choice(std::string key, const std::array<E, N>& allowed, std::type_identity_t<Ref<E>> ref) {
    F& f = add(std::move(key), {{"type", "string"}, {"enum", enum_names(allowed)}}, ref);
    f.names = enum_names(allowed);
    for (E e : allowed) f.codes.push_back(static_cast<int>(e));
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto i = r.choice(self.key, self.required, self.names))
        self.template at<E>(o) = static_cast<E>(self.codes[*i]);
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      return ojson(std::string(name_of(self.template at<E>(o))));
    };
    return f;
  }
  template <class E>
  F& choice(std::string key, Ref<E> ref) {
    return choice(std::move(key), enum_values<E>(), ref);
  }
  // Optional values: absent stays nullopt (the engine's default applies), and is not written.
  F& opt_boolean(std::string key, Ref<std::optional<bool>> ref) {
    F& f = add(std::move(key), {{"type", "boolean"}}, ref);
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = r.boolean(self.key, self.required)) self.template at<std::optional<bool>>(o) = *x;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      const auto& x = self.template at<std::optional<bool>>(o);
      return x ? std::optional<ojson>(*x) : std::nullopt;
    };
    return f;
  }
  F& opt_integer(std::string key, std::int64_t lo, std::int64_t hi, Ref<std::optional<std::int64_t>> ref) {
    F& f = ranged(std::move(key), lo, hi, ref);
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto x = self.read_integer(r)) self.template at<std::optional<std::int64_t>>(o) = *x;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      const auto& x = self.template at<std::optional<std::int64_t>>(o);
      return x ? std::optional<ojson>(*x) : std::nullopt;
    };
    return f;
  }
  template <class E>
  F& opt_choice(std::string key, Ref<std::optional<E>> ref) {
    return opt_choice(std::move(key), enum_values<E>(), ref);
  }
  template <class E, std::size_t N>
  F& opt_choice(std::string key, const std::array<E, N>& allowed,
                std::type_identity_t<Ref<std::optional<E>>> ref) {
    F& f = add(std::move(key), {{"type", "string"}, {"enum", enum_names(allowed)}}, ref);
    f.names = enum_names(allowed);
    for (E e : allowed) f.codes.push_back(static_cast<int>(e));
    f.read = [](const F& self, Reader& r, T& o) {
      if (auto i = r.choice(self.key, self.required, self.names))
        self.template at<std::optional<E>>(o) = static_cast<E>(self.codes[*i]);
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      const auto& x = self.template at<std::optional<E>>(o);
      return x ? std::optional<ojson>(std::string(name_of(*x))) : std::nullopt;
    };
    return f;
  }
  // A string accepted and not kept (never written).
  F& ignored(std::string key) {
    F& f = add(std::move(key), {{"type", "string"}}, nullptr);
    f.write = Write::never;
    f.read = [](const F& self, Reader& r, T&) { r.string(self.key, false); };
    return f;
  }
  // "notes": free text, read and never written.
  F& notes() { return ignored("notes"); }
  // A nested object: the keys of `sub` in the U that `ref` reaches.
  template <class U>
  F& member(std::string key, const Fields<U>& sub, Ref<U> ref) {
    F& f = nest(std::move(key), sub, ref);
    f.read = [](const F& self, Reader& r, T& o) { read_nested(self, r, self.template at<U>(o)); };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      return write_fields(*static_cast<const Fields<U>*>(self.sub), self.template at<U>(o));
    };
    return f;
  }
  // An optional nested object: absent stays nullopt and is not written.
  template <class U>
  F& opt_member(std::string key, const Fields<U>& sub, Ref<std::optional<U>> ref) {
    F& f = nest(std::move(key), sub, ref);
    f.read = [](const F& self, Reader& r, T& o) {
      U u{};
      if (read_nested(self, r, u)) self.template at<std::optional<U>>(o) = u;
    };
    f.value = [](const F& self, const T& o) -> std::optional<ojson> {
      const auto& x = self.template at<std::optional<U>>(o);
      if (!x) return std::nullopt;
      return write_fields(*static_cast<const Fields<U>*>(self.sub), *x);
    };
    return f;
  }
  // A nested object whose keys live in T itself.
  F& group(std::string key, const Fields& sub) {
    return member<T>(std::move(key), sub, [](T& o) -> T& { return o; });
  }
  // The keys of `other` (of the same object), its checks run after them.
  void include(const Fields& other) {
    for (const F& f : other.list()) list_.push_back(f);
    if (!other.after) return;
    F f;
    f.hidden = true;
    f.write = Write::never;
    f.check = other.after;
    f.read = [](const F& self, Reader& r, T& o) { self.check(r, o); };
    list_.push_back(std::move(f));
  }
  // A key read, written and described by code of its own (`schema`: its node's keywords).
  F& custom(std::string key, ojson schema, typename F::ReadFn read, typename F::ValueFn value) {
    F& f = add(std::move(key), std::move(schema), nullptr);
    f.read = read;
    f.value = value;
    return f;
  }

 private:
  // A nested object's field: its table and schema.
  template <class U, class P>
  F& nest(std::string key, const Fields<U>& sub, P ref) {
    F& f = add(std::move(key), ojson::object(), ref);
    f.sub = &sub;
    f.sub_schema = [](const void* p) { return schema_of(*static_cast<const Fields<U>*>(p)); };
    return f;
  }
  // Reads the nested object of `self` into `u`; false when it is absent.
  template <class U>
  static bool read_nested(const F& self, Reader& r, U& u) {
    const json* v = r.get(self.key, self.required);
    if (!v) return false;
    Reader sr(*v, r.child(self.key), r.error_slot());
    read_fields(*static_cast<const Fields<U>*>(self.sub), sr, u);
    sr.finish();
    return true;
  }
  // An integer key in [lo, hi].
  template <class P>
  F& ranged(std::string key, std::int64_t lo, std::int64_t hi, P ref) {
    F& f = add(std::move(key), {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}}, ref);
    f.lo = static_cast<double>(lo);
    f.hi = static_cast<double>(hi);
    return f;
  }
  template <class P>
  F& add(std::string key, ojson keywords, P ref) {
    F f;
    f.key = std::move(key);
    f.keywords = std::move(keywords);
    if constexpr (!std::is_same_v<P, std::nullptr_t>) f.raw = reinterpret_cast<void (*)()>(ref);
    list_.push_back(std::move(f));
    return list_.back();
  }
  std::vector<F> list_;
};

// Read every key of `t` present in `r`'s object into `o` (absent keys keep o's values).
template <class T>
void read_fields(const Fields<T>& t, Reader& r, T& o) {
  for (const auto& f : t.list()) f.read(f, r, o);
  if (t.after) t.after(r, o);
}

// The object `v` at `path` read strictly into `o` by `t`: its first error, if any.
template <class T>
std::optional<Error> read_object(const Fields<T>& t, const json& v, const std::string& path, T& o) {
  std::optional<Error> err;
  Reader r(v, path, err);
  read_fields(t, r, o);
  r.finish();
  return err;
}

// The object of `o`'s keys as the writer writes them.
template <class T>
ojson write_fields(const Fields<T>& t, const T& o) {
  ojson j = ojson::object();
  for (const auto& f : t.list()) {
    if (f.write == Write::never || !f.value) continue;
    std::optional<ojson> v = f.value(f, o);
    if (!v) continue;
    if (f.write == Write::nonzero && ((v->is_number() && v->template get<double>() == 0) ||
                                      (v->is_boolean() && !v->template get<bool>()) ||
                                      (v->is_string() && v->template get<std::string>().empty())))
      continue;
    if (f.write == Write::non_default && f.stated_default && *v == *f.stated_default) continue;
    j[f.key] = std::move(*v);
  }
  return j;
}

// The schema of one key: its keywords, title and default (its description and unit come from
// docs/contract.md when the whole schema is built: io/schema.cpp).
template <class T>
Node schema_of(const Field<T>& f) {
  Node n(ojson::object());
  if (f.shown) {
    n = Node(*f.shown);
  } else if (f.sub) {
    n = f.sub_schema(f.sub);
    for (const auto& [k, v] : f.keywords.items()) n.set(k, v);
  } else {
    n = Node(f.keywords);
  }
  n.title(f.title_text);
  if (f.stated_default)
    n.def(*f.stated_default);
  else if (f.show_default && f.value)
    if (auto v = f.value(f, T{})) n.def(*v);
  return n;
}

// The schema of each key of `t`, in table order (to splice into an object built by hand).
template <class T>
Props props_of(const Fields<T>& t) {
  Props props;
  for (const auto& f : t.list())
    if (!f.hidden) props.emplace_back(f.key, schema_of(f));
  return props;
}

// The keys of `t` an object must have.
template <class T>
std::vector<std::string> required_of(const Fields<T>& t) {
  std::vector<std::string> required;
  for (const auto& f : t.list())
    if (f.required) required.push_back(f.key);
  return required;
}

// The object schema of `t`: its properties in table order, the required ones, nothing else.
template <class T>
Node schema_of(const Fields<T>& t) {
  return object(props_of(t), required_of(t));
}

// The object as an output (what write_fields writes): each key's type and lower bound (its
// limits are the input's), the keys a default-constructed T writes required (those written
// only when set are not).
template <class T>
Node output_schema_of(const Fields<T>& t) {
  Props props;
  std::vector<std::string> required;
  for (const auto& f : t.list()) {
    if (f.write == Write::never || f.hidden) continue;
    ojson keywords = f.keywords;  // the type, enum and items; the reader's limits stay the input's
    for (const char* limit : {"maximum", "minItems", "maxItems", "anyOf"}) keywords.erase(limit);
    props.emplace_back(f.key, f.sub ? f.sub_schema(f.sub) : Node(keywords));
    if (f.write == Write::always && f.value && f.value(f, T{})) required.push_back(f.key);
  }
  return object(props, required);
}

}  // namespace optimus::io
