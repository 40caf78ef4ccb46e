#include "serve/listener.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <sstream>

#include "core/error.h"
#include "serve/http_request.h"

namespace sift::serve {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

int open_spare_fd() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }

// The client address a connection counts against: IPv4-mapped IPv6 addresses as IPv4.
std::string client_address(const tcp::socket& socket) {
  error_code error;
  net::ip::address address = socket.remote_endpoint(error).address();
  if (error) return "unknown";
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
  return address.to_string();
}

// A complete HTTP/1.1 503, to write with one send() when no session can be made.
std::string fd_limit_response() {
  const Reply reply = retry_reply(503, "the server has no file descriptor left for another connection; retry later");
  std::ostringstream text;
  text << to_response(reply, 11, /*keep_alive=*/false, /*head_only=*/false);
  return text.str();
}

}  // namespace

int64_t raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(limit.rlim_cur);
}

Listener::Listener(net::io_context& io, SessionContext& context)
    : io_(io),
      context_(context),
      strand_(net::make_strand(io)),
      acceptor_(strand_),
      pause_(strand_),
      fd_limit_response_(fd_limit_response()),
      spare_fd_(open_spare_fd()) {}

Listener::~Listener() {
  if (spare_fd_ >= 0) ::close(spare_fd_);
}

void Listener::bind(const std::string& host, int port) {
  const auto cannot = [&](const error_code& error) {
    fail("cannot listen on {}:{}: {}{}", host, port, error.message(),
         error == net::error::address_in_use ? " (another process listens there; sift serve never shares a port)" : "");
  };
  error_code error;
  tcp::resolver resolver(strand_);
  const auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, error);
  if (error || endpoints.empty()) fail("cannot listen on {}:{}: {}", host, port, error ? error.message() : "no address");
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), error);
  if (!error) acceptor_.set_option(tcp::acceptor::reuse_address(true), error);
  if (!error) acceptor_.bind(endpoint, error);
  if (!error) acceptor_.listen(net::socket_base::max_listen_connections, error);
  if (error) cannot(error);
  port_ = acceptor_.local_endpoint().port();
}

void Listener::start() {
  net::dispatch(strand_, [self = shared_from_this()] { self->accept(); });
}

void Listener::close() {
  net::post(strand_, [self = shared_from_this()] {
    error_code ignored;
    self->pause_.cancel();
    self->acceptor_.close(ignored);
  });
}

void Listener::accept() {
  if (!acceptor_.is_open()) return;
  // Each connection gets its own strand: its handlers never run at once, on any I/O thread.
  acceptor_.async_accept(net::make_strand(io_),
                         [self = shared_from_this()](const error_code& error, tcp::socket socket) {
                           self->on_accept(error, std::move(socket));
                         });
}

void Listener::on_accept(const error_code& error, tcp::socket socket) {
  if (error == net::error::operation_aborted || !acceptor_.is_open()) return;
  if (error == net::error::no_descriptors || error.value() == ENFILE) return refuse_past_fd_limit();
  if (error) return accept();  // the client gave up first (ECONNABORTED), ...: next
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);  // a response is one small write: no Nagle delay
  std::string address = client_address(socket);
  Connections& connections = context_.connections;
  switch (connections.admit(address)) {
    case Connections::Cap::None:
      start_session(std::move(socket), std::move(address), context_);
      break;
    case Connections::Cap::Total:
      context_.metrics.count_refused("max-connections");
      refuse_connection(std::move(socket),
                        retry_reply(503, fmt::format("the server holds --max-connections {} connections; retry later",
                                                     connections.max_total())),
                        context_);
      break;
    case Connections::Cap::PerAddress:
      context_.metrics.count_refused("per-address");
      refuse_connection(std::move(socket),
                        retry_reply(503, fmt::format("{} holds --max-connections-per-address {} connections; retry "
                                                     "later", address, connections.max_per_address())),
                        context_);
      break;
  }
  accept();
}

void Listener::refuse_past_fd_limit() {
  if (spare_fd_ >= 0) {
    ::close(spare_fd_);
    const int fd = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      context_.metrics.count_refused("fd-limit");
      [[maybe_unused]] const ssize_t sent =
          ::send(fd, fd_limit_response_.data(), fd_limit_response_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
    }
    spare_fd_ = open_spare_fd();
    if (fd >= 0 && spare_fd_ >= 0) return accept();
  }
  // Not even the spare: wait for connections to close.
  pause_.expires_after(std::chrono::milliseconds(50));
  pause_.async_wait([self = shared_from_this()](const error_code& error) {
    if (error) return;
    if (self->spare_fd_ < 0) self->spare_fd_ = open_spare_fd();
    self->accept();
  });
}

}  // namespace sift::serve
