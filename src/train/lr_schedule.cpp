#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sift::train {

double LrSchedule::at(int64_t step) const {
  const auto warmup = static_cast<int64_t>(std::llround(warmup_fraction * static_cast<double>(total_steps)));
  if (step < warmup) return peak_lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double progress =
      static_cast<double>(step - warmup) / static_cast<double>(std::max<int64_t>(1, total_steps - warmup));
  return peak_lr * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(1.0, progress)));
}

}  // namespace sift::train
