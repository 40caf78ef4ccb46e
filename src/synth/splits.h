#pragma once
// Member-disjoint splits: each member is assigned to train, validation or test by a seeded
// hash of its index, before any (member, candidate) pair exists, so no member's pairs are
// spread over two splits (paper §3.2).
#include <array>
#include <cstdint>
#include <string_view>

namespace sift::synth {

enum class Split { train = 0, validation = 1, test = 2 };
inline constexpr std::array<Split, 3> kAllSplits = {Split::train, Split::validation, Split::test};
std::string_view split_name(Split split);

struct SplitFractions {
  double train = 0.8;
  double validation = 0.1;
  double test = 0.1;

  // "0.8,0.1,0.1"; throws sift::OptionError unless three non-negative numbers summing to 1.
  static SplitFractions parse(std::string_view text);
  void validate() const;  // throws sift::OptionError
};

// The split of member `member_index`: a pure function of (seed, index, fractions).
Split assign_split(uint64_t seed, int64_t member_index, const SplitFractions& fractions);

}  // namespace sift::synth
