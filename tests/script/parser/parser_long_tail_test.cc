// The long tail of TVMScript seen in TVM's 2026 test modules: tensor literals in R.const,
// attributes of Relax values (`x.ty`, `A.dtype.bits`, `A.shape[i]`), result types of
// all_class_non_max_suppression and reverse_sequence, and TIR written with `*A.shape`,
// `for iters in T.grid(...)`, `B[i] += v`, T.assume / T.min_value / T.atan2 and list attributes.
// Each reads, prints as TVM reads it back, and prints the same bytes again.
#include <gtest/gtest.h>

#include <string>

#include "pipesplit/ir/expr.h"
#include "pipesplit/script/printer.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::Parse;
using testing::ParseError;

// Prints `text`, checks that the print re-parses to the same bytes, and returns it.
std::string RoundTrip(const std::string& text) {
  const std::string printed = PrintModule(Parse(text));
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
  return printed;
}

std::string RelaxModule(const std::string& params, const std::string& body) {
  return "@I.ir_module\nclass Module:\n    @R.function\n    def main(" + params + "):\n" + body;
}

TEST(ParserLongTail, RConstOfNestedListsIsATensorLiteral) {
  const std::string printed =
      RoundTrip(RelaxModule("x: R.Tensor((3,), \"float32\")",
                            "        a = R.multiply(x, R.const([2.0, 0.1, 3], \"float32\"))\n"
                            "        b = R.const([[0, 1, 2], [3, 4, 5]], \"int64\")\n"
                            "        c = R.const([True, False])\n"
                            "        d = R.const([1, 2])\n"
                            "        e = R.const([1.5, 2])\n"
                            "        f = R.const([], \"float16\")\n"
                            "        return (a, b, c, d, e, f)\n"));
  // Values are stored at the dtype's precision, as in TVM's array; numpy's dtypes by default.
  EXPECT_NE(printed.find("R.const([2.0, 0.10000000149011612, 3.0], \"float32\")"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("b: R.Tensor((2, 3), dtype=\"int64\") = "
                         "R.const([[0, 1, 2], [3, 4, 5]], \"int64\")"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("R.const([True, False], \"bool\")"), std::string::npos) << printed;
  EXPECT_NE(printed.find("R.const([1, 2], \"int32\")"), std::string::npos) << printed;
  EXPECT_NE(printed.find("R.const([1.5, 2.0], \"float32\")"), std::string::npos) << printed;
  EXPECT_NE(printed.find("f: R.Tensor((0,), dtype=\"float16\") = R.const([], \"float16\")"),
            std::string::npos)
      << printed;
  // The literal's shape and elements are in the IR.
  ir::IRModule mod = Parse(printed);
  const auto* seq = ir::As<ir::SeqExprNode>(mod.LookupFunction("main")->body());
  const auto* b = ir::As<ir::ConstantNode>(seq->blocks()[0]->bindings()[1]->value());
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->is_tensor());
  EXPECT_EQ(b->shape(), (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(b->elements().size(), 6u);
  EXPECT_EQ(std::get<int64_t>(b->elements()[5]), 5);
}

TEST(ParserLongTail, RConstErrorsAreLocated) {
  EXPECT_EQ(ParseError(RelaxModule("",
                                   "        b = R.const([[0, 1], [3]], \"int64\")\n"
                                   "        return b\n")),
            "test.py:5:30: error: R.const of a ragged nested list: expected 2 elements at "
            "depth 1");
  EXPECT_EQ(ParseError(RelaxModule("",
                                   "        b = R.const([300], \"int8\")\n"
                                   "        return b\n")),
            "test.py:5:22: error: 300 is out of range for int8");
  EXPECT_EQ(ParseError(RelaxModule("",
                                   "        b = R.const([\"a\"], \"int8\")\n"
                                   "        return b\n")),
            "test.py:5:22: error: an element of R.const must be a number or a bool, not a "
            "string");
  EXPECT_EQ(ParseError(RelaxModule("", "        b = R.const(\"a\")\n        return b\n")),
            "test.py:5:21: error: R.const takes a number, a bool or a nested list of them, "
            "not a string");
}

TEST(ParserLongTail, TheTypeOfAValueAsAnAttribute) {
  // `x.struct_info` (classic) and `x.ty` (current) stand for x's type.
  for (const char* attr : {"struct_info", "ty"}) {
    const std::string printed = RoundTrip(
        RelaxModule("x: R.Tensor((4,), \"float32\")",
                    std::string("        y = R.call_dps_packed(\"f\", (x,), out_sinfo=x.") + attr +
                        ")\n" + "        return y\n"));
    EXPECT_NE(printed.find("y = R.call_dps_packed(\"f\", (x,), out_sinfo=R.Tensor((4,), "
                           "dtype=\"float32\"))"),
              std::string::npos)
        << printed;
  }
}

TEST(ParserLongTail, TensorPropertiesAreInspectOps) {
  const struct {
    const char* written;
    const char* printed;
  } kCases[] = {
      {"A.dtype.bits", "R.inspect.tensor_dtype_bits(A)"},
      {"A.dtype.lanes", "R.inspect.tensor_dtype_lanes(A)"},
      {"A.dtype.type_code", "R.inspect.tensor_dtype_code(A)"},
      {"A.ndim", "R.inspect.tensor_ndim(A)"},
      {"A.byte_offset", "R.inspect.tensor_byte_offset(A)"},
      {"A.elem_offset", "R.inspect.tensor_elem_offset(A)"},
      {"A.shape[1]", "R.inspect.tensor_shape_i(A, R.prim_value(1))"},
      {"A.strides[axis]", "R.inspect.tensor_stride_i(A, axis)"},
  };
  for (const auto& c : kCases) {
    const std::string printed = RoundTrip(RelaxModule(
        "A: R.Tensor, axis: R.Prim(\"int64\")", std::string("        return ") + c.written + "\n"));
    EXPECT_NE(printed.find(std::string(" = ") + c.printed + "\n"), std::string::npos)
        << c.written << "\n"
        << printed;
  }
}

TEST(ParserLongTail, ResultTypesOfNmsAndReverseSequence) {
  const std::string printed = RoundTrip(RelaxModule(
      "boxes: R.Tensor((1, 5, 4), \"float32\"), scores: R.Tensor((1, 2, 5), \"float32\"), "
      "m: R.Tensor((1,), \"int64\"), iou: R.Tensor((1,), \"float32\"), "
      "s: R.Tensor((1,), \"float32\"), x: R.Tensor((4, 3), \"float32\"), "
      "lens: R.Tensor((3,), \"int32\")",
      "        a = R.vision.all_class_non_max_suppression(boxes, scores, m, iou, s, \"onnx\")\n"
      "        b = R.vision.all_class_non_max_suppression(boxes, scores, m, iou, s, "
      "\"tensorflow\")\n"
      "        c = R.reverse_sequence(x, lens, seq_axis=0, batch_axis=1)\n"
      "        return (a, b, c)\n"));
  EXPECT_NE(printed.find("a: R.Tuple(R.Tensor((10, 3), dtype=\"int64\"), R.Tensor((1,), "
                         "dtype=\"int64\"))"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("b: R.Tuple(R.Tensor((1, 10, 2), dtype=\"int64\"), R.Tensor((1, 10), "
                         "dtype=\"float32\"), R.Tensor((1,), dtype=\"int64\"))"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("c: R.Tensor((4, 3), dtype=\"float32\") = R.reverse_sequence(x, lens, "
                         "seq_axis=0, batch_axis=1)"),
            std::string::npos)
      << printed;
}

std::string TirModule(const std::string& params, const std::string& body) {
  return "@I.ir_module\nclass Module:\n    @T.prim_func\n    def f(" + params + "):\n" + body;
}

TEST(ParserLongTail, TirLoopsOverAShapeOrATupleOfVars) {
  const std::string printed = RoundTrip(
      TirModule("A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\")",
                "        C = T.alloc_buffer(A.shape, \"float32\")\n"
                "        for i, j in T.grid(*A.shape):\n"
                "            with T.block(\"copy\"):\n"
                "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                "                C[vi, vj] = A[vi, vj]\n"
                "        for iters in T.grid(*B.shape):\n"
                "            with T.block(\"add\"):\n"
                "                vi, vj = T.axis.remap(\"SS\", iters)\n"
                "                B[vi, vj] = C[vi, vj] + T.Cast(\"float32\", A.shape[1])\n"));
  EXPECT_NE(printed.find("C = T.alloc_buffer((4, 8))"), std::string::npos) << printed;
  EXPECT_NE(printed.find("for i, j in T.grid(4, 8):"), std::string::npos) << printed;
  // TVM names the loops of `iters` iters_0, iters_1.
  EXPECT_NE(printed.find("for iters_0, iters_1 in T.grid(4, 8):"), std::string::npos) << printed;
  EXPECT_NE(printed.find("vi, vj = T.axis.remap(\"SS\", [iters_0, iters_1])"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("B[vi, vj] = C[vi, vj] + T.Cast(\"float32\", 8)"), std::string::npos)
      << printed;
  EXPECT_EQ(ParseError(TirModule("A: T.Buffer((4,), \"float32\")",
                                 "        for i in T.grid(*A):\n            A[i] = 0\n")),
            "test.py:5:25: error: only a buffer's shape or a tuple of loop vars can be unpacked");
  EXPECT_EQ(ParseError(TirModule("A: T.Buffer((4,), \"float32\")",
                                 "        for i in range(4):\n            A[i] = A.shape[1]\n")),
            "test.py:6:28: error: expected an index below 1");
}

TEST(ParserLongTail, TirAugmentedAssignmentIsAStore) {
  const std::string printed =
      RoundTrip(TirModule("A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4,), \"float32\")",
                          "        for i, k in T.grid(4, 8):\n"
                          "            with T.block(\"sum\"):\n"
                          "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                          "                with T.init():\n"
                          "                    B[vi] = T.float32(0)\n"
                          "                B[vi] += A[vi, vk]\n"));
  EXPECT_NE(printed.find("B[vi] = B[vi] + A[vi, vk]"), std::string::npos) << printed;
  EXPECT_EQ(ParseError(TirModule("A: T.Buffer((4,), \"int32\")",
                                 "        for i in range(4):\n            A[i] <<= 1\n")),
            "test.py:6:13: error: unsupported operator '<<=' in TIR");
}

TEST(ParserLongTail, TirIntrinsicsAndListAttributes) {
  const std::string printed = RoundTrip(TirModule(
      "A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")",
      "        T.func_attr({\"layout_free_buffers\": [1]})\n"
      "        for i in range(4):\n"
      "            T.assume(i < 4)\n"
      "            B[i] = T.max(T.atan2(A[i], T.float32(1)), T.min_value(\"float32\"))\n"));
  EXPECT_NE(printed.find("T.func_attr({\"layout_free_buffers\": [1]})"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("T.assume(i < 4)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("T.atan2(A[i], T.float32(1))"), std::string::npos) << printed;
  EXPECT_NE(printed.find("T.float32(-3.4028234663852886e+38)"), std::string::npos) << printed;
}

}  // namespace
}  // namespace pipesplit::script
