// Text for the serving engine: a tokenizer - SentencePiece's `tokenizer.model` (MLC-LLM's
// Llama 2 folders) or Hugging Face's `tokenizer.json` (hf_tokenizer.h; what recent folders
// ship) - the text of a stream of tokens piece by piece, and the chat template of
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
  // Reads a tokenizer.json (a path ending in .json; its bos and eos tokens from the
  // tokenizer_config.json beside it, when there is one) or else a SentencePiece model;
  // RuntimeError naming the file when it cannot.
  static std::unique_ptr<Tokenizer> Load(const std::string& path);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // The ids of `text`, with the model's beginning-of-sequence id first when it has one (a
  // tokenizer.json: its post-processor's template).
  std::vector<int32_t> Encode(std::string_view text) const { return Encode(text, true); }
  // With `add_special` false: the ids of the text alone (no beginning-of-sequence id, no
  // post-processor), as MLC's tokenizer encodes a chat prompt.
  std::vector<int32_t> Encode(std::string_view text, bool add_special) const;
  // The text of `ids`; ids outside the vocabulary and control ids (bos, eos; a tokenizer.json's
  // special tokens) give no text.
  std::string Decode(std::span<const int32_t> ids) const;
  // The bytes of one token as it stands in a text: its piece with SentencePiece's U+2581 as a
  // space, a byte-fallback piece (<0xE2>) as its byte, a control token as its piece ("</s>");
  // "" outside the vocabulary; a byte-level BPE token as its bytes. (Log probabilities name
  // tokens so.)
  std::string TokenBytes(int32_t id) const;
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
  // The text held back when the stream ends: its last character, incomplete, decodes to U+FFFD
  // as decoding every token at once gives it. The text of every Push and of Finish together is
  // the text of all the tokens.
  std::string Finish();

 private:
  const Tokenizer& tokenizer_;
  std::vector<int32_t> ids_;
  size_t prefix_ = 0;  // the window's first token
  size_t read_ = 0;    // tokens whose text is shown
};

// The text of one choice as its tokens arrive, cut before the first of `stops` (OpenAI's
// `stop`): what a stream sends piece by piece and what a whole response holds are one text.
// Text that may begin a stop string is held back until it cannot (a stream never sends part
// of a stop string).
class StoppingText {
 public:
  StoppingText(const Tokenizer& tokenizer, std::vector<std::string> stops)
      : decoder_(tokenizer), stops_(std::move(stops)) {}
  // The text `token` adds that can be shown now. When a stop string appears: the text before it,
  // and stopped() holds (later tokens add nothing).
  std::string Push(int32_t token);
  // The text still held back when the choice ends another way (IncrementalDecoder::Finish, and a
  // partial stop string, which then is text).
  std::string Finish();
  bool stopped() const { return stopped_; }

 private:
  // Cuts `pending_` at a stop string (returning what precedes it), or returns what cannot begin
  // one and keeps the rest.
  std::string Release(bool final);

  IncrementalDecoder decoder_;
  std::vector<std::string> stops_;
  std::string pending_;
  bool stopped_ = false;
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
