#include "workflows/reliability_files.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "io/atomic_file.h"
#include "workflows/pr_curve_files.h"

namespace sift {
namespace {

// "mean\tyes_rate" of a bin, NaN for an empty one (so gnuplot draws no point there).
std::string reliability_means(const ReliabilityBin& bin) {
  if (bin.n == 0) return "NaN\tNaN";
  return fmt::format("{}\t{}", bin.mean_probability, bin.yes_rate);
}

}  // namespace

void write_reliability_tsv(const std::filesystem::path& path, const Reliability& raw,
                           const std::optional<Reliability>& calibrated) {
  if (calibrated && calibrated->bins.size() != raw.bins.size())
    fail("reliability diagram: {} raw bins but {} calibrated ones", raw.bins.size(), calibrated->bins.size());
  std::string text = "bin_start\tbin_end\tn\tmean_score\tyes_rate";
  if (calibrated) text += "\tn_calibrated\tmean_probability\tyes_rate_calibrated";
  text += "\n";
  for (size_t b = 0; b < raw.bins.size(); ++b) {
    const ReliabilityBin& bin = raw.bins[b];
    text += fmt::format("{}\t{}\t{}\t{}", bin.lo, bin.hi, bin.n, reliability_means(bin));
    if (calibrated) text += fmt::format("\t{}\t{}", calibrated->bins[b].n, reliability_means(calibrated->bins[b]));
    text += "\n";
  }
  write_file_atomically(path, text);
}

void write_reliability_files(const std::filesystem::path& dir, const Reliability& raw,
                             const std::optional<Reliability>& calibrated, const std::string& title) {
  create_output_directory(dir, "--out-dir");
  write_reliability_tsv(dir / "reliability.tsv", raw, calibrated);
  std::string text =
      "# Reliability diagram written by `sift eval`; redraw it in this folder with: gnuplot reliability.gp\n"
      "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
      "  set terminal pngcairo size 800,700 noenhanced font 'sans,11'\n"
      "} else {\n"
      "  set terminal png size 800,700 noenhanced\n"
      "}\n"
      "set output 'reliability.png'\n"
      "set datafile separator '\\t'\n"
      "set datafile missing 'NaN'\n";
  text += fmt::format("set title {}\n", gnuplot_quoted(title));
  text += fmt::format("set xlabel 'mean predicted value per bin ({} equal-width bins)'\n", raw.bins.size());
  text += "set ylabel 'YES rate (reference labels)'\nset xrange [0:1]\nset yrange [0:1]\nset grid\n"
          "set key top left\nset size square\n";
  text += "plot x with lines dt 2 lc rgb '#7f7f7f' title 'perfectly calibrated', \\\n";
  text += fmt::format("     'reliability.tsv' using 4:5 skip 1 with linespoints pt 7 lc rgb '#1f77b4' title "
                      "{}",
                      gnuplot_quoted(fmt::format("score: ECE {:.4f}, Brier {:.4f} ({} items)", raw.ece, raw.brier, raw.n)));
  if (calibrated)
    text += fmt::format(", \\\n     'reliability.tsv' using 7:8 skip 1 with linespoints pt 5 lc rgb '#d62728' title {}",
                        gnuplot_quoted(fmt::format("probability: ECE {:.4f}, Brier {:.4f}", calibrated->ece,
                                                   calibrated->brier)));
  text += "\n";
  draw_with_gnuplot(dir, "reliability.gp", text, "reliability.png");
}

}  // namespace sift
