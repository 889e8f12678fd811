// The registry of named passes and the pipeline syntax `a,b{key=value,list=x;y}`.
#include <algorithm>
#include <charconv>

#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/pass.h"
#include "src/transform/passes.h"

namespace pipesplit::transform {

int64_t PassOptions::GetInt(std::string_view name, int64_t fallback) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  return value;
}

bool PassOptions::GetBool(std::string_view name, bool fallback) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return fallback;
  return it->second == "true" || it->second == "1";
}

std::string PassOptions::GetString(std::string_view name, const std::string& fallback) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> PassOptions::GetStringList(std::string_view name) const {
  std::vector<std::string> out;
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return out;
  std::string_view rest = it->second;
  while (!rest.empty()) {
    size_t semi = rest.find(';');
    std::string_view item = rest.substr(0, semi);
    if (!item.empty()) out.emplace_back(item);
    if (semi == std::string_view::npos) break;
    rest.remove_prefix(semi + 1);
  }
  return out;
}

Span PassOptions::SpanOf(std::string_view name) const {
  auto it = spans_.find(std::string(name));
  return it == spans_.end() ? Span{} : it->second;
}

const std::vector<PassInfo>& RegisteredPasses() {
  static const std::vector<PassInfo> kPasses = [] {
    std::vector<PassInfo> all = {
        AttachPipelineStagesPassInfo(),    LegalizeOpsPassInfo(), AutoPipelineStagesPassInfo(),
        PipelineParallelRewritePassInfo(), VerifyPassInfo(),      ComputeInlinePassInfo(),
    };
    std::sort(all.begin(), all.end(),
              [](const PassInfo& a, const PassInfo& b) { return a.name < b.name; });
    return all;
  }();
  return kPasses;
}

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& info : RegisteredPasses()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

namespace {

// A small cursor over the pipeline text producing located errors.
class PipelineParser {
 public:
  explicit PipelineParser(const SourceFile& file) : file_(file), text_(file.text()) {}

  std::unique_ptr<Sequential> Parse() {
    std::vector<std::unique_ptr<Pass>> passes;
    SkipSpaces();
    if (pos_ == text_.size()) Fail(pos_, pos_, "empty pass pipeline");
    while (true) {
      passes.push_back(ParsePass());
      SkipSpaces();
      if (pos_ == text_.size()) break;
      if (text_[pos_] != ',') Fail(pos_, pos_ + 1, "expected ',' between passes");
      ++pos_;
      SkipSpaces();
    }
    return std::make_unique<Sequential>(std::move(passes));
  }

 private:
  static bool IsNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  [[noreturn]] void Fail(size_t begin, size_t end, std::string message) const {
    ThrowError(
        {file_.id(), static_cast<uint32_t>(begin), static_cast<uint32_t>(std::max(end, begin + 1))},
        std::move(message));
  }

  std::string_view Name() {
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  std::unique_ptr<Pass> ParsePass() {
    size_t start = pos_;
    std::string_view name = Name();
    if (name.empty()) Fail(pos_, pos_ + 1, "expected a pass name");
    const PassInfo* info = FindPass(name);
    if (info == nullptr) {
      Fail(start, pos_, "unknown pass '" + std::string(name) + "' (see 'pipesplit passes')");
    }
    PassOptions options;
    std::vector<std::string> seen;
    if (pos_ < text_.size() && text_[pos_] == '{') {
      ++pos_;
      SkipSpaces();
      while (pos_ < text_.size() && text_[pos_] != '}') {
        size_t key_start = pos_;
        std::string key(Name());
        if (key.empty()) Fail(pos_, pos_ + 1, "expected an option name");
        auto spec = std::find_if(info->options.begin(), info->options.end(),
                                 [&](const PassOptionSpec& s) { return s.name == key; });
        if (spec == info->options.end()) {
          Fail(key_start, pos_, "pass '" + info->name + "' has no option '" + key + "'");
        }
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
          Fail(key_start, pos_, "option '" + key + "' given twice");
        }
        seen.push_back(key);
        SkipSpaces();
        if (pos_ >= text_.size() || text_[pos_] != '=') {
          Fail(pos_, pos_ + 1, "expected '=' after option '" + key + "'");
        }
        ++pos_;
        size_t value_start = pos_;
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}') ++pos_;
        std::string value(text_.substr(value_start, pos_ - value_start));
        while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
          value.pop_back();
        }
        CheckValue(*spec, value, value_start, pos_);
        options.Set(key, value,
                    {file_.id(), static_cast<uint32_t>(value_start), static_cast<uint32_t>(pos_)});
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          SkipSpaces();
        }
      }
      if (pos_ >= text_.size())
        Fail(start, pos_, "unterminated option list of pass '" + info->name + "' (missing '}')");
      ++pos_;  // '}'
    }
    options.set_pass_span(
        {file_.id(), static_cast<uint32_t>(start), static_cast<uint32_t>(start + name.size())});
    for (const PassOptionSpec& spec : info->options) {
      if (spec.required && !options.Has(spec.name)) {
        Fail(start, pos_, "pass '" + info->name + "' needs option '" + spec.name + "'");
      }
    }
    return info->create(options);
  }

  void CheckValue(const PassOptionSpec& spec, const std::string& value, size_t begin,
                  size_t end) const {
    if (value.empty()) Fail(begin, end, "option '" + spec.name + "' has an empty value");
    switch (spec.type) {
      case PassOptionSpec::Type::kInt: {
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || ptr != value.data() + value.size()) {
          Fail(begin, end, "option '" + spec.name + "' expects an integer, got '" + value + "'");
        }
        break;
      }
      case PassOptionSpec::Type::kBool:
        if (value != "true" && value != "false" && value != "1" && value != "0") {
          Fail(begin, end, "option '" + spec.name + "' expects true or false, got '" + value + "'");
        }
        break;
      default:
        break;
    }
  }

  const SourceFile& file_;
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::unique_ptr<Sequential> ParsePipeline(std::string_view text, std::string source_name) {
  const SourceFile& file = SourceManager::Global().Add(std::move(source_name), std::string(text));
  return PipelineParser(file).Parse();
}

}  // namespace pipesplit::transform
