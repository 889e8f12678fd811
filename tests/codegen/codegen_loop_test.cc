// Loop nest optimizations: the legality rules of loop_plan.cc on kernels covering each case and
// each fallback, and bit-identical results against the serial written-order build (and a
// reference loop written here) for 1, 2 and 3 threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "src/codegen/codegen_internal.h"
#include "tests/codegen/kernel_test_util.h"

namespace pipesplit::codegen {
namespace {

using testing::BufferArg;
using testing::KernelLibrary;

// Kernels as LegalizeOps writes them (first group) and nests that must keep their order.
const std::string kLoops = std::string(testing::kHeader) + R"(    @T.prim_func
    def mm(A: T.Buffer((T.int64(64), T.int64(48)), "float32"), B: T.Buffer((T.int64(48), T.int64(64)), "float32"), C: T.Buffer((T.int64(64), T.int64(64)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i0, i1, k in T.grid(T.int64(64), T.int64(64), T.int64(48)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(C[v_i0, v_i1])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]

    @T.prim_func
    def mm_odd(var_A: T.handle, B: T.Buffer((T.int64(150), T.int64(131)), "float32"), var_C: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(150)))
        C = T.match_buffer(var_C, (n, T.int64(131)))
        for i0, i1, k in T.grid(n, T.int64(131), T.int64(150)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                with T.init():
                    C[v_i0, v_i1] = T.float32(0)
                C[v_i0, v_i1] = C[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]

    @T.prim_func
    def nt_batch(A: T.Buffer((T.int64(2), T.int64(5), T.int64(70)), "float32"), B: T.Buffer((T.int64(2), T.int64(90), T.int64(70)), "float32"), C: T.Buffer((T.int64(2), T.int64(5), T.int64(90)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for b, i, j, k in T.grid(T.int64(2), T.int64(5), T.int64(90), T.int64(70)):
            with T.block("NT_matmul"):
                v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
                with T.init():
                    C[v_b, v_i, v_j] = T.float32(0)
                C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + A[v_b, v_i, v_k] * B[v_b, v_j, v_k]

    @T.prim_func
    def bmm_attn(var_Q: T.handle, var_K: T.handle, var_S: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        Q = T.match_buffer(var_Q, (T.int64(1), T.int64(3), n, T.int64(16)))
        K = T.match_buffer(var_K, (T.int64(1), T.int64(3), T.int64(16), n))
        S = T.match_buffer(var_S, (T.int64(1), T.int64(3), n, n))
        for b, h, i, j, k in T.grid(T.int64(1), T.int64(3), n, n, T.int64(16)):
            with T.block("matmul"):
                v_b, v_h, v_i, v_j, v_k = T.axis.remap("SSSSR", [b, h, i, j, k])
                with T.init():
                    S[v_b, v_h, v_i, v_j] = T.float32(0)
                S[v_b, v_h, v_i, v_j] = S[v_b, v_h, v_i, v_j] + Q[v_b, v_h, v_i, v_k] * K[v_b, v_h, v_k, v_j]

    @T.prim_func
    def mm_bias(A: T.Buffer((T.int64(19), T.int64(33)), "float32"), B: T.Buffer((T.int64(33), T.int64(40)), "float32"), Bias: T.Buffer((T.int64(40),), "float32"), C: T.Buffer((T.int64(19), T.int64(40)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(19), T.int64(40), T.int64(33)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = Bias[v_j] * T.float32(0.5) + T.Cast("float32", v_i)
                C[v_i, v_j] = C[v_i, v_j] - A[v_i, v_k] * B[v_k, v_j]

    @T.prim_func
    def mm_accumulate(A: T.Buffer((T.int64(17), T.int64(12)), "float32"), B: T.Buffer((T.int64(12), T.int64(35)), "float32"), C: T.Buffer((T.int64(17), T.int64(35)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(17), T.int64(35), T.int64(12)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                C[v_i, v_j] = C[v_i, v_j] * T.float32(0.75) + A[v_i, v_k] * B[v_k, v_j]

    @T.prim_func
    def matvec(var_A: T.handle, B: T.Buffer((T.int64(40), T.int64(50)), "float32"), var_C: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        m = T.int64()
        A = T.match_buffer(var_A, (T.int64(1), T.int64(1), m))
        C = T.match_buffer(var_C, (T.int64(1), T.int64(1), T.int64(50)))
        for b, i, j, k in T.grid(T.int64(1), T.int64(1), T.int64(50), T.min(m, T.int64(40))):
            with T.block("matmul"):
                v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
                with T.init():
                    C[v_b, v_i, v_j] = T.float32(0)
                C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + A[v_b, v_i, v_k] * B[v_k, v_j]

    @T.prim_func
    def half_mm(A: T.Buffer((T.int64(11), T.int64(20)), "float16"), B: T.Buffer((T.int64(20), T.int64(21)), "float16"), C: T.Buffer((T.int64(11), T.int64(21)), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(11), T.int64(21), T.int64(20)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = T.float16(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]

    @T.prim_func
    def two_reduce(A: T.Buffer((T.int64(33), T.int64(7), T.int64(9)), "float32"), S: T.Buffer((T.int64(33),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k1, k2 in T.grid(T.int64(33), T.int64(7), T.int64(9)):
            with T.block("S"):
                v_i, v_k1, v_k2 = T.axis.remap("SRR", [i, k1, k2])
                with T.init():
                    S[v_i] = T.float32(0.5)
                S[v_i] = S[v_i] * T.float32(1.25) + A[v_i, v_k1, v_k2]

    @T.prim_func
    def where_offset(A: T.Buffer((T.int64(40), T.int64(9)), "float32"), S: T.Buffer((T.int64(40),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(T.int64(40), T.int64(8)):
            with T.block("S"):
                v_i = T.axis.spatial(T.int64(40), i)
                v_k = T.axis.reduce((T.int64(2), T.int64(9)), k + T.int64(2))
                T.where(k < T.int64(7))
                with T.init():
                    S[v_i] = T.float32(1)
                S[v_i] = S[v_i] * A[v_i, v_k] - T.float32(0.25)

    @T.prim_func
    def half_sum(A: T.Buffer((T.int64(70), T.int64(40)), "float16"), S: T.Buffer((T.int64(70),), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(T.int64(70), T.int64(40)):
            with T.block("S"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    S[v_i] = T.float16(0)
                S[v_i] = S[v_i] + A[v_i, v_k] * A[v_i, v_k]

    @T.prim_func
    def int_mac(A: T.Buffer((T.int64(20), T.int64(30)), "int32"), M: T.Buffer((T.int64(30), T.int64(20)), "int32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for j, k in T.grid(T.int64(30), T.int64(20)):
            with T.block("M"):
                v_j, v_k = T.axis.remap("SR", [j, k])
                with T.init():
                    M[v_j, T.int64(3)] = 7
                M[v_j, T.int64(3)] = M[v_j, T.int64(3)] * 31 + A[v_k, v_j]

    @T.prim_func
    def elementwise(A: T.Buffer((T.int64(130), T.int64(257)), "float32"), B: T.Buffer((T.int64(130), T.int64(257)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(T.int64(130), T.int64(257)):
            with T.block("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                B[v_i, v_j] = A[v_i, v_j] * T.float32(3) + T.float32(1)

    @T.prim_func
    def par(A: T.Buffer((T.int64(16), T.int64(16)), "float32"), B: T.Buffer((T.int64(16), T.int64(16)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in T.parallel(T.int64(16)):
            for j in range(T.int64(16)):
                B[i, j] = A[i, j] + A[i, T.int64(15) - j]

    @T.prim_func
    def reads_other(A: T.Buffer((T.int64(24), T.int64(24)), "float32"), C: T.Buffer((T.int64(24),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(T.int64(24), T.int64(24)):
            with T.block("C"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    C[v_i] = T.float32(0)
                C[v_i] = C[v_i] + A[v_i, v_k] + C[T.max(v_i, T.int64(1)) - T.int64(1)]

    @T.prim_func
    def may_alias(A: T.Buffer((T.int64(24), T.int64(24)), "float32"), C: T.Buffer((T.int64(24),), "float32")):
        for i, k in T.grid(T.int64(24), T.int64(24)):
            with T.block("C"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    C[v_i] = T.float32(0)
                C[v_i] = C[v_i] + A[v_i, v_k]

    @T.prim_func
    def triangular(A: T.Buffer((T.int64(24), T.int64(24)), "float32"), C: T.Buffer((T.int64(24),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(24)):
            for k in range(i + T.int64(1)):
                with T.block("C"):
                    v_i, v_k = T.axis.remap("SR", [i, k])
                    with T.init():
                        C[v_i] = T.float32(0)
                    C[v_i] = C[v_i] + A[v_i, v_k]

    @T.prim_func
    def index_expr(A: T.Buffer((T.int64(24), T.int64(24)), "float32"), C: T.Buffer((T.int64(48),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(T.int64(24), T.int64(24)):
            with T.block("C"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    C[v_i * T.int64(2)] = T.float32(0)
                C[v_i * T.int64(2)] = C[v_i * T.int64(2)] + A[v_i, v_k]

    @T.prim_func
    def imperfect(A: T.Buffer((T.int64(24), T.int64(24)), "float32"), C: T.Buffer((T.int64(24),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(T.int64(24)):
            C[i] = T.float32(2)
            for k in range(T.int64(24)):
                C[i] = C[i] * A[i, k] + T.float32(1)
)";

// The first loop of kernel `name` (under the root block and sequences).
const ir::ForNode* FirstLoop(const ir::IRModule& mod, const std::string& name) {
  const auto* func = ir::As<ir::PrimFuncNode>(mod.Lookup(name));
  if (func == nullptr) return nullptr;
  ir::Stmt s = func->body();
  while (s) {
    if (const auto* loop = ir::As<ir::ForNode>(s)) return loop;
    if (const auto* r = ir::As<ir::BlockRealizeNode>(s)) {
      s = r->block()->body();
    } else if (const auto* seq = ir::As<ir::SeqStmtNode>(s)) {
      s = seq->seq().empty() ? ir::Stmt() : seq->seq()[0];
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

std::optional<NestPlan> Plan(const std::string& name) {
  static const ir::IRModule mod = script::ParseModule(kLoops, "loops.py");
  const ir::ForNode* loop = FirstLoop(mod, name);
  EXPECT_NE(loop, nullptr) << name;
  if (loop == nullptr) return std::nullopt;
  return PlanLoopNest(*loop, *ir::As<ir::PrimFuncNode>(mod.Lookup(name)));
}

TEST(CodegenLoopPlan, MovesTheContiguousSpatialLoopInsideTheReduction) {
  auto mm = Plan("mm");
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->is_index, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(mm->moved, 1);
  EXPECT_EQ(mm->tile, 0);  // extent 64: one tile
  auto odd = Plan("mm_odd");
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->moved, 1);
  EXPECT_EQ(odd->tile, 64);  // extent 131: tiles of 64, 64 and 3
  // Register tiles: the other index loop gives the rows; constant extents below the tile
  // shrink it.
  EXPECT_EQ(mm->reg_row, 0);
  EXPECT_EQ(mm->reg_rows, 8);
  EXPECT_EQ(mm->reg_cols, 16);
  EXPECT_EQ(odd->reg_row, 0);
  EXPECT_EQ(odd->reg_rows, 8);  // symbolic rows: full tiles and an edge tile
  auto attn = Plan("bmm_attn");
  ASSERT_TRUE(attn.has_value());
  EXPECT_EQ(attn->moved, 3);
  EXPECT_EQ(attn->reg_row, 2);
  auto bias = Plan("mm_bias");
  ASSERT_TRUE(bias.has_value());
  EXPECT_EQ(bias->reg_rows, 8);
  EXPECT_EQ(bias->reg_cols, 16);
  auto mv = Plan("matvec");
  ASSERT_TRUE(mv.has_value());
  EXPECT_EQ(mv->reg_row, 1);
  EXPECT_EQ(mv->reg_rows, 1);
  auto nt = Plan("nt_batch");
  ASSERT_TRUE(nt.has_value());
  EXPECT_EQ(nt->is_index, (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(nt->moved, 2);
  EXPECT_EQ(nt->reg_row, 1);
  EXPECT_EQ(nt->reg_rows, 5);
  // Two reduction loops keep their order; the spatial loop goes inside both.
  auto two = Plan("two_reduce");
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->moved, 0);
  EXPECT_EQ(two->reg_row, -1);  // one index loop: no rows to tile
  // Predicates and offset reduction domains do not prevent the move.
  auto where = Plan("where_offset");
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->moved, 0);
  EXPECT_EQ(where->reg_row, -1);
  // A constant store index is allowed; the one spatial loop moves.
  auto mac = Plan("int_mac");
  ASSERT_TRUE(mac.has_value());
  EXPECT_EQ(mac->is_index, (std::vector<bool>{true, false}));
  EXPECT_EQ(mac->moved, 0);
}

TEST(CodegenLoopPlan, KeepsTheWrittenOrderOfNestsWithoutAReductionInside) {
  auto e = Plan("elementwise");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->moved, -1);
  EXPECT_EQ(e->is_index, (std::vector<bool>{true, true}));
  EXPECT_FALSE(Plan("par").has_value());  // a T.parallel loop is not a serial nest
}

TEST(CodegenLoopPlan, FallsBackWhereTheOrderCouldMatter) {
  EXPECT_FALSE(Plan("reads_other").has_value());  // reads another element of the output
  EXPECT_FALSE(Plan("may_alias").has_value());    // no tir.noalias: C may alias A
  EXPECT_FALSE(Plan("triangular").has_value());   // inner extent uses the outer loop var
  EXPECT_FALSE(Plan("index_expr").has_value());   // store index is not a plain loop var
  EXPECT_FALSE(Plan("imperfect").has_value());    // not a perfect nest
}

// ---- Execution.

// A launch on `threads` std::threads, cutting [0, n) into ranges of `grain`.
int g_threads = 1;
std::atomic<int> g_ranges{0};
int32_t TestLaunch(int64_t n, int64_t grain, PipesplitParallelTaskFn task, void* closure) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t b = 0; b < n; b += grain) ranges.emplace_back(b, std::min(n, b + grain));
  std::atomic<size_t> next{0};
  std::atomic<int32_t> status{0};
  auto work = [&] {
    for (size_t r; (r = next.fetch_add(1)) < ranges.size();) {
      g_ranges.fetch_add(1);
      if (task(closure, ranges[r].first, ranges[r].second) != 0) status.store(1);
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < g_threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& t : workers) t.join();
  return status.load();
}

int32_t FailingLaunch(int64_t, int64_t, PipesplitParallelTaskFn, void*) { return 3; }

void SetLaunch(const KernelLibrary& lib, PipesplitParallelLaunchFn launch) {
  auto set =
      reinterpret_cast<PipesplitKernelSetRuntimeFn>(lib.Symbol("pipesplit_kernel_set_runtime"));
  ASSERT_NE(set, nullptr);
  const PipesplitKernelRuntime runtime{launch, nullptr};
  set(&runtime);
}

// Random buffers for one call of a kernel, in parameter order, as raw bytes.
struct Call {
  std::vector<std::vector<float>> f32;
  std::vector<std::vector<uint16_t>> f16;
  std::vector<std::vector<int32_t>> i32;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<PipesplitKernelArg> args;
};

template <typename T>
void AddBuffer(Call& call, std::vector<std::vector<T>>& store, std::vector<int64_t> shape,
               std::mt19937& gen, uint8_t code = 0) {
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  std::vector<T> data(size);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  for (T& x : data) {
    if constexpr (std::is_same_v<T, uint16_t>) {
      x = static_cast<uint16_t>(0x3000 + (dist(gen) & 0x7ff) + (dist(gen) < 0 ? 0x8000 : 0));
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(dist(gen)) / 997.0f;
    } else {
      x = static_cast<T>(dist(gen) * 1234567);
    }
  }
  store.push_back(std::move(data));
  call.shapes.push_back(std::move(shape));
  PipesplitKernelArg arg = BufferArg(store.back(), call.shapes.back());
  if (code != 0) arg.dtype_code = code;
  call.args.push_back(arg);
}

// Fresh random arguments of kernel `name` (seeded: every call gets the same values).
Call MakeCall(const std::string& name) {
  std::mt19937 gen(42);
  Call c;
  c.f32.reserve(4);
  c.f16.reserve(4);
  c.i32.reserve(4);
  c.shapes.reserve(4);
  auto f = [&](std::vector<int64_t> s) { AddBuffer(c, c.f32, std::move(s), gen); };
  if (name == "mm") f({64, 48}), f({48, 64}), f({64, 64});
  if (name == "mm_odd") f({37, 150}), f({150, 131}), f({37, 131});
  if (name == "nt_batch") f({2, 5, 70}), f({2, 90, 70}), f({2, 5, 90});
  if (name == "bmm_attn") f({1, 3, 21, 16}), f({1, 3, 16, 21}), f({1, 3, 21, 21});
  if (name == "mm_bias") f({19, 33}), f({33, 40}), f({40}), f({19, 40});
  if (name == "mm_accumulate") f({17, 12}), f({12, 35}), f({17, 35});
  if (name == "matvec") f({1, 1, 45}), f({40, 50}), f({1, 1, 50});
  if (name == "matvec_empty") f({1, 1, 0}), f({40, 50}), f({1, 1, 50});
  if (name == "half_mm") {
    AddBuffer(c, c.f16, {11, 20}, gen, 2);
    AddBuffer(c, c.f16, {20, 21}, gen, 2);
    AddBuffer(c, c.f16, {11, 21}, gen, 2);
  }
  if (name == "two_reduce") f({33, 7, 9}), f({33});
  if (name == "where_offset") f({40, 9}), f({40});
  if (name == "half_sum") {
    AddBuffer(c, c.f16, {70, 40}, gen, 2);
    AddBuffer(c, c.f16, {70}, gen, 2);
  }
  if (name == "int_mac") {
    AddBuffer(c, c.i32, {20, 30}, gen);
    AddBuffer(c, c.i32, {30, 20}, gen);
  }
  if (name == "elementwise") f({130, 257}), f({130, 257});
  if (name == "par") f({16, 16}), f({16, 16});
  if (name == "reads_other" || name == "may_alias" || name == "triangular") f({24, 24}), f({24});
  if (name == "index_expr") f({24, 24}), f({48});
  if (name == "imperfect") f({24, 24}), f({24});
  return c;
}

// All the bytes of a call's buffers.
std::string Bytes(const Call& c) {
  std::string out;
  auto add = [&](const auto& v) {
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  for (const auto& v : c.f32) add(v);
  for (const auto& v : c.f16) add(v);
  for (const auto& v : c.i32) add(v);
  return out;
}

const char* const kKernels[] = {"mm",        "mm_odd",        "nt_batch",     "bmm_attn",
                                "mm_bias",   "mm_accumulate", "matvec",       "matvec_empty",
                                "half_mm",   "two_reduce",    "where_offset", "half_sum",
                                "int_mac",   "elementwise",   "par",          "reads_other",
                                "may_alias", "triangular",    "index_expr",   "imperfect"};

// The kernel a case calls ("matvec_empty": matvec with an empty reduction).
std::string KernelOf(const std::string& name) { return name == "matvec_empty" ? "matvec" : name; }

std::string RunKernel(const KernelLibrary& lib, const std::string& name) {
  Call c = MakeCall(name);
  EXPECT_EQ(lib.Call(KernelOf(name), c.args), "") << name;
  return Bytes(c);
}

TEST(CodegenLoopExec, OptimizedNestsAreBitIdenticalToTheWrittenOrderOnAnyThreadCount) {
  BuildOptions serial;
  serial.optimize_loops = false;
  KernelLibrary reference(testing::Build(kLoops, serial));
  KernelLibrary optimized(testing::Build(kLoops));
  SetLaunch(reference, nullptr);
  for (const char* name : kKernels) {
    const std::string expected = RunKernel(reference, name);
    if (std::string(name) == "matvec_empty") {
      EXPECT_EQ(expected, Bytes(MakeCall(name))) << "an empty reduction writes nothing";
    } else {
      EXPECT_NE(expected, Bytes(MakeCall(name))) << name << " wrote nothing";
    }
    for (int threads : {1, 2, 3}) {
      g_threads = threads;
      g_ranges = 0;
      SetLaunch(optimized, threads == 1 ? nullptr : &TestLaunch);
      EXPECT_TRUE(RunKernel(optimized, name) == expected)
          << name << " on " << threads << " threads";
      const std::set<std::string> parallel = {"mm", "mm_odd", "nt_batch", "elementwise", "par"};
      if (threads > 1 && parallel.count(name) != 0) {
        EXPECT_GT(g_ranges.load(), 1) << name << " did not run in parallel";
      }
    }
  }
  SetLaunch(optimized, nullptr);
}

TEST(CodegenLoopExec, ReorderedMatmulMatchesAReferenceLoop) {
  KernelLibrary optimized(testing::Build(kLoops));
  Call c = MakeCall("mm");
  ASSERT_EQ(optimized.Call("mm", c.args), "");
  const std::vector<float>& a = c.f32[0];
  const std::vector<float>& b = c.f32[1];
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 64; ++j) {
      float acc = 0;
      for (int k = 0; k < 48; ++k) {
        float p = a[i * 48 + k] * b[k * 64 + j];
        acc = acc + p;
      }
      ASSERT_EQ(std::memcmp(&acc, &c.f32[2][i * 64 + j], 4), 0) << i << ", " << j;
    }
  }
}

TEST(CodegenLoopExec, RegisterTiledBatchedMatmulMatchesAReferenceLoop) {
  KernelLibrary optimized(testing::Build(kLoops));
  Call c = MakeCall("bmm_attn");
  ASSERT_EQ(optimized.Call("bmm_attn", c.args), "");
  const std::vector<float>& q = c.f32[0];
  const std::vector<float>& k = c.f32[1];
  const int n = 21;
  for (int h = 0; h < 3; ++h) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        float acc = 0;
        for (int d = 0; d < 16; ++d) {
          float p = q[(h * n + i) * 16 + d] * k[(h * 16 + d) * n + j];
          acc = acc + p;
        }
        ASSERT_EQ(std::memcmp(&acc, &c.f32[2][(h * n + i) * n + j], 4), 0) << h << i << j;
      }
    }
  }
}

TEST(CodegenLoopExec, TheRuntimeLaunchGivesTheSameBitsOnOneAndTwoThreads) {
  std::string path = testing::Build(kLoops);
  auto lib = runtime::KernelLibrary::Load(path);
  const int before = runtime::GetNumThreads();
  std::string one, two;
  for (int threads : {1, 2}) {
    runtime::SetNumThreads(threads);
    Call c = MakeCall("mm_odd");
    lib->Call("mm_odd", std::span<const PipesplitKernelArg>(c.args));
    (threads == 1 ? one : two) = Bytes(c);
  }
  runtime::SetNumThreads(before);
  EXPECT_TRUE(one == two);
}

const std::string kFailing = std::string(testing::kHeader) + R"(    @T.prim_func
    def par_fail(A: T.Buffer((T.int64(8),), "float32"), n: T.int64):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in T.parallel(T.int64(8)):
            with T.block("b"):
                v_i = T.axis.spatial(T.int64(8), i)
                tmp = T.alloc_buffer((n,))
                A[v_i] = T.float32(1)
)";

TEST(CodegenLoopExec, AFailureInsideAParallelLoopIsTheKernelsError) {
  KernelLibrary lib(testing::Build(kFailing));
  std::vector<float> a(8);
  std::vector<int64_t> shape = {8};
  PipesplitKernelArg n{};
  n.ndim = -1;
  n.dtype_code = 0;
  n.dtype_bits = 64;
  n.lanes = 1;
  n.scalar_int = -1;
  const std::string expected = "par_fail: buffer tmp: negative size";
  for (int threads : {1, 2}) {
    g_threads = threads;
    SetLaunch(lib, threads == 1 ? nullptr : &TestLaunch);
    EXPECT_EQ(lib.Call("par_fail", {BufferArg(a, shape), n}), expected);
  }
  SetLaunch(lib, &FailingLaunch);
  EXPECT_EQ(lib.Call("par_fail", {BufferArg(a, shape), n}),
            "par_fail: parallel launch failed (status 3)");
  SetLaunch(lib, nullptr);
}

TEST(CodegenLoopExec, AKernelCannotTakeTheNameOfTheLibrarysOwnExports) {
  for (const char* name : {"set_runtime", "fast_paths", "names", "abi_version"}) {
    std::string text = kFailing;
    text.replace(text.find("par_fail"), 8, name);
    try {
      GenerateSource(script::ParseModule(text, "bad.py"), false);
      ADD_FAILURE() << "no error for " << name;
    } catch (const CodegenError& e) {
      EXPECT_EQ(std::string(e.what()),
                "kernel name '" + std::string(name) + "' cannot be a symbol name");
    }
  }
}

}  // namespace
}  // namespace pipesplit::codegen
