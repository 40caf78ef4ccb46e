#pragma once
// The parameters of a URL's query string, or of a form body (application/x-www-form-urlencoded):
// "a=1&b=x%20y" -> {a: "1", b: "x y"}. '+' is a space; %XX is a byte. A parameter given twice,
// a malformed escape, a name outside `allowed`, or a value that is not valid UTF-8 is a
// serve::BadRequest naming it (the server answers 400 with its message).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sift::review {

class QueryParams {
 public:
  // `text`: what follows '?' in a target (no '?'), or a form body.
  QueryParams(std::string_view text, const std::vector<std::string_view>& allowed);

  std::optional<std::string> text(std::string_view name, size_t max_bytes) const;
  // An integer in [min, max]; nullopt when absent.
  std::optional<int64_t> integer(std::string_view name, int64_t min, int64_t max) const;
  // A finite number in [min, max]; nullopt when absent.
  std::optional<double> number(std::string_view name, double min, double max) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

// The path of a request target (before '?' or '#') and its query string (after '?').
std::string_view target_path(std::string_view target);
std::string_view target_query(std::string_view target);

}  // namespace sift::review
