// Error values and Result<T>. A user's impossible choice is data (Error with a stable dotted
// code, a JSON Pointer path into the scenario and a message that says what would be valid);
// an internal invariant is an assert. Nothing in core/ throws across its API or exits.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace optimus {

// One key of an error's proposed edit (Error::fix): a count, a flag or a name.
using FixValue = std::variant<bool, std::int64_t, std::string>;

struct Error {
  std::string code;     // stable, e.g. "parallel.tp_not_divisor_of_heads"
  std::string path;     // JSON Pointer into the scenario, e.g. "/parallel/tp"
  std::string message;  // what is wrong and what would be valid
  // A way out the engine can name exactly, where it has one: the object these keys make, set at
  // `path` in place of what is there (parallel.auto_no_layout: the layout that fits with the
  // optimizer state in host memory). Empty: none; the message still says it in words.
  std::vector<std::pair<std::string, FixValue>> fix{};
  // parallel.auto_no_layout, rl.train_no_layout and rl.rollout_does_not_fit: the job's devices in
  // all at the fewest count the look of search/search.h fewest_count finds (up to 32 times the
  // scenario's devices; an RL split job: the refusing pool's) with a layout that runs it, the other
  // keys as they are; 0: none found, or not looked for.
  std::int64_t fewest_devices = 0;
  // rl.train_no_layout and rl.rollout_does_not_fit of a split job with fewest_devices: its rollout
  // pool at that count (the training pool is the rest): the refusing pool grown, the other as
  // stated unless it refuses too at the grown job, then grown as well. 0: not split, or none found.
  std::int64_t fewest_rollout_devices = 0;
  // parallel.auto_no_layout: the layouts tried, counted by the code that refused each (the
  // search's `rejected`), so a caller tells "too large for the devices" from "divides nothing"
  // without reading the message. Empty for every other error.
  std::vector<std::pair<std::string, std::int64_t>> rejected{};
};

struct Warning {
  std::string code;
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string code, std::string path, std::string message) {
  return Error{std::move(code), std::move(path), std::move(message)};
}

}  // namespace optimus
