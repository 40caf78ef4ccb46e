#include "serve/api_requests.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "io/json_parse.h"
#include "io/row_items.h"
#include "scoring/readout.h"
#include "serve/reply.h"

namespace sift::serve {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& field, const std::string& message) { throw BadRequest(field, message); }

// The body as JSON, strictly: a key twice in one object or an integer beyond 64 bits is a 400
// naming it, never the last value or a rounded number. The list field `items_field` is counted
// while the body is parsed: past max_items the parse stops with a 413 (--max-items), before
// the rest of the list is built.
// `other_items_field` is a second name the route takes for that list (rerank's TEI "texts").
json parse_body(std::string_view body, const char* items_field, int64_t max_items, const char* other_items_field = "") {
  json object;
  try {
    object = parse_json(body, "request body",
                        {.unique_keys = true, .exact_integers = true,
                         .array_cap = JsonArrayCap{items_field, static_cast<size_t>(std::max<int64_t>(0, max_items)),
                                                   other_items_field}});
  } catch (const JsonArrayTooLong& e) {
    throw BadRequest(e.path(), fmt::format("the request has more than --max-items {} {}", max_items, e.path()), 413);
  } catch (const JsonValueError& e) {
    bad(e.path(), e.what());
  } catch (const Error& e) {  // not JSON, a number out of range (1e400), nested too deep
    bad("", e.what());
  } catch (const json::exception& e) {
    bad("", fmt::format("the body is not valid JSON: {}", e.what()));
  }
  if (!object.is_object()) bad("", fmt::format("the body must be a JSON object, got {}", object.type_name()));
  return object;
}

const json* find(const json& object, const char* field) {
  auto it = object.find(field);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const json& require(const json& object, const char* field) {
  const json* value = find(object, field);
  if (!value) bad(field, fmt::format("missing field \"{}\"", field));
  return *value;
}

std::string string_of(const json& value, const std::string& field) {
  if (!value.is_string()) bad(field, fmt::format("field \"{}\" must be a string, got {}", field, value.type_name()));
  return value.get<std::string>();
}

bool bool_of(const json& object, const char* field, bool fallback) {
  const json* value = find(object, field);
  if (!value) return fallback;
  if (!value->is_boolean()) bad(field, fmt::format("field \"{}\" must be true or false, got {}", field, value->type_name()));
  return value->get<bool>();
}

// A JSON integer in [lo, hi] (1.0 is accepted as 1; 1.5 is not).
int64_t integer_of(const json& value, const std::string& field, int64_t lo, int64_t hi) {
  const auto out_of_range = [&] { bad(field, fmt::format("field \"{}\" must be an integer in [{}, {}], got {}", field, lo, hi, echoed(value.dump()))); };
  if (!value.is_number()) bad(field, fmt::format("field \"{}\" must be an integer, got {}", field, value.type_name()));
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) out_of_range();
    return static_cast<int64_t>(d);
  }
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(hi) || static_cast<int64_t>(u) < lo) out_of_range();
    return static_cast<int64_t>(u);
  }
  const int64_t v = value.get<int64_t>();
  if (v < lo || v > hi) out_of_range();
  return v;
}

std::vector<int32_t> ids_of(const json& value, const std::string& field) {
  if (!value.is_array()) bad(field, fmt::format("field \"{}\" must be a list of token ids", field));
  std::vector<int32_t> ids;
  ids.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i)
    ids.push_back(static_cast<int32_t>(
        integer_of(value[i], fmt::format("{}[{}]", field, i), 0, std::numeric_limits<int32_t>::max())));
  return ids;
}

CommonFields common_of(const json& object) {
  CommonFields common;
  if (const json* t = find(object, "timeout_ms")) common.timeout_ms = integer_of(*t, "timeout_ms", 1, int64_t{86'400'000});
  if (const json* m = find(object, "model")) common.model = string_of(*m, "model");
  return common;
}

TruncateFields truncate_of(const json& object) {
  TruncateFields fields;
  if (const json* t = find(object, "truncate")) {
    const std::optional<Truncate> truncate = parse_truncate(string_of(*t, "truncate"));
    if (!truncate) bad("truncate", fmt::format("field \"truncate\" must be none, query or items, got {}", echoed(t->dump())));
    fields.truncate = *truncate;
  }
  if (const json* d = find(object, "truncation_direction")) {
    const std::optional<TruncationDirection> direction = parse_truncation_direction(string_of(*d, "truncation_direction"));
    if (!direction)
      bad("truncation_direction", fmt::format("field \"truncation_direction\" must be right or left, got {}", echoed(d->dump())));
    fields.direction = *direction;
  }
  if (const json* l = find(object, "long_items")) {
    const std::optional<LongItems> long_items = parse_long_items(string_of(*l, "long_items"));
    if (!long_items)
      bad("long_items", fmt::format("field \"long_items\" must be error, truncate or chunk, got {}", echoed(l->dump())));
    fields.long_items = *long_items;
  }
  return fields;
}

// A list of items (io/row_items.h): each a string, or an object with a string "text" and
// an optional "id"; a bad one is a BadRequest naming its path.
JsonRowItems text_items(const json& list, const char* field, bool with_ids) {
  try {
    return read_json_row_items(list, field, with_ids);
  } catch (const RowItemsError& e) {
    bad(e.param(), e.what());
  }
}

}  // namespace

LabelRequest parse_label_request(std::string_view body, int64_t max_items) {
  const json object = parse_body(body, "items", max_items);
  LabelRequest request;
  request.common = common_of(object);
  request.query = string_of(require(object, "query"), "query");
  JsonRowItems items = text_items(require(object, "items"), "items", true);
  request.items = std::move(items.texts);
  request.item_ids = std::move(items.ids);
  request.has_item_ids = items.has_ids;
  if (const json* t = find(object, "threshold")) {
    if (!t->is_number()) bad("threshold", fmt::format("field \"threshold\" must be a number, got {}", t->type_name()));
    const double threshold = t->get<double>();
    if (!is_probability(threshold)) bad("threshold", fmt::format("field \"threshold\" must be in [0, 1], got {}", threshold));
    request.threshold = threshold;
  }
  if (const json* m = find(object, "mode")) {
    const std::optional<ScoringMode> mode = parse_scoring_mode(string_of(*m, "mode"));
    if (!mode) bad("mode", fmt::format("field \"mode\" must be mis, independent, prefix or generate, got {}", echoed(m->dump())));
    request.mode = *mode;
  }
  request.truncation = truncate_of(object);
  if (request.truncation.long_items && *request.truncation.long_items != LongItems::Error &&
      request.mode == ScoringMode::Generate)
    bad("long_items", "field \"long_items\": mode generate scores one whole prompt per request, not a query and its "
                      "items; long items are cut or chunked in mis, independent and prefix");
  if (request.truncation.truncate != Truncate::None && request.mode == ScoringMode::Generate)
    bad("truncate", "field \"truncate\": mode generate scores one whole prompt per request, not a query and its items; "
                    "truncation is for mis, independent and prefix");
  return request;
}

ScoreRequest parse_score_request(std::string_view body, int64_t max_items) {
  const json object = parse_body(body, "items", max_items);
  ScoreRequest request;
  request.common = common_of(object);
  const json& query = require(object, "query");
  const bool text = query.is_string();
  if (text) request.query = query.get<std::string>();
  else if (query.is_array()) request.query = ids_of(query, "query");
  else bad("query", fmt::format("field \"query\" must be a string or a list of token ids, got {}", query.type_name()));

  const json& items = require(object, "items");
  if (items.is_string()) {  // one item, as SGLang accepts it
    if (!text) bad("items", "field \"items\" is text but \"query\" is token ids: both must be text or both ids");
    request.items.emplace_back(items.get<std::string>());
  } else if (items.is_array()) {
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string where = fmt::format("items[{}]", i);
      if (text && items[i].is_string()) request.items.emplace_back(items[i].get<std::string>());
      else if (!text && items[i].is_array()) request.items.emplace_back(ids_of(items[i], where));
      else bad(where, fmt::format("{} must be {} like \"query\", got {}", where, text ? "a string" : "a list of token ids",
                                  items[i].type_name()));
    }
  } else {
    bad("items", fmt::format("field \"items\" must be a string or a list, got {}", items.type_name()));
  }
  request.label_token_ids = ids_of(require(object, "label_token_ids"), "label_token_ids");
  if (request.label_token_ids.empty()) bad("label_token_ids", "field \"label_token_ids\" must name at least one token");
  request.apply_softmax = bool_of(object, "apply_softmax", false);
  request.item_first = bool_of(object, "item_first", false);
  request.truncation = truncate_of(object);
  if (request.truncation.long_items == LongItems::Chunk)
    bad("long_items", "field \"long_items\": chunk needs the labeler's item template around each window, and /v1/score "
                      "items are prompt parts the client rendered; chunk them with /v1/label or /v1/rerank");
  return request;
}

namespace {

// TEI's rerank fields (the body has "texts"): its booleans, and its Left/Right in any case.
void read_tei_rerank(const json& object, RerankRequest& request) {
  request.shape = RerankShape::Tei;
  if (find(object, "documents"))
    bad("texts", "the body has both \"texts\" (TEI's rerank) and \"documents\" (Jina's, Cohere's): send one");
  request.documents = text_items(require(object, "texts"), "texts", false).texts;
  request.return_documents = bool_of(object, "return_text", false);
  if (bool_of(object, "raw_scores", false))
    bad("raw_scores", "field \"raw_scores\": sift's rerank scores are P(yes), probabilities; there are no raw scores "
                      "to return (send false or leave it out)");
  if (bool_of(object, "truncate", false)) request.truncation.truncate = Truncate::Items;
  if (const json* d = find(object, "truncation_direction")) {
    std::string text = string_of(*d, "truncation_direction");
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::optional<TruncationDirection> direction = parse_truncation_direction(text);
    if (!direction)
      bad("truncation_direction", fmt::format("field \"truncation_direction\" must be Right or Left, got {}", echoed(d->dump())));
    request.truncation.direction = *direction;
  }
}

}  // namespace

RerankRequest parse_rerank_request(std::string_view body, int64_t max_items) {
  const json object = parse_body(body, "documents", max_items, "texts");
  RerankRequest request;
  request.common = common_of(object);
  request.query = string_of(require(object, "query"), "query");
  if (object.contains("texts")) {
    read_tei_rerank(object, request);
  } else {
    request.documents = text_items(require(object, "documents"), "documents", false).texts;
    request.return_documents = bool_of(object, "return_documents", false);
    request.truncation = truncate_of(object);
    if (request.truncation.truncate != Truncate::None)
      bad("truncate", "field \"truncate\" is not a /v1/rerank field: \"long_items\": \"truncate\" cuts a long document");
    if (find(object, "max_tokens_per_doc"))
      bad("max_tokens_per_doc", "field \"max_tokens_per_doc\" is not supported: a document that does not fit a "
                                "request with the query gets 400; leave the field out");
  }
  if (const json* n = find(object, "top_n")) request.top_n = integer_of(*n, "top_n", 1, std::numeric_limits<int32_t>::max());
  return request;
}

}  // namespace sift::serve
