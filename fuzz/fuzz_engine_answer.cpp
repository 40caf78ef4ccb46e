// libFuzzer target: what an engine answers to `sift ... --engine` (src/remote/engine_answers.h,
// src/remote/identity.h, src/remote/engine_text.h). The first byte gives the request's shape
// (items 0-15 in its low four bits, labels 1-4 in the next two); the rest is the body, read as
// a /v1/score answer to such a request, as a /v1/models answer checked against a labeler, and
// as an error answer. On any bytes: a parsed answer has exactly that shape with every score a
// probability, a refusal says why, and no message carries a control character; anything else
// (a crash, a sanitizer report, an exception, a hang, an allocation past the fuzzer's limit)
// is a bug. tools/run_fuzzers.sh gives a 256 MB allocation limit; the connection bounds a real
// body to score_answer_bytes (a few KiB here) and kMaxModelsAnswerBytes.
//
// The seeds (fuzz/corpus/fuzz_engine_answer/) are sift serve's and SGLang's /v1/score and
// /v1/models answers and error answers, each behind its shape byte.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "remote/engine_answers.h"
#include "remote/engine_text.h"
#include "remote/identity.h"

namespace {

void expect(bool condition) {
  if (!condition) std::abort();
}

// What engine_text promises: no byte below 0x20, no DEL.
void expect_printable(const std::string& message) {
  for (const char c : message) expect(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
}

const sift::remote::LabelerIdentity kLocal{.model_name = "labeler", .fingerprint = "sha256:aa",
                                           .where = "models/labeler", .vocab_size = 512, .yes = 257, .no = 258};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sift::remote;
  if (size == 0) return 0;
  const size_t items = data[0] & 0x0f, labels = 1 + ((data[0] >> 4) & 0x03);
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::string why;
  if (const std::optional<ScoreAnswer> answer = parse_score_answer(body, items, labels, why)) {
    expect(answer->scores.size() == items);
    for (const auto& row : answer->scores) {
      expect(row.size() == labels);
      for (const double p : row) expect(p >= 0.0 && p <= 1.0);
    }
    for (const bool exact : {true, false})
      if (const auto refusal = check_answer_identity(answer->fingerprint, exact, kLocal, "http://e")) expect_printable(*refusal);
  } else {
    expect(!why.empty());
    expect_printable(why);
  }
  const IdentityCheck check = check_identity(body, kLocal, "http://e");
  if (check.refusal) expect_printable(*check.refusal);
  expect(!(check.refusal && check.exact));
  expect_printable(error_answer_message(body));
  expect_printable(engine_text(body, 16));
  return 0;
}
