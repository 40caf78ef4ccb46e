#include "workflows/artifact_presets.h"

#include <utility>

#include "core/error.h"
#include "scoring/prompt.h"

namespace sift {
namespace {

// Qwen3-Reranker's model card, verbatim.
constexpr std::string_view kRerankerSystem =
    "Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the "
    "answer can only be \"yes\" or \"no\".";
constexpr std::string_view kRerankerInstruction =
    "Given a web search query, retrieve relevant passages that answer the query";
constexpr std::string_view kChatInstruction =
    "Decide whether the candidate applies to the query. Answer with YES or NO only.";
constexpr std::string_view kCompactInstruction = "Does the profile support the qualification? Answer YES or NO.";
constexpr std::string_view kEmptyThink = "<think>\n\n</think>\n\n";

// The generate-mode answer instruction, before the assistant turn opens.
constexpr std::string_view kGenerateAsk =
    "\nFor each numbered candidate, answer on its own line as \"<number>: {yes}\" or \"<number>: {no}\".";

struct Layout {
  std::string query_template, item_template, yes, no;
  std::string generate_item_template = "{index}. {item}\n";
  std::string generate_answer_template;
};

// True when the tokenizer reads `text` as template text into exactly its one added token.
bool has_added_token(const Tokenizer& tokenizer, std::string_view text) {
  const std::optional<int32_t> id = tokenizer.token_to_id(text);
  if (!id) return false;
  const EncodeOptions options{.add_special_tokens = false, .special_text = SpecialText::Recognise};
  return tokenizer.encode(text, options) == std::vector<int32_t>{*id};
}

void require_tokens(const Tokenizer& tokenizer, std::string_view preset, std::initializer_list<std::string_view> tokens) {
  for (std::string_view token : tokens)
    if (!has_added_token(tokenizer, token))
      fail("--preset {}: the tokenizer has no added token \"{}\" (this preset is for Qwen3 tokenizers; try --preset "
           "chat or compact)", preset, token);
}

Layout qwen3_reranker(const Tokenizer& tokenizer, std::string_view instruction) {
  require_tokens(tokenizer, "qwen3-reranker", {"<|im_start|>", "<|im_end|>"});
  const std::string assistant = "<|im_end|>\n<|im_start|>assistant\n" + std::string(kEmptyThink);
  Layout l;
  l.query_template = fmt::format("<|im_start|>system\n{}<|im_end|>\n<|im_start|>user\n<Instruct>: {}\n<Query>: {{query}}\n",
                                 kRerankerSystem, instruction);
  l.item_template = "<Document>: {item}" + assistant;
  l.yes = "yes";
  l.no = "no";
  l.generate_item_template = "<Document {index}>: {item}\n";
  l.generate_answer_template =
      "For each numbered Document, answer on its own line as \"<number>: {yes}\" or \"<number>: {no}\"." + assistant;
  return l;
}

Layout chat(const Tokenizer& tokenizer, std::string_view instruction) {
  Layout l;
  l.yes = "YES";
  l.no = "NO";
  if (has_added_token(tokenizer, "<|im_start|>") && has_added_token(tokenizer, "<|im_end|>")) {
    // ChatML; a tokenizer with <think> is a thinking model, asked not to think (enable_thinking=False).
    const std::string think = has_added_token(tokenizer, "<think>") ? std::string(kEmptyThink) : std::string();
    const std::string assistant = "<|im_end|>\n<|im_start|>assistant\n" + think;
    l.query_template = fmt::format("<|im_start|>system\n{}<|im_end|>\n<|im_start|>user\nQuery: {{query}}\n", instruction);
    l.item_template = "Candidate: {item}" + assistant;
    l.generate_answer_template = std::string(kGenerateAsk) + assistant;
    return l;
  }
  if (has_added_token(tokenizer, "<|start_header_id|>") && has_added_token(tokenizer, "<|end_header_id|>") &&
      has_added_token(tokenizer, "<|eot_id|>")) {  // Llama 3
    const std::string assistant = "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n";
    l.query_template = fmt::format(
        "<|start_header_id|>system<|end_header_id|>\n\n{}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
        "Query: {{query}}\n",
        instruction);
    l.item_template = "Candidate: {item}" + assistant;
    l.generate_answer_template = std::string(kGenerateAsk) + assistant;
    return l;
  }
  fail("--preset chat: the tokenizer has no chat layout sift knows (ChatML <|im_start|>/<|im_end|>, or Llama 3 "
       "<|start_header_id|>/<|eot_id|>); use --preset compact");
}

Layout compact(std::string_view instruction) {
  Layout l;
  l.query_template = fmt::format("Profile:\n{{query}}\n{}\n", instruction);
  l.item_template = "Qualification: {item}\nAnswer:";
  l.generate_answer_template = std::string(kGenerateAsk) + "\n";
  return l;
}

// The first answer pair that is one token each (compact's rule).
std::pair<std::string, std::string> first_single_token_answers(const Tokenizer& tokenizer) {
  static const std::pair<const char*, const char*> kPairs[] = {
      {" YES", " NO"}, {"YES", "NO"}, {" Yes", " No"}, {" yes", " no"}, {" Y", " N"}, {"Y", "N"}};
  for (const auto& [yes, no] : kPairs) {
    ScoringArtifact probe;
    probe.yes = yes;
    probe.no = no;
    try {
      resolve_answer_tokens(tokenizer, probe, "compact");
      return {yes, no};
    } catch (const Error&) {
      // not one token each in this vocabulary: try the next pair
    }
  }
  fail("--preset compact: none of the answer pairs (\" YES\"/\" NO\" ... \"Y\"/\"N\") is one token each in this "
       "tokenizer; give --yes and --no");
}

// A template placeholder written into --instruction would be read as one.
void check_instruction(std::string_view instruction) {
  for (std::string_view placeholder : {kQueryPlaceholder, kItemPlaceholder, kIndexPlaceholder})
    if (instruction.find(placeholder) != std::string_view::npos)
      fail("--instruction must not contain {} (it is a template placeholder)", placeholder);
}

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = {"qwen3-reranker", "chat", "compact"};
  return names;
}

nlohmann::ordered_json preset_artifact_json(const Tokenizer& tokenizer, const PresetOptions& options) {
  std::string_view default_instruction;
  if (options.preset == "qwen3-reranker") default_instruction = kRerankerInstruction;
  else if (options.preset == "chat") default_instruction = kChatInstruction;
  else if (options.preset == "compact") default_instruction = kCompactInstruction;
  else fail("--preset \"{}\": expected qwen3-reranker, chat or compact", options.preset);
  const std::string instruction = options.instruction.value_or(std::string(default_instruction));
  check_instruction(instruction);

  Layout layout = options.preset == "qwen3-reranker" ? qwen3_reranker(tokenizer, instruction)
                  : options.preset == "chat"         ? chat(tokenizer, instruction)
                                                     : compact(instruction);
  if (options.preset == "compact" && !(options.yes && options.no))
    std::tie(layout.yes, layout.no) = first_single_token_answers(tokenizer);
  if (options.yes) layout.yes = *options.yes;
  if (options.no) layout.no = *options.no;

  nlohmann::ordered_json j;
  j["format"] = kScoringFormat;
  j["version"] = options.version.empty() ? options.preset + "-1" : options.version;
  j["query_template"] = layout.query_template;
  j["item_template"] = layout.item_template;
  j["yes"] = layout.yes;
  j["no"] = layout.no;
  j["threshold"] = 0.5;
  j["generate_item_template"] = layout.generate_item_template;
  j["generate_answer_template"] = layout.generate_answer_template;
  j["preset"] = {{"name", options.preset}, {"instruction", instruction}};

  const std::string where = fmt::format("--preset {}", options.preset);
  const ScoringArtifact artifact = parse_scoring_artifact(nlohmann::json::parse(j.dump()), where);
  resolve_answer_tokens(tokenizer, artifact, where);  // single tokens, and different ones
  return j;
}

ScoringArtifact preset_artifact(const Tokenizer& tokenizer, const PresetOptions& options) {
  const nlohmann::ordered_json j = preset_artifact_json(tokenizer, options);
  return parse_scoring_artifact(nlohmann::json::parse(j.dump()), "--preset " + options.preset);
}

}  // namespace sift
