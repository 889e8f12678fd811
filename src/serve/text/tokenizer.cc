// SentencePiece text for the serving engine (tokenizer.h). SentencePiece's header defines its
// own absl::string_view, so no abseil header may share this file.
#include "pipesplit/serve/text/tokenizer.h"

#include <sentencepiece_processor.h>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::serve::text {

struct Tokenizer::Impl {
  sentencepiece::SentencePieceProcessor processor;
  std::string path;
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::Load(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  const sentencepiece::util::Status status = impl->processor.Load(path);
  if (!status.ok()) {
    throw runtime::RuntimeError("cannot load the tokenizer " + path + ": " + status.ToString());
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text) const {
  std::vector<int> ids;
  const sentencepiece::util::Status status = impl_->processor.Encode(text, &ids);
  if (!status.ok()) throw runtime::RuntimeError("cannot tokenize the text: " + status.ToString());
  std::vector<int32_t> out;
  out.reserve(ids.size() + 1);
  if (bos_id() >= 0) out.push_back(bos_id());
  out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

std::string Tokenizer::Decode(std::span<const int32_t> ids) const {
  std::vector<int> kept;
  kept.reserve(ids.size());
  const int size = impl_->processor.GetPieceSize();
  for (int32_t id : ids) {
    if (id >= 0 && id < size && !impl_->processor.IsControl(id)) kept.push_back(id);
  }
  std::string text;
  const sentencepiece::util::Status status = impl_->processor.Decode(kept, &text);
  if (!status.ok()) throw runtime::RuntimeError("cannot decode tokens: " + status.ToString());
  return text;
}

int64_t Tokenizer::vocab_size() const { return impl_->processor.GetPieceSize(); }
int32_t Tokenizer::bos_id() const { return impl_->processor.bos_id(); }
int32_t Tokenizer::eos_id() const { return impl_->processor.eos_id(); }
const std::string& Tokenizer::path() const { return impl_->path; }

std::string IncrementalDecoder::Push(int32_t token) {
  ids_.push_back(token);
  std::span<const int32_t> all(ids_);
  const std::string shown = tokenizer_.Decode(all.subspan(prefix_, read_ - prefix_));
  const std::string text = tokenizer_.Decode(all.subspan(prefix_));
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  if (text.size() <= shown.size() || text.ends_with(kReplacement)) return "";
  prefix_ = read_;
  read_ = ids_.size();
  return text.substr(shown.size());
}

std::string ChatPrompt(const std::vector<ChatMessage>& messages) {
  std::string prompt;
  for (const ChatMessage& m : messages) prompt += "<|" + m.role + "|>\n" + m.content + "\n";
  return prompt + "<|assistant|>\n";
}

}  // namespace pipesplit::serve::text
