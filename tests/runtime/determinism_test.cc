// Determinism: a small transformer block built from the kernels gives bit-identical results
// run after run, from concurrent threads, and when cut in two with the intermediate passed
// through a safetensors image (what a pipeline stage boundary does).
#include <cmath>
#include <random>
#include <thread>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/kernels/kernels.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "tests/runtime/test_util.h"

namespace pipesplit::runtime {
namespace {

using namespace testing;  // NOLINT

constexpr int64_t kSeq = 16, kHidden = 32, kHeads = 4, kHeadDim = 8, kFfn = 64;

Tensor Random(Shape shape, uint32_t seed, double scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(0.0, scale);
  std::vector<double> values(static_cast<size_t>(ShapeNumel(shape)));
  for (double& v : values) v = dist(rng);
  return MakeTensor(kF32, std::move(shape), values);
}

struct Layer {
  Tensor norm1, wq, wk, wv, wo, norm2, w_gate, w_up, w_down;
};

Layer MakeLayer(uint32_t seed) {
  const double s = 0.2;
  return {FullValue(Shape{kHidden}, 1.0, kF32),    Random({kHidden, kHidden}, seed + 1, s),
          Random({kHidden, kHidden}, seed + 2, s), Random({kHidden, kHidden}, seed + 3, s),
          Random({kHidden, kHidden}, seed + 4, s), FullValue(Shape{kHidden}, 1.0, kF32),
          Random({kHidden, kFfn}, seed + 5, s),    Random({kHidden, kFfn}, seed + 6, s),
          Random({kFfn, kHidden}, seed + 7, s)};
}

Tensor Heads(const Tensor& x) {  // [S, H*D] -> [H, S, D]
  return PermuteDims(Reshape(x, Shape{kSeq, kHeads, kHeadDim}), std::vector<int64_t>{1, 0, 2});
}

Tensor Block(const Tensor& x, const Layer& l) {
  const std::vector<int64_t> last = {-1};
  const Tensor h = RmsNorm(x, l.norm1, last, 1e-5);
  const Tensor q = Heads(Matmul(h, l.wq));
  const Tensor k = Heads(Matmul(h, l.wk));
  const Tensor v = Heads(Matmul(h, l.wv));
  Tensor scores = Multiply(Matmul(q, k, DataType::Void(), false, true),
                           MakeScalar(kF32, 1.0 / std::sqrt(static_cast<double>(kHeadDim))));
  const Tensor causal = Tril(FullValue(Shape{kSeq, kSeq}, 1.0, kBool));
  scores = Where(causal, scores, MakeScalar(kF32, -1e9));
  const Tensor attn = Matmul(Softmax(scores, -1), v);  // [H, S, D]
  const Tensor merged =
      Reshape(PermuteDims(attn, std::vector<int64_t>{1, 0, 2}), Shape{kSeq, kHidden});
  const Tensor x1 = Add(x, Matmul(merged, l.wo));
  const Tensor h2 = RmsNorm(x1, l.norm2, last, 1e-5);
  const Tensor ffn = Multiply(Silu(Matmul(h2, l.w_gate)), Matmul(h2, l.w_up));
  return Add(x1, Matmul(ffn, l.w_down));
}

Tensor Forward(const Tensor& x, const std::vector<Layer>& layers, size_t begin, size_t end) {
  Tensor h = x;
  for (size_t i = begin; i < end; ++i) h = Block(h, layers[i]);
  return h;
}

std::vector<Layer> Layers() {
  std::vector<Layer> layers;
  for (uint32_t i = 0; i < 4; ++i) layers.push_back(MakeLayer(100 * (i + 1)));
  return layers;
}

TEST(DeterminismTest, RepeatedRunsAreBitIdentical) {
  const std::vector<Layer> layers = Layers();
  const Tensor x = Random({kSeq, kHidden}, 1, 1.0);
  const Tensor first = Forward(x, layers, 0, layers.size());
  ASSERT_EQ(first.ToString(), "float32[16, 32]");
  double magnitude = 0;
  for (double v : ToDoubleVector(first)) {
    ASSERT_TRUE(std::isfinite(v));
    magnitude += std::fabs(v);
  }
  EXPECT_GT(magnitude, 0.0);
  for (int run = 0; run < 3; ++run) {
    EXPECT_TRUE(BitwiseEqual(Forward(x, layers, 0, layers.size()), first)) << run;
  }
}

TEST(DeterminismTest, ConcurrentThreadsAgree) {
  const std::vector<Layer> layers = Layers();
  const Tensor x = Random({kSeq, kHidden}, 2, 1.0);
  const Tensor reference = Forward(x, layers, 0, layers.size());
  Tensor a, b;
  std::thread ta([&] { a = Forward(x, layers, 0, layers.size()); });
  std::thread tb([&] { b = Forward(x, layers, 0, layers.size()); });
  ta.join();
  tb.join();
  EXPECT_TRUE(BitwiseEqual(a, reference));
  EXPECT_TRUE(BitwiseEqual(b, reference));
}

TEST(DeterminismTest, SplitRunMatchesUnsplitRun) {
  const std::vector<Layer> layers = Layers();
  const Tensor x = Random({kSeq, kHidden}, 3, 1.0);
  const Tensor unsplit = Forward(x, layers, 0, layers.size());
  // Stage 1 runs two layers and ships its activation as safetensors bytes; stage 2 reads it
  // back (a view of the image) and runs the rest.
  const Tensor boundary = Forward(x, layers, 0, 2);
  const std::vector<NamedTensor> message = {{"hidden", boundary}};
  auto bytes = std::make_shared<std::string>(SerializeSafetensors(message));
  const SafetensorsFile received =
      SafetensorsFile::FromMemory("stage-boundary", bytes, bytes->data(), bytes->size());
  const Tensor split = Forward(received.Get("hidden"), layers, 2, layers.size());
  EXPECT_TRUE(BitwiseEqual(split, unsplit));
}

// Restores the kernel thread count when a test ends.
class ThreadCountGuard {
 public:
  ThreadCountGuard() : saved_(GetNumThreads()) {}
  ~ThreadCountGuard() { SetNumThreads(saved_); }

 private:
  int saved_;
};

TEST(DeterminismTest, ThreadCountDoesNotChangeBits) {
  ThreadCountGuard guard;
  // Big enough that every kernel below is cut into several chunks.
  const Tensor a = Random({300, 256}, 11, 1.0);
  const Tensor w = Random({256, 600}, 12, 0.1);
  auto run = [&] {
    const Tensor h = Matmul(a, w);                                // column blocks
    const Tensor t = Matmul(w, a, DataType::Void(), true, true);  // transposed, row blocks
    const Tensor s = Softmax(Gelu(h), -1);                        // rows
    const Tensor n = RmsNorm(h, FullValue(Shape{600}, 1.0, kF32), {-1}, 1e-5);
    const Tensor r = Sum(Multiply(s, n), std::vector<int64_t>{0});  // columns
    const Tensor m =
        Mean(Add(h, Reshape(Sum(t, std::nullopt), Shape{1, 1})), std::vector<int64_t>{1});
    return std::vector<Tensor>{h, t, s, n, r, m, Astype(s, kF16)};
  };
  SetNumThreads(1);
  EXPECT_EQ(GetNumThreads(), 1);
  const std::vector<Tensor> serial = run();
  const std::vector<Layer> layers = Layers();
  const Tensor x = Random({kSeq, kHidden}, 4, 1.0);
  const Tensor block_serial = Forward(x, layers, 0, layers.size());
  for (int threads : {2, 3, 8}) {
    SetNumThreads(threads);
    EXPECT_EQ(GetNumThreads(), threads);
    const std::vector<Tensor> parallel = run();
    for (size_t i = 0; i < serial.size(); ++i) {
      EXPECT_TRUE(BitwiseEqual(parallel[i], serial[i])) << "result " << i << ", " << threads;
    }
    EXPECT_TRUE(BitwiseEqual(Forward(x, layers, 0, layers.size()), block_serial)) << threads;
  }
}

TEST(DeterminismTest, ErrorsWithThreads) {
  ThreadCountGuard guard;
  SetNumThreads(4);
  const Tensor big = Iota(kI32, {100000});
  EXPECT_RUNTIME_ERROR(Divide(big, Multiply(big, I32({1}, {0}))),
                       "divide: integer division by zero");
  EXPECT_RUNTIME_ERROR(Take(Iota(kF32, {4, 3}), Iota(kI64, {100000}), 0),
                       "take: index 4 is out of range for axis 0 with size 4");
  SetNumThreads(0);
  EXPECT_EQ(GetNumThreads(), 1);
}

}  // namespace
}  // namespace pipesplit::runtime
