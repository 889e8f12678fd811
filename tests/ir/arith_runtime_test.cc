// One integer semantics: the runtime's evaluation of symbolic expressions agrees with the
// compile-time folder (wrap-around on overflow), and reports as errors what the folder leaves
// unfolded (division by zero, INT64_MIN / -1).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/interpreter.h"

namespace pipesplit {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(ArithRuntimeTest, RuntimeEvaluationAgreesWithTheFolder) {
  ir::IRModule mod;
  runtime::BuiltinRegistry builtins;
  runtime::Interpreter interp(mod, builtins);
  runtime::Frame frame;
  const int64_t values[] = {kMin, kMin + 1, -7, -1, 0, 1, 2, 7, kMax - 1, kMax};
  const ir::BinaryOp ops[] = {
      ir::BinaryOp::kAdd, ir::BinaryOp::kSub,      ir::BinaryOp::kMul,      ir::BinaryOp::kDiv,
      ir::BinaryOp::kMod, ir::BinaryOp::kFloorDiv, ir::BinaryOp::kFloorMod, ir::BinaryOp::kMin,
      ir::BinaryOp::kMax, ir::BinaryOp::kLT,       ir::BinaryOp::kAnd,
  };
  for (ir::BinaryOp op : ops) {
    for (int64_t a : values) {
      for (int64_t b : values) {
        std::optional<int64_t> folded = ir::FoldIntBinary(op, a, b);
        ir::PrimExpr e = ir::MakeBinary(op, ir::IntImm(a), ir::IntImm(b));
        std::string where = std::string(ir::BinaryOpName(op)) + "(" + std::to_string(a) + ", " +
                            std::to_string(b) + ")";
        if (folded) {
          EXPECT_EQ(interp.EvalInt(e, frame), *folded) << where;
          EXPECT_EQ(ir::AsConstInt(ir::Simplify(e)), folded) << where;
        } else {
          EXPECT_THROW(interp.EvalInt(e, frame), runtime::RuntimeError) << where;
          EXPECT_EQ(ir::Simplify(e), e) << where;
        }
      }
    }
  }
}

TEST(ArithRuntimeTest, RuntimeNamesWhatTheFolderCannotFold) {
  ir::IRModule mod;
  runtime::BuiltinRegistry builtins;
  runtime::Interpreter interp(mod, builtins);
  runtime::Frame frame;
  auto error = [&](ir::BinaryOp op, int64_t a, int64_t b) -> std::string {
    try {
      interp.EvalInt(ir::MakeBinary(op, ir::IntImm(a), ir::IntImm(b)), frame);
    } catch (const runtime::RuntimeError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_THAT(error(ir::BinaryOp::kFloorDiv, 1, 0),
              testing::HasSubstr("division by zero in a symbolic expression"));
  EXPECT_THAT(error(ir::BinaryOp::kDiv, kMin, -1),
              testing::HasSubstr("integer overflow in a symbolic expression"));
  EXPECT_EQ(error(ir::BinaryOp::kMod, kMin, -1), "no error");
  EXPECT_EQ(
      interp.EvalInt(ir::MakeBinary(ir::BinaryOp::kAdd, ir::IntImm(kMax), ir::IntImm(1)), frame),
      kMin);
}

}  // namespace
}  // namespace pipesplit
