#include "results.h"

#include <fmt/format.h>

namespace sift::python {

namespace {

// None for an absent value (generate mode's unparsed items).
template <typename T>
py::list list_of_optionals(const std::vector<std::optional<T>>& values) {
  py::list list(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    list[i] = values[i] ? py::cast(*values[i]) : py::none();
  return list;
}

}  // namespace

Result result_from_row(const RowResult& row, py::list item_ids) {
  if (!row.error.empty()) return result_from_error(row.error);
  Result result;
  result.item_ids = std::move(item_ids);
  result.scores = list_of_optionals(row.scores);
  if (!row.probabilities.empty()) result.probabilities = list_of_optionals(row.probabilities);
  result.labels = list_of_optionals(row.labels);
  if (row.generation) {
    for (int64_t item : row.generation->unparsed) result.unparsed.append(item);
    result.generated_tokens = row.generation->generated_tokens;
  }
  result.prefill_tokens = row.prefill_tokens;
  result.requests = row.requests;
  result.truncated_tokens = row.truncated_tokens;
  return result;
}

Result result_from_error(const std::string& message) {
  Result result;
  result.error = py::str(message);
  return result;
}

void bind_result(py::module_& module) {
  py::class_<Result>(module, "Result", "One row's result: scores, labels (or error), usage.")
      .def_readonly("scores", &Result::scores, "P(yes) per item (None: generate mode, unparsed); None for an error row")
      .def_readonly("probabilities", &Result::probabilities,
                    "the calibrated probability per item (sift.json's calibration_map applied to the score); None "
                    "when the labeler has no map, and for an error row")
      .def_readonly("labels", &Result::labels,
                    "score (or, with sift.json's threshold_on probability, probability) >= threshold per item; None "
                    "for an error row")
      .def_readonly("error", &Result::error, "None, or what was wrong with the row")
      .def_readonly("item_ids", &Result::item_ids,
                    "per item, the id it was given with ({\"id\", \"text\"}) or None; None for an error row")
      .def_readonly("unparsed", &Result::unparsed, "generate mode: the items whose answer was not parsed")
      .def_readonly("prefill_tokens", &Result::prefill_tokens, "tokens run through the model for this row")
      .def_readonly("generated_tokens", &Result::generated_tokens, "generate mode: tokens decoded for this row")
      .def_readonly("requests", &Result::requests, "prompts in the mode's own sense")
      .def_readonly("truncated_tokens", &Result::truncated_tokens,
                    "prompt tokens cut by the labeler's truncate option (0 when nothing was cut)")
      .def("__repr__", [](const Result& r) {
        if (!r.error.is_none()) return fmt::format("sift.Result(error={})", py::repr(r.error).cast<std::string>());
        if (!r.probabilities.is_none())
          return fmt::format("sift.Result(scores={}, probabilities={}, labels={})", py::repr(r.scores).cast<std::string>(),
                             py::repr(r.probabilities).cast<std::string>(), py::repr(r.labels).cast<std::string>());
        return fmt::format("sift.Result(scores={}, labels={})", py::repr(r.scores).cast<std::string>(),
                           py::repr(r.labels).cast<std::string>());
      });
}

}  // namespace sift::python
