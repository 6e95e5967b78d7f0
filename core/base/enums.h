// One name table per enum. Each enum that appears in JSON (input, output, schema, errors)
// specialises EnumNames<E> next to its definition with a `table` of {value, name} pairs, in
// the order documents list them. The reader, the writer, the error messages and the emitted
// schema all go through these tables, so what a JSON value means never depends on an enum's
// declaration order.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace optimus {

template <class E>
struct EnumNames;  // specialised next to each enum (or by OPTIMUS_ENUM): static constexpr
                   // std::array<std::pair<E, std::string_view>, N> table

template <class E>
constexpr std::string_view name_of(E e) {
  for (const auto& [v, n] : EnumNames<E>::table)
    if (v == e) return n;
  return "?";
}

template <class E>
constexpr std::optional<E> parse_enum(std::string_view s) {
  for (const auto& [v, n] : EnumNames<E>::table)
    if (n == s) return v;
  return std::nullopt;
}

// Every value of E, in table order.
template <class E>
constexpr auto enum_values() {
  constexpr auto& t = EnumNames<E>::table;
  std::array<E, t.size()> out{};
  for (std::size_t i = 0; i < t.size(); ++i) out[i] = t[i].first;
  return out;
}

namespace detail {

// The items of a stringised enumerator list "a, b, c" (OPTIMUS_ENUM), in order, each paired with
// the enumerator of its position.
constexpr std::size_t count_items(std::string_view list) {
  std::size_t n = 1;
  for (char c : list) n += c == ',' ? 1 : 0;
  return n;
}
template <class E, std::size_t N>
constexpr std::array<std::pair<E, std::string_view>, N> spelled(std::string_view list) {
  std::array<std::pair<E, std::string_view>, N> out{};
  std::size_t i = 0;
  while (i < N) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    out[i] = {static_cast<E>(i), item};
    ++i;
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return out;
}

}  // namespace detail

// An enum whose JSON names are its enumerators' spellings, in declaration order:
// OPTIMUS_ENUM(Arrival, poisson, closed, offline) declares `enum class Arrival` and its EnumNames
// table. Enumerators take no explicit values. OPTIMUS_ENUM_AS names the underlying type.
#define OPTIMUS_ENUM_AS(E, T, ...)                                                                     \
  enum class E : T { __VA_ARGS__ };                                                                    \
  template <>                                                                                          \
  struct EnumNames<E> {                                                                                \
    static constexpr auto table = detail::spelled<E, detail::count_items(#__VA_ARGS__)>(#__VA_ARGS__); \
  }
#define OPTIMUS_ENUM(E, ...) OPTIMUS_ENUM_AS(E, int, __VA_ARGS__)

// The names of `values` (default: all), for readers' error messages and the schema.
template <class E, std::size_t N>
std::vector<std::string> enum_names(const std::array<E, N>& values) {
  std::vector<std::string> out;
  out.reserve(N);
  for (E v : values) out.emplace_back(name_of(v));
  return out;
}
template <class E>
std::vector<std::string> enum_names() {
  return enum_names(enum_values<E>());
}

}  // namespace optimus
