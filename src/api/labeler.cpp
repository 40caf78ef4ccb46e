// sift::Labeler, the public API (sift/labeler.h), over the internal ScoringEngine: one
// session per labeler, guarded, so one Labeler can be shared by threads (they take turns)
// and separate Labelers score in parallel.
#include "sift/labeler.h"

#include <mutex>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/parallel.h"
#include "model/session.h"
#include "scoring/engine.h"
#include "scoring/score_io.h"
#include "workflows/pending_rows.h"

namespace sift {

struct Labeler::Impl {
  Impl(std::unique_ptr<ScoringEngine> e, int n_threads)
      : engine(std::move(e)), session(engine->model(), n_threads), threads(n_threads) {}
  std::unique_ptr<ScoringEngine> engine;
  std::mutex mutex;  // guards session
  Session session;
  int threads;
};

Labeler::Labeler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Labeler::Labeler(Labeler&&) noexcept = default;
Labeler& Labeler::operator=(Labeler&&) noexcept = default;
Labeler::~Labeler() = default;

Labeler Labeler::load(const std::filesystem::path& dir, int threads) {
  return load(dir, LoadOptions{.threads = threads});
}

Labeler Labeler::load(const std::filesystem::path& dir, const LoadOptions& options) {
  return Labeler(std::make_unique<Impl>(ScoringEngine::load(dir, options.weights), options.threads));
}

std::vector<RowResult> Labeler::score_rows(std::span<const Row> rows, const ScoringOptions& options) const {
  std::vector<TextRow> views;
  views.reserve(rows.size());
  for (const Row& row : rows) views.push_back({row.query, row.items});
  const std::lock_guard lock(impl_->mutex);
  return impl_->engine->score_rows(impl_->session, views, options);
}

std::vector<std::string> Labeler::score_lines(std::span<const NumberedLine> lines, const ScoringOptions& options,
                                              bool echo) const {
  const ScoringEngine& engine = *impl_->engine;
  engine.limits(options);  // a bad option is the caller's error, not every line's
  std::vector<PendingRow> rows;  // read and tokenized as `sift batch` reads its input lines
  rows.reserve(lines.size());
  for (const NumberedLine& line : lines) {
    std::string text(line.text);
    rows.push_back(read_pending_row(engine, text, line.number, options));
  }
  std::vector<RowResult> results;
  {
    const std::lock_guard lock(impl_->mutex);
    results = score_pending_rows(engine, impl_->session, rows, options);
  }
  const nlohmann::ordered_json provenance = artifact_provenance_json(engine.artifact(), options);
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    out.push_back(batch_output_line(rows[r].line_number, rows[r].row, results[r], options.mode, provenance,
                                    echo ? BatchLine::Echo : BatchLine::PassThrough));
  return out;
}

RowResult Labeler::score(std::string_view query, const std::vector<std::string>& items,
                         const ScoringOptions& options) const {
  const TextRow row{query, items};
  const std::lock_guard lock(impl_->mutex);
  RowResult result = std::move(impl_->engine->score_rows(impl_->session, {&row, 1}, options)[0]);
  if (!result.error.empty()) fail("{}", result.error);
  return result;
}

const std::string& Labeler::version() const { return impl_->engine->artifact().version; }
double Labeler::threshold() const { return impl_->engine->artifact().threshold; }
std::string Labeler::artifact_json() const { return impl_->engine->artifact().source_json; }
int Labeler::threads() const { return impl_->threads > 0 ? impl_->threads : default_n_threads(); }
const ScoringEngine& Labeler::engine() const { return *impl_->engine; }

}  // namespace sift
