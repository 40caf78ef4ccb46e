#include "apps/scoring_flags.h"

#include <fmt/format.h>

#include <functional>
#include <type_traits>
#include <utility>
#include <variant>

#include "apps/cli.h"

namespace sift::apps {

namespace {

// What a flag says on one command besides its help: a note, and a default of its own.
struct CommandNote {
  Command command;
  std::string note;           // added to the help ("": nothing)
  std::string default_words;  // in place of the flag's default ("": the flag's)
};

// Where a flag's value goes in ScoringFlags.
using Value = std::variant<std::optional<std::string> ScoringFlags::*, std::string ScoringFlags::*,
                           std::optional<double> ScoringFlags::*, double ScoringFlags::*,
                           std::optional<int64_t> ScoringFlags::*, int64_t ScoringFlags::*,
                           std::vector<std::string> ScoringFlags::*>;

// One flag of the table.
struct Flag {
  std::string name;
  Commands commands;                                  // those it applies to
  Value value;                                        // where its value goes; its default is the one there
  std::function<CLI::Validator(Command)> check = {};  // what it takes on a command
  std::string help = {};                              // what it does
  std::string (*command_help)(Command) = nullptr;     // or, where it depends on the command, that
  std::string default_words = {};                     // what holds when it is not given ("": nothing said)
  std::vector<CommandNote> notes = {};                // where one command says more, or has its own default
  void (*absent)(ScoringFlags&) = nullptr;            // what a command that does not take it sets instead
};

// A check the same on every command.
std::function<CLI::Validator(Command)> always(CLI::Validator check) {
  return [check = std::move(check)](Command) { return check; };
}

constexpr Commands kScoringCommands = Command::Score | Command::Batch;
constexpr Commands kServing = Command::Score | Command::Batch | Command::Serve;
constexpr Commands kLoadingHere = Command::Score | Command::Batch | Command::Eval | Command::Calibrate |
                                  Command::Label | Command::Serve | Command::Selftest | Command::Logits;
constexpr Commands kOnEngines =
    Command::Score | Command::Batch | Command::Eval | Command::Calibrate | Command::Label | Command::Selftest;

std::string mode_description(ScoringMode mode) {
  switch (mode) {
    case ScoringMode::Mis: return "all items of a row in one packed request";
    case ScoringMode::Independent: return "one request per item, no reuse";
    case ScoringMode::Prefix: return "query KV cached, one request per item";
    case ScoringMode::Generate:
      return "packed generation baseline: hard 0/1 decisions parsed from a generated answer list";
  }
  return "";
}

// Every value of an enum by its name, for a check that names them: `names_of({A, B}, name_of)`.
template <typename Enum, typename NameOf>
std::vector<std::string> names_of(std::initializer_list<Enum> values, NameOf name_of) {
  std::vector<std::string> names;
  for (Enum value : values) names.emplace_back(name_of(value));
  return names;
}

std::vector<std::string> mode_names(Command which) {
  std::vector<std::string> names;
  for (ScoringMode mode : accepted_modes(which)) names.emplace_back(scoring_mode_name(mode));
  return names;
}

// "how items are scored: mis (...) | independent (...) | ...": the modes `which` takes.
std::string mode_help(Command which) {
  std::string help = "how items are scored:";
  const char* separator = " ";
  for (ScoringMode mode : accepted_modes(which)) {
    help += fmt::format("{}{} ({})", separator, scoring_mode_name(mode), mode_description(mode));
    separator = " | ";
  }
  return help;
}

const std::vector<Flag>& flag_table() {
  using F = ScoringFlags;
  // --kv-cache-mb's default on the commands where it was another.
  const std::string query_cache_was = fmt::format(
      "{} (it was 64 here; now one default, as sift serve's, the library's and Python's)", kDefaultQueryCacheMb);
  static const std::vector<Flag> table = {
      {.name = "--mode",
       .commands = Command::Score | Command::Batch | Command::Eval | Command::Calibrate | Command::Loadgen,
       .value = &F::mode,
       .check = [](Command which) -> CLI::Validator { return CLI::IsMember(mode_names(which)); },
       .command_help = mode_help,  // the modes the command takes
       .default_words = std::string(scoring_mode_name(ScoringMode::Mis)),
       .notes = {{Command::Batch, "(all give the same scores, at other costs)", ""},
                 {Command::Calibrate, "(all give the same scores; generate gives no scores to calibrate)", ""},
                 {Command::Loadgen, "(label route: the mode sent with each request)",
                  "none sent, the server's (mis)"}}},
      {.name = "--threshold",
       .commands = Command::Score | Command::Batch | Command::Eval | Command::Label,
       .value = &F::threshold,
       .check = always(kProbability),
       .help = "label = score >= T (ties YES)",
       .default_words = "sift.json's",
       .notes = {{Command::Label, "; stored with each member: a member labeled under another threshold is judged again",
                  ""}}},
      {.name = "--max-request-tokens",
       .commands = Command::Score | Command::Batch | Command::Eval | Command::Calibrate | Command::Cost,
       .value = &F::max_request_tokens,
       .check = always(CLI::PositiveNumber),
       .help = "most tokens of one request (query + its items); rows are split into the fewest requests that fit",
       .default_words = "min(max_position_embeddings, a 4 GiB activation budget / bytes per token)"},
      {.name = "--max-batch-tokens",
       .commands = kServing,
       .value = &F::max_batch_tokens,
       .check = always(CLI::PositiveNumber),
       .help = "most tokens of one forward call: short rows are packed together up to this budget (a row's "
               "requests never exceed it)",
       .default_words = "calls of about 64 MiB of activations, at most the request limit (a longer row runs alone)",
       .notes = {{Command::Serve,
                  "; in sift serve: new tokens, the queued requests of several clients packed up to it, and each "
                  "request's limit too (a row is split into requests that fit; a query with one item longer than it "
                  "gets 400)",
                  fmt::format("{}, not sift score's 64 MiB activation budget: a call holds several clients' "
                              "requests, each answered when the call ends",
                              kServeMaxBatchTokens)}}},
      {.name = "--truncate",
       .commands = kScoringCommands,
       .value = &F::truncate,
       .check = always(CLI::IsMember(names_of({Truncate::None, Truncate::Query, Truncate::Items}, truncate_name))),
       .help = "a row whose query with one of its items is longer than a request: none (the row's error) | query "
               "(cut the query's text to what the longest item leaves) | items (cut each item's text that does not "
               "fit); usage.truncated_tokens counts what was cut",
       .default_words = std::string(truncate_name(Truncate::None))},
      {.name = "--truncation-direction",
       .commands = kScoringCommands,
       .value = &F::truncation_direction,
       .check = always(CLI::IsMember(
           names_of({TruncationDirection::Right, TruncationDirection::Left}, truncation_direction_name))),
       .help = "right (cut the end of the text) | left (cut its beginning)",
       .default_words = std::string(truncation_direction_name(TruncationDirection::Right))},
      {.name = "--long-items",
       .commands = kServing,
       .value = &F::long_items,
       .check = always(
           CLI::IsMember(names_of({LongItems::Error, LongItems::Truncate, LongItems::Chunk}, long_items_name))),
       .help = "an item longer than --max-item-tokens or than a request holds with its query: error (the row's "
               "error) | truncate (cut its text, as --truncate items) | chunk (score it by overlapping windows of its "
               "text, each an item beside the others in the row's requests; its score is the greatest of its "
               "windows')",
       .default_words = "error, or truncate with --truncate items",
       .notes = {{Command::Serve, "",
                  "chunk for /v1/rerank, error for /v1/label and /v1/score (which never chunks); a request's "
                  "\"long_items\" overrides it"}}},
      {.name = "--max-item-tokens",
       .commands = kServing,
       .value = &F::max_item_tokens,
       .check = always(CLI::PositiveNumber),
       .help = "an item part (its template included) longer than this many prompt tokens is long, and a window "
               "holds at most this many",
       .default_words = "what a request leaves beside the query"},
      {.name = "--window-stride",
       .commands = kServing,
       .value = &F::window_stride,
       .check = always(CLI::PositiveNumber),
       .help = "--long-items chunk: text tokens from one window's start to the next's",
       .default_words = "3/4 of the text tokens a window holds (windows overlap by a quarter)"},
      {.name = "--max-windows",
       .commands = kServing,
       .value = &F::max_windows,
       .check = always(CLI::PositiveNumber),
       .help = "--long-items chunk: an item that needs more windows than this is its row's error",
       .default_words = fmt::format("{}", kDefaultMaxWindows)},
      {.name = "--weights",
       .commands = kLoadingHere,
       .value = &F::weights,
       .check = always(CLI::IsMember(names_of(
           {WeightStorage::Auto, WeightStorage::F32, WeightStorage::BF16, WeightStorage::Q8}, weight_storage_name))),
       .help = "how weight matrices are held: auto (the checkpoint's type; BF16/F16 stay 16-bit, scores bitwise "
               "those of f32) | f32 | bf16 (rounds weights to BF16; where the CPU has BF16 dot products "
               "(AVX512_BF16, AMX) multiplies in BF16: with AMX about twice f32's speed, without it as fast as the "
               "CPU's vdpbf16ps; scores differ slightly from f32) | q8 (int8 blocks of 32 like GGUF Q8_0: ~30% of "
               "F32's memory, faster, scores differ slightly from f32)",
       .default_words = std::string(weight_storage_name(WeightStorage::Auto))},
      {.name = "--kv-cache-mb",
       .commands = kServing | Command::Label,
       .value = &F::kv_cache_mb,
       .check = always(decimal_in(0, kMaxQueryCacheMb)),
       .help = "query-KV cache budget in MiB: rows that repeat a query reuse its keys and run only their items "
               "(the same scores); 0 turns it off",
       .default_words = fmt::format("{}, as the library's and Python's", kDefaultQueryCacheMb),
       .notes = {{Command::Score, "", query_cache_was},
                 {Command::Batch, "", query_cache_was},
                 {Command::Label, "; a profile's later rounds find its keys there", ""}},
       // eval and calibrate score without it, as they always have: what they measure (labels/s)
       // is each row run whole.
       .absent = [](ScoringFlags& f) { f.kv_cache_mb = 0; }},
      {.name = "--engine",
       .commands = kOnEngines,
       .value = &F::engine_urls,
       .help = "score on these scoring servers instead of this machine: http://host:port, comma-separated (sift "
               "serve replicas with this labeler, or SGLang servers; docs/engines.md). The labeler directory is read "
               "here (templates, tokenizer) but its weights are not loaded"},
      {.name = "--engine-timeout",
       .commands = kOnEngines,
       .value = &F::engine_timeout_seconds,
       .check = always(decimal_in(kMinEngineTimeoutSeconds, kMaxEngineTimeoutSeconds)),
       .help = "with --engine: fail (exit 1, naming each engine's last failure) when work waits and no engine has "
               "answered for this many seconds; until then failed requests (and any not answered within half of it) "
               "are retried",
       .default_words = fmt::format("{}", kDefaultEngineTimeoutSeconds)},
  };
  return table;
}

// The flag's help on `which`: its help, the command's note, then its default.
std::string help_on(const Flag& flag, Command which) {
  std::string help = flag.command_help ? flag.command_help(which) : flag.help, default_words = flag.default_words;
  for (const CommandNote& note : flag.notes)
    if (note.command == which) {
      help += note.note.starts_with(";") || note.note.empty() ? note.note : " " + note.note;
      if (!note.default_words.empty()) default_words = note.default_words;
    }
  if (!default_words.empty()) help += ". Default: " + default_words;
  return help;
}

}  // namespace

ScoringMode ScoringFlags::scoring_mode() const {
  return mode ? parse_scoring_mode(*mode).value() : ScoringMode::Mis;
}

WeightStorage ScoringFlags::weight_storage() const { return parse_weight_storage(weights).value(); }

std::optional<LongItems> ScoringFlags::long_items_choice() const {
  if (!long_items) return std::nullopt;
  return parse_long_items(*long_items).value();
}

int64_t ScoringFlags::query_cache_bytes() const { return static_cast<int64_t>(kv_cache_mb * 1024 * 1024); }

ScoringOptions ScoringFlags::scoring_options() const {
  ScoringOptions options;
  options.mode = scoring_mode();
  options.threshold = threshold;
  options.max_request_tokens = max_request_tokens;
  options.max_batch_tokens = max_batch_tokens;
  options.truncate = parse_truncate(truncate).value();
  options.truncation_direction = parse_truncation_direction(truncation_direction).value();
  options.long_items = long_items_choice();
  options.max_item_tokens = max_item_tokens;
  options.window_stride = window_stride;
  options.max_windows = max_windows;
  return options;
}

LoadOptions ScoringFlags::load_options() const {
  return {.weights = weight_storage(), .query_cache_bytes = query_cache_bytes()};
}

void add_scoring_flags(CLI::App* cmd, Command which, ScoringFlags& flags) {
  for (const Flag& flag : flag_table()) {
    if (!flag.commands.has(which)) {
      if (flag.absent) flag.absent(flags);
      continue;
    }
    const std::string help = help_on(flag, which);
    CLI::Option* option = std::visit(
        [&](auto member) {
          CLI::Option* added = cmd->add_option(flag.name, flags.*member, help);
          if constexpr (std::is_same_v<decltype(member), std::vector<std::string> ScoringFlags::*>)
            added->delimiter(',');  // several values after one flag, or one flag again
          return added;
        },
        flag.value);
    if (flag.check) option->check(flag.check(which));
  }
}

std::vector<std::string> scoring_flag_names(Command which) {
  std::vector<std::string> names;
  for (const Flag& flag : flag_table())
    if (flag.commands.has(which)) names.push_back(flag.name);
  return names;
}

std::vector<ScoringMode> accepted_modes(Command which) {
  const bool scores_only = which == Command::Batch || which == Command::Calibrate;
  std::vector<ScoringMode> modes;
  for (ScoringMode mode : kScoringModes)
    if (!scores_only || mode != ScoringMode::Generate) modes.push_back(mode);
  return modes;
}

std::string score_mode_names() {
  std::string names;
  for (ScoringMode mode : accepted_modes(Command::Batch))
    names += fmt::format("{}{}", names.empty() ? "" : ", ", scoring_mode_name(mode));
  return names;
}

}  // namespace sift::apps
