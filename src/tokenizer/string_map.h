#pragma once
// Hash map keyed by std::string that can be queried with a std::string_view (no copy).
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sift {

struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringViewHash, std::equal_to<>>;

}  // namespace sift
