#pragma once
// Learning rate at optimiser step s (0-based) of S total, peak lr, W = round(warmup * S):
//   s <  W : lr * (s + 1) / W                                   linear warmup
//   s >= W : lr * 0.5 * (1 + cos(pi * (s - W) / max(1, S - W)))  cosine decay towards 0
#include <cstdint>

namespace sift::train {

struct LrSchedule {
  double peak_lr = 3e-4;
  double warmup_fraction = 0.05;
  int64_t total_steps = 1;

  double at(int64_t step) const;
};

}  // namespace sift::train
