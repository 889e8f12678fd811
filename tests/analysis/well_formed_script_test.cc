// Well-formedness of parsed TVMScript: the violations the parser lets through (it rejects
// undefined names, ifs in dataflow blocks and the like itself), located at the offending text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"

namespace pipesplit::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "line:col: message [note line:col: message]" for each diagnostic of the parsed module.
std::vector<std::string> Check(const std::string& text) {
  ir::IRModule mod = script::ParseModule(text, "wf.py");
  std::vector<std::string> out;
  auto where = [](Span span) {
    LineCol pos = SourceManager::Global().Locate(span);
    return std::to_string(pos.line) + ":" + std::to_string(pos.col);
  };
  for (const Diagnostic& d : CheckWellFormed(mod)) {
    std::string line = where(d.span) + ": " + d.message;
    for (const Note& n : d.notes) line += " [note " + where(n.span) + ": " + n.message + "]";
    out.push_back(line);
  }
  return out;
}

TEST(WellFormedScriptTest, AcceptsAWellFormedModule) {
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @T.prim_func
    def kernel(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.evaluate(0)

    @R.function
    def helper(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            lv = R.add(x, x)
            lv1 = R.call_tir(cls.kernel, (lv,), out_sinfo=R.Tensor((4,), "float32"))
            gv = cls.helper(lv1)
            R.output(gv)
        R.print(gv, format="{}")
        y = R.match_cast(gv, R.Tensor(("m",), "float32"))
        if c:
            z = R.add(y, y)
        else:
            z = y
        return z
)"),
              IsEmpty());
}

TEST(WellFormedScriptTest, SymbolicVarInACompositeDimIsUndefined) {
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor(("n * 2",), "float32")) -> R.Tensor(ndim=1, dtype="float32"):
        return x
)"),
              ElementsAre("4:14: symbolic variable 'n' is not defined"));
}

TEST(WellFormedScriptTest, GlobalSymbolAndCallTirCallee) {
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"global_symbol": "other"})
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.helper, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
)"),
              ElementsAre("3:5: the global_symbol \"other\" of function 'helper' does not match "
                          "its name",
                          "11:13: R.call_tir expects a prim function, but cls.helper is a Relax "
                          "function"));
}

TEST(WellFormedScriptTest, AnnotationsContradictingInference) {
  // TVM's own tests mark this module check_well_formed=False.
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((128, 32), "float32"), B: R.Tensor((128, 32), "float32")):
        C: R.Tensor((128, 32), dtype="int32") = R.add(A, B)
        return C
)"),
              ElementsAre("5:49: R.add has struct info R.Tensor((128, 32), dtype=\"int32\"), but "
                          "its arguments give R.Tensor((128, 32), dtype=\"float32\")"));
}

TEST(WellFormedScriptTest, ReturnAnnotationContradictingTheBody) {
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @R.function
    def mul(x: R.Tensor((3, 3), "float32")) -> R.Tuple:
        res = R.multiply(x, x)
        return res
)"),
              ElementsAre("3:5: the return struct info R.Tuple of function 'mul' contradicts its "
                          "body's R.Tensor((3, 3), dtype=\"float32\")"));
}

TEST(WellFormedScriptTest, ImpureCalls) {
  EXPECT_THAT(
      Check(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            p = R.print(x, format="in")
            gv = R.add(x, x)
            R.output(gv)
        q = R.call_packed("side_effect", gv, sinfo_args=(R.Object,))
        return gv

    @R.function(pure=False)
    def forced(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        return x
)"),
      ElementsAre(
          "6:17: impure call to R.print inside a dataflow block",
          "6:17: pure function 'main' contains an impure call to R.print [note 3:5: function "
          "'main' "
          "is declared pure here]",
          "9:13: pure function 'main' contains an impure call to "
          "R.call_packed(\"side_effect\") [note 3:5: function 'main' is declared pure here]",
          "12:5: function 'forced' sets relax.force_pure but is not pure"));
}

TEST(WellFormedScriptTest, VerifyThrowsEveryViolation) {
  ir::IRModule mod = script::ParseModule(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((8,), "float32"):
        R.print(x, format="a")
        return x
)",
                                         "verify.py");
  try {
    VerifyWellFormed(mod);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_THAT(std::string(e.what()),
                ::testing::HasSubstr("verify.py:5:9: error: pure function 'main' contains an "
                                     "impure call to R.print"));
    EXPECT_THAT(std::string(e.what()),
                ::testing::HasSubstr("verify.py:3:5: error: the return struct info"));
  }
}

TEST(WellFormedScriptTest, CallableSignaturesBindTheirOwnSymbolicVars) {
  // A dispatcher names its stage functions: their signatures mention 'n', which each callee
  // binds itself, so the caller neither owns nor needs to define it.
  EXPECT_THAT(Check(R"(@I.ir_module
class Module:
    @R.function
    def stage(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        return x

    @R.function(pure=False)
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = Module
        f = R.call_packed("pick", R.tuple(cls.stage), sinfo_args=(R.Object,))
        y = cls.stage(x)
        return y
)"),
              IsEmpty());
}

}  // namespace
}  // namespace pipesplit::analysis
