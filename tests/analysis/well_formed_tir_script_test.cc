// Well-formedness of parsed TIR and of call_tir against its kernel (invariants 10 to 17): the
// violations the parser lets through, located at the offending text, and the malformed kernels
// the parser itself rejects with a located error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"

namespace pipesplit::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Where(Span span) {
  LineCol pos = SourceManager::Global().Locate(span);
  return std::to_string(pos.line) + ":" + std::to_string(pos.col);
}

// "line:col: message" for each diagnostic of the parsed module.
std::vector<std::string> Check(const std::string& text, WellFormedOptions options = {}) {
  ir::IRModule mod = script::ParseModule(text, "tir.py");
  std::vector<std::string> out;
  for (const Diagnostic& d : CheckWellFormed(mod, options)) {
    out.push_back(Where(d.span) + ": " + d.message);
  }
  return out;
}

// "line:col: message" of the parser's first error.
std::string ParseError(const std::string& text) {
  try {
    script::ParseModule(text, "tir.py");
  } catch (const DiagnosticError& e) {
    const Diagnostic& d = e.diagnostics().front();
    return Where(d.span) + ": " + d.message;
  }
  return "parsed";
}

// A module with one kernel `k` (A -> B, 4 x 8 float32 each) and a Relax main(x: x_type) calling
// it as given on line 13 (`prelude` adds lines before the call's).
std::string WithCall(const std::string& call,
                     const std::string& x_type = R"(R.Tensor((4, 8), "float32"))",
                     const std::string& prelude = "") {
  return R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    @R.function
    def main(x: )" +
         x_type + R"() -> R.Tensor:
)" + prelude +
         R"(        cls = Module
        y = )" +
         call +
         R"(
        return y
)";
}

TEST(WellFormedTirTest, AcceptsWellFormedKernelsAndCalls) {
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @T.prim_func
    def sum_rows(a: T.handle, b: T.handle, n: T.int64):
        m = T.int64()
        A = T.match_buffer(a, (m, n), "float16")
        B = T.match_buffer(b, (m,), "float16")
        acc = T.alloc_buffer((m,), "float32")
        for i, k in T.grid(m, n):
            with T.block("acc"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(acc[vi])
                with T.init():
                    acc[vi] = T.float32(0)
                acc[vi] = acc[vi] + T.Cast("float32", A[vi, vk])
        for i in range(m):
            with T.block("out"):
                vi = T.axis.spatial(m, i)
                T.where(i < m)
                B[vi] = T.Cast("float16", acc[vi])

    @R.function
    def main(x: R.Tensor(("m", 16), "float16")) -> R.Tensor(("m",), "float16"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.sum_rows, (x,), out_sinfo=R.Tensor((m,), "float16"),
                       tir_vars=R.shape([16]))
        return y
)"),
              IsEmpty());
}

TEST(WellFormedTirTest, TruncatedBodyIsAParseError) {
  // A file cut off inside a block: the block has no statements.
  EXPECT_EQ(ParseError(R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
)"),
            "6:13: block \"B\" has no body");
}

TEST(WellFormedTirTest, UndefinedBuffersAreParseErrors) {
  std::string head = R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        for i in range(4):
)";
  EXPECT_EQ(ParseError(head + "            C[i] = A[i]\n"), "6:13: store to an unknown buffer 'C'");
  EXPECT_EQ(ParseError(head + "            A[i] = D[i]\n"), "6:20: undefined buffer 'D'");
  EXPECT_EQ(ParseError(head + "            A[i, 0] = A[i]\n"),
            "6:13: buffer 'A' has 1 dimensions, not 2");
}

TEST(WellFormedTirTest, StoreOfTheWrongDtype) {
  EXPECT_THAT(
      Check(R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float16"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]
)"),
      ElementsAre("6:13: store to buffer 'B' of dtype float32 has a value of dtype float16 in prim "
                  "function 'k'"));
}

TEST(WellFormedTirTest, InitWithoutAReductionAndANonBoolPredicate) {
  EXPECT_THAT(
      Check(R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                T.where(i)
                with T.init():
                    A[vi] = T.float32(0)
                A[vi] = A[vi] + T.float32(1)
)"),
      ElementsAre("6:13: the predicate of block \"B\" is int32, not bool in prim function 'k'",
                  "6:13: block \"B\" has T.init() but no reduction iter variable in prim "
                  "function 'k'"));
}

TEST(WellFormedTirTest, CallTirArity) {
  EXPECT_THAT(
      Check(WithCall(R"(R.call_tir(cls.k, (x, x), out_sinfo=R.Tensor((4, 8), "float32")))")),
      ElementsAre("13:13: R.call_tir passes 3 values (2 arguments, 1 output, 0 tir_vars entries) "
                  "to prim function 'k', which has 2 parameters"));
}

TEST(WellFormedTirTest, CallTirDtype) {
  EXPECT_THAT(
      Check(WithCall(R"(R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((4, 8), "float16")))")),
      ElementsAre("13:13: R.call_tir to prim function 'k': output 0 is R.Tensor((4, 8), "
                  "dtype=\"float16\") but buffer 'B' is T.Buffer((4, 8), \"float32\") (the dtypes "
                  "differ)"));
}

TEST(WellFormedTirTest, CallTirRank) {
  EXPECT_THAT(Check(WithCall(R"(R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((32,), "float32")))")),
              ElementsAre("13:13: R.call_tir to prim function 'k': output 0 is R.Tensor((32,), "
                          "dtype=\"float32\") but buffer 'B' is T.Buffer((4, 8), \"float32\") (the "
                          "ranks differ)"));
}

TEST(WellFormedTirTest, CallTirStaticDim) {
  std::string text = WithCall(R"(R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((4, 9), "float32")))");
  EXPECT_THAT(Check(text, {.call_tir_static_dims = false}), IsEmpty());  // when turned off
  EXPECT_THAT(Check(text),
              ElementsAre("13:13: R.call_tir to prim function 'k': output 0 is R.Tensor((4, 9), "
                          "dtype=\"float32\") but buffer 'B' is T.Buffer((4, 8), \"float32\") "
                          "(dimension 1 differs)"));
}

TEST(WellFormedTirTest, CallTirSymbolicDimsAreNotCompared) {
  EXPECT_THAT(Check(WithCall(R"(R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n, 8), "float32")))",
                             R"(R.Tensor(("n", 8), "float32"))", "        n = T.int64()\n"),
                    {.call_tir_static_dims = true}),
              IsEmpty());
}

TEST(WellFormedTirTest, CallTirInplace) {
  // The output is written into argument 0: the kernel takes only A and B.
  EXPECT_THAT(
      Check(WithCall(
          R"(R.call_tir_inplace(cls.k, (x, x), inplace_indices=[0], out_sinfo=R.Tensor((4, 8), "float32")))")),
      IsEmpty());
  EXPECT_THAT(
      Check(WithCall(
          R"(R.call_tir_inplace(cls.k, (x,), inplace_indices=[-1], out_sinfo=R.Tensor((4, 8), "int32")))")),
      ElementsAre("13:13: R.call_tir_inplace to prim function 'k': output 0 is R.Tensor((4, "
                  "8), dtype=\"int32\") but buffer 'B' is T.Buffer((4, 8), \"float32\") "
                  "(the dtypes differ)"));
}

}  // namespace
}  // namespace pipesplit::analysis
