#include "serve/test_gate.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace sift::serve {

TestGate TestGate::from_environment(const char* variable) {
  const char* path = std::getenv(variable);
  if (!path || !*path) return TestGate();
  // Read and write: the FIFO then always has a writer (this one), so a read waits for a byte
  // instead of seeing end-of-file between the test's writes.
  const int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) fail("{}={}: cannot open the test gate: {}", variable, path, std::strerror(errno));
  return TestGate(fd);
}

TestGate::~TestGate() {
  if (fd_ >= 0) ::close(fd_);
}

void TestGate::wait_for_byte() const {
  char byte = 0;
  while (::read(fd_, &byte, 1) < 0 && errno == EINTR) {
  }
}

}  // namespace sift::serve
