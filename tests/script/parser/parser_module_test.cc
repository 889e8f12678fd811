// Parser tests: the module level — members, GlobalVars, decorators, attributes, extern and
// prim functions, metadata, header-driven style flags.
#include <gtest/gtest.h>

#include "pipesplit/ir/expr.h"
#include "pipesplit/script/printer.h"
#include "src/script/relax/parser_lower.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::AllBindings;
using testing::FindBinding;
using testing::GetFunction;
using testing::Parse;
using testing::Pos;
using testing::SpanText;

constexpr const char* kTwoFunctions = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        y = cls.helper(x)
        z = Module.helper(y)
        return z

    @R.function(private=True)
    def helper(a: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        return a
)";

TEST(ParserModule, MembersAndSharedGlobalVars) {
  ir::IRModule mod = Parse(kTwoFunctions);
  ASSERT_EQ(mod.members().size(), 2u);
  EXPECT_EQ(mod.members()[0].gvar->name_hint(), "main");
  EXPECT_EQ(mod.members()[1].gvar->name_hint(), "helper");
  EXPECT_EQ(mod.syntax(), ir::Syntax::kClassic);
  ir::Function main = GetFunction(mod, "main");
  // cls.helper and Module.helper are the module's one GlobalVar, whatever the member order.
  ir::GlobalVar helper = mod.GetGlobalVar("helper");
  const auto* y = ir::As<ir::CallNode>(FindBinding(main, "y")->value());
  const auto* z = ir::As<ir::CallNode>(FindBinding(main, "z")->value());
  ASSERT_NE(y, nullptr);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(y->op(), helper);
  EXPECT_EQ(z->op(), helper);
  // The call's struct info comes from the callee's signature.
  EXPECT_EQ(RenderStructInfo(y->struct_info()), "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(RenderStructInfo(helper->struct_info()),
            "R.Callable((R.Tensor((2, 3), dtype=\"float32\"),), R.Tensor((2, 3), "
            "dtype=\"float32\"), True)");
  // `cls = Module` is an alias, not a binding.
  EXPECT_EQ(AllBindings(main).size(), 2u);
}

TEST(ParserModule, GlobalSymbolPrivateAndPurity) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def f(x: R.Object) -> R.Object:
        R.func_attr({"b": 1, "a": "x"})
        return x

    @R.function(private=True, pure=True)
    def g(x: R.Object) -> R.Object:
        return x
)");
  ir::Function f = GetFunction(mod, "f");
  ir::Function g = GetFunction(mod, "g");
  EXPECT_FALSE(f->is_pure());
  EXPECT_TRUE(g->is_pure());
  // User attrs in written order, then the global symbol TVM adds to public functions.
  ASSERT_EQ(f->attrs().size(), 3u);
  EXPECT_EQ(f->attrs()[0].first, "b");
  EXPECT_EQ(*f->attrs()[0].second.as_int(), 1);
  EXPECT_EQ(f->attrs()[1].first, "a");
  EXPECT_EQ(*f->attrs()[1].second.as_string(), "x");
  EXPECT_EQ(f->attrs()[2].first, "global_symbol");
  EXPECT_EQ(*f->attrs()[2].second.as_string(), "f");
  EXPECT_TRUE(g->attrs().empty());
  EXPECT_FALSE(ir::As<ir::FuncSInfoNode>(mod.GetGlobalVar("f")->struct_info())->is_pure());
}

TEST(ParserModule, DecoratorSpellingsAndDocstrings) {
  for (const char* decorator :
       {"@I.ir_module", "@tvm.script.ir_module", "@I.ir_module(s_tir=True)",
        "@tvm.script.ir.ir_module", "@I.ir_module(check_well_formed=False, s_tir=True)"}) {
    std::string text = std::string("\"\"\"A module docstring.\"\"\"\nimport tvm\n") + decorator +
                       R"(
class Before:
    """Class docstring."""

    @R.function
    def main(x: R.Tensor) -> R.Tensor:
        """Function docstring."""
        return x
)";
    ir::IRModule mod = Parse(text);
    EXPECT_EQ(mod.members().size(), 1u) << decorator;
  }
}

TEST(ParserModule, ModuleAttrsGlobalInfosAndVDevices) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib_", "n": 3})
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0, "global"), I.vdevice("cuda", 1, "shared")]})

    @R.function
    def main(x: R.Tensor((2,), "float32", "cuda:1"), y: R.Tensor((2,), "float32", vdevice="llvm")) -> R.Tensor((2,), "float32", "cuda"):
        return x
)");
  ASSERT_EQ(mod.attrs().size(), 2u);
  EXPECT_EQ(mod.attrs()[0].first, "system_lib_prefix");
  EXPECT_EQ(*mod.attrs()[1].second.as_int(), 3);
  ASSERT_EQ(mod.global_infos().size(), 1u);
  const ir::AttrList* devices = mod.global_infos()[0].second.as_list();
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 3u);
  const ir::AttrCall* cuda = (*devices)[1].as_call();
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->callee, "I.vdevice");
  ASSERT_EQ(cuda->args.size(), 3u);
  EXPECT_EQ(*ir::FindAttr(*cuda->args[0].as_map(), "arch")->as_string(), "sm_80");
  ir::Function main = GetFunction(mod, "main");
  auto vdevice = [](const ir::StructInfo& s) { return ir::As<ir::TensorSInfoNode>(s)->vdevice(); };
  EXPECT_EQ(vdevice(main->params()[0]->struct_info()), "cuda:1:shared");
  EXPECT_EQ(vdevice(main->params()[1]->struct_info()), "llvm:0:global");
  // "cuda" is the first cuda device; the body's cuda:1 does not refine it.
  EXPECT_EQ(vdevice(main->ret_struct_info()), "cuda:0:global");
}

TEST(ParserModule, PrimFuncsAreParsedAsTir) {
  constexpr const char* kText = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(T.int64(4)):
            with T.block("B"):
                v_i = T.axis.spatial(T.int64(4), i)
                B[v_i] = A[v_i] + T.float32(1)
        # a trailing comment inside the body

    @T.prim_func(private=True)
    def noop(): pass
    # a comment at member level ends the function

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return y
)";
  ir::IRModule mod = Parse(kText);
  EXPECT_TRUE(mod.script_style().legacy_tir_header);
  const auto* add_one = ir::As<ir::PrimFuncNode>(mod.Lookup("add_one"));
  ASSERT_NE(add_one, nullptr);
  EXPECT_FALSE(add_one->is_private());
  ASSERT_EQ(add_one->params().size(), 2u);
  ASSERT_EQ(add_one->buffer_map().size(), 2u);
  EXPECT_EQ(add_one->buffer_map()[1].second->name(), "B");
  EXPECT_EQ(add_one->buffer_map()[1].second->dtype(), DataType::Float(32));
  ASSERT_EQ(add_one->attrs().size(), 1u);
  EXPECT_EQ(add_one->attrs()[0].first, "tir.noalias");
  // The implicit root block holds the loop, which holds block "B" storing into B.
  const auto* root = ir::As<ir::BlockRealizeNode>(add_one->body());
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->block()->name_hint(), "root");
  const auto* loop = ir::As<ir::ForNode>(root->block()->body());
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->loop_var()->name(), "i");
  EXPECT_EQ(loop->extent()->dtype(), DataType::Int(64));
  const auto* realize = ir::As<ir::BlockRealizeNode>(loop->body());
  ASSERT_NE(realize, nullptr);
  ASSERT_EQ(realize->iter_values().size(), 1u);
  EXPECT_EQ(realize->iter_values()[0], loop->loop_var());
  const auto* store = ir::As<ir::BufferStoreNode>(realize->block()->body());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->buffer(), add_one->buffer_map()[1].second);
  EXPECT_EQ(store->indices()[0], realize->block()->iter_vars()[0].var);
  const auto* noop = ir::As<ir::PrimFuncNode>(mod.Lookup("noop"));
  ASSERT_NE(noop, nullptr);
  EXPECT_TRUE(noop->is_private());
  EXPECT_TRUE(ir::Is<ir::EvaluateNode>(noop->body()));
  ir::Function main = GetFunction(mod, "main");
  const auto* call = ir::As<ir::CallNode>(FindBinding(main, "y")->value());
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op_node()->name(), "relax.call_tir");
  EXPECT_EQ(call->args()[0], mod.GetGlobalVar("add_one"));
}

TEST(ParserModule, ExternFuncMembers) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    my_ext = R.ExternFunc("my_ext")
    typed = R.ExternFunc("ext_sym", R.Callable((), R.Tensor(dtype="float32", ndim=2), True))

    @R.function
    def main(x: R.Tensor) -> R.Tensor:
        return x
)");
  const auto* ext = ir::As<ir::ExternFuncNode>(mod.Lookup("my_ext"));
  ASSERT_NE(ext, nullptr);
  EXPECT_EQ(ext->global_symbol(), "my_ext");
  const auto* typed = ir::As<ir::ExternFuncNode>(mod.Lookup("typed"));
  ASSERT_NE(typed, nullptr);
  EXPECT_EQ(typed->global_symbol(), "ext_sym");
  EXPECT_EQ(RenderStructInfo(typed->struct_info()),
            "R.Callable((), R.Tensor(dtype=\"float32\", ndim=2), True)");
  EXPECT_EQ(mod.GetGlobalVar("typed")->struct_info(), typed->struct_info());
}

TEST(ParserModule, MetadataConstants) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float16")) -> R.Tensor((2,), dtype="float16"):
        y: R.Tensor((2,), dtype="float16") = R.add(x, metadata["relax.expr.Constant"][3])
        return y
)");
  EXPECT_TRUE(mod.has_omitted_metadata());
  const auto* call = ir::As<ir::CallNode>(FindBinding(GetFunction(mod, "main"), "y")->value());
  const auto* constant = ir::As<ir::ConstantNode>(call->args()[1]);
  ASSERT_NE(constant, nullptr);
  EXPECT_TRUE(constant->is_metadata());
  EXPECT_EQ(constant->metadata_index(), 3);
  EXPECT_EQ(SpanText(constant->span()), "metadata[\"relax.expr.Constant\"][3]");
  // The trailing comment alone also marks omitted metadata.
  ir::IRModule commented = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor) -> R.Tensor:
        return x

# Metadata omitted. Use show_meta=True in script() method to show it.
)");
  EXPECT_TRUE(commented.has_omitted_metadata());
  EXPECT_FALSE(Parse(kTwoFunctions).has_omitted_metadata());
}

TEST(ParserModule, PyFuncsInBasePyModule) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Mod(BasePyModule):
    @I.pyfunc
    def torch_relu(self, x):
        """PyTorch ReLU implementation."""
        return torch.relu(x)

    @R.function
    def main(x: R.Tensor((10,), "float32")) -> R.Tensor((10,), "float32"):
        y = R.call_py_func("torch_relu", (x,), out_sinfo=R.Tensor((10,), "float32"))
        return y
)");
  const auto* relu = ir::As<ir::ExternFuncNode>(mod.Lookup("torch_relu"));
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->global_symbol(), "torch_relu");
  ASSERT_EQ(mod.attrs().size(), 1u);
  EXPECT_EQ(mod.attrs()[0].first, "base_py_module");
  const auto* call = ir::As<ir::CallNode>(FindBinding(GetFunction(mod, "main"), "y")->value());
  EXPECT_EQ(call->op_node()->name(), "relax.call_py_func");
  ASSERT_EQ(call->args().size(), 2u);
  EXPECT_EQ(ir::As<ir::StringImmNode>(call->args()[0])->value(), "torch_relu");
  ASSERT_EQ(call->sinfo_args().size(), 1u);
}

TEST(ParserModule, SpansOfMembersAndBindings) {
  ir::IRModule mod = Parse(kTwoFunctions);
  ir::Function main = GetFunction(mod, "main");
  EXPECT_EQ(Pos(main->span()), "6:5");
  EXPECT_EQ(Pos(mod.GetGlobalVar("helper")->span()), "14:9");
  EXPECT_EQ(Pos(main->params()[0]->span()), "7:14");
  ir::Binding y = FindBinding(main, "y");
  EXPECT_EQ(Pos(y->span()), "9:9");
  EXPECT_EQ(SpanText(y->span()), "y = cls.helper(x)");
  EXPECT_EQ(SpanText(y->var()->span()), "y");
  EXPECT_EQ(SpanText(y->value()->span()), "cls.helper(x)");
}

TEST(ParserModule, BlockSpansCoverTheirOwnText) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            lv = R.add(x, x)
            R.output(lv)
        y = R.multiply(lv, lv)
        z = R.add(y, y)
        return z
)");
  const auto* body = ir::As<ir::SeqExprNode>(GetFunction(mod, "main")->body());
  ASSERT_NE(body, nullptr);
  ASSERT_EQ(body->blocks().size(), 2u);
  EXPECT_TRUE(body->blocks()[0]->is_dataflow());
  EXPECT_EQ(Pos(body->blocks()[0]->span()), "5:9");
  EXPECT_FALSE(body->blocks()[1]->is_dataflow());
  EXPECT_EQ(SpanText(body->blocks()[1]->span()), "y = R.multiply(lv, lv)\n        z = R.add(y, y)");
}

// TVM declares a PrimFunc without a return annotation as returning R.Tuple(): a direct call to
// it is void, may stand as a statement and prints as one (it printed, then failed to re-parse).
TEST(ParserModule, ADirectCallToAVoidPrimFuncIsAStatement) {
  constexpr const char* kText = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def fill(A: T.Buffer((T.int64(2),), "float32")):
        T.evaluate(0)

    @T.prim_func
    def get() -> T.int32:
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        _1: R.Tuple = cls.fill(x)
        cls.fill(x)
        return x
)";
  ir::IRModule mod = Parse(kText);
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("        cls.fill(x)\n        cls.fill(x)\n"), std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
  // A PrimFunc with a return annotation keeps an opaque result, which must be bound.
  std::string bad = kText;
  bad.replace(bad.find("        cls.fill(x)\n"), 20, "        cls.get()\n");
  try {
    Parse(bad);
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(
        std::string(e.what()).find(
            "error: a non-void expression of struct info R.Object must be bound to a variable"),
        std::string::npos)
        << e.what();
  }
}

// TVM refines an unannotated Relax function's declared R.Object return once its body is parsed
// (the GlobalVar takes the function's type), so a later reference carries the real signature.
// It kept R.Object, and the printed `-> R.Tuple` made the re-parsed module differ.
TEST(ParserModule, AnUnannotatedFunctionIsReferencedWithItsParsedSignature) {
  constexpr const char* kText = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def capture(x: R.Tensor((2,), dtype="float32")):
        R.print(format="")
        return R.tuple()

    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        r: R.Object = R.call_packed("run", (cls.capture, (x,)), sinfo_args=(R.Object,))
        return x
)";
  ir::IRModule mod = Parse(kText);
  const auto* main = ir::As<ir::FunctionNode>(mod.Lookup("main"));
  ASSERT_NE(main, nullptr);
  const auto* seq = ir::As<ir::SeqExprNode>(main->body());
  const auto* call = ir::As<ir::CallNode>(seq->blocks()[0]->bindings()[0]->value());
  const ir::TupleNode* tuple = nullptr;
  for (const ir::Expr& arg : call->args()) {
    if (tuple == nullptr) tuple = ir::As<ir::TupleNode>(arg);
  }
  ASSERT_NE(tuple, nullptr);
  const auto* ref = ir::As<ir::FuncSInfoNode>(tuple->fields()[0]->struct_info());
  ASSERT_NE(ref, nullptr);
  EXPECT_NE(ir::As<ir::TupleSInfoNode>(ref->ret()), nullptr);
  const std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("def capture(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tuple:"),
            std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
}

}  // namespace
}  // namespace pipesplit::script
