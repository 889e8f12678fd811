// What the tests running MLC-LLM's own modules share (mlc_run_test.cc, mlc_tp_run_test.cc):
// `pipesplit generate` of a corpus module on its MLC folder's weights and the reference's
// prompts, compared with TVM's tokens and logits (../shared/corpus/mlc-llm-2026/*/reference).
#ifndef PIPESPLIT_TESTS_CLI_MLC_RUN_UTIL_H_
#define PIPESPLIT_TESTS_CLI_MLC_RUN_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"
#include "tests/runtime/mlc_test_folder.h"

namespace pipesplit::testing_cli {

using testing_mlc::Corpus2026;
namespace fs = std::filesystem;

#define SKIP_WITHOUT_CORPUS()                                  \
  if (!fs::exists(Corpus2026() / "README.md")) {               \
    GTEST_SKIP() << "../shared/corpus/mlc-llm-2026 is absent"; \
  }

// A float32 .npy file: its shape and values (C order).
struct Npy {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

inline Npy ReadNpyFloat32(const fs::path& path) {
  const std::string bytes = ReadText(path);
  Npy npy;
  EXPECT_GE(bytes.size(), 10u) << path;
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return npy;
  const size_t header_len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  const size_t open = header.find('(', header.find("'shape'"));
  const size_t close = header.find(')', open);
  std::string dims = header.substr(open + 1, close - open - 1);
  size_t count = 1;
  for (size_t at = 0; at < dims.size();) {
    const size_t comma = dims.find(',', at);
    const std::string field = dims.substr(at, comma == std::string::npos ? comma : comma - at);
    if (field.find_first_of("0123456789") != std::string::npos) {
      npy.shape.push_back(std::stoll(field));
      count *= static_cast<size_t>(npy.shape.back());
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  const size_t data = 10 + header_len;
  EXPECT_EQ(bytes.size() - data, count * sizeof(float)) << path;
  npy.values.resize(count);
  if (bytes.size() - data == count * sizeof(float)) {
    std::memcpy(npy.values.data(), bytes.data() + data, count * sizeof(float));
  }
  return npy;
}

inline fs::path KernelCache() {
  return fs::path(PIPESPLIT_BINARY_DIR) / "tests/cli/mlc_run_kernels";
}

// What a run is compared with: the reference's tokens wherever its top-2 margin is at least
// `min_margin` (0: everywhere) and its logits within `logit_tolerance`.
struct Expectation {
  double min_margin = 0;
  double logit_tolerance = 1e-4;
};

class MlcRunTest : public ::testing::Test {
 protected:
  static fs::path LogitsPath(const std::string& name) {
    return fs::path(PIPESPLIT_BINARY_DIR) / "test-scratch" / ("mlc_run_" + name) / "logits.npy";
  }

  // Runs `pipesplit generate` on `dump` (a path under the corpus) with the weights of
  // `model`/mlc and the reference's prompts, then compares tokens and logits with the
  // reference. Returns the largest logit difference.
  // `launcher` (mpirun ...) runs the binary when set. The logits are left in
  // `logits_path(name)`.
  double GenerateAndCompare(const std::string& name, const std::string& model,
                            const std::string& dump, const std::string& flags,
                            const Expectation& expect, const std::string& launcher = "") {
    const fs::path dir = ScratchDir("mlc_run_" + name);
    const fs::path root = Corpus2026() / model;
    const nlohmann::json greedy = nlohmann::json::parse(ReadText(root / "reference/greedy.json"));
    nlohmann::json prompts = nlohmann::json::array();
    for (const nlohmann::json& r : greedy["requests"]) prompts.push_back(r["prompt_ids"]);
    WriteText(dir / "prompts.json", prompts.dump());
    const int new_tokens = greedy["new_tokens"].get<int>();
    const Result r = Shell(
        launcher + Binary() + " generate " +
            (fs::path(dump).is_absolute() ? fs::path(dump) : root / dump).string() + " --params " +
            (root / "mlc").string() + " " + flags + " --prompts " +
            (dir / "prompts.json").string() + " --max-new-tokens " + std::to_string(new_tokens) +
            " --temperature 0 --kernel-cache " + KernelCache().string() + " --dump-logits " +
            (dir / "logits.npy").string() + " -o " + (dir / "out.json").string(),
        600);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return INFINITY;
    const nlohmann::json out = nlohmann::json::parse(ReadText(dir / "out.json"));
    const Npy reference = ReadNpyFloat32(root / "reference/logits.npy");
    const Npy logits = ReadNpyFloat32(dir / "logits.npy");
    EXPECT_EQ(logits.shape, reference.shape);
    if (logits.shape != reference.shape || reference.shape.size() != 3) return INFINITY;
    const int64_t steps = reference.shape[1];
    const int64_t vocab = reference.shape[2];
    double worst = 0;
    for (size_t q = 0; q < greedy["requests"].size(); ++q) {
      const nlohmann::json& ref = greedy["requests"][q];
      const nlohmann::json& got = out["requests"][q]["tokens"];
      EXPECT_EQ(got.size(), ref["tokens"].size()) << "request " << q;
      if (got.size() != ref["tokens"].size()) continue;
      for (size_t s = 0; s < got.size(); ++s) {
        // Step s's logits come from the same tokens as the reference's.
        const size_t base = (q * steps + s) * vocab;
        for (int64_t v = 0; v < vocab; ++v) {
          worst = std::max(worst, static_cast<double>(std::fabs(logits.values[base + v] -
                                                                reference.values[base + v])));
        }
        if (got[s] == ref["tokens"][s]) continue;
        // A token the reference's top-2 margin does not pin may differ; the runs part ways.
        EXPECT_LT(ref["margins"][s].get<double>(), expect.min_margin)
            << "request " << q << " step " << s << ": token " << got[s] << ", TVM's "
            << ref["tokens"][s];
        break;
      }
    }
    EXPECT_LE(worst, expect.logit_tolerance);
    RecordProperty("max_logit_difference", std::to_string(worst));
    std::printf("%s: largest logit difference from TVM's %.3g\n", name.c_str(), worst);
    return worst;
  }
};

}  // namespace pipesplit::testing_cli

#endif  // PIPESPLIT_TESTS_CLI_MLC_RUN_UTIL_H_
