#pragma once
// TestGate: a hold on `sift serve`'s threads for tests only, so a test can keep them busy for
// as long as it needs (by events, not by sleeping and hoping they are still busy).
//
// When an environment variable below names a FIFO as the threads start, each thread reads one
// byte from it before each piece of work; a test writes one byte per piece it lets through.
// Unset (as everywhere but in tests) a thread pays one branch per piece.
//
//   SIFT_TEST_ENGINE_GATE    the engines (engine_pool.h): before each batch, after the worker
//                            took its jobs off the queue (claimed them, dropped the expired
//                            ones), before any compute; while it is held the queue fills
//   SIFT_TEST_PREPARE_GATE   the preparation threads (preparation.h): before each request is
//                            rendered and tokenized; while it is held the HTTP threads still
//                            answer everything else

namespace sift::serve {

inline constexpr const char* kEngineGateVariable = "SIFT_TEST_ENGINE_GATE";
inline constexpr const char* kPrepareGateVariable = "SIFT_TEST_PREPARE_GATE";

class TestGate {
 public:
  // Reads `variable` (once); an Error naming it when it is set but cannot be opened.
  static TestGate from_environment(const char* variable);
  TestGate() = default;  // open: never holds
  ~TestGate();
  TestGate(TestGate&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  TestGate& operator=(TestGate&&) = delete;

  // Waits for one byte of the FIFO (returns at once when the gate is open).
  void pass() const {
    if (fd_ >= 0) wait_for_byte();
  }

 private:
  explicit TestGate(int fd) : fd_(fd) {}
  void wait_for_byte() const;
  int fd_ = -1;
};

}  // namespace sift::serve
