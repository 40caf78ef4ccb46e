// libFuzzer target: the query strings and form bodies of `sift review`
// (src/review/query_string.h). Any bytes must give parameters or a BadRequest naming what is
// wrong: anything else (a crash, a sanitizer report, another exception) is a bug. What comes
// out obeys what the API relies on: texts are valid UTF-8 within their byte limit, numbers
// within their range and finite.
//
// The seeds (fuzz/corpus/fuzz_review_query/) are the query strings the pages send.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.h"
#include "review/query_string.h"
#include "serve/api_requests.h"
#include "tokenizer/utf8.h"

namespace {

void expect(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const sift::review::QueryParams params(text, {"id", "text", "order", "offset", "limit", "threshold"});
    for (const char* name : {"id", "text", "order"})
      if (const auto value = params.text(name, 256)) {
        expect(value->size() <= 256);
        sift::utf8::validate(*value);  // throws (a bug here) when it is not UTF-8
      }
    if (const auto offset = params.integer("offset", 0, int64_t{1} << 40))
      expect(*offset >= 0 && *offset <= (int64_t{1} << 40));
    if (const auto limit = params.integer("limit", 1, 500)) expect(*limit >= 1 && *limit <= 500);
    if (const auto threshold = params.number("threshold", 0, 1))
      expect(std::isfinite(*threshold) && *threshold >= 0 && *threshold <= 1);
  } catch (const sift::serve::BadRequest&) {
    // refused, saying why
  }
  return 0;
}
