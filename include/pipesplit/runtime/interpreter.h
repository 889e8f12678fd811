// The Relax interpreter: runs functions of an IRModule on runtime Values.
//
// It executes bindings in order (dataflow blocks included), if/else, tuples and tuple items,
// shape and prim values, match_cast (checking, and binding new symbolic vars), calls of module
// functions and nested functions, Relax ops through the reference kernels, and packed calls
// (call_packed, call_pure_packed, call_dps_packed, call_builtin_with_ctx) through a registry
// of builtins. Symbolic vars are bound from the run-time shapes of the parameters; a shape
// that contradicts an earlier binding is an error naming the parameter and the dim.
// R.call_tir cannot run (pipesplit executes no TIR) and is reported as such.
//
// Errors raised while evaluating a binding become ExecutionErrors naming the function, the
// binding and its source location.
#ifndef PIPESPLIT_RUNTIME_INTERPRETER_H_
#define PIPESPLIT_RUNTIME_INTERPRETER_H_

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/value.h"

namespace pipesplit::runtime {

class Interpreter;

// A runtime error located at a binding of a function.
class ExecutionError : public RuntimeError {
 public:
  ExecutionError(std::string function, std::string binding, Span span, std::string message);
  const std::string& function() const { return function_; }
  const std::string& binding() const { return binding_; }
  Span span() const { return span_; }
  const std::string& message() const { return message_; }

 private:
  std::string function_;
  std::string binding_;
  Span span_;
  std::string message_;
};

// Variables and symbolic variables of one function activation.
class Frame {
 public:
  explicit Frame(std::shared_ptr<const Frame> parent = nullptr) : parent_(std::move(parent)) {}
  const Value* Find(const ir::VarNode* var) const;
  void Bind(const ir::VarNode* var, Value value) { vars_[var] = std::move(value); }
  const int64_t* FindSym(const ir::TirVarNode* var) const;
  void BindSym(const ir::TirVarNode* var, int64_t value) { syms_[var] = value; }

 private:
  std::shared_ptr<const Frame> parent_;
  std::unordered_map<const ir::VarNode*, Value> vars_;
  std::unordered_map<const ir::TirVarNode*, int64_t> syms_;
};

// What a builtin (packed function) receives.
struct BuiltinCall {
  Interpreter& interpreter;
  std::vector<Value>& args;
  // For destination-passing calls (call_dps_packed): the declared output, with symbolic dims
  // resolved as far as the frame knows them (-1 for dims it cannot resolve).
  const ir::StructInfo* out_sinfo = nullptr;
  const Frame* frame = nullptr;
};
using BuiltinFn = std::function<Value(BuiltinCall&)>;

class BuiltinRegistry {
 public:
  void Register(std::string name, BuiltinFn fn) { fns_[std::move(name)] = std::move(fn); }
  const BuiltinFn* Find(std::string_view name) const;

 private:
  std::unordered_map<std::string, BuiltinFn> fns_;
};

// Registers the builtins every run has: vm.builtin.tuple_getitem and
// mlc.pipeline_parallel_stage_boundary (the identity). The worker-group builtins (send,
// recv, dispatch) are registered by the session.
void RegisterCoreBuiltins(BuiltinRegistry* registry);

class Interpreter {
 public:
  Interpreter(const ir::IRModule& mod, const BuiltinRegistry& builtins);

  // Calls a module function by name.
  Value Invoke(std::string_view function, std::vector<Value> args);
  // Calls a callable value (module function, nested function or packed function).
  Value Invoke(const Value& callable, std::vector<Value> args);

  const ir::IRModule& module() const { return mod_; }
  // The function currently executing (for messages), or "".
  const std::string& current_function() const { return current_function_; }
  const std::string& current_binding() const { return current_binding_; }

  // Evaluates a symbolic expression in `frame` (RuntimeError for unbound vars).
  int64_t EvalInt(const ir::PrimExpr& e, const Frame& frame) const;
  double EvalFloat(const ir::PrimExpr& e, const Frame& frame) const;
  // Checks `value` against `sinfo`, binding symbolic vars first seen; `what` names the value
  // in messages ("parameter 'x'").
  void Match(const Value& value, const ir::StructInfo& sinfo, Frame& frame,
             const std::string& what) const;
  // The shape of a tensor struct info with dims evaluated (-1 where unknown/unbound).
  Shape ResolveShape(const ir::TensorSInfoNode& tensor, const Frame& frame) const;

 private:
  Value CallFunction(const ir::FunctionNode& func, const std::string& name, std::vector<Value> args,
                     const std::shared_ptr<const Frame>& captured);
  Value Eval(const ir::Expr& expr, std::shared_ptr<Frame>& frame);
  Value EvalSeq(const ir::SeqExprNode& seq, std::shared_ptr<Frame>& frame);
  Value EvalCall(const ir::CallNode& call, std::shared_ptr<Frame>& frame);
  Value CallPacked(const std::string& symbol, std::vector<Value> args,
                   const ir::StructInfo* out_sinfo, const Frame& frame);

  const ir::IRModule& mod_;
  const BuiltinRegistry& builtins_;
  std::string current_function_;
  std::string current_binding_;
  int depth_ = 0;
};

// Runs a Relax op (relax.add, ...) on evaluated arguments through the reference kernels.
// Shape arguments arrive as shape values. Attributes come from the call (defaults from the
// op table). Throws RuntimeError for ops without a kernel.
Value RunOp(const ir::CallNode& call, const std::vector<Value>& args);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_INTERPRETER_H_
