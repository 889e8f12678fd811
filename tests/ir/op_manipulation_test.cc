// Inference rules of the shape manipulation ops.
#include <gtest/gtest.h>

#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

TEST(OpManipulationTest, Reshape) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("reshape", {T("x", {2, 3, 4}), Shape({6, 4})})),
            "R.Tensor((6, 4), dtype=\"float32\")");
  // Symbolic products are compared as polynomials: n * 32 * 128 == n * 4096.
  EXPECT_EQ(Infer(C("reshape", {T("x", {1, n, 32, 128}, "float16"), Shape({1, n, 4096})})),
            "R.Tensor((1, n, 4096), dtype=\"float16\")");
  // -1 is inferred and 0 copies the input dim, as TVM's constructor does.
  EXPECT_EQ(Infer(C("reshape", {T("x", {2, 3, 4}), Shape({-1, 4})})),
            "R.Tensor((6, 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("reshape", {T("x", {2, n, 4}), Shape({0, -1})})),
            "R.Tensor((2, n * 4), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("reshape", {TN("x", 3), Shape({6, 4})})),
            "R.Tensor((6, 4), dtype=\"float32\")");
  Var s = V("s", ir::Make<ShapeSInfoNode>(2));
  // A shape var of unknown values holds the new shape (TVM's R.Tensor(s, dtype)).
  EXPECT_EQ(Infer(C("reshape", {T("x", {2, 3}), s})), "R.Tensor(s, dtype=\"float32\")");
}

TEST(OpManipulationTest, ReshapeErrors) {
  EXPECT_EQ(InferError(C("reshape", {T("x", {2, 3}), Shape({4, 2})})),
            "op_test.py:1:6: R.reshape: cannot reshape a tensor of shape (2, 3) (6 elements) into "
            "shape (4, 2) (8 elements)");
  EXPECT_EQ(InferError(C("reshape", {T("x", {2, 3}), Shape({-1, -1})})),
            "op_test.py:1:6: R.reshape: the new shape has more than one -1");
  EXPECT_EQ(InferError(C("reshape", {T("x", {2, 3}), Shape({-2, 3})})),
            "op_test.py:1:6: R.reshape: the new shape has a negative dim -2");
  EXPECT_EQ(InferError(C("reshape", {TN("x", 2), Shape({0, 3})})),
            "op_test.py:1:6: R.reshape: a 0 in the new shape needs the input dim at that position");
  EXPECT_EQ(InferError(C("reshape", {T("x", {2, 3}), T("s", {2})})),
            "op_test.py:1:6: R.reshape: shape must be a shape, got R.Tensor");
}

TEST(OpManipulationTest, PermuteDims) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("permute_dims", {T("x", {2, n, 4})})),
            "R.Tensor((4, n, 2), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("permute_dims", {T("x", {2, n, 4})}, {{"axes", Ints({0, 2, 1})}})),
            "R.Tensor((2, 4, n), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("permute_dims", {T("x", {2, 3})}, {{"axes", Ints({-2, -1})}})),
            "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("permute_dims", {TN("x", 3)})), "R.Tensor(dtype=\"float32\", ndim=3)");
  EXPECT_EQ(Infer(C("permute_dims", {TN("x", -1)})), "R.Tensor(dtype=\"float32\")");
  EXPECT_EQ(InferError(C("permute_dims", {T("x", {2, 3})}, {{"axes", Ints({0})}})),
            "op_test.py:1:6: R.permute_dims: axes has 1 entries but the tensor has 2 dimensions");
  EXPECT_EQ(InferError(C("permute_dims", {T("x", {2, 3})}, {{"axes", Ints({0, 0})}})),
            "op_test.py:1:6: R.permute_dims: axis 0 is given more than once");
  EXPECT_EQ(InferError(C("permute_dims", {T("x", {2, 3})}, {{"axes", Ints({0, 2})}})),
            "op_test.py:1:6: R.permute_dims: axis 2 is out of range for a tensor of 2 dimensions");
}

TEST(OpManipulationTest, ExpandDimsAndSqueeze) {
  EXPECT_EQ(Infer(C("expand_dims", {T("x", {2, 3})}, {{"axis", Ints({0, -1})}})),
            "R.Tensor((1, 2, 3, 1), dtype=\"float32\")");
  // A single integer axis stands for a list of one.
  EXPECT_EQ(Infer(C("expand_dims", {T("x", {2, 3})}, {{"axis", 1}})),
            "R.Tensor((2, 1, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("expand_dims", {TN("x", 2)}, {{"axis", Ints({1})}})),
            "R.Tensor(dtype=\"float32\", ndim=3)");
  EXPECT_EQ(InferError(C("expand_dims", {T("x", {2})}, {{"axis", Ints({3})}})),
            "op_test.py:1:6: R.expand_dims: axis 3 is out of range for a tensor of 2 dimensions");
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("squeeze", {T("x", {1, 3, 1})})), "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("squeeze", {T("x", {1, 3, 1})}, {{"axis", Ints({0})}})),
            "R.Tensor((3, 1), dtype=\"float32\")");
  // A dim known not to be 1 is kept; a symbolic one is removed.
  EXPECT_EQ(Infer(C("squeeze", {T("x", {n, 3})}, {{"axis", Ints({0, 1})}})),
            "R.Tensor((3,), dtype=\"float32\")");
  // Without axes, a symbolic dim makes the rank unknown.
  EXPECT_EQ(Infer(C("squeeze", {T("x", {n, 1})})), "R.Tensor(dtype=\"float32\")");
  EXPECT_EQ(Infer(C("squeeze", {TN("x", 3)}, {{"axis", 1}})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
}

TEST(OpManipulationTest, FlattenAndBroadcastTo) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("flatten", {T("x", {2, n, 4})})), "R.Tensor((2 * n * 4,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("flatten", {T("x", {})})), "R.Tensor((1,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("flatten", {TN("x", -1)})), "R.Tensor(dtype=\"float32\", ndim=1)");
  EXPECT_EQ(Infer(C("broadcast_to", {T("x", {1, 3}), Shape({n, 2, 3})})),
            "R.Tensor((n, 2, 3), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("broadcast_to", {T("x", {2, 3}), Shape({2, 4})})),
            "op_test.py:1:6: R.broadcast_to: cannot broadcast dimension 1 (3) to 4");
  EXPECT_EQ(InferError(C("broadcast_to", {T("x", {2, 3}), Shape({3})})),
            "op_test.py:1:6: R.broadcast_to: cannot broadcast a tensor of 2 dimensions to a shape "
            "of 1");
}

TEST(OpManipulationTest, Concat) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  EXPECT_EQ(Infer(C("concat", {Tup({T("a", {2, 3}), T("b", {4, 3})})})),
            "R.Tensor((6, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("concat", {Tup({T("a", {2, n}), T("b", {2, m})})}, {{"axis", -1}})),
            "R.Tensor((2, n + m), dtype=\"float32\")");
  // axis=None concatenates 1-d tensors (as TVM, which rejects others).
  EXPECT_EQ(Infer(C("concat", {Tup({T("a", {2}), T("b", {3})})}, {{"axis", AttrValue()}})),
            "R.Tensor((5,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("concat", {Tup({T("a", {2, 3})})}, {{"axis", AttrValue()}})),
            "op_test.py:1:6: R.concat: tensors of 1 and 2 dimensions cannot be concatenated");
  EXPECT_EQ(Infer(C("concat", {Tup({T("a", {n}), T("b", {n})})})),
            "R.Tensor((n * 2,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("concat", {Tup({T("a", {n, 2}), T("b", {m, 3})})}, {{"axis", 1}})),
            "R.Tensor(dtype=\"float32\", ndim=2)");
  EXPECT_EQ(InferError(C("concat", {Tup({T("a", {2, 3}), T("b", {2, 4})})})),
            "op_test.py:1:6: R.concat: dimension 1 differs between the inputs (3 and 4)");
  EXPECT_EQ(InferError(C("concat", {Tup({T("a", {2, 3}), T("b", {2})})})),
            "op_test.py:1:6: R.concat: tensors of 2 and 1 dimensions cannot be concatenated");
  EXPECT_EQ(InferError(C("concat", {Tup({T("a", {2}), T("b", {2}, "int32")})})),
            "op_test.py:1:6: R.concat: dtypes float32 and int32 do not match");
  EXPECT_EQ(InferError(C("concat", {Tup({})})),
            "op_test.py:1:6: R.concat: expects at least one tensor");
  EXPECT_EQ(InferError(C("concat", {T("a", {2})})),
            "op_test.py:1:6: R.concat: tensors must be a tuple of tensors, got R.Tensor");
}

TEST(OpManipulationTest, Split) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("split", {T("x", {10, 4})}, {{"indices_or_sections", 3}})),
            "R.Tuple(R.Tensor((4, 4), dtype=\"float32\"), R.Tensor((4, 4), dtype=\"float32\"), "
            "R.Tensor((2, 4), dtype=\"float32\"))");
  EXPECT_EQ(
      Infer(C("split", {T("x", {2, 10})}, {{"indices_or_sections", Ints({2, 7})}, {"axis", 1}})),
      "R.Tuple(R.Tensor((2, 2), dtype=\"float32\"), R.Tensor((2, 5), dtype=\"float32\"), "
      "R.Tensor((2, 3), dtype=\"float32\"))");
  // Indices past the end give empty sections.
  EXPECT_EQ(Infer(C("split", {T("x", {4})}, {{"indices_or_sections", Ints({6})}})),
            "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((0,), dtype=\"float32\"))");
  EXPECT_EQ(Infer(C("split", {T("x", {n})}, {{"indices_or_sections", 2}})),
            "R.Tuple(R.Tensor(((n + 1) // 2,), dtype=\"float32\"), "
            "R.Tensor((n - (n + 1) // 2,), dtype=\"float32\"))");
  EXPECT_EQ(Infer(C("split", {TN("x", 2)}, {{"indices_or_sections", 2}})),
            "R.Tuple(R.Tensor(dtype=\"float32\", ndim=2), R.Tensor(dtype=\"float32\", ndim=2))");
  EXPECT_EQ(Infer(C("split", {T("x", {4})}, {{"indices_or_sections", 1}})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("split", {T("x", {4})}, {{"indices_or_sections", 0}})),
            "op_test.py:1:6: R.split: the number of sections must be positive");
  EXPECT_EQ(InferError(C("split", {T("x", {4})})),
            "op_test.py:1:6: R.split: missing attribute indices_or_sections");
}

TEST(OpManipulationTest, Stack) {
  EXPECT_EQ(Infer(C("stack", {Tup({T("a", {2, 3}), T("b", {2, 3})})}, {{"axis", 1}})),
            "R.Tensor((2, 2, 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("stack", {Tup({T("a", {3}), T("b", {3}), T("c", {3})})})),
            "R.Tensor((3, 3), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("stack", {Tup({T("a", {2, 3}), T("b", {2, 4})})})),
            "op_test.py:1:6: R.stack: dimension 1 differs between the inputs (3 and 4)");
}

TEST(OpManipulationTest, CollapseSum) {
  EXPECT_EQ(Infer(C("collapse_sum_to", {T("x", {3, 2, 4}), Shape({2, 1})})),
            "R.Tensor((2, 1), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("collapse_sum_like", {T("x", {3, 2, 4}), T("y", {4}, "int32")})),
            "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("collapse_sum_to", {T("x", {3, 4}), Shape({3})})),
            "op_test.py:1:6: R.collapse_sum_to: dimension 1 (4) cannot be summed into dimension 0 "
            "(3) of the target");
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(InferError(C("collapse_sum_to", {T("x", {n}), Shape({3})})),
            "op_test.py:1:6: R.collapse_sum_to: cannot match dimension 0 (n) with dimension 0 (3) "
            "of the target; use R.match_cast first");
}

TEST(OpManipulationTest, RepeatTileFlip) {
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(Infer(C("repeat", {T("x", {2, n})}, {{"repeats", 3}, {"axis", 1}})),
            "R.Tensor((2, n * 3), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("repeat", {T("x", {2, 3})}, {{"repeats", 2}})),
            "R.Tensor((12,), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("tile", {T("x", {2, 3})}, {{"repeats", Ints({2, 1, 2})}})),
            "R.Tensor((2, 2, 6), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("tile", {T("x", {2, 3})}, {{"repeats", 2}})),
            "R.Tensor((2, 6), dtype=\"float32\")");
  EXPECT_EQ(Infer(C("flip", {T("x", {2, 3})}, {{"axis", -1}})),
            "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_EQ(InferError(C("flip", {T("x", {2, 3})}, {{"axis", 2}})),
            "op_test.py:1:6: R.flip: axis 2 is out of range for a tensor of 2 dimensions");
  EXPECT_EQ(InferError(C("repeat", {T("x", {2})}, {{"repeats", "a"}})),
            "op_test.py:1:6: R.repeat: attribute repeats must be an integer");
}

TEST(OpManipulationTest, Meshgrid) {
  EXPECT_EQ(Infer(C("meshgrid", {Tup({T("a", {2}), T("b", {3})})})),
            "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((2, 3), dtype=\"float32\"))");
  EXPECT_EQ(InferError(C("meshgrid", {Tup({T("a", {2, 2})})})),
            "op_test.py:1:6: R.meshgrid: expects 1-d tensors, got 2 dimensions at index 0");
}

TEST(OpManipulationTest, LayoutTransformNeedsAnAnnotation) {
  EXPECT_EQ(
      InferError(C("layout_transform", {T("x", {2})}, {{"index_map", "m"}})),
      "op_test.py:1:6: cannot infer the result type of R.layout_transform (no inference rule); "
      "annotate the binding");
}

}  // namespace
}  // namespace pipesplit::ir::optest
