// The serving layer's text (serve/text/tokenizer.h) on a SentencePiece model trained by spm_train
// with byte fallback: the incremental decoder's text and its flushed tail equal decoding every
// token at once, and StoppingText cuts at the first stop string, never showing part of one.
// Skipped where spm_train is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pipesplit/serve/text/tokenizer.h"

namespace pipesplit::serve::text {
namespace {

const Tokenizer* TrainedTokenizer() {
  static std::unique_ptr<Tokenizer> tokenizer = []() -> std::unique_ptr<Tokenizer> {
    const std::filesystem::path dir =
        std::filesystem::path(PIPESPLIT_BINARY_DIR) / "tests" / "serving" / "text_test";
    std::filesystem::create_directories(dir);
    const std::string prefix = (dir / "bytes").string();
    if (!std::filesystem::exists(prefix + ".model")) {
      const std::string command =
          "spm_train --input=/usr/share/common-licenses/GPL-3 --model_prefix=" + prefix +
          " --vocab_size=400 --model_type=bpe --byte_fallback=true --minloglevel=2 "
          ">/dev/null 2>&1";
      if (std::system(command.c_str()) != 0) return nullptr;
    }
    return Tokenizer::Load(prefix + ".model");
  }();
  return tokenizer.get();
}

std::vector<int32_t> WithoutBos(const Tokenizer& t, std::vector<int32_t> ids) {
  if (!ids.empty() && ids.front() == t.bos_id()) ids.erase(ids.begin());
  return ids;
}

TEST(IncrementalDecoder, PiecesAndTheFlushedTailAreTheWholeText) {
  const Tokenizer* t = TrainedTokenizer();
  if (t == nullptr) GTEST_SKIP() << "spm_train is not installed";
  // Characters outside GPL-3's text fall back to bytes: a prefix of the ids can end inside one.
  const std::vector<int32_t> ids =
      WithoutBos(*t, t->Encode("Free software \u00e9t\u00e9 \u2014 caf\u00e9 \U0001F600 end"));
  for (size_t n = 1; n <= ids.size(); ++n) {
    const std::span<const int32_t> prefix(ids.data(), n);
    IncrementalDecoder decoder(*t);
    std::string text;
    for (int32_t id : prefix) text += decoder.Push(id);
    text += decoder.Finish();
    EXPECT_EQ(text, t->Decode(prefix)) << n << " tokens";
  }
}

TEST(StoppingText, CutsBeforeTheFirstStopStringAndNeverShowsPartOfOne) {
  const Tokenizer* t = TrainedTokenizer();
  if (t == nullptr) GTEST_SKIP() << "spm_train is not installed";
  const std::string whole = "This License applies to any program or other work";
  const std::vector<int32_t> ids = WithoutBos(*t, t->Encode(whole));
  ASSERT_EQ(t->Decode(ids), whole);
  for (const std::vector<std::string>& stops :
       std::vector<std::vector<std::string>>{{"program"}, {"work", "any p"}, {"s A"}}) {
    StoppingText text(*t, stops);
    std::string shown;
    for (int32_t id : ids) {
      shown += text.Push(id);
      for (const std::string& s : stops) {
        // Nothing shown may end with a proper prefix of a stop string that then follows.
        for (size_t k = 1; k < s.size(); ++k) {
          if (shown.ends_with(s.substr(0, k)) &&
              whole.compare(shown.size() - k, s.size(), s) == 0) {
            ADD_FAILURE() << "'" << shown << "' shows the start of '" << s << "'";
          }
        }
      }
    }
    shown += text.Finish();
    size_t cut = std::string::npos;
    for (const std::string& s : stops) cut = std::min(cut, whole.find(s));
    EXPECT_EQ(shown, whole.substr(0, cut));
    EXPECT_EQ(text.stopped(), cut != std::string::npos);
  }
  StoppingText none(*t, {"absent"});
  std::string shown;
  for (int32_t id : ids) shown += none.Push(id);
  shown += none.Finish();
  EXPECT_EQ(shown, whole);
  EXPECT_FALSE(none.stopped());
}

TEST(Tokenizer, TokenBytesSpellSpacesAndFallbackBytes) {
  const Tokenizer* t = TrainedTokenizer();
  if (t == nullptr) GTEST_SKIP() << "spm_train is not installed";
  std::string joined;
  for (int32_t id : WithoutBos(*t, t->Encode("a caf\u00e9"))) joined += t->TokenBytes(id);
  EXPECT_EQ(joined, " a caf\u00e9");  // SentencePiece's leading space is a token's byte too
  EXPECT_EQ(t->TokenBytes(-1), "");
  EXPECT_EQ(t->TokenBytes(static_cast<int32_t>(t->vocab_size())), "");
}

}  // namespace
}  // namespace pipesplit::serve::text
