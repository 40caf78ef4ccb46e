#include "serve/body_budget.h"

namespace sift::serve {

bool BodyBudget::take(int64_t bytes) {
  int64_t held = held_.load(std::memory_order_relaxed);
  do {
    if (bytes > max_bytes_ - held) return false;
  } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
  return true;
}

}  // namespace sift::serve
