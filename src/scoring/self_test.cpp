#include "scoring/self_test.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/json_parse.h"
#include "scoring/engine.h"
#include "scoring/loaded_labeler.h"
#include "scoring/readout.h"

namespace sift {
namespace {

using nlohmann::json;

constexpr double kLogOddsClamp = 1e-12;
constexpr size_t kProbeTextShown = 40;  // bytes of a probe's item quoted in a refusal

// `text` cut to about kProbeTextShown bytes on a UTF-8 character boundary, "..." marking a cut.
std::string self_test_text_cut(std::string_view text) {
  if (text.size() <= kProbeTextShown) return std::string(text);
  size_t end = kProbeTextShown;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
  return std::string(text.substr(0, end)) + "...";
}

// A probe's string field; an Error naming it.
std::string self_test_string(const json& object, const char* key, const std::string& field) {
  auto it = object.find(key);
  if (it == object.end()) fail("{}: missing required field \"{}\"", field, key);
  if (!it->is_string()) fail("{}.{} must be a string, got {}", field, key, it->type_name());
  return it->get<std::string>();
}

double self_test_tolerance(const json& object, const char* key, double fallback, const std::string& field) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_number()) fail("{}.{} must be a number, got {}", field, key, it->dump());
  const double value = it->get<double>();
  if (!(std::isfinite(value) && value >= 0))
    fail("{}.{} must be a finite log-odds gap >= 0, got {}", field, key, it->dump());
  return value;
}

void refuse_unknown_fields(const json& object, std::initializer_list<std::string_view> known, const std::string& field) {
  for (const auto& entry : object.items())
    if (std::find(known.begin(), known.end(), entry.key()) == known.end())
      fail("{}: unknown field \"{}\" (known: {})", field, entry.key(), fmt::join(known, ", "));
}

}  // namespace

ProbeArithmetic probe_arithmetic(WeightStorage weights) {
  switch (weights) {
    case WeightStorage::BF16: return ProbeArithmetic::BF16;
    case WeightStorage::Q8: return ProbeArithmetic::Q8;
    case WeightStorage::Auto:
    case WeightStorage::F32: break;
  }
  return ProbeArithmetic::F32;
}

std::string_view probe_arithmetic_name(ProbeArithmetic arithmetic) {
  switch (arithmetic) {
    case ProbeArithmetic::F32: return "f32";
    case ProbeArithmetic::BF16: return "bf16";
    case ProbeArithmetic::Q8: return "q8";
    case ProbeArithmetic::Engine: return "engine";
  }
  return "f32";
}

std::optional<SelfTest> parse_self_test(const json& artifact, const std::string& where) {
  auto it = artifact.find("self_test");
  if (it == artifact.end()) return std::nullopt;
  const std::string field = where + ": field \"self_test\"";
  if (!it->is_object()) fail("{} must be an object {{\"probes\": [...], \"tolerance\": {{...}}}}, got {}", field, it->type_name());
  refuse_unknown_fields(*it, {"probes", "tolerance"}, field);
  SelfTest self_test;
  if (auto tolerance = it->find("tolerance"); tolerance != it->end()) {
    const std::string name = field + ".tolerance";
    if (!tolerance->is_object()) fail("{} must be an object {{\"bf16\", \"q8\", \"engine\"}}, got {}", name, tolerance->type_name());
    refuse_unknown_fields(*tolerance, {"bf16", "q8", "engine"}, name);
    self_test.tolerance = {self_test_tolerance(*tolerance, "bf16", kDefaultBf16Tolerance, name),
                           self_test_tolerance(*tolerance, "q8", kDefaultQ8Tolerance, name),
                           self_test_tolerance(*tolerance, "engine", kDefaultEngineTolerance, name)};
  }
  auto probes = it->find("probes");
  if (probes == it->end()) fail("{}: missing required field \"probes\"", field);
  if (!probes->is_array()) fail("{}.probes must be a list, got {}", field, probes->type_name());
  if (probes->empty()) fail("{}.probes is empty: give at least one probe (`sift selftest --write` writes them)", field);
  if (probes->size() > kMaxSelfTestProbes)
    fail("{}.probes holds {} probes; at most {} (every load runs them all)", field, probes->size(), kMaxSelfTestProbes);
  size_t total_items = 0;
  for (size_t p = 0; p < probes->size(); ++p) {
    const json& probe = (*probes)[p];
    const std::string name = fmt::format("{}.probes[{}]", field, p);
    if (!probe.is_object()) fail("{} must be an object {{\"query\", \"items\", \"scores\"}}, got {}", name, probe.type_name());
    refuse_unknown_fields(probe, {"query", "items", "scores"}, name);
    SelfTestProbe& out = self_test.probes.emplace_back();
    out.query = self_test_string(probe, "query", name);
    for (const char* key : {"items", "scores"}) {
      auto list = probe.find(key);
      if (list == probe.end()) fail("{}: missing required field \"{}\"", name, key);
      if (!list->is_array()) fail("{}.{} must be a list, got {}", name, key, list->type_name());
      if (list->empty()) fail("{}.{} is empty", name, key);
    }
    const json& items = probe["items"];
    const json& scores = probe["scores"];
    total_items += items.size();
    if (total_items > kMaxSelfTestItems)
      fail("{}: the probes hold more than {} items in all (every load scores them all)", field, kMaxSelfTestItems);
    if (scores.size() != items.size())
      fail("{}: {} items but {} scores; one score per item", name, items.size(), scores.size());
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) fail("{}.items[{}] must be a string, got {}", name, i, items[i].type_name());
      out.items.push_back(items[i].get<std::string>());
      if (!scores[i].is_number()) fail("{}.scores[{}] must be a number, got {}", name, i, scores[i].dump());
      const double score = scores[i].get<double>();
      if (!is_probability(score)) fail("{}.scores[{}] must be a probability in [0, 1], got {}", name, i, scores[i].dump());
      out.scores.push_back(score);
    }
  }
  return self_test;
}

nlohmann::ordered_json self_test_to_json(const SelfTest& self_test) {
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const SelfTestProbe& probe : self_test.probes)
    probes.push_back({{"query", probe.query}, {"items", probe.items}, {"scores", probe.scores}});
  return {{"probes", std::move(probes)},
          {"tolerance",
           {{"bf16", self_test.tolerance.bf16}, {"q8", self_test.tolerance.q8}, {"engine", self_test.tolerance.engine}}}};
}

namespace {
// Not calibration_map.h's clamped_log_odds (clamped at |logit| <= 40): the self-test's own
// rule clamps p to [1e-12, 1 - 1e-12]. One name for both was two definitions of one symbol.
double self_test_log_odds(double p) {
  const double q = std::clamp(p, kLogOddsClamp, 1 - kLogOddsClamp);
  return std::log(q / (1 - q));
}
}  // namespace

double log_odds_gap(double measured, double expected) {
  if (!std::isfinite(measured)) return std::numeric_limits<double>::infinity();
  return std::abs(self_test_log_odds(measured) - self_test_log_odds(expected));
}

std::optional<std::string> compare_probes(const SelfTest& self_test, const std::vector<std::vector<double>>& measured,
                                          ProbeArithmetic arithmetic, std::string_view what) {
  const bool bitwise = arithmetic == ProbeArithmetic::F32;
  const double tolerance = arithmetic == ProbeArithmetic::BF16 ? self_test.tolerance.bf16
                           : arithmetic == ProbeArithmetic::Q8 ? self_test.tolerance.q8
                           : arithmetic == ProbeArithmetic::Engine ? self_test.tolerance.engine
                                                                   : 0.0;
  size_t missed = 0, total = 0;
  struct Worst {
    size_t probe = 0, item = 0;
    double got = 0, gap = -1;
  } worst;
  for (size_t p = 0; p < self_test.probes.size(); ++p) {
    const SelfTestProbe& probe = self_test.probes[p];
    for (size_t i = 0; i < probe.scores.size(); ++i) {
      ++total;
      const double got = p < measured.size() && i < measured[p].size() ? measured[p][i]
                                                                         : std::numeric_limits<double>::quiet_NaN();
      const double gap = log_odds_gap(got, probe.scores[i]);
      // bitwise: equal bits (a NaN is never equal); else the gap within the tolerance
      const bool ok = bitwise ? got == probe.scores[i] : gap <= tolerance;
      if (ok) continue;
      ++missed;
      if (!(gap <= worst.gap)) worst = {p, i, got, gap};
    }
  }
  if (missed == 0) return std::nullopt;
  const SelfTestProbe& probe = self_test.probes[worst.probe];
  return fmt::format(
      "{} fails its self-test: probe {} item {} \"{}\" scored {} but sift.json's self_test expects {} (log-odds gap "
      "{:.3g}, {}); {} of {} probe items differ. Its tokenizer.json, answer words, templates or weights are not those "
      "the probes were written with, so its scores would be meaningless. Restore the labeler's files; if the change "
      "was meant, re-measure the probes with `sift selftest --model DIR --write` (then re-validate the labeler)",
      what, worst.probe + 1, worst.item + 1, self_test_text_cut(probe.items[worst.item]), worst.got,
      probe.scores[worst.item], worst.gap,
      bitwise ? std::string("f32 must give the same bits")
              : fmt::format("{} tolerance {:.3g}", probe_arithmetic_name(arithmetic), tolerance),
      missed, total);
}

std::vector<ProbeRow> probe_rows(const SelfTest& self_test) {
  std::vector<ProbeRow> rows;
  for (const SelfTestProbe& probe : self_test.probes) rows.push_back({probe.query, probe.items});
  return rows;
}

std::vector<std::vector<double>> score_probes(const LoadedLabeler& labeler, Engine& engine,
                                              const std::vector<ProbeRow>& rows) {
  std::vector<TextRow> text_rows;
  for (const ProbeRow& row : rows) text_rows.push_back({row.query, row.items});
  const std::vector<RowResult> results = labeler.score_rows(engine, text_rows, ScoringOptions{});
  std::vector<std::vector<double>> scores;
  for (size_t p = 0; p < results.size(); ++p) {
    if (!results[p].error.empty()) fail("self-test probe {} cannot be scored: {}", p + 1, results[p].error);
    std::vector<double>& row = scores.emplace_back();
    for (const std::optional<double>& score : results[p].scores)
      row.push_back(score.value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  return scores;
}

void warn_no_self_test(const std::string& where) {
  spdlog::warn("{}: no \"self_test\" probes: nothing checks that its tokenizer, templates and weights still give its "
               "scores; add them with `sift selftest --model DIR --write`",
               where);
}

std::optional<std::string> self_test_refusal(const LoadedLabeler& labeler, Engine& engine, ProbeArithmetic arithmetic) {
  const std::optional<SelfTest>& self_test = labeler.artifact().self_test;
  if (!self_test) {
    warn_no_self_test(labeler.where());
    return std::nullopt;
  }
  std::vector<std::vector<double>> measured;
  try {
    measured = score_probes(labeler, engine, probe_rows(*self_test));
  } catch (const OptionError&) {
    throw;
  } catch (const Error& e) {
    return fmt::format("the labeler ({}) fails its self-test: {}", labeler.where(), e.what());
  }
  return compare_probes(*self_test, measured, arithmetic, fmt::format("the labeler ({})", labeler.where()));
}

void check_self_test(const LoadedLabeler& labeler, WeightStorage weights, int threads) {
  LocalEngine engine(labeler.model(), threads);
  if (std::optional<std::string> refusal = self_test_refusal(labeler, engine, probe_arithmetic(weights)))
    fail("{}", *refusal);
}

std::vector<ProbeRow> builtin_probe_rows() {
  return {
      {"Senior data engineer, 8 years of Python and SQL; built streaming pipelines on Kafka and Spark.",
       {"Python", "Apache Spark", "Pastry baking"}},
      {"Pediatric nurse in a city hospital; fluent in Spanish and English; certified in neonatal care.",
       {"Neonatal care", "Spanish", "Welding"}},
      {"Is this document about the moon's orbit?",
       {"The Moon orbits the Earth once every 27.3 days.", "A recipe for lemon cake."}},
  };
}

std::vector<ProbeRow> read_probe_rows(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) fail("{}: cannot open the probe rows", path.string());
  std::vector<ProbeRow> rows;
  size_t items = 0;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path.string(), number);
    const json row = parse_json(line, where);
    if (!row.is_object()) fail("{}: a probe row must be an object {{\"query\", \"items\"}}", where);
    ProbeRow& out = rows.emplace_back();
    out.query = self_test_string(row, "query", where);
    auto list = row.find("items");
    if (list == row.end() || !list->is_array() || list->empty())
      fail("{}: \"items\" must be a non-empty list of strings", where);
    for (size_t i = 0; i < list->size(); ++i) {
      if (!(*list)[i].is_string()) fail("{}: items[{}] must be a string, got {}", where, i, (*list)[i].type_name());
      out.items.push_back((*list)[i].get<std::string>());
    }
    items += out.items.size();
    if (rows.size() > kMaxSelfTestProbes || items > kMaxSelfTestItems)
      fail("{}: more than {} probe rows or {} items in all (every load scores them all)", where, kMaxSelfTestProbes,
           kMaxSelfTestItems);
  }
  if (rows.empty()) fail("{}: no probe rows", path.string());
  return rows;
}

SelfTest measure_self_test(const std::filesystem::path& dir, const std::vector<ProbeRow>& rows,
                           const SelfTestTolerance& tolerance) {
  if (rows.empty()) fail("{}: no probe rows to measure", dir.string());
  return measure_self_test(*LoadedLabeler::load(dir, WeightStorage::F32), rows, tolerance);
}

SelfTest measure_self_test(const LoadedLabeler& labeler, const std::vector<ProbeRow>& rows,
                           const SelfTestTolerance& tolerance) {
  if (rows.empty()) fail("no probe rows to measure");
  LocalEngine engine(labeler.model());
  const std::vector<std::vector<double>> scores = score_probes(labeler, engine, rows);
  SelfTest self_test{.probes = {}, .tolerance = tolerance};
  for (size_t p = 0; p < rows.size(); ++p) self_test.probes.push_back({rows[p].query, rows[p].items, scores[p]});
  return self_test;
}

std::string with_self_test(const std::string& sift_json_text, const SelfTest& self_test, const std::string& where) {
  nlohmann::ordered_json object = parse_json<nlohmann::ordered_json>(sift_json_text, where);
  if (!object.is_object()) fail("{}: must be a JSON object", where);
  object["self_test"] = self_test_to_json(self_test);
  std::string text = object.dump(2) + "\n";
  parse_self_test(parse_json(text, where), where);  // what is written must load
  return text;
}

SelfTest write_self_test(const std::filesystem::path& dir, const std::vector<ProbeRow>& rows) {
  const std::filesystem::path sift_json = dir / "sift.json";
  std::ifstream in(sift_json, std::ios::binary);
  if (!in) fail("{}: cannot open the labeler artifact (sift.json)", sift_json.string());
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const ScoringArtifact artifact = parse_scoring_artifact(parse_json(text, sift_json.string()), sift_json.string());
  const SelfTest self_test =
      measure_self_test(dir, rows, artifact.self_test ? artifact.self_test->tolerance : SelfTestTolerance{});
  write_file_atomically(sift_json, with_self_test(text, self_test, sift_json.string()));
  return self_test;
}

}  // namespace sift
