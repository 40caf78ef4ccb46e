// Fuzz target: arbitrary bytes as the JSON-lines input of `sift score` / `eval` / `calibrate`
// / `train`. Every line must come out of the line reader no longer than its limit, and then
// either parse as a scoring row (and a labeled row, or not) or be that line's sift::Error, in
// words; writing the row's output line or error line back must not fail either. Anything
// else (another exception type, a crash, a sanitizer report, a huge allocation, deep
// recursion) is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.h"
#include "io/line_reader.h"
#include "formats/score_io.h"
#include "workflows/labeled_rows.h"

namespace {

constexpr int64_t kLineLimit = 4096;  // small, so long lines reach the too-long path

void one_line(const sift::InputLine& line) {
  if (line.too_long) {
    if (!line.text.empty() || line.bytes <= kLineLimit) __builtin_trap();
    return;
  }
  if (static_cast<int64_t>(line.text.size()) != line.bytes || line.bytes > kLineLimit) __builtin_trap();
  std::string out;
  try {
    const sift::ScoringRow row = sift::parse_scoring_row(line.text);
    sift::RowResult result;
    for (size_t i = 0; i < row.items.size(); ++i) {
      result.scores.emplace_back(0.5);
      result.labels.emplace_back(true);
    }
    const sift::ScoringOptions options;
    out = sift::row_result_to_json(row, result, options.mode, sift::artifact_provenance_json("fuzz", 0.5, options))
              .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const sift::Error& e) {
    out = sift::row_error_to_json(line.number, e.what()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (out.empty()) __builtin_trap();
  try {
    const sift::LabeledRow labeled = sift::parse_labeled_row(line.text);
    if (labeled.labels.size() != labeled.row.items.size()) __builtin_trap();
  } catch (const sift::Error&) {
    // a row without valid labels is that row's error
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  sift::LineReader reader(in, kLineLimit);
  int64_t expected_number = 0;
  for (sift::InputLine line; reader.next(line);) {
    if (line.number != ++expected_number) __builtin_trap();
    one_line(line);
  }
  return 0;
}
