#pragma once
// Python rows -> sift::Row. A row is a (query, items) pair or a mapping with "query" and
// "items" (a dict, a pandas row); the query is a str, the items an iterable (a list, a tuple,
// a numpy array) of str or of dicts {"id", "text"}, read by the one items rule of `sift score`'s
// rows and `sift serve` (io/row_items.h, the same messages); bytes are taken as UTF-8 and
// checked by the engine. A malformed row throws RowError, whose message is the
// row's error, worded as `sift score` words it ('missing field "query"'); RowTypeError when
// a value has the wrong type (a TypeError where one row is scored, sift.Labeler.score).
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sift/labeler.h"

namespace sift::python {

namespace py = pybind11;

class RowError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class RowTypeError : public RowError {
 public:
  using RowError::RowError;
};

// `what` names the value in the error ("field \"query\"", "items[3]").
std::string text_from_python(py::handle text, std::string_view what);
// The items' texts; `ids`, when given, gets each item's id ({"id", "text"}) or None.
std::vector<std::string> items_from_python(py::handle items, py::list* ids = nullptr);
Row row_from_python(py::handle row, py::list* item_ids = nullptr);

// Rows converted one by one: the good ones in order, with their positions in the input, and
// an error message for every input row that could not be converted (empty for good rows).
struct ConvertedRows {
  std::vector<Row> rows;
  std::vector<py::list> item_ids;  // per good row: each item's id, or None
  std::vector<size_t> positions;
  std::vector<std::string> errors;  // one per input row
};
ConvertedRows rows_from_python(py::iterable rows);

// A line of JSON text: bytes as they are, a str as UTF-8 (lone surrogates back to the bytes
// they stand for, so the line's error says what sift batch says of those bytes); TypeError
// for anything else (lines[index]).
std::string line_from_python(py::handle line, size_t index);

}  // namespace sift::python
