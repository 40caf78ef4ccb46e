#include "remote/engine_answers.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "io/json_parse.h"
#include "remote/engine_text.h"
#include "scoring/readout.h"

namespace sift::remote {

namespace {

constexpr uint64_t kBytesPerNumber = 64;  // "0.12345678901234567," is 20; room for spaces
constexpr uint64_t kBytesBesideScores = uint64_t{64} << 10;

// nlohmann's SAX events for one /v1/score answer, into a ScoreAnswer: the open containers on
// a stack (at most kMaxJsonDepth), each event checked against the one it lands in. An event
// that breaks the shape records why and stops the parse.
class ScoreAnswerReader {
 public:
  using json = nlohmann::json;
  ScoreAnswerReader(size_t items, size_t labels) : items_(items), labels_(labels) {}

  bool null() { return value("null"); }
  bool boolean(bool) { return value("a boolean"); }
  bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return number(v); }
  bool string(json::string_t& v) {
    if (at_field("sift_fingerprint")) {
      answer_.fingerprint = std::move(v);
      return true;
    }
    return value("a string");
  }
  bool binary(json::binary_t&) { return value("binary data"); }
  bool start_object(std::size_t) { return open(Container::Object); }
  bool start_array(std::size_t) { return open(Container::Array); }
  bool key(json::string_t& name) {
    key_ = std::move(name);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) {
    not_json_ = true;
    return false;
  }

  // After the parse: the answer, or why not (`body` for the start of one that is not JSON).
  std::optional<ScoreAnswer> result(std::string_view body, std::string& why) {
    if (why_.empty() && not_json_) why_ = "a body that is not JSON: " + engine_text(body, 80);
    if (why_.empty() && !scores_read_) why_ = "no \"scores\" array";
    if (!why_.empty()) {
      why = "answered 200 with " + why_;
      return std::nullopt;
    }
    return std::move(answer_);
  }

 private:
  // What an open container is to the answer.
  enum class Container { Answer, Scores, Row, Object, Array };

  bool stop(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }
  bool at_field(std::string_view name) const {
    return open_.size() == 1 && open_.back() == Container::Answer && key_ == name;
  }
  std::string row_name() const { return fmt::format("scores[{}]", answer_.scores.size() - 1); }
  std::string not_a_row() const {
    return fmt::format("scores[{}] that is not {} numbers", answer_.scores.size() - 1, labels_);
  }

  // A value that is not a container nor a number: where it belongs, one is wrong.
  bool value(std::string_view what) {
    if (open_.empty()) return stop(fmt::format("{}, not a JSON object", what));
    if (open_.back() == Container::Scores) return stop(fmt::format("scores[{}] that is not {} numbers",
                                                                   answer_.scores.size(), labels_));
    if (open_.back() == Container::Row) return stop(not_a_row());
    if (at_field("scores")) return stop("\"scores\" that is not an array");
    if (at_field("sift_fingerprint")) return stop("a \"sift_fingerprint\" that is not a string");
    return true;
  }
  bool number(double p) {
    if (open_.empty() || open_.back() != Container::Row) return value("a number");
    std::vector<double>& row = answer_.scores.back();
    if (row.size() == labels_) return stop(not_a_row());
    if (!is_probability(p)) return stop(fmt::format("{} holding {}, not a probability", row_name(), p));
    row.push_back(p);
    return true;
  }
  bool open(Container kind) {
    if (open_.size() >= static_cast<size_t>(kMaxJsonDepth))
      return stop(fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
    if (open_.empty()) {
      if (kind != Container::Object) return stop("an array, not a JSON object");
      open_.push_back(Container::Answer);
      return true;
    }
    if (open_.back() == Container::Scores) {
      if (kind != Container::Array) return value("an object");
      if (answer_.scores.size() == items_)
        return stop(fmt::format("more than {} score rows for {} items", items_, items_));
      answer_.scores.emplace_back().reserve(labels_);
      open_.push_back(Container::Row);
      return true;
    }
    if (open_.back() == Container::Row) return stop(not_a_row());
    if (at_field("scores")) {
      if (kind != Container::Array) return value("an object");
      if (scores_read_) return stop("\"scores\" twice");
      answer_.scores.reserve(items_);
      open_.push_back(Container::Scores);
      return true;
    }
    if (at_field("sift_fingerprint")) return value("an object");
    open_.push_back(kind);
    return true;
  }
  bool close() {
    const Container closed = open_.back();
    open_.pop_back();
    if (closed == Container::Row && answer_.scores.back().size() != labels_) return stop(not_a_row());
    if (closed == Container::Scores) {
      if (answer_.scores.size() != items_)
        return stop(fmt::format("{} score rows for {} items", answer_.scores.size(), items_));
      scores_read_ = true;
    }
    return true;
  }

  size_t items_, labels_;
  ScoreAnswer answer_;
  std::vector<Container> open_;
  std::string key_;  // the key of the answer's field being read
  bool scores_read_ = false;
  bool not_json_ = false;
  std::string why_;
};

}  // namespace

uint64_t score_answer_bytes(size_t items, size_t labels) {
  return kBytesBesideScores + kBytesPerNumber * uint64_t{items} * (uint64_t{labels} + 1);
}

std::optional<ScoreAnswer> parse_score_answer(std::string_view body, size_t items, size_t labels, std::string& why) {
  ScoreAnswerReader reader(items, labels);
  nlohmann::json::sax_parse(body.begin(), body.end(), &reader);
  return reader.result(body, why);
}

std::string error_answer_message(std::string_view body) {
  try {
    const nlohmann::json j = parse_json(body, "");
    const auto text_at = [](const nlohmann::json& object, const char* key) -> const nlohmann::json* {
      return object.is_object() && object.contains(key) && object[key].is_string() ? &object[key] : nullptr;
    };
    for (const nlohmann::json* message :
         {text_at(j, "message"), j.is_object() && j.contains("error") ? text_at(j["error"], "message") : nullptr,
          text_at(j, "detail")})
      if (message) return engine_text(message->get_ref<const std::string&>());
  } catch (const Error&) {
  }
  return engine_text(body);
}

}  // namespace sift::remote
