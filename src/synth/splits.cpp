#include "synth/splits.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "synth/rng.h"

namespace sift::synth {

namespace {
constexpr uint64_t kSplitStream = 3;  // see derive_seed: 1 = profile text, 2 = label noise
}

std::string_view split_name(Split split) {
  switch (split) {
    case Split::train: return "train";
    case Split::validation: return "validation";
    case Split::test: return "test";
  }
  return "train";
}

SplitFractions SplitFractions::parse(std::string_view text) {
  std::vector<double> values;
  std::string item;
  std::string all(text);
  size_t start = 0;
  while (true) {
    size_t comma = all.find(',', start);
    item = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    double value = std::strtod(item.c_str(), &end);
    if (item.empty() || end == item.c_str() || *end != '\0')
      fail_option("--split '{}': '{}' is not a number (expected three fractions such as 0.8,0.1,0.1)", text, item);
    values.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (values.size() != 3)
    fail_option("--split '{}': expected three fractions train,validation,test (such as 0.8,0.1,0.1), got {}", text,
         values.size());
  SplitFractions fractions{values[0], values[1], values[2]};
  fractions.validate();
  return fractions;
}

void SplitFractions::validate() const {
  for (double f : {train, validation, test})
    if (!std::isfinite(f) || f < 0 || f > 1)
      fail_option("--split: fractions must lie in [0, 1], got {},{},{}", train, validation, test);
  double sum = train + validation + test;
  if (std::abs(sum - 1.0) > 1e-6) fail_option("--split: fractions must sum to 1, got {},{},{} (sum {})", train, validation, test, sum);
}

Split assign_split(uint64_t seed, int64_t member_index, const SplitFractions& fractions) {
  double u = to_unit_interval(derive_seed(seed, kSplitStream, uint64_t(member_index)));
  if (u < fractions.train) return Split::train;
  if (u < fractions.train + fractions.validation) return Split::validation;
  // Rounding in train + validation must not put members into an empty test split.
  if (fractions.test == 0) return fractions.validation > 0 ? Split::validation : Split::train;
  return Split::test;
}

}  // namespace sift::synth
