// UTF-8, PCRE2 regexes and splitting for the tokenizer.json pipeline (hf_regex.h).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "src/serve/text/hf_regex.h"

#include <fmt/format.h>
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <memory>

#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::serve::text {

std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < n && i + k < s.size(); ++k) {
      c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    out.push_back(c);
    i += static_cast<size_t>(n);
  }
  return out;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

namespace {

// The length of the valid UTF-8 sequence at `s[i]`, or the negated length of its longest valid
// beginning (at least 1) when it is not valid.
int Utf8SequenceAt(std::string_view s, size_t i) {
  const unsigned char b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return 1;
  int n;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  for (int k = 1; k < n; ++k) {
    if (i + static_cast<size_t>(k) >= s.size()) return -k;
    const unsigned char c = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
    const unsigned char min = k == 1 ? lo : 0x80;
    const unsigned char max = k == 1 ? hi : 0xBF;
    if (c < min || c > max) return -k;
  }
  return n;
}

}  // namespace

std::string LossyUtf8(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const int n = Utf8SequenceAt(bytes, i);
    if (n > 0) {
      out.append(bytes.substr(i, static_cast<size_t>(n)));
      i += static_cast<size_t>(n);
    } else {
      out += "\xEF\xBF\xBD";
      i += static_cast<size_t>(-n);
    }
  }
  return out;
}

bool IsValidUtf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const int n = Utf8SequenceAt(bytes, i);
    if (n < 0) return false;
    i += static_cast<size_t>(n);
  }
  return true;
}

Regex::Regex(const std::string& pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &offset, nullptr);
  if (code == nullptr) {
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(error, message.data(), message.size());
    throw runtime::RuntimeError(fmt::format("the regex '{}' does not compile at offset {}: {}",
                                            pattern, offset,
                                            reinterpret_cast<const char*>(message.data())));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // an interpreted match where JIT is missing
  code_ =
      std::shared_ptr<void>(code, [](void* c) { pcre2_code_free(static_cast<pcre2_code*>(c)); });
}

std::vector<std::pair<size_t, size_t>> Regex::FindAll(std::string_view s) const {
  std::vector<std::pair<size_t, size_t>> matches;
  auto* code = static_cast<pcre2_code*>(code_.get());
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  size_t at = 0;
  while (at <= s.size()) {
    const int rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), at,
                               PCRE2_NO_UTF_CHECK, data.get(), nullptr);
    if (rc < 0) break;
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    const size_t begin = ovector[0], end = ovector[1];
    if (end > begin) {
      matches.emplace_back(begin, end);
      at = end;
    } else {  // an empty match: go on after the next character
      if (begin >= s.size()) break;
      at = begin + 1;
      while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) ++at;
    }
  }
  return matches;
}

bool Regex::Search(std::string_view s) const {
  auto* code = static_cast<pcre2_code*>(code_.get());
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, PCRE2_NO_UTF_CHECK,
                     data.get(), nullptr) >= 0;
}

std::string EscapeRegex(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> SplitAt(std::string_view s,
                                 const std::vector<std::pair<size_t, size_t>>& matches,
                                 SplitBehavior behavior, bool invert) {
  // The whole text in order as (begin, end, is_delimiter) parts.
  struct Part {
    size_t begin, end;
    bool delimiter;
  };
  std::vector<Part> parts;
  size_t at = 0;
  for (const auto& [begin, end] : matches) {
    if (at < begin) parts.push_back({at, begin, invert});
    parts.push_back({begin, end, !invert});
    at = end;
  }
  if (at < s.size()) parts.push_back({at, s.size(), invert});
  // The pieces (begin, end), as the library folds the parts for each behavior.
  std::vector<std::pair<size_t, size_t>> pieces;
  bool previous = false;
  switch (behavior) {
    case SplitBehavior::kIsolated:
    case SplitBehavior::kRemoved:
      for (const Part& p : parts) {
        if (!(behavior == SplitBehavior::kRemoved && p.delimiter))
          pieces.emplace_back(p.begin, p.end);
      }
      break;
    case SplitBehavior::kContiguous:
    case SplitBehavior::kMergedWithPrevious:
      for (const Part& p : parts) {
        // Contiguous joins runs of parts of one kind; MergedWithPrevious a delimiter to the
        // text before it.
        const bool join = behavior == SplitBehavior::kContiguous ? p.delimiter == previous
                                                                 : p.delimiter && !previous;
        if (join && !pieces.empty()) {
          pieces.back().second = p.end;
        } else {
          pieces.emplace_back(p.begin, p.end);
        }
        previous = p.delimiter;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->delimiter && !previous && !pieces.empty()) {
          pieces.back().first = it->begin;
        } else {
          pieces.emplace_back(it->begin, it->end);
        }
        previous = it->delimiter;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
  }
  std::vector<std::string> out;
  for (const auto& [begin, end] : pieces) {
    if (end > begin) out.emplace_back(s.substr(begin, end - begin));
  }
  return out;
}

}  // namespace pipesplit::serve::text
