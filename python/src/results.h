#pragma once
// sift.Result: one row's result as Python objects, converted once (so result.scores[i] in a
// loop does not copy the row again).
//   scores : list of float, P(yes) per item (mode generate: 1.0 / 0.0, None = unparsed)
//   probabilities : list of float, the calibrated probability per item (sift.json's calibration
//            map applied to the score), or None when the labeler has no map (and in mode generate)
//   labels : list of bool, score (or, with threshold_on probability, probability) >= threshold
//            (None = unparsed)
//   error  : None, or what was wrong with the row; then scores and labels are None
//   item_ids : per item, the id it was given with ({"id", "text"}) or None; None for an error row
//   unparsed, prefill_tokens, generated_tokens, requests, truncated_tokens : as in sift::RowResult
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "sift/labeler.h"

namespace sift::python {

namespace py = pybind11;

struct Result {
  py::object scores = py::none(), probabilities = py::none(), labels = py::none(), error = py::none(),
             item_ids = py::none();
  py::list unparsed;
  int64_t prefill_tokens = 0, generated_tokens = 0, requests = 0, truncated_tokens = 0;
};

// An engine error in row.error becomes .error; `item_ids` (one per item) are kept for a scored row.
Result result_from_row(const RowResult& row, py::list item_ids);
Result result_from_error(const std::string& message);

void bind_result(py::module_& module);

}  // namespace sift::python
