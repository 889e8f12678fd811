// Inference rules of the nn ops: softmax, norms, losses, pad, attention, convolution, pooling.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

TEST(OpNNTest, Softmax) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("nn.softmax", {T("x", {1, 32, n, n}, "float16")})),
            "R.Tensor((1, 32, n, n), dtype=\"float16\")");
  EXPECT_EQ(Infer(C("nn.log_softmax", {TN("x", -1, "int32")})), "R.Tensor(dtype=\"int32\")");
  EXPECT_EQ(InferError(C("nn.softmax", {T("x", {2}, "int32")})),
            "op_test.py:1:6: R.nn.softmax: requires a float tensor, got int32");
  EXPECT_EQ(InferError(C("nn.softmax", {T("x", {2})}, {{"axis", 1}})),
            "op_test.py:1:6: R.nn.softmax: axis 1 is out of range for a tensor of 1 dimension");
  EXPECT_EQ(Infer(C("nn.leakyrelu", {T("x", {2})}, {{"alpha", 0.02}})),
            "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.prelu", {T("x", {2, 3}), T("a", {3})})),
            "R.Tensor((2, 3), dtype=\"float32\")");
}

TEST(OpNNTest, RMSNormAndLayerNorm) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("nn.rms_norm", {T("x", {1, n, 4096}, "float16"), T("w", {4096}, "float16")})),
            "R.Tensor((1, n, 4096), dtype=\"float16\")");
  EXPECT_EQ(Infer(C("nn.layer_norm", {T("x", {2, 3, 4}), T("g", {3, 4}), T("b", {3, 4})},
                    {{"axes", Ints({-2, -1})}})),
            "R.Tensor((2, 3, 4), dtype=\"float32\")");
  // A weight length that cannot be proven equal makes the shape unknown.
  EXPECT_EQ(Infer(C("nn.rms_norm", {T("x", {2, n}), T("w", {MakeTirVar("m")})})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(InferError(C("nn.rms_norm", {T("x", {2, 8}), T("w", {4})})),
            "op_test.py:1:6: R.nn.rms_norm: the normalized lengths (8,) and (4,) differ");
  EXPECT_EQ(InferError(C("nn.rms_norm", {T("x", {2, 8}), T("w", {8}, "float16")})),
            "op_test.py:1:6: R.nn.rms_norm: weight has dtype float16 but the data has float32");
  EXPECT_EQ(InferError(C("nn.layer_norm", {T("x", {2, 8}), T("g", {8}), T("b", {8})},
                         {{"axes", Ints({0, 1})}})),
            "op_test.py:1:6: R.nn.layer_norm: gamma must have 2 dimensions (one per axis), got 1");
  EXPECT_EQ(InferError(C("nn.layer_norm",
                         {T("x", {2, 8}, "int32"), T("g", {8}, "int32"), T("b", {8}, "int32")},
                         {{"axes", -1}})),
            "op_test.py:1:6: R.nn.layer_norm: requires a float tensor, got int32");
}

TEST(OpNNTest, BatchGroupInstanceNorm) {
  EXPECT_EQ(Infer(C("nn.batch_norm",
                    {T("x", {2, 3, 4, 4}), T("g", {3}), T("b", {3}), T("m", {3}), T("v", {3})},
                    {{"axis", 1}})),
            "R.Tuple(R.Tensor((2, 3, 4, 4), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
            "R.Tensor((3,), dtype=\"float32\"))");
  EXPECT_EQ(Infer(C("nn.group_norm", {T("x", {2, 6, 4}), T("g", {6}), T("b", {6})},
                    {{"num_groups", 3}, {"channel_axis", 1}, {"axes", Ints({2})}})),
            "R.Tensor((2, 6, 4), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("nn.group_norm", {T("x", {2, 6, 4}), T("g", {6}), T("b", {6})},
                         {{"num_groups", 4}, {"channel_axis", 1}, {"axes", Ints({2})}})),
            "op_test.py:1:6: R.nn.group_norm: the 6 channels are not divisible into 4 groups");
  EXPECT_EQ(InferError(C("nn.instance_norm", {T("x", {2, 6, 4}), T("g", {6}), T("b", {6})},
                         {{"channel_axis", 1}, {"axes", Ints({1, 2})}})),
            "op_test.py:1:6: R.nn.instance_norm: channel_axis 1 must not be in axes");
}

TEST(OpNNTest, LossesPadAndFlatten) {
  EXPECT_EQ(Infer(C("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, "int64")})),
            "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(
      Infer(C("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, "int64")}, {{"reduction", "none"}})),
      "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(
      InferError(C("nn.nll_loss", {T("p", {4, 10}), T("t", {4}, "int64")}, {{"reduction", "avg"}})),
      "op_test.py:1:6: R.nn.nll_loss: reduction must be \"none\", \"mean\" or \"sum\", got "
      "\"avg\"");
  EXPECT_EQ(Infer(C("nn.cross_entropy_with_logits", {T("p", {4, 10}), T("l", {4, 10})})),
            "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(
      Infer(C("nn.pad", {T("x", {1, 2, 3, 4})}, {{"pad_width", Ints({0, 0, 0, 0, 2, 2, 1, 1})}})),
      "R.Tensor((1, 2, 7, 6), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("nn.pad", {T("x", {1, 2})}, {{"pad_width", Ints({1, 1})}})),
            "op_test.py:1:6: R.nn.pad: pad_width needs 4 entries (two per dim), got 2");
  EXPECT_EQ(Infer(C("nn.batch_flatten", {T("x", {2, 3, 4})})),
            "R.Tensor((2, 12), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.pixel_shuffle", {T("x", {1, 8, 3, 3})}, {{"upscale_factor", 2}})),
            "R.Tensor((1, 2, 6, 6), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.dropout", {T("x", {2})})),
            "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))");
}

TEST(OpNNTest, Attention) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("nn.attention",
                    {T("q", {1, n, 32, 128}), T("k", {1, 16, 8, 128}), T("v", {1, 16, 8, 64})})),
            "R.Tensor((1, n, 32, 64), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("nn.attention", {T("q", {1, 4, 32, 128}), T("k", {1, 16, 8, 64}),
                                          T("v", {1, 16, 8, 64})})),
            "op_test.py:1:6: R.nn.attention: the head dim of query and key differs: 128 and 64");
  EXPECT_EQ(InferError(C("nn.attention",
                         {T("q", {1, 4, 32}), T("k", {1, 16, 8, 64}), T("v", {1, 16, 8, 64})})),
            "op_test.py:1:6: R.nn.attention: query must be 4-d (batch, sequence, heads, head dim)");
}

TEST(OpNNTest, Conv2d) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("nn.conv2d", {T("x", {2, 3, 28, 28}), T("w", {16, 3, 3, 3})})),
            "R.Tensor((2, 16, 26, 26), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.conv2d", {T("x", {n, 3, 28, 28}), T("w", {16, 3, 3, 3})},
                    {{"strides", Ints({2, 2})}, {"padding", 1}})),
            "R.Tensor((n, 16, 14, 14), dtype=\"float32\")");
  // Layouts: NHWC data with an OHWI kernel, output in the data layout.
  EXPECT_EQ(
      Infer(C("nn.conv2d", {T("x", {2, 28, 28, 3}), T("w", {16, 3, 3, 3})},
              {{"data_layout", "NHWC"}, {"kernel_layout", "OHWI"}, {"padding", Ints({1, 1})}})),
      "R.Tensor((2, 28, 28, 16), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.conv2d", {T("x", {2, 4, 9, 9}), T("w", {8, 2, 3, 3})},
                    {{"groups", 2}, {"out_dtype", "float16"}})),
            "R.Tensor((2, 8, 7, 7), dtype=\"float16\")");
  EXPECT_EQ(Infer(C("nn.conv2d", {T("x", {2, 3, n, 28}), T("w", {16, 3, 3, 3})})),
            "R.Tensor((2, 16, n - 2, 26), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("nn.conv2d", {T("x", {2, 4, 9, 9}), T("w", {8, 3, 3, 3})})),
            "op_test.py:1:6: R.nn.conv2d: the data has 4 channels but the kernel expects 3 x 1 "
            "groups");
  EXPECT_EQ(InferError(C("nn.conv2d", {T("x", {2, 4, 9}), T("w", {8, 4, 3, 3})})),
            "op_test.py:1:6: R.nn.conv2d: data layout NCHW needs a 4-d tensor, got 3-d");
  EXPECT_EQ(InferError(C("nn.conv2d", {T("x", {2, 4, 9, 9}), T("w", {8, 4, 3, 3})},
                         {{"data_layout", "NCHX"}})),
            "op_test.py:1:6: R.nn.conv2d: data layout \"NCHX\" does not match NCHW");
}

TEST(OpNNTest, ConvTransposeAndConv1d3d) {
  EXPECT_EQ(Infer(C("nn.conv2d_transpose", {T("x", {1, 4, 5, 5}), T("w", {4, 2, 3, 3})},
                    {{"strides", Ints({2, 2})},
                     {"padding", Ints({1, 1})},
                     {"output_padding", Ints({1, 1})}})),
            "R.Tensor((1, 2, 10, 10), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.conv1d", {T("x", {1, 3, 10}), T("w", {6, 3, 3})})),
            "R.Tensor((1, 6, 8), dtype=\"float32\")");
  EXPECT_EQ(
      Infer(C("nn.conv3d", {T("x", {1, 3, 8, 8, 8}), T("w", {6, 3, 3, 3, 3})}, {{"padding", 1}})),
      "R.Tensor((1, 6, 8, 8, 8), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("nn.conv1d_transpose", {T("x", {1, 3, 10}), T("w", {3, 6, 3})},
                         {{"output_padding", 1}})),
            "op_test.py:1:6: R.nn.conv1d_transpose: output_padding must be smaller than strides");
}

TEST(OpNNTest, Pooling) {
  EXPECT_EQ(Infer(C("nn.max_pool2d", {T("x", {1, 3, 32, 32})},
                    {{"pool_size", Ints({2, 2})}, {"strides", Ints({2, 2})}})),
            "R.Tensor((1, 3, 16, 16), dtype=\"float32\")");
  // ceil_mode keeps a last partial window that starts inside the input.
  EXPECT_EQ(Infer(C("nn.avg_pool2d", {T("x", {1, 3, 10, 10})},
                    {{"pool_size", 5},
                     {"strides", 2},
                     {"padding", Ints({2, 1, 2, 1})},
                     {"ceil_mode", true}})),
            "R.Tensor((1, 3, 6, 5), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.max_pool1d", {T("x", {1, 3, 9})}, {{"pool_size", 3}})),
            "R.Tensor((1, 3, 7), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.adaptive_avg_pool2d", {T("x", {1, 3, 32, 32})}, {{"output_size", 1}})),
            "R.Tensor((1, 3, 1, 1), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.adaptive_avg_pool2d", {T("x", {1, 3, 32, 32})})),
            "R.Tensor((1, 3, 32, 32), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("nn.max_pool2d", {TN("x", 5)}, {{"layout", "NCHW4c"}, {"out_layout", "NCHW"}})),
            "R.Tensor(dtype=\"float32\", ndim=4)");
}

}  // namespace
}  // namespace pipesplit::ir::optest
