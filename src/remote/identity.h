#pragma once
// Whether an engine serves the labeler this client has: what its GET /v1/models says against
// the local labeler directory.
//
//   sift serve   names the fingerprint of its labeler's files (io/content_hash.h) on its
//                model object ("sift_fingerprint") and how it holds the weights
//                ("sift_weights"): the same files held the same way (auto and f32 are one
//                way: the same bits), the scores are the same bits as local scoring with
//                that --weights; other files, or another way, is refused.
//                Its model is found by id (the name this client sends), or, on a server
//                started with --served-model-name, by its fingerprint: that id is then the
//                name requests to it give (IdentityCheck::served_name).
//   others       (SGLang) name no fingerprint: the model id must be the name this client
//                sends, and the vocabulary size and answer ids, where named, must agree; the
//                scores are then the engine's arithmetic, not verified to be sift's.
//
// When: /v1/models on every connection to an engine, before the first request it carries
// (remote/fleet.h); and sift serve names its fingerprint in every /v1/score answer too, which
// check_answer_identity holds against the labeler's, so an engine swapped behind a
// connection that stays open (a load balancer's) is caught at its first answer.
#include <cstdint>
#include <optional>
#include <string>

namespace sift::remote {

struct LabelerIdentity {
  std::string model_name;   // what requests name as "model": the labeler directory's name
  std::string fingerprint;  // "sha256:..." of its files
  std::string where;        // the labeler directory, for messages
  int64_t vocab_size = 0;
  int32_t yes = -1, no = -1;
  std::string weights = "auto";  // how the engines must hold the weights (--weights): auto and f32 give the same bits
};

struct IdentityCheck {
  std::optional<std::string> refusal;  // set: the engine serves something else (what, in words)
  bool exact = false;                  // the fingerprints are equal
  std::string served_name;             // the id the engine serves this labeler as (requests' "model")
};

// `models_body` is the text of the engine's /v1/models answer (at most kMaxModelsAnswerBytes,
// nested at most kMaxJsonDepth deep: deeper is refused).
IdentityCheck check_identity(const std::string& models_body, const LabelerIdentity& local, const std::string& url);

// Whether one /v1/score answer is this labeler's: it names the labeler's fingerprint, or, from
// an engine checked as one that names none (`exact` false), no fingerprint. A refusal (naming
// the engine and both identities) when it names another, or none where the engine's
// /v1/models named this labeler's: the engine was swapped since it was checked.
std::optional<std::string> check_answer_identity(const std::optional<std::string>& named, bool exact,
                                                 const LabelerIdentity& local, const std::string& url);

}  // namespace sift::remote
