// Parser tests: malformed input. Each test asserts the whole first line of the diagnostic,
// "file:line:col: error: message", pointing at the offending text.
#include <gtest/gtest.h>

#include <string>

#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::ParseError;

// A module whose function `main(x: R.Tensor((2,), "float32"))` has the given body; the body's
// first line is line 5 of the file.
std::string Body(const std::string& lines) {
  return "@I.ir_module\n"
         "class Module:\n"
         "    @R.function\n"
         "    def main(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n" +
         lines;
}

// ---- Lexical errors ----

TEST(ParserError, UnterminatedString) {
  EXPECT_EQ(ParseError(Body("        y = R.str(\"abc)\n        return x\n")),
            "test.py:5:19: error: unterminated string");
}

TEST(ParserError, UnterminatedTripleQuotedString) {
  EXPECT_EQ(ParseError(Body("        \"\"\"doc\n        return x\n")),
            "test.py:5:9: error: unterminated triple-quoted string");
}

TEST(ParserError, MismatchedIndentation) {
  EXPECT_EQ(ParseError(Body("        y = x\n      return y\n")),
            "test.py:6:7: error: mismatched indentation");
}

TEST(ParserError, UnexpectedIndent) {
  EXPECT_EQ(ParseError(Body("        y = x\n            return y\n")),
            "test.py:6:13: error: unexpected indent");
}

TEST(ParserError, UnexpectedCharacter) {
  EXPECT_EQ(ParseError(Body("        y = x $ x\n        return y\n")),
            "test.py:5:15: error: unexpected character '$'");
}

TEST(ParserError, InvalidUtf8) {
  EXPECT_EQ(ParseError(Body("        # caf\xc3\n        return x\n")),
            "test.py:5:14: error: invalid utf-8 byte 0xc3");
}

TEST(ParserError, UnmatchedClosingBracket) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x, x))\n        return y\n")),
            "test.py:5:24: error: unmatched ')'");
}

TEST(ParserError, MismatchedBrackets) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x, x]\n        return y\n")),
            "test.py:5:23: error: closing ']' does not match opening '('");
}

TEST(ParserError, BracketNeverClosed) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x,\n")),
            "test.py:5:18: error: '(' was never closed");
}

TEST(ParserError, InvalidNumberLiteral) {
  EXPECT_EQ(ParseError(Body("        y = R.const(12ab)\n        return y\n")),
            "test.py:5:21: error: invalid number literal '12ab'");
}

// ---- Syntax errors ----

TEST(ParserError, ExpectedColon) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor)\n"
                       "        return x\n"),
            "test.py:4:26: error: expected ':' but found newline");
}

TEST(ParserError, ExpectedClosingParen) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x x)\n        return y\n")),
            "test.py:5:21: error: expected ')' but found 'x'");
}

TEST(ParserError, ChainedAssignment) {
  EXPECT_EQ(ParseError(Body("        y = z = x\n        return y\n")),
            "test.py:5:15: error: chained assignments like 'a = b = c' are not supported");
}

TEST(ParserError, UnsupportedStatement) {
  EXPECT_EQ(ParseError(Body("        for i in x:\n            pass\n        return x\n")),
            "test.py:5:9: error: unsupported statement 'for'");
}

TEST(ParserError, ExpectedIndentedBlock) {
  EXPECT_EQ(ParseError(Body("        if x:\n        return x\n")),
            "test.py:6:9: error: expected an indented block but found 'return'");
}

TEST(ParserError, PositionalAfterKeyword) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x1=x, x)\n        return y\n")),
            "test.py:5:25: error: positional argument follows keyword argument");
}

TEST(ParserError, FStrings) {
  EXPECT_EQ(ParseError(Body("        y = R.str(f\"{x}\")\n        return y\n")),
            "test.py:5:19: error: f-strings are not supported");
}

TEST(ParserError, EmptyFile) {
  EXPECT_EQ(ParseError(""), "test.py:1:1: error: expected an @I.ir_module class");
}

// ---- Name resolution and module structure ----

TEST(ParserError, UndefinedVariable) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x, q)\n        return y\n")),
            "test.py:5:22: error: undefined variable 'q'");
}

TEST(ParserError, UnknownModuleFunction) {
  EXPECT_EQ(
      ParseError(Body("        cls = Module\n        y = cls.missing(x)\n        return y\n")),
      "test.py:6:13: error: module 'Module' has no function 'missing'");
}

TEST(ParserError, DuplicateMember) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @R.function\n"
                       "    def f(x: R.Object) -> R.Object:\n        return x\n\n"
                       "    @R.function\n    def f(x: R.Object) -> R.Object:\n        return x\n"),
            "test.py:8:9: error: duplicate module member 'f'");
}

TEST(ParserError, ParameterWithoutAnnotation) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @R.function\n"
                       "    def main(x, y: R.Object) -> R.Object:\n        return y\n"),
            "test.py:4:14: error: parameter 'x' needs a type annotation");
}

TEST(ParserError, MissingReturn) {
  EXPECT_EQ(ParseError(Body("        y = x\n")),
            "test.py:4:9: error: function 'main' has no return statement");
}

TEST(ParserError, StatementAfterReturn) {
  EXPECT_EQ(ParseError(Body("        return x\n        y = x\n")),
            "test.py:6:9: error: statements after return are not allowed");
}

// ---- Struct info, ops and values ----

TEST(ParserError, UnknownStructInfo) {
  EXPECT_EQ(ParseError(Body("        y: R.Tensr((2,), \"float32\") = x\n        return y\n")),
            "test.py:5:12: error: unknown struct info 'R.Tensr'");
}

TEST(ParserError, InvalidDtype) {
  EXPECT_EQ(ParseError(Body("        y: R.Tensor((2,), \"flaot32\") = x\n        return y\n")),
            "test.py:5:27: error: invalid dtype 'flaot32'");
}

TEST(ParserError, UnknownOpNeedsAnnotation) {
  EXPECT_EQ(ParseError(Body("        y = R.foo(x)\n        return y\n")),
            "test.py:5:13: error: op R.foo needs an annotation: its result type is unknown");
}

TEST(ParserError, AnnotationContradictsValue) {
  EXPECT_EQ(ParseError(Body("        y: R.Tensor((3,), \"int32\") = x\n        return y\n")),
            "test.py:5:12: error: annotation R.Tensor((3,), dtype=\"int32\") does not match the "
            "value's R.Tensor((2,), dtype=\"float32\")");
}

TEST(ParserError, UnexpectedKeywordArgument) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x, x, axis=1)\n        return y\n")),
            "test.py:5:25: error: R.add got an unexpected keyword argument 'axis'");
}

TEST(ParserError, MissingRequiredArgument) {
  EXPECT_EQ(ParseError(Body("        y = R.add(x)\n        return y\n")),
            "test.py:5:13: error: R.add missing required argument 'x2'");
}

TEST(ParserError, IntegerOverflow) {
  EXPECT_EQ(ParseError(Body("        y = R.shape([99999999999999999999])\n        return x\n")),
            "test.py:5:22: error: integer literal 99999999999999999999 is out of the int64 range");
}

TEST(ParserError, PythonNumberWithRelaxValue) {
  EXPECT_EQ(ParseError(Body("        y = x + 1\n        return y\n")),
            "test.py:5:13: error: operand of '+' is a python number; write it as R.const(...) "
            "to use it with a relax expression");
}

TEST(ParserError, AmbiguousIntegerDivision) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @R.function\n"
                       "    def main(x: R.Tensor((\"n\",), \"float32\")) -> R.Shape:\n"
                       "        n = T.int64()\n        return R.shape([n / 2])\n"),
            "test.py:6:25: error: '/' on integer symbolic expressions is ambiguous; use '//' or "
            "T.truncdiv");
}

TEST(ParserError, DivisionByZero) {
  EXPECT_EQ(ParseError(Body("        y = R.shape([4 // 0])\n        return x\n")),
            "test.py:5:22: error: division by zero");
}

TEST(ParserError, UnpackCountMismatch) {
  EXPECT_EQ(ParseError(Body("        a, b = x, x, x\n        return a\n")),
            "test.py:5:9: error: cannot unpack 3 values into 2 targets");
}

TEST(ParserError, TupleIndexOutOfRange) {
  EXPECT_EQ(ParseError(Body("        t = (x, x)\n        y = t[5]\n        return y\n")),
            "test.py:6:13: error: tuple index 5 is out of range for a tuple of 2 fields");
}

// ---- Blocks ----

TEST(ParserError, OutputOutsideDataflow) {
  EXPECT_EQ(ParseError(Body("        R.output(x)\n        return x\n")),
            "test.py:5:9: error: R.output is only allowed inside a dataflow block");
}

TEST(ParserError, OutputNotLast) {
  EXPECT_EQ(
      ParseError(Body("        with R.dataflow():\n            y = x\n            R.output(y)\n"
                      "            z = y\n        return y\n")),
      "test.py:8:13: error: R.output must be the last statement of a dataflow block");
}

TEST(ParserError, OutputOfUnboundName) {
  EXPECT_EQ(
      ParseError(Body("        with R.dataflow():\n            y = x\n            R.output(x)\n"
                      "        return y\n")),
      "test.py:7:22: error: 'x' is not bound in this dataflow block");
}

TEST(ParserError, NestedDataflow) {
  EXPECT_EQ(ParseError(Body("        with R.dataflow():\n            with R.dataflow():\n"
                            "                y = x\n        return x\n")),
            "test.py:6:13: error: dataflow blocks cannot be nested");
}

TEST(ParserError, IfInsideDataflow) {
  EXPECT_EQ(ParseError(Body("        with R.dataflow():\n            if x:\n                y = x\n"
                            "            else:\n                y = x\n        return x\n")),
            "test.py:6:13: error: if statements are not allowed inside a dataflow block");
}

TEST(ParserError, IfWithoutElse) {
  EXPECT_EQ(ParseError(Body("        if x:\n            y = x\n        return x\n")),
            "test.py:5:9: error: an if statement needs an else branch");
}

TEST(ParserError, BranchesBindDifferentVars) {
  EXPECT_EQ(ParseError(Body("        if x:\n            a = x\n        else:\n            b = x\n"
                            "        return x\n")),
            "test.py:5:9: error: the last bindings of the two branches must bind the same "
            "variable, not 'a' and 'b'");
}

TEST(ParserError, FuncAttrTwice) {
  EXPECT_EQ(ParseError(Body("        R.func_attr({\"a\": 1})\n        R.func_attr({\"b\": 2})\n"
                            "        return x\n")),
            "test.py:6:9: error: R.func_attr may appear only once per function");
}

TEST(ParserError, ReturnInsideDataflow) {
  EXPECT_EQ(ParseError(Body("        with R.dataflow():\n            return x\n")),
            "test.py:6:13: error: return is not allowed inside a dataflow block");
}

TEST(ParserError, MatchCastAnnotationDiffers) {
  EXPECT_EQ(
      ParseError(Body("        y: R.Tensor((3,), \"float32\") = R.match_cast(x, R.Tensor((2,), "
                      "\"float32\"))\n        return y\n")),
      "test.py:5:12: error: annotation R.Tensor((3,), dtype=\"float32\") differs from the "
      "R.match_cast target R.Tensor((2,), dtype=\"float32\")");
}

TEST(ParserError, SymbolicVarRedeclaredWithAnotherDtype) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @R.function\n"
                       "    def main(x: R.Tensor((\"n\",), \"float32\")) -> R.Object:\n"
                       "        n = T.int64()\n        n = T.int32()\n        return x\n"),
            "test.py:6:9: error: symbolic variable 'n' was declared as int64, not int32");
}

TEST(ParserError, RedefiningARelaxVarAsSymbolic) {
  EXPECT_EQ(ParseError(Body("        x = T.int64()\n        return x\n")),
            "test.py:5:9: error: cannot redefine 'x' as a symbolic variable");
}

TEST(ParserError, UnsupportedDecorator) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    @staticmethod\n"
                       "    def main(x: R.Object) -> R.Object:\n        return x\n"),
            "test.py:3:6: error: unsupported decorator; expected @R.function");
}

TEST(ParserError, ModuleLevelAssignmentMustBeAnExternFunc) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n    x = 1\n"),
            "test.py:3:9: error: a module-level assignment must define an R.ExternFunc");
}

TEST(ParserError, TwoModules) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass A:\n    pass\n@I.ir_module\nclass B:\n    pass\n"),
            "test.py:5:7: error: only one module per file is supported");
}

TEST(ParserError, TypeVarNameMismatch) {
  EXPECT_EQ(ParseError("N = TypeVar(\"M\")\n@I.ir_module\nclass A:\n    pass\n"),
            "test.py:1:5: error: TypeVar \"N\" must be declared as N = TypeVar(\"N\")");
}

TEST(ParserError, RelaxComputationAtModuleLevel) {
  EXPECT_EQ(ParseError("@I.ir_module\nclass Module:\n"
                       "    I.module_attrs({\"a\": R.add(R.const(1), R.const(2))})\n"),
            "test.py:3:26: error: relax expressions are only allowed inside a function");
}

TEST(ParserError, ExpressionNestedTooDeeply) {
  ParseOptions options;
  options.max_depth = 10;
  EXPECT_EQ(ParseError(Body("        y = R.shape([-(-(-(-(-(-(-(-(-(-(-(1)))))))))))])\n"
                            "        return x\n"),
                       options),
            "test.py:5:39: error: brackets are nested too deeply (limit 10 levels)");
  EXPECT_EQ(ParseError(Body("        y = R.shape([- - - - - - - - - - - -1])\n        return x\n"),
                       options),
            "test.py:5:36: error: expression is nested too deeply (limit 10 levels)");
}

}  // namespace
}  // namespace pipesplit::script

namespace pipesplit::script {
namespace {

// Found by fuzz_rewrite: a shape var of another dtype than int64 was cast inside the shapes that
// used it, and the rewritten signature's string dimension could not spell the cast.
TEST(ParserError, ShapeVariableMustBeInt64) {
  EXPECT_EQ(
      testing::ParseError("@I.ir_module\nclass Module:\n    @R.function\n"
                          "    def main(x: R.Object) -> R.Object:\n"
                          "        m = T.int28()\n"
                          "        y: R.Tensor((m, 2), \"float32\") = R.zeros(R.shape([m, 2]), "
                          "\"float32\")\n        return x\n"),
      "test.py:6:59: error: symbolic shape variable 'm' must be int64, not int28");
}

}  // namespace
}  // namespace pipesplit::script
