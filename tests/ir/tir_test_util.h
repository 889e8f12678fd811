// Hand-built TIR functions for tests that only need a PrimFunc member.
#ifndef PIPESPLIT_TESTS_IR_TIR_TEST_UTIL_H_
#define PIPESPLIT_TESTS_IR_TIR_TEST_UTIL_H_

#include <memory>
#include <string>
#include <utility>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"

namespace pipesplit::testing {

// @T.prim_func def name(): T.evaluate(value)
inline ir::PrimFunc EvaluatePrimFunc(std::string name, bool is_private = false, int value = 0,
                                     Span span = {}) {
  ir::PrimFuncNode::Fields f;
  f.name = std::move(name);
  f.is_private = is_private;
  f.body = ir::Make<ir::EvaluateNode>(ir::IntImm(value, DataType::Int(32)));
  return ir::Make<ir::PrimFuncNode>(std::move(f), span);
}

}  // namespace pipesplit::testing

#endif  // PIPESPLIT_TESTS_IR_TIR_TEST_UTIL_H_
