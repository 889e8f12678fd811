// TIR: buffers, buffer loads and the statements of a TIR function body (loops, blocks,
// stores, lets, conditionals, allocations), as TVM models them. The scalar expressions are
// the PrimExprs of prim_expr.h, extended by BufferLoadNode. Vars and buffers compare by
// identity; nodes are immutable and shared through Ptr.
#ifndef PIPESPLIT_IR_TIR_H_
#define PIPESPLIT_IR_TIR_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/node.h"
#include "pipesplit/ir/prim_expr.h"

namespace pipesplit::ir {

// A new buffer with a fresh data var of dtype handle.
Buffer MakeBuffer(std::string name, DataType dtype, std::vector<PrimExpr> shape,
                  std::string scope = "global", Span span = {}, BufferLayout layout = {});

// [min, min + extent).
struct Range {
  PrimExpr min;
  PrimExpr extent;
};

// A rectangular region of a buffer (T.reads / T.writes entries, match_buffer sources).
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

// ---- Statements ----

class StmtNode : public Node {
 public:
  static bool ClassOf(NodeKind k) { return k >= NodeKind::kFor && k <= NodeKind::kAllocBuffer; }

 protected:
  StmtNode(NodeKind kind, Span span) : Node(kind, span) {}
};
using Stmt = Ptr<StmtNode>;

enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kThreadBinding };

// for loop_var in [min, min + extent): body. `thread_tag` names the bound thread axis of a
// thread_binding loop ("threadIdx.x").
class ForNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kFor)
  ForNode(TirVar loop_var, PrimExpr min, PrimExpr extent, ForKind for_kind, Stmt body,
          std::string thread_tag = {}, AttrMap annotations = {}, Span span = {})
      : StmtNode(NodeKind::kFor, span),
        loop_var_(std::move(loop_var)),
        min_(std::move(min)),
        extent_(std::move(extent)),
        for_kind_(for_kind),
        body_(std::move(body)),
        thread_tag_(std::move(thread_tag)),
        annotations_(std::move(annotations)) {}
  const TirVar& loop_var() const { return loop_var_; }
  const PrimExpr& min() const { return min_; }
  const PrimExpr& extent() const { return extent_; }
  ForKind for_kind() const { return for_kind_; }
  const Stmt& body() const { return body_; }
  const std::string& thread_tag() const { return thread_tag_; }
  const AttrMap& annotations() const { return annotations_; }

 private:
  TirVar loop_var_;
  PrimExpr min_;
  PrimExpr extent_;
  ForKind for_kind_;
  Stmt body_;
  std::string thread_tag_;
  AttrMap annotations_;
};

// Block iteration kinds: data parallel ("S"), reduction ("R"), scan and opaque.
enum class IterVarType : uint8_t { kDataPar, kCommReduce, kOrdered, kOpaque };

struct IterVar {
  TirVar var;
  Range dom;
  IterVarType type = IterVarType::kDataPar;
};

// A buffer declared inside a block as a view of a region of another (T.match_buffer in a
// block).
struct MatchBufferRegion {
  Buffer buffer;
  BufferRegion source;
};

// with T.block(name): iter vars, reads, writes, an optional T.init() statement, buffers
// allocated in the block, matched buffers, block annotations (T.block_attr) and the body.
class BlockNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kBlock)
  struct Fields {
    std::string name_hint;
    std::vector<IterVar> iter_vars;
    std::vector<BufferRegion> reads;
    std::vector<BufferRegion> writes;
    Stmt init;  // may be null
    std::vector<Buffer> alloc_buffers;
    std::vector<MatchBufferRegion> match_buffers;
    AttrMap annotations;
    Stmt body;
  };
  explicit BlockNode(Fields fields, Span span = {})
      : StmtNode(NodeKind::kBlock, span), f_(std::move(fields)) {}
  const std::string& name_hint() const { return f_.name_hint; }
  const std::vector<IterVar>& iter_vars() const { return f_.iter_vars; }
  const std::vector<BufferRegion>& reads() const { return f_.reads; }
  const std::vector<BufferRegion>& writes() const { return f_.writes; }
  const Stmt& init() const { return f_.init; }
  const std::vector<Buffer>& alloc_buffers() const { return f_.alloc_buffers; }
  const std::vector<MatchBufferRegion>& match_buffers() const { return f_.match_buffers; }
  const AttrMap& annotations() const { return f_.annotations; }
  const Stmt& body() const { return f_.body; }

 private:
  Fields f_;
};
using Block = Ptr<BlockNode>;

// A block with the values of its iter vars and its predicate (T.where; true when absent).
class BlockRealizeNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kBlockRealize)
  BlockRealizeNode(std::vector<PrimExpr> iter_values, PrimExpr predicate, Block block,
                   Span span = {})
      : StmtNode(NodeKind::kBlockRealize, span),
        iter_values_(std::move(iter_values)),
        predicate_(std::move(predicate)),
        block_(std::move(block)) {}
  const std::vector<PrimExpr>& iter_values() const { return iter_values_; }
  const PrimExpr& predicate() const { return predicate_; }
  const Block& block() const { return block_; }

 private:
  std::vector<PrimExpr> iter_values_;
  PrimExpr predicate_;
  Block block_;
};

class SeqStmtNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kSeqStmt)
  explicit SeqStmtNode(std::vector<Stmt> seq, Span span = {})
      : StmtNode(NodeKind::kSeqStmt, span), seq_(std::move(seq)) {}
  const std::vector<Stmt>& seq() const { return seq_; }

 private:
  std::vector<Stmt> seq_;
};

// buffer[indices] = value
class BufferStoreNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kBufferStore)
  BufferStoreNode(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices, Span span = {})
      : StmtNode(NodeKind::kBufferStore, span),
        buffer_(std::move(buffer)),
        value_(std::move(value)),
        indices_(std::move(indices)) {}
  const Buffer& buffer() const { return buffer_; }
  const PrimExpr& value() const { return value_; }
  const std::vector<PrimExpr>& indices() const { return indices_; }

 private:
  Buffer buffer_;
  PrimExpr value_;
  std::vector<PrimExpr> indices_;
};

// var = value; body (with T.LetStmt / a plain assignment in a TIR body).
class LetStmtNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kLetStmt)
  LetStmtNode(TirVar var, PrimExpr value, Stmt body, Span span = {})
      : StmtNode(NodeKind::kLetStmt, span),
        var_(std::move(var)),
        value_(std::move(value)),
        body_(std::move(body)) {}
  const TirVar& var() const { return var_; }
  const PrimExpr& value() const { return value_; }
  const Stmt& body() const { return body_; }

 private:
  TirVar var_;
  PrimExpr value_;
  Stmt body_;
};

// if cond: then_case else: else_case (else_case may be null).
class IfThenElseNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kIfThenElse)
  IfThenElseNode(PrimExpr cond, Stmt then_case, Stmt else_case, Span span = {})
      : StmtNode(NodeKind::kIfThenElse, span),
        cond_(std::move(cond)),
        then_case_(std::move(then_case)),
        else_case_(std::move(else_case)) {}
  const PrimExpr& cond() const { return cond_; }
  const Stmt& then_case() const { return then_case_; }
  const Stmt& else_case() const { return else_case_; }

 private:
  PrimExpr cond_;
  Stmt then_case_;
  Stmt else_case_;
};

// T.evaluate(value)
class EvaluateNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kEvaluate)
  explicit EvaluateNode(PrimExpr value, Span span = {})
      : StmtNode(NodeKind::kEvaluate, span), value_(std::move(value)) {}
  const PrimExpr& value() const { return value_; }

 private:
  PrimExpr value_;
};

// buffer_var = T.allocate(extents, dtype, scope); body.
class AllocateNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kAllocate)
  AllocateNode(TirVar buffer_var, DataType dtype, std::vector<PrimExpr> extents, std::string scope,
               Stmt body, Span span = {})
      : StmtNode(NodeKind::kAllocate, span),
        buffer_var_(std::move(buffer_var)),
        dtype_(dtype),
        extents_(std::move(extents)),
        scope_(std::move(scope)),
        body_(std::move(body)) {}
  const TirVar& buffer_var() const { return buffer_var_; }
  DataType dtype() const { return dtype_; }
  const std::vector<PrimExpr>& extents() const { return extents_; }
  const std::string& scope() const { return scope_; }
  const Stmt& body() const { return body_; }

 private:
  TirVar buffer_var_;
  DataType dtype_;
  std::vector<PrimExpr> extents_;
  std::string scope_;
  Stmt body_;
};

// buffer = T.decl_buffer(...); body.
class DeclBufferNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kDeclBuffer)
  DeclBufferNode(Buffer buffer, Stmt body, Span span = {})
      : StmtNode(NodeKind::kDeclBuffer, span), buffer_(std::move(buffer)), body_(std::move(body)) {}
  const Buffer& buffer() const { return buffer_; }
  const Stmt& body() const { return body_; }

 private:
  Buffer buffer_;
  Stmt body_;
};

// assert cond, (error_kind, [message_parts...]): fails the kernel with that error when `cond`
// is false (tir.AssertStmt as TVM keeps it since 2026: a statement of its sequence, no body).
class AssertStmtNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kAssertStmt)
  AssertStmtNode(PrimExpr cond, std::string error_kind, std::vector<std::string> message_parts,
                 Span span = {})
      : StmtNode(NodeKind::kAssertStmt, span),
        cond_(std::move(cond)),
        error_kind_(std::move(error_kind)),
        message_parts_(std::move(message_parts)) {}
  const PrimExpr& cond() const { return cond_; }
  const std::string& error_kind() const { return error_kind_; }  // "RuntimeError", ...
  const std::vector<std::string>& message_parts() const { return message_parts_; }

 private:
  PrimExpr cond_;
  std::string error_kind_;
  std::vector<std::string> message_parts_;
};

// while cond: body
class WhileNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kWhile)
  WhileNode(PrimExpr cond, Stmt body, Span span = {})
      : StmtNode(NodeKind::kWhile, span), cond_(std::move(cond)), body_(std::move(body)) {}
  const PrimExpr& cond() const { return cond_; }
  const Stmt& body() const { return body_; }

 private:
  PrimExpr cond_;
  Stmt body_;
};

// A commutative reducer (T.comm_reducer(lambda x0, y0: x0 + y0, [identity])): combines lhs[i]
// and rhs[i] into result[i]; identity[i] is the neutral element.
struct CommReducer {
  std::vector<TirVar> lhs;
  std::vector<TirVar> rhs;
  std::vector<PrimExpr> result;
  std::vector<PrimExpr> identity;
};

// What an attribute statement annotates (tir.AttrStmt's node).
struct AttrTarget {
  enum class Kind : uint8_t {
    kNone,         // nothing: the attribute alone (consecutive ones print T.attr({k: v, ...}))
    kExpr,         // a PrimExpr (T.attr(0, "hand_threaded", 0))
    kThread,       // a thread axis: `var` bound to `thread_tag` (T.launch_thread)
    kCommReducer,  // a reducer (T.attr(T.comm_reducer(...), "reduce_scope", 0))
  };
  Kind kind = Kind::kNone;
  PrimExpr expr;                               // kExpr
  TirVar var;                                  // kThread
  std::string thread_tag;                      // kThread: "threadIdx.x", ...
  std::shared_ptr<const CommReducer> reducer;  // kCommReducer
};

// An annotation `attr_key` = `value` on `target` scoping over `body` (tir.AttrStmt). A
// "thread_extent" / "virtual_thread" on a thread target launches that thread axis with
// extent `value` (T.launch_thread).
class AttrStmtNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kAttrStmt)
  AttrStmtNode(AttrTarget target, std::string attr_key, PrimExpr value, Stmt body, Span span = {})
      : StmtNode(NodeKind::kAttrStmt, span),
        target_(std::move(target)),
        attr_key_(std::move(attr_key)),
        value_(std::move(value)),
        body_(std::move(body)) {}
  const AttrTarget& target() const { return target_; }
  const std::string& attr_key() const { return attr_key_; }
  const PrimExpr& value() const { return value_; }
  const Stmt& body() const { return body_; }
  // Whether this launches a thread axis (T.launch_thread).
  bool is_thread_launch() const {
    return target_.kind == AttrTarget::Kind::kThread &&
           (attr_key_ == "thread_extent" || attr_key_ == "virtual_thread");
  }

 private:
  AttrTarget target_;
  std::string attr_key_;
  PrimExpr value_;
  Stmt body_;
};

// buffer = T.alloc_buffer(...) / T.alloc_shared / T.alloc_local outside a block; body (the
// rest of the enclosing sequence). tir.AllocBuffer.
class AllocBufferNode : public StmtNode {
 public:
  PIPESPLIT_NODE_KIND(kAllocBuffer)
  AllocBufferNode(Buffer buffer, Stmt body, Span span = {})
      : StmtNode(NodeKind::kAllocBuffer, span),
        buffer_(std::move(buffer)),
        body_(std::move(body)) {}
  const Buffer& buffer() const { return buffer_; }
  const Stmt& body() const { return body_; }

 private:
  Buffer buffer_;
  Stmt body_;
};

// Wraps statements: none -> T.evaluate(0), one -> itself, more -> a SeqStmt.
Stmt MakeSeq(std::vector<Stmt> stmts, Span span = {});

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_TIR_H_
