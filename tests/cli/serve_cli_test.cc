// `pipesplit serve`'s user errors, each a one-line error with exit code 1 before or instead of
// serving: a tokenizer that cannot be read or does not fit the model, a malformed KV cache
// size, an address that cannot be bound (a port in use, a host that is not an address), a
// module not in MLC's serving form, groups that do not fit it. (Serving itself is tested by
// tests/serving/http/ through HTTP.)
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

fs::path Model() {
  static fs::path dir = [] {
    // One folder per test: ctest runs the tests of this file as processes side by side.
    fs::path d = ScratchDir(std::string("serve_cli_") +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    Result r = Pipesplit(
        "example llama --serving --layers 2 --hidden 32 --heads 4 --ffn 64 "
        "--vocab 64 -o " +
        d.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return d;
  }();
  return dir;
}

std::string Serve(const std::string& flags) {
  return "serve " + (Model() / "model.py").string() + " --params " +
         (Model() / "params.safetensors").string() + " " + flags;
}

void ExpectError(const std::string& flags, const std::string& message) {
  Result r = Pipesplit(Serve(flags), 60);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: ")) << flags;
  EXPECT_THAT(r.output, HasSubstr(message)) << flags;
}

TEST(ServeCli, TokenizerErrors) {
  ExpectError("--tokenizer /nonexistent/tokenizer.model",
              "cannot load the tokenizer /nonexistent/tokenizer.model");
  fs::path prefix = Model() / "spm128";
  Result trained =
      Shell("spm_train --input=/usr/share/common-licenses/GPL-3 --model_prefix=" + prefix.string() +
            " --vocab_size=128 --model_type=bpe --minloglevel=2");
  if (trained.exit_code != 0) GTEST_SKIP() << "spm_train: " << trained.output;
  ExpectError("--tokenizer " + prefix.string() + ".model",
              "the tokenizer " + prefix.string() +
                  ".model has 128 tokens, more than the model's vocabulary of 64");
}

TEST(ServeCli, KvCacheErrors) {
  ExpectError("--kv-cache-memory 12Q", "--kv-cache-memory expects a size such as 1GiB");
  ExpectError("--kv-cache-memory 100B --port 0",
              "the kv cache budget (--kv-cache-memory 100 B per group) holds less than one page");
}

TEST(ServeCli, AddressErrors) {
  // A port another socket listens on.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  ExpectError("--port " + std::to_string(port),
              "worker 0 (group 0) failed serving: cannot listen on 127.0.0.1:" +
                  std::to_string(port) + ": Address already in use");
  close(fd);
  ExpectError("--host 999.1.1.1 --port 0", "cannot listen on 999.1.1.1:0");
  ExpectError("--port 70000", "--port: Value 70000 not in range");
}

TEST(ServeCli, ModuleErrors) {
  fs::path dir = ScratchDir("serve_cli_not_serving");
  ASSERT_EQ(Pipesplit("example llama --layers 2 --hidden 32 --heads 4 --ffn 64 --vocab 64 "
                      "--seq 8 -o " +
                      dir.string())
                .exit_code,
            0);
  Result r = Pipesplit("serve " + (dir / "model.py").string() + " --params " +
                       (dir / "params.safetensors").string() + " --port 0");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: the module has no Relax function 'batch_decode'"));
  ExpectError("--groups 3 --port 0",
              "the module has 2 pipeline stages: serve on 1 or 2 groups, not 3");
}

}  // namespace
}  // namespace pipesplit::testing_cli
