#pragma once
// The files `sift calibrate` leaves beside a labeler: the precision-recall curve as data
// (pr_curve.tsv) and as a plot (pr_curve.png, drawn by gnuplot, from Debian's gnuplot-nox,
// run as a subprocess; the script it ran is kept as pr_curve.gp to redraw or restyle it).
#include <filesystem>
#include <string>

#include "workflows/calibration.h"

namespace sift {

// One line per curve point, threshold descending, after the header
// "threshold\tprecision\trecall\tf1"; numbers in shortest round-trip form.
void write_pr_curve_tsv(const std::filesystem::path& path, const PrCurve& curve);

// Error saying how to install gnuplot when no `gnuplot` is on PATH; call it before the
// long work so a missing plotter fails fast.
void require_gnuplot();

// Plots precision against recall from `tsv` (written by write_pr_curve_tsv) into `png`, both
// in one folder, marking `chosen`; pngcairo when gnuplot has it, else png. The gnuplot script
// is kept beside them (png's name with .gp), naming both files relative to that folder.
// Error with gnuplot's own message if it fails.
void plot_pr_curve(const std::filesystem::path& tsv, const std::filesystem::path& png, const PrCurve& curve,
                   const PrPoint& chosen, const std::string& title);

}  // namespace sift
