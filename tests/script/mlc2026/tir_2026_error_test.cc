// Malformed forms of the constructs of TVM's 2026 printing: each gives one located diagnostic,
// "file:line:col: error: message", at the offending text.
#include <gtest/gtest.h>

#include <string>

#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::ParseError;

// A module with one s_tir kernel `k(A: T.Buffer((4,), "int32"), flag: T.int32)` whose body is
// `lines` (its first line is line 5).
std::string Kernel(const std::string& lines) {
  return "@I.ir_module\n"
         "class Module:\n"
         "    @T.prim_func(s_tir=True)\n"
         "    def k(A: T.Buffer((4,), \"int32\"), flag: T.int32):\n" +
         lines;
}

// A module with a module-level TypeVar `n` and the given member lines (line 4 onwards).
std::string WithTypeVar(const std::string& lines) {
  return "n = TypeVar(\"n\")\n"
         "@I.ir_module\n"
         "class Module:\n" +
         lines;
}

// A Relax function `f(x: R.Tensor((4, 6), "float32"))` with one binding (line 5).
std::string Relax(const std::string& binding) {
  return "@I.ir_module\n"
         "class Module:\n"
         "    @R.function\n"
         "    def f(x: R.Tensor((4, 6), \"float32\")) -> R.Tensor((4, 6), \"float32\"):\n"
         "        " +
         binding + "\n        return x\n";
}

// ---- assert ----

TEST(Tir2026Error, AssertMessageMustBeAKindAndParts) {
  EXPECT_EQ(ParseError(Kernel("        assert flag == 0, \"flag is not zero\"\n")),
            "test.py:5:27: error: an assert message must be a pair (\"Kind\", [\"message\", ...]) "
            "of an error kind and a list of strings");
  EXPECT_EQ(ParseError(Kernel("        assert flag == 0, (\"RuntimeError\", \"not a list\")\n")),
            "test.py:5:27: error: an assert message must be a pair (\"Kind\", [\"message\", ...]) "
            "of an error kind and a list of strings");
  EXPECT_EQ(ParseError(Kernel("        assert flag == 0, (\"RuntimeError\", [\"a\", 1])\n")),
            "test.py:5:27: error: an assert message must be a pair (\"Kind\", [\"message\", ...]) "
            "of an error kind and a list of strings");
}

TEST(Tir2026Error, AssertNeedsAMessage) {
  EXPECT_EQ(ParseError(Kernel("        assert flag == 0\n")),
            "test.py:5:9: error: an assert in TIR needs a message (\"Kind\", [\"message\", ...])");
}

TEST(Tir2026Error, AssertConditionIsBoolean) {
  EXPECT_EQ(ParseError(Kernel("        assert flag, (\"RuntimeError\", [\"x\"])\n")),
            "test.py:5:16: error: an assert condition must be a boolean expression, not int32");
}

// ---- while ----

TEST(Tir2026Error, WhileConditionIsBoolean) {
  EXPECT_EQ(ParseError(Kernel("        while flag:\n            A[0] = 1\n")),
            "test.py:5:15: error: a while condition must be a boolean expression, not int32");
}

TEST(Tir2026Error, WhileHasNoElse) {
  EXPECT_EQ(ParseError(Kernel("        while flag > 0:\n            A[0] = 1\n"
                              "        else:\n            A[0] = 2\n")),
            "test.py:7:9: error: 'else' after a while loop is not supported");
}

TEST(Tir2026Error, WhileOutsideTir) {
  EXPECT_EQ(ParseError(Relax("while True:\n            pass")),
            "test.py:5:9: error: unsupported statement 'while'");
}

// ---- TypeVars ----

TEST(Tir2026Error, TypeVarOnlyInASignature) {
  EXPECT_EQ(ParseError(WithTypeVar("    @T.prim_func(s_tir=True)\n"
                                   "    def k(A: T.Buffer((4,), \"int32\")):\n"
                                   "        for i in range(n):\n"
                                   "            A[i] = 1\n")),
            "test.py:6:24: error: TypeVar 'n' can only be used in a function signature");
}

TEST(Tir2026Error, TypeVarTakesNoConstraints) {
  EXPECT_EQ(ParseError("n = TypeVar(\"n\", int, float)\n@I.ir_module\nclass Module:\n    pass\n"),
            "test.py:1:18: error: a symbolic TypeVar takes no constraints");
}

TEST(Tir2026Error, QuotedDimOnlyInASignature) {
  EXPECT_EQ(ParseError(Kernel("        B = T.alloc_buffer((\"n\",))\n")),
            "test.py:5:29: error: a quoted dim is only allowed in a function signature");
}

TEST(Tir2026Error, QuotedDimNamesADeclaredVar) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @T.prim_func(s_tir=True)\n"
                       "    def k(A: T.Buffer((\"m + 1\",), \"int32\")):\n"
                       "        A[0] = 1\n"),
            "test.py:4:25: error: undefined name 'm'");
}

// ---- PEP 695 type parameters of a kernel ----

TEST(Tir2026Error, KernelTypeParamsAreUnboundedOrInt) {
  const std::string head =
      "from __future__ import annotations\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func(s_tir=True)\n";
  EXPECT_EQ(ParseError(head + "    def k[n: float](A: T.Buffer((n,), \"int32\")):\n"
                              "        A[0] = 1\n"),
            "test.py:5:14: error: type parameter 'n' must be unbounded or int");
  EXPECT_EQ(ParseError(head + "    def k[n = 4](A: T.Buffer((n,), \"int32\")):\n"
                              "        A[0] = 1\n"),
            "test.py:5:15: error: type parameter 'n' cannot have a default");
  // A type parameter is a signature var, as a module-level TypeVar is.
  EXPECT_EQ(ParseError(head + "    def k[n](A: T.Buffer((4,), \"int32\")):\n"
                              "        A[0] = n\n"),
            "test.py:6:16: error: TypeVar 'n' can only be used in a function signature");
}

// ---- thread launches and attributes ----

TEST(Tir2026Error, LaunchThreadNeedsATagAndAnExtent) {
  EXPECT_EQ(
      ParseError(Kernel("        with T.launch_thread(1, 4) as tx:\n            A[0] = 1\n")),
      "test.py:5:14: error: T.launch_thread expects a thread tag string (or a T.env_thread var) "
      "and an extent");
  EXPECT_EQ(ParseError(Kernel("        with T.launch_thread(\"threadIdx.x\", T.float32(4.0)) as "
                              "tx:\n            A[0] = 1\n")),
            "test.py:5:45: error: a thread extent must be an integer, not float32");
}

TEST(Tir2026Error, AttrNeedsANodeKeyAndValue) {
  EXPECT_EQ(ParseError(Kernel("        T.attr(0, \"k\")\n        A[0] = 1\n")),
            "test.py:5:9: error: T.attr expects a node, a key string and a value, or a "
            "dictionary of attributes");
  EXPECT_EQ(ParseError(Kernel("        with T.attr(0, \"k\", 0) as a:\n            A[0] = 1\n")),
            "test.py:5:35: error: T.attr binds no name");
}

TEST(Tir2026Error, CommReducerArity) {
  EXPECT_EQ(
      ParseError(Kernel("        T.attr(T.comm_reducer(lambda x0: x0, [0]), \"reduce_scope\", 0)\n"
                        "        A[0] = 1\n")),
      "test.py:5:31: error: T.comm_reducer: the lambda takes 2 parameters for 1 identity "
      "element, not 1");
}

// ---- expressions, buffers, attributes ----

TEST(Tir2026Error, LetBindsADeclaredVar) {
  EXPECT_EQ(ParseError(Kernel("        A[0] = T.Let(x + 1, where={x: 1})\n")),
            "test.py:5:36: error: T.Let binds a declared variable (`v = T.float32()` before it)");
}

TEST(Tir2026Error, TargetTakesADictionary) {
  EXPECT_EQ(ParseError(Kernel("        T.func_attr({\"target\": T.target(\"llvm\")})\n"
                              "        A[0] = 1\n")),
            "test.py:5:32: error: T.target expects one dictionary");
}

TEST(Tir2026Error, ScalarOfAHandle) {
  EXPECT_EQ(ParseError(Kernel("        x: T.handle = 0\n")),
            "test.py:5:12: error: expected a TIR dtype annotation such as T.int32 (or T.let[...])");
}

TEST(Tir2026Error, OffsetFactorIsNonNegative) {
  EXPECT_EQ(ParseError(Kernel("        B = T.alloc_buffer((4,), offset_factor=-1)\n")),
            "test.py:5:48: error: offset_factor must be a non-negative integer");
}

// ---- ccl ops ----

TEST(Tir2026Error, CclBadArguments) {
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allgather(x)")),
            "test.py:5:13: error: R.ccl.allgather missing required argument 'num_workers'");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allgather(x, num_workers=0)")),
            "test.py:5:13: error: R.ccl.allgather: num_workers must be positive");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allgather(x, num_workers=\"two\")")),
            "test.py:5:13: error: R.ccl.allgather: attribute num_workers must be an integer");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.scatter_from_worker0(x, num_workers=4, axis=1)")),
            "test.py:5:13: error: R.ccl.scatter_from_worker0: dimension 1 (6) is not divisible "
            "by 4 workers");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.scatter_from_worker0(x, num_workers=2, axis=2)")),
            "test.py:5:13: error: R.ccl.scatter_from_worker0: axis 2 is out of range for a "
            "tensor of 2 dimensions");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce(R.shape([4]))")),
            "test.py:5:13: error: R.ccl.allreduce: x must be a tensor, got R.Shape");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce(x, op_type=\"mean\")")),
            "test.py:5:13: error: R.ccl.allreduce: op_type must be \"sum\", \"prod\", \"min\", "
            "\"max\" or \"avg\", not \"mean\"");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce(x, in_group=\"yes\")")),
            "test.py:5:13: error: R.ccl.allreduce: attribute in_group must be a boolean");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.broadcast_from_worker0(x, x)")),
            "test.py:5:45: error: R.ccl.broadcast_from_worker0 takes 1 positional arguments but "
            "2 were given");
}

// Arity, operands and attributes of each ccl op: one located error each.
TEST(Tir2026Error, CclArityOperandsAndAttributes) {
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce()")),
            "test.py:5:13: error: R.ccl.allreduce missing required argument 'x'");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce(x, \"sum\", True, 1)")),
            "test.py:5:45: error: R.ccl.allreduce takes 3 positional arguments but 4 were given");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce(x, kind=\"sum\")")),
            "test.py:5:32: error: R.ccl.allreduce got an unexpected keyword argument 'kind'");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allreduce(x, op_type=3)")),
            "test.py:5:13: error: R.ccl.allreduce: attribute op_type must be a string");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allgather(R.shape([4]), num_workers=2)")),
            "test.py:5:13: error: R.ccl.allgather: x must be a tensor, got R.Shape");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allgather(x, num_workers=2, in_group=1.5)")),
            "test.py:5:13: error: R.ccl.allgather: attribute in_group must be a boolean");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.allgather(x, num_workers=2, axis=1)")),
            "test.py:5:47: error: R.ccl.allgather got an unexpected keyword argument 'axis'");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.broadcast_from_worker0()")),
            "test.py:5:13: error: R.ccl.broadcast_from_worker0 missing required argument 'x'");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.broadcast_from_worker0(R.prim_value(1))")),
            "test.py:5:13: error: R.ccl.broadcast_from_worker0: x must be a tensor, got R.Prim");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.scatter_from_worker0((x, x), num_workers=2)")),
            "test.py:5:13: error: R.ccl.scatter_from_worker0: x must be a tensor, got R.Tuple");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.scatter_from_worker0(x)")),
            "test.py:5:13: error: R.ccl.scatter_from_worker0 missing required argument "
            "'num_workers'");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.scatter_from_worker0(x, num_workers=-2)")),
            "test.py:5:13: error: R.ccl.scatter_from_worker0: num_workers must be positive");
  EXPECT_EQ(ParseError(Relax("y = R.ccl.scatter_from_worker0(x, num_workers=2, axis=-3)")),
            "test.py:5:13: error: R.ccl.scatter_from_worker0: axis -3 is out of range for a "
            "tensor of 2 dimensions");
}

TEST(Tir2026Error, CclScatterNeedsAKnownShape) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @R.function\n"
                       "    def f(x: R.Tensor(dtype=\"float32\", ndim=2)) -> R.Tensor(ndim=2):\n"
                       "        y = R.ccl.scatter_from_worker0(x, num_workers=2)\n"
                       "        return x\n"),
            "test.py:5:13: error: R.ccl.scatter_from_worker0: expects a tensor of known shape");
}

}  // namespace
}  // namespace pipesplit::script
