#include "remote/identity.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "io/json_parse.h"
#include "remote/engine_text.h"

namespace sift::remote {

namespace {

// --weights values that give the same bits: auto keeps 16-bit checkpoints 16-bit but computes
// f32's bits.
std::string_view weights_class(std::string_view weights) { return weights == "auto" ? "f32" : weights; }

// The id to check in a /v1/models list: the local name when listed; else the first id whose
// sift_fingerprint is this labeler's (sift serve --served-model-name); else the local name.
std::string name_serving(const nlohmann::json& models, const LabelerIdentity& local) {
  const auto id_of = [](const nlohmann::json& model) -> std::optional<std::string> {
    if (!model.is_object() || !model.contains("id") || !model["id"].is_string()) return std::nullopt;
    return model["id"].get<std::string>();
  };
  for (const nlohmann::json& model : models)
    if (id_of(model) == local.model_name) return local.model_name;
  for (const nlohmann::json& model : models) {
    const std::optional<std::string> id = id_of(model);
    const auto fingerprint = model.is_object() ? model.find("sift_fingerprint") : model.end();
    if (id && fingerprint != model.end() && fingerprint->is_string() && *fingerprint == local.fingerprint) return *id;
  }
  return local.model_name;
}

}  // namespace

IdentityCheck check_identity(const std::string& models_body, const LabelerIdentity& local, const std::string& url) {
  using nlohmann::json;
  IdentityCheck check;
  json body;
  try {
    body = parse_json(models_body, "");
  } catch (const Error& e) {
    check.refusal = fmt::format("engine {}: GET /v1/models did not answer an OpenAI model list: {}", url,
                                engine_text(e.what()));
    return check;
  }
  if (!body.is_object() || !body.contains("data") || !body["data"].is_array()) {
    check.refusal = fmt::format("engine {}: GET /v1/models did not answer an OpenAI model list", url);
    return check;
  }
  const std::string wanted = name_serving(body["data"], local);
  std::string served;
  for (const json& model : body["data"]) {
    if (!model.is_object() || !model.contains("id") || !model["id"].is_string()) continue;
    const std::string id = model["id"].get<std::string>();
    served += (served.empty() ? "" : ", ") + engine_text(id);
    if (id != wanted) continue;
    check.served_name = id;
    const auto named = [&](const char* field) { return model.contains(field) && !model[field].is_null(); };
    if (named("sift_fingerprint")) {
      const std::string theirs = model["sift_fingerprint"].is_string() ? model["sift_fingerprint"].get<std::string>()
                                                                      : model["sift_fingerprint"].dump();
      if (theirs != local.fingerprint)
        check.refusal = fmt::format("engine {} serves labeler {} with fingerprint {}, but this labeler ({}) is {}: "
                                    "its scores would not be this labeler's",
                                    url, engine_text(id), engine_text(theirs), local.where, local.fingerprint);
      const std::string weights =
          named("sift_weights") && model["sift_weights"].is_string() ? model["sift_weights"].get<std::string>() : "auto";
      if (!check.refusal && weights_class(weights) != weights_class(local.weights))
        check.refusal = fmt::format("engine {} holds the weights as {} (sift serve --weights), but this run asks for "
                                    "{} (--weights): their scores differ; give the engines' --weights here, or "
                                    "start them with this one",
                                    url, engine_text(weights), local.weights);
      check.exact = !check.refusal;
      return check;
    }
    if (named("vocab_size") && (!model["vocab_size"].is_number_integer() ||
                                model["vocab_size"].get<int64_t>() != local.vocab_size))
      check.refusal = fmt::format("engine {} serves {} with a vocabulary of {} tokens, but this labeler ({}) has {}", url,
                                  engine_text(id), engine_text(model["vocab_size"].dump()), local.where, local.vocab_size);
    if (named("answers")) {
      const json& answers = model["answers"];
      const auto id_of = [&](const char* word) -> int64_t {
        if (!answers.is_object() || !answers.contains(word) || !answers[word].is_object()) return -1;
        const json& entry = answers[word];
        return entry.contains("id") && entry["id"].is_number_integer() ? entry["id"].get<int64_t>() : -1;
      };
      if (id_of("yes") != local.yes || id_of("no") != local.no)
        check.refusal = fmt::format("engine {} serves {} whose answer ids are {}, but this labeler ({}) reads yes {} and "
                                    "no {}",
                                    url, engine_text(id), engine_text(answers.dump()), local.where, local.yes, local.no);
    }
    return check;
  }
  check.refusal = fmt::format("engine {} serves {}, not {} (the name this labeler's requests give; start the engine "
                              "with that name, as sift serve does from its directory, or SGLang's --served-model-name)",
                              url, served.empty() ? "no model" : engine_text(served), local.model_name);
  return check;
}

std::optional<std::string> check_answer_identity(const std::optional<std::string>& named, bool exact,
                                                 const LabelerIdentity& local, const std::string& url) {
  if (named ? *named == local.fingerprint : !exact) return std::nullopt;
  return fmt::format("engine {} answered a /v1/score request {}, but it was checked to serve this labeler ({}, {}): "
                     "another server answers there now (restarted with another labeler, or another replica behind "
                     "its address); none of its scores are used",
                     url,
                     named ? fmt::format("as the labeler with fingerprint {}", engine_text(*named))
                           : std::string("naming no labeler fingerprint (sift serve names its labeler's in every answer)"),
                     local.where, local.fingerprint);
}

}  // namespace sift::remote
