#include "serve/shared_query_runner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <memory>
#include <string>

#include "core/error.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"

namespace sift::serve {
namespace {

// One request of a job: items [range.begin, range.end) with the job's query.
struct PendingRequest {
  int32_t job = 0;
  ItemRange range;
};

enum class QuerySource { SameCall, Cache, RunHere };

struct DraftEntry {
  PendingRequest request;
  QuerySource source = QuerySource::RunHere;
  std::shared_ptr<const KvBlock> block;  // source Cache
};

int64_t item_tokens(const Job& job, ItemRange range) {
  int64_t n = 0;
  for (int64_t i = range.begin; i < range.end; ++i) n += static_cast<int64_t>(job.items[i].size());
  return n;
}

std::string ids_key(const TokenIds& ids) {
  return {reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int32_t)};
}

// The vocabulary rows the calls read: [yes, no], the union of the label ids when every job
// softmaxes over its labels, or all (empty) when some job needs log-probabilities.
std::vector<int32_t> vocab_rows_of(std::span<Job* const> jobs, AnswerTokenIds answer) {
  if (jobs.front()->readout.kind == Readout::Kind::YesProbability) return {answer.yes, answer.no};
  std::vector<int32_t> rows;
  for (const Job* job : jobs) {
    if (!job->readout.softmax) return {};
    rows.insert(rows.end(), job->readout.label_ids.begin(), job->readout.label_ids.end());
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

// The readout of one item from its logits row (vocab_rows as above; empty = all).
//   softmax : p_t = exp(l_t - m) / sum_u exp(l_u - m) over the labels u, m = max_u l_u
//   else    : p_t = exp(l_t - lse), lse = m + log sum_v exp(l_v - m) over the vocabulary v
std::vector<double> label_probabilities(const Readout& readout, std::span<const float> logits,
                                        std::span<const int32_t> vocab_rows) {
  const auto column = [&](int32_t id) -> double {
    if (vocab_rows.empty()) return logits[static_cast<size_t>(id)];
    return logits[static_cast<size_t>(std::lower_bound(vocab_rows.begin(), vocab_rows.end(), id) - vocab_rows.begin())];
  };
  std::vector<double> out;
  if (readout.softmax) {
    double m = -INFINITY, sum = 0;
    for (int32_t id : readout.label_ids) m = std::max(m, column(id));
    for (int32_t id : readout.label_ids) sum += std::exp(column(id) - m);
    for (int32_t id : readout.label_ids) out.push_back(std::exp(column(id) - m) / sum);
    return out;
  }
  double m = -INFINITY, sum = 0;
  for (float l : logits) m = std::max(m, static_cast<double>(l));
  for (float l : logits) sum += std::exp(static_cast<double>(l) - m);
  const double lse = m + std::log(sum);
  for (int32_t id : readout.label_ids) out.push_back(std::exp(column(id) - lse));
  return out;
}

class Runner {
 public:
  Runner(Session& session, std::span<Job* const> jobs, const RunnerContext& context)
      : session_(session), jobs_(jobs), context_(context), vocab_rows_(vocab_rows_of(jobs, context.answer)),
        items_left_(jobs.size()) {
    const int64_t request_limit = std::min(context.limits.max_request_tokens, context.limits.max_call_tokens);
    for (size_t j = 0; j < jobs.size(); ++j) {
      Job& job = *jobs[j];
      job.result = RowResult{};
      job.result.scores.resize(job.items.size());
      job.result.labels.resize(job.items.size());
      job.label_scores.assign(job.items.size(), {});
      job.cached_tokens = 0;
      items_left_[j] = static_cast<int64_t>(job.items.size());
      std::vector<int64_t> lengths;
      for (const TokenIds& item : job.items) lengths.push_back(static_cast<int64_t>(item.size()));
      for (const ItemRange& range : split_into_requests(static_cast<int64_t>(job.query.size()), lengths, request_limit))
        pending_.push_back({static_cast<int32_t>(j), range});
      if (job.items.empty()) job.finish();
    }
  }

  void run() {
    size_t next = 0;
    while (next < pending_.size()) next = run_call(next);
    session_.truncate(0);  // the requests' KV is freed after prefill (the cache keeps copies)
  }

 private:
  // Takes requests from pending_[first] on while they fit the call budget, runs them as one
  // forward call, and returns the index of the first request not taken.
  size_t run_call(size_t first) {
    std::vector<DraftEntry> draft;
    std::set<std::string> queries_in_call;  // queries run or appended in this call
    int64_t tokens = 0;
    size_t next = first;
    for (; next < pending_.size(); ++next) {
      const Job& job = *jobs_[pending_[next].job];
      DraftEntry entry{pending_[next], QuerySource::RunHere, nullptr};
      const bool shareable = !job.query.empty();
      int64_t cost = item_tokens(job, entry.request.range);
      if (shareable && queries_in_call.count(ids_key(job.query)) > 0) {
        entry.source = QuerySource::SameCall;
      } else if (shareable && (entry.block = cached_query(job.query))) {
        entry.source = QuerySource::Cache;
      } else {
        cost += static_cast<int64_t>(job.query.size());
      }
      if (!draft.empty() && tokens + cost > context_.limits.max_call_tokens) break;
      if (shareable && entry.source != QuerySource::SameCall) queries_in_call.insert(ids_key(job.query));
      tokens += cost;
      draft.push_back(std::move(entry));
    }
    execute(draft);
    return next;
  }

  // The query's K/V from the cache, looked up once per run (so hits and misses count once),
  // or kept by an earlier call of this run.
  std::shared_ptr<const KvBlock> cached_query(const TokenIds& query) {
    const std::string key = ids_key(query);
    auto it = known_blocks_.find(key);
    if (it == known_blocks_.end()) it = known_blocks_.emplace(key, context_.cache.find(query)).first;
    return it->second;
  }

  void execute(const std::vector<DraftEntry>& draft) {
    // Cached queries first, in the session's key space before the call's tokens.
    session_.truncate(0);
    std::map<std::string, KeyRange> query_keys;
    for (const DraftEntry& entry : draft) {
      if (entry.source != QuerySource::Cache) continue;
      const auto begin = static_cast<int32_t>(session_.n_cached());
      session_.append_keys(*entry.block);
      query_keys[ids_key(jobs_[entry.request.job]->query)] = {begin, static_cast<int32_t>(session_.n_cached())};
    }
    ForwardCall call{.key_offset = session_.n_cached()};
    std::vector<std::pair<int32_t, KeyRange>> to_cache;  // (job, its query's keys) run in this call
    int64_t jobs_in_call = 0;
    int32_t last_job = -1;
    for (const DraftEntry& entry : draft) {
      const Job& job = *jobs_[entry.request.job];
      const std::span<const TokenIds> items =
          std::span<const TokenIds>(job.items).subspan(entry.request.range.begin, entry.request.range.size());
      const auto first_item = static_cast<int32_t>(entry.request.range.begin);
      // The job's first request decides whether its query was prefilled for it or reused.
      if (entry.request.range.begin == 0 && entry.source != QuerySource::RunHere)
        jobs_[entry.request.job]->cached_tokens = static_cast<int64_t>(job.query.size());
      if (entry.source == QuerySource::RunHere) {
        const auto begin = static_cast<int32_t>(call.key_offset + call.n_tokens());
        const KeyRange keys{begin, begin + static_cast<int32_t>(job.query.size())};
        append_request(call, job.query, items, entry.request.job, first_item);
        if (!job.query.empty()) {
          query_keys[ids_key(job.query)] = keys;
          to_cache.emplace_back(entry.request.job, keys);
        }
      } else {
        const int64_t start = call.n_tokens();
        append_items(call, query_keys.at(ids_key(job.query)), items, entry.request.job, first_item);
        call.requests.push_back({entry.request.job, call.n_tokens() - start});
      }
      if (entry.request.job != last_job) ++jobs_in_call;
      last_job = entry.request.job;
    }

    const LogitsView logits = session_.forward(call.request(vocab_rows_));
    context_.metrics.count_call(call.n_tokens(), jobs_in_call);
    context_.metrics.count_work(call.n_tokens(), static_cast<int64_t>(call.slots.size()));
    for (const PlannedRequest& request : call.requests) {
      jobs_[request.row]->result.prefill_tokens += request.n_tokens;
      jobs_[request.row]->result.requests += 1;
    }
    // Copies of the queries prefilled here, for the next call and the next request.
    if (context_.cache.enabled())
      for (const auto& [job, keys] : to_cache) {
        auto block = std::make_shared<const KvBlock>(session_.copy_keys(keys));
        context_.cache.insert(jobs_[job]->query, block);
        known_blocks_[ids_key(jobs_[job]->query)] = std::move(block);
      }
    for (size_t k = 0; k < call.slots.size(); ++k) read_slot(call.slots[k], logits.row(static_cast<int64_t>(k)));
  }

  void read_slot(ItemSlot slot, std::span<const float> row) {
    Job& job = *jobs_[slot.row];
    if (job.readout.kind == Readout::Kind::YesProbability) {
      const double score = yes_probability(row[0], row[1]);
      if (!is_probability(score) && job.result.error.empty())  // a broken checkpoint, never a silent NaN
        job.result.error = not_a_probability_message(fmt::format("item {}", slot.item), score);
      job.result.scores[slot.item] = score;
      job.result.labels[slot.item] = label_of(score, job.threshold);
    } else {
      job.label_scores[slot.item] = label_probabilities(job.readout, row, vocab_rows_);
      for (double p : job.label_scores[slot.item])
        if (!is_probability(p) && job.result.error.empty())
          job.result.error = not_a_probability_message(fmt::format("item {}", slot.item), p);
    }
    if (--items_left_[slot.row] == 0) job.finish();
  }

  Session& session_;
  std::span<Job* const> jobs_;
  const RunnerContext& context_;
  std::vector<int32_t> vocab_rows_;
  std::vector<int64_t> items_left_;
  std::vector<PendingRequest> pending_;
  std::map<std::string, std::shared_ptr<const KvBlock>> known_blocks_;  // by query ids; null = not cached
};

}  // namespace

void run_shared_query_jobs(Session& session, std::span<Job* const> jobs, const RunnerContext& context) {
  if (jobs.empty()) return;
  Runner(session, jobs, context).run();
}

}  // namespace sift::serve
