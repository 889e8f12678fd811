// Printer: TIR functions as TVM prints them: buffers and their layout keywords, expressions,
// the frames and the names defined in them, and the declaration of what is printed before its
// definition. Signatures and functions are in printer_tir_func.cc, statements in
// printer_tir_stmt.cc.
#include <algorithm>
#include <cctype>

#include "pipesplit/ir/prim_text.h"
#include "pipesplit/support/text.h"
#include "src/script/printer/printer_tir_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::PrimExpr;

std::string Tuple(const std::vector<std::string>& items) {
  return "(" + Join(items) + (items.size() == 1 ? ",)" : ")");
}

// Records, for every var and buffer of a function, the frame nodes (the function, loops,
// blocks, T.init, if branches, whiles, attribute statements) on the path to the lowest node
// enclosing all its uses, in the order TVM's common-prefix visitor sees them: a node is on the
// path while its fields are visited, a buffer's shape, strides and offset are visited where
// the buffer is first met.
class PathCollector : private ir::StmtVisitor {
 public:
  PathCollector(std::unordered_map<const void*, std::vector<const void*>>* paths,
                std::unordered_map<const ir::TirVarNode*, const ir::BufferNode*>* data_owner)
      : paths_(paths), data_owner_(data_owner) {}

  void Run(const ir::PrimFuncNode& f) {
    stack_.push_back(&f);
    for (const ir::TirVar& p : f.params()) {
      Use(p.get());
      if (const ir::Buffer* b = f.BufferOf(p.get())) Buffer(*b);
    }
    Stmt(f.body());
  }

 private:
  void Use(const void* key) {
    auto [it, inserted] = paths_->try_emplace(key);
    if (inserted) {
      it->second = stack_;
      return;
    }
    std::vector<const void*>& path = it->second;
    size_t n = std::min(path.size(), stack_.size());
    for (size_t i = 0; i < n; ++i) {
      if (path[i] != stack_[i]) {
        path.resize(i);
        return;
      }
    }
    path.resize(n);
  }
  void Buffer(const ir::Buffer& b) {
    bool first = !paths_->count(b.get());
    Use(b.get());
    if (!first) return;
    (*data_owner_)[b->data().get()] = b.get();
    for (const PrimExpr& d : b->shape()) Expr(d);
    for (const PrimExpr& s : b->strides()) Expr(s);
    Expr(b->elem_offset());
  }
  void Expr(const PrimExpr& e) {
    if (e == nullptr) return;
    if (const auto* v = ir::As<ir::TirVarNode>(e)) {
      auto owner = data_owner_->find(v);
      Use(owner != data_owner_->end() ? static_cast<const void*>(owner->second) : v);
      return;
    }
    if (const auto* load = ir::As<ir::BufferLoadNode>(e)) Buffer(load->buffer());
    if (const auto* let = ir::As<ir::LetNode>(e)) Use(let->var().get());
    ir::ForEachChild(e, [&](const PrimExpr& c) { Expr(c); });
  }
  void Stmt(const ir::Stmt& s) {
    if (s != nullptr) VisitStmt(*s);
  }
  void Push(const void* node) { stack_.push_back(node); }
  void Pop() { stack_.pop_back(); }
  void Region(const ir::BufferRegion& r) {
    Buffer(r.buffer);
    for (const ir::Range& range : r.region) {
      Expr(range.min);
      Expr(range.extent);
    }
  }

  void VisitPrimExpr(const PrimExpr& e) override { Expr(e); }
  void VisitStmt_(const ir::ForNode& op) override {
    Push(&op);
    Use(op.loop_var().get());
    StmtVisitor::VisitStmt_(op);
    Pop();
  }
  void VisitStmt_(const ir::BlockNode& op) override {
    Push(&op);
    for (const ir::IterVar& iv : op.iter_vars()) Use(iv.var.get());
    for (const ir::IterVar& iv : op.iter_vars()) {
      Expr(iv.dom.min);
      Expr(iv.dom.extent);
    }
    for (const ir::BufferRegion& r : op.reads()) Region(r);
    for (const ir::BufferRegion& r : op.writes()) Region(r);
    for (const ir::Buffer& b : op.alloc_buffers()) Buffer(b);
    for (const ir::MatchBufferRegion& m : op.match_buffers()) {
      Buffer(m.buffer);
      Region(m.source);
    }
    if (op.init() != nullptr) {
      Push(op.init().get());
      Stmt(op.init());
      Pop();
    }
    Stmt(op.body());
    Pop();
  }
  void VisitStmt_(const ir::SeqStmtNode& op) override {
    Push(&op);
    StmtVisitor::VisitStmt_(op);
    Pop();
  }
  void VisitStmt_(const ir::BufferStoreNode& op) override {
    Buffer(op.buffer());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::LetStmtNode& op) override {
    Use(op.var().get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::IfThenElseNode& op) override {
    Expr(op.cond());
    for (const ir::Stmt& branch : {op.then_case(), op.else_case()}) {
      if (branch == nullptr) continue;
      Push(branch.get());
      Stmt(branch);
      Pop();
    }
  }
  void VisitStmt_(const ir::AllocateNode& op) override {
    Use(op.buffer_var().get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::DeclBufferNode& op) override {
    Buffer(op.buffer());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::WhileNode& op) override {
    Push(&op);
    StmtVisitor::VisitStmt_(op);
    Pop();
  }
  void VisitStmt_(const ir::AttrStmtNode& op) override {
    Push(&op);
    if (op.target().kind == ir::AttrTarget::Kind::kThread) Use(op.target().var.get());
    if (op.target().kind == ir::AttrTarget::Kind::kCommReducer) {
      for (const ir::TirVar& v : op.target().reducer->lhs) Use(v.get());
      for (const ir::TirVar& v : op.target().reducer->rhs) Use(v.get());
    }
    StmtVisitor::VisitStmt_(op);
    Pop();
  }
  void VisitStmt_(const ir::AllocBufferNode& op) override {
    Buffer(op.buffer());
    StmtVisitor::VisitStmt_(op);
  }

  std::unordered_map<const void*, std::vector<const void*>>* paths_;
  std::unordered_map<const ir::TirVarNode*, const ir::BufferNode*>* data_owner_;
  std::vector<const void*> stack_;
};

}  // namespace

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out;
}

TirPrinter::TirPrinter(const TirPrintOptions& options)
    : options_(options), text_options_(ir::PrimTextOptions::Tir()) {
  text_options_.var_name = [this](const ir::TirVarNode& v) { return VarName(v); };
  text_options_.buffer_name = [this](const ir::BufferNode& b) { return BufferName(b); };
  // TVM since 2026 prints a float with an integral value with one decimal: T.float32(0.0).
  text_options_.tir_float_point = options.sblock;
  // As does its prediction of folding operators: T.And(c, T.bool(False)).
  text_options_.fold_call_form = options.sblock;
}

// ---- Frames and names ----

void TirPrinter::OpenFrame(const void* node, int indent) {
  Frame f;
  f.node = node;
  f.indent = indent;
  frames_.push_back(std::move(f));
}

void TirPrinter::CloseFrame() {
  Frame& f = frames_.back();
  out_ += f.pending;  // declarations in a frame that printed nothing after them
  for (const void* key : f.named) {
    auto it = names_.find(key);
    taken_.erase(it->second);
    names_.erase(it);
  }
  for (const void* key : f.defined) names_.erase(key);
  for (const void* data : f.data) data_of_.erase(data);
  frames_.pop_back();
}

void TirPrinter::BeginStmt() {
  Frame& f = frames_.back();
  out_ += f.pending;
  f.pending.clear();
  f.stmt_start = out_.size();
  f.any = true;
}

void TirPrinter::Emit(int indent, const std::string& text) {
  out_.append(static_cast<size_t>(indent) * 4, ' ');
  out_ += text;
  out_ += '\n';
}

void TirPrinter::Insert(size_t k, const std::string& text) {
  Frame& f = frames_[k];
  std::string line(static_cast<size_t>(f.indent) * 4, ' ');
  line += text;
  line += '\n';
  if (f.stmt_start == kNotStarted) {
    f.pending += line;
    return;
  }
  out_.insert(f.stmt_start, line);
  for (size_t j = k; j < frames_.size(); ++j) {
    if (frames_[j].stmt_start != kNotStarted) frames_[j].stmt_start += line.size();
  }
}

std::string TirPrinter::Define(const void* key, std::string_view hint, size_t k) {
  auto [it, inserted] = names_.try_emplace(key);
  if (!inserted) return it->second;
  std::string& name = it->second;
  name.assign(hint.empty() ? std::string_view("v") : hint);
  for (char& c : name) {
    if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  if (!taken_.insert(name).second) {
    std::string base = name;
    for (int i = 1;; ++i) {
      name = base + "_" + std::to_string(i);
      if (taken_.insert(name).second) break;
    }
  }
  frames_[k].named.push_back(key);
  return name;
}

void TirPrinter::DefineAs(const void* key, const std::string& text, size_t k) {
  if (names_.emplace(key, text).second) frames_[k].defined.push_back(key);
}

std::string TirPrinter::DefineBuffer(const ir::BufferNode& b, size_t k) {
  std::string name = Define(&b, b.name().empty() ? "buffer" : b.name(), k);
  if (data_of_.emplace(b.data().get(), &b).second) frames_[k].data.push_back(b.data().get());
  return name;
}

std::optional<size_t> TirPrinter::LowestFrameOf(const void* key) {
  CollectPaths();
  auto it = paths_.find(key);
  if (it == paths_.end()) return std::nullopt;
  for (auto node = it->second.rbegin(); node != it->second.rend(); ++node) {
    for (size_t k = frames_.size(); k-- > 0;) {
      if (frames_[k].node == *node) return k;
    }
  }
  return std::nullopt;
}

bool TirPrinter::EnclosesAllUses(const void* node, const void* key) {
  CollectPaths();
  auto it = paths_.find(key);
  return it != paths_.end() &&
         std::find(it->second.begin(), it->second.end(), node) != it->second.end();
}

void TirPrinter::CollectPaths() {
  if (paths_collected_) return;
  paths_collected_ = true;
  PathCollector(&paths_, &data_owner_).Run(*func_);
}

std::string TirPrinter::VarCreation(const ir::TirVarNode& v) const {
  return "T." + v.dtype().ToString() + (v.is_size_var() ? "(is_size_var=True)" : "()");
}

std::string TirPrinter::VarName(const ir::TirVarNode& v) {
  if (auto it = names_.find(&v); it != names_.end()) return it->second;
  // A defined buffer's data pointer: A.data.
  if (auto it = data_of_.find(&v); it != data_of_.end()) return names_.at(it->second) + ".data";
  CollectPaths();
  if (auto owner = data_owner_.find(&v); owner != data_owner_.end()) {
    return BufferName(*owner->second) + ".data";
  }
  // Printed before any definition: declared in the lowest frame enclosing its uses.
  if (std::optional<size_t> k = LowestFrameOf(&v)) {
    std::string name = Define(&v, v.name(), *k);
    Insert(*k, name + " = " + VarCreation(v));
    return name;
  }
  return v.name();
}

std::string TirPrinter::BufferName(const ir::BufferNode& b) {
  if (auto it = names_.find(&b); it != names_.end()) return it->second;
  if (std::optional<size_t> k = LowestFrameOf(&b)) {
    // A buffer used ahead of its definition: declared as T.Buffer(...) there.
    std::string name = DefineBuffer(b, *k);
    std::string args = BufferArgs(b, *k, BufferVars::kData, false, false);
    Insert(*k, name + " = T.Buffer(" + args + ")");
    return name;
  }
  return b.name();
}

// ---- Expressions and buffers ----

std::string TirPrinter::Stop(const PrimExpr& min, const PrimExpr& extent) {
  // The end of [min, min + extent): the stop as written when the extent was derived from it.
  if (const auto* sub = ir::As<ir::BinaryNode>(extent)) {
    if (sub->op() == ir::BinaryOp::kSub && sub->b() == min) return Text(sub->a());
  }
  auto a = ir::AsConstInt(min), b = ir::AsConstInt(extent);
  if (a && b) return Text(ir::IntImm(*a + *b, extent->dtype()));
  if (a && *a == 0) return Text(extent);
  return Text(ir::MakeBinary(ir::BinaryOp::kAdd, min, extent));
}

std::string TirPrinter::Region(const ir::BufferRegion& r) {
  std::string out = BufferName(*r.buffer) + "[";
  for (size_t i = 0; i < r.region.size(); ++i) {
    const ir::Range& range = r.region[i];
    if (i > 0) out += ", ";
    out += Text(range.min);
    if (!IsConst(range.extent, 1)) out += ":" + Stop(range.min, range.extent);
  }
  return out + (r.region.empty() ? "()]" : "]");
}

std::string TirPrinter::Attr(const ir::AttrValue& value) {
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
  if (const ir::AttrCall* call = value.as_call()) {  // T.target({...})
    std::vector<std::string> items;
    for (const ir::AttrValue& v : call->args) items.push_back(Attr(v));
    for (const auto& [k, v] : call->kwargs) items.push_back(k + "=" + Attr(v));
    return call->callee + "(" + Join(items) + ")";
  }
  return "None";
}

std::string TirPrinter::BufferArgs(const ir::BufferNode& b, size_t k, BufferVars vars,
                                   bool dtype_always, bool quote_undefined, bool print_scope,
                                   const VarSet* quote_first, const VarSet* quote_compound) {
  // How often each var occurs in the buffer's fields, where strides or an offset var may be
  // defined inline (A.strides[0], A.elem_offset) when met once, out of line when not.
  absl::flat_hash_map<const void*, int> uses;
  if (!b.strides().empty() || ir::Is<ir::TirVarNode>(b.elem_offset())) {
    auto count = [&](const PrimExpr& e) {
      if (e != nullptr) ir::VisitTirVars(e, [&](const ir::TirVar& v) { ++uses[v.get()]; });
    };
    count(b.elem_offset());
    for (const PrimExpr& e : b.strides()) count(e);
    for (const PrimExpr& e : b.shape()) count(e);
  }
  // The vars whose first dim is quoted; consumed dim by dim.
  VarSet quote_vars;
  if (quote_first != nullptr) quote_vars = *quote_first;
  std::vector<std::string> def_names, def_values;
  auto out_of_line = [&](const ir::TirVarNode& v) {
    def_names.push_back(Define(&v, v.name(), k));
    def_values.push_back(VarCreation(v));
  };
  auto new_var = [&](const PrimExpr& e) -> const ir::TirVarNode* {
    const auto* v = ir::As<ir::TirVarNode>(e);
    return v != nullptr && !IsDefined(v) ? v : nullptr;
  };
  // Shape: a dim with a var this declaration introduces is quoted when asked (signatures).
  std::vector<std::string> dims;
  for (const PrimExpr& e : b.shape()) {
    if (e->kind() == ir::NodeKind::kIntImm) {  // most dims
      dims.push_back(Text(e));
      continue;
    }
    bool contains_new = false, contains_compound = false;
    std::vector<const void*> in_dim;
    ir::VisitTirVars(e, [&](const ir::TirVar& v) {
      in_dim.push_back(v.get());
      contains_new |= !IsDefined(v.get()) || quote_vars.count(v.get()) != 0;
      contains_compound |= quote_compound != nullptr && quote_compound->count(v.get()) != 0;
    });
    if (const ir::TirVarNode* v = new_var(e); v != nullptr && vars == BufferVars::kMatchBuffer) {
      out_of_line(*v);
    }
    std::string text = Text(e);
    bool bare_compound = quote_compound != nullptr && ir::Is<ir::TirVarNode>(e) &&
                         quote_compound->count(e.get()) != 0;
    if ((quote_undefined && contains_new) || (contains_compound && !bare_compound)) {
      text = QuoteString(text);
    }
    dims.push_back(std::move(text));
    for (const void* v : in_dim) quote_vars.erase(v);
  }
  std::string out = Tuple(dims);
  if (dtype_always || b.dtype() != DataType::Float(32))
    out += ", " + QuoteString(b.dtype().ToString());
  std::vector<std::string> kwargs;
  if (!b.strides().empty()) {
    std::vector<std::string> items;
    for (size_t i = 0; i < b.strides().size(); ++i) {
      const PrimExpr& e = b.strides()[i];
      if (const ir::TirVarNode* v = new_var(e)) {
        if (uses[v] == 1 && vars != BufferVars::kNone) {
          DefineAs(v, names_.at(&b) + ".strides[" + std::to_string(i) + "]", k);
          items.push_back(QuoteString(v->name()));
          continue;
        }
        out_of_line(*v);
      }
      items.push_back(Text(e));
    }
    kwargs.push_back("strides=" + Tuple(items));
  }
  bool print_factor = false;
  if (const PrimExpr& e = b.elem_offset(); e != nullptr) {
    DataType index = b.shape().empty() ? DataType::Int(32) : b.shape()[0]->dtype();
    if (const auto* imm = ir::As<ir::IntImmNode>(e)) {
      if (imm->value() != 0 || !(imm->dtype() == index)) kwargs.push_back("elem_offset=" + Text(e));
    } else if (const ir::TirVarNode* v = new_var(e)) {
      // TVM defines a new offset var with the buffer (inline when met once) and then prints
      // the offset factor instead of the offset.
      if (uses[v] == 1 && vars != BufferVars::kNone) {
        DefineAs(v, names_.at(&b) + ".elem_offset", k);
      } else {
        out_of_line(*v);
      }
      print_factor = true;
    } else {
      kwargs.push_back("elem_offset=" + Text(e));
    }
  }
  if (print_scope && b.scope() != "global") kwargs.push_back("scope=" + QuoteString(b.scope()));
  if (b.layout().data_alignment != 64) {
    kwargs.push_back("align=" + std::to_string(b.layout().data_alignment));
  }
  if (print_factor || b.layout().offset_factor != 1) {
    kwargs.push_back("offset_factor=" + std::to_string(b.layout().offset_factor));
  }
  if (def_names.size() == 1) Insert(k, def_names[0] + " = " + def_values[0]);
  if (def_names.size() > 1) Insert(k, Join(def_names) + " = " + Join(def_values));
  for (const std::string& kw : kwargs) out += ", " + kw;
  return out;
}

}  // namespace pipesplit::script::printer
