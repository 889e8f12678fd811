// The comparer behind StructuralEqual (see structural_equal.cc): a lock-step walk of two IR
// trees that pairs definitions, keeps the path to the current node, and records the first
// difference. Split over structural_equal.cc (expressions, bindings, functions, modules) and
// structural_equal_values.cc (struct info, symbolic expressions, attribute values).
#ifndef PIPESPLIT_SRC_ANALYSIS_STRUCTURAL_COMPARER_H_
#define PIPESPLIT_SRC_ANALYSIS_STRUCTURAL_COMPARER_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/script/printer.h"
#include "src/analysis/attr_canon.h"

namespace pipesplit::analysis::structural {

using namespace ir;  // NOLINT: private header; IR node names throughout

// Relax nesting deeper than this compares unequal instead of recursing further. The parser caps
// nesting at ParseOptions::max_depth (200) and passes build shallow IR; the bound keeps the
// recursion well inside the stack even in sanitizer builds, whose frames are several times larger.
// StructuralHash uses the same bound.
inline constexpr int kMaxDepth = 512;

bool FloatEqual(double a, double b);
inline std::string Missing() { return "<missing>"; }
// "line K: <text>" for the first line where two texts differ, from the side `lhs` selects.
std::string FirstDifferingLine(const std::string& a, const std::string& b, bool lhs);

class Comparer {
 public:
  Comparer(bool map_free_vars, StructuralDifference* difference)
      : map_free_vars_(map_free_vars), difference_(difference) {}

  // The path segment every reported path starts with (a module member's name).
  void SetRoot(std::string root) { root_ = std::move(root); }
  void Reset() {
    var_l2r_.clear();
    var_r2l_.clear();
    tir_l2r_.clear();
    tir_r2l_.clear();
  }

  // Reports a difference found outside the walk (module-level).
  bool FailAt(std::string path, std::string lhs, std::string rhs) {
    if (difference_ != nullptr) {
      difference_->path = std::move(path);
      difference_->lhs = std::move(lhs);
      difference_->rhs = std::move(rhs);
    }
    return false;
  }

  bool ExprEq(const Expr& l, const Expr& r);
  bool SInfoEq(const StructInfo& l, const StructInfo& r, bool def);
  bool PrimEq(const PrimExpr& l, const PrimExpr& r, bool def);
  bool AttrEq(const AttrValue& l, const AttrValue& r);
  bool AttrsEq(const CanonicalAttrs& l, const CanonicalAttrs& r);
  bool LambdaEq(const AttrCall& a, const AttrCall& b, const std::vector<const TirVarNode*>& params);

 private:
  // ---- Paths: segments are kept cheaply and turned into text only on failure. ----
  struct Segment {
    const char* field;     // ".name" or nullptr
    size_t index;          // used when field == nullptr and key is empty
    std::string_view key;  // ["key"] when non-empty
    bool is_key;
  };
  class Step {
   public:
    Step(Comparer* c, const char* field) : c_(c) { c->path_.push_back({field, 0, {}, false}); }
    Step(Comparer* c, size_t index) : c_(c) { c->path_.push_back({nullptr, index, {}, false}); }
    Step(Comparer* c, std::string_view key) : c_(c) { c->path_.push_back({nullptr, 0, key, true}); }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;
    ~Step() { c_->path_.pop_back(); }

   private:
    Comparer* c_;
  };

  std::string PathText() const {
    std::string out = root_;
    for (const Segment& s : path_) {
      if (s.field != nullptr) {
        out += s.field;
      } else if (s.is_key) {
        out += "[\"" + std::string(s.key) + "\"]";
      } else {
        out += "[" + std::to_string(s.index) + "]";
      }
    }
    if (!out.empty() && out[0] == '.') out.erase(0, 1);
    return out;
  }

  bool Fail(std::string lhs, std::string rhs) {
    if (difference_ != nullptr) {
      difference_->path = PathText();
      difference_->lhs = std::move(lhs);
      difference_->rhs = std::move(rhs);
    }
    return false;
  }
  bool Fail(const Expr& l, const Expr& r) {
    return difference_ ? Fail(script::PrintShort(l), script::PrintShort(r)) : false;
  }
  bool Fail(const StructInfo& l, const StructInfo& r) {
    return difference_ ? Fail(script::PrintShort(l), script::PrintShort(r)) : false;
  }
  bool Fail(const PrimExpr& l, const PrimExpr& r) {
    if (difference_ == nullptr) return false;
    std::string a = script::PrintShort(l), b = script::PrintShort(r);
    if (a == b && l && r && l->dtype() != r->dtype()) {  // same text: show the dtypes
      a += " (" + l->dtype().ToString() + ")";
      b += " (" + r->dtype().ToString() + ")";
    }
    return Fail(std::move(a), std::move(b));
  }
  bool FailBool(bool l, bool r) { return Fail(l ? "True" : "False", r ? "True" : "False"); }

  // Compares two sequences element by element, then their lengths; the first extra element is
  // reported as missing on the other side.
  template <typename T, typename Eq, typename Render>
  bool SeqEq(const char* field, const std::vector<T>& l, const std::vector<T>& r, Eq&& eq,
             Render&& render) {
    Step step(this, field);
    size_t common = std::min(l.size(), r.size());
    for (size_t i = 0; i < common; ++i) {
      Step item(this, i);
      if (!eq(l[i], r[i])) return false;
    }
    if (l.size() == r.size()) return true;
    Step item(this, common);
    if (difference_ == nullptr) return false;
    return l.size() > r.size() ? Fail(render(l[common]), Missing())
                               : Fail(Missing(), render(r[common]));
  }

  bool VarDefEq(const Var& l, const Var& r);
  bool VarUseEq(const VarNode* l, const VarNode* r);
  bool TirVarEq(const TirVarNode* l, const TirVarNode* r, bool def);
  bool BindingEq(const Binding& l, const Binding& r);
  bool BlockEq(const BindingBlock& l, const BindingBlock& r);
  bool CallEq(const CallNode& l, const CallNode& r);
  bool FunctionEq(const FunctionNode& l, const FunctionNode& r);
  bool FunctionBodyEq(const FunctionNode& l, const FunctionNode& r);
  bool ConstantEq(const Expr& l, const Expr& r);
  bool ExprSInfoEq(const Expr& l, const Expr& r) {
    Step step(this, ".struct_info");
    return SInfoEq(l->struct_info(), r->struct_info(), false);
  }

  bool map_free_vars_;
  // Inside a Relax function every symbolic var belongs to the function (bound by a param, a
  // match_cast, or declared `m = T.int64()` in its body): two such vars pair at their first
  // occurrence wherever it is, one-to-one as always.
  bool in_function_ = false;
  bool in_op_attrs_ = false;  // comparing a call's attrs: numbers compare by value
  StructuralDifference* difference_;
  std::string root_;
  std::vector<Segment> path_;
  int depth_ = 0;
  std::vector<std::pair<const PrimExprNode*, const PrimExprNode*>> prim_stack_;  // PrimEq
  std::unordered_map<const VarNode*, const VarNode*> var_l2r_, var_r2l_;
  std::unordered_map<const TirVarNode*, const TirVarNode*> tir_l2r_, tir_r2l_;

  friend class DepthGuard;
};

// Counts recursion depth; the walk gives up (unequal) past kMaxDepth.
class DepthGuard {
 public:
  explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  ~DepthGuard() { --*depth_; }
  bool too_deep() const { return *depth_ > kMaxDepth; }

 private:
  int* depth_;
};

}  // namespace pipesplit::analysis::structural

#endif  // PIPESPLIT_SRC_ANALYSIS_STRUCTURAL_COMPARER_H_
