// Inference rules of the builtin ops (call_tir family, packed calls, print, assert, shape ops),
// the memory ops and the smaller families (image, ccl, grad, quantization, inspect).
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

GlobalVar Kernel(const std::string& name) {
  return ir::Make<GlobalVarNode>(name, ir::Make<FuncSInfoNode>(std::nullopt, ObjectSInfo(), false));
}

Expr Extern(const std::string& name) { return ir::Make<ExternFuncNode>(name); }

StructInfo TS(std::vector<Dim> shape, const std::string& dtype = "float32") {
  return TensorSInfo(Dims(std::move(shape)), DT(dtype));
}

TEST(OpBuiltinTest, CallTIR) {
  Call c = C("call_tir", {Kernel("add"), Tup({T("x", {4})})}, {}, {TS({4})});
  EXPECT_EQ(Infer(c), "R.Tensor((4,), dtype=\"float32\")");
  Call two =
      C("call_tir", {Kernel("split"), Tup({T("x", {4})})}, {}, {TupleSInfo({TS({2}), TS({2})})});
  EXPECT_EQ(Infer(two),
            "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))");
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("call_tir", {Kernel("f"), Tup({T("x", {4})}), Shape({n})}, {}, {TS({n})})),
            "R.Tensor((n,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("call_tir", {Kernel("f"), Tup({T("x", {4})})})),
            "op_test.py:1:6: R.call_tir: needs exactly one out_sinfo");
  EXPECT_EQ(InferError(C("call_tir", {Extern("f"), Tup({T("x", {4})})}, {}, {TS({4})})),
            "op_test.py:1:6: R.call_tir: gvar must be a module function (cls.f)");
  EXPECT_EQ(InferError(C("call_tir", {Kernel("f"), T("x", {4})}, {}, {TS({4})})),
            "op_test.py:1:6: R.call_tir: args must be a tuple, got R.Tensor");
  EXPECT_EQ(InferError(C("call_tir", {Kernel("f"), Tup({T("x", {4})}), PrimI(1)}, {}, {TS({4})})),
            "op_test.py:1:6: R.call_tir: tir_vars must be a shape, got R.Prim");
}

TEST(OpBuiltinTest, CallTIRInplace) {
  EXPECT_EQ(Infer(C("call_tir_inplace", {Kernel("f"), Tup({T("x", {4}), T("y", {4})})},
                    {{"inplace_indices", Ints({1})}}, {TS({4})})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("call_tir_inplace", {Kernel("f"), Tup({T("x", {4})})},
                         {{"inplace_indices", Ints({2})}}, {TS({4})})),
            "op_test.py:1:6: R.call_tir_inplace: in-place index 2 is out of range for 1 arguments");
  EXPECT_EQ(InferError(C("call_tir_inplace", {Kernel("f"), Tup({T("x", {4})})},
                         {{"inplace_indices", Ints({0, 0})}}, {TupleSInfo({TS({4}), TS({4})})})),
            "op_test.py:1:6: R.call_tir_inplace: in-place index 0 is used more than once");
  EXPECT_EQ(InferError(C("call_tir_inplace", {Kernel("f"), Tup({T("x", {4})})},
                         {{"inplace_indices", Ints({0, -1})}}, {TS({4})})),
            "op_test.py:1:6: R.call_tir_inplace: inplace_indices has 2 entries but the call has 1 "
            "outputs");
}

TEST(OpBuiltinTest, PackedCalls) {
  EXPECT_EQ(Infer(C("call_pure_packed", {Extern("f"), T("x", {4})}, {}, {TS({4})})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("call_pure_packed", {Extern("f")})), "R.Object");
  EXPECT_EQ(Infer(C("call_dps_packed", {Extern("f"), Tup({T("x", {4})})}, {}, {TS({2})})),
            "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("call_builtin_with_ctx", {Extern("f"), Tup({})})), "R.Tuple");
  EXPECT_EQ(Infer(C("call_inplace_packed", {Extern("f"), T("c", {4}), T("x", {4})},
                    {{"inplace_indices", Ints({0})}}, {TS({4})})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("call_inplace_packed", {Extern("f"), T("c", {4})},
                         {{"inplace_indices", Ints({0})}}, {TS({5})})),
            "op_test.py:1:6: R.call_inplace_packed: the result type does not match the in-place "
            "argument 0");
  EXPECT_EQ(
      InferError(C("call_inplace_packed", {Extern("f"), T("c", {4})},
                   {{"inplace_indices", Ints({-1})}}, {TS({4})})),
      "op_test.py:1:6: R.call_inplace_packed: needs at least one in-place index other than -1");
  EXPECT_EQ(Infer(C("invoke_pure_closure", {V("c", ObjectSInfo()), Tup({})}, {}, {TS({2})})),
            "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("make_closure", {Kernel("f"), Tup({})})), "R.Object");
  EXPECT_EQ(Infer(C("null_value", {})), "R.Object");
}

TEST(OpBuiltinTest, PrintAndAssert) {
  EXPECT_EQ(Infer(C("print", {Str("x: {}"), T("x", {2})})), "R.Tuple");
  Var cond = V("c", ir::Make<PrimSInfoNode>(DataType::Bool()));
  EXPECT_EQ(Infer(C("assert_op", {cond, Str("")})), "R.Tuple");
  EXPECT_EQ(Infer(C("assert_op", {TN("c", -1, "void"), Str("")})), "R.Tuple");
  EXPECT_EQ(InferError(C("assert_op", {T("c", {2}, "bool"), Str("")})),
            "op_test.py:1:6: R.assert_op: the condition must be a boolean scalar");
  EXPECT_EQ(InferError(C("assert_op", {Shape({1})})),
            "op_test.py:1:6: R.assert_op: the condition must be a boolean scalar, got R.Shape");
}

TEST(OpBuiltinTest, ShapeOps) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("shape_of", {T("x", {n, 4})})), "R.Shape([n, 4])");
  EXPECT_EQ(Infer(C("shape_of", {TN("x", 2)})), "R.Shape(ndim=2)");
  EXPECT_EQ(Infer(C("size", {T("x", {n, 4})})), "R.Tensor((), dtype=\"int64\")");
  EXPECT_EQ(Infer(C("tensor_to_shape", {T("t", {3}, "int64")})), "R.Shape(ndim=3)");
  EXPECT_EQ(InferError(C("tensor_to_shape", {T("t", {3, 1}, "int64")})),
            "op_test.py:1:6: R.tensor_to_shape: expects a 1-d tensor, got 2-d");
  EXPECT_EQ(Infer(C("shape_to_tensor", {Shape({2, n})})), "R.Tensor((2,), dtype=\"int64\")");
  EXPECT_EQ(Infer(C("builtin.stop_lift_params", {T("x", {2})})),
            "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("to_vdevice", {T("x", {2})}, {{"dst_vdevice", "cuda:0:global"}})),
            "R.Tensor((2,), dtype=\"float32\", vdevice=\"cuda:0:global\")");
}

TEST(OpBuiltinTest, MemoryOps) {
  EXPECT_EQ(Infer(C("builtin.alloc_tensor",
                    {Shape({2, 3}), DTypeImm("float16"), PrimI(0), Str("global")})),
            "R.Tensor((2, 3), dtype=\"float16\")");
  EXPECT_EQ(InferError(C("builtin.alloc_tensor", {Shape({2}), Str("float16"), PrimI(0)})),
            "op_test.py:1:6: R.builtin.alloc_tensor: dtype must be an R.dtype(...) value");
  Var storage = V("s", ObjectSInfo());
  EXPECT_EQ(
      Infer(C("memory.alloc_storage", {Shape({64}), PrimI(0), Str("global"), DTypeImm("uint8")})),
      "R.Object");
  EXPECT_EQ(Infer(C("memory.alloc_tensor",
                    {storage, PrimI(0), Shape({4, 4}), DTypeImm("float32"), PrimI(0)})),
            "R.Tensor((4, 4), dtype=\"float32\")");
  EXPECT_EQ(
      Infer(C("vm.alloc_tensor", {storage, PrimI(0), Shape({16}), DTypeImm("int32"), PrimI(0)})),
      "R.Tensor((16,), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("memory.kill_tensor", {T("x", {2})})), "R.Tuple");
  EXPECT_EQ(Infer(C("vm.kill_object", {storage})), "R.Tuple");
}

TEST(OpBuiltinTest, MemoryView) {
  Expr none = Tup({});
  EXPECT_EQ(Infer(C("memory.view", {T("x", {4, 4}), Shape({2, 8}), none, none})),
            "R.Tensor((2, 8), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("memory.view", {T("x", {4, 4}), none, DTypeImm("int32"), none})),
            "R.Tensor((4, 4), dtype=\"int32\")");
  EXPECT_EQ(InferError(C("memory.view", {T("x", {4}), Shape({8}), none, none})),
            "op_test.py:1:6: R.memory.view: a view of 32 bytes at offset 0 exceeds the 16 bytes of "
            "the viewed tensor");
  EXPECT_EQ(InferError(C("memory.view", {T("x", {4}), none, none, PrimI(4)})),
            "op_test.py:1:6: R.memory.view: a view of 16 bytes at offset 4 exceeds the 16 bytes of "
            "the viewed tensor");
}

TEST(OpBuiltinTest, MiscFamilies) {
  EXPECT_EQ(Infer(C("image.resize2d", {T("x", {1, 3, 8, 8}), Shape({16, 12})})),
            "R.Tensor((1, 3, 16, 12), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("image.resize2d", {T("x", {1, 8, 8, 3}), Shape({4, 4})}, {{"layout", "NHWC"}})),
            "R.Tensor((1, 4, 4, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("ccl.allgather", {T("x", {4, 3})}, {{"num_workers", 2}})),
            "R.Tensor((8, 3), dtype=\"float32\")");
  EXPECT_EQ(
      Infer(C("ccl.scatter_from_worker0", {T("x", {4, 6})}, {{"num_workers", 2}, {"axis", 1}})),
      "R.Tensor((4, 3), dtype=\"float32\")");
  // The four ccl ops as TVM infers them: allreduce and broadcast keep their input; allgather
  // multiplies the first dim, scatter divides the axis (symbolic dims too); a tensor of unknown
  // shape gathers into one of unknown shape.
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("ccl.allreduce", {T("x", {n, 3})}, {{"op_type", "sum"}, {"in_group", true}})),
            "R.Tensor((n, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("ccl.allreduce", {T("x", {2}, "float16")}, {{"op_type", "max"}})),
            "R.Tensor((2,), dtype=\"float16\")");
  EXPECT_EQ(Infer(C("ccl.broadcast_from_worker0", {T("x", {n, 3}, "int32")})),
            "R.Tensor((n, 3), dtype=\"int32\")");
  EXPECT_EQ(Infer(C("ccl.allgather", {T("x", {n, 3})}, {{"num_workers", 4}, {"in_group", false}})),
            "R.Tensor((n * 4, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("ccl.allgather", {TN("x", 2)}, {{"num_workers", 2}})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(
      Infer(C("ccl.scatter_from_worker0", {T("x", {3, n})}, {{"num_workers", 2}, {"axis", -1}})),
      "R.Tensor((3, T.Div(n, 2)), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("ccl.scatter_from_worker0", {T("x", {5})}, {{"num_workers", 2}})),
            "op_test.py:1:6: R.ccl.scatter_from_worker0: dimension 0 (5) is not divisible by 2 "
            "workers");
  EXPECT_EQ(Infer(C("grad.take_backward", {T("g", {3}), T("x", {5}), T("i", {3}, "int64")})),
            "R.Tensor((5,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("quantize", {T("x", {4}), T("s", {}), T("z", {}, "int8")})),
            "R.Tensor((4,), dtype=\"int8\")");
  EXPECT_EQ(Infer(C("multinomial_from_uniform",
                    {T("p", {3, 10}), T("u", {5, 1}), T("i", {5, 1}, "int64")})),
            "R.Tensor((5, 1), dtype=\"int64\")");
  EXPECT_EQ(Infer(C("inspect.tensor_ndim", {T("x", {2})})), "R.Prim(\"int32\")");
}

}  // namespace
}  // namespace pipesplit::ir::optest
