#pragma once
// sift.Labeler: sift::Labeler (include/sift/labeler.h) with its scoring options fixed at
// construction. The GIL is released while the engine loads and scores, and each Python thread
// scoring at a moment gets a context of its own over the one copy of the weights, so threads
// sharing one Labeler score in parallel.
// With engines=[URL, ...] the rows are scored on scoring servers (sift/engines.h) instead.
// Engine errors (sift::Error) become ValueError with the engine's message; a model_dir
// that is not a directory is FileNotFoundError (an OSError).
#include <pybind11/pybind11.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results.h"
#include "sift/labeler.h"

namespace sift::python {

namespace py = pybind11;

class PyLabeler {
 public:
  PyLabeler(const std::filesystem::path& model_dir, const std::string& mode, std::optional<int64_t> threads,
            std::optional<double> threshold, std::optional<int64_t> max_request_tokens,
            std::optional<int64_t> max_batch_tokens, const std::string& weights, const std::string& truncate,
            const std::string& truncation_direction, const std::vector<std::string>& engines, double engine_timeout,
            double query_cache_mb);

  // One row; a bad row raises (TypeError for a wrong type, ValueError with the engine's message).
  Result score(py::handle query, py::handle items) const;
  // Many rows, packed into forward calls; a bad row gets its Result.error, never an exception.
  py::list score_rows(py::iterable rows) const;
  // `sift batch`'s output lines (str, no newline) for JSON lines numbered from first_line.
  py::list score_lines(py::iterable lines, int64_t first_line, bool echo) const;

  std::string model_dir() const { return model_dir_.string(); }
  const std::string& version() const { return labeler_.version(); }
  double threshold() const { return options_.threshold.value_or(labeler_.threshold()); }
  bool calibrated() const { return labeler_.calibrated(); }
  std::string threshold_on() const { return labeler_.thresholds_probability() ? "probability" : "score"; }
  py::object artifact() const;  // sift.json as a dict
  std::string_view mode() const { return scoring_mode_name(options_.mode); }
  int threads() const { return labeler_.threads(); }
  std::optional<int64_t> max_request_tokens() const { return options_.max_request_tokens; }
  std::optional<int64_t> max_batch_tokens() const { return options_.max_batch_tokens; }
  std::string_view weights() const { return weight_storage_name(load_.weights); }
  std::string_view truncate() const { return truncate_name(options_.truncate); }
  std::string_view truncation_direction() const { return truncation_direction_name(options_.truncation_direction); }
  const std::vector<std::string>& engines() const { return engines_; }
  double query_cache_mb() const { return query_cache_mb_; }
  std::string repr() const;

 private:
  std::filesystem::path model_dir_;
  ScoringOptions options_;
  LoadOptions load_;
  double query_cache_mb_;             // query_cache_mb= as given (load_.query_cache_bytes: in bytes)
  std::vector<std::string> engines_;  // scoring servers (sift/engines.h); empty: this machine
  Labeler labeler_;
};

void bind_labeler(py::module_& module);

}  // namespace sift::python
