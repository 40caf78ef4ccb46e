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

// A gnuplot single-quoted string: no escapes inside, a quote is written twice.
std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
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

void write_pr_curve_tsv(const std::filesystem::path& path, const PrCurve& curve) {
  std::ofstream out(path);
  if (!out) fail("{}: cannot open for writing", path.string());
  out << "threshold\tprecision\trecall\tf1\n";
  for (const PrPoint& p : curve.points) out << fmt::format("{}\t{}\t{}\t{}\n", p.threshold, p.precision, p.recall, p.f1);
  if (!out.flush()) fail("{}: write failed", path.string());
}

void require_gnuplot() {
  if (!find_on_path("gnuplot"))
    fail("gnuplot is not installed (no `gnuplot` on PATH); the precision-recall plot needs it: `make setup` or "
         "`apt-get install gnuplot-nox`");
}

void plot_pr_curve(const std::filesystem::path& tsv, const std::filesystem::path& png, const PrCurve& curve,
                   const PrPoint& chosen, const std::string& title) {
  require_gnuplot();
  if (std::filesystem::absolute(tsv).parent_path() != std::filesystem::absolute(png).parent_path())
    fail("plot_pr_curve: {} and {} must be in one folder", tsv.string(), png.string());
  const std::filesystem::path gnuplot = *find_on_path("gnuplot");
  std::filesystem::path script = png;
  script.replace_extension(".gp");
  {
    std::ofstream out(script);
    if (!out) fail("{}: cannot open for writing", script.string());
    // Recall on x, precision on y, one point per distinct threshold; the chosen point ringed.
    // File names are relative to the script's folder, so the folder can be moved.
    out << "# Precision-recall curve written by `sift calibrate`; redraw it in this folder with: gnuplot "
        << script.filename().string() << "\n"
        << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        << "  set terminal pngcairo size 900,650 noenhanced font 'sans,11'\n"
        << "} else {\n"
        << "  set terminal png size 900,650 noenhanced\n"
        << "}\n"
        << "set output " << gnuplot_quoted(png.filename().string()) << "\n"
        << "set datafile separator '\\t'\n"
        << "set title " << gnuplot_quoted(title) << "\n"
        << "set xlabel 'recall'\nset ylabel 'precision'\n"
        << "set xrange [0:1.02]\nset yrange [0:1.02]\nset grid\nset key bottom left\n"
        << fmt::format("plot {} using 3:2 skip 1 with linespoints pt 7 ps 0.4 lc rgb '#1f77b4' title "
                       "'{} items, {} YES', \\\n",
                       gnuplot_quoted(tsv.filename().string()), curve.n_items, curve.n_positive)
        << fmt::format("     '-' using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb '#d62728' title "
                       "'threshold {:.4g}: P {:.3f}, R {:.3f}, F1 {:.3f}'\n",
                       chosen.threshold, chosen.precision, chosen.recall, chosen.f1)
        << fmt::format("{}\t{}\ne\n", chosen.recall, chosen.precision);  // inline data: tab-separated too
    if (!out.flush()) fail("{}: write failed", script.string());
  }
  std::string errors;
  const int status = run_gnuplot(gnuplot, script, errors);
  if (status != 0 || !std::filesystem::exists(png))
    fail("gnuplot failed (exit status {}) drawing {} from {}: {}", status, png.string(), script.string(), errors);
}

}  // namespace sift
