// Text for the serving engine: a SentencePiece tokenizer (a `tokenizer.model`, as MLC-LLM's
// Llama folders ship), the text of a stream of tokens piece by piece, and the chat template of
// `pipesplit serve`.
#ifndef PIPESPLIT_RUNTIME_TEXT_TOKENIZER_H_
#define PIPESPLIT_RUNTIME_TEXT_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pipesplit::serve::text {

class Tokenizer {
 public:
  // Reads a SentencePiece model; RuntimeError naming the file when it cannot.
  static std::unique_ptr<Tokenizer> Load(const std::string& path);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // The ids of `text`, with the model's beginning-of-sequence id first when it has one.
  std::vector<int32_t> Encode(std::string_view text) const;
  // The text of `ids`; ids outside the vocabulary and control ids (bos, eos) give no text.
  std::string Decode(std::span<const int32_t> ids) const;
  int64_t vocab_size() const;
  // -1 when the model has none.
  int32_t bos_id() const;
  int32_t eos_id() const;
  const std::string& path() const;

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The text of a stream of tokens, as each arrives: what decoding them all adds to what was
// shown, held back while the last token ends inside a character (a partial UTF-8 sequence
// decodes to U+FFFD). It decodes a window of the last tokens (from the one before the text
// already shown), so each token costs the same whatever the length of the stream.
class IncrementalDecoder {
 public:
  explicit IncrementalDecoder(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  // The new text once `token` is added ("" when there is none yet).
  std::string Push(int32_t token);

 private:
  const Tokenizer& tokenizer_;
  std::vector<int32_t> ids_;
  size_t prefix_ = 0;  // the window's first token
  size_t read_ = 0;    // tokens whose text is shown
};

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// The chat template of `pipesplit serve`: each message as "<|role|>\n" + content + "\n", then
// "<|assistant|>\n" for the reply (a plain role-tagged template, as Zephyr's without its end
// tokens).
std::string ChatPrompt(const std::vector<ChatMessage>& messages);

}  // namespace pipesplit::serve::text

#endif  // PIPESPLIT_RUNTIME_TEXT_TOKENIZER_H_
