#include "scoring/score_stream.h"

#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_parse.h"
#include "scoring/score_io.h"

namespace sift {
namespace {

// The "id" of a line that is a JSON object with one, else null (also for a line nested too
// deep to parse: its id is not echoed).
nlohmann::json echoed_id(const std::string& line) {
  try {
    const nlohmann::json object = parse_json(line, "row", /*allow_exceptions=*/false);
    return object.is_object() ? object.value("id", nlohmann::json()) : nlohmann::json();
  } catch (const Error&) {
    return nullptr;
  }
}

}  // namespace

StreamStats score_stream(const Labeler& labeler, std::istream& in, std::ostream& out, const ScoringOptions& options,
                         const ProgressFn& progress, std::chrono::duration<double> progress_interval) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  StreamStats stats;
  std::string line;
  while (std::getline(in, line)) {
    ++stats.lines;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
    nlohmann::json output;
    ScoringRow row;
    try {
      if (line.find_first_not_of(" \t") == std::string::npos) fail("empty line (expected a JSON object)");
      row = parse_scoring_row(line);
      RowResult result = labeler.score_row(row.query, row.items, options);
      output = row_result_to_json(row, result, options.mode);
      stats.labels += static_cast<int64_t>(row.items.size());
    } catch (const Error& e) {
      // Echo the row's id when the line is a JSON object that has one, even if the rest is malformed.
      const nlohmann::json id = echoed_id(line);
      output = row_error_to_json(stats.lines, e.what(), &id);
      ++stats.errors;
    }
    out << output.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.flush();
    if (!out) fail("cannot write the output (after {} lines)", stats.lines);

    const Clock::time_point now = Clock::now();
    if (progress && progress_interval.count() > 0 && now - last_report >= progress_interval) {
      stats.seconds = std::chrono::duration<double>(now - start).count();
      progress(stats);
      last_report = now;
    }
  }
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return stats;
}

}  // namespace sift
