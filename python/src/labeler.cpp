#include "labeler.h"

#include <fmt/format.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <limits>
#include <vector>

#include "rows.h"
#include "sift/engines.h"  // the engines' options and their default timeout (the client: SIFT_HAVE_REMOTE)
#include "sift/lines.h"

namespace sift::python {

namespace {

// threads=: at least 1 (None: the default); more than sift::max_threads() is capped there
// with a warning, as the CLI caps --threads.
int thread_count(std::optional<int64_t> threads) {
  if (!threads) return 0;
  if (*threads < 1) throw py::value_error(fmt::format("threads must be at least 1, got {}", *threads));
  const int most = max_threads();
  if (*threads <= most) return static_cast<int>(*threads);
  const std::string warning = fmt::format("threads={} is more than {} per core on this machine of {} cores: using {}",
                                          *threads, kMaxThreadsPerCore, most / kMaxThreadsPerCore, most);
  if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1) != 0) throw py::error_already_set();  // -W error
  return most;
}

// "mis, independent, prefix or generate": sift::kScoringModes, as a message names them.
std::string mode_choices() {
  std::string words;
  const size_t n = std::size(kScoringModes);
  for (size_t i = 0; i < n; ++i)
    words += fmt::format("{}{}", i == 0 ? "" : i + 1 == n ? " or " : ", ", scoring_mode_name(kScoringModes[i]));
  return words;
}

// query_cache_mb=: a finite number of MiB in [0, kMaxQueryCacheMb], as the CLI's --kv-cache-mb.
int64_t query_cache_bytes(double megabytes) {
  if (!(std::isfinite(megabytes) && megabytes >= 0 && megabytes <= kMaxQueryCacheMb))
    throw py::value_error(
        fmt::format("query_cache_mb must be a number in [0, {}], got {}", kMaxQueryCacheMb, megabytes));
  return static_cast<int64_t>(megabytes * 1024 * 1024);
}

ScoringOptions scoring_options(const std::string& mode, std::optional<double> threshold,
                               std::optional<int64_t> max_request_tokens, std::optional<int64_t> max_batch_tokens,
                               const std::string& truncate, const std::string& truncation_direction) {
  ScoringOptions options;
  const std::optional<ScoringMode> parsed = parse_scoring_mode(mode);
  if (!parsed) throw py::value_error(fmt::format("mode must be {}, got '{}'", mode_choices(), mode));
  options.mode = *parsed;
  options.threshold = threshold;  // the threshold and token limits: checked by the engine once loaded
  options.max_request_tokens = max_request_tokens;
  options.max_batch_tokens = max_batch_tokens;
  const std::optional<Truncate> cut = parse_truncate(truncate);
  if (!cut) throw py::value_error(fmt::format("truncate must be none, query or items, got '{}'", truncate));
  options.truncate = *cut;
  const std::optional<TruncationDirection> direction = parse_truncation_direction(truncation_direction);
  if (!direction)
    throw py::value_error(fmt::format("truncation_direction must be right or left, got '{}'", truncation_direction));
  options.truncation_direction = *direction;
  return options;
}

LoadOptions load_options(std::optional<int64_t> threads, const std::string& weights, double query_cache_mb) {
  const std::optional<WeightStorage> storage = parse_weight_storage(weights);
  if (!storage) throw py::value_error(fmt::format("weights must be auto, f32, bf16 or q8, got '{}'", weights));
  return LoadOptions{.threads = thread_count(threads),
                     .weights = *storage,
                     .query_cache_bytes = query_cache_bytes(query_cache_mb)};
}

Labeler load_labeler(const std::filesystem::path& dir, const LoadOptions& options,
                     const std::vector<std::string>& engines, double engine_timeout) {
#if !SIFT_HAVE_REMOTE
  if (!engines.empty()) throw py::value_error("engines: this sift was built without its serving component");
#endif
  try {
    const py::gil_scoped_release release;
#if SIFT_HAVE_REMOTE
    if (!engines.empty())
      return load_with_engines(dir, {.urls = engines, .timeout_seconds = engine_timeout}, options);
#endif
    return Labeler::load(dir, options);
  } catch (const Error& e) {
    if (std::filesystem::is_directory(dir)) throw;  // a broken labeler: ValueError
    PyErr_SetString(PyExc_FileNotFoundError, e.what());
    throw py::error_already_set();
  }
}

}  // namespace

PyLabeler::PyLabeler(const std::filesystem::path& model_dir, const std::string& mode, std::optional<int64_t> threads,
                     std::optional<double> threshold, std::optional<int64_t> max_request_tokens,
                     std::optional<int64_t> max_batch_tokens, const std::string& weights, const std::string& truncate,
                     const std::string& truncation_direction, const std::vector<std::string>& engines,
                     double engine_timeout, double query_cache_mb)
    : model_dir_(model_dir),
      options_(scoring_options(mode, threshold, max_request_tokens, max_batch_tokens, truncate, truncation_direction)),
      load_(load_options(threads, weights, query_cache_mb)),
      query_cache_mb_(query_cache_mb),
      engines_(engines),
      labeler_(load_labeler(model_dir, load_, engines, engine_timeout)) {
  labeler_.score_rows({}, options_);  // the engine checks the threshold, token limits and truncation
}

Result PyLabeler::score(py::handle query, py::handle items) const {
  Row row;
  py::list item_ids;
  try {
    row = {text_from_python(query, "the query"), items_from_python(items, &item_ids)};
  } catch (const RowTypeError& e) {
    throw py::type_error(e.what());
  } catch (const RowError& e) {
    throw py::value_error(e.what());
  }
  RowResult scored;
  {
    const py::gil_scoped_release release;
    scored = labeler_.score(row.query, row.items, options_);
  }
  return result_from_row(scored, std::move(item_ids));
}

py::list PyLabeler::score_rows(py::iterable rows) const {
  const ConvertedRows converted = rows_from_python(rows);
  std::vector<RowResult> scored;
  {
    const py::gil_scoped_release release;
    scored = labeler_.score_rows(converted.rows, options_);
  }
  py::list results(converted.errors.size());
  for (size_t i = 0; i < converted.errors.size(); ++i)
    if (!converted.errors[i].empty()) results[i] = py::cast(result_from_error(converted.errors[i]));
  for (size_t k = 0; k < scored.size(); ++k)
    results[converted.positions[k]] = py::cast(result_from_row(scored[k], converted.item_ids[k]));
  return results;
}

py::list PyLabeler::score_lines(py::iterable lines, int64_t first_line, bool echo) const {
  if (first_line < 1) throw py::value_error(fmt::format("first_line counts from 1, got {}", first_line));
  std::vector<std::string> texts;
  for (py::handle line : lines) {
    texts.push_back(line_from_python(line, texts.size()));
    if (!texts.back().empty() && texts.back().back() == '\n') texts.back().pop_back();  // as read from a file
  }
  // Every line's number is a 64-bit count, as sift batch's are.
  if (!texts.empty() && static_cast<int64_t>(texts.size()) - 1 > std::numeric_limits<int64_t>::max() - first_line)
    throw py::value_error(fmt::format("first_line {} and {} lines: the last line's number is past 2**63 - 1",
                                      first_line, texts.size()));
  std::vector<NumberedLine> numbered;
  numbered.reserve(texts.size());
  for (const std::string& text : texts) numbered.push_back({text, first_line + static_cast<int64_t>(numbered.size())});
  std::vector<std::string> written;
  {
    const py::gil_scoped_release release;
    written = sift::score_lines(labeler_, numbered, options_, echo);
  }
  py::list out(written.size());
  for (size_t i = 0; i < written.size(); ++i) out[i] = py::str(written[i]);
  return out;
}

py::object PyLabeler::artifact() const { return py::module_::import("json").attr("loads")(labeler_.artifact_json()); }

std::string PyLabeler::repr() const {
  return fmt::format("sift.Labeler('{}', mode='{}', version='{}', threshold={})", model_dir_.string(), mode(),
                     version(), threshold());
}

void bind_labeler(py::module_& module) {
  using namespace pybind11::literals;
  py::class_<PyLabeler>(module, "Labeler",
                        "A labeler directory loaded once; scores (query, items) rows, from several threads at once.")
      .def(py::init<const std::filesystem::path&, const std::string&, std::optional<int64_t>, std::optional<double>,
                    std::optional<int64_t>, std::optional<int64_t>, const std::string&, const std::string&,
                    const std::string&, const std::vector<std::string>&, double, double>(),
           "model_dir"_a, "mode"_a = "mis", "threads"_a = py::none(), "threshold"_a = py::none(), py::kw_only(),
           "max_request_tokens"_a = py::none(), "max_batch_tokens"_a = py::none(), "weights"_a = "auto",
           "truncate"_a = "none", "truncation_direction"_a = "right", "engines"_a = std::vector<std::string>{},
           "engine_timeout"_a = kDefaultEngineTimeoutSeconds, "query_cache_mb"_a = double(kDefaultQueryCacheMb),
           "Loads model_dir (config.json, weights, tokenizer.json, sift.json). mode: mis | independent | prefix | "
           "generate; threads: compute threads of each Python thread scoring at once (None: OMP_NUM_THREADS or all "
           "cores, split among the threads scoring at that moment; more than 4 per core is capped there with a "
           "warning); threshold: overrides "
           "sift.json's; max_request_tokens / max_batch_tokens: as sift score's options; weights: auto | f32 | "
           "bf16 | q8, how weight matrices are held (sift score --weights); truncate: none | query | items, "
           "truncation_direction: right | left, what a row too long for a request gives up (sift score "
           "--truncate; Result.truncated_tokens counts the tokens cut); engines: URLs of scoring servers "
           "(sift serve replicas, SGLang) to score on instead of this machine, as sift score --engine (the "
           "weights are then not loaded); engine_timeout: seconds with no engine answering before a call fails "
           "(0.001 to 86400); query_cache_mb: the query-KV cache's budget in MiB, shared by the threads scoring "
           "(rows that repeat a query run only their items, the same scores; 0 turns it off; default 256, as "
           "sift score --kv-cache-mb).")
      .def("score", &PyLabeler::score, "query"_a, "items"_a,
           "Scores one row: a Result with .scores and .labels. Raises ValueError for a row that cannot be scored.")
      .def("score_rows", &PyLabeler::score_rows, "rows"_a,
           "Scores many rows ((query, items) pairs or mappings), packed into forward calls: one Result per row, in "
           "order; a bad row gets Result.error and the others are scored.")
      .def("score_lines", &PyLabeler::score_lines, "lines"_a, "first_line"_a = 1, py::kw_only(), "echo"_a = false,
           "JSON lines (str or bytes, a trailing newline dropped), numbered from first_line: the lines `sift batch` "
           "writes for them, byte for byte (str, no newline), in order; a bad line gives its error line. echo: "
           "those of `sift batch --echo`, each the row as read, then its scores.")
      .def_property_readonly("model_dir", &PyLabeler::model_dir)
      .def_property_readonly("version", &PyLabeler::version, "sift.json's version")
      .def_property_readonly("threshold", &PyLabeler::threshold, "the threshold labels use (the option or sift.json's)")
      .def_property_readonly("threshold_on", &PyLabeler::threshold_on,
                             "what the threshold applies to: score (P(yes)) or probability (sift.json's threshold_on)")
      .def_property_readonly("calibrated", &PyLabeler::calibrated,
                             "whether sift.json has a calibration_map: results then carry probabilities")
      .def_property_readonly("artifact", &PyLabeler::artifact, "sift.json as loaded, a dict of every field")
      .def_property_readonly("mode", &PyLabeler::mode)
      .def_property_readonly("threads", &PyLabeler::threads)
      .def_property_readonly("max_request_tokens", &PyLabeler::max_request_tokens)
      .def_property_readonly("max_batch_tokens", &PyLabeler::max_batch_tokens)
      .def_property_readonly("weights", &PyLabeler::weights, "how weight matrices are held: auto, f32, bf16 or q8")
      .def_property_readonly("truncate", &PyLabeler::truncate, "none, query or items")
      .def_property_readonly("truncation_direction", &PyLabeler::truncation_direction, "right or left")
      .def_property_readonly("engines", &PyLabeler::engines, "the scoring servers it scores on ([]: this machine)")
      .def_property_readonly("query_cache_mb", &PyLabeler::query_cache_mb, "the query-KV cache's budget in MiB")
      .def("__repr__", &PyLabeler::repr);
}

}  // namespace sift::python
