// Strict reading of JSON objects into engine structs (internal to io/). A Reader walks one
// object, remembers the first problem with its JSON Pointer, and at the end reports any key
// it was not asked about as unknown.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/enums.h"
#include "base/result.h"
#include "base/words.h"

namespace optimus::io {

using json = nlohmann::json;

// Upper bounds of device counts and of batch-like counts in scenarios (the schema states them too).
inline constexpr std::int64_t kMaxDevices = 100'000'000;  // beyond any cluster; keeps products finite
inline constexpr std::int64_t kMaxCount = 1'000'000'000;
// Serving bounds (reader and schema): past them a simulation is no longer an estimate.
inline constexpr std::int64_t kMaxRequests = 1'000'000;
inline constexpr std::int64_t kMaxServingLength = 10'000'000;
// What the literal Infinity reads as (the largest double), taken as an unbounded rate.
inline constexpr double kInfinityNumber = std::numeric_limits<double>::max();

// RFC 6901 escaping of one reference token.
inline std::string pointer_token(const std::string& key) {
  std::string out;
  for (char ch : key) {
    if (ch == '~')
      out += "~0";
    else if (ch == '/')
      out += "~1";
    else
      out += ch;
  }
  return out;
}

inline std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// A value as the scenario wrote it, for messages: a bare Infinity in the text is read as the
// largest double (json_io.cpp, with_infinity_as_number), and said as Infinity, not 1.797e+308.
inline std::string as_written(const json& v) {
  return v.is_number() && v.get<double>() >= kInfinityNumber ? "Infinity" : v.dump();
}

// What a parser's syntax error (nlohmann/json's parse_error text) probably means, in words, as
// " (...)" to append, or "" (objects.cpp, built for size: it runs once, on a malformed file);
// `byte` is the parse error's position in `text` (1-based; 0 where unknown).
std::string json_syntax_hint(std::string_view what, std::string_view text = {}, std::size_t byte = 0);
// The message of scenario.unknown_key (objects.cpp, built for size): the key, the one it probably
// meant where one known key is near it (base/words.h nearest_word: "trainig": did you mean
// 'training'?), and the keys the object has.
std::string unknown_key_message(const std::string& key, const std::set<std::string>& known);
// scenario.missing_key's: the key, and a key written beside it that was not read as one of its own
// and is probably it mistyped ("seqlen" for seq_len), where the missing key has 4 characters or
// more (a sibling such as "pp" is no typo of "tp").
std::string missing_key_message(const std::string& key, const std::set<std::string>& unread);

class Reader {
 public:
  Reader(const json& obj, std::string path, std::optional<Error>& err)
      : obj_(obj), path_(std::move(path)), err_(err) {
    if (!err_ && !obj_.is_object())
      fail("scenario.wrong_type", path_, "expected an object, got " + type_name(obj_));
  }

  bool ok() const { return !err_.has_value(); }
  const std::string& path() const { return path_; }
  // Where the first problem is kept (shared with the readers of nested objects).
  std::optional<Error>& error_slot() { return err_; }
  std::string child(const std::string& key) const { return path_ + "/" + pointer_token(key); }

  void fail(std::string code, std::string path, std::string message) {
    if (!err_) err_ = Error{std::move(code), std::move(path), std::move(message)};
  }

  // nullptr when absent (or when the reader already failed).
  const json* get(const std::string& key, bool required) {
    seen_.insert(key);
    if (err_ || !obj_.is_object()) return nullptr;
    auto it = obj_.find(key);
    if (it == obj_.end()) {
      if (required) fail("scenario.missing_key", child(key), missing_key_message(key, unread_keys()));
      return nullptr;
    }
    return &*it;
  }
  bool has(const std::string& key) const { return obj_.is_object() && obj_.contains(key); }

  std::optional<double> number(const std::string& key, bool required, double lo, double hi) {
    const json* v = get(key, required);
    return v ? number_value(*v, key, child(key), lo, hi) : std::nullopt;
  }
  std::optional<std::int64_t> integer(const std::string& key, bool required, std::int64_t lo,
                                      std::int64_t hi) {
    const json* v = get(key, required);
    return v ? integer_value(*v, key, child(key), lo, hi) : std::nullopt;
  }
  std::optional<bool> boolean(const std::string& key, bool required) {
    const json* v = get(key, required);
    return v ? boolean_value(*v, key, child(key)) : std::nullopt;
  }
  std::optional<std::string> string(const std::string& key, bool required) {
    const json* v = get(key, required);
    return v ? string_value(*v, key, child(key)) : std::nullopt;
  }
  // A string that must be one of `names`; returns its index.
  std::optional<std::size_t> choice(const std::string& key, bool required,
                                    const std::vector<std::string>& names) {
    const json* v = get(key, required);
    return v ? choice_value(*v, key, child(key), names) : std::nullopt;
  }

  // A non-empty array; `read(element, name, path)` reads each element (name "key[i]" for
  // messages, path its JSON Pointer) and returns nullopt after failing. Empty when the key is
  // absent or on the first problem.
  template <class T, class F>
  std::vector<T> list(const std::string& key, bool required, F read) {
    const json* v = get(key, required);
    if (!v) return {};
    if (!v->is_array()) {
      fail("scenario.wrong_type", child(key), "'" + key + "' must be an array, got " + type_name(*v));
      return {};
    }
    if (v->empty()) {
      fail("scenario.out_of_range", child(key), "'" + key + "' must have at least one element");
      return {};
    }
    std::vector<T> out;
    for (std::size_t i = 0; i < v->size(); ++i) {
      std::optional<T> x =
          read((*v)[i], key + "[" + std::to_string(i) + "]", child(key) + "/" + std::to_string(i));
      if (!x) return {};
      out.push_back(std::move(*x));
    }
    return out;
  }
  std::vector<std::int64_t> integers(const std::string& key, bool required, std::int64_t lo,
                                     std::int64_t hi) {
    return list<std::int64_t>(key, required,
                              [&](const json& v, const std::string& name, const std::string& at) {
                                return integer_value(v, name, at, lo, hi);
                              });
  }
  std::vector<std::string> strings(const std::string& key, bool required) {
    return list<std::string>(key, required,
                             [&](const json& v, const std::string& name, const std::string& at) {
                               return string_value(v, name, at);
                             });
  }
  std::vector<std::size_t> choices(const std::string& key, bool required,
                                   const std::vector<std::string>& names) {
    return list<std::size_t>(key, required,
                             [&](const json& v, const std::string& name, const std::string& at) {
                               return choice_value(v, name, at, names);
                             });
  }

  // One value checked on its own; `name` is what messages call it, `at` its JSON Pointer.
  std::optional<double> number_value(const json& v, const std::string& name, const std::string& at, double lo,
                                     double hi) {
    if (!v.is_number()) {
      fail("scenario.wrong_type", at, "'" + name + "' must be a number, got " + type_name(v));
      return std::nullopt;
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) {
      fail("scenario.out_of_range", at,
           "'" + name + "' = " + as_written(v) + " is outside the accepted range [" + plain_number(lo) +
               ", " + plain_number(hi) + "]");
      return std::nullopt;
    }
    return x;
  }
  std::optional<std::int64_t> integer_value(const json& v, const std::string& name, const std::string& at,
                                            std::int64_t lo, std::int64_t hi) {
    if (!v.is_number()) {
      fail("scenario.wrong_type", at, "'" + name + "' must be an integer, got " + type_name(v));
      return std::nullopt;
    }
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
      fail("scenario.out_of_range", at,
           "'" + name + "' = " + as_written(v) + " is outside the accepted range [" + std::to_string(lo) +
               ", " + std::to_string(hi) + "]");
      return std::nullopt;
    }
    if (std::floor(x) != x) {
      fail("scenario.not_integer", at, "'" + name + "' = " + v.dump() + " must be a whole number");
      return std::nullopt;
    }
    return static_cast<std::int64_t>(x);
  }
  std::optional<bool> boolean_value(const json& v, const std::string& name, const std::string& at) {
    if (!v.is_boolean()) {
      fail("scenario.wrong_type", at, "'" + name + "' must be true or false, got " + type_name(v));
      return std::nullopt;
    }
    return v.get<bool>();
  }
  std::optional<std::string> string_value(const json& v, const std::string& name, const std::string& at) {
    if (!v.is_string()) {
      fail("scenario.wrong_type", at, "'" + name + "' must be a string, got " + type_name(v));
      return std::nullopt;
    }
    return v.get<std::string>();
  }
  std::optional<std::size_t> choice_value(const json& v, const std::string& name, const std::string& at,
                                          const std::vector<std::string>& names) {
    auto s = string_value(v, name, at);
    if (!s) return std::nullopt;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == *s) return i;
    std::string valid;
    for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + ("\"" + n + "\"");
    fail("scenario.invalid_value", at, "'" + name + "' = \"" + *s + "\" is not one of " + valid);
    return std::nullopt;
  }

  // A string naming one of `allowed` (EnumNames<E>, base/enums.h).
  template <class E, std::size_t N>
  std::optional<E> enumeration(const std::string& key, bool required, const std::array<E, N>& allowed) {
    auto i = choice(key, required, enum_names(allowed));
    if (!i) return std::nullopt;
    return allowed[*i];
  }
  template <class E>
  std::optional<E> enumeration(const std::string& key, bool required) {
    return enumeration(key, required, enum_values<E>());
  }

  // Report keys present in the object but never asked for.
  void finish() {
    if (err_ || !obj_.is_object()) return;
    for (auto it = obj_.begin(); it != obj_.end(); ++it) {
      if (!seen_.count(it.key())) {
        fail("scenario.unknown_key", child(it.key()), unknown_key_message(it.key(), seen_));
        return;
      }
    }
  }

 private:
  // The object's keys not read so far (objects.cpp).
  std::set<std::string> unread_keys() const;

  const json& obj_;
  std::string path_;
  std::optional<Error>& err_;
  std::set<std::string> seen_;
};

}  // namespace optimus::io

namespace optimus {
struct ModelSpec;
struct DeviceSpec;
struct SystemSpec;
struct SoftwareDefaults;
struct Scenario;
enum class Precision;
namespace io {
// Object readers shared by scenarios and presets (io/json_io.cpp).
Result<ModelSpec> read_model(const json& v, const std::string& path);
Result<DeviceSpec> read_device(const json& v, const std::string& path);
Result<SystemSpec> read_system(const json& v, const std::string& path);
// A scenario's num_devices, parallel, training and inference keys (docs/contract.md), read by
// `r` into `s` (dp defaults to what num_devices leaves); scenarios and study descriptions.
void read_scenario_body(Reader& r, std::optional<Error>& err, Scenario& s);
// A training precision by name ("bf16", "fp8", ...), as a scenario's training.precision.
std::optional<Precision> read_training_precision(Reader& r, const std::string& key, bool required);
}  // namespace io
}  // namespace optimus
