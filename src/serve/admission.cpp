#include "serve/admission.h"

#include <fmt/format.h>

namespace sift::serve {
namespace {

constexpr int64_t kFixedBytes = 512;

[[noreturn]] void too_large(const char* field, const std::string& message) { throw BadRequest(field, message, 413); }

void check_response(int64_t bytes, const AdmissionLimits& limits) {
  if (bytes > limits.max_response_bytes)
    too_large("", fmt::format("the response would be up to {} bytes, more than --max-response-mb ({} bytes)", bytes,
                              limits.max_response_bytes));
}

int64_t echoed_body_bytes(bool echoes, size_t body_bytes) { return echoes ? static_cast<int64_t>(body_bytes) : 0; }

}  // namespace

void admit(const LabelRequest& request, size_t body_bytes, const AdmissionLimits& limits) {
  // Per item: its score, its label ("false,") and, in mode generate, its index in "unparsed".
  const int64_t n_items = static_cast<int64_t>(request.items.size());
  check_response(kFixedBytes + n_items * (kBytesPerScore + 6 + 8) + echoed_body_bytes(request.has_item_ids, body_bytes), limits);
}

void admit(const ScoreRequest& request, size_t body_bytes, const AdmissionLimits& limits) {
  // Each count is below 2^30 (a body is at most 1 GiB), so the product fits 64 bits.
  const int64_t n_items = static_cast<int64_t>(request.items.size());
  const int64_t n_labels = static_cast<int64_t>(request.label_token_ids.size());
  const int64_t n_scores = n_items * n_labels;
  if (n_scores > limits.max_scores)
    too_large("label_token_ids",
              fmt::format("the response would hold {} scores ({} items x {} label_token_ids), more than --max-scores {}",
                          n_scores, n_items, n_labels, limits.max_scores));
  check_response(kFixedBytes + n_scores * kBytesPerScore + n_items * 2, limits);  // each item's "[]"
}

void admit(const RerankRequest& request, size_t body_bytes, const AdmissionLimits& limits) {
  // Per document: {"index": N, "relevance_score": x} (and its text, echoed, with return_documents).
  const int64_t n_documents = static_cast<int64_t>(request.documents.size());
  check_response(kFixedBytes + n_documents * (kBytesPerScore + 48) + echoed_body_bytes(request.return_documents, body_bytes),
                 limits);
}

}  // namespace sift::serve
