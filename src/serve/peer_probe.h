#pragma once
// PeerProbe: tells whether the client of an HTTP request has closed its connection, so the
// server can drop its queued work. httplib 0.11 does not hand a handler its socket, so the
// probe finds it once among the process's open sockets by the connection's two ends
// (local port, peer address and port: unique among live TCP connections), then asks the
// kernel without reading anything: poll() for POLLRDHUP/POLLHUP/POLLERR. While the handler
// runs, httplib keeps the socket open, so the descriptor cannot be reused under the probe.
#include <string>

namespace sift::serve {

class PeerProbe {
 public:
  PeerProbe(int local_port, const std::string& peer_address, int peer_port);
  bool found() const { return fd_ >= 0; }
  // True once the peer has closed (or reset) the connection; false when it cannot tell.
  bool closed() const;

 private:
  int fd_ = -1;
};

}  // namespace sift::serve
