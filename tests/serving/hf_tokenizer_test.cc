// The tokenizer.json tokenizer (serve/text/hf_tokenizer.h).
//  - Fixtures: on every tokenizer.json of ../shared/corpus/tokenizers and two variants of
//    DeepSeek-Coder's (Llama 3's pre-tokenizer regex, ignore_merges), the ids of 248 texts with
//    and without special tokens and the decoded texts equal Hugging Face's tokenizers 0.23.2's
//    (tests/serving/tokenizer_fixtures; skipped without the corpus).
//  - A small byte-level BPE written here (runs everywhere): merges by rank, added tokens with
//    lstrip/rstrip/single_word, the template, byte-level decoding of invalid UTF-8.
//  - Errors: malformed JSON, unsupported components, a bad merge, a missing file.
#include "pipesplit/serve/text/hf_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "pipesplit/runtime/tensor/value.h"
#include "pipesplit/serve/text/tokenizer.h"
#include "tests/serving/tokenizer_variants.h"

namespace pipesplit::serve {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path TokenizerCorpus() {
  for (const fs::path& root : {fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus",
                               fs::path("/work/shared/corpus")}) {
    if (fs::is_directory(root / "tokenizers")) return root / "tokenizers";
  }
  return {};
}

// The variants of tools/make_tokenizer_fixtures.js, made by the same edits.
void ApplyVariant(const std::string& name, Json& j) {
  if (name == "llama3-pretokenizer") {
    testing_tokenizers::SetLlama3PreTokenizer(j);
  } else if (name == "ignore-merges") {
    j["model"]["ignore_merges"] = true;
    Json& merges = j["model"]["merges"];
    merges.erase(merges.begin() + 10000, merges.end());
  }
}

class Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixture, EncodeAndDecodeAsTheLibrary) {
  const fs::path corpus = TokenizerCorpus();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/tokenizers";
  const Json fixture = Json::parse(ReadFile(fs::path(PIPESPLIT_SOURCE_DIR) / "tests" / "serving" /
                                            "tokenizer_fixtures" / (GetParam() + ".json")));
  Json source = Json::parse(ReadFile(corpus / fixture.at("source").get<std::string>()));
  ApplyVariant(GetParam(), source);
  const HfTokenizer tokenizer = HfTokenizer::FromJson(source.dump(), GetParam());
  int failures = 0;
  for (const Json& c : fixture.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    const std::vector<int32_t> ids = c.at("ids").get<std::vector<int32_t>>();
    const std::vector<int32_t> with_special = c.at("ids_with_special").get<std::vector<int32_t>>();
    const std::vector<int32_t> got = tokenizer.Encode(text, false);
    const std::vector<int32_t> got_special = tokenizer.Encode(text, true);
    const std::string decoded = tokenizer.Decode(with_special, false);
    const std::string decoded_skip = tokenizer.Decode(with_special, true);
    const bool ok = got == ids && got_special == with_special &&
                    decoded == c.at("decoded").get<std::string>() &&
                    decoded_skip == c.at("decoded_skip_special").get<std::string>();
    if (!ok && ++failures <= 5) {
      ADD_FAILURE() << GetParam() << " on " << Json(text).dump() << ":\n  ids  " << Json(got).dump()
                    << "\n  want " << Json(ids).dump() << "\n  with special "
                    << Json(got_special).dump() << "\n  want         " << Json(with_special).dump()
                    << "\n  decoded " << Json(decoded).dump() << "\n  want    "
                    << c.at("decoded").dump() << "\n  skipping special "
                    << Json(decoded_skip).dump() << "\n  want             "
                    << c.at("decoded_skip_special").dump();
    }
  }
  EXPECT_EQ(failures, 0) << "of " << fixture.at("cases").size() << " texts";
}

INSTANTIATE_TEST_SUITE_P(Corpus, Fixture,
                         ::testing::Values("deepseek-coder-6.7b-instruct", "falcon-7b", "phi-2",
                                           "phi-3-mini-4k-instruct", "phi-3-vision-128k-instruct",
                                           "llama3-pretokenizer", "ignore-merges"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// A byte-level BPE of a few tokens: "Ġ" is the space, "Ã" and "©" the bytes C3 and A9.
Json SmallTokenizer() {
  return Json::parse(R"({
    "added_tokens": [
      {"id": 7, "content": "<s>", "special": true, "normalized": false},
      {"id": 10, "content": "<sep>", "lstrip": true, "rstrip": true, "normalized": false},
      {"id": 11, "content": "ab", "single_word": true}],
    "normalizer": null,
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A"}}],
      "special_tokens": {"<s>": {"id": "<s>", "ids": [7], "tokens": ["<s>"]}}},
    "decoder": {"type": "ByteLevel"},
    "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "\u0120": 3, "ab": 4, "abc": 5,
                                       "\u0120a": 6, "<s>": 7, "\u00c3": 8, "\u00a9": 9},
              "merges": ["a b", "ab c", "\u0120 a"]}})");
}

TEST(HfTokenizer, MergesByRankAndAddedTokensWithTheirRules) {
  const HfTokenizer t = HfTokenizer::FromJson(SmallTokenizer().dump(), "small.json");
  EXPECT_THAT(t.Encode("abc", false), ElementsAre(5));  // a+b (rank 0), then ab+c
  EXPECT_THAT(t.Encode("abc", true), ElementsAre(7, 5));
  // " abc": the space (Ġ) would merge with a (rank 2), but a+b comes first (rank 0).
  EXPECT_THAT(t.Encode("c abc", false), ElementsAre(2, 3, 5));
  // <sep> takes the spaces around it (lstrip, rstrip).
  EXPECT_THAT(t.Encode("c  <sep>  c", false), ElementsAre(2, 10, 2));
  // "ab" is an added token only as a whole word (single_word).
  EXPECT_THAT(t.Encode("ab c", false), ElementsAre(11, 3, 2));
  EXPECT_THAT(t.Encode("abc", false), ElementsAre(5));
  EXPECT_THAT(t.Encode("", true), ElementsAre(7));
  EXPECT_EQ(t.Decode(std::vector<int32_t>{7, 5, 10, 2}, false), "<s>abc<sep>c");
  EXPECT_EQ(t.Decode(std::vector<int32_t>{7, 5, 10, 2}, true), "abc<sep>c");
  EXPECT_EQ(t.Decode(std::vector<int32_t>{8, 9}, false), "\u00e9");
  EXPECT_EQ(t.Decode(std::vector<int32_t>{8}, false), "\ufffd");   // a lone byte C3
  EXPECT_EQ(t.Decode(std::vector<int32_t>{5, 99}, false), "abc");  // an unknown id is left out
  EXPECT_EQ(t.TokenToId("<sep>"), 10);
  EXPECT_EQ(t.IdToToken(3), "\u0120");
  EXPECT_EQ(t.IdToToken(99), std::nullopt);
  EXPECT_TRUE(t.IsSpecial(7));
  EXPECT_FALSE(t.IsSpecial(10));
  EXPECT_EQ(t.vocab_size(), 12);  // 10 in the model, 2 added beyond it
}

TEST(HfTokenizer, ErrorsNameTheFileAndWhatIsWrong) {
  auto error_of = [](const Json& j) -> std::string {
    try {
      HfTokenizer::FromJson(j.dump(), "t.json");
    } catch (const runtime::RuntimeError& e) {
      return e.what();
    }
    return "";
  };
  try {
    HfTokenizer::FromJson("{", "t.json");
    ADD_FAILURE() << "accepted malformed JSON";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("t.json: not a tokenizer.json"));
  }
  Json j = SmallTokenizer();
  j["normalizer"] = {{"type", "NFKC"}};
  EXPECT_EQ(error_of(j),
            "t.json: the normalizer 'NFKC' is not supported (Sequence, Prepend, Replace)");
  j = SmallTokenizer();
  j["model"]["type"] = "WordPiece";
  EXPECT_EQ(error_of(j), "t.json: the model 'WordPiece' is not supported (BPE)");
  j = SmallTokenizer();
  j["model"]["merges"] = {"a b c"};
  EXPECT_EQ(error_of(j), "t.json: merge 0 ('a b c') is not two tokens");
  j["model"]["merges"] = {"a z"};
  EXPECT_EQ(error_of(j), "t.json: merge 0 ('a z') names a token not in the vocabulary");
  j = SmallTokenizer();
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}};
  EXPECT_THAT(error_of(j), HasSubstr("t.json: the regex '(a' does not compile"));
  j = SmallTokenizer();
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  EXPECT_THAT(error_of(j), HasSubstr("the pre-tokenizer 'Whitespace' is not supported"));
  j = SmallTokenizer();
  j["decoder"] = {{"type", "WordPiece"}};
  EXPECT_THAT(error_of(j), HasSubstr("the decoder 'WordPiece' is not supported"));
  j = SmallTokenizer();
  j["post_processor"] = {{"type", "BertProcessing"}};
  EXPECT_THAT(error_of(j), HasSubstr("the post-processor 'BertProcessing' is not supported"));
  j = SmallTokenizer();
  j["post_processor"]["single"][0]["SpecialToken"]["id"] = "<x>";
  EXPECT_EQ(error_of(j),
            "t.json: the post-processor's template names '<x>', which it does not define");
  try {
    HfTokenizer::FromFile("/nonexistent/tokenizer.json");
    ADD_FAILURE() << "read a missing file";
  } catch (const runtime::RuntimeError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/tokenizer.json: cannot read the file");
  }
}

// The serving layer's Tokenizer on a tokenizer.json: bos and eos from the tokenizer_config.json
// beside it, special tokens giving no text, token bytes, and a stream's text.
TEST(HfTokenizer, ServesAsTheEnginesTokenizer) {
  const fs::path dir = fs::path(PIPESPLIT_BINARY_DIR) / "tests" / "serving" / "hf_tokenizer";
  fs::create_directories(dir);
  std::ofstream(dir / "tokenizer.json") << SmallTokenizer().dump();
  std::ofstream(dir / "tokenizer_config.json")
      << R"({"bos_token": "<s>", "eos_token": {"content": "<sep>"}})";
  const std::unique_ptr<text::Tokenizer> t =
      text::Tokenizer::Load((dir / "tokenizer.json").string());
  EXPECT_EQ(t->bos_id(), 7);
  EXPECT_EQ(t->eos_id(), 10);
  EXPECT_EQ(t->vocab_size(), 12);
  EXPECT_THAT(t->Encode("abc"), ElementsAre(7, 5));
  EXPECT_EQ(t->Decode(std::vector<int32_t>{7, 5, 3, 0}), "abc a");
  EXPECT_EQ(t->TokenBytes(3), " ");
  EXPECT_EQ(t->TokenBytes(8), "\xC3");
  EXPECT_EQ(t->TokenBytes(10), "<sep>");
  text::IncrementalDecoder stream(*t);
  std::string shown;
  for (int32_t id : {7, 5, 8, 9, 3, 8}) shown += stream.Push(id);
  shown += stream.Finish();
  EXPECT_EQ(shown, "abc\u00e9 \ufffd");
  // The corpus's Phi-3 (SentencePiece-style, byte fallback) and Phi-2 (byte-level).
  const fs::path corpus = TokenizerCorpus();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/tokenizers";
  const auto phi3 =
      text::Tokenizer::Load((corpus / "phi-3-mini-4k-instruct" / "tokenizer.json").string());
  EXPECT_EQ(phi3->bos_id(), 1);
  EXPECT_EQ(phi3->eos_id(), 32000);
  EXPECT_EQ(phi3->TokenBytes(13), "\n");  // <0x0A>
  const std::vector<int32_t> hello = phi3->Encode("Hello world");
  EXPECT_EQ(phi3->Decode(hello), "Hello world");
  EXPECT_EQ(phi3->TokenBytes(hello.back()), " world");
  const auto phi2 = text::Tokenizer::Load((corpus / "phi-2" / "tokenizer.json").string());
  EXPECT_THAT(phi2->Encode("Hello world"), ElementsAre(15496, 995));
  EXPECT_EQ(phi2->TokenBytes(995), " world");
  EXPECT_EQ(phi2->eos_id(), 50256);
}

}  // namespace
}  // namespace pipesplit::serve
