// libFuzzer target: the request-body parser of `sift serve` (src/serve/api_requests.h). The
// first byte picks the route (label, score, rerank); the rest is the body. The parser must
// return a request or throw BadRequest naming the field, on any bytes: anything else (a
// crash, a sanitizer report, another exception, a hang or an allocation past the fuzzer's
// limit) is a bug. The parsed fields obey what the server then relies on.
//
// The seeds (fuzz/corpus/fuzz_serve_request/) are the request bodies of docs/serving.md's curl
// examples and of SGLang's documentation, each behind its route byte.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "serve/api_requests.h"

namespace {

void expect(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

constexpr int64_t kMaxItems = 50;  // counted while parsing: a longer list is a 413

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        const sift::serve::LabelRequest r = sift::serve::parse_label_request(body, kMaxItems);
        expect(r.item_ids.size() == r.items.size() && static_cast<int64_t>(r.items.size()) <= kMaxItems);
        expect(!r.threshold || (*r.threshold >= 0 && *r.threshold <= 1));
        break;
      }
      case 1: {
        const sift::serve::ScoreRequest r = sift::serve::parse_score_request(body, kMaxItems);
        expect(!r.label_token_ids.empty());
        for (int32_t id : r.label_token_ids) expect(id >= 0);
        for (const auto& item : r.items) expect(item.index() == r.query.index());  // never mixed text and ids
        break;
      }
      default: {
        const sift::serve::RerankRequest r = sift::serve::parse_rerank_request(body, kMaxItems);
        expect(!r.top_n || *r.top_n >= 1);
        break;
      }
    }
  } catch (const sift::serve::BadRequest& e) {
    expect(e.what()[0] != '\0');
  }
  return 0;
}
