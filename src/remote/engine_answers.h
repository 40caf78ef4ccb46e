#pragma once
// What an engine answers, read with bounds the engine cannot move (a scoring server is another
// program on the network: its answer is hostile input like any file sift reads):
//
//   size      a /v1/score answer is at most score_answer_bytes(items, labels): 64 bytes for
//             each probability and each row the request can produce, plus 64 KiB for the
//             rest (model, usage, an error's message); a /v1/models answer at most
//             kMaxModelsAnswerBytes. The connection stops reading an answer at its bound
//             (remote/http_connection.h), so a runaway answer costs that much and no more.
//   shape     "scores" holds exactly `items` rows of `labels` numbers, each a probability in
//             [0, 1], counted while parsing: a row or number too many stops the parse there.
//   nesting   the other fields' values nest at most kMaxJsonDepth (io/json_parse.h) deep.
//   identity  the labeler fingerprint the answer names ("sift_fingerprint": sift serve names
//             its labeler's in every answer), for remote/identity.h's check_answer_identity.
//
// Every failure is worded for a message, engine text escaped (remote/engine_text.h).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sift::remote {

using ItemScores = std::vector<std::vector<double>>;  // per item, per label

inline constexpr uint64_t kMaxModelsAnswerBytes = uint64_t{1} << 20;

// The largest /v1/score answer (or error answer) read for a request of `items` x `labels`.
uint64_t score_answer_bytes(size_t items, size_t labels);

struct ScoreAnswer {
  ItemScores scores;                       // items x labels probabilities
  std::optional<std::string> fingerprint;  // "sift_fingerprint", when the answer names one
};

// A 200 answer's body; nullopt with `why` when it is not a /v1/score answer of that shape.
std::optional<ScoreAnswer> parse_score_answer(std::string_view body, size_t items, size_t labels, std::string& why);

// The message of an error answer (sift serve, SGLang and OpenAI put it at "message",
// "error.message" or "detail"), else the start of the body; escaped.
std::string error_answer_message(std::string_view body);

}  // namespace sift::remote
