#include "pipesplit/support/source.h"

#include <algorithm>
#include <cstring>

#include "pipesplit/support/check.h"

namespace pipesplit {

SourceFile::SourceFile(uint32_t id, std::string name, std::string text)
    : id_(id), name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  const char* begin = text_.data();
  const char* end = begin + text_.size();
  for (const char* p = begin; (p = static_cast<const char*>(std::memchr(p, '\n', end - p)));) {
    ++p;
    line_starts_.push_back(static_cast<uint32_t>(p - begin));
  }
}

void SourceFile::SetByte(uint32_t offset, char c) {
  PS_CHECK(offset < text_.size() && text_[offset] != '\n' && c != '\n')
      << "SetByte at " << offset << " of " << name_;
  text_[offset] = c;
}

LineCol SourceFile::Locate(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());  // 1-based
  return {line, offset - line_starts_[line - 1] + 1};
}

uint32_t SourceFile::OffsetOf(LineCol pos) const {
  PS_CHECK(pos.line >= 1 && pos.line <= line_starts_.size()) << "line " << pos.line;
  return line_starts_[pos.line - 1] + pos.col - 1;
}

std::string_view SourceFile::Line(uint32_t line) const {
  if (line < 1 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end =
      line < line_starts_.size() ? line_starts_[line] - 1 : static_cast<uint32_t>(text_.size());
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

Span Span::Merge(Span a, Span b) {
  if (!a.valid()) return b;
  if (!b.valid() || a.file != b.file) return a;
  return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

SourceManager& SourceManager::Global() {
  static SourceManager* instance = new SourceManager();  // never destroyed: spans outlive exit
  return *instance;
}

const SourceFile& SourceManager::Add(std::string name, std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t id = static_cast<uint32_t>(files_.size() + 1);
  return files_.emplace_back(id, std::move(name), std::move(text));
}

void SourceManager::ResetForFuzzing() {
  std::lock_guard<std::mutex> lock(mu_);
  files_.clear();
}

const SourceFile& SourceManager::Get(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  PS_CHECK(id >= 1 && id <= files_.size()) << "unknown source file id " << id;
  return files_[id - 1];
}

LineCol SourceManager::Locate(Span span) const {
  if (!span.valid()) return {};
  return Get(span.file).Locate(span.begin);
}

std::string SourceManager::Describe(Span span) const {
  if (!span.valid()) return "<unknown>";
  const SourceFile& file = Get(span.file);
  LineCol pos = file.Locate(span.begin);
  return file.name() + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.col);
}

}  // namespace pipesplit
