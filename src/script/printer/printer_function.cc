// Printer: Relax functions (decorator, signature, symbolic var declarations, R.func_attr,
// type vars of the current syntax), binding blocks, dataflow blocks, bindings and if/else.
#include <algorithm>
#include <iterator>

#include "pipesplit/ir/attr_names.h"
#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

bool IsVoid(const ir::StructInfo& sinfo) {
  const auto* t = ir::As<ir::TupleSInfoNode>(sinfo);
  return t != nullptr && t->fields().empty();
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out;
}

// Turns the right side in *line into the assignment `lhs: ann = rhs` (no annotation when `ann`
// is null), in place: the rhs is printed first (as TVM evaluates it) into the string that
// becomes the line.
void PrependAssign(std::string_view lhs, const std::string* ann, std::string* line) {
  size_t prefix = lhs.size() + (ann != nullptr ? ann->size() + 2 : 0) + 3;
  size_t rhs = line->size();
  line->resize(rhs + prefix);
  char* data = line->data();
  std::char_traits<char>::move(data + prefix, data, rhs);
  auto put = [&](std::string_view part) {
    std::char_traits<char>::copy(data, part.data(), part.size());
    data += part.size();
  };
  put(lhs);
  if (ann != nullptr) {
    put(": ");
    put(*ann);
  }
  put(" = ");
}

// A tuple of two or more fields prints unparenthesized on an assignment's right side: drops
// the parentheses of the text appended to *out from `start` on.
void AsRhs(const ir::ExprNode* value, size_t start, std::string* out) {
  const auto* tuple = ir::As<ir::TupleNode>(value);
  if (tuple != nullptr && tuple->fields().size() > 1) {
    out->pop_back();
    out->erase(start, 1);
  }
}

// Bytes reserved for a binding line (most are shorter: one allocation per line).
constexpr size_t kLineReserve = 160;

}  // namespace

void Printer::RhsText(const ir::Expr& value, std::string* out) {
  size_t start = out->size();
  Expr(value, out);
  AsRhs(value.get(), start, out);
}

std::vector<StmtDoc> Printer::SeqExpr(const ir::SeqExprNode& seq, bool use_ret,
                                      const ir::ExprNode** result) {
  FrameScope f(this);
  for (const ir::BindingBlock& block : seq.blocks()) BindingBlock(*block, &f->stmts);
  std::string body = Expr(seq.body());
  if (use_ret) {
    f->stmts.push_back(StmtDoc::Line("return " + body));
  } else {
    f->stmts.push_back(StmtDoc::Line(std::move(body)));
    if (result != nullptr) *result = seq.body().get();
  }
  return std::move(f->stmts);
}

void Printer::BindingBlock(const ir::BindingBlockNode& block, std::vector<StmtDoc>* out) {
  // Statements are collected apart from the frame's: declarations of vars used before their
  // definition land in the frame, ahead of the block (as in TVM).
  std::vector<StmtDoc> stmts;
  stmts.reserve(block.bindings().size() + 1);
  std::string outputs = "R.output(";
  bool first_output = true;
  for (const ir::Binding& binding : block.bindings()) {
    Binding(*binding, &stmts);
    if (block.is_dataflow() && !binding->var()->is_dataflow()) {
      if (!first_output) outputs += ", ";
      first_output = false;
      Expr(binding->var(), &outputs);
    }
  }
  if (!block.is_dataflow()) {
    out->insert(out->end(), std::make_move_iterator(stmts.begin()),
                std::make_move_iterator(stmts.end()));
    return;
  }
  usage_ |= kUseRelax;
  outputs += ')';
  stmts.push_back(StmtDoc::Line(std::move(outputs)));
  StmtDoc scope;
  scope.kind = StmtDoc::Kind::kScope;
  scope.text = "with R.dataflow():";
  scope.body = std::move(stmts);
  out->push_back(std::move(scope));
}

void Printer::Binding(const ir::BindingNode& binding, std::vector<StmtDoc>* out) {
  const ir::VarNode& var = *binding.var();
  const ir::Expr& value = binding.value();
  std::string ann;
  if (const auto* mc = ir::As<ir::MatchCastNode>(&binding)) {
    bool has_ann = Annotation(var, value, &ann);
    usage_ |= kUseRelax;
    std::string line;
    line.reserve(kLineReserve);
    line += "R.match_cast(";
    Expr(value, &line);
    line += ", ";
    SInfo(mc->struct_info(), &line);
    line += ')';
    const std::string& lhs = Define(&var, var.name_hint(), InnermostFrame());
    PrependAssign(lhs, has_ann ? &ann : nullptr, &line);
    out->push_back(StmtDoc::Line(std::move(line)));
    return;
  }
  // Appends the annotation to `ann`; current syntax: prim-typed vars are always annotated.
  auto annotate = [&](std::string* text) {
    bool has_ann = Annotation(var, value, text);
    if (!has_ann && current() && ir::Is<ir::PrimSInfoNode>(var.struct_info())) {
      SInfo(var.struct_info(), text);
      has_ann = true;
    }
    return has_ann;
  };
  if (const auto* if_node = ir::As<ir::IfNode>(value)) {
    bool has_ann = annotate(&ann);
    std::string lhs = Define(&var, var.name_hint(), InnermostFrame());
    out->push_back(IfStmt(*if_node, &lhs, has_ann ? &ann : nullptr));
    return;
  }
  if (const auto* func = ir::As<ir::FunctionNode>(value)) {
    std::string lhs = Define(&var, var.name_hint(), InnermostFrame());
    std::vector<StmtDoc> stmts = Function(*func, lhs, /*top_level=*/false, nullptr);
    for (StmtDoc& s : stmts) out->push_back(std::move(s));
    return;
  }
  std::string line;
  line.reserve(kLineReserve);
  if (IsVoid(value->struct_info()) && IsVoid(var.struct_info())) {
    Expr(value, &line);
    out->push_back(StmtDoc::Line(std::move(line)));
    return;
  }
  RhsText(value, &line);
  // The annotation goes to the printer's buffer (nothing below prints another binding).
  binding_ann_.clear();
  bool has_ann = annotate(&binding_ann_);
  const std::string& lhs = Define(&var, var.name_hint(), InnermostFrame());
  PrependAssign(lhs, has_ann ? &binding_ann_ : nullptr, &line);
  out->push_back(StmtDoc::Line(std::move(line)));
}

StmtDoc Printer::IfStmt(const ir::IfNode& node, const std::string* var, const std::string* ann) {
  StmtDoc doc;
  doc.kind = StmtDoc::Kind::kIf;
  doc.text = Expr(node.cond());
  auto branch = [&](const ir::Expr& e) {
    std::vector<StmtDoc> stmts;
    const ir::ExprNode* result = e.get();
    if (const auto* seq = ir::As<ir::SeqExprNode>(e)) {
      stmts = SeqExpr(*seq, /*use_ret=*/false, &result);
    } else {
      stmts.push_back(StmtDoc::Line(Expr(e)));
    }
    if (var != nullptr) {
      std::string line = std::move(stmts.back().text);
      AsRhs(result, 0, &line);
      PrependAssign(*var, ann, &line);
      stmts.back() = StmtDoc::Line(std::move(line));
    }
    return stmts;
  };
  doc.body = branch(node.true_branch());
  doc.else_body = branch(node.false_branch());
  return doc;
}

std::vector<StmtDoc> Printer::HeaderWrap(std::vector<StmtDoc> stmts) {
  std::vector<StmtDoc> out = HeaderComments();
  if (out.empty()) return stmts;
  for (StmtDoc& s : stmts) out.push_back(std::move(s));
  return out;
}

std::vector<StmtDoc> Printer::Function(const ir::FunctionNode& func, const std::string& name,
                                       bool top_level, std::vector<std::string>* type_vars) {
  FrameScope f(this, /*is_func=*/true);
  f->collecting_signature = true;
  std::vector<const void*> aliased;
  if (current()) {
    // Current syntax: a param of prim type is a symbolic var itself; the var its struct info
    // carries (R.Prim(value=n) in the classic syntax) prints as that param.
    for (const ir::Var& p : func.params()) {
      const auto* prim = ir::As<ir::PrimSInfoNode>(p->struct_info());
      if (prim == nullptr) continue;
      f->prim_params.insert(p.get());
      const auto* v = ir::As<ir::TirVarNode>(prim->value());
      if (v != nullptr && NameOf(v) == nullptr && tir_alias_.count(v) == 0) {
        tir_alias_[v] = p.get();
        alias_hint_[p.get()] = p->name_hint();
        aliased.push_back(v);
      }
    }
  }
  auto print_params = [&] {
    std::string params;
    std::string ann;
    for (const ir::Var& p : func.params()) {
      // TVM evaluates the annotation before defining the name (GCC's argument order).
      ann.clear();
      SInfo(p->struct_info(), &ann);
      const std::string& name = Define(p.get(), p->name_hint(), f.get());
      if (!params.empty()) params += ", ";
      params += name;
      params += ": ";
      params += ann;
    }
    return params;
  };
  std::string ret;
  std::string params;
  if (current()) {
    params = print_params();
    ret = SInfo(func.ret_struct_info());
  } else {
    ret = SInfo(func.ret_struct_info());
    params = print_params();
  }
  f->collecting_signature = false;

  const ir::AttrValue* symbol = func.GetAttr(ir::attr::kGlobalSymbol);
  ir::AttrMap attrs;
  for (const auto& kv : func.attrs()) {
    bool implicit = top_level && kv.first == ir::attr::kGlobalSymbol &&
                    kv.second.as_string() != nullptr && *kv.second.as_string() == name;
    if (!implicit) attrs.push_back(kv);
  }
  if (!attrs.empty()) {
    usage_ |= kUseRelax;
    f->stmts.push_back(StmtDoc::Line("R.func_attr(" + AttrDict(attrs) + ")"));
  }
  usage_ |= kUseRelax;
  std::vector<std::string> dec_kwargs;
  if (!func.is_pure()) dec_kwargs.push_back("pure=False");
  if (top_level && symbol == nullptr) dec_kwargs.push_back("private=True");
  std::string decorator = "R.function";
  if (!dec_kwargs.empty()) decorator += "(" + Join(dec_kwargs) + ")";

  std::vector<StmtDoc> body;
  if (const auto* seq = ir::As<ir::SeqExprNode>(func.body())) {
    body = SeqExpr(*seq, /*use_ret=*/true, nullptr);
  } else {
    body.push_back(StmtDoc::Line("return " + Expr(func.body())));
  }
  for (StmtDoc& s : body) f->stmts.push_back(std::move(s));

  std::vector<std::string> tvars;
  for (const void* key : f->type_vars) tvars.push_back(*NameOf(key));
  std::sort(tvars.begin(), tvars.end());
  bool pep695 = !tvars.empty() && config_.pep695;

  StmtDoc def;
  def.kind = StmtDoc::Kind::kFunction;
  def.decorators.push_back(std::move(decorator));
  def.text = "def " + name;
  if (pep695) def.text += "[" + Join(tvars) + "]";
  def.text += "(" + params + ") -> " + ret + ":";
  def.body = std::move(f->stmts);

  for (const void* v : aliased) {
    alias_hint_.erase(tir_alias_[v]);
    tir_alias_.erase(v);
  }

  std::vector<StmtDoc> stmts;
  if (pep695) {
    usage_ |= kUseFuture;
  } else if (!tvars.empty()) {
    usage_ |= kUseTypeVar;
    for (const std::string& v : tvars) {
      stmts.push_back(StmtDoc::Line(v + " = TypeVar(" + QuoteString(v) + ")"));
    }
    if (type_vars != nullptr) *type_vars = tvars;
  }
  stmts.push_back(std::move(def));
  return HeaderWrap(std::move(stmts));
}

}  // namespace pipesplit::script::printer
