// Printer: symbolic expressions (PrimExprs) as TVM prints them inside Relax (spelled by
// ir::FormatPrimExpr), symbolic var declarations (`n = T.int64()`) and signature dims quoted as
// strings ("n * 2").
#include "pipesplit/ir/prim_text.h"
#include "src/script/printer/printer_internal.h"

namespace pipesplit::script::printer {

PrimText Printer::Prim(const ir::PrimExpr& e) {
  ir::PrimTextResult r = ir::FormatPrimExpr(
      e, ir::PrimTextOptions::Relax([this](const ir::TirVarNode& v) { return TirVar(v); }));
  if (r.uses_tir) usage_ |= kUseTir;
  return {std::move(r.text), r.prec};
}

std::string Printer::TirVarCreation(const ir::TirVarNode& var) {
  usage_ |= kUseTir;
  std::string out = "T." + var.dtype().ToString() + "(";
  if (var.is_size_var() && !current()) out += "is_size_var=True";
  out += ')';
  return out;
}

const std::string& Printer::TirVar(const ir::TirVarNode& var) {
  const void* key = TirKey(var);
  if (const std::string* name = NameOf(key)) return *name;
  auto hint_it = alias_hint_.find(key);
  std::string_view hint = hint_it != alias_hint_.end() ? hint_it->second : var.name();
  Frame* f = config_.fragment ? nullptr : RelaxFrame();
  if (f == nullptr) {
    // Fragments (and symbolic vars outside any function): the name, nothing declared.
    return obj_names_.emplace(key, SanitizeName(hint)).first->second;
  }
  if (f->collecting_signature) {
    f->func_vars.insert(key);
    if (current() && f->prim_params.count(key) == 0) f->type_vars.insert(key);
  }
  const std::string& name = Define(key, hint, f);
  bool declare = !current() || !f->collecting_signature || f->prim_params.count(key) != 0 ||
                 f->type_vars.count(key) == 0;
  if (declare) f->stmts.push_back(StmtDoc::Line(name + " = " + TirVarCreation(var)));
  return name;
}

void Printer::ShapeDim(const ir::PrimExpr& e, std::string* out) {
  // Constant dims (most): the digits, as FormatPrimExpr spells a Relax integer.
  if (const auto* imm = ir::As<ir::IntImmNode>(e); imm != nullptr && !imm->dtype().is_bool()) {
    AppendInt(imm->value(), out);
    return;
  }
  std::string text = Prim(e).text;
  auto plain = [&] { *out += text; };
  if (config_.fragment) return plain();
  // The outermost frame that is collecting a function signature, as TVM looks it up.
  const Frame* f = nullptr;
  for (const Frame* frame : frames_) {
    if (frame->collecting_signature) {
      f = frame;
      break;
    }
  }
  if (f == nullptr) return plain();
  bool mentions_func_var = false;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) {
    if (f->func_vars.count(TirKey(*v)) != 0) mentions_func_var = true;
  });
  if (!mentions_func_var) return plain();
  if (current()) {
    const auto* var = ir::As<ir::TirVarNode>(e);
    bool bare_type_var = var != nullptr && f->type_vars.count(TirKey(*var)) != 0;
    bool postponed = config_.pep695 && !f->type_vars.empty();
    if (bare_type_var || postponed) return plain();
  }
  *out += QuoteString(text);
}

}  // namespace pipesplit::script::printer
