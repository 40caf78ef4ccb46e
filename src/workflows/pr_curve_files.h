#pragma once
// The files `sift calibrate` leaves beside a labeler (calibration/ by default):
//   pr_curve.tsv         the precision-recall curve, one point per distinct score
//   score_histogram.tsv  the scores in 20 bins over [0, 1], by reference label
//   pr_curve.png         both drawn by gnuplot (Debian's gnuplot-nox, run as a subprocess):
//                        the curve with its average precision and the chosen point, and the
//                        score histogram with the chosen threshold
//   pr_curve.gp          the gnuplot script that drew it, to redraw or restyle it
#include <array>
#include <filesystem>
#include <string>

#include "workflows/calibration.h"

namespace sift {

inline constexpr int kHistogramBins = 20;
inline constexpr std::array<const char*, 4> kCalibrationFiles = {"pr_curve.tsv", "score_histogram.tsv", "pr_curve.png",
                                                                 "pr_curve.gp"};

// One line per curve point, threshold descending, after the header
// "threshold\tprecision\trecall\tf1"; numbers in shortest round-trip form.
void write_pr_curve_tsv(const std::filesystem::path& path, const PrCurve& curve);

// One line per bin after the header "bin_start\tbin_end\tpositives\tnegatives".
void write_score_histogram_tsv(const std::filesystem::path& path, const ScoreHistogram& histogram);

// Error saying how to install gnuplot when no `gnuplot` is on PATH; call it before the
// long work so a missing plotter fails fast.
void require_gnuplot();

// Draws pr_curve.png from dir/pr_curve.tsv and dir/score_histogram.tsv (written above), with
// the script kept as dir/pr_curve.gp naming its files relative to `dir`; pngcairo when gnuplot
// has it, else png. Points of recall 0 (no positive admitted yet, precision 0) are left out of
// the curve: they are not an operating point, and drawn they drop the curve to (0, 0). Error
// with gnuplot's own message if it fails.
void plot_pr_curve(const std::filesystem::path& dir, const PrCurve& curve, const PrPoint& chosen,
                   const std::string& title);

// Writes `script` as dir/<script_name> and runs gnuplot on it in `dir` (the script names its
// files relative to its folder); an Error with gnuplot's own message if it fails or does not
// write dir/<png_name>. Every plot sift draws goes through here.
void draw_with_gnuplot(const std::filesystem::path& dir, const std::string& script_name, const std::string& script,
                       const std::string& png_name);

// A gnuplot single-quoted string of `text`.
std::string gnuplot_quoted(const std::string& text);

// All of kCalibrationFiles into `dir` (which must exist).
void write_calibration_files(const std::filesystem::path& dir, const PrCurve& curve, const PrPoint& chosen,
                             const ScoreHistogram& histogram, const std::string& title);

}  // namespace sift
