// The base of every IR node.
//
// Nodes are immutable once built and shared by reference counting (std::shared_ptr to const).
// Identity matters: two Vars are the same variable only when they are the same node, never
// because they share a name. Each node records its kind (for switch-based dispatch without
// RTTI) and the source span it came from (invalid for nodes built by passes).
#ifndef PIPESPLIT_IR_NODE_H_
#define PIPESPLIT_IR_NODE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "pipesplit/support/source.h"

namespace pipesplit::ir {

enum class NodeKind : uint8_t {
  // PrimExpr (symbolic integer / scalar expressions, a TIR subset).
  kIntImm,
  kFloatImm,
  kTirVar,
  kBinary,
  kNot,
  kCast,
  kSelect,
  kBufferLoad,
  kPrimCall,
  kTirStringImm,
  kLet,
  // StructInfo.
  kObjectSInfo,
  kPrimSInfo,
  kShapeSInfo,
  kTensorSInfo,
  kTupleSInfo,
  kFuncSInfo,
  // Relax expressions. Keep kVar and kDataflowVar adjacent (VarNode::ClassOf relies on it).
  kVar,
  kDataflowVar,
  kGlobalVar,
  kConstant,
  kTuple,
  kTupleGetItem,
  kShapeExpr,
  kPrimValue,
  kStringImm,
  kDataTypeImm,
  kOp,
  kExternFunc,
  kCall,
  kIf,
  kSeqExpr,
  kFunction,
  kPrimFunc,
  // Bindings and blocks.
  kVarBinding,
  kMatchCast,
  kBindingBlock,
  // TIR buffers and statements (tir.h). Keep kFor..kAllocBuffer contiguous (StmtNode::ClassOf).
  kBuffer,
  kFor,
  kBlock,
  kBlockRealize,
  kSeqStmt,
  kBufferStore,
  kLetStmt,
  kIfThenElse,
  kEvaluate,
  kAllocate,
  kDeclBuffer,
  kAssertStmt,
  kWhile,
  kAttrStmt,
  kAllocBuffer,
};

class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;

  NodeKind kind() const { return kind_; }
  Span span() const { return span_; }

 protected:
  Node(NodeKind kind, Span span) : kind_(kind), span_(span) {}

 private:
  NodeKind kind_;
  Span span_;
};

template <typename T>
using Ptr = std::shared_ptr<const T>;

// Node storage: per-thread free lists of 16-byte size classes carved from 256 KiB chunks
// (node.cc). A block freed on another thread joins that thread's lists; chunks are never
// returned, so a block stays valid memory whatever thread frees it. Larger requests go to
// operator new. Under AddressSanitizer every block comes from operator new, so its checks
// keep seeing each node.
void* PoolAllocate(size_t bytes);
void PoolFree(void* block, size_t bytes);

// The allocator `Make` hands to std::allocate_shared: node and reference counts share one
// pooled block, and shared_ptr semantics (weak refs, aliasing, casts) are unchanged.
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebind
  T* allocate(size_t n) { return static_cast<T*>(PoolAllocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { PoolFree(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

// The one place IR nodes are allocated: `Make<CallNode>(op, args, ...)` forwards to the node's
// constructor. Passes, the parser and tests build nodes only through it (or through the named
// helpers built on it, such as IntImm or MakeBinary), so the allocation strategy lives here.
template <typename T, typename... Args>
Ptr<T> Make(Args&&... args) {
  return std::allocate_shared<const T>(PoolAllocator<T>(), std::forward<Args>(args)...);
}

// Checked downcasts by node kind. `As` returns nullptr when the node is not a T.
template <typename T, typename U>
const T* As(const U* node) {
  return node != nullptr && T::ClassOf(node->kind()) ? static_cast<const T*>(node) : nullptr;
}
template <typename T, typename U>
const T* As(const Ptr<U>& node) {
  return As<T>(node.get());
}
// Shared-pointer downcast; nullptr when the node is not a T.
template <typename T, typename U>
Ptr<T> Cast(const Ptr<U>& node) {
  return node != nullptr && T::ClassOf(node->kind()) ? std::static_pointer_cast<const T>(node)
                                                     : nullptr;
}
template <typename T, typename U>
bool Is(const Ptr<U>& node) {
  return node != nullptr && T::ClassOf(node->kind());
}

// Case labels of every kind of one node family. A switch over node kinds has no `default:`:
// it names each kind of its own family and ends with PIPESPLIT_KINDS_OUTSIDE_<family> (as
// unreachable), so -Wswitch reports every switch that a new kind of the family is missing from.
// A new kind goes into its family's list here; a new family gets a list of its own and joins
// the OUTSIDE lists.
#define PIPESPLIT_PRIM_EXPR_KINDS                \
  case ::pipesplit::ir::NodeKind::kIntImm:       \
  case ::pipesplit::ir::NodeKind::kFloatImm:     \
  case ::pipesplit::ir::NodeKind::kTirVar:       \
  case ::pipesplit::ir::NodeKind::kBinary:       \
  case ::pipesplit::ir::NodeKind::kNot:          \
  case ::pipesplit::ir::NodeKind::kCast:         \
  case ::pipesplit::ir::NodeKind::kSelect:       \
  case ::pipesplit::ir::NodeKind::kBufferLoad:   \
  case ::pipesplit::ir::NodeKind::kPrimCall:     \
  case ::pipesplit::ir::NodeKind::kTirStringImm: \
  case ::pipesplit::ir::NodeKind::kLet
#define PIPESPLIT_STRUCT_INFO_KINDS             \
  case ::pipesplit::ir::NodeKind::kObjectSInfo: \
  case ::pipesplit::ir::NodeKind::kPrimSInfo:   \
  case ::pipesplit::ir::NodeKind::kShapeSInfo:  \
  case ::pipesplit::ir::NodeKind::kTensorSInfo: \
  case ::pipesplit::ir::NodeKind::kTupleSInfo:  \
  case ::pipesplit::ir::NodeKind::kFuncSInfo
#define PIPESPLIT_EXPR_KINDS                     \
  case ::pipesplit::ir::NodeKind::kVar:          \
  case ::pipesplit::ir::NodeKind::kDataflowVar:  \
  case ::pipesplit::ir::NodeKind::kGlobalVar:    \
  case ::pipesplit::ir::NodeKind::kConstant:     \
  case ::pipesplit::ir::NodeKind::kTuple:        \
  case ::pipesplit::ir::NodeKind::kTupleGetItem: \
  case ::pipesplit::ir::NodeKind::kShapeExpr:    \
  case ::pipesplit::ir::NodeKind::kPrimValue:    \
  case ::pipesplit::ir::NodeKind::kStringImm:    \
  case ::pipesplit::ir::NodeKind::kDataTypeImm:  \
  case ::pipesplit::ir::NodeKind::kOp:           \
  case ::pipesplit::ir::NodeKind::kExternFunc:   \
  case ::pipesplit::ir::NodeKind::kCall:         \
  case ::pipesplit::ir::NodeKind::kIf:           \
  case ::pipesplit::ir::NodeKind::kSeqExpr:      \
  case ::pipesplit::ir::NodeKind::kFunction:     \
  case ::pipesplit::ir::NodeKind::kPrimFunc
#define PIPESPLIT_BINDING_KINDS                \
  case ::pipesplit::ir::NodeKind::kVarBinding: \
  case ::pipesplit::ir::NodeKind::kMatchCast:  \
  case ::pipesplit::ir::NodeKind::kBindingBlock
// Statement kinds (StmtNode). DispatchStmt in tir_functor.h is the one switch over them.
#define PIPESPLIT_STMT_KINDS                     \
  case ::pipesplit::ir::NodeKind::kFor:          \
  case ::pipesplit::ir::NodeKind::kBlock:        \
  case ::pipesplit::ir::NodeKind::kBlockRealize: \
  case ::pipesplit::ir::NodeKind::kSeqStmt:      \
  case ::pipesplit::ir::NodeKind::kBufferStore:  \
  case ::pipesplit::ir::NodeKind::kLetStmt:      \
  case ::pipesplit::ir::NodeKind::kIfThenElse:   \
  case ::pipesplit::ir::NodeKind::kEvaluate:     \
  case ::pipesplit::ir::NodeKind::kAllocate:     \
  case ::pipesplit::ir::NodeKind::kDeclBuffer:   \
  case ::pipesplit::ir::NodeKind::kAssertStmt:   \
  case ::pipesplit::ir::NodeKind::kWhile:        \
  case ::pipesplit::ir::NodeKind::kAttrStmt:     \
  case ::pipesplit::ir::NodeKind::kAllocBuffer
#define PIPESPLIT_TIR_KINDS                \
  case ::pipesplit::ir::NodeKind::kBuffer: \
    PIPESPLIT_STMT_KINDS

// Every kind outside one family, for the tail of a switch over that family.
#define PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR \
  PIPESPLIT_STRUCT_INFO_KINDS:            \
  PIPESPLIT_EXPR_KINDS:                   \
  PIPESPLIT_BINDING_KINDS:                \
  PIPESPLIT_TIR_KINDS
#define PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO \
  PIPESPLIT_PRIM_EXPR_KINDS:                \
  PIPESPLIT_EXPR_KINDS:                     \
  PIPESPLIT_BINDING_KINDS:                  \
  PIPESPLIT_TIR_KINDS
#define PIPESPLIT_KINDS_OUTSIDE_STMT \
  PIPESPLIT_PRIM_EXPR_KINDS:         \
  PIPESPLIT_STRUCT_INFO_KINDS:       \
  PIPESPLIT_EXPR_KINDS:              \
  PIPESPLIT_BINDING_KINDS:           \
  case ::pipesplit::ir::NodeKind::kBuffer
#define PIPESPLIT_KINDS_OUTSIDE_EXPR \
  PIPESPLIT_PRIM_EXPR_KINDS:         \
  PIPESPLIT_STRUCT_INFO_KINDS:       \
  PIPESPLIT_BINDING_KINDS:           \
  PIPESPLIT_TIR_KINDS

#define PIPESPLIT_NODE_KIND(K) \
  static bool ClassOf(NodeKind kind) { return kind == NodeKind::K; }

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_NODE_H_
