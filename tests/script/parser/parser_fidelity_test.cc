// Parser tests on fidelity to what TVM stores for a script: op attributes as TVM's op
// constructors make them (missing attributes completed with their defaults, values normalized:
// a scalar for a list, an int for a float, padding per side), index maps, virtual devices, the
// inferred results of the vision ops, signature dims bound to constants in the body, and a
// branch ending in a call that returns nothing. Expected texts are TVM's printed output for the
// same input (tvm-printer corpus).
#include <gtest/gtest.h>

#include <string>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/vdevice.h"
#include "pipesplit/script/printer.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::Parse;
using testing::ParseError;

// A module whose function `main(params)` binds `gv = call` (annotated when `annotation` is
// given) and returns it.
std::string Module(const std::string& params, const std::string& call,
                   const std::string& annotation = "") {
  return "@I.ir_module\n"
         "class Module:\n"
         "    @R.function\n"
         "    def main(" +
         params + "):\n        gv" + (annotation.empty() ? "" : ": " + annotation) + " = " + call +
         "\n        return gv\n";
}

// The printed line of `gv` (annotation and value), without its indentation.
std::string PrintedBinding(const std::string& params, const std::string& call,
                           const std::string& annotation = "") {
  std::string text = PrintModule(Parse(Module(params, call, annotation)));
  size_t at = text.find("        gv: ");
  if (at == std::string::npos) return "no binding of gv in:\n" + text;
  at += 8;
  return text.substr(at, text.find('\n', at) - at);
}

// The printed value bound to `gv`.
std::string PrintedValue(const std::string& params, const std::string& call,
                         const std::string& annotation = "") {
  std::string line = PrintedBinding(params, call, annotation);
  size_t eq = line.find(" = ");
  return eq == std::string::npos ? line : line.substr(eq + 3);
}

const char* kImage =
    "x: R.Tensor((1, 3, 8, 8), \"float32\"), w: R.Tensor((4, 3, 3, 3), \"float32\")";

TEST(ParserFidelityTest, Conv2dGetsEveryDefault) {
  EXPECT_EQ(PrintedValue(kImage, "R.nn.conv2d(x, w)"),
            "R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, "
            "data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", "
            "out_dtype=\"void\")");
}

TEST(ParserFidelityTest, PaddingOfTwoValuesCoversFourSides) {
  EXPECT_EQ(PrintedValue(kImage, "R.nn.conv2d(x, w, strides=2, padding=[1, 1])"),
            "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, "
            "data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", "
            "out_dtype=\"void\")");
}

TEST(ParserFidelityTest, Conv3dStridesOfOneValueCoverThreeDims) {
  EXPECT_EQ(PrintedValue("x: R.Tensor((1, 1, 4, 4, 4), \"float32\"), "
                         "w: R.Tensor((2, 1, 3, 3, 3), \"float32\")",
                         "R.nn.conv3d(x, w, strides=[1])"),
            "R.nn.conv3d(x, w, strides=[1, 1, 1], padding=[0, 0, 0, 0, 0, 0], "
            "dilation=[1, 1, 1], groups=1, data_layout=\"NCDHW\", kernel_layout=\"OIDHW\", "
            "out_layout=\"NCDHW\", out_dtype=\"void\")");
}

TEST(ParserFidelityTest, PoolingGetsCeilModeAndCountIncludePad) {
  EXPECT_EQ(PrintedValue(kImage, "R.nn.max_pool2d(x, pool_size=[1, 2], strides=[1, 2])"),
            "R.nn.max_pool2d(x, pool_size=[1, 2], strides=[1, 2], dilation=[1, 1], "
            "padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout=\"NCHW\", "
            "out_layout=\"NCHW\")");
}

TEST(ParserFidelityTest, SliceCreationAndNormGetTheirDefaults) {
  EXPECT_EQ(PrintedValue("x: R.Tensor((4, 8), \"float32\")", "R.zeros_like(x)"),
            "R.zeros_like(x, dtype=\"void\")");
  EXPECT_EQ(PrintedValue("x: R.Tensor((4, 8), \"float32\")",
                         "R.strided_slice(x, axes=[0], begin=[1], end=[3])"),
            "R.strided_slice(x, (R.prim_value(0),), (R.prim_value(1),), (R.prim_value(3),), "
            "assume_inbound=False)");
  EXPECT_EQ(PrintedValue("x: R.Tensor((2, 3), \"float32\"), g: R.Tensor((3,), \"float32\"), "
                         "b: R.Tensor((3,), \"float32\"), m: R.Tensor((3,), \"float32\"), "
                         "v: R.Tensor((3,), \"float32\")",
                         "R.nn.batch_norm(x, g, b, m, v, axis=1)"),
            "R.nn.batch_norm(x, g, b, m, v, axis=1, epsilon=1.0000000000000001e-05, center=True, "
            "scale=True, momentum=0.10000000000000001, training=True)");
}

TEST(ParserFidelityTest, ScalarsBecomeLists) {
  EXPECT_EQ(PrintedValue("x: R.Tensor((2, 3), \"float32\")", "R.tile(x, 2)"),
            "R.tile(x, repeats=[2])");
  EXPECT_EQ(PrintedValue("x: R.Tensor((3, 4), \"float32\")",
                         "R.call_inplace_packed(\"vm.builtin.copy\", x, inplace_indices=0, "
                         "sinfo_args=(R.Tensor((3, 4), dtype=\"float32\"),))"),
            "R.call_inplace_packed(\"vm.builtin.copy\", x, inplace_indices=[0], "
            "sinfo_args=(R.Tensor((3, 4), dtype=\"float32\"),))");
}

TEST(ParserFidelityTest, NumbersTakeTheDeclaredType) {
  // resize2d's extrapolation_value is a float; its roi holds float32 immediates.
  std::string value =
      PrintedValue("x: R.Tensor((1, 3, 8, 8), \"float32\")",
                   "R.image.resize2d(x, (16, 16), roi=[0.0, 0.0, 1, 1], extrapolation_value=0)");
  EXPECT_NE(value.find("roi=[T.float32(0.0), T.float32(0.0), T.float32(1.0), T.float32(1.0)]"),
            std::string::npos)
      << value;
  EXPECT_NE(value.find("extrapolation_value=0.0,"), std::string::npos) << value;
}

TEST(ParserFidelityTest, RequiredFloatAttributesStoreFloats) {
  EXPECT_EQ(PrintedValue("x: R.Tensor((1, 4, 8, 8), \"float32\"), rois: R.Tensor((2, 5), "
                         "\"float32\")",
                         "R.vision.roi_align(x, rois, pooled_size=(3, 3), spatial_scale=1, "
                         "sample_ratio=2)",
                         "R.Tensor((2, 4, 3, 3), \"float32\")"),
            "R.vision.roi_align(x, rois, pooled_size=[3, 3], spatial_scale=1.0, sample_ratio=2, "
            "aligned=False, layout=\"NCHW\", mode=\"avg\")");
}

TEST(ParserFidelityTest, WrittenAndCompletedAttributesAreTheSameIr) {
  // Written in full or left to the defaults, the call prints (and so is stored) the same.
  EXPECT_EQ(PrintedValue(kImage, "R.nn.conv2d(x, w)"),
            PrintedValue(kImage,
                         "R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], "
                         "dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", "
                         "out_layout=\"NCHW\", out_dtype=\"void\")"));
}

TEST(ParserFidelityTest, BareLambdaIndexMapIsAnInt64IndexMap) {
  const char* params = "x: R.Tensor((16,), \"float32\")";
  const char* result = "R.Tensor((4, 4), \"float32\")";
  std::string expected =
      "R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None, "
      "axis_separators=[], input_axis_separators=[])";
  EXPECT_EQ(
      PrintedValue(params, "R.layout_transform(x, index_map=lambda i: (i // 4, i % 4))", result),
      expected);
  // index_dtype is not printed, so the vars are int64 whatever it says: the module equals its
  // own reprint.
  std::string with_dtype =
      "R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4), "
      "index_dtype=\"int32\"))";
  EXPECT_EQ(PrintedValue(params, with_dtype, result), expected);
  ir::IRModule mod = Parse(Module(params, with_dtype, result));
  const auto* call =
      ir::As<ir::CallNode>(testing::FindBinding(testing::GetFunction(mod, "main"), "gv")->value());
  ASSERT_NE(call, nullptr);
  const ir::AttrCall* index_map = ir::FindAttr(call->attrs(), "index_map")->as_call();
  ASSERT_NE(index_map, nullptr);
  const ir::AttrCall* lambda = index_map->args[0].as_call();
  ASSERT_NE(lambda, nullptr);
  const ir::PrimExpr* var = (*lambda->args[0].as_list())[0].as_prim_expr();
  ASSERT_NE(var, nullptr);
  EXPECT_EQ((*var)->dtype(), DataType::Int(64));
  // The index dtype is still checked.
  EXPECT_NE(ParseError(Module(params,
                              "R.layout_transform(x, index_map=T.index_map(lambda i: (i, 0), "
                              "index_dtype=\"int33x\"))",
                              result))
                .find("error:"),
            std::string::npos);
}

TEST(ParserFidelityTest, LlvmVDeviceIsExpandedAsTvmDoes) {
  const char* text =
      "@I.ir_module\n"
      "class Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\")]})\n"
      "    @R.function\n"
      "    def foo(x: R.Tensor((), \"int32\")) -> R.Tensor((), \"int32\"):\n"
      "        tensor = R.to_vdevice(x, \"llvm\")\n"
      "        return tensor\n";
  std::string printed = PrintModule(Parse(text));
  EXPECT_NE(printed.find("    I.module_global_infos({\"vdevice\": [I.vdevice({\"keys\": [\"cpu\"], "
                         "\"kind\": \"llvm\", \"mtriple\": \"\", \"tag\": \"\"}, 0, "
                         "\"global\")]})\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("tensor: R.Tensor((), dtype=\"int32\", vdevice=\"llvm:0:global\") = "
                         "R.to_vdevice(x, dst_vdevice=\"llvm:0:global\")"),
            std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
}

TEST(ParserFidelityTest, CompleteVDeviceKeepsOtherTargetsAndMovesKeywords) {
  ir::AttrCall cuda{.callee = "I.vdevice", .args = {"cuda"}, .kwargs = {{"memory_scope", "x"}}};
  ir::AttrCall done = ir::CompleteVDevice(cuda);
  ASSERT_EQ(done.args.size(), 3u);
  EXPECT_EQ(*done.args[0].as_string(), "cuda");
  EXPECT_EQ(*done.args[1].as_int(), 0);
  EXPECT_EQ(*done.args[2].as_string(), "x");
  EXPECT_TRUE(done.kwargs.empty());
  ir::AttrCall other{.callee = "I.other", .args = {"llvm"}, .kwargs = {}};
  EXPECT_EQ(ir::CompleteVDevice(other).args.size(), 1u);
}

TEST(ParserFidelityTest, VisionResultsAreInferred) {
  EXPECT_EQ(PrintedBinding("data: R.Tensor((2, 5, 6), \"float32\")",
                           "R.vision.get_valid_counts(data, score_threshold=0.5)"),
            "gv: R.Tuple(R.Tensor((2,), dtype=\"int32\"), R.Tensor((2, 5, 6), dtype=\"float32\"), "
            "R.Tensor((2, 5), dtype=\"int32\")) = R.vision.get_valid_counts(data, "
            "score_threshold=0.5, id_index=0, score_index=1)");
  const char* nms_params =
      "data: R.Tensor((1, 5, 6), \"float32\"), valid_count: R.Tensor((1,), \"int32\"), "
      "indices: R.Tensor((1, 5), \"int32\")";
  std::string indices =
      PrintedBinding(nms_params, "R.vision.non_max_suppression(data, valid_count, indices)");
  EXPECT_EQ(indices.substr(0, indices.find(" = ")),
            "gv: R.Tuple(R.Tensor((1, 5), dtype=\"int32\"), R.Tensor((1, 1), dtype=\"int32\"))");
  std::string soft = PrintedBinding(
      nms_params, "R.vision.non_max_suppression(data, valid_count, indices, soft_nms_sigma=0.5)");
  EXPECT_EQ(
      soft.substr(0, soft.find(" = ")),
      "gv: R.Tuple(R.Tensor((1, 5, 6), dtype=\"float32\"), R.Tensor((1, 5), dtype=\"int32\"), "
      "R.Tensor((1, 1), dtype=\"int32\"))");
  std::string boxes = PrintedBinding(
      nms_params, "R.vision.non_max_suppression(data, valid_count, indices, return_indices=False)");
  EXPECT_EQ(boxes.substr(0, boxes.find(" = ")), "gv: R.Tensor((1, 5, 6), dtype=\"float32\")");
  std::string multibox = PrintedBinding(
      "cls: R.Tensor((1, 3, 5), \"float32\"), loc: R.Tensor((1, 20), \"float32\"), "
      "anc: R.Tensor((1, 5, 4), \"float32\")",
      "R.vision.multibox_transform_loc(cls, loc, anc, variances=(0.1, 0.1, 0.2, 0.2))");
  EXPECT_EQ(multibox.substr(0, multibox.find(" = ")),
            "gv: R.Tuple(R.Tensor((1, 5, 4), dtype=\"float32\"), R.Tensor((1, 3, 5), "
            "dtype=\"float32\"))");
}

TEST(ParserFidelityTest, VisionOpsRejectBoxesOfTheWrongRank) {
  EXPECT_NE(
      ParseError(Module("data: R.Tensor((5, 6), \"float32\")", "R.vision.get_valid_counts(data)"))
          .find("error: R.vision.get_valid_counts: data must be 3-d, got 2-d"),
      std::string::npos)
      << ParseError(
             Module("data: R.Tensor((5, 6), \"float32\")", "R.vision.get_valid_counts(data)"));
  EXPECT_NE(ParseError(Module("cls: R.Tensor((1, 3, 5), \"float32\"), loc: R.Tensor((20,), "
                              "\"float32\"), anc: R.Tensor((1, 5, 4), \"float32\")",
                              "R.vision.multibox_transform_loc(cls, loc, anc)"))
                .find("loc_pred must be 2-d, got 1-d"),
            std::string::npos);
}

TEST(ParserFidelityTest, SignatureDimsBoundToConstantsInTheBodyAreThoseConstants) {
  std::string printed = PrintModule(Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(["batch_size", 1, 16]), a: R.Tensor([16, "lora_r"])) -> R.Tensor(["batch_size", 1, "lora_r"]):
        batch_size = T.int64(4)
        lora_r = T.int64(16)
        out: R.Tensor([batch_size, 1, lora_r]) = R.matmul(x, a)
        return out
)"));
  EXPECT_NE(
      printed.find("    def main(x: R.Tensor((4, 1, 16)), a: R.Tensor((16, 16))) -> "
                   "R.Tensor((4, 1, 16)):\n"
                   "        out: R.Tensor((4, 1, 16)) = R.matmul(x, a, out_dtype=\"void\")\n"),
      std::string::npos)
      << printed;
  // A declaration without a value still makes a symbolic var.
  printed = PrintModule(Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(["n"])) -> R.Tensor(["n"]):
        n = T.int64()
        return x
)"));
  EXPECT_NE(printed.find("def main(x: R.Tensor((\"n\",)))"), std::string::npos) << printed;
}

TEST(ParserFidelityTest, BranchEndingInAVoidCallHasTheEmptyTupleAsValue) {
  const char* text = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def f(x: R.Tensor((), "int32"), c: R.Tensor((), "bool")) -> R.Tensor((), "int32"):
        if c:
            y = R.print(x, format="yes: {}")
        else:
            y = R.print(x, format="no: {}")
        return x
)";
  std::string printed = PrintModule(Parse(text));
  EXPECT_NE(printed.find("        if c:\n"
                         "            R.print(x, format=R.str(\"yes: {}\"))\n"
                         "            y: R.Tuple = R.tuple()\n"
                         "        else:\n"
                         "            R.print(x, format=R.str(\"no: {}\"))\n"
                         "            y: R.Tuple = R.tuple()\n"),
            std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
}

TEST(ParserFidelityTest, DeviceMeshGlobalInfosParseAndPrintBack) {
  const char* text = R"(@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.dist.device_mesh((1,), I.Range(4, 5))]})
    @R.function
    def foo(x: R.Tensor((128, 128), "float32")) -> R.Tensor((128, 128), "float32"):
        lv = R.dist.annotate_sharding(x, device_mesh="mesh[0]", placement="S[1]")
        return lv
)";
  std::string printed = PrintModule(Parse(text));
  EXPECT_NE(printed.find("    I.module_global_infos({\"mesh\": [R.device_mesh([2], I.Range(0, 2)), "
                         "R.dist.device_mesh([1], I.Range(4, 5))]})\n"),
            std::string::npos)
      << printed;
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
}

}  // namespace
}  // namespace pipesplit::script
