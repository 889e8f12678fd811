// Tokenizer for the Python subset TVMScript is written in (see lexer.h).
#include "src/script/syntax/lexer.h"

#include <algorithm>
#include <cstdio>

#include "pipesplit/support/diagnostic.h"

namespace pipesplit::script {
namespace {

// Character classes of the ASCII range (bit 1: identifier start, bit 2: identifier char).
struct CharClasses {
  uint8_t bits[256] = {};
  constexpr CharClasses() {
    for (int c = 'a'; c <= 'z'; ++c) bits[c] = 3;
    for (int c = 'A'; c <= 'Z'; ++c) bits[c] = 3;
    bits[static_cast<int>('_')] = 3;
    for (int c = '0'; c <= '9'; ++c) bits[c] = 2;
  }
};
constexpr CharClasses kCharClasses;

bool IsIdentStart(char c) { return kCharClasses.bits[static_cast<unsigned char>(c)] & 1; }
bool IsIdentChar(char c) { return kCharClasses.bits[static_cast<unsigned char>(c)] & 2; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Length of the valid UTF-8 sequence starting at text[pos] (a non-ASCII lead byte), or 0.
size_t Utf8SequenceLength(const std::string& text, size_t pos) {
  auto byte = [&](size_t i) -> unsigned {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u;
  };
  unsigned c = byte(pos);
  size_t len;
  unsigned min_code;
  unsigned code;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, min_code = 0x80, code = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, min_code = 0x800, code = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, min_code = 0x10000, code = c & 0x07;
  } else {
    return 0;
  }
  for (size_t i = 1; i < len; ++i) {
    unsigned cc = byte(pos + i);
    if ((cc & 0xC0) != 0x80) return 0;
    code = (code << 6) | (cc & 0x3F);
  }
  if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return len;
}

std::string HexByte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", c);
  return buf;
}

struct PunctEntry {
  const char* text;
  Punct punct;
};

// Longest spellings first so that the first match is the longest one.
constexpr PunctEntry kPuncts[] = {
    {"**=", Punct::kAugAssign},  {"//=", Punct::kAugAssign}, {">>=", Punct::kAugAssign},
    {"<<=", Punct::kAugAssign},  {"...", Punct::kEllipsis},  {"->", Punct::kArrow},
    {":=", Punct::kWalrus},      {"==", Punct::kEqEq},       {"!=", Punct::kNotEq},
    {"<=", Punct::kLessEq},      {">=", Punct::kGreaterEq},  {"**", Punct::kDoubleStar},
    {"//", Punct::kDoubleSlash}, {"<<", Punct::kLShift},     {">>", Punct::kRShift},
    {"+=", Punct::kAugAssign},   {"-=", Punct::kAugAssign},  {"*=", Punct::kAugAssign},
    {"/=", Punct::kAugAssign},   {"%=", Punct::kAugAssign},  {"&=", Punct::kAugAssign},
    {"|=", Punct::kAugAssign},   {"^=", Punct::kAugAssign},  {"@=", Punct::kAugAssign},
    {"(", Punct::kLParen},       {")", Punct::kRParen},      {"[", Punct::kLBracket},
    {"]", Punct::kRBracket},     {"{", Punct::kLBrace},      {"}", Punct::kRBrace},
    {",", Punct::kComma},        {":", Punct::kColon},       {".", Punct::kDot},
    {";", Punct::kSemicolon},    {"@", Punct::kAt},          {"=", Punct::kAssign},
    {"+", Punct::kPlus},         {"-", Punct::kMinus},       {"*", Punct::kStar},
    {"/", Punct::kSlash},        {"%", Punct::kPercent},     {"<", Punct::kLess},
    {">", Punct::kGreater},      {"~", Punct::kTilde},       {"&", Punct::kAmp},
    {"|", Punct::kPipe},         {"^", Punct::kCaret},
};

Punct ClosingOf(Punct open) {
  switch (open) {
    case Punct::kLParen:
      return Punct::kRParen;
    case Punct::kLBracket:
      return Punct::kRBracket;
    default:
      return Punct::kRBrace;
  }
}

class Lexer {
 public:
  Lexer(const SourceFile& file, int max_depth, LexInfo* info, uint32_t begin, uint32_t end,
        bool expression_mode)
      : file_(file),
        text_(file.text()),
        end_(std::min<size_t>(end, file.text().size())),
        max_depth_(max_depth),
        info_(info),
        pos_(begin),
        at_line_start_(!expression_mode) {}

  // Makes this lexer the second piece of a split (LexTail).
  void SetTail(uint32_t base, const std::atomic<bool>* cancel) {
    tail_mode_ = true;
    base_ = base;
    cancel_ = cancel;
  }
  // Makes this lexer the first piece of a split (LexWithSplit).
  void SetSplit(uint32_t split, uint32_t base,
                const std::function<const LexedTail*(size_t)>* at_split) {
    split_ = split;
    base_ = base;
    at_split_ = at_split;
  }
  uint32_t stop() const { return stop_; }
  size_t max_stack() const { return max_stack_; }

  std::vector<Token> Run() {
    tokens_.reserve((end_ - pos_) / 3 + 16);
    indents_.push_back(tail_mode_ ? base_ : 0);
    while (true) {
      if (at_line_start_ && brackets_.empty()) {
        if (!StartLine()) break;
      }
      if (pos_ >= end_) break;
      char c = text_[pos_];
      if (c == ' ') {
        while (++pos_ < end_ && text_[pos_] == ' ') {
        }
      } else if (c == '\t' || c == '\f' || c == '\r') {
        ++pos_;
      } else if (IsIdentStart(c)) {  // the commonest token first
        LexNameOrPrefixedString();
      } else if (c == '\n') {
        if (brackets_.empty()) {
          Emit(TokenKind::kNewline, Punct::kNone, pos_, pos_ + 1);
          at_line_start_ = true;
        }
        ++pos_;
      } else if (c == '#') {
        SkipComment();
      } else if (c == '\\') {
        LineContinuation();
      } else if (c == '"' || c == '\'') {
        LexString(pos_, pos_);
      } else if (IsDigit(c) || (c == '.' && pos_ + 1 < end_ && IsDigit(text_[pos_ + 1]))) {
        LexNumber();
      } else {
        LexPunct();
      }
    }
    if (stopped_) return std::move(tokens_);
    if (!brackets_.empty()) {
      const OpenBracket& open = brackets_.back();
      Error(open.pos, open.pos + 1,
            std::string("'") + PunctSpelling(open.punct) + "' was never closed");
    }
    uint32_t eof = static_cast<uint32_t>(end_);
    stop_ = eof;
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
        tokens_.back().kind != TokenKind::kDedent && tokens_.back().kind != TokenKind::kSplice) {
      Emit(TokenKind::kNewline, Punct::kNone, eof, eof);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      Emit(TokenKind::kDedent, Punct::kNone, eof, eof);
    }
    Emit(TokenKind::kEnd, Punct::kNone, eof, eof);
    return std::move(tokens_);
  }

 private:
  struct OpenBracket {
    Punct punct;
    uint32_t pos;
  };

  [[noreturn]] void Error(size_t begin, size_t end, std::string message) {
    begin = std::min(begin, text_.size());
    end = std::clamp(end, begin, text_.size());
    ThrowError(Span{file_.id(), static_cast<uint32_t>(begin), static_cast<uint32_t>(end)},
               std::move(message));
  }

  void Emit(TokenKind kind, Punct punct, size_t begin, size_t end) {
    tokens_.push_back(Token{kind, punct, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
  }

  // Handles indentation at the start of a logical line. Returns false at end of file.
  bool StartLine() {
    while (true) {
      size_t line_begin = pos_;
      size_t p = pos_;
      const uint32_t col = IndentColumn(text_, end_, &p);
      pos_ = p;
      if (p >= end_) return false;
      char c = text_[p];
      if (c == '#') {
        SkipComment();
        continue;
      }
      if (c == '\r' || c == '\n') {
        ++pos_;
        continue;
      }
      if (tail_mode_) {
        if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) throw SplitAbandoned{};
        if (col < base_) {  // the piece ends: close the levels it opened
          while (indents_.size() > 1) {
            indents_.pop_back();
            Emit(TokenKind::kDedent, Punct::kNone, p, p);
          }
          Emit(TokenKind::kEnd, Punct::kNone, p, p);
          stop_ = static_cast<uint32_t>(line_begin);
          stopped_ = true;
          return false;
        }
      } else if (line_begin == split_) {
        split_ = kNoSplit;
        const LexedTail* tail = nullptr;
        if (col == base_ && col == indents_.back()) tail = (*at_split_)(indents_.size());
        if (tail != nullptr) {
          Emit(TokenKind::kSplice, Punct::kNone, line_begin, tail->stop);
          info_->metadata_omitted_comment |= tail->info.metadata_omitted_comment;
          info_->legacy_tir_header |= tail->info.legacy_tir_header;
          info_->current_spelling_names |= tail->info.current_spelling_names;
          pos_ = tail->stop;
          continue;
        }
      }
      if (col > indents_.back()) {
        if (tail_mode_) {  // the limit counts the levels below the base (LexWithSplit)
          max_stack_ = std::max(max_stack_, indents_.size());
        } else if (static_cast<int>(indents_.size()) > max_depth_) {
          Error(
              p, p + 1,
              "indentation is nested too deeply (limit " + std::to_string(max_depth_) + " levels)");
        }
        indents_.push_back(col);
        Emit(TokenKind::kIndent, Punct::kNone, p, p);
      } else {
        while (col < indents_.back()) {
          indents_.pop_back();
          Emit(TokenKind::kDedent, Punct::kNone, p, p);
        }
        if (col != indents_.back()) Error(p, p + 1, "mismatched indentation");
      }
      at_line_start_ = false;
      return true;
    }
  }

  void SkipComment() {
    size_t start = pos_;
    size_t p = pos_;
    while (p < end_ && text_[p] != '\n') {
      if (static_cast<unsigned char>(text_[p]) >= 0x80) {
        size_t len = Utf8SequenceLength(text_, p);
        if (len == 0) Error(p, p + 1, "invalid utf-8 byte " + HexByte(text_[p]));
        p += len;
      } else {
        ++p;
      }
    }
    std::string_view comment(text_.data() + start, p - start);
    if (comment.substr(0, 18) == "# Metadata omitted") info_->metadata_omitted_comment = true;
    while (!comment.empty() && (comment.back() == '\r' || comment.back() == ' ')) {
      comment.remove_suffix(1);
    }
    if (comment == "# from tvm.script import tir as T") info_->legacy_tir_header = true;
    pos_ = p;
  }

  void LineContinuation() {
    size_t p = pos_ + 1;
    if (p < end_ && text_[p] == '\r') ++p;
    if (p < end_ && text_[p] == '\n') {
      pos_ = p + 1;
      return;
    }
    if (p >= end_) Error(pos_, pos_ + 1, "unexpected end of file after line continuation");
    Error(pos_, pos_ + 1, "unexpected character after line continuation");
  }

  // Lexes a string literal whose prefix starts at `begin` and whose quote is at `quote_pos`.
  void LexString(size_t begin, size_t quote_pos) {
    char quote = text_[quote_pos];
    bool triple =
        quote_pos + 2 < end_ && text_[quote_pos + 1] == quote && text_[quote_pos + 2] == quote;
    size_t p = quote_pos + (triple ? 3 : 1);
    while (true) {
      if (p >= end_) {
        Error(begin, begin + 1,
              triple ? "unterminated triple-quoted string" : "unterminated string");
      }
      char c = text_[p];
      if (c == '\\') {
        p += 2;
        continue;
      }
      if (c == quote) {
        if (!triple) {
          ++p;
          break;
        }
        if (p + 2 < end_ && text_[p + 1] == quote && text_[p + 2] == quote) {
          p += 3;
          break;
        }
        ++p;
        continue;
      }
      if (c == '\n' && !triple) Error(begin, begin + 1, "unterminated string");
      if (static_cast<unsigned char>(c) >= 0x80) {
        size_t len = Utf8SequenceLength(text_, p);
        if (len == 0) Error(p, p + 1, "invalid utf-8 byte " + HexByte(c) + " in string");
        p += len;
        continue;
      }
      ++p;
    }
    if (p > end_) Error(begin, begin + 1, "unterminated string");
    Emit(TokenKind::kString, Punct::kNone, begin, p);
    pos_ = p;
  }

  void LexNumber() {
    size_t begin = pos_;
    size_t p = pos_;
    if (text_[p] == '0' && p + 1 < end_ &&
        (text_[p + 1] == 'x' || text_[p + 1] == 'X' || text_[p + 1] == 'o' || text_[p + 1] == 'O' ||
         text_[p + 1] == 'b' || text_[p + 1] == 'B')) {
      p += 2;
      while (p < end_ && IsIdentChar(text_[p])) ++p;
    } else {
      while (p < end_ && (IsDigit(text_[p]) || text_[p] == '_')) ++p;
      if (p < end_ && text_[p] == '.') {
        ++p;
        while (p < end_ && (IsDigit(text_[p]) || text_[p] == '_')) ++p;
      }
      if (p < end_ && (text_[p] == 'e' || text_[p] == 'E')) {
        size_t q = p + 1;
        if (q < end_ && (text_[q] == '+' || text_[q] == '-')) ++q;
        if (q < end_ && IsDigit(text_[q])) {
          p = q;
          while (p < end_ && (IsDigit(text_[p]) || text_[p] == '_')) ++p;
        }
      }
      if (p < end_ && (text_[p] == 'j' || text_[p] == 'J')) ++p;
      if (p < end_ && IsIdentChar(text_[p])) {
        while (p < end_ && IsIdentChar(text_[p])) ++p;
        Error(begin, p, "invalid number literal '" + text_.substr(begin, p - begin) + "'");
      }
    }
    Emit(TokenKind::kNumber, Punct::kNone, begin, p);
    pos_ = p;
  }

  void LexNameOrPrefixedString() {
    size_t begin = pos_;
    size_t p = pos_;
    while (p < end_ && IsIdentChar(text_[p])) ++p;
    if (p < end_ && (text_[p] == '"' || text_[p] == '\'') && p - begin <= 2) {
      std::string prefix = text_.substr(begin, p - begin);
      for (char& ch : prefix) ch = static_cast<char>(ch | 0x20);
      if (prefix == "r" || prefix == "b" || prefix == "u" || prefix == "f" || prefix == "rb" ||
          prefix == "br" || prefix == "fr" || prefix == "rf") {
        LexString(begin, p);
        return;
      }
    }
    size_t size = p - begin;
    if ((size == 3 || size == 6 || size == 7) && !info_->current_spelling_names) {
      std::string_view name(text_.data() + begin, size);
      info_->current_spelling_names = name == "Any" || name == "out_ty" || name == "ty_args";
    }
    Emit(TokenKind::kName, Punct::kNone, begin, p);
    pos_ = p;
  }

  // The punctuation token at text_[p]: its kind and length (0 when there is none).
  std::pair<Punct, size_t> MatchPunct(size_t p) const {
    char c = text_[p];
    char c1 = p + 1 < end_ ? text_[p + 1] : '\0';
    char c2 = p + 2 < end_ ? text_[p + 2] : '\0';
    switch (c) {
      case '(':
        return {Punct::kLParen, 1};
      case ')':
        return {Punct::kRParen, 1};
      case '[':
        return {Punct::kLBracket, 1};
      case ']':
        return {Punct::kRBracket, 1};
      case '{':
        return {Punct::kLBrace, 1};
      case '}':
        return {Punct::kRBrace, 1};
      case ',':
        return {Punct::kComma, 1};
      case ';':
        return {Punct::kSemicolon, 1};
      case '~':
        return {Punct::kTilde, 1};
      case ':':
        return c1 == '=' ? std::pair{Punct::kWalrus, size_t{2}}
                         : std::pair{Punct::kColon, size_t{1}};
      case '.':
        if (c1 == '.' && c2 == '.') return {Punct::kEllipsis, 3};
        return {Punct::kDot, 1};
      case '=':
        return c1 == '=' ? std::pair{Punct::kEqEq, size_t{2}}
                         : std::pair{Punct::kAssign, size_t{1}};
      case '!':
        if (c1 == '=') return {Punct::kNotEq, 2};
        return {Punct::kNone, 0};
      case '-':
        if (c1 == '>') return {Punct::kArrow, 2};
        if (c1 == '=') return {Punct::kAugAssign, 2};
        return {Punct::kMinus, 1};
      case '*':
        if (c1 == '*')
          return c2 == '=' ? std::pair{Punct::kAugAssign, size_t{3}}
                           : std::pair{Punct::kDoubleStar, size_t{2}};
        if (c1 == '=') return {Punct::kAugAssign, 2};
        return {Punct::kStar, 1};
      case '/':
        if (c1 == '/')
          return c2 == '=' ? std::pair{Punct::kAugAssign, size_t{3}}
                           : std::pair{Punct::kDoubleSlash, size_t{2}};
        if (c1 == '=') return {Punct::kAugAssign, 2};
        return {Punct::kSlash, 1};
      case '<':
        if (c1 == '<')
          return c2 == '=' ? std::pair{Punct::kAugAssign, size_t{3}}
                           : std::pair{Punct::kLShift, size_t{2}};
        if (c1 == '=') return {Punct::kLessEq, 2};
        return {Punct::kLess, 1};
      case '>':
        if (c1 == '>')
          return c2 == '=' ? std::pair{Punct::kAugAssign, size_t{3}}
                           : std::pair{Punct::kRShift, size_t{2}};
        if (c1 == '=') return {Punct::kGreaterEq, 2};
        return {Punct::kGreater, 1};
      case '+':
      case '%':
      case '&':
      case '|':
      case '^':
      case '@': {
        if (c1 == '=') return {Punct::kAugAssign, 2};
        Punct single = c == '+'   ? Punct::kPlus
                       : c == '%' ? Punct::kPercent
                       : c == '&' ? Punct::kAmp
                       : c == '|' ? Punct::kPipe
                       : c == '^' ? Punct::kCaret
                                  : Punct::kAt;
        return {single, 1};
      }
      default:
        return {Punct::kNone, 0};
    }
  }

  void LexPunct() {
    size_t p = pos_;
    unsigned char c = static_cast<unsigned char>(text_[p]);
    auto [punct, len] = MatchPunct(p);
    if (len > 0) {
      size_t end = p + len;
      if (punct == Punct::kLParen || punct == Punct::kLBracket || punct == Punct::kLBrace) {
        if (static_cast<int>(brackets_.size()) >= max_depth_) {
          Error(p, end,
                "brackets are nested too deeply (limit " + std::to_string(max_depth_) + " levels)");
        }
        brackets_.push_back({punct, static_cast<uint32_t>(p)});
      } else if (punct == Punct::kRParen || punct == Punct::kRBracket || punct == Punct::kRBrace) {
        if (brackets_.empty()) {
          Error(p, end, std::string("unmatched '") + PunctSpelling(punct) + "'");
        }
        if (ClosingOf(brackets_.back().punct) != punct) {
          Error(p, end,
                std::string("closing '") + PunctSpelling(punct) + "' does not match opening '" +
                    PunctSpelling(brackets_.back().punct) + "'");
        }
        brackets_.pop_back();
      }
      Emit(TokenKind::kPunct, punct, p, end);
      pos_ = end;
      return;
    }
    if (c >= 0x80) {
      size_t len8 = Utf8SequenceLength(text_, p);
      if (len8 == 0) Error(p, p + 1, "invalid utf-8 byte " + HexByte(c));
      Error(p, p + len8, "unexpected character '" + text_.substr(p, len8) + "'");
    }
    if (c < 0x20 || c == 0x7f) Error(p, p + 1, "unexpected byte " + HexByte(c));
    Error(p, p + 1, std::string("unexpected character '") + static_cast<char>(c) + "'");
  }

  static constexpr size_t kNoSplit = ~size_t{0};

  const SourceFile& file_;
  const std::string& text_;
  size_t end_;  // lexing stops here (the file end, or the end of a string's content)
  int max_depth_;
  LexInfo* info_;
  size_t pos_;
  bool at_line_start_;
  std::vector<uint32_t> indents_;
  std::vector<OpenBracket> brackets_;
  std::vector<Token> tokens_;
  // Split lexing: the first piece stops once at split_; the second (tail_mode_) starts with
  // base_ as its indentation stack and stops at stop_.
  bool tail_mode_ = false;
  uint32_t base_ = 0;
  size_t split_ = kNoSplit;
  const std::function<const LexedTail*(size_t)>* at_split_ = nullptr;
  const std::atomic<bool>* cancel_ = nullptr;
  bool stopped_ = false;
  uint32_t stop_ = 0;
  size_t max_stack_ = 0;
};

}  // namespace

std::vector<Token> Lex(const SourceFile& file, int max_depth, LexInfo* info) {
  return Lexer(file, max_depth, info, 0, static_cast<uint32_t>(file.text().size()), false).Run();
}

LexedTail LexTail(const SourceFile& file, uint32_t begin, uint32_t base, int max_depth,
                  const std::atomic<bool>* cancel) {
  LexedTail tail;
  Lexer lexer(file, max_depth, &tail.info, begin, static_cast<uint32_t>(file.text().size()), false);
  lexer.SetTail(base, cancel);
  tail.tokens = lexer.Run();
  tail.stop = lexer.stop();
  tail.max_stack = lexer.max_stack();
  return tail;
}

std::vector<Token> LexWithSplit(const SourceFile& file, int max_depth, LexInfo* info,
                                uint32_t split, uint32_t base,
                                const std::function<const LexedTail*(size_t)>& at_split) {
  Lexer lexer(file, max_depth, info, 0, static_cast<uint32_t>(file.text().size()), false);
  lexer.SetSplit(split, base, &at_split);
  return lexer.Run();
}

std::vector<Token> LexExpression(const SourceFile& file, uint32_t begin, uint32_t end,
                                 int max_depth) {
  LexInfo info;
  return Lexer(file, max_depth, &info, begin, end, true).Run();
}

const char* PunctSpelling(Punct punct) {
  for (const PunctEntry& entry : kPuncts) {
    if (entry.punct == punct && punct != Punct::kAugAssign) return entry.text;
  }
  return punct == Punct::kAugAssign ? "augmented assignment" : "?";
}

std::string DescribeToken(const SourceFile& file, const Token& token) {
  switch (token.kind) {
    case TokenKind::kName:
    case TokenKind::kNumber: {
      std::string_view text =
          std::string_view(file.text()).substr(token.begin, token.end - token.begin);
      if (text.size() > 40) return "'" + std::string(text.substr(0, 40)) + "...'";
      return "'" + std::string(text) + "'";
    }
    case TokenKind::kString:
      return "string";
    case TokenKind::kPunct:
      if (token.punct == Punct::kAugAssign) {
        return "'" + file.text().substr(token.begin, token.end - token.begin) + "'";
      }
      return std::string("'") + PunctSpelling(token.punct) + "'";
    case TokenKind::kNewline:
      return "newline";
    case TokenKind::kIndent:
      return "indent";
    case TokenKind::kDedent:
      return "dedent";
    case TokenKind::kEnd:
      return "end of file";
    case TokenKind::kSplice:
      return "lines parsed apart";
  }
  return "token";
}

}  // namespace pipesplit::script
