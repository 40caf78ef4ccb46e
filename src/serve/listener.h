#pragma once
// Listener: the listening socket of `sift serve` and its accept loop.
//
// bind() takes the port alone: no SO_REUSEPORT, so a second server on a port in use fails to
// start (an error naming host:port) instead of silently sharing the traffic. SO_REUSEADDR is
// set, which on Linux lets a restarted server bind while the old one's connections linger in
// TIME_WAIT but never while another socket listens there.
//
// Each accepted connection is counted in (Connections::admit) and served (start_session), or,
// over --max-connections or --max-connections-per-address, answered 503 and closed. When the
// process is out of file descriptors (EMFILE/ENFILE) a spare descriptor kept for the purpose
// is released to accept the waiting connection, tell it 503 and close it, so the backlog
// drains instead of spinning; the loop never stops for an accept error.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <memory>
#include <string>

#include "serve/http_session.h"

namespace sift::serve {

// Raises this process's soft RLIMIT_NOFILE to its hard limit; returns the soft limit now.
int64_t raise_open_file_limit();

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(boost::asio::io_context& io, SessionContext& context);
  ~Listener();

  // Binds and listens; throws Error naming host:port when it cannot (in use, not an address
  // of this machine). Port 0 takes any free port.
  void bind(const std::string& host, int port);
  int port() const { return port_; }
  // Accepts until close().
  void start();
  // Stops accepting (from any thread): the socket closes, a new connection is refused by the kernel.
  void close();

 private:
  void accept();
  void on_accept(const boost::system::error_code& error, boost::asio::ip::tcp::socket socket);
  void refuse_past_fd_limit();

  boost::asio::io_context& io_;
  SessionContext& context_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer pause_;  // before accepting again when even the spare descriptor is gone
  // The 503 written at the descriptor limit, made at startup: nothing that could want a
  // descriptor (a stream, a first check of a type by UBSan) runs when none is left.
  const std::string fd_limit_response_;
  int port_ = 0;
  int spare_fd_ = -1;
};

}  // namespace sift::serve
