// Structural hashing consistent with StructuralEqual: the walk visits exactly the fields equality
// compares, in the same order; vars and symbolic vars hash by the order in which the walk first
// meets them (never by name or address), and attribute maps in canonical key order with op
// defaults filled in. Linear in the size of the IR.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/support/check.h"
#include "src/analysis/attr_canon.h"
#include "src/analysis/structural_tir.h"

namespace pipesplit::analysis {
namespace {

using namespace ir;  // NOLINT: IR node names throughout

constexpr int kMaxDepth = 512;  // as structural_comparer.h

uint64_t Mix(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t HashString(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

uint64_t HashDType(DataType t) {
  return (static_cast<uint64_t>(t.code()) << 32) | (static_cast<uint64_t>(t.bits()) << 16) |
         static_cast<uint64_t>(t.lanes());
}

uint64_t HashDouble(double d) {
  if (std::isnan(d)) return 0x7ff8000000000000ULL;
  if (d == 0) d = 0;  // -0.0 equals 0.0
  return std::bit_cast<uint64_t>(d);
}

// Distinct tags keep different shapes of data from colliding trivially.
enum Tag : uint64_t {
  kTagNull = 1,
  kTagVarDef,
  kTagVarUse,
  kTagTirVar,
  kTagList,
  kTagAttrs,
  kTagNone,
  kTagBool,
  kTagInt,
  kTagFloat,
  kTagString,
  kTagPrim,
  kTagExpr,
  kTagMap,
  kTagCall,
  kTagDepth,
  kTagMember,
  kTagNumber,
  kTagLambda,
};

class Hasher {
 public:
  uint64_t value() const { return h_; }
  void Add(uint64_t v) { h_ = Mix(h_ ^ Mix(v + 0x632be59bd9b4e019ULL * ++count_)); }
  void AddKind(NodeKind k) { Add(100 + static_cast<uint64_t>(k)); }

  void Prim(const PrimExpr& root) {
    std::vector<const PrimExprNode*>& stack = prim_stack_;  // reused: Prim does not re-enter
    stack.assign(1, root.get());
    while (!stack.empty()) {
      const PrimExprNode* e = stack.back();
      stack.pop_back();
      if (e == nullptr) {
        Add(kTagNull);
        continue;
      }
      AddKind(e->kind());
      Add(HashDType(e->dtype()));
      switch (e->kind()) {
        case NodeKind::kIntImm:
          Add(static_cast<uint64_t>(static_cast<const IntImmNode*>(e)->value()));
          break;
        case NodeKind::kFloatImm:
          Add(HashDouble(static_cast<const FloatImmNode*>(e)->value()));
          break;
        case NodeKind::kTirVar: {
          const auto* v = static_cast<const TirVarNode*>(e);
          Add(kTagTirVar);
          Add(v->is_size_var());
          Add(Index(&tir_index_, v));
          break;
        }
        case NodeKind::kBinary: {
          const auto* n = static_cast<const BinaryNode*>(e);
          Add(static_cast<uint64_t>(n->op()));
          stack.push_back(n->b().get());
          stack.push_back(n->a().get());
          break;
        }
        case NodeKind::kNot:
          stack.push_back(static_cast<const NotNode*>(e)->a().get());
          break;
        case NodeKind::kCast:
          stack.push_back(static_cast<const CastNode*>(e)->value().get());
          break;
        case NodeKind::kSelect: {
          const auto* n = static_cast<const SelectNode*>(e);
          stack.push_back(n->false_value().get());
          stack.push_back(n->true_value().get());
          stack.push_back(n->cond().get());
          break;
        }
        case NodeKind::kPrimCall: {
          const auto* n = static_cast<const PrimCallNode*>(e);
          Add(HashString(n->name()));
          Add(n->args().size());
          for (size_t i = n->args().size(); i-- > 0;) stack.push_back(n->args()[i].get());
          break;
        }
        case NodeKind::kBufferLoad: {
          // As in the comparer: loads occur in TIR bodies, which hash through their canonical
          // form; here the buffer counts by its dtype and rank only.
          const auto* n = static_cast<const BufferLoadNode*>(e);
          Add(n->indices().size());
          for (size_t i = n->indices().size(); i-- > 0;) stack.push_back(n->indices()[i].get());
          break;
        }
        case NodeKind::kTirStringImm:
          Add(HashString(static_cast<const TirStringImmNode*>(e)->value()));
          break;
        case NodeKind::kLet: {
          const auto* n = static_cast<const LetNode*>(e);
          Add(kTagTirVar);
          Add(Index(&tir_index_, n->var().get()));
          stack.push_back(n->body().get());
          stack.push_back(n->value().get());
          break;
        }
        PIPESPLIT_KINDS_OUTSIDE_PRIM_EXPR:
          PS_UNREACHABLE();
      }
    }
  }

  void Prims(const std::vector<PrimExpr>& values) {
    Add(kTagList);
    Add(values.size());
    for (const PrimExpr& e : values) Prim(e);
  }

  void SInfo(const StructInfo& s) {
    if (s == nullptr) return Add(kTagNull);
    Depth depth(this);
    if (depth.too_deep()) return Add(kTagDepth);
    AddKind(s->kind());
    switch (s->kind()) {
      case NodeKind::kObjectSInfo:
        return;
      case NodeKind::kPrimSInfo: {
        const auto& n = static_cast<const PrimSInfoNode&>(*s);
        Add(HashDType(n.dtype()));
        if (n.value()) return Prim(n.value());
        return Add(kTagNull);
      }
      case NodeKind::kShapeSInfo: {
        const auto& n = static_cast<const ShapeSInfoNode&>(*s);
        Add(static_cast<uint64_t>(n.ndim()));
        if (n.values()) return Prims(*n.values());
        return Add(kTagNull);
      }
      case NodeKind::kTensorSInfo: {
        const auto& n = static_cast<const TensorSInfoNode&>(*s);
        Add(HashDType(n.dtype()));
        Add(static_cast<uint64_t>(n.ndim()));
        Add(HashString(n.vdevice()));
        if (n.shape_var()) return VarUse(n.shape_var().get());
        if (n.shape()) return Prims(*n.shape());
        return Add(kTagNull);
      }
      case NodeKind::kTupleSInfo: {
        const auto& n = static_cast<const TupleSInfoNode&>(*s);
        Add(kTagList);
        Add(n.fields().size());
        for (const StructInfo& f : n.fields()) SInfo(f);
        return;
      }
      case NodeKind::kFuncSInfo: {
        const auto& n = static_cast<const FuncSInfoNode&>(*s);
        if (n.params()) {
          Add(kTagList);
          Add(n.params()->size());
          for (const StructInfo& p : *n.params()) SInfo(p);
        } else {
          Add(kTagNull);
        }
        SInfo(n.ret());
        return Add(n.is_pure());
      }
      PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
        PS_UNREACHABLE();
    }
  }

  void Attrs(const CanonicalAttrs& attrs) {
    Add(kTagAttrs);
    Add(attrs.size());
    for (const AttrEntry& e : attrs) {
      Add(HashString(e.key));
      Attr(*e.value);
    }
  }

  void Attr(const AttrValue& v) {
    Depth depth(this);
    if (depth.too_deep()) return Add(kTagDepth);
    if (in_op_attrs_) {
      if (std::optional<NumberKey> number = OpAttrNumber(v)) {
        return Add(kTagNumber), Add(HashNumber(*number));
      }
    }
    if (v.is_none()) return Add(kTagNone);
    if (const bool* b = v.as_bool()) return Add(kTagBool), Add(*b);
    if (const int64_t* i = v.as_int()) return Add(kTagInt), Add(static_cast<uint64_t>(*i));
    if (const double* d = v.as_float()) return Add(kTagFloat), Add(HashDouble(*d));
    if (const std::string* s = v.as_string()) return Add(kTagString), Add(HashString(*s));
    if (const PrimExpr* e = v.as_prim_expr()) {
      // An int64 immediate equals the plain integer attribute of the same value.
      if ((*e)->kind() == NodeKind::kIntImm && (*e)->dtype() == DataType::Int(64)) {
        return Add(kTagInt),
               Add(static_cast<uint64_t>(static_cast<const IntImmNode&>(**e).value()));
      }
      return Add(kTagPrim), Prim(*e);
    }
    if (const Expr* e = v.as_expr()) return Add(kTagExpr), ExprHash(*e);
    if (const AttrList* list = v.as_list()) {
      Add(kTagList);
      Add(list->size());
      for (const AttrValue& item : *list) Attr(item);
      return;
    }
    if (const AttrMap* map = v.as_map()) return Add(kTagMap), Attrs(CanonicalizeAttrs(*map));
    if (const AttrCall* call = v.as_call()) {
      Add(kTagCall);
      Add(HashString(call->callee));
      if (auto params = LambdaParams(*call)) return Lambda(*call, *params);
      Add(call->args.size());
      for (const AttrValue& item : call->args) Attr(item);
      return Attrs(CanonicalizeAttrs(call->kwargs));
    }
    PS_UNREACHABLE();
  }

  // A lambda's params hash by their position in it and the lambda's nesting, not by first
  // occurrence, since equality binds them afresh for the body.
  void Lambda(const AttrCall& call, const std::vector<const TirVarNode*>& params) {
    Add(kTagLambda);
    Add(params.size());
    ++lambda_depth_;
    std::vector<std::pair<const TirVarNode*, std::optional<uint64_t>>> saved;
    for (size_t i = 0; i < params.size(); ++i) {
      Add(HashDType(params[i]->dtype()));
      auto it = tir_index_.find(params[i]);
      saved.emplace_back(
          params[i], it == tir_index_.end() ? std::nullopt : std::optional<uint64_t>(it->second));
      tir_index_[params[i]] =
          (uint64_t{1} << 62) + (static_cast<uint64_t>(lambda_depth_) << 20) + i;
    }
    Attr(call.args[1]);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second) {
        tir_index_[it->first] = *it->second;
      } else {
        tir_index_.erase(it->first);
      }
    }
    --lambda_depth_;
    Attrs(CanonicalizeAttrs(call.kwargs));
  }

  void VarDef(const Var& v) {
    if (v == nullptr) return Add(kTagNull);
    AddKind(v->kind());
    SInfo(v->struct_info());
    Add(kTagVarDef);
    Add(Index(&var_index_, v.get()));
  }

  void VarUse(const VarNode* v) {
    AddKind(v->kind());
    Add(kTagVarUse);
    Add(Index(&var_index_, v));
  }

  void BindingHash(const Binding& b) {
    if (b == nullptr) return Add(kTagNull);
    AddKind(b->kind());
    bool var_first = b->value() && b->value()->kind() == NodeKind::kFunction;
    if (var_first) VarDef(b->var());
    ExprHash(b->value());
    if (const auto* mc = As<MatchCastNode>(b)) SInfo(mc->struct_info());
    if (!var_first) VarDef(b->var());
  }

  void ExprSInfo(const Expr& e) { SInfo(e->struct_info()); }

  void ExprHash(const Expr& e) {
    if (e == nullptr) return Add(kTagNull);
    Depth depth(this);
    if (depth.too_deep()) return Add(kTagDepth);
    AddKind(e->kind());
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar:
        return VarUse(static_cast<const VarNode*>(e.get()));
      case NodeKind::kGlobalVar:
        return Add(HashString(static_cast<const GlobalVarNode&>(*e).name_hint()));
      case NodeKind::kConstant: {
        const auto& n = static_cast<const ConstantNode&>(*e);
        Add(static_cast<uint64_t>(n.metadata_index()));
        if (!n.is_metadata()) {
          Add(HashDType(n.dtype()));
          auto scalar = [&](const ConstantNode::Scalar& v) {
            Add(v.index());
            if (const auto* i = std::get_if<int64_t>(&v)) Add(static_cast<uint64_t>(*i));
            if (const auto* d = std::get_if<double>(&v)) Add(HashDouble(*d));
            if (const auto* b = std::get_if<bool>(&v)) Add(*b);
          };
          scalar(n.scalar());
          if (n.is_tensor()) {
            Add(n.shape().size());
            for (int64_t d : n.shape()) Add(static_cast<uint64_t>(d));
            for (const ConstantNode::Scalar& v : n.elements()) scalar(v);
          }
        }
        return ExprSInfo(e);
      }
      case NodeKind::kTuple: {
        const auto& n = static_cast<const TupleNode&>(*e);
        Add(n.fields().size());
        for (const Expr& f : n.fields()) ExprHash(f);
        return ExprSInfo(e);
      }
      case NodeKind::kTupleGetItem: {
        const auto& n = static_cast<const TupleGetItemNode&>(*e);
        ExprHash(n.tuple());
        Add(static_cast<uint64_t>(n.index()));
        return ExprSInfo(e);
      }
      case NodeKind::kShapeExpr:
        return Prims(static_cast<const ShapeExprNode&>(*e).values());
      case NodeKind::kPrimValue:
        return Prim(static_cast<const PrimValueNode&>(*e).value());
      case NodeKind::kStringImm:
        return Add(HashString(static_cast<const StringImmNode&>(*e).value()));
      case NodeKind::kDataTypeImm:
        return Add(HashDType(static_cast<const DataTypeImmNode&>(*e).value()));
      case NodeKind::kOp:
        return Add(HashString(static_cast<const OpNode&>(*e).name()));
      case NodeKind::kExternFunc:
        Add(HashString(static_cast<const ExternFuncNode&>(*e).global_symbol()));
        return ExprSInfo(e);
      case NodeKind::kCall: {
        const auto& n = static_cast<const CallNode&>(*e);
        ExprHash(n.op());
        Add(n.args().size());
        for (const Expr& a : n.args()) ExprHash(a);
        bool saved = in_op_attrs_;
        in_op_attrs_ = n.op_node() != nullptr;
        Attrs(CanonicalizeCallAttrs(n));
        in_op_attrs_ = saved;
        Add(n.sinfo_args().size());
        for (const StructInfo& s : n.sinfo_args()) SInfo(s);
        return ExprSInfo(e);
      }
      case NodeKind::kIf: {
        const auto& n = static_cast<const IfNode&>(*e);
        ExprHash(n.cond());
        ExprHash(n.true_branch());
        ExprHash(n.false_branch());
        return ExprSInfo(e);
      }
      case NodeKind::kSeqExpr: {
        const auto& n = static_cast<const SeqExprNode&>(*e);
        Add(n.blocks().size());
        for (const BindingBlock& block : n.blocks()) {
          if (block == nullptr) {
            Add(kTagNull);
            continue;
          }
          Add(block->is_dataflow());
          Add(block->bindings().size());
          for (const Binding& b : block->bindings()) BindingHash(b);
        }
        ExprHash(n.body());
        return ExprSInfo(e);
      }
      case NodeKind::kFunction: {
        const auto& n = static_cast<const FunctionNode&>(*e);
        Add(n.params().size());
        for (const Var& p : n.params()) VarDef(p);
        SInfo(n.ret_struct_info());
        Add(n.is_pure());
        Attrs(CanonicalizeAttrs(n.attrs()));
        return ExprHash(n.body());
      }
      case NodeKind::kPrimFunc: {
        const auto& n = static_cast<const PrimFuncNode&>(*e);
        Add(n.is_private());
        Add(HashString(n.name()));
        return Add(HashString(TirCanonicalForm(n)));
      }
      PIPESPLIT_KINDS_OUTSIDE_EXPR:
        PS_UNREACHABLE();
    }
  }

 private:
  class Depth {
   public:
    explicit Depth(Hasher* h) : h_(h) { ++h_->depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;
    ~Depth() { --h_->depth_; }
    bool too_deep() const { return h_->depth_ > kMaxDepth; }

   private:
    Hasher* h_;
  };

  // The walk-order number of `key`, assigned at its first occurrence.
  template <typename K>
  uint64_t Index(std::unordered_map<const K*, uint64_t>* table, const K* key) {
    return table->try_emplace(key, next_index_++).first->second;
  }

  uint64_t h_ = 0x5bd1e9955bd1e995ULL;
  uint64_t count_ = 0;
  int depth_ = 0;
  bool in_op_attrs_ = false;  // hashing a call's attrs: numbers hash by value
  int lambda_depth_ = 0;
  uint64_t next_index_ = 0;
  std::vector<const PrimExprNode*> prim_stack_;
  std::unordered_map<const VarNode*, uint64_t> var_index_;
  std::unordered_map<const TirVarNode*, uint64_t> tir_index_;
};

}  // namespace

uint64_t StructuralHash(const IRModule& mod) {
  // Members hash independently (each with fresh var numbering) and combine in name order, so
  // member order does not matter, as for equality.
  std::vector<std::pair<std::string_view, const Expr*>> members;
  members.reserve(mod.members().size());
  for (const IRModule::Member& m : mod.members())
    members.emplace_back(m.gvar->name_hint(), &m.func);
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Hasher outer;
  outer.Add(members.size());
  for (const auto& [name, func] : members) {
    Hasher member;
    member.ExprHash(*func);
    outer.Add(kTagMember);
    outer.Add(HashString(name));
    outer.Add(member.value());
  }
  Hasher attrs;
  attrs.Attrs(CanonicalizeAttrs(mod.attrs()));
  attrs.Attrs(CanonicalizeAttrs(mod.global_infos()));
  outer.Add(attrs.value());
  return outer.value();
}

uint64_t StructuralHash(const Expr& expr) {
  Hasher hasher;
  hasher.ExprHash(expr);
  return hasher.value();
}

}  // namespace pipesplit::analysis
