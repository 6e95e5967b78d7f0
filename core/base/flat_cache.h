// A memo table for the engine's hot loops (the serving simulator asks for tens of thousands of
// step and GEMM costs): open addressing with linear probing in one contiguous array (Knuth, TAOCP
// vol. 3, Sec. 6.4, algorithm L), kept at most half full, entries never erased. Compared with
// std::unordered_map it allocates once per doubling instead of once per entry and a lookup
// touches one cache line instead of a bucket and a node. The slots hold the key and the index of
// the value, kept densely in insertion order, so a large value does not bloat the empty slots. Only for
// trivially copyable keys and values. The hash is finalised with MurmurHash3's fmix64 (Appleby) so that the
// low bits the power-of-two table uses depend on every bit of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace optimus {

template <class Key, class Value, class Hash>
class FlatCache {
 public:
  // The value stored for key, or nullptr (valid until the next insert).
  const Value* find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slot_of(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.index == kEmpty) return nullptr;
      if (s.key == key) return &values_[s.index];
    }
  }
  // Stores value for a key not yet present; returns the stored value.
  const Value& insert(const Key& key, const Value& value) {
    if (2 * (values_.size() + 1) > slots_.size()) grow();
    values_.push_back(value);
    place(key, static_cast<std::uint32_t>(values_.size() - 1));
    return values_.back();
  }
  std::size_t size() const { return values_.size(); }

 private:
  static constexpr std::uint32_t kEmpty = 0xffffffffu;
  static std::size_t slot_of(const Key& key) {
    auto h = static_cast<std::uint64_t>(Hash{}(key));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return static_cast<std::size_t>(h);
  }
  struct Slot {
    Key key{};
    std::uint32_t index = kEmpty;
  };
  void place(const Key& key, std::uint32_t index) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = slot_of(key) & mask;
    while (slots_[i].index != kEmpty) i = (i + 1) & mask;
    slots_[i] = Slot{key, index};
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    for (const Slot& s : old)
      if (s.index != kEmpty) place(s.key, s.index);
  }
  std::vector<Slot> slots_;
  std::vector<Value> values_;
};

}  // namespace optimus
