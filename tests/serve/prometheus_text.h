#pragma once
// Reading the Prometheus text format (version 0.0.4) that serve/metrics.h renders, for the
// tests: a sample's value by its name and labels as written, and every histogram series with
// its buckets in page order.
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sift::serve::testing {

// The value of the sample line `name_with_labels value`, e.g. `sift_dropped_total{reason="deadline"}`.
inline std::optional<double> sample(const std::string& text, const std::string& name_with_labels) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.size() > name_with_labels.size() && line.compare(0, name_with_labels.size(), name_with_labels) == 0 &&
        line[name_with_labels.size()] == ' ')
      return std::stod(line.substr(name_with_labels.size() + 1));
  return std::nullopt;
}

struct HistogramSeries {
  std::vector<std::pair<std::string, double>> buckets;  // (le as written, count), in page order
  std::optional<double> count, sum;
};

// Every histogram series of the page, keyed "name{other labels}" (the le label taken out).
inline std::map<std::string, HistogramSeries> histograms(const std::string& text) {
  std::map<std::string, HistogramSeries> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    const std::string key = line.substr(0, space);
    const double value = std::stod(line.substr(space + 1));
    const size_t brace = key.find('{');
    const std::string name = key.substr(0, brace);
    std::string labels = brace == std::string::npos ? "" : key.substr(brace + 1, key.size() - brace - 2);
    const auto series_of = [&](const std::string& suffix) {
      return name.substr(0, name.size() - suffix.size());
    };
    if (name.ends_with("_bucket")) {
      const size_t le = labels.find("le=\"");
      const size_t le_end = labels.find('"', le + 4);
      const std::string bound = labels.substr(le + 4, le_end - le - 4);
      std::string rest = labels.substr(0, le) + labels.substr(le_end + 1);
      if (!rest.empty() && rest.back() == ',') rest.pop_back();
      out[series_of("_bucket") + "{" + rest + "}"].buckets.emplace_back(bound, value);
    } else if (name.ends_with("_count")) {
      out[series_of("_count") + "{" + labels + "}"].count = value;
    } else if (name.ends_with("_sum")) {
      out[series_of("_sum") + "{" + labels + "}"].sum = value;
    }
  }
  // Counters named *_count or *_sum without buckets are not histograms.
  for (auto it = out.begin(); it != out.end();) it = it->second.buckets.empty() ? out.erase(it) : std::next(it);
  return out;
}

}  // namespace sift::serve::testing
