#include "apps/command_line_slips.h"

#include <fmt/format.h>

#include <algorithm>

namespace sift::apps {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours, one edit each.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string_view without_dashes(std::string_view name) { return name.substr(std::min(name.find_first_not_of('-'), name.size())); }

// The app, then each subcommand the command line reached.
std::vector<const CLI::App*> command_chain(const CLI::App& app) {
  std::vector<const CLI::App*> path = {&app};
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : path.back()->get_subcommands({}))
      if (sub->parsed()) {
        path.push_back(sub);
        deeper = true;
        break;
      }
  }
  return path;
}

std::string command_words(const std::vector<const CLI::App*>& path) {
  std::string words;
  for (const CLI::App* at : path) words += (words.empty() ? "" : " ") + at->get_name();
  return words;
}

std::vector<std::string> subcommand_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands({})) names.push_back(sub->get_name());
  std::sort(names.begin(), names.end());
  return names;
}

// Every option of the commands on the path (a subcommand passes the options it does not know
// up to its parent: the global options are every command's).
std::vector<std::string> option_names(const std::vector<const CLI::App*>& path) {
  std::vector<std::string> names;
  for (const CLI::App* at : path)
    for (const CLI::Option* option : at->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    }
  return names;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string nearest = nearest_name(word, candidates);
  return nearest.empty() ? "" : fmt::format("; did you mean {}?", nearest);
}

}  // namespace

std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string_view letters = without_dashes(word);
  std::string nearest;
  size_t best = 3;  // at most 2 edits
  for (const std::string& candidate : candidates) {
    const size_t distance = edit_distance(letters, without_dashes(candidate));
    if (distance < best && 2 * distance < letters.size()) {
      best = distance;
      nearest = candidate;
    }
  }
  return nearest;
}

std::string slip_message(const CLI::App& app, const std::exception& failure) {
  const std::vector<const CLI::App*> path = command_chain(app);
  const CLI::App& command = *path.back();
  const std::vector<std::string> commands = subcommand_names(command);
  const std::string list = fmt::format("{}", fmt::join(commands, ", "));
  const std::vector<std::string> leftover = app.remaining(true);
  if (leftover.empty()) {
    if (dynamic_cast<const CLI::RequiredError*>(&failure) && !commands.empty() &&
        command.get_require_subcommand_min() > 0)
      return fmt::format("{} needs a command: {}", command_words(path), list);
    return "";
  }
  const std::string& first = leftover.front();
  if (first.size() > 1 && first.front() == '-') {
    const std::string name = first.substr(0, first.find('='));
    return fmt::format("unknown option {}{}", name, did_you_mean(name, option_names(path)));
  }
  if (!commands.empty()) {
    const std::string words = path.size() > 1 ? command_words({path.begin() + 1, path.end()}) + " " : "";
    const std::string nearest = nearest_name(first, commands);
    return fmt::format("unknown command {}{}{}{}: {}", words, first,
                       nearest.empty() ? "; the commands" : fmt::format("; did you mean {}? The commands", nearest),
                       path.size() > 1 ? " of " + command_words(path) : "", list);
  }
  return fmt::format("unexpected argument {}", first);
}

}  // namespace sift::apps
