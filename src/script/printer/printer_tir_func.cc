// Printer: a TIR function's signature (classic: buffers of params whose shapes need no new var
// inline, others T.handle params matched in the body; since 2026: every buffer inline, the dim
// that introduces a var quoted, int64 shape vars module-level TypeVars), its body with TVM's
// implicit root block, and the entry points (printer_tir.h). Frames, names, expressions and
// buffers are in printer_tir.cc; statements in printer_tir_stmt.cc.
#include <algorithm>
#include <cctype>

#include "pipesplit/ir/prim_text.h"
#include "pipesplit/support/text.h"
#include "src/script/printer/printer_tir_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::PrimExpr;

// Whether a statement holds a realized block (TVM's test for an implicit root block).
bool ContainsBlock(const ir::Stmt& s) {
  class Finder : public ir::StmtVisitor {
   public:
    bool found = false;
    void VisitStmt_(const ir::BlockRealizeNode&) override { found = true; }
  };
  Finder finder;
  finder.VisitStmt(s);
  return finder.found;
}

bool IsImplicitRoot(const ir::Stmt& s) {
  const auto* realize = ir::As<ir::BlockRealizeNode>(s);
  if (realize == nullptr) return false;
  const ir::BlockNode& b = *realize->block();
  if (!(realize->iter_values().empty() && b.reads().empty() && b.writes().empty() &&
        b.init() == nullptr && b.match_buffers().empty() && b.annotations().empty() &&
        IsConst(realize->predicate(), 1))) {
    return false;
  }
  // TVM's rule (the one its parser inserts the root block by).
  if (!b.alloc_buffers().empty()) return true;
  if (const auto* inner = ir::As<ir::BlockRealizeNode>(b.body())) {
    return !inner->block()->iter_vars().empty();
  }
  return ContainsBlock(b.body());
}

}  // namespace

// ---- Functions ----

std::string TirPrinter::Signature(const ir::PrimFuncNode& f, std::vector<std::string>* type_vars) {
  // TVM since 2026: the int64 vars of param buffers that are no param are TypeVars, defined
  // first; scalar params next (a buffer may name a later one); then each buffer inline.
  VarSet runtime_params;
  for (const ir::TirVar& p : f.params()) runtime_params.insert(p.get());
  std::vector<const ir::TirVarNode*> tvs;
  VarSet tv_set;
  auto collect = [&](const PrimExpr& e) {
    if (e == nullptr) return;
    for (const ir::TirVar& v : ir::FreeTirVars(e)) {
      if (!runtime_params.count(v.get()) && v->dtype() == DataType::Int(64) &&
          tv_set.insert(v.get()).second) {
        tvs.push_back(v.get());
      }
    }
  };
  for (const ir::TirVar& p : f.params()) {
    const ir::Buffer* b = f.BufferOf(p.get());
    if (b == nullptr) continue;
    for (const PrimExpr& e : (*b)->shape()) collect(e);
    for (const PrimExpr& e : (*b)->strides()) collect(e);
    collect((*b)->elem_offset());
  }
  std::sort(tvs.begin(), tvs.end(),
            [](const ir::TirVarNode* a, const ir::TirVarNode* b) { return a->name() < b->name(); });
  std::vector<std::string> tv_names;
  tv_names.reserve(tvs.size());
  for (const ir::TirVarNode* v : tvs) tv_names.push_back(Define(v, v->name(), 0));
  std::sort(tv_names.begin(), tv_names.end());
  if (options_.reserved_names != nullptr) {
    taken_.insert(options_.reserved_names->begin(), options_.reserved_names->end());
  }
  bool postponed = options_.pep695 && !tvs.empty();
  for (const ir::TirVar& p : f.params()) {
    if (f.BufferOf(p.get()) == nullptr) Define(p.get(), p->name(), 0);
  }
  VarSet bound;
  std::vector<std::string> params;
  for (const ir::TirVar& p : f.params()) {
    const ir::Buffer* found = f.BufferOf(p.get());
    if (found == nullptr) {
      params.push_back(names_.at(p.get()) + ": T." + p->dtype().ToString());
      bound.insert(p.get());
      continue;
    }
    const ir::BufferNode& b = **found;
    VarSet quote_vars, quote_compound, shape_vars;
    for (const PrimExpr& e : b.shape()) {
      ir::VisitTirVars(e, [&](const ir::TirVar& v) {
        shape_vars.insert(v.get());
        bool is_tv = tv_set.count(v.get()) != 0;
        if (!postponed && !bound.count(v.get()) && !is_tv) quote_vars.insert(v.get());
        if (!postponed && is_tv) quote_compound.insert(v.get());
      });
    }
    std::string name = DefineBuffer(b, 0);
    params.push_back(
        name + ": T.Buffer(" +
        BufferArgs(b, 0, BufferVars::kMatchBuffer, true, true, true, &quote_vars, &quote_compound) +
        ")");
    bound.insert(shape_vars.begin(), shape_vars.end());
  }
  if (type_vars != nullptr) *type_vars = tv_names;
  std::string head = f.name();
  if (postponed) head += "[" + Join(tv_names) + "]";
  return head + "(" + Join(params) + ")";
}

std::string TirPrinter::ClassicSignature(const ir::PrimFuncNode& f) {
  // A buffer param prints inline when its shape uses only params declared before it; the
  // others are T.handle params matched in the body (Function prints the match_buffer lines).
  std::unordered_set<const void*> defined;
  std::vector<std::string> params;
  for (const ir::TirVar& p : f.params()) {
    const ir::Buffer* buffer = f.BufferOf(p.get());
    bool inline_buffer =
        buffer != nullptr && (*buffer)->scope() == "global" && (*buffer)->has_default_layout();
    if (buffer != nullptr) {
      for (const PrimExpr& d : (*buffer)->shape()) {
        ir::VisitTirVars(
            d, [&](const ir::TirVar& v) { inline_buffer &= defined.count(v.get()) != 0; });
      }
    }
    defined.insert(p.get());
    if (inline_buffer) {
      // The param is the buffer (one name).
      std::string name = DefineBuffer(**buffer, 0);
      DefineAs(p.get(), name, 0);
      params.push_back(name + ": T.Buffer(" +
                       BufferArgs(**buffer, 0, BufferVars::kNone, true, false, true) + ")");
    } else {
      params.push_back(Define(p.get(), p->name(), 0) + ": T." + p->dtype().ToString());
    }
  }
  return f.name() + "(" + Join(params) + ")";
}

std::string TirPrinter::Function(const ir::PrimFuncNode& f, std::vector<std::string>* type_vars) {
  func_ = &f;
  OpenFrame(&f, 1);
  std::vector<std::string> kwargs;
  if (f.is_private()) kwargs.push_back("private=True");
  if (options_.sblock && (f.s_tir() || (options_.s_tir_for_blocks && ContainsBlock(f.body())))) {
    kwargs.push_back("s_tir=True");
  }
  std::string decorator = kwargs.empty() ? "@T.prim_func" : "@T.prim_func(" + Join(kwargs) + ")";
  std::string signature = options_.quoted_signature ? Signature(f, type_vars) : ClassicSignature(f);
  Emit(0, decorator);
  Emit(0, "def " + signature + ":");
  if (!f.attrs().empty()) {
    BeginStmt();
    Line("T.func_attr(" + AttrDict(f.attrs()) + ")");
  }
  if (!options_.quoted_signature) {
    // The params not printed inline: the vars their shapes introduce, then a match_buffer.
    for (const ir::TirVar& p : f.params()) {
      const ir::Buffer* found = f.BufferOf(p.get());
      if (found == nullptr || IsDefined(found->get())) continue;
      const ir::BufferNode& b = **found;
      BeginStmt();
      std::string name = DefineBuffer(b, 0);
      Line(name + " = T.match_buffer(" + names_.at(p.get()) + ", " +
           BufferArgs(b, 0, BufferVars::kMatchBuffer, false, false, true) + ")");
    }
  }
  if (IsImplicitRoot(f.body())) {
    const ir::BlockNode& root = *ir::As<ir::BlockRealizeNode>(f.body())->block();
    BeginStmt();
    Line(std::string("# with T.") + BlockWord() + "(\"root\"):");
    for (const ir::Buffer& b : root.alloc_buffers()) {
      BeginStmt();
      std::string name = DefineBuffer(*b, 0);
      Line(name + " = " +
           AllocBufferDecl(*b, options_.sblock ? "sblock_alloc_buffer" : "alloc_buffer"));
    }
    Body(root.body(), true);
  } else {
    Body(f.body(), true);
  }
  CloseFrame();
  if (!out_.empty() && out_.back() == '\n') out_.pop_back();
  return std::move(out_);
}

std::string TirPrinter::AllocBufferDecl(const ir::BufferNode& b, const char* method) {
  std::string name = method;
  bool print_scope = true;
  if (name == "alloc_statement") {
    // An allocation statement (TVM since 2026): shared and local ones have their own spelling.
    name = b.scope() == "shared"  ? "alloc_shared"
           : b.scope() == "local" ? "alloc_local"
                                  : "alloc_buffer";
    print_scope = name == "alloc_buffer";
  }
  return "T." + name + "(" + BufferArgs(b, Top(), BufferVars::kData, false, false, print_scope) +
         ")";
}

std::string PrintTirFunction(const ir::PrimFuncNode& func, const TirPrintOptions& options,
                             std::vector<std::string>* type_vars) {
  return TirPrinter(options).Function(func, type_vars);
}

std::string TirExprText(const PrimExpr& e) {
  return ir::FormatPrimExpr(e, ir::PrimTextOptions::Tir()).text;
}

}  // namespace pipesplit::script::printer
