// Error paths of the inference rules not covered by the per-family tests: each ill-typed call
// is reported at the call with its exact message.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

std::string Err(const std::string& op, std::vector<Expr> args, AttrMap attrs = {},
                std::vector<StructInfo> sinfo_args = {}) {
  return InferError(C(op, std::move(args), std::move(attrs), std::move(sinfo_args)));
}

const char* kAt = "op_test.py:1:6: ";

TEST(OpErrorsTest, Builtins) {
  EXPECT_EQ(Err("call_pure_packed", {}), std::string(kAt) +
                                             "R.call_pure_packed: expects the "
                                             "packed function as first argument");
  Expr f = ir::Make<ExternFuncNode>("f");
  EXPECT_EQ(Err("call_inplace_packed", {f}, {{"inplace_indices", Ints({0})}}),
            std::string(kAt) +
                "R.call_inplace_packed: expects the packed function and at least "
                "one argument");
  EXPECT_EQ(Err("call_inplace_packed", {f, T("a", {2}), T("b", {2})},
                {{"inplace_indices", Ints({0, 1})}}, {TensorSInfo(Dims({2}), DT("float32"))}),
            std::string(kAt) +
                "R.call_inplace_packed: several in-place indices need a tuple "
                "result with one field each");
  EXPECT_EQ(Err("assert_op", {}), std::string(kAt) + "R.assert_op: expects a condition");
}

TEST(OpErrorsTest, ConvAndPool) {
  EXPECT_EQ(Err("nn.conv2d", {T("x", {1, 4, 8, 8}), T("w", {4, 4, 3, 3})}, {{"groups", 0}}),
            std::string(kAt) + "R.nn.conv2d: groups must be positive");
  EXPECT_EQ(Err("nn.conv2d", {T("x", {1, 4, 8, 8}), T("w", {4, 4, 3, 3})},
                {{"strides", Ints({1, 1, 1})}}),
            std::string(kAt) +
                "R.nn.conv2d: strides, dilation and padding do not match the 2 "
                "spatial dimensions");
  EXPECT_EQ(
      Err("nn.conv2d", {T("x", {1, 4, 8, 8}), T("w", {6, 1, 3, 3})}, {{"groups", 4}}),
      std::string(kAt) + "R.nn.conv2d: the 6 output channels are not divisible into 4 groups");
  EXPECT_EQ(Err("nn.max_pool2d", {T("x", {1, 4, 8, 8})}, {{"pool_size", Ints({2, 2, 2})}}),
            std::string(kAt) +
                "R.nn.max_pool2d: pool_size, strides, dilation and padding do not "
                "match the 2 spatial dimensions");
  EXPECT_EQ(
      Err("nn.adaptive_avg_pool2d", {T("x", {1, 4, 8, 8})}, {{"output_size", Ints({1, 2, 3})}}),
      std::string(kAt) + "R.nn.adaptive_avg_pool2d: output_size must have 2 entries");
}

TEST(OpErrorsTest, AttributeRanges) {
  EXPECT_EQ(Err("nn.conv2d", {T("x", {1, 4, 8, 8}), T("w", {4, 4, 3, 3})}, {{"strides", 0}}),
            std::string(kAt) +
                "R.nn.conv2d: attribute strides must be between 1 and 2147483647, "
                "got 0");
  EXPECT_EQ(Err("nn.avg_pool2d", {T("x", {1, 4, 8, 8})}, {{"pool_size", int64_t{1} << 40}}),
            std::string(kAt) +
                "R.nn.avg_pool2d: attribute pool_size must be between 1 and "
                "2147483647, got 1099511627776");
  EXPECT_EQ(Err("nn.pad", {T("x", {2})}, {{"pad_width", Ints({int64_t{1} << 62, 1})}}),
            std::string(kAt) +
                "R.nn.pad: attribute pad_width must be between -2147483647 and "
                "2147483647, got 4611686018427387904");
  EXPECT_EQ(Err("split", {T("x", {4})}, {{"indices_or_sections", int64_t{1} << 40}}),
            std::string(kAt) + "R.split: too many sections (1099511627776)");
  // Huge bounds or slices never overflow.
  EXPECT_EQ(Infer(C("arange", {Prim(FloatImm(0.0)), Prim(FloatImm(1e30)), Prim(FloatImm(1e-30))})),
            "R.Tensor(dtype=\"float32\", ndim=1)");
}

TEST(OpErrorsTest, Layouts) {
  auto pool = [](const std::string& layout) {
    return Err("nn.max_pool2d", {T("x", {1, 4, 8, 8})}, {{"layout", layout}});
  };
  EXPECT_EQ(pool("NCHW99999999999999c"),
            std::string(kAt) +
                "R.nn.max_pool2d: data layout \"NCHW99999999999999c\" has a split "
                "factor that is too large");
  EXPECT_EQ(pool("NC4HW"), std::string(kAt) +
                               "R.nn.max_pool2d: data layout \"NC4HW\" puts a "
                               "split factor before a primal axis");
  EXPECT_EQ(pool("NCHWc"), std::string(kAt) +
                               "R.nn.max_pool2d: data layout \"NCHWc\" has a "
                               "sub-axis without a positive split factor");
  EXPECT_EQ(pool("NC-HW"), std::string(kAt) +
                               "R.nn.max_pool2d: data layout \"NC-HW\" is not a "
                               "layout");
  EXPECT_EQ(pool("NCHW4"), std::string(kAt) +
                               "R.nn.max_pool2d: data layout \"NCHW4\" ends with a "
                               "split factor");
  EXPECT_EQ(pool("NCHW4d"), std::string(kAt) +
                                "R.nn.max_pool2d: data layout \"NCHW4d\" splits "
                                "an axis it does not have");
  // A split layout maps shapes through the split: C = 2 * 4.
  EXPECT_EQ(Infer(C("nn.max_pool2d", {T("x", {1, 2, 8, 8, 4})},
                    {{"layout", "NCHW4c"}, {"out_layout", "NCHW"}})),
            "R.Tensor((1, 8, 8, 8), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.conv2d", {T("x", {1, 8, 10, 10}), T("w", {16, 8, 3, 3})},
                    {{"out_layout", "NCHW4c"}})),
            "R.Tensor((1, 4, 8, 8, 4), dtype=\"float32\")");
}

TEST(OpErrorsTest, Creation) {
  EXPECT_EQ(Err("eye_like", {T("x", {3, 3, 3}), PrimI(0)}),
            std::string(kAt) + "R.eye_like: x must be 2-d, got 3 dimensions");
  EXPECT_EQ(Err("hamming_window", {PrimI(4), PrimI(1), PrimI(1), PrimI(1)}, {{"dtype", "int32"}}),
            std::string(kAt) + "R.hamming_window: dtype must be a float type, got int32");
}

TEST(OpErrorsTest, Indexing) {
  EXPECT_EQ(Err("dynamic_strided_slice",
                {T("x", {4}), TN("b", 1, "int64"), T("e", {1}, "int64"), T("s", {1}, "int64")}),
            std::string(kAt) + "R.dynamic_strided_slice: begin must have a known length");
  EXPECT_EQ(Err("gather_nd", {T("x", {2, 3}), T("i", {5, 3}, "int64")}),
            std::string(kAt) +
                "R.gather_nd: the last dimension of indices (3) exceeds the rank of "
                "data minus batch_dims");
  EXPECT_EQ(Err("scatter_elements", {T("x", {3, 4}), T("i", {2}, "int64"), T("u", {2, 4})}),
            std::string(kAt) + "R.scatter_elements: indices must have the rank of data");
  EXPECT_EQ(Err("scatter_elements", {T("x", {3, 4}), T("i", {2, 4}, "int64"), T("u", {2})}),
            std::string(kAt) + "R.scatter_elements: updates must have the rank of data");
  EXPECT_EQ(Err("scatter_elements", {T("x", {3, 4}), T("i", {2, 4}, "int64"), T("u", {2, 3})}),
            std::string(kAt) + "R.scatter_elements: indices and updates must have the same shape");
  EXPECT_EQ(Err("one_hot", {T("i", {3}, "int64"), T("on", {}), T("off", {})}, {{"depth", 2}}),
            std::string(kAt) + "R.one_hot: on_value and off_value must be R.prim_value constants");
  EXPECT_EQ(Err("concat", {Tup({T("a", {2}), Shape({2})})}),
            std::string(kAt) +
                "R.concat: tensors must be a tuple of tensors, got a field of "
                "R.Shape");
  EXPECT_EQ(
      Err("strided_slice", {T("x", {4}), Tup({T("a", {})}), Tup({PrimI(0)}), Tup({PrimI(1)})}),
      std::string(kAt) +
          "R.strided_slice: axes must be a tuple of R.Prim values, got a "
          "field of R.Tensor");
}

TEST(OpErrorsTest, LinearAlgebra) {
  auto einsum = [](const std::string& subscripts, std::vector<Expr> operands) {
    return Err("einsum", {Tup(std::move(operands))}, {{"subscripts", subscripts}});
  };
  std::string invalid = std::string(kAt) + "R.einsum: invalid subscripts ";
  EXPECT_EQ(einsum("i-j", {T("a", {2})}), invalid + "\"i-j\"");
  EXPECT_EQ(einsum("i->j->k", {T("a", {2})}), invalid + "\"i->j->k\"");
  EXPECT_EQ(einsum("i->j,k", {T("a", {2})}), invalid + "\"i->j,k\"");
  EXPECT_EQ(einsum("...i..", {T("a", {2})}), invalid + "\"...i..\"");
  EXPECT_EQ(einsum("i", {}), std::string(kAt) + "R.einsum: expects at least one operand");
  EXPECT_EQ(einsum("i,j", {T("a", {2})}),
            std::string(kAt) + "R.einsum: the subscripts name 2 operands but there are 1");
  EXPECT_EQ(einsum("ij", {T("a", {2})}),
            std::string(kAt) + "R.einsum: operand 0 has 1 dimensions but its subscripts name 2");
  EXPECT_EQ(einsum("i->j", {T("a", {2})}),
            std::string(kAt) + "R.einsum: output label j does not appear in the inputs");
  EXPECT_EQ(einsum("i,i", {T("a", {2}), T("b", {2}, "int32")}),
            std::string(kAt) + "R.einsum: dtypes float32 and int32 do not match");
}

TEST(OpErrorsTest, Manipulation) {
  EXPECT_EQ(Err("stack", {Tup({T("a", {2}), T("b", {2, 2})})}),
            std::string(kAt) + "R.stack: tensors of 1 and 2 dimensions cannot be stacked");
  EXPECT_EQ(Err("stack", {Tup({})}), std::string(kAt) + "R.stack: expects at least one tensor");
  EXPECT_EQ(Err("meshgrid", {Tup({})}), std::string(kAt) +
                                            "R.meshgrid: expects at least one 1-d "
                                            "tensor");
  EXPECT_EQ(Err("meshgrid", {Tup({T("a", {2}), T("b", {2}, "int32")})}),
            std::string(kAt) + "R.meshgrid: dtypes float32 and int32 do not match");
}

TEST(OpErrorsTest, Memory) {
  Var s = V("s", ir::Make<ShapeSInfoNode>(1));
  EXPECT_EQ(Err("builtin.alloc_tensor", {s, DTypeImm("float32"), PrimI(0)}),
            std::string(kAt) + "R.builtin.alloc_tensor: shape must be an R.shape([...]) value");
  Expr none = Tup({});
  EXPECT_EQ(Err("memory.view", {T("x", {4}), none, none, Prim(IntImm(0, DataType::Int(32)))}),
            std::string(kAt) + "R.memory.view: relative_byte_offset must be an int64 R.Prim value");
  EXPECT_EQ(Err("memory.view", {T("x", {4}), none, T("d", {}), none}),
            std::string(kAt) + "R.memory.view: dtype must be an R.dtype(...) value");
}

TEST(OpErrorsTest, MiscFamilies) {
  EXPECT_EQ(Err("image.resize2d", {T("x", {1, 3, 8, 8}), Shape({4})}),
            std::string(kAt) + "R.image.resize2d: size must have 2 dims, got 1");
  EXPECT_EQ(Err("image.affine_grid", {T("t", {2, 3}), Shape({4, 4})}),
            std::string(kAt) + "R.image.affine_grid: data must be 3-d");
  EXPECT_EQ(Infer(C("image.affine_grid", {T("t", {2, 2, 3}), Shape({4, 5})})),
            "R.Tensor((2, 2, 4, 5), dtype=\"float32\")");
  EXPECT_EQ(Err("ccl.allgather", {T("x", {4})}, {{"num_workers", 0}}),
            std::string(kAt) + "R.ccl.allgather: num_workers must be positive");
  EXPECT_EQ(Err("ccl.allgather", {T("x", {})}, {{"num_workers", 2}}),
            std::string(kAt) + "R.ccl.allgather: expects a tensor of at least 1 dimension");
  EXPECT_EQ(Err("multinomial_from_uniform",
                {T("p", {2, 3}, "int32"), T("u", {2, 1}), T("i", {2, 1}, "int64")}),
            std::string(kAt) + "R.multinomial_from_uniform: prob must be a float tensor");
  EXPECT_EQ(Err("multinomial_from_uniform",
                {T("p", {2, 3}), T("u", {2, 1}, "int32"), T("i", {2, 1}, "int64")}),
            std::string(kAt) + "R.multinomial_from_uniform: uniform_sample must be a float tensor");
  EXPECT_EQ(Err("multinomial_from_uniform", {T("p", {2, 3}), T("u", {2, 1}), T("i", {2, 1})}),
            std::string(kAt) + "R.multinomial_from_uniform: sample_indices must be an int tensor");
  EXPECT_EQ(Err("multinomial_from_uniform", {T("p", {2, 3}), T("u", {2}), T("i", {2, 1}, "int64")}),
            std::string(kAt) + "R.multinomial_from_uniform: uniform_sample must be 2-d");
  EXPECT_EQ(Err("inspect.tensor_ndim", {}), std::string(kAt) +
                                                "R.inspect.tensor_ndim: expects a "
                                                "tensor");
}

TEST(OpErrorsTest, NN) {
  EXPECT_EQ(Err("nn.instance_norm", {T("x", {2, 6, 4}), T("g", {5}), T("b", {6})},
                {{"channel_axis", 1}, {"axes", Ints({2})}}),
            std::string(kAt) + "R.nn.instance_norm: gamma must have one entry per channel");
  EXPECT_EQ(Err("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {4})}),
            std::string(kAt) +
                "R.nn.cross_entropy_with_logits: predictions and labels must have "
                "the same rank");
  EXPECT_EQ(Err("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {4, 9})}),
            std::string(kAt) +
                "R.nn.cross_entropy_with_logits: predictions and labels must have "
                "the same shape");
  EXPECT_EQ(Err("nn.nll_loss", {T("p", {4, 10}), T("t", {4})}),
            std::string(kAt) + "R.nn.nll_loss: targets must have an integer dtype, got float32");
  EXPECT_EQ(Err("nn.pixel_shuffle", {T("x", {1, 8, 3, 3})}, {{"upscale_factor", 0}}),
            std::string(kAt) + "R.nn.pixel_shuffle: upscale_factor must be positive");
  EXPECT_EQ(Err("nn.pixel_shuffle", {T("x", {8, 3})}, {{"upscale_factor", 2}}),
            std::string(kAt) + "R.nn.pixel_shuffle: the input needs at least 3 dimensions");
  EXPECT_EQ(Err("nn.pixel_shuffle", {T("x", {1, 6, 3, 3})}, {{"upscale_factor", 2}}),
            std::string(kAt) + "R.nn.pixel_shuffle: the 6 channels are not divisible by 4");
  EXPECT_EQ(Err("nn.batch_flatten", {T("x", {8})}),
            std::string(kAt) + "R.nn.batch_flatten: the input needs at least 2 dimensions");
  EXPECT_EQ(Err("nn.attention", {T("q", {1, 4, 6, 8}), T("k", {1, 4, 4, 8}), T("v", {1, 4, 4, 8})}),
            std::string(kAt) +
                "R.nn.attention: the number of heads of the query (6) is not a "
                "multiple of 4");
}

TEST(OpErrorsTest, ReductionsAndAttributes) {
  Expr x = T("x", {3});
  EXPECT_EQ(Err("unique", {T("x", {3}), Prim(MakeTirVar("s")), PrimI(0), PrimI(0), PrimI(0)}),
            "no error: R.Tensor(dtype=\"float32\", ndim=1)");
  EXPECT_EQ(Err("unique", {T("x", {3}), PrimI(1), Prim(MakeTirVar("s")), PrimI(0), PrimI(0)}),
            std::string(kAt) + "R.unique: return_index must be a constant R.prim_value");
  EXPECT_EQ(Err("nn.leakyrelu", {T("x", {3})}, {{"alpha", "a"}}),
            "no error: R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Err("nn.softmax", {T("x", {3})}, {{"axis", 1.5}}),
            std::string(kAt) + "R.nn.softmax: attribute axis must be an integer");
  EXPECT_EQ(Err("topk", {T("x", {3})}, {{"ret_type", 1}}),
            std::string(kAt) + "R.topk: attribute ret_type must be a string");
  EXPECT_EQ(Err("nn.layer_norm", {T("x", {3}), T("g", {3}), T("b", {3})},
                {{"axes", Ints({0})}, {"epsilon", "tiny"}}),
            "no error: R.Tensor((3,), dtype=\"float32\")");
}

}  // namespace
}  // namespace pipesplit::ir::optest
