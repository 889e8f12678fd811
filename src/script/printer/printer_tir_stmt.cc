// Printer: TIR statements as TVM prints them. Loops (T.grid for perfectly nested serial loops
// from 0), blocks (T.axis.remap for block vars bound to their loops, the access regions, the
// allocations and matched buffers), stores, lets (`x: T.let[T.int32] = v` since 2026), ifs,
// whiles, asserts, thread launches and attributes (on one line scoping over the rest when they
// end their body, TVM's concise scoping; else as `with`), allocation statements.
#include "pipesplit/ir/arith.h"
#include "pipesplit/support/text.h"
#include "src/script/printer/printer_tir_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::PrimExpr;

bool MentionsAny(const PrimExpr& e, const std::unordered_set<const ir::TirVarNode*>& vars) {
  bool found = false;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) { found |= vars.count(v.get()) != 0; });
  return found;
}

}  // namespace

void TirPrinter::Body(const ir::Stmt& s, bool tail) {
  if (const auto* seq = ir::As<ir::SeqStmtNode>(s)) {
    Items(seq->seq(), tail);
    return;
  }
  frames_.back().allow_concise = tail;
  Stmt(s);
}

void TirPrinter::Items(const std::vector<ir::Stmt>& items, bool tail) {
  if (items.empty()) {
    BeginStmt();
    Line("pass");
  }
  for (size_t i = 0; i < items.size(); ++i) {
    frames_.back().allow_concise = tail && i + 1 == items.size();
    Stmt(items[i]);
  }
}

void TirPrinter::VisitStmt_(const ir::SeqStmtNode& seq) {
  // A sequence nested in another one: a frame of its own, printed flat.
  OpenFrame(&seq, frames_.back().indent);
  Items(seq.seq(), true);
  CloseFrame();
}

void TirPrinter::VisitStmt_(const ir::ForNode& loop) {
  BeginStmt();
  int indent = frames_.back().indent;
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
  OpenFrame(&loop, indent + 1);
  for (const ir::ForNode* l : grid) loops_[l->loop_var().get()] = l;
  std::string header;
  if (grid.size() > 1) {
    std::vector<std::string> names, extents;
    for (const ir::ForNode* l : grid) {
      names.push_back(DefineInner(l->loop_var().get(), l->loop_var()->name()));
      extents.push_back(Text(l->extent()));
    }
    header = "for " + Join(names) + " in T.grid(" + Join(extents) + "):";
  } else {
    std::string name = DefineInner(loop.loop_var().get(), loop.loop_var()->name());
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
    header = "for " + name + " in " + fn + "(" + args + "):";
  }
  Emit(indent, header);
  Body(grid.back()->body(), true);
  CloseFrame();
  for (const ir::ForNode* l : grid) loops_.erase(l->loop_var().get());
}

void TirPrinter::VisitStmt_(const ir::BlockRealizeNode& realize) {
  Realize(*realize.block(), realize.iter_values(), realize.predicate(), false);
}

void TirPrinter::VisitStmt_(const ir::BlockNode& block) {
  // A block without its realize prints with no_realize=True.
  Realize(block, {}, ir::BoolImm(true), true);
}

void TirPrinter::IterVars(const ir::BlockNode& block, const std::vector<PrimExpr>& values) {
  std::vector<size_t> remap;
  auto single = [&](size_t i) {
    BeginStmt();
    const ir::IterVar& iv = block.iter_vars()[i];
    static const char* const kKinds[] = {"spatial", "reduce", "scan", "opaque"};
    std::string dom = IsConst(iv.dom.min, 0)
                          ? Text(iv.dom.extent)
                          : "(" + Text(iv.dom.min) + ", " + Stop(iv.dom.min, iv.dom.extent) + ")";
    std::string value = i < values.size() ? ", " + Text(values[i]) : "";
    std::string name = DefineInner(iv.var.get(), iv.var->name());
    Line(name + " = T.axis." + kKinds[static_cast<int>(iv.type)] + "(" + dom + value + ")");
  };
  auto flush = [&]() {
    if (remap.size() == 1) single(remap[0]);
    if (remap.size() > 1) {
      BeginStmt();
      std::vector<std::string> names, loop_vars;
      std::string kinds;
      for (size_t i : remap) {
        const ir::IterVar& iv = block.iter_vars()[i];
        names.push_back(DefineInner(iv.var.get(), iv.var->name()));
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
        remappable = it != loops_.end() && ir::ExprDeepEqual(it->second->min(), iv.dom.min) &&
                     ir::ExprDeepEqual(it->second->extent(), iv.dom.extent);
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
  BeginStmt();
  int indent = frames_.back().indent;
  Emit(indent, std::string("with T.") + BlockWord() + "(" + QuoteString(b.name_hint()) +
                   (no_realize ? ", no_realize=True):" : "):"));
  OpenFrame(&b, indent + 1);
  IterVars(b, iter_values);
  if (!IsConst(predicate, 1)) {
    BeginStmt();
    Line("T.where(" + Text(predicate) + ")");
  }
  BeginStmt();
  std::vector<std::string> regions;
  for (const ir::BufferRegion& r : b.reads()) regions.push_back(Region(r));
  Line("T.reads(" + Join(regions) + ")");
  BeginStmt();
  regions.clear();
  for (const ir::BufferRegion& r : b.writes()) regions.push_back(Region(r));
  Line("T.writes(" + Join(regions) + ")");
  if (!b.annotations().empty()) {
    BeginStmt();
    Line(std::string("T.") + BlockWord() + "_attr(" + AttrDict(b.annotations()) + ")");
  }
  for (const ir::Buffer& buffer : b.alloc_buffers()) {
    BeginStmt();
    std::string name = DefineBuffer(*buffer, Top());
    Line(name + " = " +
         AllocBufferDecl(*buffer, options_.sblock ? "sblock_alloc_buffer" : "alloc_buffer"));
  }
  for (const ir::MatchBufferRegion& m : b.match_buffers()) {
    BeginStmt();
    std::string line = DefineBuffer(*m.buffer, Top());
    line += " = T.match_buffer(";
    line += Region(m.source);
    line += ", ";
    line += BufferArgs(*m.buffer, Top(), BufferVars::kMatchBuffer, false, false);
    line += ')';
    Line(line);
  }
  if (b.init() != nullptr) {
    BeginStmt();
    Line("with T.init():");
    OpenFrame(b.init().get(), indent + 2);
    Body(b.init(), true);
    CloseFrame();
  }
  Body(b.body(), true);
  CloseFrame();
}

void TirPrinter::VisitStmt_(const ir::BufferStoreNode& n) {
  BeginStmt();
  std::string out = BufferName(*n.buffer());
  std::string value = Text(n.value());
  if (n.buffer()->layout().scalar) {  // a scalar buffer: `x = value`
    Line(out + " = " + value);
    return;
  }
  std::vector<std::string> idx;
  for (const PrimExpr& i : n.indices()) idx.push_back(Text(i));
  Line(out + "[" + (idx.empty() ? "()" : Join(idx)) + "] = " + value);
}

void TirPrinter::VisitStmt_(const ir::LetStmtNode& n) {
  bool tail = frames_.back().allow_concise;
  BeginStmt();
  std::string type = "T." + n.var()->dtype().ToString();
  if (options_.sblock) type = "T.let[" + type + "]";  // TVM since 2026
  std::string value = Text(n.value());
  std::string name = DefineInner(n.var().get(), n.var()->name());
  Line(name + ": " + type + " = " + value);
  Body(n.body(), tail);
}

void TirPrinter::VisitStmt_(const ir::IfThenElseNode& n) {
  BeginStmt();
  int indent = frames_.back().indent;
  Emit(indent, "if " + Text(n.cond()) + ":");
  OpenFrame(n.then_case().get(), indent + 1);
  Body(n.then_case(), true);
  CloseFrame();
  if (n.else_case() != nullptr) {
    Emit(indent, "else:");
    OpenFrame(n.else_case().get(), indent + 1);
    Body(n.else_case(), true);
    CloseFrame();
  }
}

void TirPrinter::VisitStmt_(const ir::EvaluateNode& n) {
  BeginStmt();
  // As TVM: a call stands as a statement by itself (`T.assume(...)`).
  const PrimExpr& value = n.value();
  Line(ir::Is<ir::PrimCallNode>(value) ? Text(value) : "T.evaluate(" + Text(value) + ")");
}

void TirPrinter::VisitStmt_(const ir::AllocateNode& n) {
  bool tail = frames_.back().allow_concise;
  BeginStmt();
  std::vector<std::string> extents;
  for (const PrimExpr& e : n.extents()) extents.push_back(Text(e));
  std::string name = DefineInner(n.buffer_var().get(), n.buffer_var()->name());
  Line(name + " = T.allocate([" + Join(extents) + "], " + QuoteString(n.dtype().ToString()) + ", " +
       QuoteString(n.scope()) + ")");
  Body(n.body(), tail);
}

void TirPrinter::VisitStmt_(const ir::DeclBufferNode& n) {
  bool tail = frames_.back().allow_concise;
  BeginStmt();
  std::string rhs =
      "T.decl_buffer(" + BufferArgs(*n.buffer(), Top(), BufferVars::kNone, false, false) + ")";
  std::string name = DefineBuffer(*n.buffer(), Top());
  Line(name + " = " + rhs);
  Body(n.body(), tail);
}

void TirPrinter::VisitStmt_(const ir::AllocBufferNode& n) {
  bool tail = frames_.back().allow_concise;
  BeginStmt();
  const ir::Buffer& b = n.buffer();
  if (b->layout().scalar) {
    // `x: T.int32`, with the store that follows it when that initializes it: `x: T.int32 = v`.
    std::string line = DefineBuffer(*b, Top()) + ": T." + b->dtype().ToString();
    std::vector<ir::Stmt> rest;
    if (const auto* seq = ir::As<ir::SeqStmtNode>(n.body())) {
      rest = seq->seq();
    } else {
      rest.push_back(n.body());
    }
    if (!rest.empty()) {
      const auto* store = ir::As<ir::BufferStoreNode>(rest.front());
      bool reads_itself = false;
      if (store != nullptr) {
        std::vector<PrimExpr> stack{store->value()};
        while (!stack.empty()) {
          PrimExpr e = std::move(stack.back());
          stack.pop_back();
          const auto* load = ir::As<ir::BufferLoadNode>(e);
          reads_itself |= load != nullptr && load->buffer() == b;
          ir::ForEachChild(e, [&](const PrimExpr& c) { stack.push_back(c); });
        }
      }
      if (store != nullptr && store->buffer() == b && store->indices().size() == 1 &&
          IsConst(store->indices()[0], 0) && !reads_itself) {
        line += " = " + Text(store->value());
        rest.erase(rest.begin());
      }
    }
    Line(line);
    if (!rest.empty()) Items(rest, tail);
    return;
  }
  std::string rhs = AllocBufferDecl(*b, "alloc_statement");
  std::string name = DefineBuffer(*b, Top());
  Line(name + " = " + rhs);
  Body(n.body(), tail);
}

void TirPrinter::VisitStmt_(const ir::AssertStmtNode& n) {
  BeginStmt();
  std::vector<std::string> parts;
  for (const std::string& part : n.message_parts()) parts.push_back(QuoteString(part));
  Line("assert " + Text(n.cond()) + ", (" + QuoteString(n.error_kind()) + ", [" + Join(parts) +
       "])");
}

void TirPrinter::VisitStmt_(const ir::WhileNode& n) {
  BeginStmt();
  int indent = frames_.back().indent;
  std::string cond = Text(n.cond());
  Emit(indent, "while " + cond + ":");
  OpenFrame(&n, indent + 1);
  Body(n.body(), true);
  CloseFrame();
}

std::string TirPrinter::CommReducer(const ir::CommReducer& r) {
  // The lambda's vars live in a frame of their own; the identity elements print after it.
  OpenFrame(&r, frames_.back().indent);
  std::vector<std::string> vars;
  for (const ir::TirVar& v : r.lhs) vars.push_back(DefineInner(v.get(), v->name()));
  for (const ir::TirVar& v : r.rhs) vars.push_back(DefineInner(v.get(), v->name()));
  std::vector<std::string> results;
  for (const PrimExpr& e : r.result) results.push_back(Text(e));
  CloseFrame();
  std::vector<std::string> identity;
  for (const PrimExpr& e : r.identity) identity.push_back(Text(e));
  std::string body = results.size() == 1 ? results[0] : "(" + Join(results) + ")";
  return "T.comm_reducer(lambda " + Join(vars) + ": " + body + ", [" + Join(identity) + "])";
}

void TirPrinter::VisitStmt_(const ir::AttrStmtNode& n) {
  bool concise = frames_.back().allow_concise;
  BeginStmt();
  int indent = frames_.back().indent;
  const ir::AttrTarget& target = n.target();
  const ir::TirVarNode* define_var = nullptr;
  std::string rhs;
  ir::Stmt body = n.body();
  if (n.is_thread_launch()) {
    // T.launch_thread("threadIdx.x", extent) defines its var when it encloses every use of
    // it; a var used elsewhere too is an env_thread declared where all its uses are.
    const ir::TirVarNode* var = target.var.get();
    std::string var_doc;
    if (IsDefined(var)) {
      var_doc = VarName(*var);
    } else if (EnclosesAllUses(&n, var)) {
      var_doc = QuoteString(target.thread_tag);
      define_var = var;
    } else {
      std::optional<size_t> k = LowestFrameOf(var);
      size_t frame = k ? *k : Top();
      var_doc = Define(var, var->name(), frame);
      Insert(frame, var_doc + " = T.env_thread(" + QuoteString(target.thread_tag) + ")");
    }
    rhs = "T.launch_thread(" + var_doc + ", " + Text(n.value()) + ")";
  } else if (target.kind == ir::AttrTarget::Kind::kNone) {
    // Consecutive attributes of no node print as one dictionary.
    std::vector<std::string> items;
    const ir::AttrStmtNode* cur = &n;
    while (true) {
      items.push_back(QuoteString(cur->attr_key()) + ": " + Text(cur->value()));
      const auto* next = ir::As<ir::AttrStmtNode>(cur->body());
      if (next == nullptr || next->target().kind != ir::AttrTarget::Kind::kNone) break;
      cur = next;
    }
    body = cur->body();
    rhs = "T.attr({" + Join(items) + "})";
  } else {
    std::string node;
    switch (target.kind) {
      case ir::AttrTarget::Kind::kNone:
        break;
      case ir::AttrTarget::Kind::kExpr:
        node = Text(target.expr);
        break;
      case ir::AttrTarget::Kind::kThread:
        node = VarName(*target.var);
        break;
      case ir::AttrTarget::Kind::kCommReducer:
        node = CommReducer(*target.reducer);
        break;
    }
    rhs = "T.attr(" + node + ", " + QuoteString(n.attr_key()) + ", " + Text(n.value()) + ")";
  }
  OpenFrame(&n, concise ? indent : indent + 1);
  std::string lhs;
  if (define_var != nullptr) {
    lhs = DefineInner(define_var, define_var->name());
  }
  if (concise) {
    // The attribute on one line, its body after it at the same indentation.
    BeginStmt();
    Line(lhs.empty() ? rhs : lhs + " = " + rhs);
  } else {
    Emit(indent, "with " + rhs + (lhs.empty() ? "" : " as " + lhs) + ":");
  }
  Body(body, true);
  CloseFrame();
}

}  // namespace pipesplit::script::printer
