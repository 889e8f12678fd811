// Printer output: name sanitizing and the rendering of the statement tree (indentation,
// blocks, the empty line after each def).
#include <algorithm>
#include <cctype>

#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {

std::string SanitizeName(std::string_view hint) {
  if (hint.empty()) return "v";
  std::string out(hint);
  for (char& c : out) {
    bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!keep) c = '_';
  }
  return out;
}

namespace {

class Renderer {
 public:
  explicit Renderer(std::string* out, size_t indent = 0) : out_(out), indent_(indent) {}

  void Stmts(const std::vector<StmtDoc>& stmts) {
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (i > 0) NewLine();
      Stmt(stmts[i]);
    }
  }

  void Stmt(const StmtDoc& s) {
    switch (s.kind) {
      case StmtDoc::Kind::kLine:
      case StmtDoc::Kind::kRendered:
        *out_ += s.text;
        break;
      case StmtDoc::Kind::kComment:
        Comment(s.text);
        break;
      case StmtDoc::Kind::kScope:
        *out_ += s.text;
        Block(s.body);
        break;
      case StmtDoc::Kind::kIf:
        *out_ += "if ";
        *out_ += s.text;
        *out_ += ':';
        Block(s.body);
        if (!s.else_body.empty()) {
          NewLine();
          *out_ += "else:";
          Block(s.else_body);
        }
        break;
      case StmtDoc::Kind::kFunction:
        Decorators(s.decorators);
        *out_ += s.text;
        Block(s.body);
        *out_ += '\n';
        break;
      case StmtDoc::Kind::kClass:
        Decorators(s.decorators);
        *out_ += s.text;
        Block(s.body);
        break;
      case StmtDoc::Kind::kVerbatim:
        Verbatim(s.text);
        break;
    }
  }

 private:
  void NewLine() {
    static constexpr std::string_view kSpaces = "                                ";
    *out_ += '\n';
    for (size_t n = indent_; n > 0;) {
      size_t chunk = std::min(n, kSpaces.size());
      out_->append(kSpaces.data(), chunk);
      n -= chunk;
    }
  }

  void Block(const std::vector<StmtDoc>& stmts) {
    indent_ += 4;
    for (const StmtDoc& s : stmts) {
      NewLine();
      Stmt(s);
    }
    if (stmts.empty()) {
      NewLine();
      *out_ += "pass";
    }
    indent_ -= 4;
  }

  void Decorators(const std::vector<std::string>& decorators) {
    for (const std::string& d : decorators) {
      *out_ += '@';
      *out_ += d;
      NewLine();
    }
  }

  void Comment(const std::string& text) {
    // One "# line" per line of the comment; an empty comment prints nothing.
    size_t start = 0;
    bool first = true;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (!first) NewLine();
      first = false;
      *out_ += "# ";
      out_->append(text, start, end - start);
      start = end + 1;
    }
  }

  void Verbatim(const std::string& text) {
    std::vector<std::string_view> lines;
    std::string_view rest(text);
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ' || rest.back() == '\r')) {
      rest.remove_suffix(1);
    }
    while (true) {
      size_t nl = rest.find('\n');
      lines.push_back(rest.substr(0, nl));
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
    auto leading = [](std::string_view line) {
      size_t n = 0;
      while (n < line.size() && line[n] == ' ') ++n;
      return n;
    };
    // The def line's indentation is the text's own member indentation; lines are shifted so
    // that it becomes ours (no-op for text read from a canonical file).
    size_t base = leading(lines[0]);
    for (std::string_view line : lines) {
      size_t n = leading(line);
      if (line.substr(n).substr(0, 4) == "def ") {
        base = n;
        break;
      }
    }
    out_->append(lines[0].substr(leading(lines[0])));
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      *out_ += '\n';
      if (base != indent_ && leading(line) >= base) {
        out_->append(indent_, ' ');
        line.remove_prefix(base);
      }
      out_->append(line);
    }
    *out_ += '\n';
  }

  std::string* out_;
  size_t indent_;
};

}  // namespace

void RenderStmtAt(const StmtDoc& stmt, size_t indent, std::string* out) {
  Renderer(out, indent).Stmt(stmt);
}

void RenderStmts(const std::vector<StmtDoc>& stmts, std::string* out) {
  size_t start = out->size();
  Renderer(out).Stmts(stmts);
  size_t end = out->size();
  while (end > start && std::isspace(static_cast<unsigned char>((*out)[end - 1]))) --end;
  out->resize(end);
}

}  // namespace pipesplit::script::printer
