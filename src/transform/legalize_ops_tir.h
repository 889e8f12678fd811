// Internal to legalize-ops: the building blocks its op rules share.
//
// KernelBuilder assembles one PrimFunc the way TVM's te.create_prim_func lays out a topi
// compute: buffer params for the Relax tensor arguments (named A, B, C, ...) and the result,
// one loop nest with one block per compute stage (spatial `T.axis.remap` vars, reduction
// stages with `T.init`), intermediate stages as root-block allocations, `T.reads`/`T.writes`
// derived from the block bodies, and `tir.noalias`. Relax symbolic vars in the shapes get
// kernel-local copies; a var that no buffer shape defines as a bare dim becomes a trailing
// scalar param, passed by the caller through `tir_vars`.
//
// A Rule turns one high-level call into a kernel plus the Relax arguments of its R.call_tir,
// or returns nullopt when it cannot (the call then stays as it is).
#ifndef PIPESPLIT_SRC_TRANSFORM_LEGALIZE_OPS_TIR_H_
#define PIPESPLIT_SRC_TRANSFORM_LEGALIZE_OPS_TIR_H_

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/struct_info.h"
#include "pipesplit/ir/tir.h"

namespace pipesplit::transform::legalize {

using ir::PrimExpr;

// The shape and dtype of a Relax tensor expression, when both are known.
struct TensorType {
  std::vector<PrimExpr> shape;
  DataType dtype;
};
std::optional<TensorType> KnownTensor(const ir::Expr& e);
// The result tensor of a call, when its shape and dtype are known.
std::optional<TensorType> Result(const ir::CallNode& call);
// The kernel name of a call's op: the op name without its "relax." and "nn." prefixes.
std::string KernelName(const ir::CallNode& call);

// A scalar Relax constant (R.const(v, dtype)) as a TIR immediate, or null.
PrimExpr ScalarConstant(const ir::Expr& e);
// An integer R.prim_value / integer constant, or nullopt.
std::optional<int64_t> ConstInt(const ir::Expr& e);

// What a rule produces: the kernel and the arguments of the R.call_tir that calls it.
struct LoweredCall {
  ir::PrimFunc func;               // its name is the kernel name hint ("add", "matmul", ...)
  std::vector<ir::Expr> args;      // Relax tensor arguments, in buffer-param order
  std::vector<PrimExpr> tir_vars;  // Relax-side values of the trailing scalar params
};

using Rule = std::function<std::optional<LoweredCall>(const ir::CallNode& call)>;

// Index expressions of a block, one per iter var (the block's own vars).
using Indices = std::vector<PrimExpr>;
using ValueFn = std::function<PrimExpr(const Indices& vars)>;

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name_hint) : name_hint_(std::move(name_hint)) {}

  // A buffer param for the Relax tensor `arg` (its shape must be known), named A, B, C, ...
  // (A1, B1, ... after Z)
  ir::Buffer Input(const ir::Expr& arg, const TensorType& type);
  // The buffer param of the result (declared after the inputs).
  ir::Buffer Output(const std::string& name, const TensorType& type);
  // An intermediate buffer allocated in the root block; `shape` is kernel-local.
  ir::Buffer Alloc(const std::string& name, DataType dtype, std::vector<PrimExpr> shape);
  // A Relax shape expression rewritten over the kernel-local vars.
  PrimExpr Local(const PrimExpr& relax_expr);

  // A spatial stage: for each index v of out's shape, out[v] = value(v). Loops are named
  // <loop_prefix>0, 1, ..., block vars v_<loop name>.
  void Compute(const std::string& block, const ir::Buffer& out, const ValueFn& value,
               const std::string& loop_prefix = "ax", ir::AttrMap block_attrs = {});
  // A reduction stage over out's shape (spatial, loops <loop_prefix>i) followed by
  // `reduce_extents` (reduction, loops k or k0, k1, ...): out[s] = combine(out[s], value(s, r))
  // with out[s] = init first. value gets the spatial vars then the reduction vars.
  enum class Combiner { kSum, kMax };
  void Reduce(const std::string& block, const ir::Buffer& out,
              const std::vector<PrimExpr>& reduce_extents, Combiner combiner, PrimExpr init,
              const ValueFn& value, const std::string& loop_prefix = "i");

  // The kernel and its call.
  LoweredCall Finish();

 private:
  ir::Buffer Param(const std::string& name, const TensorType& type);
  void Stage(const std::string& block, const ir::Buffer& out, const std::vector<PrimExpr>& extents,
             size_t num_spatial, const std::string& loop_prefix, const ValueFn& value,
             std::optional<Combiner> combiner, PrimExpr init, ir::AttrMap block_attrs);

  std::string name_hint_;
  std::vector<ir::Expr> args_;
  std::vector<ir::Buffer> inputs_;
  std::vector<ir::Buffer> outputs_;
  std::vector<ir::Buffer> allocs_;
  std::vector<ir::Stmt> stages_;
  // Relax var -> kernel-local copy, and the Relax vars in order of first appearance.
  std::unordered_map<const ir::TirVarNode*, ir::TirVar> local_;
  std::vector<ir::TirVar> relax_vars_;
};

// ---- Expression helpers ----
PrimExpr Load(const ir::Buffer& buffer, Indices indices);
PrimExpr Call(const std::string& intrinsic, PrimExpr arg);
PrimExpr Cast(DataType dtype, PrimExpr value);
// A float or integer immediate of `dtype`.
PrimExpr Imm(DataType dtype, double value);
// The smallest / largest finite value of a float or integer dtype (TVM's min_value/max_value).
PrimExpr MinValue(DataType dtype);

// Indices into an operand of a broadcasting op: the output vars aligned to the right, dims
// of extent 1 (where the output's is not) read at 0.
Indices BroadcastIndices(const Indices& out_vars, const std::vector<PrimExpr>& out_shape,
                         const std::vector<PrimExpr>& operand_shape);

// ---- Rule tables of the op groups (relax op name -> rule) ----
void AddElementwiseRules(std::unordered_map<std::string, Rule>* rules);
void AddManipulateRules(std::unordered_map<std::string, Rule>* rules);
void AddNnRules(std::unordered_map<std::string, Rule>* rules);

}  // namespace pipesplit::transform::legalize

#endif  // PIPESPLIT_SRC_TRANSFORM_LEGALIZE_OPS_TIR_H_
