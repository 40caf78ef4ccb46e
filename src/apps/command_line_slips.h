#pragma once
// What a command line that CLI11 refused got wrong, said first and in words, with the nearest
// name it may have meant. CLI11 reports the first rule it checks, not the first slip: `sift
// score --modle m` fails as "--model is required" and `sift scroe` as "A subcommand is
// required". Given the parser after a failed parse (what it could not place is left in
// remaining()) and the parser's error, slip_message says instead:
//
//   an unknown option         "unknown option --modle; did you mean --model?"
//   an unknown command        "unknown command scroe; did you mean score? The commands: batch,
//                              calibrate, ..."
//   no command at all         "sift needs a command: batch, calibrate, ..." (for the error "A
//                              subcommand is required" only)
//   an unexpected argument    "unexpected argument x: sift score takes options only"
//
// and "" when none of them is what went wrong (CLI11's own message then stands).
#include <CLI/CLI.hpp>

#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace sift::apps {

std::string slip_message(const CLI::App& app, const std::exception& failure);

// The candidate nearest to `word` by edit distance (a swap of two neighbours counts one), when
// near enough to be a slip of it (at most 2 edits, and fewer than half its letters); else "".
std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace sift::apps
