// Text for the serving engine (tokenizer.h): SentencePiece or a tokenizer.json. SentencePiece's
// header defines its own absl::string_view, so no abseil header may share this file.
#include "pipesplit/serve/text/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/serve/text/hf_tokenizer.h"

namespace pipesplit::serve::text {
namespace {

// The id of tokenizer_config.json's `field` ("bos_token": a string or {"content": ...}), or -1.
int32_t ConfigTokenId(const nlohmann::json& config, const char* field, const HfTokenizer& t) {
  auto it = config.find(field);
  if (it == config.end()) return -1;
  std::string content;
  if (it->is_string()) {
    content = it->get<std::string>();
  } else if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    content = (*it)["content"].get<std::string>();
  } else {
    return -1;
  }
  return t.TokenToId(content).value_or(-1);
}

}  // namespace

struct Tokenizer::Impl {
  sentencepiece::SentencePieceProcessor processor;
  std::unique_ptr<HfTokenizer> hf;  // set for a tokenizer.json
  int32_t bos = -1, eos = -1;       // a tokenizer.json's
  std::string path;
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::Load(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  if (path.ends_with(".json")) {
    impl->hf = std::make_unique<HfTokenizer>(HfTokenizer::FromFile(path));
    const std::filesystem::path config =
        std::filesystem::path(path).parent_path() / "tokenizer_config.json";
    if (std::ifstream in(config); in) {
      const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        throw runtime::RuntimeError(config.string() + ": not JSON");
      }
      impl->bos = ConfigTokenId(j, "bos_token", *impl->hf);
      impl->eos = ConfigTokenId(j, "eos_token", *impl->hf);
    }
    return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
  }
  const sentencepiece::util::Status status = impl->processor.Load(path);
  if (!status.ok()) {
    throw runtime::RuntimeError("cannot load the tokenizer " + path + ": " + status.ToString());
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text, bool add_special) const {
  if (impl_->hf) return impl_->hf->Encode(text, add_special);
  std::vector<int> ids;
  const sentencepiece::util::Status status = impl_->processor.Encode(text, &ids);
  if (!status.ok()) throw runtime::RuntimeError("cannot tokenize the text: " + status.ToString());
  std::vector<int32_t> out;
  out.reserve(ids.size() + 1);
  if (add_special && bos_id() >= 0) out.push_back(bos_id());
  out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

std::string Tokenizer::Decode(std::span<const int32_t> ids) const {
  if (impl_->hf) return impl_->hf->Decode(ids, /*skip_special=*/true);
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

std::string Tokenizer::TokenBytes(int32_t id) const {
  if (impl_->hf) return impl_->hf->TokenBytes(id);
  const sentencepiece::SentencePieceProcessor& p = impl_->processor;
  if (id < 0 || id >= p.GetPieceSize()) return "";
  std::string piece = p.IdToPiece(id);
  if (p.IsByte(id) && piece.size() == 6 && piece.starts_with("<0x") && piece.ends_with(">")) {
    return std::string(1, static_cast<char>(std::stoi(piece.substr(3, 2), nullptr, 16)));
  }
  if (p.IsControl(id)) return piece;
  constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space
  std::string out;
  for (size_t i = 0; i < piece.size();) {
    if (std::string_view(piece).substr(i, 3) == kSpace) {
      out += ' ';
      i += 3;
    } else {
      out += piece[i++];
    }
  }
  return out;
}

int64_t Tokenizer::vocab_size() const {
  return impl_->hf ? impl_->hf->vocab_size() : impl_->processor.GetPieceSize();
}
int32_t Tokenizer::bos_id() const { return impl_->hf ? impl_->bos : impl_->processor.bos_id(); }
int32_t Tokenizer::eos_id() const { return impl_->hf ? impl_->eos : impl_->processor.eos_id(); }
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

std::string IncrementalDecoder::Finish() {
  std::span<const int32_t> all(ids_);
  const std::string shown = tokenizer_.Decode(all.subspan(prefix_, read_ - prefix_));
  const std::string text = tokenizer_.Decode(all.subspan(prefix_));
  prefix_ = read_ = ids_.size();
  if (text.size() <= shown.size()) return "";
  return text.substr(shown.size());
}

std::string StoppingText::Release(bool final) {
  size_t cut = std::string::npos;
  for (const std::string& s : stops_) cut = std::min(cut, pending_.find(s));
  if (cut != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, cut);
    pending_.clear();
    return out;
  }
  if (final) return std::exchange(pending_, {});
  // Hold back the longest end of the text that begins a stop string.
  size_t held = 0;
  for (const std::string& s : stops_) {
    for (size_t n = std::min(s.size() - 1, pending_.size()); n > held; --n) {
      if (std::string_view(pending_).substr(pending_.size() - n) ==
          std::string_view(s).substr(0, n)) {
        held = n;
        break;
      }
    }
  }
  std::string out = pending_.substr(0, pending_.size() - held);
  pending_.erase(0, pending_.size() - held);
  return out;
}

std::string StoppingText::Push(int32_t token) {
  if (stopped_) return "";
  pending_ += decoder_.Push(token);
  return Release(/*final=*/false);
}

std::string StoppingText::Finish() {
  if (stopped_) return "";
  pending_ += decoder_.Finish();
  return Release(/*final=*/true);
}

std::string ChatPrompt(const std::vector<ChatMessage>& messages) {
  std::string prompt;
  for (const ChatMessage& m : messages) prompt += "<|" + m.role + "|>\n" + m.content + "\n";
  return prompt + "<|assistant|>\n";
}

}  // namespace pipesplit::serve::text
