// libFuzzer target: bytes a client sends `sift serve` on one connection, through Beast's request
// parser and the glue sift puts around it (src/serve/http_request.h: check_head over the route table,
// refusal_of, to_response), then, for a POST route, the request-to-Service mapping short of
// the model: the body parser (api_requests.h) and admission by size (admission.h).
//
// The first byte is settings: bit 0 an API key is set (else Host and Origin are checked, as the
// server does), bit 1 the model is loaded, bits 2-7 where
// the rest is cut into two writes (so the parser sees a request arrive in pieces, as from a
// socket). The rest is read as requests one after another (pipelining), at most 8, as the
// session reads them: each either is refused (a 4xx/5xx JSON reply, from its raw head bytes or
// its parsed head; the connection then closes unless it has no body) or is complete and answered. Anything else (a crash, a sanitizer
// report, another exception, a reply out of its range, a hang, a huge allocation) is a bug.
//
// Seeds (fuzz/corpus/fuzz_http_request/): the settings byte 0x03, then requests as clients send
// them: plain, chunked, pipelined, with Expect, with a key, and the framings RFC 9112 forbids.
#include <boost/asio/buffer.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "serve/admission.h"
#include "serve/api_requests.h"
#include "serve/http_options.h"
#include "serve/http_request.h"

namespace {

using namespace sift::serve;

constexpr int64_t kMaxBody = 64 * 1024;
constexpr int kMaxRequests = 8;

void expect(bool condition) {
  if (!condition) std::abort();
}

void expect_error_reply(const Reply& reply) {
  expect(reply.status >= 400 && reply.status <= 599);
  expect(reply.body["code"] == reply.status && reply.body["message"].is_string() &&
         !reply.body["message"].get<std::string>().empty());
  const Response response = to_response(reply, 11, false, false);
  expect(!response.body().empty() && !response.keep_alive());
}

// What a Service would be asked to do with a complete POST body, short of the model.
void map_to_service(const ApiRoute& route, std::string_view body) {
  const AdmissionLimits limits{.max_items = 50, .max_scores = 200, .max_response_bytes = 8192};
  try {
    if (route.path == "/v1/label") admit(parse_label_request(body, limits.max_items), body.size(), limits);
    else if (route.path == "/v1/score") admit(parse_score_request(body, limits.max_items), body.size(), limits);
    else admit(parse_rerank_request(body, limits.max_items), body.size(), limits);
  } catch (const BadRequest& e) {
    expect(e.status() == 400 || e.status() == 413);
    expect_error_reply(error_reply(e.status(), e.what(), e.field()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const ApiKey key = ApiKey::of("fuzz-key");
  static const AllowedHosts hosts("127.0.0.1", {"sift.example"});
  const bool keyed = (data[0] & 1) != 0;
  const HeadRules rules{.api_key = keyed ? &key : nullptr, .service_ready = (data[0] & 2) != 0,
                        .hosts = keyed ? nullptr : &hosts};
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t arrived = (data[0] >> 2) * bytes.size() / 63;  // the end of the first write
  size_t consumed = 0;                                  // by the parser, over all requests

  for (int n = 0; n < kMaxRequests && consumed < bytes.size(); ++n) {
    RequestParser parser;  // one per request, as the session makes them
    parser.header_limit(kMaxHeadBytes);
    parser.body_limit(kMaxBody);
    std::optional<HeadVerdict> verdict;
    boost::system::error_code error;
    const size_t start = consumed;  // of this request
    while (!parser.is_done()) {
      const size_t used = parser.put(boost::asio::buffer(bytes.data() + consumed, arrived - consumed), error);
      consumed += used;
      if (!verdict && parser.is_header_done()) {
        if (const std::optional<Reply> refusal = head_bytes_refusal(bytes.substr(start, consumed - start))) {
          expect_error_reply(*refusal);
          return 0;  // answered, then closed
        }
        verdict = check_head(parser, rules);
        const auto target = parser.get().target();
        expect(verdict->route ==
               find_route(scoring_api_routes(), parser.get().method(), std::string_view(target.data(), target.size())));
        if (verdict->refusal) {
          expect_error_reply(*verdict->refusal);
          const bool has_body = parser.chunked() || parser.content_length().value_or(0) > 0;
          expect(verdict->close || !has_body);  // an unread body is never taken for the next request
          if (verdict->close) return 0;
        } else {
          expect(verdict->route != nullptr);
        }
      }
      if (error == boost::beast::http::error::need_more || (!error && used == 0)) {  // (a body: no need_more)
        error = {};
        if (arrived == bytes.size()) return 0;  // the client stops here: the session's deadline closes it
        arrived = bytes.size();                 // the second write
        continue;
      }
      if (error) {
        expect_error_reply(refusal_of(error, kMaxBody));
        return 0;  // the connection closes after what the parser refused
      }
    }
    expect(verdict.has_value());
    if (!verdict->refusal && verdict->route->method == ApiRoute::Method::Post)
      map_to_service(*verdict->route, parser.get().body());
    if (!parser.get().keep_alive()) return 0;
    if (consumed == arrived) arrived = bytes.size();
  }
  return 0;
}
