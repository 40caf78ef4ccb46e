#pragma once
// BodyBudget: the request-body bytes every connection of a server may hold at once
// (--max-buffered-mb), so many clients each sending a large body cannot take the memory that
// --max-body-mb per request and --max-connections allow together. A request takes its share
// before its body is read: its Content-Length at once, a chunked body chunk by chunk as each
// chunk's size arrives; it gives the share back when its body is no longer held. A request
// whose share does not fit gets 503 with Retry-After (http_session.h); requests without a body
// (/health, /metrics) need none.
#include <atomic>
#include <cstdint>

namespace sift::serve {

class BodyBudget {
 public:
  explicit BodyBudget(int64_t max_bytes) : max_bytes_(max_bytes) {}

  // Takes `bytes`, or nothing (false) when fewer are left.
  bool take(int64_t bytes);
  void give_back(int64_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }
  int64_t max_bytes() const { return max_bytes_; }

 private:
  const int64_t max_bytes_;
  std::atomic<int64_t> held_{0};
};

}  // namespace sift::serve
