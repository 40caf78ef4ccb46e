#pragma once
// EngineGate: a hold on the engines for tests only, so a test can keep them busy for as long
// as it needs (by events, not by sleeping and hoping the engine is still busy).
//
// When the environment variable SIFT_TEST_ENGINE_GATE names a FIFO as the engines start
// (engine_pool.h), each worker reads one byte from it before each batch it runs: after it has
// taken the batch's jobs off the queue (claimed them, dropped the expired ones), before any
// compute. A test writes one byte per batch it lets through; while it writes none, the workers
// hold the jobs they took and the queue fills. Unset (as everywhere but in tests) a worker pays
// one branch per batch.

namespace sift::serve {

inline constexpr const char* kEngineGateVariable = "SIFT_TEST_ENGINE_GATE";

class EngineGate {
 public:
  // Reads SIFT_TEST_ENGINE_GATE (once); an Error naming it when it is set but cannot be opened.
  static EngineGate from_environment();
  EngineGate() = default;  // open: never holds
  ~EngineGate();
  EngineGate(EngineGate&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  EngineGate& operator=(EngineGate&&) = delete;

  // Waits for one byte of the FIFO (returns at once when the gate is open).
  void pass() const {
    if (fd_ >= 0) wait_for_byte();
  }

 private:
  explicit EngineGate(int fd) : fd_(fd) {}
  void wait_for_byte() const;
  int fd_ = -1;
};

}  // namespace sift::serve
