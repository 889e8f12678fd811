// The parts of a Hugging Face tokenizer.json pipeline (serve/text/hf_tokenizer.h): the
// normalizers, pre-tokenizers and decoders, each built from its JSON object. They work on plain
// strings: the library's offsets are not kept.
#ifndef PIPESPLIT_SRC_SERVE_TEXT_HF_COMPONENTS_H_
#define PIPESPLIT_SRC_SERVE_TEXT_HF_COMPONENTS_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/serve/text/hf_regex.h"

namespace pipesplit::serve::text {

// A piece of the text on its way to the model: its text, and whether it starts the input (for
// Metaspace's prepend_scheme "first").
struct Piece {
  std::string text;
  bool first = false;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual std::string Normalize(std::string s) const = 0;
};
class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Cuts and rewrites `pieces` in place (empty pieces are dropped).
  virtual void PreTokenize(std::vector<Piece>& pieces) const = 0;
};
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const = 0;
};

// The bytes a byte-level BPE token stands for (GPT-2's table maps each byte to a printable
// character); false when one of its characters is not in the table.
bool ByteLevelBytes(std::string_view token, std::string* bytes);

// Built from the JSON objects of tokenizer.json (null: none); RuntimeError naming an unsupported
// type or a malformed field.
std::unique_ptr<Normalizer> MakeNormalizer(const nlohmann::json& j);
std::unique_ptr<PreTokenizer> MakePreTokenizer(const nlohmann::json& j);
std::unique_ptr<Decoder> MakeDecoder(const nlohmann::json& j);

}  // namespace pipesplit::serve::text

#endif  // PIPESPLIT_SRC_SERVE_TEXT_HF_COMPONENTS_H_
