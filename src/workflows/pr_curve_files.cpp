#include "workflows/pr_curve_files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/error.h"
#include "io/atomic_file.h"

extern char** environ;

namespace sift {
namespace {

std::optional<std::filesystem::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `gnuplot -e "cd DIR" script` without a shell, DIR the script's folder; returns its
// exit status, its stderr in `errors`.
int run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& script, std::string& errors) {
  const std::filesystem::path error_log = script.string() + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, error_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // The script names its files relative to its own folder: gnuplot starts there.
  std::string program = gnuplot.string(), option = "-e",
              change_dir = "cd " + gnuplot_quoted(std::filesystem::absolute(script).parent_path().string()),
              script_arg = std::filesystem::absolute(script).string();
  char* argv[] = {program.data(), option.data(), change_dir.data(), script_arg.data(), nullptr};
  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) fail("cannot run {}: {}", program, std::strerror(spawn_error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  errors = read_file(error_log);
  std::filesystem::remove(error_log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

// A gnuplot single-quoted string: no escapes inside, a quote is written twice.
std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

void draw_with_gnuplot(const std::filesystem::path& dir, const std::string& script_name, const std::string& script,
                       const std::string& png_name) {
  require_gnuplot();
  const std::filesystem::path gnuplot = *find_on_path("gnuplot");
  const std::filesystem::path script_path = dir / script_name;
  write_file_atomically(script_path, script);
  std::string errors;
  const int status = run_gnuplot(gnuplot, script_path, errors);
  if (status != 0 || !std::filesystem::exists(dir / png_name))
    fail("gnuplot failed (exit status {}) drawing {} from {}: {}", status, (dir / png_name).string(),
         script_path.string(), errors);
}

void write_pr_curve_tsv(const std::filesystem::path& path, const PrCurve& curve) {
  std::string text = "threshold\tprecision\trecall\tf1\n";
  for (const PrPoint& p : curve.points) text += fmt::format("{}\t{}\t{}\t{}\n", p.threshold, p.precision, p.recall, p.f1);
  write_file_atomically(path, text);
}

void write_score_histogram_tsv(const std::filesystem::path& path, const ScoreHistogram& histogram) {
  const size_t n = histogram.positives.size();
  std::string text = "bin_start\tbin_end\tpositives\tnegatives\n";
  for (size_t b = 0; b < n; ++b)
    text += fmt::format("{}\t{}\t{}\t{}\n", double(b) / double(n), double(b + 1) / double(n), histogram.positives[b],
                        histogram.negatives[b]);
  write_file_atomically(path, text);
}

void require_gnuplot() {
  if (!find_on_path("gnuplot"))
    fail("gnuplot is not installed (no `gnuplot` on PATH); the precision-recall plot needs it: `make setup` or "
         "`apt-get install gnuplot-nox`");
}

void plot_pr_curve(const std::filesystem::path& dir, const PrCurve& curve, const PrPoint& chosen,
                   const std::string& title) {
  // Left: precision against recall, one point per distinct threshold, the chosen point ringed.
  // Right: the score histogram by reference label, the chosen threshold as a line. File names
  // are relative to the script's folder, so the folder can be moved.
  std::string text =
      "# Precision-recall curve and score histogram written by `sift calibrate`; redraw them in this folder with: "
      "gnuplot pr_curve.gp\n"
      "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
      "  set terminal pngcairo size 1400,650 noenhanced font 'sans,11'\n"
      "} else {\n"
      "  set terminal png size 1400,650 noenhanced\n"
      "}\n"
      "set output 'pr_curve.png'\n"
      "set datafile separator '\\t'\n";
  text += fmt::format("set multiplot layout 1,2 title {}\n", gnuplot_quoted(title));
  text += fmt::format("set title {}\n", gnuplot_quoted(fmt::format("precision-recall, average precision {:.4f}",
                                                                    average_precision(curve))));
  text += "set xlabel 'recall'\nset ylabel 'precision'\nset xrange [0:1.02]\nset yrange [0:1.02]\nset grid\n"
          "set key bottom left\n";
  text += fmt::format("plot 'pr_curve.tsv' using 3:($3 > 0 ? $2 : 1/0) skip 1 with linespoints pt 7 ps 0.4 "
                      "lc rgb '#1f77b4' title '{} items, {} YES', \\\n",
                      curve.n_items, curve.n_positive);
  text += fmt::format("     '-' using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb '#d62728' title "
                      "'threshold {:.4g}: P {:.3f}, R {:.3f}, F1 {:.3f}'\n",
                      chosen.threshold, chosen.precision, chosen.recall, chosen.f1);
  text += fmt::format("{}\t{}\ne\n", chosen.recall, chosen.precision);  // inline data: tab-separated too
  text += "set title 'scores by reference label'\nset xlabel 'score'\nset ylabel 'items'\nset xrange [0:1]\n"
          "set autoscale y\nset yrange [0:*]\nset key top center\nset style fill transparent solid 0.45 noborder\n";
  text += fmt::format("set arrow 1 from {0}, graph 0 to {0}, graph 1 nohead lw 2 dt 2 lc rgb '#d62728'\n",
                      chosen.threshold);
  text += "plot 'score_histogram.tsv' using (($1 + $2) / 2):4:($2 - $1) skip 1 with boxes lc rgb '#7f7f7f' "
          "title 'reference NO', \\\n"
          "     '' using (($1 + $2) / 2):3:($2 - $1) skip 1 with boxes lc rgb '#2ca02c' title 'reference YES'\n"
          "unset multiplot\n";
  draw_with_gnuplot(dir, "pr_curve.gp", text, "pr_curve.png");
}

void write_calibration_files(const std::filesystem::path& dir, const PrCurve& curve, const PrPoint& chosen,
                             const ScoreHistogram& histogram, const std::string& title) {
  write_pr_curve_tsv(dir / "pr_curve.tsv", curve);
  write_score_histogram_tsv(dir / "score_histogram.tsv", histogram);
  plot_pr_curve(dir, curve, chosen, title);
}

}  // namespace sift
