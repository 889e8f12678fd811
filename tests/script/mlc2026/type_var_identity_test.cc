// Symbolic vars by identity: a module-level TypeVar, a kernel's own var of the same name and a
// scalar param of that name are three vars; each function gets its own var for a TypeVar, but a
// kernel made by LegalizeOps shares its caller's (as in TVM's memory); and the printer decides
// from identities - what is a TypeVar, what is quoted, what is declared - never from names.
#include <gtest/gtest.h>

#include <string>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/tir_substitute.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::script {
namespace {

ir::IRModule Parse(const std::string& text) { return ParseModule(text, "test.py"); }

const ir::PrimFuncNode& Kernel(const ir::IRModule& mod, const char* name) {
  const auto* f = ir::As<ir::PrimFuncNode>(mod.Lookup(name));
  if (f == nullptr) throw std::runtime_error(std::string("no kernel ") + name);
  return *f;
}

// The var of dim `d` of the buffer of param `p`.
const ir::TirVarNode* BufferDimVar(const ir::PrimFuncNode& f, size_t p, size_t d) {
  const ir::Buffer* b = f.BufferOf(f.params()[p].get());
  return b == nullptr ? nullptr : ir::As<ir::TirVarNode>((*b)->shape()[d]);
}

// The var of dim `d` of the tensor param `p` of a Relax function.
const ir::TirVarNode* TensorDimVar(const ir::IRModule& mod, const char* func, size_t p, size_t d) {
  const auto* t = ir::As<ir::TensorSInfoNode>(mod.LookupFunction(func)->params()[p]->struct_info());
  return t == nullptr ? nullptr : ir::As<ir::TirVarNode>((*t->shape())[d]);
}

// A kernel with its own `n`, a kernel LegalizeOps made for `main`, a kernel with a scalar
// param `n`, and `main`, whose `n` is the module-level TypeVar.
constexpr const char* kModule =
    "# from typing import TypeVar\n"
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "n = TypeVar(\"n\")\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(s_tir=True)\n"
    "    def copy(A: T.Buffer((\"n\", 4), \"float32\"), B: T.Buffer((n, 4), \"float32\")):\n"
    "        n = T.int32()\n"
    "        for i, j in T.grid(n, 4):\n"
    "            B[i, j] = A[i, j]\n"
    "\n"
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def scale(x: T.Buffer((n, T.int64(4)), \"float32\"), y: T.Buffer((n, T.int64(4)), \""
    "float32\")):\n"
    "        for i, j in T.grid(n, T.int64(4)):\n"
    "            y[i, j] = x[i, j] * T.float32(2.0)\n"
    "\n"
    "    @T.prim_func(s_tir=True)\n"
    "    def sized(A: T.Buffer((\"n\",), \"float32\"), n: T.int64):\n"
    "        for i in range(n):\n"
    "            A[i] = T.float32(0.0)\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((n, 4), dtype=\"float32\")) -> R.Tensor((n, 4), dtype=\"float32"
    "\"):\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            gv = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((n, 4), dtype=\"float32\"))"
    "\n"
    "            R.output(gv)\n"
    "        return gv\n";

TEST(TypeVarIdentity, ModulePrintsBackAndIsWellFormed) {
  ir::IRModule mod = Parse(kModule);
  EXPECT_EQ(PrintModule(mod), kModule);
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
  EXPECT_TRUE(problems.empty()) << DiagnosticError(std::move(problems)).what();
}

TEST(TypeVarIdentity, ForTvmParserRenamesKernelVarsAwayFromTypeVars) {
  ir::IRModule mod = Parse(kModule);
  PrintOptions options;
  options.for_tvm_parser = true;
  std::string text = PrintModule(mod, options);
  // `copy` declares its own n and `sized` has a param n: both become n_1; `scale`'s n is the
  // TypeVar of its signature and `main`'s is the TypeVar itself: both stay n.
  std::string expected = kModule;
  auto replace = [&](const std::string& from, const std::string& to) {
    size_t at = expected.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    expected.replace(at, from.size(), to);
  };
  replace(
      "def copy(A: T.Buffer((\"n\", 4), \"float32\"), B: T.Buffer((n, 4), \"float32\")):\n"
      "        n = T.int32()\n"
      "        for i, j in T.grid(n, 4):",
      "def copy(A: T.Buffer((\"n_1\", 4), \"float32\"), B: T.Buffer((n_1, 4), \"float32\")):\n"
      "        n_1 = T.int32()\n"
      "        for i, j in T.grid(n_1, 4):");
  replace(
      "def sized(A: T.Buffer((\"n\",), \"float32\"), n: T.int64):\n"
      "        for i in range(n):",
      "def sized(A: T.Buffer((\"n_1\",), \"float32\"), n_1: T.int64):\n"
      "        for i in range(n_1):");
  EXPECT_EQ(text, expected);
  EXPECT_TRUE(analysis::StructuralEqual(Parse(text), mod));
  // Without TypeVars (the classic syntax), the option changes nothing.
  options.syntax = ir::Syntax::kClassic;
  PrintOptions classic;
  classic.syntax = ir::Syntax::kClassic;
  EXPECT_EQ(PrintModule(mod, options), PrintModule(mod, classic));
}

TEST(TypeVarIdentity, KernelsOwnVarIsNotTheTypeVar) {
  ir::IRModule mod = Parse(kModule);
  const ir::TirVarNode* own = BufferDimVar(Kernel(mod, "copy"), 0, 0);
  const ir::TirVarNode* bare = BufferDimVar(Kernel(mod, "copy"), 1, 0);
  ASSERT_NE(own, nullptr);
  // The quoted "n" and the bare n after it are the var the body declares.
  EXPECT_EQ(own, bare);
  EXPECT_EQ(own->dtype(), DataType::Int(32));
  EXPECT_NE(own, TensorDimVar(mod, "main", 0, 0));
}

TEST(TypeVarIdentity, LegalizedKernelSharesItsCallersVar) {
  ir::IRModule mod = Parse(kModule);
  const ir::TirVarNode* kernel_n = BufferDimVar(Kernel(mod, "scale"), 0, 0);
  ASSERT_NE(kernel_n, nullptr);
  EXPECT_EQ(kernel_n->dtype(), DataType::Int(64));
  EXPECT_EQ(kernel_n, TensorDimVar(mod, "main", 0, 0));
  EXPECT_EQ(kernel_n, BufferDimVar(Kernel(mod, "scale"), 1, 0));
}

TEST(TypeVarIdentity, ScalarParamIsNoTypeVar) {
  ir::IRModule mod = Parse(kModule);
  const ir::PrimFuncNode& sized = Kernel(mod, "sized");
  // `"n"` names the param (defined before the buffers, quoted since it comes after them).
  EXPECT_EQ(BufferDimVar(sized, 0, 0), sized.params()[1].get());
}

TEST(TypeVarIdentity, KernelOfTwoCallersKeepsItsOwnVar) {
  std::string text = kModule;
  // `main` prints last: main2 goes before it.
  std::string main2 =
      "    @R.function\n"
      "    def main2(x: R.Tensor((n, 4), dtype=\"float32\")) -> R.Tensor((n, 4), "
      "dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        gv = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((n, 4), dtype=\"float32\"))\n"
      "        return gv\n"
      "\n";
  text.insert(text.find("    @R.function\n    def main("), main2);
  ir::IRModule mod = Parse(text);
  const ir::TirVarNode* kernel_n = BufferDimVar(Kernel(mod, "scale"), 0, 0);
  EXPECT_NE(kernel_n, TensorDimVar(mod, "main", 0, 0));
  EXPECT_NE(kernel_n, TensorDimVar(mod, "main2", 0, 0));
  // Each Relax function has a var of its own for the TypeVar (TVM's parser; its checker
  // rejects a symbolic var in two functions).
  EXPECT_NE(TensorDimVar(mod, "main", 0, 0), TensorDimVar(mod, "main2", 0, 0));
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
  EXPECT_TRUE(problems.empty()) << DiagnosticError(std::move(problems)).what();
  EXPECT_EQ(PrintModule(mod), text);
}

TEST(TypeVarIdentity, VarsOfOtherNamesAreNotShared) {
  // A kernel dim `m` passed main's `n` is a var of the kernel's own.
  std::string text = kModule;
  auto replace = [&](const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("n = TypeVar(\"n\")\n", "m = TypeVar(\"m\")\nn = TypeVar(\"n\")\n");
  replace(
      "def scale(x: T.Buffer((n, T.int64(4)), \"float32\"), y: T.Buffer((n, T.int64(4)), "
      "\"float32\")):\n        for i, j in T.grid(n,",
      "def scale(x: T.Buffer((m, T.int64(4)), \"float32\"), y: T.Buffer((m, T.int64(4)), "
      "\"float32\")):\n        for i, j in T.grid(m,");
  ir::IRModule mod = Parse(text);
  const ir::TirVarNode* kernel_m = BufferDimVar(Kernel(mod, "scale"), 0, 0);
  ASSERT_NE(kernel_m, nullptr);
  EXPECT_EQ(kernel_m->name(), "m");
  EXPECT_NE(kernel_m, TensorDimVar(mod, "main", 0, 0));
  EXPECT_EQ(PrintModule(mod), text);
}

TEST(TypeVarIdentity, DistinctVarsOfOneNamePrintDistinctly) {
  // Give `y` of the shared kernel a second var named "n": two vars, two names (TVM's _1).
  ir::IRModule mod = Parse(kModule);
  auto scale = std::static_pointer_cast<const ir::PrimFuncNode>(mod.Lookup("scale"));
  const ir::TirVarNode* n = BufferDimVar(*scale, 0, 0);
  const ir::Buffer& y = *scale->BufferOf(scale->params()[1].get());
  ir::TirVar other = ir::MakeTirVar("n", DataType::Int(64));
  ir::PrimFuncNode::Fields f{scale->name(), scale->params(), scale->buffer_map(),
                             scale->body(), scale->attrs(),  scale->is_private(),
                             scale->s_tir()};
  f.buffer_map[1].second = ir::Make<ir::BufferNode>(y->name(), y->data(), y->dtype(),
                                                    std::vector<ir::PrimExpr>{other, y->shape()[1]},
                                                    y->scope(), y->span(), y->layout());
  mod.Update(mod.GetGlobalVar("scale"), ir::Make<ir::PrimFuncNode>(std::move(f)));
  ASSERT_NE(n, other.get());
  std::string printed = PrintModule(mod);
  EXPECT_NE(printed.find("n = TypeVar(\"n\")\nn_1 = TypeVar(\"n_1\")\n"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("def scale(x: T.Buffer((n, T.int64(4)), \"float32\"), y: "
                         "T.Buffer((n_1, T.int64(4)), \"float32\")):"),
            std::string::npos)
      << printed;
  // Read back, the two names are two vars again, and print the same.
  ir::IRModule again = Parse(printed);
  EXPECT_NE(BufferDimVar(Kernel(again, "scale"), 0, 0), BufferDimVar(Kernel(again, "scale"), 1, 0));
  EXPECT_EQ(PrintModule(again), printed);
}

TEST(TypeVarIdentity, SharedVarPrintsFromEachFunction) {
  // One var object in main and in its kernel (as LegalizeOps leaves it): each function prints it
  // bare, the module declares it once; a copy of the kernel with a var of its own prints the same.
  ir::IRModule mod = Parse(kModule);
  auto scale = std::static_pointer_cast<const ir::PrimFuncNode>(mod.Lookup("scale"));
  const ir::TirVarNode* n = BufferDimVar(*scale, 0, 0);
  ASSERT_EQ(n, TensorDimVar(mod, "main", 0, 0));
  std::string shared = PrintModule(mod);
  ir::TirVarMap fresh;
  fresh.emplace(n, ir::MakeTirVar("n", DataType::Int(64)));
  mod.Update(mod.GetGlobalVar("scale"), ir::SubstituteTirVars(scale, fresh));
  EXPECT_NE(BufferDimVar(Kernel(mod, "scale"), 0, 0), n);
  EXPECT_EQ(PrintModule(mod), shared);
  EXPECT_EQ(shared, kModule);
}

TEST(TypeVarIdentity, Phase5SignatureBesideTheTypeVar) {
  // After MLC narrows indices to int32, a kernel declares its own batch_size: quoted where it
  // first appears, bare after, while the caller's batch_size is the module-level TypeVar.
  const char* text =
      "# from typing import TypeVar\n"
      "# from tvm.script import ir as I\n"
      "# from tvm.script import tirx as T\n"
      "# from tvm.tirx.layout import Axis\n"
      "# from tvm.script import relax as R\n"
      "\n"
      "batch_size = TypeVar(\"batch_size\")\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func(private=True, s_tir=True)\n"
      "    def rms(x: T.Buffer((\"batch_size\", 1, 256), \"float32\"), y: T.Buffer((batch_size, 1, "
      "256), \"float32\")):\n"
      "        batch_size = T.int32()\n"
      "        for i in range(batch_size):\n"
      "            y[i, 0, 0] = x[i, 0, 0]\n"
      "\n"
      "    @R.function(pure=False)\n"
      "    def main(x: R.Tensor((batch_size, 1, 256), dtype=\"float32\"), y: "
      "R.Tensor((batch_size, 1, 256), dtype=\"float32\")) -> R.Tuple:\n"
      "        cls = Module\n"
      "        cls.rms(x, y)\n"
      "        return R.tuple()\n";
  ir::IRModule mod = Parse(text);
  const ir::TirVarNode* kernel = BufferDimVar(Kernel(mod, "rms"), 0, 0);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel, BufferDimVar(Kernel(mod, "rms"), 1, 0));
  EXPECT_EQ(kernel->dtype(), DataType::Int(32));
  EXPECT_NE(kernel, TensorDimVar(mod, "main", 0, 0));
  EXPECT_EQ(PrintModule(mod), text);
}

}  // namespace
}  // namespace pipesplit::script
