#include "serve/http_session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

#include "serve/api_requests.h"
#include "serve/http_request.h"

namespace sift::serve {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;
using SteadyClock = std::chrono::steady_clock;

// After the last response on a connection: how long the session still reads (and drops) what
// the client sends, so the client reads the response instead of a reset.
constexpr auto kLinger = std::chrono::seconds(2);
// The read buffer: a head (at most kMaxHeadBytes), the body as it streams through, and what a
// pipelining client sends ahead. Emptied and freed while the connection is idle.
constexpr size_t kReadBufferBytes = 64 * 1024;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kEndOfHead = "\r\n\r\n";
// How much one read of a head asks for.
constexpr size_t kHeadReadBytes = 4096;

SteadyClock::duration ticks(Seconds seconds) { return std::chrono::duration_cast<SteadyClock::duration>(seconds); }

class HttpSession final : public Connection, public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, std::string address, SessionContext& context)
      : stream_(std::move(socket)),
        timer_(stream_.get_executor()),
        buffer_(kReadBufferBytes),
        context_(context),
        address_(std::move(address)),
        on_chunk_([this](uint64_t size, beast::string_view, error_code& ec) {
          if (!hold_body(size)) ec = net::error::no_buffer_space;  // read_failed answers 503
        }) {
    context_.metrics.connections_changed(1);
  }
  ~HttpSession() override {
    release_body();
    if (!address_.empty()) context_.connections.release(address_);
    context_.connections.remove(this);
    context_.metrics.connections_changed(-1);
  }

  // Serves requests until the connection closes.
  void start() {
    context_.connections.add(shared_from_this());
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->wait_for_request(); });
  }
  // Answers `reply` before reading anything, then closes.
  void refuse(Reply reply) {
    context_.connections.add(shared_from_this());
    net::dispatch(stream_.get_executor(), [self = shared_from_this(), reply = std::move(reply)]() mutable {
      self->send(std::move(reply), /*close=*/true);
    });
  }

  void shut_down() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->stopping_ = true;
      if (self->phase_ == Phase::Idle || self->phase_ == Phase::Head || self->phase_ == Phase::Body) self->close();
    });
  }
  void force_close() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (self->phase_ == Phase::Working && self->started_.job)
        if (Service* service = self->context_.service.load()) service->give_up(*self->started_.job, GiveUp::Shutdown);
      self->close();
    });
  }

 private:
  enum class Phase { Idle, Head, Body, Working, Sending, Closing, Closed };

  bool stopping() const { return stopping_ || context_.stopping.load(); }

  // Idle: wait for the first byte of the next request (no buffer held) for --keep-alive-seconds.
  void wait_for_request() {
    phase_ = Phase::Idle;
    if (stopping()) return close();
    if (buffer_.size() > 0) return read_head();  // pipelined: already here
    buffer_.shrink_to_fit();
    timer_.expires_after(ticks(context_.options.keep_alive));
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec && self->phase_ == Phase::Idle) self->close();
    });
    peek([self = shared_from_this()](error_code ec) {
      if (self->phase_ != Phase::Idle) return;
      self->timer_.cancel();
      if (ec) return self->close();
      self->read_head();
    });
  }

  // Waits, without taking anything, until the client has sent a byte (no error) or closed its
  // end (error: eof, or a reset). A peek, not async_wait(wait_read): Asio's epoll reactor may
  // finish a readiness wait at once, readable or not.
  template <typename Handler>
  void peek(Handler&& handler) {
    stream_.socket().async_receive(net::buffer(&peeked_, 1), tcp::socket::message_peek,
                                   [handler = std::forward<Handler>(handler)](error_code ec, size_t) { handler(ec); });
  }

  // Head: the request line and fields, within --head-timeout-seconds of the first byte.
  void read_head() {
    phase_ = Phase::Head;
    route_ = nullptr;
    app_ = false;
    method_ = http::verb::unknown;
    version_ = 11;
    arrived_ = SteadyClock::now();
    parser_.emplace();
    parser_->header_limit(kMaxHeadBytes);
    parser_->body_limit(static_cast<uint64_t>(context_.options.max_body_bytes));
    parser_->on_chunk_header(on_chunk_);
    stream_.expires_after(ticks(context_.options.head_timeout));
    read_head_bytes();
  }

  // Reads until the buffer holds the head's blank line (or more than a head may hold), checks
  // its raw bytes, then has Beast parse it.
  void read_head_bytes() {
    const std::string_view buffered(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    const size_t end = buffered.find(kEndOfHead);
    if (end == std::string_view::npos && buffered.size() <= kMaxHeadBytes) {
      stream_.async_read_some(buffer_.prepare(std::min(kHeadReadBytes, buffer_.max_size() - buffer_.size())),
                              [self = shared_from_this()](error_code ec, size_t n) {
                                if (self->phase_ != Phase::Head) return;
                                self->buffer_.commit(n);
                                if (ec) return self->read_failed(ec, "head");
                                self->read_head_bytes();
                              });
      return;
    }
    if (end != std::string_view::npos)
      if (std::optional<Reply> refusal = head_bytes_refusal(buffered.substr(0, end + kEndOfHead.size())))
        return respond(std::move(*refusal), /*close=*/true);
    error_code ec;
    buffer_.consume(parser_->put(buffer_.data(), ec));  // the head, or an error (431 past kMaxHeadBytes)
    if (ec) return read_failed(ec, "head");
    on_head();
  }

  void on_head() {
    arrived_ = SteadyClock::now();
    const auto& head = parser_->get();
    method_ = head.method();
    version_ = head.version();
    keep_alive_ = head.keep_alive();
    const HeadRules rules{.api_key = context_.options.api_key ? &*context_.options.api_key : nullptr,
                          .service_ready = context_.service.load() != nullptr,
                          .unhealthy = unhealthy_reason(),
                          .api = context_.api,
                          .routes = context_.routes,
                          .hosts = context_.options.api_key ? nullptr : &context_.hosts,
                          .client = address_};
    HeadVerdict verdict = check_head(*parser_, rules);
    route_ = verdict.route;
    app_ = verdict.app;
    if (verdict.refusal) return respond(std::move(*verdict.refusal), verdict.close || !keep_alive_);
    if (parser_->is_done()) return run();
    if (const auto length = parser_->content_length(); length && !hold_body(*length))
      return respond(over_budget(), /*close=*/true);  // its body unread
    if (!verdict.send_continue) return read_body();
    stream_.expires_after(ticks(context_.options.body_timeout));
    net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                     [self = shared_from_this()](error_code ec, size_t) {
                       if (self->phase_ != Phase::Head) return;
                       if (ec) return self->close();
                       self->read_body();
                     });
  }

  // Body: all of it within --body-timeout-seconds (Content-Length or chunked, at most --max-body-mb).
  void read_body() {
    phase_ = Phase::Body;
    stream_.expires_after(ticks(context_.options.body_timeout));
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
      if (self->phase_ != Phase::Body) return;
      if (ec) return self->read_failed(ec, "body");
      self->run();
    });
  }

  // A body's share of --max-buffered-mb: its Content-Length, or each chunk as its size arrives.
  // False, nothing taken, when the budget has not that much left.
  bool hold_body(uint64_t bytes) {
    if (bytes > static_cast<uint64_t>(context_.body_budget.max_bytes()) ||
        !context_.body_budget.take(static_cast<int64_t>(bytes)))
      return false;
    body_held_ += static_cast<int64_t>(bytes);
    return true;
  }
  void release_body() {
    context_.body_budget.give_back(body_held_);
    body_held_ = 0;
  }
  Reply over_budget() const {
    return retry_reply(503, fmt::format("the server holds --max-buffered-mb ({} bytes) of request bodies from all "
                                        "clients; retry later", context_.body_budget.max_bytes()));
  }

  // A read that ended without a request: a deadline (counted), the client gone (nothing to
  // answer), a body over the budget (503), or bytes Beast's parser refused (answered, then closed).
  void read_failed(error_code ec, const char* phase) {
    if (ec == net::error::no_buffer_space) return respond(over_budget(), /*close=*/true);  // on_chunk_
    if (ec == beast::error::timeout) {
      context_.metrics.count_timed_out(phase);
      return close();
    }
    const bool parser_refused = ec.category() == http::make_error_code(http::error::bad_method).category() &&
                                ec != http::error::end_of_stream && ec != http::error::partial_message;
    if (!parser_refused) return close();
    respond(refusal_of(ec, context_.options.max_body_bytes), /*close=*/true);
  }

  // Working: the request is complete; answer it, or queue its job and wait (without a thread).
  void run() {
    phase_ = Phase::Working;
    stream_.expires_never();
    const bool close = !keep_alive_;
    if (app_) return answer_app(close);
    if (!route_) return respond(error_reply(404, "no route"), close);  // refused with the head; never here
    Service* service = context_.service.load();
    const std::string* unhealthy = unhealthy_reason();
    if (route_->needs_model && !service)
      return respond(unhealthy ? error_reply(503, *unhealthy) : retry_reply(503, "the model is loading"), close);
    start(*route_, service, unhealthy);
  }

  const std::string* unhealthy_reason() const {
    return context_.unhealthy && context_.unhealthy->set.load(std::memory_order_acquire) ? &context_.unhealthy->reason
                                                                                        : nullptr;
  }

  // An application's request (routes.h), answered on the application's workers (it may wait
  // on a database), then sent from this connection's strand.
  void answer_app(bool close) {
    auto request = std::make_shared<Routes::Request>(std::move(parser_->get()));
    parser_.reset();
    net::post(*context_.app_workers, [self = shared_from_this(), executor = stream_.get_executor(), request, close] {
      Reply reply;
      try {
        reply = self->context_.routes->answer(*request, self->address_);
      } catch (const std::exception& e) {
        reply = error_reply(500, e.what());
      }
      net::post(executor, [self, reply = std::move(reply), close]() mutable {
        if (self->phase_ == Phase::Working) self->respond(std::move(reply), close);
      });
    });
  }

  // The route's handler: its answer at once, or the job it queued, answered by job_done().
  void start(const ApiRoute& route, Service* service, const std::string* unhealthy) {
    const std::string body = std::move(parser_->get().body());
    parser_.reset();
    // Called on a worker's thread: hand over to this connection's strand, nothing more.
    auto on_done = [self = shared_from_this(), executor = stream_.get_executor()] {
      net::post(executor, [self] { self->job_done(); });
    };
    RouteCall call{.service = service, .metrics = context_.metrics, .unhealthy = unhealthy, .body = body,
                   .on_done = std::move(on_done)};
    try {
      started_ = route.handler(call);
    } catch (const BadRequest& e) {
      return respond(error_reply(e.status(), e.what(), e.field()), !keep_alive_);
    } catch (const std::exception& e) {
      return respond(error_reply(500, e.what()), !keep_alive_);
    }
    release_body();  // parsed: the job holds what it needs
    if (started_.reply) {
      Reply reply = std::move(*started_.reply);
      started_ = {};
      return respond(std::move(reply), !keep_alive_);
    }
    const std::shared_ptr<Job> job = started_.job;
    if (!job) return respond(error_reply(500, fmt::format("{} gave no answer", route.path)), !keep_alive_);
    watch_client(job);
    if (job->deadline) {
      timer_.expires_at(*job->deadline);
      timer_.async_wait([self = shared_from_this(), job](error_code ec) {
        if (!ec && self->started_.job == job) self->give_up(GiveUp::Deadline);
      });
    }
  }

  // While `job` waits: a client that closes its end has its job dropped; one that sends its
  // next request (pipelining) has it buffered for later, up to the read buffer's size.
  void watch_client(const std::shared_ptr<Job>& job) {
    peek([self = shared_from_this(), job](error_code ec) {
      if (ec == net::error::operation_aborted || self->phase_ != Phase::Working || self->started_.job != job) return;
      if (ec) return self->give_up(GiveUp::Disconnect);
      tcp::socket& socket = self->stream_.socket();
      error_code error;
      const size_t available = socket.available(error);
      if (error) return self->give_up(GiveUp::Disconnect);
      if (self->buffer_.size() + available > self->buffer_.max_size()) return;  // it waits in the socket
      const size_t n = socket.read_some(self->buffer_.prepare(available), error);
      if (error) return self->give_up(GiveUp::Disconnect);
      self->buffer_.commit(n);
      self->watch_client(job);
    });
  }

  void stop_waiting() {
    timer_.cancel();
    error_code ignored;
    stream_.socket().cancel(ignored);  // the watch
  }

  void job_done() {
    if (phase_ != Phase::Working || !started_.job) return;
    stop_waiting();
    Reply reply;
    try {
      reply = Service::answer(started_);
    } catch (const std::exception& e) {
      reply = error_reply(500, e.what());
    }
    started_ = {};
    respond(std::move(reply), !keep_alive_);
  }

  void give_up(GiveUp why) {
    Service* service = context_.service.load();
    std::optional<Reply> reply = service ? service->give_up(*started_.job, why) : std::nullopt;
    if (!reply) return;  // the engine has it: job_done answers
    stop_waiting();
    started_ = {};
    respond(std::move(*reply), why != GiveUp::Deadline || !keep_alive_);
  }

  // Counts the answered request, then sends it.
  void respond(Reply reply, bool close) {
    release_body();
    const double seconds = std::chrono::duration<double>(SteadyClock::now() - arrived_).count();
    context_.metrics.count_request(route_ ? std::string_view(route_->path) : app_ ? "app" : "other", reply.status,
                                   seconds);
    send(std::move(reply), close);
  }

  // Sending: the whole response within --body-timeout-seconds.
  void send(Reply reply, bool close) {
    if (phase_ == Phase::Closed) return;  // shut down before a refusal was sent
    phase_ = Phase::Sending;
    close_after_ = close || stopping();
    response_ = to_response(reply, version_, !close_after_, method_ == http::verb::head);
    stream_.expires_after(ticks(context_.options.body_timeout));
    http::async_write(stream_, response_, [self = shared_from_this()](error_code ec, size_t) {
      if (self->phase_ != Phase::Sending) return;
      self->response_ = {};
      if (ec) {
        if (ec == beast::error::timeout) self->context_.metrics.count_timed_out("send");
        return self->close();
      }
      if (self->close_after_) return self->linger();
      self->wait_for_request();
    });
  }

  // Closing: our side is done; read and drop what the client still sends, for kLinger at most.
  void linger() {
    phase_ = Phase::Closing;
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.clear();
    stream_.expires_after(kLinger);
    drain();
  }
  void drain() {
    stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](error_code ec, size_t) {
      if (self->phase_ != Phase::Closing) return;
      if (ec) return self->close();
      self->drain();
    });
  }

  void close() {
    if (phase_ == Phase::Closed) return;
    phase_ = Phase::Closed;
    release_body();
    timer_.cancel();
    error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
    // The parser stays: a read still pending on it (a head or body cut short by shutdown)
    // finishes with operation_aborted, and Beast touches the parser before calling back. It is
    // freed with the session, once that last handler has run.
    started_ = {};
  }

  beast::tcp_stream stream_;
  net::steady_timer timer_;  // idle (--keep-alive-seconds), then a queued job's timeout_ms
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  Response response_;
  SessionContext& context_;
  const std::string address_;  // empty for a connection being refused (not counted in)
  Phase phase_ = Phase::Idle;
  char peeked_ = 0;  // peek()'s byte (left in the socket)
  bool stopping_ = false;
  bool close_after_ = false;
  // The request being answered.
  const ApiRoute* route_ = nullptr;  // null: no route, or an application's request (app_)
  bool app_ = false;
  http::verb method_ = http::verb::unknown;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  SteadyClock::time_point arrived_ = SteadyClock::now();
  Started started_;  // its job, while queued or running
  int64_t body_held_ = 0;  // of context_.body_budget, by the request being read or answered
  // The parser's chunk-header callback (Beast keeps a reference to it): takes each chunk's share.
  std::function<void(uint64_t, beast::string_view, error_code&)> on_chunk_;
};

}  // namespace

void start_session(tcp::socket socket, std::string address, SessionContext& context) {
  std::make_shared<HttpSession>(std::move(socket), std::move(address), context)->start();
}

void refuse_connection(tcp::socket socket, Reply reply, SessionContext& context) {
  std::make_shared<HttpSession>(std::move(socket), std::string(), context)->refuse(std::move(reply));
}

}  // namespace sift::serve
