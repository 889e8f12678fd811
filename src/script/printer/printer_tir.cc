// Printer: TIR functions, statements, loops and blocks, as TVM prints them (classic syntax).
//
// TVM's sugar is reproduced from the IR: buffers of params whose shapes need no new symbolic
// var print inline as `A: T.Buffer(...)`, others as `T.handle` params matched in the body after
// a declaration of the vars they introduce; the implicit root block prints as the comment
// `# with T.block("root"):` followed by its allocations; perfectly nested serial loops from 0
// print as `T.grid`; consecutive block vars bound to their loops print as `T.axis.remap`.
#include "src/script/printer/printer_tir.h"

#include <unordered_map>
#include <unordered_set>

#include "pipesplit/ir/prim_text.h"
#include "pipesplit/ir/tir_functor.h"
#include "pipesplit/support/text.h"
#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::PrimExpr;

bool IsConst(const PrimExpr& e, int64_t value) {
  std::optional<int64_t> c = ir::AsConstInt(e);
  return c && *c == value;
}

bool MentionsAny(const PrimExpr& e, const std::unordered_set<const ir::TirVarNode*>& vars) {
  bool found = false;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) { found |= vars.count(v.get()) != 0; });
  return found;
}

std::string Tuple(const std::vector<std::string>& items) {
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() == 1) out += ',';
  return out + ")";
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out;
}

// Whether a statement holds a realized block (TVM's test for an implicit root block).
class BlockFinder : public ir::StmtFunctor<bool(const ir::StmtNode&)> {
 private:
  bool Find(const ir::Stmt& s) { return s != nullptr && VisitStmt(*s); }

  bool VisitStmt_(const ir::BlockRealizeNode&) override { return true; }
  bool VisitStmt_(const ir::BlockNode& n) override { return Find(n.init()) || Find(n.body()); }
  bool VisitStmt_(const ir::SeqStmtNode& n) override {
    for (const ir::Stmt& item : n.seq()) {
      if (Find(item)) return true;
    }
    return false;
  }
  bool VisitStmt_(const ir::ForNode& n) override { return Find(n.body()); }
  bool VisitStmt_(const ir::LetStmtNode& n) override { return Find(n.body()); }
  bool VisitStmt_(const ir::AllocateNode& n) override { return Find(n.body()); }
  bool VisitStmt_(const ir::DeclBufferNode& n) override { return Find(n.body()); }
  bool VisitStmt_(const ir::IfThenElseNode& n) override {
    return Find(n.then_case()) || Find(n.else_case());
  }
  bool VisitStmt_(const ir::BufferStoreNode&) override { return false; }
  bool VisitStmt_(const ir::EvaluateNode&) override { return false; }
};

bool ContainsBlock(const ir::StmtNode& s) { return BlockFinder().VisitStmt(s); }

bool IsImplicitRoot(const ir::StmtNode& s) {
  const auto* realize = ir::As<ir::BlockRealizeNode>(&s);
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
  return ContainsBlock(*b.body());
}

// Each statement kind prints through its own handler.
class TirPrinter : private ir::StmtFunctor<void(const ir::StmtNode&)> {
 public:
  explicit TirPrinter(const TirPrintOptions& options)
      : options_(options), text_options_(ir::PrimTextOptions::Tir([this](const ir::TirVarNode& v) {
          // A buffer's data pointer prints as `A.data`.
          auto it = data_names_.find(&v);
          return it != data_names_.end() ? it->second : v.name();
        })) {
    // TVM since 2026 prints a float with an integral value with one decimal: T.float32(0.0).
    text_options_.tir_float_point = options.sblock;
  }
  std::string Function(const ir::PrimFuncNode& f);

 private:
  void Line(const std::string& text) {
    if (!out_.empty()) out_ += '\n';
    out_.append(static_cast<size_t>(indent_) * 4, ' ');
    out_ += text;
  }
  void Indented(const ir::Stmt& s) {
    ++indent_;
    Stmt(s);
    --indent_;
  }
  void Stmt(const ir::Stmt& s) { VisitStmt(*s); }
  void VisitStmt_(const ir::ForNode& loop) override;
  void VisitStmt_(const ir::BlockRealizeNode& realize) override {
    Realize(*realize.block(), realize.iter_values(), realize.predicate(), false);
  }
  // A block without its realize prints with no_realize=True.
  void VisitStmt_(const ir::BlockNode& block) override {
    Realize(block, {}, ir::BoolImm(true), true);
  }
  void VisitStmt_(const ir::SeqStmtNode& seq) override {
    for (const ir::Stmt& item : seq.seq()) Stmt(item);
  }
  void VisitStmt_(const ir::BufferStoreNode& store) override;
  void VisitStmt_(const ir::LetStmtNode& let) override;
  void VisitStmt_(const ir::IfThenElseNode& branch) override;
  void VisitStmt_(const ir::EvaluateNode& evaluate) override;
  void VisitStmt_(const ir::AllocateNode& alloc) override;
  void VisitStmt_(const ir::DeclBufferNode& decl) override;
  void Realize(const ir::BlockNode& b, const std::vector<PrimExpr>& iter_values,
               const PrimExpr& predicate, bool no_realize);
  void IterVars(const ir::BlockNode& block, const std::vector<PrimExpr>& values);
  std::string Region(const ir::BufferRegion& r);
  std::string AllocBuffer(const ir::Buffer& b);

  std::string Text(const PrimExpr& e) const { return ir::FormatPrimExpr(e, text_options_).text; }
  std::string Shape(const std::vector<PrimExpr>& shape) {
    std::vector<std::string> dims;
    for (const PrimExpr& d : shape) dims.push_back(Text(d));
    return Tuple(dims);
  }

  // The end of [min, min + extent): the stop as written when the extent was derived from it.
  std::string Stop(const PrimExpr& min, const PrimExpr& extent) {
    if (const auto* sub = ir::As<ir::BinaryNode>(extent)) {
      if (sub->op() == ir::BinaryOp::kSub && sub->b() == min) return Text(sub->a());
    }
    auto a = ir::AsConstInt(min), b = ir::AsConstInt(extent);
    if (a && b) return Text(ir::IntImm(*a + *b, extent->dtype()));
    if (a && *a == 0) return Text(extent);
    return Text(ir::MakeBinary(ir::BinaryOp::kAdd, min, extent));
  }

  std::string Attr(const ir::AttrValue& value) {
    if (const PrimExpr* e = value.as_prim_expr()) {
      // TVM since 2026 keeps `True` in an attribute dict a Python bool.
      const auto* imm = ir::As<ir::IntImmNode>(*e);
      if (options_.sblock && imm != nullptr && imm->dtype().is_bool()) {
        return imm->value() != 0 ? "True" : "False";
      }
      return Text(*e);
    }
    if (const std::string* s = value.as_string()) return QuoteString(*s);
    if (const bool* b = value.as_bool()) return *b ? "True" : "False";
    if (const int64_t* i = value.as_int()) return std::to_string(*i);
    if (const double* d = value.as_float()) return FloatLiteral(*d);
    if (const ir::AttrList* list = value.as_list()) {
      std::vector<std::string> items;
      for (const ir::AttrValue& v : *list) items.push_back(Attr(v));
      return "[" + Join(items) + "]";
    }
    if (const ir::AttrMap* map = value.as_map()) {
      std::vector<std::string> items;
      for (const auto& [k, v] : *map) items.push_back(QuoteString(k) + ": " + Attr(v));
      return "{" + Join(items) + "}";
    }
    return "None";
  }

  std::string AttrDict(const ir::AttrMap& map) { return Attr(ir::AttrValue(map)); }

  const char* BlockWord() const { return options_.sblock ? "sblock" : "block"; }

  void Declare(const ir::Buffer& b) { data_names_[b->data().get()] = b->name() + ".data"; }

  TirPrintOptions options_;
  std::unordered_map<const ir::TirVarNode*, std::string> data_names_;
  ir::PrimTextOptions text_options_;
  std::string out_;
  int indent_ = 0;
  std::unordered_map<const ir::TirVarNode*, const ir::ForNode*> loops_;
};

std::string TirPrinter::AllocBuffer(const ir::Buffer& b) {
  Declare(b);
  std::string out = b->name() +
                    (options_.sblock ? " = T.sblock_alloc_buffer(" : " = T.alloc_buffer(") +
                    Shape(b->shape());
  if (b->dtype() != DataType::Float(32)) out += ", " + QuoteString(b->dtype().ToString());
  if (b->scope() != "global") out += ", scope=" + QuoteString(b->scope());
  return out + ")";
}

std::string TirPrinter::Function(const ir::PrimFuncNode& f) {
  std::vector<std::string> kwargs;
  if (f.is_private()) kwargs.push_back("private=True");
  if (options_.sblock && (f.s_tir() || (options_.s_tir_for_blocks && ContainsBlock(*f.body())))) {
    kwargs.push_back("s_tir=True");
  }
  Line(kwargs.empty() ? "@T.prim_func" : "@T.prim_func(" + Join(kwargs) + ")");
  // A buffer param prints inline when its shape uses only params declared before it.
  std::unordered_set<const ir::TirVarNode*> defined;
  std::unordered_set<const ir::BufferNode*> inlined;
  for (const ir::TirVar& p : f.params()) {
    if (const ir::Buffer* buffer = f.BufferOf(p.get())) {
      bool simple = (*buffer)->scope() == "global";
      for (const PrimExpr& d : (*buffer)->shape()) {
        ir::VisitTirVars(d, [&](const ir::TirVar& v) { simple &= defined.count(v.get()) != 0; });
      }
      if (simple) inlined.insert(buffer->get());
    }
    defined.insert(p.get());
  }
  for (const auto& entry : f.buffer_map()) Declare(entry.second);
  std::vector<std::string> params;
  for (const ir::TirVar& p : f.params()) {
    const ir::Buffer* buffer = f.BufferOf(p.get());
    if (buffer != nullptr && inlined.count(buffer->get())) {
      params.push_back((*buffer)->name() + ": T.Buffer(" + Shape((*buffer)->shape()) + ", " +
                       QuoteString((*buffer)->dtype().ToString()) + ")");
    } else {
      params.push_back(p->name() + ": T." + p->dtype().ToString());
    }
  }
  Line("def " + f.name() + "(" + Join(params) + "):");
  ++indent_;
  if (!f.attrs().empty()) Line("T.func_attr(" + AttrDict(f.attrs()) + ")");
  for (const ir::TirVar& p : f.params()) {
    const ir::Buffer* found = f.BufferOf(p.get());
    if (found == nullptr || inlined.count(found->get())) continue;
    const ir::Buffer& b = *found;
    // The symbolic vars this buffer introduces, declared together before it.
    std::vector<const ir::TirVarNode*> fresh;
    for (const PrimExpr& d : b->shape()) {
      ir::VisitTirVars(d, [&](const ir::TirVar& v) {
        if (defined.insert(v.get()).second) fresh.push_back(v.get());
      });
    }
    if (!fresh.empty()) {
      std::vector<std::string> names, decls;
      for (const ir::TirVarNode* v : fresh) {
        names.push_back(v->name());
        decls.push_back("T." + v->dtype().ToString() +
                        (v->is_size_var() ? "(is_size_var=True)" : "()"));
      }
      Line(Join(names) + " = " + Join(decls));
    }
    std::string line = b->name() + " = T.match_buffer(" + p->name() + ", " + Shape(b->shape());
    if (b->dtype() != DataType::Float(32)) line += ", " + QuoteString(b->dtype().ToString());
    if (b->scope() != "global") line += ", scope=" + QuoteString(b->scope());
    Line(line + ")");
  }
  if (IsImplicitRoot(*f.body())) {
    const ir::BlockNode& root = *ir::As<ir::BlockRealizeNode>(f.body())->block();
    Line(std::string("# with T.") + BlockWord() + "(\"root\"):");
    for (const ir::Buffer& b : root.alloc_buffers()) Line(AllocBuffer(b));
    Stmt(root.body());
  } else {
    Stmt(f.body());
  }
  --indent_;
  return std::move(out_);
}

std::string TirPrinter::Region(const ir::BufferRegion& r) {
  std::vector<std::string> dims;
  for (const ir::Range& range : r.region) {
    if (IsConst(range.extent, 1)) {
      dims.push_back(Text(range.min));
    } else {
      dims.push_back(Text(range.min) + ":" + Stop(range.min, range.extent));
    }
  }
  return r.buffer->name() + "[" + (dims.empty() ? "()" : Join(dims)) + "]";
}

void TirPrinter::VisitStmt_(const ir::BufferStoreNode& n) {
  std::vector<std::string> idx;
  for (const PrimExpr& i : n.indices()) idx.push_back(Text(i));
  Line(n.buffer()->name() + "[" + (idx.empty() ? "()" : Join(idx)) + "] = " + Text(n.value()));
}

void TirPrinter::VisitStmt_(const ir::LetStmtNode& n) {
  std::string type = "T." + n.var()->dtype().ToString();
  if (options_.sblock) type = "T.let[" + type + "]";  // TVM since 2026
  Line(n.var()->name() + ": " + type + " = " + Text(n.value()));
  Stmt(n.body());
}

void TirPrinter::VisitStmt_(const ir::IfThenElseNode& n) {
  Line("if " + Text(n.cond()) + ":");
  Indented(n.then_case());
  if (n.else_case() != nullptr) {
    Line("else:");
    Indented(n.else_case());
  }
}

void TirPrinter::VisitStmt_(const ir::EvaluateNode& n) {
  // As TVM: a call stands as a statement by itself (`T.assume(...)`).
  const PrimExpr& value = n.value();
  Line(ir::Is<ir::PrimCallNode>(value) ? Text(value) : "T.evaluate(" + Text(value) + ")");
}

void TirPrinter::VisitStmt_(const ir::AllocateNode& n) {
  std::vector<std::string> extents;
  for (const PrimExpr& e : n.extents()) extents.push_back(Text(e));
  Line(n.buffer_var()->name() + " = T.allocate([" + Join(extents) + "], " +
       QuoteString(n.dtype().ToString()) + ", " + QuoteString(n.scope()) + ")");
  Stmt(n.body());
}

void TirPrinter::VisitStmt_(const ir::DeclBufferNode& n) {
  const ir::Buffer& b = n.buffer();
  Declare(b);
  std::string line = b->name() + " = T.decl_buffer(" + Shape(b->shape());
  if (b->dtype() != DataType::Float(32)) line += ", " + QuoteString(b->dtype().ToString());
  if (b->scope() != "global") line += ", scope=" + QuoteString(b->scope());
  Line(line + ")");
  Stmt(n.body());
}

void TirPrinter::VisitStmt_(const ir::ForNode& loop) {
  auto plain = [](const ir::ForNode& l) {
    return l.for_kind() == ir::ForKind::kSerial && IsConst(l.min(), 0) && l.annotations().empty();
  };
  std::vector<const ir::ForNode*> grid{&loop};
  if (plain(loop)) {
    std::unordered_set<const ir::TirVarNode*> vars{loop.loop_var().get()};
    while (const auto* inner = ir::As<ir::ForNode>(grid.back()->body())) {
      if (!plain(*inner) || MentionsAny(inner->extent(), vars)) break;
      grid.push_back(inner);
      vars.insert(inner->loop_var().get());
    }
  }
  for (const ir::ForNode* l : grid) loops_[l->loop_var().get()] = l;
  if (grid.size() > 1) {
    std::vector<std::string> names, extents;
    for (const ir::ForNode* l : grid) {
      names.push_back(l->loop_var()->name());
      extents.push_back(Text(l->extent()));
    }
    Line("for " + Join(names) + " in T.grid(" + Join(extents) + "):");
  } else {
    std::string args = IsConst(loop.min(), 0)
                           ? Text(loop.extent())
                           : Text(loop.min()) + ", " + Stop(loop.min(), loop.extent());
    std::string fn;
    switch (loop.for_kind()) {
      case ir::ForKind::kSerial:
        fn = loop.annotations().empty() ? "range" : "T.serial";
        break;
      case ir::ForKind::kParallel:
        fn = "T.parallel";
        break;
      case ir::ForKind::kVectorized:
        fn = "T.vectorized";
        break;
      case ir::ForKind::kUnrolled:
        fn = "T.unroll";
        break;
      case ir::ForKind::kThreadBinding:
        fn = "T.thread_binding";
        args += ", thread=" + QuoteString(loop.thread_tag());
        break;
    }
    if (!loop.annotations().empty()) args += ", annotations=" + AttrDict(loop.annotations());
    Line("for " + loop.loop_var()->name() + " in " + fn + "(" + args + "):");
  }
  Indented(grid.back()->body());
  for (const ir::ForNode* l : grid) loops_.erase(l->loop_var().get());
}

void TirPrinter::IterVars(const ir::BlockNode& block, const std::vector<PrimExpr>& values) {
  std::vector<size_t> remap;
  auto single = [&](size_t i) {
    const ir::IterVar& iv = block.iter_vars()[i];
    static const char* const kKinds[] = {"spatial", "reduce", "scan", "opaque"};
    std::string dom = IsConst(iv.dom.min, 0)
                          ? Text(iv.dom.extent)
                          : "(" + Text(iv.dom.min) + ", " + Stop(iv.dom.min, iv.dom.extent) + ")";
    std::string value = i < values.size() ? ", " + Text(values[i]) : "";
    Line(iv.var->name() + " = T.axis." + kKinds[static_cast<int>(iv.type)] + "(" + dom + value +
         ")");
  };
  auto flush = [&]() {
    if (remap.size() == 1) single(remap[0]);
    if (remap.size() > 1) {
      std::vector<std::string> names, loop_vars;
      std::string kinds;
      for (size_t i : remap) {
        const ir::IterVar& iv = block.iter_vars()[i];
        names.push_back(iv.var->name());
        loop_vars.push_back(Text(values[i]));
        kinds += iv.type == ir::IterVarType::kDataPar ? 'S' : 'R';
      }
      Line(Join(names) + " = T.axis.remap(\"" + kinds + "\", [" + Join(loop_vars) + "])");
    }
    remap.clear();
  };
  for (size_t i = 0; i < block.iter_vars().size(); ++i) {
    const ir::IterVar& iv = block.iter_vars()[i];
    bool remappable = false;
    if (i < values.size() &&
        (iv.type == ir::IterVarType::kDataPar || iv.type == ir::IterVarType::kCommReduce)) {
      if (const auto* v = ir::As<ir::TirVarNode>(values[i])) {
        auto it = loops_.find(v);
        remappable = it != loops_.end() && Text(it->second->min()) == Text(iv.dom.min) &&
                     Text(it->second->extent()) == Text(iv.dom.extent);
      }
    }
    if (remappable) {
      remap.push_back(i);
    } else {
      flush();
      single(i);
    }
  }
  flush();
}

void TirPrinter::Realize(const ir::BlockNode& b, const std::vector<PrimExpr>& iter_values,
                         const PrimExpr& predicate, bool no_realize) {
  Line(std::string("with T.") + BlockWord() + "(" + QuoteString(b.name_hint()) +
       (no_realize ? ", no_realize=True):" : "):"));
  ++indent_;
  IterVars(b, iter_values);
  if (!IsConst(predicate, 1)) Line("T.where(" + Text(predicate) + ")");
  std::vector<std::string> reads, writes;
  for (const ir::BufferRegion& r : b.reads()) reads.push_back(Region(r));
  for (const ir::BufferRegion& r : b.writes()) writes.push_back(Region(r));
  Line("T.reads(" + Join(reads) + ")");
  Line("T.writes(" + Join(writes) + ")");
  if (!b.annotations().empty()) {
    Line(std::string("T.") + BlockWord() + "_attr(" + AttrDict(b.annotations()) + ")");
  }
  for (const ir::Buffer& buffer : b.alloc_buffers()) Line(AllocBuffer(buffer));
  for (const ir::MatchBufferRegion& m : b.match_buffers()) {
    Declare(m.buffer);
    std::string line = m.buffer->name() + " = T.match_buffer(" + Region(m.source) + ", " +
                       Shape(m.buffer->shape());
    if (m.buffer->dtype() != DataType::Float(32)) {
      line += ", " + QuoteString(m.buffer->dtype().ToString());
    }
    Line(line + ")");
  }
  if (b.init() != nullptr) {
    Line("with T.init():");
    Indented(b.init());
  }
  Stmt(b.body());
  --indent_;
}

}  // namespace

std::string TirExprText(const PrimExpr& e) {
  return ir::FormatPrimExpr(e, ir::PrimTextOptions::Tir()).text;
}

std::string PrintTirFunction(const ir::PrimFuncNode& func, const TirPrintOptions& options) {
  return TirPrinter(options).Function(func);
}

}  // namespace pipesplit::script::printer
