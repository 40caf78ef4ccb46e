// The scoring flags' table (apps/scoring_flags.h): each command gets exactly its flags, with
// one default each, and --mode takes the modes of sift::kScoringModes that the command takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "apps/scoring_flags.h"

namespace {

using sift::apps::Command;
using sift::apps::ScoringFlags;

// A command line with the scoring flags of score, batch and serve, as the sift commands add them.
struct CommandLine {
  CLI::App app{"sift"};
  ScoringFlags score, batch, serve;
  CLI::App* score_cmd = app.add_subcommand("score");
  CLI::App* batch_cmd = app.add_subcommand("batch");
  CLI::App* serve_cmd = app.add_subcommand("serve");
  CommandLine() {
    sift::apps::add_scoring_flags(score_cmd, Command::Score, score);
    sift::apps::add_scoring_flags(batch_cmd, Command::Batch, batch);
    sift::apps::add_scoring_flags(serve_cmd, Command::Serve, serve);
  }
  // The error CLI11 gives for `line` ("" when it parses).
  std::string error_of(const std::string& line) {
    try {
      app.parse(line);
      return "";
    } catch (const CLI::ParseError& e) {
      return e.what();
    }
  }
};

std::vector<std::string> long_options(const CLI::App* cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* option : cmd->get_options())
    for (const std::string& name : option->get_lnames())
      if (name != "help") names.push_back("--" + name);
  return names;
}

const CLI::Option* option(const CLI::App* cmd, const std::string& name) {
  for (const CLI::Option* o : cmd->get_options())
    if (o->check_lname(name.substr(2))) return o;
  return nullptr;
}

TEST(ScoringFlags, EachCommandGetsExactlyItsFlags) {
  CommandLine cli;
  const std::vector<std::string> score = {"--mode", "--threshold", "--max-request-tokens", "--max-batch-tokens",
                                          "--truncate", "--truncation-direction", "--long-items",
                                          "--max-item-tokens", "--window-stride", "--max-windows", "--weights",
                                          "--kv-cache-mb", "--engine", "--engine-timeout"};
  const std::vector<std::string> serve = {"--max-batch-tokens", "--long-items", "--max-item-tokens",
                                          "--window-stride", "--max-windows", "--weights", "--kv-cache-mb"};
  EXPECT_EQ(long_options(cli.score_cmd), score);
  EXPECT_EQ(long_options(cli.serve_cmd), serve);
  EXPECT_EQ(sift::apps::scoring_flag_names(Command::Score), score);
  EXPECT_EQ(sift::apps::scoring_flag_names(Command::Serve), serve);
  EXPECT_EQ(sift::apps::scoring_flag_names(Command::Cost), std::vector<std::string>{"--max-request-tokens"});
  EXPECT_EQ(sift::apps::scoring_flag_names(Command::Logits), std::vector<std::string>{"--weights"});
  EXPECT_EQ(sift::apps::scoring_flag_names(Command::Label),
            (std::vector<std::string>{"--threshold", "--weights", "--kv-cache-mb", "--engine", "--engine-timeout"}));
  EXPECT_NE(cli.error_of("serve --mode mis"), "") << "serve takes no --mode (a request says its own)";
  EXPECT_NE(cli.error_of("serve --truncate query"), "");
}

TEST(ScoringFlags, DefaultsAreTheNamedConstants) {
  CommandLine cli;
  ASSERT_EQ(cli.error_of("score"), "");
  EXPECT_EQ(cli.score.scoring_mode(), sift::ScoringMode::Mis);
  EXPECT_EQ(cli.score.kv_cache_mb, sift::kDefaultQueryCacheMb);
  EXPECT_EQ(cli.score.load_options().query_cache_bytes, sift::kDefaultQueryCacheBytes);
  EXPECT_EQ(cli.score.load_options().query_cache_bytes, sift::LoadOptions{}.query_cache_bytes)
      << "the CLI's default is the library's";
  EXPECT_EQ(cli.score.load_options().weights, sift::WeightStorage::Auto);
  EXPECT_EQ(cli.score.engines().timeout_seconds, sift::kDefaultEngineTimeoutSeconds);
  EXPECT_EQ(cli.score.engines().timeout_seconds, sift::EngineOptions{}.timeout_seconds);
  EXPECT_FALSE(cli.score.engines().any());
  const sift::ScoringOptions options = cli.score.scoring_options();
  const sift::ScoringOptions library;
  EXPECT_EQ(options.mode, library.mode);
  EXPECT_EQ(options.truncate, library.truncate);
  EXPECT_EQ(options.truncation_direction, library.truncation_direction);
  EXPECT_EQ(options.long_items, library.long_items);
  EXPECT_EQ(options.max_windows, library.max_windows);
  EXPECT_FALSE(options.threshold || options.max_request_tokens || options.max_batch_tokens);
  EXPECT_FALSE(cli.score.mode) << "sift loadgen sends no mode unless given";
  EXPECT_FALSE(cli.serve.max_batch_tokens) << "sift serve's is kServeMaxBatchTokens, said where it serves";

  CLI::App app("sift");
  ScoringFlags eval;
  sift::apps::add_scoring_flags(app.add_subcommand("eval"), Command::Eval, eval);
  EXPECT_EQ(eval.load_options().query_cache_bytes, 0) << "eval and calibrate score each row whole, as they did";

  // One default, and the help says it (and, where it was another, which).
  for (const CLI::App* cmd : {cli.score_cmd, cli.batch_cmd, cli.serve_cmd})
    EXPECT_NE(option(cmd, "--kv-cache-mb")->get_description().find("Default: 256"), std::string::npos)
        << cmd->get_name();
  EXPECT_NE(option(cli.score_cmd, "--kv-cache-mb")->get_description().find("64"), std::string::npos);
  EXPECT_NE(option(cli.serve_cmd, "--max-batch-tokens")->get_description().find("Default: 8192"), std::string::npos);
  EXPECT_EQ(option(cli.score_cmd, "--max-batch-tokens")->get_description().find("8192"), std::string::npos);
}

TEST(ScoringFlags, ValuesGoWhereTheySay) {
  CommandLine cli;
  ASSERT_EQ(cli.error_of("score --mode prefix --threshold 0.25 --max-batch-tokens 300 --truncate items "
                         "--truncation-direction left --long-items chunk --max-windows 3 --weights q8 "
                         "--kv-cache-mb 0.5 --engine http://a:1,http://b:2 --engine-timeout 5"),
            "");
  const sift::ScoringOptions options = cli.score.scoring_options();
  EXPECT_EQ(options.mode, sift::ScoringMode::Prefix);
  EXPECT_EQ(options.threshold, 0.25);
  EXPECT_EQ(options.max_batch_tokens, 300);
  EXPECT_EQ(options.truncate, sift::Truncate::Items);
  EXPECT_EQ(options.truncation_direction, sift::TruncationDirection::Left);
  EXPECT_EQ(options.long_items, sift::LongItems::Chunk);
  EXPECT_EQ(options.max_windows, 3);
  EXPECT_EQ(cli.score.load_options().weights, sift::WeightStorage::Q8);
  EXPECT_EQ(cli.score.load_options().query_cache_bytes, 512 * 1024);
  EXPECT_EQ(cli.score.engines().urls, (std::vector<std::string>{"http://a:1", "http://b:2"}));
  EXPECT_EQ(cli.score.engines().timeout_seconds, 5);
}

TEST(ScoringFlags, ModesComeFromTheOneListAndACommandRefusesThoseItDoesNotTake) {
  std::vector<std::string> every;
  for (sift::ScoringMode mode : sift::kScoringModes) every.emplace_back(sift::scoring_mode_name(mode));
  ASSERT_EQ(every, (std::vector<std::string>{"mis", "independent", "prefix", "generate"}));

  CommandLine cli;
  const std::string bogus = cli.error_of("score --mode bogus");
  for (const std::string& name : every) EXPECT_NE(bogus.find(name), std::string::npos) << bogus;
  EXPECT_NE(bogus.find("--mode"), std::string::npos) << bogus;
  for (const std::string& name : every) {
    CommandLine fresh;
    EXPECT_EQ(fresh.error_of("score --mode " + name), "") << name;
    EXPECT_EQ(fresh.score.scoring_mode(), *sift::parse_scoring_mode(name));
  }

  CommandLine batch;
  const std::string generate = batch.error_of("batch --mode generate");
  EXPECT_NE(generate, "") << "a batch job records scores";
  EXPECT_NE(generate.find("mis"), std::string::npos) << generate;
  EXPECT_EQ(sift::apps::accepted_modes(Command::Batch),
            (std::vector<sift::ScoringMode>{sift::ScoringMode::Mis, sift::ScoringMode::Independent,
                                            sift::ScoringMode::Prefix}));
  EXPECT_EQ(sift::apps::accepted_modes(Command::Calibrate), sift::apps::accepted_modes(Command::Batch));
  EXPECT_EQ(sift::apps::accepted_modes(Command::Eval).size(), std::size(sift::kScoringModes));
  EXPECT_EQ(sift::apps::score_mode_names(), "mis, independent, prefix");

  // The help lists what the command takes, and nothing else.
  const std::string batch_help = option(batch.batch_cmd, "--mode")->get_description();
  EXPECT_NE(batch_help.find("prefix"), std::string::npos) << batch_help;
  EXPECT_EQ(batch_help.find("generate"), std::string::npos) << batch_help;
  EXPECT_NE(option(batch.score_cmd, "--mode")->get_description().find("generate"), std::string::npos);
}

TEST(ScoringFlags, BadValuesAreRefusedNamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"score --kv-cache-mb=-1", "--kv-cache-mb"},   {"score --kv-cache-mb nan", "--kv-cache-mb"},
      {"serve --kv-cache-mb 2e6", "--kv-cache-mb"},  {"score --threshold 1.5", "--threshold"},
      {"score --max-batch-tokens 0", "--max-batch-tokens"}, {"batch --weights q4", "--weights"},
      {"score --engine-timeout 0", "--engine-timeout"},     {"batch --truncate middle", "--truncate"},
      {"serve --long-items cut", "--long-items"}};
  for (const auto& [line, flag] : refused) {
    CommandLine cli;
    const std::string error = cli.error_of(line);
    EXPECT_NE(error.find(flag), std::string::npos) << line << ": " << error;
  }
}

}  // namespace
