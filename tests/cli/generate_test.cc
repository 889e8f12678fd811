// End to end: `pipesplit generate` on the serving example. Split on 2 and 3 thread groups and
// on 2 MPI ranks, with 1 and 3 batches in flight, it gives the unsplit token ids and logits
// bit for bit (--verify); greedy tokens equal the NumPy reference; sampling is reproducible
// from its seed; the statistics, the trace and the timeline are written; user mistakes are
// one-line errors with exit code 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

constexpr int kNewTokens = 6;

// The serving example in `stages` stages, made once per test (ctest runs tests side by side,
// each in its own folder).
fs::path Example(int stages) {
  static std::map<std::string, fs::path> made;
  const std::string name =
      std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
      std::to_string(stages);
  auto it = made.find(name);
  if (it != made.end()) return it->second;
  fs::path dir = ScratchDir("generate_" + name);
  Result r = Pipesplit(
      "example llama --serving --layers 6 --hidden 32 --heads 4 --kv-heads 2 "
      "--ffn 64 --vocab 64 --requests 5 --prompt-len 7 --stages " +
      std::to_string(stages) + " -o " + dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return made[name] = dir;
}

std::string GenerateArgs(const fs::path& dir, const fs::path& out) {
  return "generate " + (dir / "model.py").string() + " --params " +
         (dir / "params.safetensors").string() + " --prompts " + (dir / "prompts.json").string() +
         " --max-new-tokens " + std::to_string(kNewTokens) + " -o " + out.string();
}

std::vector<std::vector<int>> Tokens(const fs::path& out) {
  nlohmann::json json = nlohmann::json::parse(ReadText(out));
  std::vector<std::vector<int>> tokens;
  for (const nlohmann::json& r : json["requests"]) tokens.push_back(r["tokens"]);
  return tokens;
}

TEST(Generate, SplitOnThreadGroupsEqualsUnsplitBitForBit) {
  std::vector<std::vector<int>> first;
  for (int stages : {2, 3}) {
    for (int in_flight : {1, 3}) {
      fs::path dir = Example(stages);
      fs::path out = dir / ("tokens_" + std::to_string(in_flight) + ".json");
      Result r = Pipesplit(GenerateArgs(dir, out) + " --verify --batches-in-flight " +
                           std::to_string(in_flight));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_THAT(r.output, HasSubstr("verified: 5 requests on " + std::to_string(stages) +
                                      " groups give the unsplit token ids and logits bit for bit"));
      std::vector<std::vector<int>> tokens = Tokens(out);
      ASSERT_EQ(tokens.size(), 5u);
      for (const auto& t : tokens) EXPECT_EQ(t.size(), static_cast<size_t>(kNewTokens));
      // The same greedy tokens however the requests were batched and split.
      if (first.empty()) first = tokens;
      EXPECT_EQ(tokens, first) << stages << " stages, " << in_flight << " in flight";
    }
  }
}

TEST(Generate, SplitOnTwoMpiRanksEqualsUnsplitBitForBit) {
  fs::path dir = Example(2);
  for (int in_flight : {1, 3}) {
    fs::path out = dir / ("mpi_tokens_" + std::to_string(in_flight) + ".json");
    Result r = Shell(Mpirun(2) + Binary() + " " + GenerateArgs(dir, out) +
                     " --transport mpi --verify --batches-in-flight " + std::to_string(in_flight));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("verified: 5 requests on 2 groups"));
    EXPECT_EQ(Tokens(out).size(), 5u);
  }
}

// The lowered serving model (every op an R.call_tir of a compiled TIR kernel) generates the
// high-level model's tokens and verifies split against unsplit too.
TEST(Generate, LoweredModelGeneratesTheSameTokens) {
  fs::path dir = Example(2);
  fs::path lowered = ScratchDir("generate_lowered");
  Result gen = Pipesplit(
      "example llama-lowered --serving --layers 6 --hidden 32 --heads 4 "
      "--kv-heads 2 --ffn 64 --vocab 64 --requests 5 --prompt-len 7 --stages 2 "
      "-o " +
      lowered.string());
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  fs::path high_out = dir / "high.json";
  ASSERT_EQ(Pipesplit(GenerateArgs(dir, high_out) + " --batches-in-flight 2").exit_code, 0);
  fs::path low_out = lowered / "low.json";
  Result r =
      Pipesplit(GenerateArgs(lowered, low_out) + " --batches-in-flight 2 --verify --kernel-cache " +
                    (lowered / "kernels").string(),
                600);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verified: 5 requests on 2 groups"));
  EXPECT_EQ(Tokens(low_out), Tokens(high_out));
}

TEST(Generate, GreedyTokensEqualTheNumpyReference) {
  fs::path dir = Example(2);
  fs::path reference = dir / "reference.json";
  // Debian's python3 (make deps installs its numpy), else the first one on the PATH.
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  Result ref =
      Shell(python + " " + std::string(PIPESPLIT_SOURCE_DIR) +
            "/tests/serving/greedy_reference.py --dir " + dir.string() + " --max-new-tokens " +
            std::to_string(kNewTokens) + " -o " + reference.string());
  if (ref.exit_code == 77) GTEST_SKIP() << "numpy is missing";
  ASSERT_EQ(ref.exit_code, 0) << ref.output;
  fs::path out = dir / "greedy.json";
  Result r = Pipesplit(GenerateArgs(dir, out) + " --batches-in-flight 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json expected = nlohmann::json::parse(ReadText(reference));
  std::vector<std::vector<int>> want = expected["tokens"];
  EXPECT_EQ(Tokens(out), want);
}

// --dump-logits: the logits each step sampled from, as NumPy reads them: requests x steps x
// vocab float32, the greedy token their argmax, close to the float64 reference's logits.
TEST(Generate, DumpsTheLogitsAsNpy) {
  fs::path dir = Example(2);
  fs::path reference = dir / "reference.json";
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  Result ref =
      Shell(python + " " + std::string(PIPESPLIT_SOURCE_DIR) +
            "/tests/serving/greedy_reference.py --dir " + dir.string() + " --max-new-tokens " +
            std::to_string(kNewTokens) + " -o " + reference.string());
  if (ref.exit_code == 77) GTEST_SKIP() << "numpy is missing";
  ASSERT_EQ(ref.exit_code, 0) << ref.output;
  fs::path out = dir / "dump.json";
  fs::path npy = dir / "logits.npy";
  Result r =
      Pipesplit(GenerateArgs(dir, out) + " --batches-in-flight 2 --dump-logits " + npy.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote logits to " + npy.string()));
  const std::string check =
      "import json, sys, numpy as np\n"
      "a = np.load(sys.argv[1])\n"
      "tokens = [q['tokens'] for q in json.load(open(sys.argv[2]))['requests']]\n"
      "ref = np.array(json.load(open(sys.argv[3]))['logits'])\n"
      "assert a.dtype == np.float32 and a.shape == (5, 6, 64), a.shape\n"
      "assert not np.isnan(a).any()\n"
      "assert (a.argmax(-1) == np.array(tokens)).all()\n"
      "print('max diff %.3g' % np.abs(a - ref).max())\n"
      "assert np.abs(a - ref).max() < 1e-4\n";
  WriteText(dir / "check_logits.py", check);
  Result c = Shell(python + " " + (dir / "check_logits.py").string() + " " + npy.string() + " " +
                   out.string() + " " + reference.string());
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_THAT(c.output, HasSubstr("max diff"));
}

// Requests longer than a KV cache page (7 + 16 tokens, two pages each) fit the cache, which
// is sized in whole pages.
TEST(Generate, RequestsOfSeveralPagesFitTheCache) {
  fs::path dir = Example(2);
  std::string args = GenerateArgs(dir, dir / "long.json");
  const std::string flag = "--max-new-tokens " + std::to_string(kNewTokens);
  args.replace(args.find(flag), flag.size(), "--max-new-tokens 16");
  Result r = Pipesplit(args + " --verify --batches-in-flight 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("generated 80 tokens for 5 requests"));
}

TEST(Generate, SamplingIsReproducibleFromItsSeed) {
  fs::path dir = Example(2);
  auto sample = [&](int seed, const std::string& name) {
    fs::path out = dir / name;
    Result r = Pipesplit(GenerateArgs(dir, out) + " --temperature 1.5 --top-p 0.95 --seed " +
                         std::to_string(seed) + " --batches-in-flight 2 --verify");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return Tokens(out);
  };
  std::vector<std::vector<int>> a = sample(1, "s1.json");
  EXPECT_EQ(sample(1, "s1b.json"), a);
  EXPECT_NE(sample(2, "s2.json"), a);
}

TEST(Generate, PrintsStatisticsAndWritesTheTimeline) {
  fs::path dir = Example(2);
  Result r = Pipesplit(GenerateArgs(dir, dir / "t.json") + " --batches-in-flight 2 --timeline " +
                       (dir / "t.svg").string() + " --trace " + (dir / "t.trace.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("generated 30 tokens for 5 requests"));
  EXPECT_THAT(r.output, HasSubstr("time to first token: mean"));
  EXPECT_THAT(r.output, HasSubstr("decode: 25 tokens in 10 steps"));
  EXPECT_THAT(r.output, HasSubstr("bubble fraction: group 0 "));
  EXPECT_THAT(ReadText(dir / "t.svg"), HasSubstr("<svg"));
  nlohmann::json trace = nlohmann::json::parse(ReadText(dir / "t.trace.json"));
  EXPECT_FALSE(trace["traceEvents"].empty());
}

// The case: 300 requests of 20 prompt and 50 new tokens on the 4-layer serving example,
// with a KV cache for a tenth of them (30 x 70 tokens). Requests wait for pages and running ones
// are preempted and recomputed; every request gets its 50 tokens, the split run equals the
// unsplit one bit for bit, and the tokens equal those of a cache that holds every request.
TEST(Generate, ThreeHundredRequestsCompleteInACacheForATenthOfThem) {
  fs::path dir = ScratchDir("generate_300");
  Result made =
      Pipesplit("example llama --serving --requests 300 --prompt-len 20 -o " + dir.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string base = "generate " + (dir / "model.py").string() + " --params " +
                           (dir / "params.safetensors").string() + " --prompts " +
                           (dir / "prompts.json").string() + " --max-new-tokens 50 ";
  Result small = Pipesplit(base + "--max-total-tokens 2100 --batches-in-flight 2 --verify -o " +
                           (dir / "small.json").string());
  ASSERT_EQ(small.exit_code, 0) << small.output;
  EXPECT_THAT(small.output, HasSubstr("kv cache: 132 pages of 16 tokens"));
  EXPECT_THAT(small.output, HasSubstr("generated 15000 tokens for 300 requests"));
  EXPECT_THAT(small.output, HasSubstr("preemptions: "));
  EXPECT_THAT(small.output, HasSubstr("verified: 300 requests on 2 groups"));
  Result whole = Pipesplit(base + "-o " + (dir / "whole.json").string());
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_THAT(whole.output, HasSubstr("kv cache: 1501 pages"));  // 300 x 5 pages, and one
  EXPECT_THAT(whole.output, testing::Not(HasSubstr("preemptions: ")));
  EXPECT_EQ(Tokens(dir / "small.json"), Tokens(dir / "whole.json"));
  EXPECT_GT(nlohmann::json::parse(ReadText(dir / "small.json"))["preemptions"], 0);
}

// A safetensors file of one tensor per prompt, spelled here (dtype "I32" or another).
void WritePromptsSafetensors(const fs::path& path, const nlohmann::json& prompts,
                             const std::string& dtype = "I32") {
  nlohmann::json header = nlohmann::json::object();
  std::string body;
  for (size_t i = 0; i < prompts.size(); ++i) {
    std::vector<int32_t> ids = prompts[i];
    size_t begin = body.size();
    body.append(reinterpret_cast<const char*>(ids.data()), ids.size() * 4);
    header["p" + std::to_string(i)] = {
        {"dtype", dtype}, {"shape", {ids.size()}}, {"data_offsets", {begin, body.size()}}};
  }
  std::string text = header.dump();
  uint64_t n = text.size();
  WriteText(path, std::string(reinterpret_cast<const char*>(&n), 8) + text + body);
}

TEST(Generate, PromptsFromSafetensors) {
  fs::path dir = Example(2);
  fs::path json_out = dir / "from_json.json";
  ASSERT_EQ(Pipesplit(GenerateArgs(dir, json_out)).exit_code, 0);
  WritePromptsSafetensors(dir / "prompts.safetensors",
                          nlohmann::json::parse(ReadText(dir / "prompts.json")));
  fs::path st_out = dir / "from_st.json";
  std::string args = GenerateArgs(dir, st_out);
  args.replace(args.find("prompts.json"), 12, "prompts.safetensors");
  Result r = Pipesplit(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Tokens(st_out), Tokens(json_out));

  WritePromptsSafetensors(dir / "floats.safetensors", nlohmann::json::parse("[[1, 2]]"), "F32");
  args.replace(args.find("prompts.safetensors"), 19, "floats.safetensors");
  r = Pipesplit(args);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("prompt 'p0' is float32[2], not an int32 [n] or [1, n] tensor"));
}

// `generate` with `extra` flags and the prompts `prompts` (a file's text; empty: the
// example's) fails with exit code 1 and one error line containing `message`.
void ExpectError(const std::string& extra, const std::string& prompts, const std::string& message,
                 int stages = 2) {
  fs::path dir = Example(stages);
  std::string args = GenerateArgs(dir, dir / "err.json");
  if (!prompts.empty()) {
    WriteText(dir / "bad_prompts.json", prompts);
    args.replace(args.find("prompts.json"), 12, "bad_prompts.json");
  }
  Result r = Pipesplit(args + " " + extra);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: "));
  EXPECT_THAT(r.output, HasSubstr(message));
}

TEST(GenerateErrors, BadPrompts) {
  ExpectError("", "[[1, 2], []]", "prompt 1 is empty");
  ExpectError("", "[[1, \"x\"]]", "prompt 0 has \"x\", not a token id");
  ExpectError("", "[[1, 2], 3]", "prompt 1 is not a list of token ids");
  ExpectError("", "[[1, 2]", "not valid JSON");
  ExpectError("", "[[1, 64]]", "prompt 0 has token id 64, outside the vocabulary of 64");
  ExpectError("", "[]", "there are no prompts");
  ExpectError("--top-p 0", "", "top-p must be in (0, 1]");
}

TEST(GenerateErrors, KvCacheBudgets) {
  ExpectError("--kv-cache-memory lots", "", "--kv-cache-memory expects a size such as 1GiB");
  ExpectError("--kv-cache-memory 1KiB", "",
              "the kv cache budget (--kv-cache-memory 1.0 KiB per group) holds less than one "
              "page of 16 tokens");
  // 16 tokens make 2 pages (the cache keeps one more): a sequence holds 32 tokens.
  nlohmann::json long_prompt = {std::vector<int>(30, 1)};
  ExpectError("--max-total-tokens 16", long_prompt.dump(),
              "prompt 0 has 30 tokens: with 6 new tokens it needs 36, more than a sequence of the "
              "kv cache holds (32 tokens; --max-total-tokens 16)");
  ExpectError("--max-total-tokens 16 --kv-cache-memory 1GiB", "",
              "--max-total-tokens excludes --kv-cache-memory");
}

TEST(GenerateErrors, GroupsThatDoNotFitTheModule) {
  ExpectError("--groups 2", "",
              "the module has 3 pipeline stages: generate on 1 or 3 groups, not 2", 3);
}

TEST(GenerateErrors, AModuleNotInServingForm) {
  fs::path dir = ScratchDir("generate_not_serving");
  ASSERT_EQ(Pipesplit("example llama --layers 2 --hidden 32 --heads 4 --ffn 64 --vocab 64 --seq 8 "
                      "-o " +
                      dir.string())
                .exit_code,
            0);
  Result r =
      Pipesplit("generate " + (dir / "model.py").string() + " --params " +
                (dir / "params.safetensors").string() + " --prompts " +
                (Example(2) / "prompts.json").string() + " -o " + (dir / "out.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: the module has no Relax function 'batch_decode'"));
}

TEST(GenerateErrors, MissingPromptsFile) {
  fs::path dir = Example(2);
  std::string args = GenerateArgs(dir, dir / "err.json");
  args.replace(args.find("prompts.json"), 12, "nowhere.json");
  Result r = Pipesplit(args);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: cannot open prompts"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
