#include "remote/remote_engine.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace sift::remote {

std::string score_request_body(const ScoringJob& job, ItemRange items, const std::string& model_name) {
  nlohmann::ordered_json body;
  body["model"] = model_name;
  body["query"] = job.query;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (int64_t i = items.begin; i < items.end; ++i) list.push_back(job.items[static_cast<size_t>(i)]);
  body["items"] = std::move(list);
  body["label_token_ids"] = job.readout.label_ids;
  // P(yes) is the softmax over [yes, no]; label probabilities as the job asks.
  body["apply_softmax"] = job.readout.kind == Readout::Kind::YesProbability || job.readout.softmax;
  return body.dump();
}

OfferedKeys RemoteEngine::run(const PlannedCall& call, std::span<ScoringJob* const> jobs) {
  std::vector<ScoreCall> calls;
  std::vector<size_t> sent;  // the call.requests index of each
  for (size_t k = 0; k < call.requests.size(); ++k) {
    const CallRequest& request = call.requests[k];
    if (request.items.size() == 0) continue;  // prefix mode's query alone: the server keeps no keys for us
    const ScoringJob& job = *jobs[static_cast<size_t>(request.job)];
    int64_t tokens = static_cast<int64_t>(job.query.size());
    for (int64_t i = request.items.begin; i < request.items.end; ++i)
      tokens += static_cast<int64_t>(job.items[static_cast<size_t>(i)].size());
    calls.push_back({score_request_body(job, request.items, model_name_), tokens,
                     static_cast<size_t>(request.items.size()), job.readout.label_ids.size()});
    sent.push_back(k);
  }
  std::vector<ItemScores> answers = fleet_->score(std::move(calls));
  for (size_t s = 0; s < sent.size(); ++s) {
    const CallRequest& request = call.requests[sent[s]];
    ScoringJob& job = *jobs[static_cast<size_t>(request.job)];
    for (int64_t i = request.items.begin; i < request.items.end; ++i) {
      std::vector<double>& p = answers[s][static_cast<size_t>(i - request.items.begin)];
      if (job.readout.kind == Readout::Kind::YesProbability) job.result.scores[static_cast<size_t>(i)] = p[0];
      else job.label_scores[static_cast<size_t>(i)] = std::move(p);
    }
  }
  return OfferedKeys(call.requests.size());
}

void RemoteEngine::generate(std::span<ScoringJob* const>, const GenerateSetup&, int64_t) {
  fail("mode generate runs this machine's model; the engines (--engine) score modes mis, independent and prefix");
}

}  // namespace sift::remote
