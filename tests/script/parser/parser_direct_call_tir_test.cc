// The direct lowering of R.call_tir(cls.f, (x, ...), out_sinfo=...)
// (src/script/relax/parser_call_tir.cc) gives the module the general op-call path gives: the same
// printed text, the same spans on every call, argument and struct info, the same struct info on
// every argument, and the same diagnostics, on every corpus file and on calls written in each form
// the direct path must leave to the general one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/source.h"
#include "pipesplit/support/text.h"

namespace pipesplit::script {
namespace {

namespace fs = std::filesystem;

void DumpSpan(const Span& span, std::ostringstream* out) {
  *out << span.file << ':' << span.begin << '-' << span.end << ' ';
}

// The spans of every call of every Relax function, of its arguments (and their fields) and of
// its struct info arguments, and the struct info of each argument, in binding order.
std::string CallSpans(const ir::IRModule& mod) {
  std::ostringstream out;
  for (const ir::IRModule::Member& member : mod.members()) {
    const auto* func = ir::As<ir::FunctionNode>(member.func);
    if (func == nullptr) continue;
    const auto* seq = ir::As<ir::SeqExprNode>(func->body());
    if (seq == nullptr) continue;
    for (const ir::BindingBlock& block : seq->blocks()) {
      for (const ir::Binding& binding : block->bindings()) {
        DumpSpan(binding->span(), &out);
        out << PrintStructInfo(binding->var()->struct_info()) << ' ';
        const auto* call = ir::As<ir::CallNode>(binding->value());
        if (call == nullptr) continue;
        DumpSpan(call->span(), &out);
        out << PrintStructInfo(call->struct_info()) << ' ';
        for (const ir::Expr& arg : call->args()) {
          DumpSpan(arg->span(), &out);
          out << (arg->struct_info() ? PrintStructInfo(arg->struct_info()) : "(none)") << ' ';
          if (const auto* tuple = ir::As<ir::TupleNode>(arg)) {
            for (const ir::Expr& field : tuple->fields()) DumpSpan(field->span(), &out);
          }
        }
        for (const ir::StructInfo& sinfo : call->sinfo_args()) DumpSpan(sinfo->span(), &out);
        out << '\n';
      }
    }
  }
  return out.str();
}

struct Outcome {
  std::string printed;
  std::string spans;
  std::string error;
};

Outcome Parse(const SourceFile& file, bool direct, bool share = true) {
  ParseOptions options;
  options.direct_call_tir = direct;
  options.share_static_tensor_types = share;
  Outcome out;
  try {
    ir::IRModule mod = ParseModule(file, options);
    out.printed = PrintModule(mod);
    out.spans = CallSpans(mod);
  } catch (const DiagnosticError& e) {
    out.error = e.what();
  }
  return out;
}

void ExpectSameBothWays(const SourceFile& file) {
  Outcome general = Parse(file, false);
  Outcome direct = Parse(file, true);
  EXPECT_EQ(direct.error, general.error);
  EXPECT_EQ(direct.printed, general.printed);
  EXPECT_EQ(direct.spans, general.spans);
  // Shared static tensor types change no text and no diagnostic.
  Outcome unshared = Parse(file, true, false);
  EXPECT_EQ(direct.error, unshared.error);
  EXPECT_EQ(direct.printed, unshared.printed);
}

fs::path CorpusDir() { return fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus"; }

TEST(DirectCallTir, CorpusModulesAreTheGeneralPathOnes) {
  std::vector<fs::path> files;
  for (const char* dir : {"mlc-llm-2023", "tvm-printer"}) {
    if (!fs::exists(CorpusDir() / dir)) continue;
    for (const auto& entry : fs::directory_iterator(CorpusDir() / dir)) {
      if (entry.path().extension() == ".py") files.push_back(entry.path());
    }
  }
  if (files.empty()) GTEST_SKIP() << "corpus not present at " << CorpusDir();
  std::sort(files.begin(), files.end());
  size_t with_call_tir = 0;
  for (const fs::path& path : files) {
    std::string text, error;
    ASSERT_TRUE(ReadFile(path.string(), &text, &error)) << error;
    SCOPED_TRACE(path.string());
    with_call_tir += text.find("R.call_tir(cls.") != std::string::npos;
    ExpectSameBothWays(SourceManager::Global().Add(path.filename().string(), text));
  }
  EXPECT_GT(with_call_tir, 0u);
}

// A module whose main writes `call` as the value of `y` (x: a (4,) float32 tensor, n: a
// symbolic var of the signature, cls.add: a kernel of the module).
std::string ModuleWith(const std::string& call, const std::string& extra = "") {
  return R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": True})
        for i in range(T.int64(4)):
            with T.block("B"):
                v = T.axis.spatial(T.int64(4), i)
                B[v] = A[v]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), s: R.Shape(["n"])) -> R.Tensor((4,), dtype="float32"):
        n = T.int64()
        cls = Module
)" + extra +
         "        y = " + call + R"(
        return y
)";
}

TEST(DirectCallTir, EveryFormGivesTheGeneralPathModuleOrDiagnostic) {
  const std::vector<std::string> calls = {
      // the direct form
      R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x, x), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x,), out_sinfo=[R.Tensor((4,), dtype="float32")]))",
      // left to the general path
      R"(R.call_tir(cls.add, [x], out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, x, out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x,), R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32"), tir_vars=(n,)))",
      R"(R.call_tir(cls.add, (x, n), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x, 1), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x, z), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x, cls), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.missing, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x,), out_ty=R.Tensor((4,), dtype="float32")))",
      R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32"), bad=1))",
      R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="nope")))",
      R"(R.call_tir(cls.add, (x,), out_sinfo=3))",
      R"(R.call_tir(cls.add, (x,)))",
  };
  for (const std::string& call : calls) {
    SCOPED_TRACE(call);
    ExpectSameBothWays(SourceManager::Global().Add("direct.py", ModuleWith(call)));
  }
  // Annotated bindings: the call's struct info is the annotation (not inferred), also when the
  // annotation is less precise or the call does not type; and calls that do not type at all.
  const std::string direct =
      R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))";
  for (const std::string& extra :
       {"        z: R.Tensor(dtype=\"float32\", ndim=1) = " + direct + "\n",
        "        z: R.Tensor((4,), dtype=\"float32\") = " + direct + "\n",
        std::string("        z: R.Object = R.call_tir(cls.add, (x,), out_sinfo=R.Object)\n"),
        std::string("        z = R.call_tir(cls.add, (x,), out_sinfo=R.Object)\n"),
        std::string("        z = R.call_tir(cls.add, (x,), out_sinfo=R.Tuple())\n"),
        "        z.w = " + direct + "\n", "        z, w = " + direct + "\n",
        "        z = R.add(" + direct + ", x)\n"}) {
    SCOPED_TRACE(extra);
    ExpectSameBothWays(SourceManager::Global().Add("direct.py", ModuleWith(direct, extra)));
  }
  // A name bound to something other than a Relax var, and `R` rebound.
  for (const std::string& extra :
       {std::string("        k = 2\n"), std::string("        R = 1\n")}) {
    std::string call = R"(R.call_tir(cls.add, (x, k), out_sinfo=R.Tensor((4,), dtype="float32")))";
    SCOPED_TRACE(extra + call);
    ExpectSameBothWays(SourceManager::Global().Add("direct.py", ModuleWith(call, extra)));
  }
}

// A module the direct path lowers prints the call as written.
TEST(DirectCallTir, DirectFormRoundTrips) {
  std::string text =
      ModuleWith(R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))");
  ir::IRModule mod = ParseModule(text, "direct.py");
  std::string printed = PrintModule(mod);
  EXPECT_NE(
      printed.find(R"(y = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))"),
      std::string::npos)
      << printed;
}

// R.Tensor types written the same way with literal dims and dtype are one node; any other
// spelling and a symbolic dim give a node of its own.
TEST(StaticTensorTypes, SameTextSameNode) {
  auto call = [](const std::string& name, const std::string& sinfo) {
    return "        " + name + " = R.call_tir(cls.add, (x,), out_sinfo=" + sinfo + ")\n";
  };
  std::string text =
      ModuleWith(R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))",
                 call("a", R"(R.Tensor((4,), dtype="float32"))") +
                     call("b", R"(R.Tensor((4,), dtype="float32"))") +
                     call("c", R"(R.Tensor([4], dtype="float32"))") +
                     call("d", R"(R.Tensor((n,), dtype="float32"))") +
                     call("e", R"(R.Tensor((n,), dtype="float32"))"));
  auto out_sinfo = [](const ir::IRModule& mod) {
    std::vector<const ir::StructInfoNode*> types;
    ir::Function main = mod.LookupFunction("main");
    const auto* seq = ir::As<ir::SeqExprNode>(main->body());
    for (const ir::Binding& b : seq->blocks()[0]->bindings()) {
      types.push_back(ir::As<ir::CallNode>(b->value())->sinfo_args()[0].get());
    }
    types.push_back(main->params()[0]->struct_info().get());
    return types;
  };
  ir::IRModule mod = ParseModule(text, "shared.py");
  std::vector<const ir::StructInfoNode*> types = out_sinfo(mod);  // a b c d e y x
  ASSERT_EQ(types.size(), 7u);
  EXPECT_EQ(types[0], types[1]);
  EXPECT_EQ(types[0], types[5]);
  EXPECT_EQ(types[0], types[6]);  // the parameter's annotation is written the same way
  EXPECT_NE(types[0], types[2]);  // [4] is written differently
  EXPECT_NE(types[3], types[4]);  // symbolic dims are never shared
  ParseOptions unshared;
  unshared.share_static_tensor_types = false;
  ir::IRModule separate = ParseModule(text, "shared.py", unshared);
  std::vector<const ir::StructInfoNode*> separate_types = out_sinfo(separate);
  EXPECT_NE(separate_types[0], separate_types[1]);
  EXPECT_EQ(PrintModule(separate), PrintModule(mod));
}

// A bad dtype is reported where it is first written, whatever was shared before it.
TEST(StaticTensorTypes, ErrorsStayAtTheirOccurrence) {
  for (const char* first : {"float32", "nope"}) {
    std::string text =
        ModuleWith(R"(R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype="float32")))",
                   std::string("        a: R.Tensor((4,), dtype=\"") + first + "\") = x\n" +
                       "        b: R.Tensor((4,), dtype=\"nope\") = x\n");
    SCOPED_TRACE(first);
    try {
      ParseModule(text, "bad.py");
      FAIL() << "no error";
    } catch (const DiagnosticError& e) {
      std::string line = std::string(first) == "nope" ? "bad.py:19:" : "bad.py:20:";
      EXPECT_NE(std::string(e.what()).find(line), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pipesplit::script
