// Lexing and syntax parsing in two pieces (see parse_split.h).
#include "src/script/syntax/parse_split.h"

#include <atomic>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "pipesplit/support/thread_pool.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {
namespace {

void LexAndParseSerially(const SourceFile& file, int max_depth, SyntaxTree* tree, LexInfo* info) {
  std::vector<Token> tokens = Lex(file, max_depth, info);
  SyntaxParser(file, tokens, max_depth, tree).ParseFile();
}

// The indentation column of the line starting at `line`.
uint32_t SplitColumn(const std::string& text, size_t line) {
  return IndentColumn(text, text.size(), &line);
}

// The number of spaces the line starting at `line` begins with.
size_t LeadingSpaces(const std::string& text, size_t line) {
  size_t p = line;
  while (p < text.size() && text[p] == ' ') ++p;
  return p - line;
}

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

// The tail job and the state the two threads share.
class SplitJob {
 public:
  SplitJob(const SourceFile& file, int max_depth, uint32_t split, uint32_t base)
      : file_(file), max_depth_(max_depth), split_(split), base_(base) {}

  // Chunk 1: runs the tail unless the head claimed it.
  void TailChunk() {
    int unclaimed = 0;
    if (claim_.compare_exchange_strong(unclaimed, 1)) RunTail();
  }

  // Chunk 0: the head. Returns false when it failed (the caller then parses serially).
  bool HeadChunk(SyntaxTree* tree, LexInfo* info) {
    try {
      std::vector<Token> tokens =
          LexWithSplit(file_, max_depth_, info, split_, base_,
                       [this](size_t stack_size) { return AtSplit(stack_size); });
      if (!reached_split_) {  // the guess was wrong: stop the tail job, or keep it from starting
        cancel_.store(true);
        int unclaimed = 0;
        claim_.compare_exchange_strong(unclaimed, 2);
      }
      SyntaxParser parser(file_, tokens, max_depth_, tree);
      parser.set_splice([this]() -> const ParsedTail* {
        parsed_.wait(0);
        if (!parse_ok_) return nullptr;
        spliced_ = true;
        return &tail_parsed_;
      });
      parser.ParseFile();
      return true;
    } catch (...) {
      cancel_.store(true);
      return false;
    }
  }

  bool spliced() const { return spliced_; }
  std::unique_ptr<SyntaxTree> TakeTailTree() { return std::move(tail_tree_); }

 private:
  // The head's lexer reached the split in the state the tail assumed.
  const LexedTail* AtSplit(size_t stack_size) {
    reached_split_ = true;
    int unclaimed = 0;
    if (claim_.compare_exchange_strong(unclaimed, 2)) {
      RunTail();  // no other thread took it: run it here
    } else {
      lexed_.wait(0);
    }
    // The tail counted its indentation levels from its base; the file's stack is deeper.
    if (!lex_ok_ || (tail_lex_.max_stack > 0 &&
                     stack_size + tail_lex_.max_stack - 1 > static_cast<size_t>(max_depth_))) {
      cancel_.store(true);
      return nullptr;
    }
    return &tail_lex_;
  }

  void RunTail() {
    try {
      tail_lex_ = LexTail(file_, split_, base_, max_depth_, &cancel_);
      lex_ok_ = true;
    } catch (...) {
      lex_ok_ = false;
    }
    lexed_.store(1);
    lexed_.notify_all();
    if (lex_ok_ && !cancel_.load()) {
      try {
        tail_tree_ = std::make_unique<SyntaxTree>();
        SyntaxParser parser(file_, tail_lex_.tokens, max_depth_, tail_tree_.get());
        tail_parsed_ = parser.ParseTail(base_);
        parse_ok_ = true;
        // Freed by the thread that made them (the head needs only their end and LexInfo).
        tail_lex_.tokens = std::vector<Token>();
      } catch (...) {
        parse_ok_ = false;
      }
    }
    parsed_.store(1);
    parsed_.notify_all();
  }

  const SourceFile& file_;
  int max_depth_;
  uint32_t split_;
  uint32_t base_;
  std::atomic<int> claim_{0};  // 0: unclaimed, 1: the tail chunk runs it, 2: the head does
  std::atomic<bool> cancel_{false};
  std::atomic<int> lexed_{0};   // tail_lex_ and lex_ok_ are set
  std::atomic<int> parsed_{0};  // tail_parsed_, tail_tree_ and parse_ok_ are set
  LexedTail tail_lex_;
  bool lex_ok_ = false;
  ParsedTail tail_parsed_;
  std::unique_ptr<SyntaxTree> tail_tree_;
  bool parse_ok_ = false;
  bool reached_split_ = false;  // head thread only
  bool spliced_ = false;        // head thread only
};

}  // namespace

int64_t ChooseSplit(const std::string& text, size_t from) {
  if (from >= text.size()) return -1;
  size_t prev = text.rfind('\n', from);
  prev = prev == std::string::npos ? 0 : prev + 1;
  while (true) {
    size_t newline = text.find('\n', prev);
    if (newline == std::string::npos) return -1;
    size_t line = newline + 1;
    size_t indent = LeadingSpaces(text, line);
    size_t prev_indent = LeadingSpaces(text, prev);
    char first = line + indent < text.size() ? text[line + indent] : '\0';
    char prev_first = text[prev + prev_indent];
    size_t prev_last = newline > prev && text[newline - 1] == '\r' ? newline - 1 : newline;
    if (indent == prev_indent && IsNameStart(first) && prev_first != '\n' && prev_first != '\r' &&
        prev_first != '#' && prev_first != '@' && prev_first != '\t' && prev_first != '\f' &&
        prev_last > prev && text[prev_last - 1] != '\\') {
      size_t word_end = line + indent;
      while (word_end < text.size() &&
             (IsNameStart(text[word_end]) || (text[word_end] >= '0' && text[word_end] <= '9'))) {
        ++word_end;
      }
      std::string_view word(text.data() + line + indent, word_end - line - indent);
      if (!IsPythonKeyword(word)) return static_cast<int64_t>(line);
    }
    prev = line;
  }
}

void LexAndParse(const SourceFile& file, int max_depth, int64_t min_split_bytes, SyntaxTree* tree,
                 LexInfo* info, SplitParseStats* stats, int64_t split_at) {
  const std::string& text = file.text();
  int64_t split = -1;
  if (min_split_bytes >= 0 && static_cast<int64_t>(text.size()) >= min_split_bytes) {
    split = split_at >= 0 ? split_at : ChooseSplit(text, text.size() / 2);
  }
  if (split < 0 || split >= static_cast<int64_t>(text.size())) {
    LexAndParseSerially(file, max_depth, tree, info);
    return;
  }
  SplitJob job(file, max_depth, static_cast<uint32_t>(split),
               SplitColumn(text, static_cast<size_t>(split)));
  bool head_ok = false;
  support::CompileParallelFor(2, [&](int64_t chunk) {
    if (chunk == 0) {
      head_ok = job.HeadChunk(tree, info);
    } else {
      job.TailChunk();
    }
  });
  if (!head_ok) {  // a diagnostic or a refused splice: the serial parse decides
    *tree = SyntaxTree();
    *info = LexInfo();
    LexAndParseSerially(file, max_depth, tree, info);
    return;
  }
  if (job.spliced()) tree->Adopt(job.TakeTailTree());
  if (stats != nullptr) stats->split = job.spliced();
}

}  // namespace pipesplit::script
