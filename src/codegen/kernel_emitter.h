// The kernel emitter: one PrimFunc as the C++ function implementing the kernel ABI. Its
// expressions and statements are in codegen_source.cc, its planned loop nests and parallel
// loops in codegen_nest.cc.
#ifndef PIPESPLIT_SRC_CODEGEN_KERNEL_EMITTER_H_
#define PIPESPLIT_SRC_CODEGEN_KERNEL_EMITTER_H_

#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/ir/tir_functor.h"
#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {

// Each statement and expression kind is emitted by its own handler (codegen_source.cc).
class KernelEmitter : private ir::StmtFunctor<void(const ir::StmtNode&)>,
                      private ir::PrimExprFunctor<std::string(const ir::PrimExprNode&)> {
 public:
  KernelEmitter(std::string kernel, bool check_bounds, bool optimize_loops,
                const FastContraction* fast = nullptr)
      : kernel_(std::move(kernel)),
        check_bounds_(check_bounds),
        optimize_(optimize_loops && !check_bounds),
        fast_(fast) {}

  std::string Emit(const ir::PrimFuncNode& func);
  int64_t cost() const { return cost_; }

 private:
  struct BufferInfo {
    std::string ptr;                // C++ name of the element pointer
    std::vector<std::string> dims;  // C++ names of the dims (int64_t)
    std::string name;               // buffer name, for messages
  };

  [[noreturn]] void Unsupported(const std::string& what) const {
    throw CodegenError("kernel " + kernel_ + ": codegen does not support " + what);
  }

  void Line(const std::string& text) {
    for (int i = 0; i < indent_; ++i) out_ << "  ";
    out_ << text << "\n";
    cost_ += unroll_;
  }

  std::string Fresh(const std::string& hint) {
    return "v" + std::to_string(counter_++) + "_" + Sanitize(hint);
  }

  // ---- Types (see codegen_internal.h).
  std::string ValueType(DataType dt) const {
    std::optional<std::string> t = CValueType(dt);
    if (!t) Unsupported("dtype " + dt.ToString());
    return *t;
  }
  std::string StorageType(DataType dt) const {
    ValueType(dt);  // rejects unsupported dtypes
    return *CStorageType(dt);
  }
  std::pair<int, int> AbiType(DataType dt) const {
    ValueType(dt);
    return AbiTypeOf(dt);
  }
  std::string ToStorage(DataType dt, const std::string& e) const {
    return ToStorageValue(dt, StorageType(dt), e);
  }

  // ---- Vars and buffers.
  std::string VarName(const ir::TirVarNode* v) const {
    auto it = vars_.find(v);
    if (it == vars_.end()) Unsupported("variable '" + v->name() + "' used before its definition");
    return it->second;
  }

  // Declares `v` = `value` (a C++ expression) in the current scope.
  void BindVar(const ir::TirVar& v, const std::string& value) { BindVar(v.get(), value); }
  void BindVar(const ir::TirVarNode* v, const std::string& value) {
    std::string name = Fresh(v->name());
    Line("[[maybe_unused]] const " + ValueType(v->dtype()) + " " + name + " = static_cast<" +
         ValueType(v->dtype()) + ">(" + value + ");");
    vars_[v] = name;
  }

  // Declares the dims of `b` from its shape expressions.
  BufferInfo& DeclareDims(const ir::Buffer& b, const std::string& ptr);

  // Allocates storage for `b` (T.alloc_buffer / T.decl_buffer without data).
  void AllocateBuffer(const ir::Buffer& b);

  const BufferInfo& LookupBuffer(const ir::Buffer& b);

  std::string Element(const ir::Buffer& b, const std::vector<ir::PrimExpr>& indices);

  // ---- Parameters.
  void EmitParams(const ir::PrimFuncNode& func);

  // The hand-over of a recognised kernel to the runtime's contraction (codegen_fast_path.cc),
  // after the parameters are checked and bound.
  void EmitFastPath(const ir::PrimFuncNode& func, const FastContraction& c);

  // ---- Expressions.
  std::string Expr(const ir::PrimExpr& e) { return VisitExpr(*e); }

  std::string VisitExpr_(const ir::IntImmNode& n) override;
  std::string VisitExpr_(const ir::FloatImmNode& n) override;
  std::string VisitExpr_(const ir::TirVarNode& n) override { return VarName(&n); }
  std::string VisitExpr_(const ir::BinaryNode& n) override;
  std::string VisitExpr_(const ir::NotNode& n) override;
  std::string VisitExpr_(const ir::CastNode& n) override;
  std::string VisitExpr_(const ir::SelectNode& n) override;
  std::string VisitExpr_(const ir::BufferLoadNode& n) override;
  std::string VisitExpr_(const ir::PrimCallNode& n) override;
  std::string VisitExpr_(const ir::TirStringImmNode&) override { Unsupported("TIR strings"); }
  std::string VisitExpr_(const ir::LetNode& n) override;

  // ---- Statements.
  void EmitStmt(const ir::Stmt& s) { VisitStmt(*s); }

  void VisitStmt_(const ir::ForNode& n) override;
  void VisitStmt_(const ir::BlockRealizeNode& n) override { EmitBlock(n); }
  void VisitStmt_(const ir::BlockNode& n) override {
    Unsupported("a block without T.block realize");
  }
  void VisitStmt_(const ir::SeqStmtNode& n) override {
    for (const ir::Stmt& c : n.seq()) EmitStmt(c);
  }
  void VisitStmt_(const ir::BufferStoreNode& n) override;
  void VisitStmt_(const ir::LetStmtNode& n) override;
  void VisitStmt_(const ir::IfThenElseNode& n) override;
  void VisitStmt_(const ir::EvaluateNode& n) override;
  void VisitStmt_(const ir::AllocateNode& n) override;
  void VisitStmt_(const ir::DeclBufferNode& n) override;
  void VisitStmt_(const ir::AssertStmtNode& n) override;
  void VisitStmt_(const ir::WhileNode& n) override;
  void VisitStmt_(const ir::AttrStmtNode& n) override;
  void VisitStmt_(const ir::AllocBufferNode& n) override;
  // Buffers are compact and start at their data pointer here (a parameter's data is its first
  // element, an allocation starts its storage): an element offset is 0, and a var naming it
  // (`offset_factor=1`, `elem_offset=pages_elem_offset`) is bound to 0.
  void BindLayout(const ir::Buffer& b);

  void EmitBlock(const ir::BlockRealizeNode& realize);

  // ---- Planned loop nests (loop_plan.cc) and parallel loops.

  // One loop of a planned nest as emitted: a whole loop, or the tile loop and the loop
  // inside a tile of the moved loop.
  enum class Part { kWhole, kTiles, kInTile };
  struct Emitted {
    int loop;
    Part part;
  };

  // The C++ names of a planned nest's loops (per loop, as written): var type, bounds,
  // iteration count, var, and the bounds of the current tile of a tiled loop.
  struct NestNames {
    std::vector<std::string> lt, lo, hi, var, count, tile_start, tile_end;
  };

  void EmitNest(const NestPlan& plan);

  // The innermost loop `e` of a nest without a register tile (codegen_nest.cc).
  void EmitInnermost(const NestPlan& plan, const NestNames& names, const Emitted& e);

  // The register tile of a nest inside its tile loops (codegen_regtile.cc).
  void EmitRegisterTile(const NestPlan& plan, const NestNames& names);

  // The T.init condition of the nest's block as an expression of the loop vars other than
  // `inner`; nullopt when there is no init or the condition depends on a var of `inner`.
  std::optional<std::string> HoistedInit(const NestPlan& plan,
                                         const std::vector<const ir::TirVarNode*>& inner);

  // A T.parallel loop: its iterations are independent by declaration.
  void EmitParallelLoop(const ir::ForNode& n);

  std::string kernel_;
  bool check_bounds_;
  bool optimize_;
  const FastContraction* fast_;
  bool in_parallel_ = false;  // inside the body of a parallel launch: loops run serially
  // How the next EmitBlock runs its T.init: tested per iteration, or decided by the caller.
  enum class InitMode { kCheck, kAlways, kNever };
  InitMode init_mode_ = InitMode::kCheck;
  // Inside a register tile's update: loads of this buffer read the accumulator element (the
  // value expression of it).
  const ir::Buffer* acc_buffer_ = nullptr;
  std::string acc_element_;
  const ir::PrimFuncNode* func_ = nullptr;
  std::ostringstream out_;
  int indent_ = 0;
  int counter_ = 0;
  // The compile cost estimate (EmitKernel): lines, each counted as often as the unrolled loops
  // around it copy it.
  int64_t cost_ = 0;
  int64_t unroll_ = 1;
  std::unordered_map<const ir::TirVarNode*, std::string> vars_;
  std::unordered_map<const ir::BufferNode*, BufferInfo> buffers_;
  std::unordered_map<const ir::TirVarNode*, std::string> allocations_;
  std::unordered_set<const ir::TirVarNode*> offset_vars_;  // element offset vars (bound to 0)
};

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_SRC_CODEGEN_KERNEL_EMITTER_H_
