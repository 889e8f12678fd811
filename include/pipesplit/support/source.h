// Source files and spans.
//
// Every file pipesplit reads is registered once in the process-wide SourceManager and gets a
// small integer id, so a Span (file id + byte range) is 12 trivially copyable bytes that every
// IR node can carry. Registered files live until the process ends.
#ifndef PIPESPLIT_SUPPORT_SOURCE_H_
#define PIPESPLIT_SUPPORT_SOURCE_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace pipesplit {

// A 1-based line and column (column counts bytes).
struct LineCol {
  uint32_t line = 0;
  uint32_t col = 0;
};

class SourceFile {
 public:
  SourceFile(uint32_t id, std::string name, std::string text);

  uint32_t id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  uint32_t num_lines() const { return static_cast<uint32_t>(line_starts_.size()); }

  // Line and column of a byte offset (offsets past the end map to the end).
  LineCol Locate(uint32_t offset) const;
  // Byte offset of the start of a 1-based line and column.
  uint32_t OffsetOf(LineCol pos) const;
  // The text of a 1-based line, without its newline.
  std::string_view Line(uint32_t line) const;
  // Replaces one byte in place (not a newline, and not by one): offsets and lines stay valid.
  void SetByte(uint32_t offset, char c);

 private:
  uint32_t id_;
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

// A half-open byte range [begin, end) of a registered file. file == 0 means "no location".
struct Span {
  uint32_t file = 0;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != 0; }
  // The smallest span covering both (either may be invalid).
  static Span Merge(Span a, Span b);
};

class SourceManager {
 public:
  // The process-wide instance (thread-safe registration).
  static SourceManager& Global();

  // Registers a file; the returned reference stays valid for the life of the process.
  const SourceFile& Add(std::string name, std::string text);
  // The file with that id (id must come from Add).
  const SourceFile& Get(uint32_t id) const;
  // Forgets every registered file (fuzz targets, between inputs, so memory stays bounded);
  // no span or reference into a forgotten file may be used afterwards.
  void ResetForFuzzing();

  LineCol Locate(Span span) const;
  std::string Describe(Span span) const;  // "file:line:col", or "<unknown>"

 private:
  SourceManager() = default;
  mutable std::mutex mu_;
  std::deque<SourceFile> files_;  // id i lives at files_[i - 1]; a deque never moves them
};

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_SOURCE_H_
