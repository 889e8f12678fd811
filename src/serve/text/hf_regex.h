// UTF-8 helpers, PCRE2 regexes and the library's ways of splitting at matches, for the
// tokenizer.json pipeline (hf_components.h).
#ifndef PIPESPLIT_SRC_SERVE_TEXT_HF_REGEX_H_
#define PIPESPLIT_SRC_SERVE_TEXT_HF_REGEX_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipesplit::serve::text {

// The code points of valid UTF-8 `s` (tokenizer inputs are valid UTF-8: JSON strings are).
std::vector<char32_t> CodePoints(std::string_view s);
void AppendUtf8(char32_t c, std::string& out);
// `bytes` as UTF-8, each maximal invalid part replaced by U+FFFD (Rust's from_utf8_lossy).
std::string LossyUtf8(std::string_view bytes);
bool IsValidUtf8(std::string_view bytes);

// A regex of PCRE2 with UTF and Unicode properties; RuntimeError with PCRE2's message.
class Regex {
 public:
  explicit Regex(const std::string& pattern);
  // The byte ranges of the successive matches in `s` (an empty match advances one character).
  std::vector<std::pair<size_t, size_t>> FindAll(std::string_view s) const;
  // Whether the pattern matches somewhere in `s`.
  bool Search(std::string_view s) const;

 private:
  std::shared_ptr<void> code_;  // pcre2_code
};
// `s` with PCRE2's special characters escaped.
std::string EscapeRegex(std::string_view s);

// How the matches of a pattern cut a piece (tokenizers' SplitDelimiterBehavior).
enum class SplitBehavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };
// The non-empty pieces of `s` cut at `matches` (sorted, disjoint byte ranges) by `behavior`;
// with `invert`, the matches are the pieces and the text between them the delimiters.
std::vector<std::string> SplitAt(std::string_view s,
                                 const std::vector<std::pair<size_t, size_t>>& matches,
                                 SplitBehavior behavior, bool invert);

}  // namespace pipesplit::serve::text

#endif  // PIPESPLIT_SRC_SERVE_TEXT_HF_REGEX_H_
