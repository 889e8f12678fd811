// The Relax interpreter: runs functions of an IRModule on runtime Values.
//
// It executes bindings in order (dataflow blocks included), if/else, tuples and tuple items,
// shape and prim values, match_cast (checking, and binding new symbolic vars), calls of module
// functions and nested functions, Relax ops through the reference kernels, and packed calls
// (call_packed, call_pure_packed, call_dps_packed, call_builtin_with_ctx) through a registry
// of builtins. Symbolic vars are bound from the run-time shapes of the parameters; a shape
// that contradicts an earlier binding is an error naming the parameter and the dim.
//
// TIR kernels run from a compiled kernel library (runtime/kernel_library.h) given with
// set_kernel_library: R.call_tir (and call_tir_with_grad) allocates the outputs its out_sinfo
// declares (zeroed), calls the kernel named like the PrimFunc with the inputs, then the
// outputs, then the tir_vars as int64 scalars, and returns the output (a tuple for several).
// R.call_tir_inplace passes, for an output whose inplace index i is >= 0, input i itself: the
// kernel writes into a private copy of input i (runtime tensors are immutable and may be
// shared between workers), which becomes that output; the kernel receives the inputs, then
// only the fresh outputs (index -1), then the tir_vars. Without a kernel library a call_tir
// is reported as not executable.
//
// Errors raised while evaluating a binding become ExecutionErrors naming the function, the
// binding and its source location.
#ifndef PIPESPLIT_RUNTIME_EXEC_INTERPRETER_H_
#define PIPESPLIT_RUNTIME_EXEC_INTERPRETER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/builtins.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

class Interpreter;

// The module's metadata constants by index: metadata["relax.expr.Constant"][i] is the tensor at
// key i. TVMScript dumps print these constants without their data, so the caller supplies them
// (pipesplit run --metadata FILE.safetensors).
using MetadataConstants = std::unordered_map<int64_t, Tensor>;

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
  // Drops the value of a var of this frame that is not used any more.
  void Erase(const ir::VarNode* var) { vars_.erase(var); }
  // Drops every value (the activation has ended; breaks frame -> closure -> frame cycles).
  void Clear() {
    vars_.clear();
    syms_.clear();
  }
  const int64_t* FindSym(const ir::TirVarNode* var) const;
  void BindSym(const ir::TirVarNode* var, int64_t value) { syms_[var] = value; }

 private:
  std::shared_ptr<const Frame> parent_;
  std::unordered_map<const ir::VarNode*, Value> vars_;
  std::unordered_map<const ir::TirVarNode*, int64_t> syms_;
};

class Interpreter {
 public:
  // `kernels` (optional) runs the module's PrimFuncs; see set_kernel_library.
  Interpreter(const ir::IRModule& mod, const BuiltinRegistry& builtins,
              std::shared_ptr<const KernelLibrary> kernels = nullptr);

  // The compiled kernels of the module (KernelLibrary::Load of the library the code generator
  // built from it); null: R.call_tir cannot run. One library may serve many interpreters.
  void set_kernel_library(std::shared_ptr<const KernelLibrary> kernels) {
    kernels_ = std::move(kernels);
  }
  const std::shared_ptr<const KernelLibrary>& kernel_library() const { return kernels_; }

  // The module's metadata constants; null or a missing index: evaluating that constant is a
  // RuntimeError naming the index. One table may serve many interpreters.
  void set_metadata(std::shared_ptr<const MetadataConstants> metadata) {
    metadata_ = std::move(metadata);
  }

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
  // Fresh zeroed tensors for a destination-passing output declared by `out_sinfo` (a tensor,
  // or a tuple of tensors: one builder per field). RuntimeError naming `what` when a dtype or
  // a dim is unknown.
  std::vector<TensorBuilder> AllocateOutputs(const ir::StructInfo& out_sinfo, const Frame& frame,
                                             const std::string& what) const;

 private:
  Value CallFunction(const ir::FunctionNode& func, const std::string& name, std::vector<Value> args,
                     const std::shared_ptr<const Frame>& captured);
  Value Eval(const ir::Expr& expr, std::shared_ptr<Frame>& frame);
  Value EvalSeq(const ir::SeqExprNode& seq, std::shared_ptr<Frame>& frame);
  // How a SeqExpr runs, computed once per SeqExpr (interpreter.cc): per binding (in order, over
  // all blocks) the vars bound in `seq` whose last use it is, and the bindings of a
  // last-two-dims permute_dims whose every use is as the second operand of an R.matmul: such a
  // var holds its operand untransposed and the matmul reads it transposed (the weight of
  // nn.Linear, matmul(x, permute_dims(w)), is never copied).
  struct SeqPlan {
    std::vector<std::vector<const ir::VarNode*>> drops;
    std::vector<bool> deferred_transpose;
  };
  const SeqPlan& Plan(const ir::SeqExprNode& seq);
  Value EvalCall(const ir::CallNode& call, std::shared_ptr<Frame>& frame);
  Value CallPacked(const std::string& symbol, std::vector<Value> args,
                   const ir::StructInfo* out_sinfo, const Frame& frame);
  // R.call_tir, call_tir_with_grad and call_tir_inplace (interpreter_tir.cc).
  Value CallTIR(const ir::CallNode& call, std::shared_ptr<Frame>& frame);

  const ir::IRModule& mod_;
  const BuiltinRegistry& builtins_;
  std::shared_ptr<const KernelLibrary> kernels_;
  std::shared_ptr<const MetadataConstants> metadata_;
  std::string current_function_;
  std::string current_binding_;
  int depth_ = 0;
  std::unordered_map<const ir::SeqExprNode*, SeqPlan> plans_;
  // Every var some plan defers the transpose of (vars are unique nodes).
  std::unordered_set<const ir::VarNode*> transposed_vars_;
};

// Runs a Relax op (relax.add, ...) on evaluated arguments through the reference kernels.
// Shape arguments arrive as shape values. Attributes come from the call (defaults from the
// op table). Throws RuntimeError for ops without a kernel.
Value RunOp(const ir::CallNode& call, const std::vector<Value>& args);

// An R.ccl op (relax.ccl.*) as TVM's legalize-ops lowers it: the runtime.disco builtin it calls
// and that call's arguments (ir/protocol.h; scatter_from_worker0's tensor reshaped so its dim 0
// counts the workers), and for allgather the workers the op declares (0 otherwise), which the
// result's dim 0 must reflect. RuntimeError for a ccl op without a lowering.
struct CclCall {
  std::string symbol;
  std::vector<Value> args;
  int64_t gather_workers = 0;
};
CclCall LowerCclOp(const ir::CallNode& call, std::vector<Value> args);

// The memory ops of memory-planned modules (memory_ops.cc): R.memory.alloc_storage,
// alloc_tensor, kill_storage, kill_tensor and R.builtin.alloc_tensor.
bool IsMemoryOp(const std::string& name);
Value RunMemoryOp(const ir::CallNode& call, const std::vector<Value>& args);

// Whether `call` is relax.permute_dims swapping only the last two dims of its operand (no axes
// on a 2-D operand, or axes [0, .., n-3, n-1, n-2]), which R.matmul can read in place.
bool IsLastTwoDimsTranspose(const ir::CallNode& call);
// relax.matmul with its second operand read with the last two dims swapped.
Value RunMatmulTransposedB(const ir::CallNode& call, const std::vector<Value>& args);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_INTERPRETER_H_
