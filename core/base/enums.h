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
struct EnumNames;  // specialised next to each enum: static constexpr std::array<std::pair<E,
                   // std::string_view>, N> table

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
