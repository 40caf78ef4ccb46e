#include "scoring/engine.h"

#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "scoring/generate_mode.h"
#include "scoring/plan.h"

namespace sift {
namespace {

bool same_ids(std::span<const int32_t> a, std::span<const int32_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

LocalEngine::LocalEngine(const Model& model, int n_threads, const ThreadShare* share)
    : owned_(std::make_unique<Session>(model, n_threads)), session_(*owned_), share_(share) {}

LocalEngine::LocalEngine(Session& session) : session_(session) {}

void LocalEngine::use_threads() {
  if (share_) session_.set_n_threads(share_->per_context());
}

bool LocalEngine::holds(std::span<const int32_t> query) const {
  return !query.empty() && same_ids(query, resident_);
}

OfferedKeys LocalEngine::run(const PlannedCall& call, std::span<ScoringJob* const> jobs) {
  use_threads();
  const auto query_of = [&](const CallRequest& r) -> const TokenIds& { return jobs[r.job]->query; };
  std::unordered_map<std::string, KeyRange> query_keys;  // by ids: where each query's keys are

  // The Kept queries' keys first, before the call's tokens: the resident query where it is
  // the first of them, then copies of the others.
  std::vector<const CallRequest*> kept;
  for (const CallRequest& r : call.requests)
    if (r.query == QuerySource::Kept && query_keys.emplace(ids_key(query_of(r)), KeyRange{}).second) kept.push_back(&r);
  size_t first_copied = 0;
  if (!kept.empty() && holds(query_of(*kept.front()))) {
    const auto n = static_cast<int32_t>(resident_.size());
    session_.truncate(n);
    query_keys[ids_key(resident_)] = {0, n};
    first_copied = 1;
  } else {
    session_.truncate(0);
  }
  for (size_t k = first_copied; k < kept.size(); ++k) {
    if (!kept[k]->cached) fail("internal: a kept query's keys are neither held nor cached");
    const auto begin = static_cast<int32_t>(session_.n_cached());
    session_.append_keys(*kept[k]->cached);
    query_keys[ids_key(query_of(*kept[k]))] = {begin, static_cast<int32_t>(session_.n_cached())};
  }

  // The call's tokens: each request's query run (Run) and its items against the query's keys.
  ForwardCall forward{.key_offset = session_.n_cached()};
  std::vector<KeyRange> run_keys(call.requests.size());
  std::vector<const Readout*> readouts;
  for (size_t k = 0; k < call.requests.size(); ++k) {
    const CallRequest& r = call.requests[k];
    const ScoringJob& job = *jobs[r.job];
    KeyRange keys;
    if (r.query == QuerySource::Run) {
      keys = run_keys[k] = append_run(forward, job.query, 0, {});
      query_keys.emplace(ids_key(job.query), keys);  // SameCall requests after it use these
    } else {
      keys = query_keys.at(ids_key(job.query));
    }
    const std::span<const TokenIds> items = std::span<const TokenIds>(job.items).subspan(
        static_cast<size_t>(r.items.begin), static_cast<size_t>(r.items.size()));
    append_items(forward, keys, items, r.job, static_cast<int32_t>(r.items.begin));
    if (!items.empty()) readouts.push_back(&job.readout);
  }

  if (forward.n_tokens() > 0) {
    const std::vector<int32_t> vocab_rows = vocab_rows_for(readouts);
    const LogitsView logits = session_.forward(forward.request(vocab_rows));  // (items, vocab rows)
    double score = 0;
    for (size_t s = 0; s < forward.slots.size(); ++s) {
      ScoringJob& job = *jobs[forward.slots[s].row];
      const auto item = static_cast<size_t>(forward.slots[s].item);
      const std::span<const float> row = logits.row(static_cast<int64_t>(s));
      if (job.readout.kind == Readout::Kind::YesProbability) {
        read_item(job.readout, row, vocab_rows, {&score, 1});
        job.result.scores[item] = score;
      } else {
        job.label_scores[item].resize(job.readout.label_ids.size());
        read_item(job.readout, row, vocab_rows, job.label_scores[item]);
      }
    }
  }

  OfferedKeys offered(call.requests.size());
  for (size_t k = 0; k < call.requests.size(); ++k)
    if (call.requests[k].offer_query && call.requests[k].query == QuerySource::Run)
      offered[k] = std::make_shared<const KvBlock>(session_.copy_keys(run_keys[k]));

  // Keep the query at the front of the key space for the next call; drop the rest.
  if (!kept.empty()) {
    resident_ = query_of(*kept.front());
  } else if (!call.requests.empty() && call.requests.front().query == QuerySource::Run && forward.key_offset == 0) {
    resident_ = query_of(call.requests.front());
  } else {
    resident_.clear();
  }
  session_.truncate(static_cast<int64_t>(resident_.size()));
  return offered;
}

namespace {

// A row's generation as its result: 1 or 0 per parsed item, null and listed in `unparsed`
// where the answer could not be read.
void write_generation(GenerateDecisions generated, RowResult& result) {
  Generation& generation = result.generation.emplace();
  for (size_t i = 0; i < generated.decisions.size(); ++i) {
    const std::optional<bool>& decision = generated.decisions[i];
    if (!decision) generation.unparsed.push_back(static_cast<int64_t>(i));
    result.scores.push_back(decision ? std::optional<double>(*decision ? 1.0 : 0.0) : std::nullopt);
    result.labels.push_back(decision);
  }
  result.prefill_tokens = generated.prompt_tokens;
  result.requests = generated.requests;
  generation.generated_tokens = generated.generated_tokens;
  generation.texts = std::move(generated.answer_texts);
}

void fail_job(ScoringJob& job, const Error& e) {
  job.result = RowResult{};
  job.result.error = e.what();
}

}  // namespace

bool one_row_decoding_from_environment() {
  const char* value = std::getenv("SIFT_GENERATE_DECODER");
  if (!value || std::string_view(value).empty() || std::string_view(value) == "batched") return false;
  if (std::string_view(value) == "one-row") return true;
  fail("SIFT_GENERATE_DECODER={}: expected batched (the default) or one-row", value);
}

void LocalEngine::generate(std::span<ScoringJob* const> jobs, const GenerateSetup& setup, int64_t call_tokens) {
  use_threads();
  resident_.clear();  // decoding uses the whole cache
  const int64_t max_positions = session_.model().config().max_position_embeddings;
  if (setup.one_row_decoding || one_row_decoding_from_environment()) {
    for (ScoringJob* job : jobs) try {
        const std::vector<int32_t> query = setup.prompts->query_tokens(job->query_text);
        write_generation(generate_decisions(session_, *setup.prompts, *setup.artifact, query, job->item_texts,
                                            setup.max_request_tokens),
                         job->result);
      } catch (const Error& e) {
        fail_job(*job, e);
      }
    return;
  }
  std::vector<GenerationRequests> rows;
  std::vector<ScoringJob*> planned;
  for (ScoringJob* job : jobs) try {
      const std::vector<int32_t> query = setup.prompts->query_tokens(job->query_text);
      rows.push_back(generation_requests(*setup.prompts, *setup.artifact, query, job->item_texts,
                                         setup.max_request_tokens, max_positions));
      planned.push_back(job);
    } catch (const Error& e) {
      fail_job(*job, e);  // this row cannot be planned; the others go on
    }
  // A row whose decoding fails fails alone (generate_rows decodes the rows again one by one).
  std::vector<RowGeneration> generated =
      generate_rows(session_, *setup.prompts, *setup.artifact, rows, call_tokens);
  for (size_t r = 0; r < planned.size(); ++r) {
    if (generated[r].error.empty()) write_generation(std::move(generated[r].decisions), planned[r]->result);
    else fail_job(*planned[r], Error(generated[r].error));
  }
}

}  // namespace sift
