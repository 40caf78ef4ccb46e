#pragma once
// The labeler's known-answer self-test: sift.json's "self_test" holds a few probe rows and the
// F32 P(YES) this labeler gives each of their items; every path that scores runs the probes
// before its first real row and refuses a labeler whose answers moved (an altered
// tokenizer.json, answer word, template or weight: the service would otherwise answer 200 with
// meaningless scores).
//
//   "self_test": {"probes": [{"query": "...", "items": ["...", ...], "scores": [p, ...]}, ...],
//                 "tolerance": {"bf16": A, "q8": B, "engine": C}}
//
// The rule, one place (compare_probes):
//   gap = |logit(p_measured) - logit(p_expected)|,  logit(p) = log(p / (1 - p)),
//         p clamped to [1e-12, 1 - 1e-12]
// P(YES) = sigmoid(l_yes - l_no) (scoring/readout.h), so the log-odds gap is the error of the
// answer logits' difference, and it does not vanish where p saturates near 0 or 1.
//   f32 (and auto, which computes f32's bits)   bitwise equal (docs/engine.md §3)
//   bf16 / q8                                   gap <= tolerance.bf16 / tolerance.q8
//   an engine that cannot prove its labeler     gap <= tolerance.engine (SGLang)
// The scores are written as JSON doubles, which round-trip exactly.
#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sift/weight_storage.h"

namespace sift {

class Engine;
class LoadedLabeler;

// Probes are few: a load runs them all, on every path.
inline constexpr size_t kMaxSelfTestProbes = 16;
inline constexpr size_t kMaxSelfTestItems = 64;  // all probes together
// The defaults, measured (docs/artifact.md, "Self-test"): the largest log-odds gap of bf16 and q8
// against f32 over the bundled labeler's rows and the random test checkpoints, with a margin.
inline constexpr double kDefaultBf16Tolerance = 0.25;
inline constexpr double kDefaultQ8Tolerance = 0.6;
inline constexpr double kDefaultEngineTolerance = 0.6;

struct ProbeRow {
  std::string query;
  std::vector<std::string> items;
};

struct SelfTestProbe {
  std::string query;
  std::vector<std::string> items;
  std::vector<double> scores;  // the F32 P(YES) of each item
};

struct SelfTestTolerance {
  double bf16 = kDefaultBf16Tolerance;
  double q8 = kDefaultQ8Tolerance;
  double engine = kDefaultEngineTolerance;
};

struct SelfTest {
  std::vector<SelfTestProbe> probes;
  SelfTestTolerance tolerance;
};

// How the probes' scores were computed, and so what they must meet.
enum class ProbeArithmetic {
  F32,     // bitwise: local f32/auto, or a sift serve engine that proved its labeler with f32/auto
  BF16,    // tolerance.bf16
  Q8,      // tolerance.q8
  Engine,  // tolerance.engine: an engine that names no labeler fingerprint (SGLang)
};
ProbeArithmetic probe_arithmetic(WeightStorage weights);
std::string_view probe_arithmetic_name(ProbeArithmetic arithmetic);

// sift.json's "self_test" (`artifact` is the whole object): nullopt when absent; an Error
// naming `where` and the field for anything else that is not a valid self-test (wrong types,
// non-finite or out-of-range numbers, empty lists, more than the caps, unknown fields).
std::optional<SelfTest> parse_self_test(const nlohmann::json& artifact, const std::string& where);
nlohmann::ordered_json self_test_to_json(const SelfTest& self_test);

// logit(p) with p clamped to [1e-12, 1 - 1e-12]; the gap of two probabilities in log-odds.
double probe_log_odds(double p);
double log_odds_gap(double measured, double expected);

// The verdict on measured scores (per probe, per item): nullopt when they meet the rule for
// `arithmetic`, else the refusal: `what` (the labeler or engine), the worst item (probe i item j
// and its text, cut), expected, got, gap and tolerance, and how many items missed.
std::optional<std::string> compare_probes(const SelfTest& self_test, const std::vector<std::vector<double>>& measured,
                                          ProbeArithmetic arithmetic, std::string_view what);

// The probes scored on `engine` as rows are (mode mis, default options): per probe, per item. A
// probe that cannot be scored (a template that no longer encodes it) is an Error naming it.
std::vector<std::vector<double>> score_probes(const LoadedLabeler& labeler, Engine& engine,
                                              const std::vector<ProbeRow>& rows);
std::vector<ProbeRow> probe_rows(const SelfTest& self_test);

// The check every path runs before its first real row: the labeler's probes on `engine`. Nullopt
// when they pass, or when sift.json has no "self_test" (older labelers: one warning line saying
// how to add probes); else the refusal.
std::optional<std::string> self_test_refusal(const LoadedLabeler& labeler, Engine& engine, ProbeArithmetic arithmetic);
// The same on a local engine of `labeler`'s model with `weights`, the refusal thrown as an Error.
void check_self_test(const LoadedLabeler& labeler, WeightStorage weights, int threads = 0);
// The warning for a labeler without probes (once per call), naming its sift.json.
void warn_no_self_test(const std::string& where);

// Probe texts that need no data: `sift init` and `sift selftest --write` without --probes.
std::vector<ProbeRow> builtin_probe_rows();
// {"query", "items"} JSON lines (`--probes FILE`): an Error naming file:line for a bad row; at
// least one row, and within the caps.
std::vector<ProbeRow> read_probe_rows(const std::filesystem::path& path);

// Measures `rows` on the labeler in `dir` loaded with F32 weights (no self-test run) and returns
// the self-test: those scores, with `tolerance`.
SelfTest measure_self_test(const std::filesystem::path& dir, const std::vector<ProbeRow>& rows,
                           const SelfTestTolerance& tolerance = {});
// The same on a labeler the caller loaded with F32 (or auto) weights.
SelfTest measure_self_test(const LoadedLabeler& labeler, const std::vector<ProbeRow>& rows,
                           const SelfTestTolerance& tolerance = {});
// `sift_json_text` with its "self_test" set to `self_test`, every other field and their order kept.
std::string with_self_test(const std::string& sift_json_text, const SelfTest& self_test, const std::string& where);
// Measures `rows` (F32) and writes them into dir/sift.json atomically, keeping its other fields
// and its tolerances when it has some. Returns what was written.
SelfTest write_self_test(const std::filesystem::path& dir, const std::vector<ProbeRow>& rows);

}  // namespace sift
