#include "tokenizer/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>

#include "core/error.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof(buffer));
  return reinterpret_cast<const char*>(buffer);
}

// Per-thread match data and JIT stack (long whitespace runs need more than the default).
struct MatchScratch {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_jit_stack* jit_stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  MatchScratch() { pcre2_jit_stack_assign(context, nullptr, jit_stack); }
  ~MatchScratch() {
    pcre2_match_context_free(context);
    pcre2_jit_stack_free(jit_stack);
    pcre2_match_data_free(data);
  }
};

MatchScratch& scratch() {
  thread_local MatchScratch instance;
  return instance;
}

// Oniguruma's \s is the White_Space property; PCRE2's (with UCP) also matches U+180E.
// Oniguruma's \w is Alphabetic (letters, Nl, and the Other_Alphabetic marks and circled
// letters), marks, Nd and Pc, plus the Latin-1 digits-like ²³¹¼½¾ of its
// 8-bit table; PCRE2's is \p{L}, \p{N} and '_'. The shorthands are spelled out as
// Oniguruma means them, inside and outside classes. \S and \W inside a class have no such
// spelling and keep PCRE2's meaning.
constexpr std::string_view kOnigSpace = R"(\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";
constexpr std::string_view kOnigWord =
    R"(\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{B2}\x{B3}\x{B9}\x{BC}-\x{BE}\x{24B6}-\x{24E9}\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189})";

std::string with_oniguruma_shorthands(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char escaped = pattern[++i];
      const std::string_view members = escaped == 's' || escaped == 'S' ? kOnigSpace
                                       : escaped == 'w' || escaped == 'W' ? kOnigWord
                                                                         : std::string_view();
      if (members.empty() || (in_class && (escaped == 'S' || escaped == 'W'))) {
        out += c;
        out += escaped;
      } else if (in_class) {
        out += members;
      } else {
        out += (escaped == 's' || escaped == 'w') ? "[" : "[^";
        out += members;
        out += "]";
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];  // a leading ] is literal
      continue;
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

}  // namespace

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

Regex::Regex(std::string_view pattern, const std::string& where) : compiled_(std::make_unique<Compiled>()) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  const std::string translated = with_oniguruma_shorthands(pattern);
  compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                  PCRE2_UTF | PCRE2_UCP, &error_code, &error_offset, nullptr);
  if (!compiled_->code) {
    fail("{}: invalid regex {:?} at offset {}: {}", where, std::string(pattern), error_offset,
         pcre2_message(error_code));
  }
  pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter if JIT is unavailable
}

Regex::~Regex() = default;

void Regex::find_all(std::string_view text, std::vector<ByteRange>& matches) const {
  MatchScratch& s = scratch();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t search_from = 0;
  bool have_previous = false;
  size_t previous_end = 0;
  while (search_from <= text.size()) {
    const int rc = pcre2_match(compiled_->code, subject, text.size(), search_from, PCRE2_NO_UTF_CHECK, s.data,
                               s.context);
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) fail("regex match failed: {}", pcre2_message(rc));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(s.data);
    const size_t start = ovector[0], end = ovector[1];
    if (start == end && have_previous && previous_end == end) {
      // onig find_iter: no empty match right after the previous match; step one character.
      if (search_from >= text.size()) return;
      search_from += std::max<size_t>(1, utf8::sequence_length(text, search_from));
      continue;
    }
    matches.emplace_back(start, end);
    have_previous = true;
    previous_end = end;
    search_from = end;
  }
}

}  // namespace sift
