#include "train/generate_examples.h"

#include <exception>

#include "core/error.h"
#include "scoring/plan.h"

namespace sift::train {
namespace {

// Item k's AnswerDecision: the first index where the answer list of y and that of y with
// label k flipped differ.
AnswerDecision find_decision(const PromptEncoder& encoder, const std::vector<bool>& labels,
                             const std::vector<int32_t>& answer, size_t k) {
  std::vector<bool> flipped = labels;
  flipped[k] = !flipped[k];
  const std::vector<int32_t> other = encoder.generate_answer_list_tokens(flipped);
  for (size_t j = 0; j < answer.size() && j < other.size(); ++j)
    if (answer[j] != other[j]) return {static_cast<int32_t>(j), other[j]};
  fail("item {}'s answer list does not change with its label (the yes and no answers tokenize alike there)", k);
}

GenerateRow encode_row(const LabeledRow& row, const PromptEncoder& encoder, const SequenceLimits& limits) {
  GenerateRow g;
  g.line = row.line;
  const std::vector<int32_t> query = encoder.query_tokens(row.row.query);
  std::vector<std::vector<int32_t>> item_lines;
  for (size_t i = 0; i < row.row.items.size(); ++i)
    item_lines.push_back(encoder.generate_item_tokens(static_cast<int64_t>(i) + 1, row.row.items[i]));
  g.prompt = encoder.generate_prompt(query, item_lines);
  g.answer = encoder.generate_answer_list_tokens(row.labels);
  for (bool label : row.labels) g.labels.push_back(label ? 1 : 0);
  g.plan_size = packed_example_size(query, encoder.item_tokens_batch(row.row.items));

  const auto length = static_cast<int64_t>(g.prompt.size() + g.answer.size());
  if (length > limits.max_positions)
    fail("the packed-generation sequence is {} tokens ({} prompt + {} answer list), more than the model's {} positions",
         length, g.prompt.size(), g.answer.size(), limits.max_positions);
  if (length > limits.max_sequence_tokens)
    fail("the packed-generation sequence is {} tokens ({} items), more than --max-sequence-tokens {}", length,
         row.labels.size(), limits.max_sequence_tokens);
  for (size_t k = 0; k < row.labels.size(); ++k) g.decisions.push_back(find_decision(encoder, row.labels, g.answer, k));
  return g;
}

}  // namespace

GenerateRows encode_generate_rows(const std::vector<LabeledRow>& rows, const PromptEncoder& encoder,
                                  const SequenceLimits& limits) {
  GenerateRows encoded;
  encoded.rows.reserve(rows.size());
  for (const LabeledRow& row : rows) {
    try {  // whatever goes wrong with a row, it is left out with its reason
      encoded.rows.push_back(encode_row(row, encoder, limits));
    } catch (const std::exception& error) {
      encoded.errors.push_back({row.line, error.what()});
    }
  }
  return encoded;
}

SequenceLayout generate_layout(const GenerateRow& row) {
  if (row.prompt.empty() || row.answer.empty()) fail("a packed-generation example needs a prompt and an answer list");
  std::vector<int32_t> ids = row.prompt;
  ids.insert(ids.end(), row.answer.begin(), row.answer.end() - 1);  // the last answer token is never an input
  ForwardCall call;
  append_run(call, ids, 0, {});  // one causal sequence, as the decoder's prefill and steps see it
  SequenceLayout s;
  s.ids = std::move(call.ids);
  s.positions = std::move(call.positions);
  s.segments = std::move(call.segments);
  const auto prompt_len = static_cast<int32_t>(row.prompt.size());
  for (size_t j = 0; j < row.answer.size(); ++j) {
    s.readout.push_back(prompt_len - 1 + static_cast<int32_t>(j));  // the token before answer[j] predicts it
    s.targets.push_back(row.answer[j]);
  }
  return s;
}

ExampleSet generate_examples(const std::vector<GenerateRow>& rows) {
  std::vector<int32_t> members;  // rows with candidates
  ExampleSet set;
  set.objective = "generate";
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].labels.empty()) continue;
    members.push_back(static_cast<int32_t>(r));
    set.sizes.push_back(rows[r].plan_size);
  }
  set.layout = [&rows, members = std::move(members)](int32_t example) {
    return generate_layout(rows[static_cast<size_t>(members[static_cast<size_t>(example)])]);
  };
  return set;
}

}  // namespace sift::train
