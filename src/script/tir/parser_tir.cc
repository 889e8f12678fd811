// TIR lowering, part 2: the function signature and preamble, statements and loops.
#include "src/script/tir/parser_tir.h"

#include <utility>

#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::script {
namespace {

using ir::BinaryOp;
using ir::PrimExpr;

// `T.int64()` (a symbolic var declaration): its dtype, or nullopt.
std::optional<DataType> VarDeclDType(const PyExpr* e) {
  std::string callee = TirCallee(e);
  if (callee.rfind("T.", 0) != 0 || e->items.size() != 1) return std::nullopt;
  return DataType::Parse(callee.substr(2));
}

bool IsSizeVarDecl(const PyExpr* e) {
  for (const PyKeyword& kw : e->keywords) {
    if (kw.name == "is_size_var" && kw.value->kind == PyExprKind::kBool)
      return kw.value->bool_value;
  }
  return false;
}

}  // namespace

std::string TirCallee(const PyExpr* e) {
  return e != nullptr && e->kind == PyExprKind::kCall ? DottedName(e->items[0]) : std::string();
}

// The names a `for` / assignment target binds: a name or a tuple of names.
std::vector<const PyExpr*> TirTargetNames(const TirLowerer& lowerer, const PyExpr* target) {
  std::vector<const PyExpr*> out;
  if (target->kind == PyExprKind::kTuple) {
    for (const PyExpr* item : target->items) out.push_back(item);
  } else {
    out.push_back(target);
  }
  for (const PyExpr* name : out) {
    if (name->kind != PyExprKind::kName) lowerer.Error(name, "expected a variable name");
  }
  return out;
}

ir::PrimFunc LowerTirFunction(const SourceFile& file, const PyStmt* def,
                              const TirLowerOptions& options, bool* uses_sblock) {
  TirLowerer lowerer(file, options);
  ir::PrimFunc func = lowerer.Function(def);
  if (uses_sblock != nullptr) *uses_sblock = lowerer.uses_sblock();
  return func;
}

ir::TirVar TirLowerer::NewVar(std::string_view name, DataType dtype, uint32_t begin, uint32_t end) {
  auto var = ir::Make<ir::TirVarNode>(std::string(name), dtype, false, SpanOf(begin, end));
  Define(name, {var, nullptr});
  return var;
}

ir::TirVar TirLowerer::NewVar(const PyExpr* name_expr, DataType dtype) {
  if (name_expr->kind != PyExprKind::kName) Error(name_expr, "expected a variable name");
  return NewVar(name_expr->text, dtype, name_expr->begin, name_expr->end);
}

ir::PrimFunc TirLowerer::Function(const PyStmt* def) {
  Push();
  ir::PrimFuncNode::Fields f;
  f.name = std::string(def->name);
  f.is_private = options_.is_private;
  f.s_tir = options_.s_tir;
  Signature(def, &f);
  size_t first = 0;
  Preamble(def, &f, &first);
  allocs_ = &root_allocs_;
  // A block that is the whole body (and binds nothing) is the root block: TVM infers no
  // access regions for it.
  if (def->body.size() == first + 1) root_candidate_ = def->body[first];
  ir::Stmt body = Body(def->body, first);
  // As TVM completes a function: a block that is the whole body and binds no iter var is the
  // root block itself (`with T.block("root"):` written out, typically); otherwise a body with
  // blocks or root allocations gets an implicit root block.
  const auto* explicit_root = ir::As<ir::BlockRealizeNode>(body);
  bool is_root = explicit_root != nullptr && explicit_root->block()->iter_vars().empty() &&
                 root_allocs_.empty();
  if (!is_root && (has_block_ || !root_allocs_.empty())) {
    ir::BlockNode::Fields root;
    root.name_hint = "root";
    root.alloc_buffers = std::move(root_allocs_);
    root.body = std::move(body);
    auto block = ir::Make<ir::BlockNode>(std::move(root));
    body = ir::Make<ir::BlockRealizeNode>(std::vector<PrimExpr>{}, ir::BoolImm(true),
                                          std::move(block));
  }
  f.body = std::move(body);
  // A public function's global symbol is its name: TVM sets it so when it is not written, and
  // does not print it when it is the name.
  if (!options_.is_private) {
    std::erase_if(f.attrs, [&](const auto& attr) {
      const std::string* symbol = attr.second.as_string();
      return attr.first == "global_symbol" && symbol != nullptr && *symbol == f.name;
    });
  }
  Pop();
  return ir::Make<ir::PrimFuncNode>(std::move(f), SpanOf(def->begin, def->end));
}

void TirLowerer::Signature(const PyStmt* def, ir::PrimFuncNode::Fields* f) {
  // Scalar params first: a buffer's shape may name a param that comes after it.
  std::vector<ir::TirVar> params(def->params.size());
  for (size_t i = 0; i < def->params.size(); ++i) {
    const PyParam& p = def->params[i];
    const PyExpr* ann = p.annotation;
    if (ann == nullptr) Error(p.begin, p.end, "a TIR parameter needs a type annotation");
    if (p.default_value != nullptr) Error(p.default_value, "TIR parameters take no defaults");
    std::string type = DottedName(ann);
    if (type == "T.handle") {
      params[i] = NewVar(p.name, DataType::Handle(), p.begin, p.end);
    } else if (TirCallee(ann) == "T.Buffer") {
      continue;
    } else if (type.rfind("T.", 0) == 0 && DataType::Parse(type.substr(2))) {
      params[i] = NewVar(p.name, *DataType::Parse(type.substr(2)), p.begin, p.end);
    } else {
      Error(ann, "unsupported TIR parameter type; expected T.handle, T.Buffer(...) or a dtype");
    }
  }
  // The symbolic vars the body declares first (`m, n = T.int32(), T.int32()`), which quoted
  // dims of the signature name.
  for (const PyStmt* s : def->body) {
    bool preamble = s->kind == PyStmtKind::kAssign || s->kind == PyStmtKind::kExpr;
    if (!preamble) break;
    std::string callee = TirCallee(s->value);
    if (s->kind == PyStmtKind::kExpr && callee == "T.func_attr") continue;
    if (s->kind == PyStmtKind::kAssign && callee == "T.match_buffer") continue;
    if (s->kind != PyStmtKind::kAssign || !DeclareVars(s)) break;
    predeclared_.insert(s);
  }
  in_signature_ = true;
  for (size_t i = 0; i < def->params.size(); ++i) {
    const PyParam& p = def->params[i];
    if (params[i] == nullptr) {
      ir::Buffer buffer = BufferDecl(p.annotation, 1, std::string(p.name));
      params[i] = ir::Make<ir::TirVarNode>(std::string(p.name), DataType::Handle(), false,
                                           SpanOf(p.begin, p.end));
      f->buffer_map.emplace_back(params[i], buffer);
      Define(p.name, {nullptr, buffer});
    }
  }
  in_signature_ = false;
  f->params = std::move(params);
}

void TirLowerer::Preamble(const PyStmt* def, ir::PrimFuncNode::Fields* f, size_t* first) {
  for (; *first < def->body.size(); ++*first) {
    const PyStmt* s = def->body[*first];
    if (predeclared_.count(s)) continue;
    if (s->kind == PyStmtKind::kExpr && TirCallee(s->value) == "T.func_attr") {
      const PyExpr* call = s->value;
      if (call->items.size() != 2) Error(call, "T.func_attr expects one dictionary argument");
      for (auto& [key, value] : AttrDict(call->items[1])) f->attrs.emplace_back(key, value);
      continue;
    }
    if (s->kind == PyStmtKind::kAssign && s->target->kind == PyExprKind::kName &&
        TirCallee(s->value) == "T.match_buffer") {
      const PyExpr* call = s->value;
      if (call->items.size() < 2) Error(call, "T.match_buffer needs a parameter and a shape");
      const PyExpr* param = call->items[1];
      const Symbol* sym = param->kind == PyExprKind::kName ? Find(param->text) : nullptr;
      ir::TirVar var = sym != nullptr ? sym->var : nullptr;
      if (var == nullptr || var->dtype() != DataType::Handle()) {
        Error(param, "T.match_buffer expects a T.handle parameter of the function");
      }
      bool matched = false;
      for (const auto& entry : f->buffer_map) matched |= entry.first == var;
      if (matched) {
        Error(param, "parameter '" + var->name() + "' is matched twice");
      }
      ir::Buffer buffer = BufferDecl(call, 2, std::string(s->target->text));
      f->buffer_map.emplace_back(var, buffer);
      Define(s->target->text, {nullptr, buffer});
      continue;
    }
    if (s->kind == PyStmtKind::kAssign && DeclareVars(s)) continue;
    break;
  }
}

bool TirLowerer::DeclareBuffer(const PyStmt* s) {
  if (TirCallee(s->value) != "T.Buffer") return false;
  if (s->target->kind != PyExprKind::kName) Error(s->target, "expected a buffer name");
  ir::Buffer buffer = BufferDecl(s->value, 1, std::string(s->target->text));
  Define(s->target->text, {nullptr, buffer});
  pending_buffers_[std::string(s->target->text)] = buffer;
  return true;
}

bool TirLowerer::DeclareVars(const PyStmt* s) {
  // n = T.int64()  /  n, m = T.int64(), T.int64()
  std::vector<const PyExpr*> values;
  if (s->value->kind == PyExprKind::kTuple) {
    for (const PyExpr* v : s->value->items) values.push_back(v);
  } else {
    values.push_back(s->value);
  }
  for (const PyExpr* v : values) {
    if (!VarDeclDType(v)) return false;
  }
  std::vector<const PyExpr*> names = TirTargetNames(*this, s->target);
  if (names.size() != values.size()) {
    Error(s->target, "expected " + std::to_string(values.size()) + " names, got " +
                         std::to_string(names.size()));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    auto var = ir::Make<ir::TirVarNode>(std::string(names[i]->text), *VarDeclDType(values[i]),
                                        IsSizeVarDecl(values[i]), SpanOf(names[i]));
    Define(names[i]->text, {var, nullptr});
  }
  return true;
}

ir::Stmt TirLowerer::Body(const std::vector<PyStmt*>& body, size_t from) {
  std::vector<ir::Stmt> stmts;
  for (size_t i = from; i < body.size();) {
    if (ir::Stmt s = Stmt(body, &i)) stmts.push_back(std::move(s));
  }
  return ir::MakeSeq(std::move(stmts));
}

ir::Stmt TirLowerer::Stmt(const std::vector<PyStmt*>& body, size_t* i) {
  const PyStmt* s = body[(*i)++];
  Span span = SpanOf(s->begin, s->end);
  switch (s->kind) {
    case PyStmtKind::kPass:
      return nullptr;
    case PyStmtKind::kFor:
      return For(s);
    case PyStmtKind::kWhile:
      return While(s);
    case PyStmtKind::kAssert:
      return Assert(s);
    case PyStmtKind::kWith:
      return With(s);
    case PyStmtKind::kIf: {
      PrimExpr cond = Expr(s->value);
      Push();
      ir::Stmt then_case = Body(s->body, 0);
      Pop();
      ir::Stmt else_case;
      if (s->has_else) {
        Push();
        else_case = Body(s->orelse, 0);
        Pop();
      }
      return ir::Make<ir::IfThenElseNode>(cond, then_case, else_case, span);
    }
    case PyStmtKind::kExpr: {
      const PyExpr* e = s->value;
      if (e->kind == PyExprKind::kString) return nullptr;  // a docstring
      std::string callee = TirCallee(e);
      if (callee == "T.evaluate") {
        if (e->items.size() != 2) Error(e, "T.evaluate expects one argument");
        return ir::Make<ir::EvaluateNode>(Expr(e->items[1]), span);
      }
      if (callee == "T.func_attr") Error(e, "T.func_attr must come first in the function body");
      if (callee == "T.attr" || callee == "T.launch_thread") {
        // A statement scoping over the rest of the sequence (`T.launch_thread(x, n)` of an
        // earlier `x = T.env_thread(...)`, as TVM prints a launch that does not enclose its uses).
        size_t rest = *i;
        *i = body.size();
        return AttrStmt(s, e, nullptr, [&] {
          Push();
          ir::Stmt stmt = Body(body, rest);
          Pop();
          return stmt;
        });
      }
      if (callee == "T.reads" || callee == "T.writes" || callee == "T.where" ||
          callee == "T.block_attr" || callee == "T.sblock_attr") {
        Error(e, callee + " is only allowed at the start of a block");
      }
      return ir::Make<ir::EvaluateNode>(Expr(e), span);
    }
    case PyStmtKind::kAssign:
    case PyStmtKind::kAnnAssign:
      return Assign(body, i);
    case PyStmtKind::kAugAssign:
      return AugAssign(s);
    default:
      Error(s->begin, s->end, "unsupported statement in a TIR function");
  }
}

ir::Stmt TirLowerer::AugAssign(const PyStmt* s) {
  // `B[i] += v` stores `B[i] + v`, as TVM's parser evaluates it.
  static const std::pair<std::string_view, BinaryOp> kOps[] = {
      {"+=", BinaryOp::kAdd}, {"-=", BinaryOp::kSub},       {"*=", BinaryOp::kMul},
      {"/=", BinaryOp::kDiv}, {"//=", BinaryOp::kFloorDiv}, {"%=", BinaryOp::kFloorMod}};
  const BinaryOp* op = nullptr;
  for (const auto& [spelling, binary] : kOps) {
    if (s->text == spelling) op = &binary;
  }
  if (op == nullptr) {
    Error(s->begin, s->end, "unsupported operator '" + std::string(s->text) + "' in TIR");
  }
  if (s->target->kind != PyExprKind::kSubscript) {
    Error(s->target, "an augmented assignment in TIR stores to a buffer element");
  }
  PrimExpr load = Expr(s->target);
  const auto* element = ir::As<ir::BufferLoadNode>(load);
  PrimExpr lhs = load;
  PrimExpr rhs = Expr(s->value, load->dtype());
  ir::MatchOperandDTypes(&lhs, &rhs);
  return ir::Make<ir::BufferStoreNode>(element->buffer(), ir::MakeBinary(*op, lhs, rhs),
                                       element->indices(), SpanOf(s->begin, s->end));
}

ir::Stmt TirLowerer::Assign(const std::vector<PyStmt*>& body, size_t* i) {
  const PyStmt* s = body[*i - 1];
  Span span = SpanOf(s->begin, s->end);
  const PyExpr* target = s->target;
  bool is_let = s->annotation != nullptr && s->annotation->kind == PyExprKind::kSubscript &&
                DottedName(s->annotation->items[0]) == "T.let";
  if (s->annotation != nullptr && !is_let && options_.s_tir) return ScalarAlloc(body, i);
  if (s->value == nullptr) Error(s->begin, s->end, "a TIR declaration needs a value");
  if (target->kind == PyExprKind::kName && s->kind == PyStmtKind::kAssign) {
    // `x = value` to a scalar buffer (`x: T.int32` before) stores to it.
    const Symbol* sym = Find(target->text);
    if (sym != nullptr && sym->buffer != nullptr && sym->buffer->layout().scalar) {
      PrimExpr value = Expr(s->value, sym->buffer->dtype());
      return ir::Make<ir::BufferStoreNode>(
          sym->buffer, value, std::vector<PrimExpr>{ir::IntImm(0, DataType::Int(32))}, span);
    }
  }
  if (target->kind == PyExprKind::kSubscript) {
    const PyExpr* name = target->items[0];
    const Symbol* sym = name->kind == PyExprKind::kName ? Find(name->text) : nullptr;
    if (sym == nullptr || sym->buffer == nullptr) {
      Error(name, "store to an unknown buffer '" + std::string(name->text) + "'");
    }
    PrimExpr target_load = Expr(target);
    const auto* load = ir::As<ir::BufferLoadNode>(target_load);
    PrimExpr value = Expr(s->value, sym->buffer->dtype());
    return ir::Make<ir::BufferStoreNode>(sym->buffer, value, load->indices(), span);
  }
  std::string callee = TirCallee(s->value);
  if (s->kind == PyStmtKind::kAssign && DeclareVars(s)) return nullptr;
  if (s->kind == PyStmtKind::kAssign && DeclareBuffer(s)) return nullptr;
  if (callee == "T.env_thread") {
    // x = T.env_thread("threadIdx.x"): a thread var launched later by T.launch_thread(x, n).
    const PyExpr* call = s->value;
    if (call->items.size() != 2 || call->items[1]->kind != PyExprKind::kString ||
        !call->keywords.empty()) {
      Error(call, "T.env_thread expects a thread tag string");
    }
    ir::TirVar var = NewVar(target, DataType::Int(32));
    env_threads_[var.get()] = std::string(call->items[1]->str);
    return nullptr;
  }
  if (callee == "T.launch_thread") {
    if (s->kind != PyStmtKind::kAssign) Error(s->annotation, "T.launch_thread takes no annotation");
    size_t rest = *i;
    *i = body.size();
    return AttrStmt(s, s->value, target, [&] { return Body(body, rest); });
  }
  bool statement_alloc = callee == "T.alloc_shared" || callee == "T.alloc_local" ||
                         (callee == "T.alloc_buffer" && options_.s_tir);
  if (statement_alloc) {
    // An allocation statement (TVM since 2026): the buffer lives for the rest of the sequence.
    if (target->kind != PyExprKind::kName) Error(target, "expected a buffer name");
    ir::Buffer buffer = BufferDecl(s->value, 1, std::string(target->text));
    Push();
    Define(target->text, {nullptr, buffer});
    ir::Stmt rest = Body(body, *i);
    Pop();
    *i = body.size();
    return ir::Make<ir::AllocBufferNode>(buffer, rest, span);
  }
  if (callee == "T.alloc_buffer" || callee == "T.sblock_alloc_buffer" ||
      callee == "T.decl_buffer") {
    if (target->kind != PyExprKind::kName) Error(target, "expected a buffer name");
    ir::Buffer buffer = BufferDecl(s->value, 1, std::string(target->text));
    if (callee == "T.sblock_alloc_buffer") uses_sblock_ = true;
    if (callee != "T.decl_buffer") {
      Define(target->text, {nullptr, buffer});
      allocs_->push_back(buffer);
      return nullptr;
    }
    Push();
    Define(target->text, {nullptr, buffer});
    ir::Stmt rest = Body(body, *i);
    Pop();
    *i = body.size();
    return ir::Make<ir::DeclBufferNode>(buffer, rest, span);
  }
  if (callee == "T.match_buffer") {
    Error(s->value, "T.match_buffer of a parameter must come at the start of the function");
  }
  if (callee.rfind("T.axis.", 0) == 0) Error(s->value, callee + " is only allowed in a block");
  // A let: `x = value` or `x: T.int32 = value`.
  if (target->kind != PyExprKind::kName) Error(target, "expected a variable name");
  std::optional<DataType> dtype;
  if (s->annotation != nullptr) {
    // `x: T.let[T.int32] = value` (TVM since 2026) or `x: T.int32 = value`.
    const PyExpr* ann = s->annotation;
    if (ann->kind == PyExprKind::kSubscript && DottedName(ann->items[0]) == "T.let") {
      ann = ann->items[1];
    }
    std::string type = DottedName(ann);
    if (type.rfind("T.", 0) == 0) dtype = DataType::Parse(type.substr(2));
    if (!dtype) Error(ann, "expected a TIR dtype annotation such as T.int32");
  }
  PrimExpr value = Expr(s->value, dtype);
  Push();
  ir::TirVar var = NewVar(target, dtype.value_or(value->dtype()));
  ir::Stmt rest = Body(body, *i);
  Pop();
  *i = body.size();
  return ir::Make<ir::LetStmtNode>(var, value, rest, span);
}

ir::Stmt TirLowerer::ScalarAlloc(const std::vector<PyStmt*>& body, size_t* i) {
  // `x: T.int32 [= value]` (TVM since 2026): a local scalar buffer, read and written as `x`,
  // for the rest of the sequence.
  const PyStmt* s = body[*i - 1];
  Span span = SpanOf(s->begin, s->end);
  if (s->target->kind != PyExprKind::kName) Error(s->target, "expected a variable name");
  std::string type = DottedName(s->annotation);
  std::optional<DataType> dtype;
  if (type.rfind("T.", 0) == 0) dtype = DataType::Parse(type.substr(2));
  if (!dtype || *dtype == DataType::Handle()) {
    Error(s->annotation, "expected a TIR dtype annotation such as T.int32 (or T.let[...])");
  }
  ir::BufferLayout layout;
  layout.scalar = true;
  ir::Buffer buffer = ir::MakeBuffer(std::string(s->target->text), *dtype,
                                     std::vector<PrimExpr>{ir::IntImm(1, DataType::Int(32))},
                                     "local", SpanOf(s->target), std::move(layout));
  PrimExpr value;
  if (s->value != nullptr) value = Expr(s->value, *dtype);
  Push();
  Define(s->target->text, {nullptr, buffer});
  std::vector<ir::Stmt> stmts;
  if (value != nullptr) {
    stmts.push_back(ir::Make<ir::BufferStoreNode>(
        buffer, value, std::vector<PrimExpr>{ir::IntImm(0, DataType::Int(32))}, span));
  }
  bool nothing_after = *i == body.size();
  ir::Stmt rest = Body(body, *i);
  Pop();
  *i = body.size();
  if (const auto* seq = ir::As<ir::SeqStmtNode>(rest)) {
    stmts.insert(stmts.end(), seq->seq().begin(), seq->seq().end());
  } else if (!nothing_after || stmts.empty()) {
    stmts.push_back(rest);
  }
  return ir::Make<ir::AllocBufferNode>(buffer, ir::MakeSeq(std::move(stmts)), span);
}

ir::Stmt TirLowerer::For(const PyStmt* s) {
  Span span = SpanOf(s->begin, s->end);
  std::vector<const PyExpr*> names = TirTargetNames(*this, s->target);
  const PyExpr* iter = s->value;
  std::string callee = TirCallee(iter);
  if (callee.empty())
    Error(iter, "a TIR loop iterates over range(...), T.grid(...) or T.serial(...)");
  std::vector<const PyExpr*> args(iter->items.begin() + 1, iter->items.end());
  struct Loop {
    PrimExpr min;
    PrimExpr extent;
  };
  std::vector<Loop> loops;
  ir::ForKind kind = ir::ForKind::kSerial;
  std::string thread;
  ir::AttrMap annotations;
  // `for iters in T.grid(m, n)`: one name for several loops, whose vars TVM names iters_0, ...
  const PyExpr* tuple_name = nullptr;
  if (callee == "T.grid") {
    std::vector<PrimExpr> extents;
    for (const PyExpr* a : args) {
      if (a->kind == PyExprKind::kStarred) {
        std::vector<PrimExpr> unpacked = Exprs(a);
        extents.insert(extents.end(), unpacked.begin(), unpacked.end());
      } else {
        extents.push_back(Expr(a));
      }
    }
    if (names.size() == 1 && extents.size() != 1 && s->target->kind == PyExprKind::kName) {
      tuple_name = s->target;
    } else if (extents.size() != names.size()) {
      Error(iter, "T.grid has " + std::to_string(extents.size()) + " extents but " +
                      std::to_string(names.size()) + " loop variables");
    }
    for (const PrimExpr& extent : extents) {
      loops.push_back({ir::IntImm(0, extent->dtype()), extent});
    }
  } else {
    if (callee == "range" || callee == "T.serial") {
      kind = ir::ForKind::kSerial;
    } else if (callee == "T.parallel") {
      kind = ir::ForKind::kParallel;
    } else if (callee == "T.vectorized") {
      kind = ir::ForKind::kVectorized;
    } else if (callee == "T.unroll") {
      kind = ir::ForKind::kUnrolled;
    } else if (callee == "T.thread_binding") {
      kind = ir::ForKind::kThreadBinding;
    } else {
      Error(iter->items[0], "unsupported loop kind '" + callee + "'");
    }
    if (names.size() != 1) Error(s->target, callee + " binds one loop variable");
    if (args.empty() || args.size() > 2) Error(iter, callee + " expects an extent or a range");
    for (const PyKeyword& kw : iter->keywords) {
      if (kw.name == "thread" && kind == ir::ForKind::kThreadBinding &&
          kw.value->kind == PyExprKind::kString) {
        thread = std::string(kw.value->str);
      } else if (kw.name == "annotations" && callee != "range") {
        annotations = AttrDict(kw.value);
      } else {
        Error(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()),
              "unsupported argument '" + std::string(kw.name) + "' of " + callee);
      }
    }
    if (kind == ir::ForKind::kThreadBinding && thread.empty()) {
      Error(iter, "T.thread_binding needs thread=\"...\"");
    }
    if (args.size() == 1) {
      PrimExpr extent = Expr(args[0]);
      loops.push_back({ir::IntImm(0, extent->dtype()), extent});
    } else {
      PrimExpr begin = Expr(args[0]);
      PrimExpr end = Expr(args[1], begin->dtype());
      if (ir::As<ir::IntImmNode>(begin) && begin->dtype() != end->dtype()) {
        begin = ir::IntImm(*ir::AsConstInt(begin), end->dtype());
      }
      loops.push_back({begin, ExtentOf(begin, end)});
    }
  }
  Push();
  std::vector<ir::TirVar> vars;
  for (size_t k = 0; k < loops.size(); ++k) {
    if (tuple_name != nullptr) {
      const std::string name = std::string(tuple_name->text) + "_" + std::to_string(k);
      vars.push_back(NewVar(name, loops[k].extent->dtype(), tuple_name->begin, tuple_name->end));
    } else {
      vars.push_back(NewVar(names[k], loops[k].extent->dtype()));
    }
    loop_ranges_[vars.back().get()] = {loops[k].min, loops[k].extent};
  }
  if (tuple_name != nullptr) {
    Symbol tuple;
    tuple.vars.assign(vars.begin(), vars.end());
    Define(tuple_name->text, std::move(tuple));
  }
  ir::Stmt body = Body(s->body, 0);
  for (const ir::TirVar& v : vars) loop_ranges_.erase(v.get());
  Pop();
  for (size_t k = loops.size(); k-- > 0;) {
    body = ir::Make<ir::ForNode>(vars[k], loops[k].min, loops[k].extent, kind, body, thread,
                                 annotations, span);
  }
  return body;
}

ir::Stmt TirLowerer::With(const PyStmt* s) {
  std::string callee = TirCallee(s->value);
  if (callee == "T.block" || callee == "T.sblock") return BlockStmt(s);
  if (callee == "T.launch_thread" || callee == "T.attr") {
    return AttrStmt(s, s->value, s->target, [&] {
      ir::Stmt stmt = Body(s->body, 0);
      return stmt;
    });
  }
  if (callee == "T.init") Error(s->value, "T.init() is only allowed at the start of a block");
  Error(s->value, "unsupported with statement in a TIR function");
}

}  // namespace pipesplit::script
