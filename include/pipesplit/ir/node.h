// The base of every IR node.
//
// Nodes are immutable once built and shared by reference counting (std::shared_ptr to const).
// Identity matters: two Vars are the same variable only when they are the same node, never
// because they share a name. Each node records its kind (for switch-based dispatch without
// RTTI) and the source span it came from (invalid for nodes built by passes).
#ifndef PIPESPLIT_IR_NODE_H_
#define PIPESPLIT_IR_NODE_H_

#include <cstdint>
#include <memory>

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
  // TIR buffers and statements (tir.h). Keep kFor..kDeclBuffer contiguous (StmtNode::ClassOf).
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

#define PIPESPLIT_NODE_KIND(K) \
  static bool ClassOf(NodeKind kind) { return kind == NodeKind::K; }

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_NODE_H_
