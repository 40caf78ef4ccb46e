#pragma once
// The JSON-lines rows sift reads, told apart by their fields, so that a file given to the
// wrong command is named as such: "missing field "text": this looks like a row to score
// {"id", "query", "items"}; `sift label --profiles` reads profiles {"id", "text"}".
//
//   row to score     "query" and "items"                (sift score, batch, eval, calibrate, train)
//   scored line      "scores" and "labels", no "query"  (sift score's output without --echo)
//   profile          "text", no "query" or "name"       (sift label --profiles)
//   catalog entry    "name", no "query" or "text"       (sift label --catalog)
#include <string>

#include <nlohmann/json.hpp>

namespace sift {

enum class RowShape { Unknown, RowToScore, ScoredLine, Profile, CatalogEntry };

RowShape row_shape(const nlohmann::json& object);

// When `object` (a row a reader of `expected` rows cannot read) has the shape of another kind
// of row: "this looks like <that kind>; <what the reader reads>". Otherwise "".
std::string row_mixup_hint(const nlohmann::json& object, RowShape expected);

// What a reader of rows to score says of an object without "query" or "items": the mix-up
// hint when it is another kind of row, else the fields it has: "got fields candidates,
// question; expected id, query, items" ("got no fields; ..." for {}).
std::string row_to_score_fields_hint(const nlohmann::json& object);

}  // namespace sift
