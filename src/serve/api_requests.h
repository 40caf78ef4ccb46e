#pragma once
// The request bodies of `sift serve`, parsed and checked field by field. Nothing here knows
// the model: token ids are checked against the vocabulary later (serve/service.h). A body
// that is not valid JSON, or a field of the wrong type, throws BadRequest naming the field,
// which the server answers with 400 {"error": {"message", "field"}}.
//
//   POST /v1/label  {"query": str, "items": [str | {"id"?, "text": str}], "threshold"?: 0..1,
//                    "mode"?: "mis"|"independent"|"prefix"|"generate", "truncate"?: "none"|"query"|"items",
//                    "truncation_direction"?: "right"|"left", "long_items"?: "error"|"truncate"|"chunk",
//                    "model"?: str, "timeout_ms"?}
//   POST /v1/score  {"query": str | [int], "items": str | [str] | [[int]], "label_token_ids": [int],
//                    "apply_softmax"?: bool, "item_first"?: bool, "truncate"?, "truncation_direction"?,
//                    "long_items"?: "error"|"truncate", "model"?: str, "timeout_ms"?}
//   POST /v1/rerank {"query": str, "documents": [str | {"text": str}], "top_n"?: int >= 1,
//                    "return_documents"?: bool, "long_items"?: "error"|"truncate"|"chunk",
//                    "truncation_direction"?, "model"?: str, "timeout_ms"?}
//        (also /v2/rerank and /rerank: Jina's, Cohere's v2 SDK's, vLLM's and llama-server's shape)
//     or, TEI's:   {"query": str, "texts": [str], "return_text"?: bool, "raw_scores"?: false,
//                    "truncate"?: bool, "truncation_direction"?: "right"|"left" (any case), "model"?, "timeout_ms"?}
//        A body with "texts" is TEI's and is answered in TEI's shape (service.h), as llama-server
//        decides it; a body with both "texts" and "documents" is refused. A long document is
//        chunked into windows unless "long_items" (or TEI's "truncate": true, which cuts) says otherwise.
//
// /v1/score follows SGLang's semantics: query and items are prompt parts as the client
// rendered them (text or token ids, never mixed); each prompt is query ++ item, or
// item ++ query with item_first.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sift/labeler.h"

namespace sift::serve {

// A request refused for what its body holds: what is wrong, the field (a JSON path like
// "items[3].text"; empty for the body), and the status: 400, or 413 for one over a size limit
// (serve/admission.h).
class BadRequest : public std::runtime_error {
 public:
  BadRequest(std::string field, const std::string& message, int status = 400)
      : std::runtime_error(message), field_(std::move(field)), status_(status) {}
  const std::string& field() const { return field_; }
  int status() const { return status_; }

 private:
  std::string field_;
  int status_;
};

// Fields every POST route accepts.
struct CommonFields {
  std::optional<int64_t> timeout_ms;  // deadline for the work to start, from the request's arrival
  std::optional<std::string> model;   // must be the served model's id when given (service.h)
};

// What a row too long for a request gives up, as `sift score --truncate` and
// --truncation-direction (scoring/truncation.h): the same names and values.
// "long_items" (scoring/long_items.h) overrides the server's --long-items for the request.
struct TruncateFields {
  Truncate truncate = Truncate::None;
  TruncationDirection direction = TruncationDirection::Right;
  std::optional<LongItems> long_items;
};

struct LabelRequest {
  CommonFields common;
  TruncateFields truncation;
  std::string query;
  std::vector<std::string> items;
  std::vector<nlohmann::json> item_ids;  // one per item; null when the item had none
  bool has_item_ids = false;
  std::optional<double> threshold;
  ScoringMode mode = ScoringMode::Mis;
};

using TextOrIds = std::variant<std::string, std::vector<int32_t>>;

struct ScoreRequest {
  CommonFields common;
  TruncateFields truncation;
  TextOrIds query;
  std::vector<TextOrIds> items;  // all text or all ids, as the query is
  std::vector<int32_t> label_token_ids;
  bool apply_softmax = false;
  bool item_first = false;
};

// Whose shape a rerank request has, and so its answer: Jina's (Cohere's, vLLM's) or TEI's.
enum class RerankShape { Documents, Tei };

struct RerankRequest {
  CommonFields common;
  RerankShape shape = RerankShape::Documents;
  TruncateFields truncation;  // "long_items" and "truncation_direction"; TEI's "truncate": true cuts the texts
  std::string query;
  std::vector<std::string> documents;  // TEI's "texts"
  std::optional<int64_t> top_n;
  bool return_documents = false;       // TEI's "return_text"
};

// Each throws BadRequest. `body` is the raw request body. Its items (documents) are counted
// while it is parsed: one more than max_items (--max-items) stops the parse with a 413, so a
// body of millions of tiny items is never built whole.
LabelRequest parse_label_request(std::string_view body, int64_t max_items);
ScoreRequest parse_score_request(std::string_view body, int64_t max_items);
RerankRequest parse_rerank_request(std::string_view body, int64_t max_items);

}  // namespace sift::serve
