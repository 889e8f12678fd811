// Where the MLC-LLM 2026 corpus is: ../shared/corpus/mlc-llm-2026 beside the source tree, else
// /work/shared/corpus/mlc-llm-2026; empty when neither exists (the tests using it then skip).
#ifndef PIPESPLIT_TESTS_MLC2026_CORPUS_DIR_H_
#define PIPESPLIT_TESTS_MLC2026_CORPUS_DIR_H_

#include <filesystem>

namespace pipesplit::testing_corpus {

inline std::filesystem::path Mlc2026Dir() {
  namespace fs = std::filesystem;
  for (const fs::path& root : {fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus",
                               fs::path("/work/shared/corpus")}) {
    if (fs::is_directory(root / "mlc-llm-2026")) return root / "mlc-llm-2026";
  }
  return {};
}

}  // namespace pipesplit::testing_corpus

#endif  // PIPESPLIT_TESTS_MLC2026_CORPUS_DIR_H_
