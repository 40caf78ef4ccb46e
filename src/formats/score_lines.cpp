// score_lines (sift/lines.h): `sift batch`'s bytes through the public API, for the Python
// package (Labeler.score_lines) and any program that writes sift's lines.
#include "sift/lines.h"

#include <nlohmann/json.hpp>

#include "formats/pending_rows.h"
#include "formats/score_io.h"

namespace sift {

std::vector<std::string> score_lines(const Labeler& labeler, std::span<const NumberedLine> lines,
                                     const ScoringOptions& options, bool echo) {
  labeler.resolve(options);  // a bad option is the caller's error, not every line's
  std::vector<PendingRow> rows;  // read and tokenized as `sift batch` reads its input lines
  rows.reserve(lines.size());
  for (const NumberedLine& line : lines) {
    std::string text(line.text);
    rows.push_back(read_pending_row(labeler, text, line.number, options));
  }
  const std::vector<RowResult> results = score_pending_rows(labeler, rows, options);
  const nlohmann::ordered_json provenance = artifact_provenance_json(labeler, options);
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    out.push_back(batch_output_line(rows[r].line_number, rows[r].row, results[r], options.mode, provenance,
                                    echo ? BatchLine::Echo : BatchLine::PassThrough));
  return out;
}

}  // namespace sift
