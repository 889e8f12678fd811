// Lowering: the module level, and the parser's entry points.
//
// Like TVM's IR-module parser, members are handled in three passes: statements that are not
// functions (I.module_attrs, I.module_global_infos, `name = R.ExternFunc(...)`), then a
// declaration of every function (a GlobalVar with the signature as FuncSInfo, so `cls.f`
// resolves in any order), then the bodies. @T.prim_func members are lowered to TIR (parser_tir.h).
#include "pipesplit/ir/vdevice.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parse_split.h"
#include "src/script/syntax/parser_syntax.h"
#include "src/script/tir/parser_tir.h"

namespace pipesplit::script {
namespace {

bool IsModuleDecorator(const PyExpr* d) {
  const PyExpr* callee = d->kind == PyExprKind::kCall ? d->items[0] : d;
  std::string name = DottedName(callee);
  return name == "I.ir_module" || name == "tvm.script.ir_module" ||
         name == "tvm.script.ir.ir_module" || name == "ir_module" || name == "ir.ir_module";
}

bool IsRelaxFunctionDecorator(const PyExpr* d) {
  const PyExpr* callee = d->kind == PyExprKind::kCall ? d->items[0] : d;
  std::string name = DottedName(callee);
  return name == "R.function" || name == "relax.function" || name == "tvm.script.relax.function";
}

bool IsPyFuncDecorator(const PyExpr* d) {
  const PyExpr* callee = d->kind == PyExprKind::kCall ? d->items[0] : d;
  std::string name = DottedName(callee);
  return name == "pyfunc" || (name.size() > 7 && name.substr(name.size() - 7) == ".pyfunc");
}

// Whether an annotation mentions T.<dtype> as a type (the current syntax's prim types).
bool MentionsPrimType(const PyExpr* e) {
  if (e == nullptr) return false;
  if (e->kind == PyExprKind::kAttribute && e->items[0]->kind == PyExprKind::kName &&
      e->items[0]->text == "T" && DataType::Parse(e->text).has_value()) {
    return true;
  }
  if (e->kind == PyExprKind::kCall) {
    // T.int64(...) is a value, not a type; look only at the arguments.
    for (size_t i = 1; i < e->items.size(); ++i) {
      if (MentionsPrimType(e->items[i])) return true;
    }
    return false;
  }
  for (const PyExpr* item : e->items) {
    if (MentionsPrimType(item)) return true;
  }
  return false;
}

// Whether an expression uses a current-syntax spelling (out_ty=, ty_args=, R.Any).
bool MentionsCurrentSpelling(const PyExpr* e) {
  if (e == nullptr) return false;
  if (e->kind == PyExprKind::kAttribute && e->text == "Any" &&
      e->items[0]->kind == PyExprKind::kName && e->items[0]->text == "R") {
    return true;
  }
  for (const PyKeyword& kw : e->keywords) {
    if (kw.name == "out_ty" || kw.name == "ty_args") return true;
    if (MentionsCurrentSpelling(kw.value)) return true;
  }
  for (const PyExpr* item : e->items) {
    if (MentionsCurrentSpelling(item)) return true;
  }
  return false;
}

// `spelling`: whether to look for MentionsCurrentSpelling (false when the lexer saw none of
// the names it needs).
bool StmtsUseCurrentSyntax(const std::vector<PyStmt*>& body, bool spelling) {
  auto mentions = [spelling](const PyExpr* e) { return spelling && MentionsCurrentSpelling(e); };
  for (const PyStmt* s : body) {
    if (s->kind == PyStmtKind::kOpaqueDef) continue;
    if (!s->type_params.empty()) return true;
    if (mentions(s->value) || mentions(s->target)) return true;
    if (MentionsPrimType(s->annotation) || MentionsPrimType(s->returns)) return true;
    for (const PyParam& p : s->params) {
      if (MentionsPrimType(p.annotation) || mentions(p.annotation)) return true;
    }
    if (mentions(s->annotation) || mentions(s->returns)) return true;
    if (StmtsUseCurrentSyntax(s->body, spelling) || StmtsUseCurrentSyntax(s->orelse, spelling)) {
      return true;
    }
  }
  return false;
}

}  // namespace

Lowerer::Lowerer(const SourceFile& file, const ParseOptions& options, const SyntaxTree& tree,
                 const LexInfo& lex_info)
    : file_(file), options_(options), tree_(tree), lex_info_(lex_info) {}

Span Lowerer::SpanOf(const PyExpr* e) const {
  if (e == nullptr) return Span{file_.id(), 0, 0};
  return Span{file_.id(), e->begin, e->end};
}

Span Lowerer::SpanOf(uint32_t begin, uint32_t end) const { return Span{file_.id(), begin, end}; }

void Lowerer::Error(const PyExpr* e, std::string message) const {
  ThrowError(SpanOf(e), std::move(message));
}

void Lowerer::Error(Span span, std::string message) const { ThrowError(span, std::move(message)); }

std::string Lowerer::Text(const PyExpr* e) const {
  return file_.text().substr(e->begin, e->end - e->begin);
}

void Lowerer::DetectSyntax() {
  for (const PyStmt* s : tree_.body) {
    if (s->kind == PyStmtKind::kImport && s->text == "__future__") {
      for (std::string_view n : s->names) future_annotations_ |= n == "annotations";
    }
    if (s->kind == PyStmtKind::kAssign && s->value->kind == PyExprKind::kCall &&
        DottedName(s->value->items[0]) == "TypeVar") {
      current_syntax_ = true;
    }
  }
  current_syntax_ = current_syntax_ || future_annotations_ ||
                    StmtsUseCurrentSyntax(tree_.body, lex_info_.current_spelling_names);
}

ir::IRModule Lowerer::Run() {
  DetectSyntax();
  symbols_.PushFrame();
  const PyStmt* module_class = nullptr;
  for (const PyStmt* s : tree_.body) {
    Span span = SpanOf(s->begin, s->end);
    switch (s->kind) {
      case PyStmtKind::kImport:
      case PyStmtKind::kPass:
        break;
      case PyStmtKind::kExpr:
        if (s->value->kind != PyExprKind::kString) {
          Error(span, "unsupported top-level statement; expected an @I.ir_module class");
        }
        break;
      case PyStmtKind::kAssign: {
        // n = TypeVar("n")
        const PyExpr* v = s->value;
        if (s->target->kind != PyExprKind::kName || v->kind != PyExprKind::kCall ||
            DottedName(v->items[0]) != "TypeVar") {
          Error(span, "unsupported top-level statement; expected an @I.ir_module class");
        }
        if (v->items.size() < 2 || v->items[1]->kind != PyExprKind::kString ||
            v->items[1]->str != s->target->text) {
          Error(v, "TypeVar \"" + std::string(s->target->text) + "\" must be declared as " +
                       std::string(s->target->text) + " = TypeVar(\"" +
                       std::string(s->target->text) + "\")");
        }
        for (const PyKeyword& kw : v->keywords) {
          if (kw.name != "bound" || kw.value->kind != PyExprKind::kName ||
              kw.value->text != "int") {
            Error(kw.value, "a symbolic TypeVar takes no constraints other than bound=int");
          }
        }
        if (v->items.size() > 2) Error(v->items[2], "a symbolic TypeVar takes no constraints");
        uses_type_var_decls_ = true;
        type_var_names_.insert(std::string(s->target->text));
        Value tv;
        tv.kind = Value::Kind::kTypeVar;
        tv.s = std::string(s->target->text);
        symbols_.Define(s->target->text, tv);
        break;
      }
      case PyStmtKind::kClassDef:
        if (module_class != nullptr) {
          Error(SpanOf(s->name_begin, s->name_begin + static_cast<uint32_t>(s->name.size())),
                "only one module per file is supported");
        }
        module_class = s;
        break;
      default:
        Error(span, "unsupported top-level statement; expected an @I.ir_module class");
    }
  }
  if (module_class == nullptr) {
    uint32_t end = file_.text().empty() ? 0 : 1;
    Error(SpanOf(0, end), "expected an @I.ir_module class");
  }
  LowerModuleClass(module_class);
  ShareKernelVars(&module_);
  module_.set_syntax(current_syntax_ ? ir::Syntax::kCurrent : ir::Syntax::kClassic);
  module_.set_has_omitted_metadata(lex_info_.metadata_omitted_comment || metadata_referenced_);
  ir::ScriptStyle style;
  style.legacy_tir_header = lex_info_.legacy_tir_header;
  style.pep695 = !uses_type_var_decls_;
  style.tir_syntax = tir_sblock_ ? ir::TirSyntax::kSBlock : ir::TirSyntax::kBlock;
  module_.set_script_style(style);
  return std::move(module_);
}

void Lowerer::LowerModuleClass(const PyStmt* cls) {
  Span name_span =
      SpanOf(cls->name_begin, cls->name_begin + static_cast<uint32_t>(cls->name.size()));
  bool decorated = false;
  for (const PyExpr* d : cls->decorators) {
    if (!IsModuleDecorator(d)) Error(d, "unsupported class decorator; expected @I.ir_module");
    decorated = true;
    if (d->kind != PyExprKind::kCall) continue;
    for (const PyKeyword& kw : d->keywords) {
      // @I.ir_module(s_tir=True): TVM since 2026 (its blocks are spelled T.sblock).
      if (kw.name == "s_tir") tir_sblock_ |= ToBool(Eval(kw.value), kw.value, "s_tir");
    }
  }
  if (!decorated) Error(name_span, "the module class must be decorated with @I.ir_module");
  module_name_ = std::string(cls->name);
  Value module_value;
  module_value.kind = Value::Kind::kModule;
  module_value.s = module_name_;
  symbols_.Define(cls->name, module_value);
  bool py_module = false;
  for (const PyExpr* base : cls->bases) {
    if (DottedName(base) == "BasePyModule") {
      py_module = true;
    } else {
      Error(base, "unsupported base class; only BasePyModule is allowed");
    }
  }
  if (py_module) module_.set_attrs({{"base_py_module", ir::AttrValue(true)}});
  // Pass 1: everything but functions.
  for (const PyStmt* s : cls->body) {
    if (s->kind != PyStmtKind::kFunctionDef && s->kind != PyStmtKind::kOpaqueDef) {
      LowerModuleStatement(s);
    }
  }
  // Pass 2: declare every function.
  for (const PyStmt* s : cls->body) {
    if (s->kind == PyStmtKind::kFunctionDef) DeclareFunction(s);
    if (s->kind == PyStmtKind::kOpaqueDef) {
      Span span = SpanOf(s->name_begin, s->name_begin + static_cast<uint32_t>(s->name.size()));
      bool pyfunc = false;
      for (const PyExpr* d : s->decorators) pyfunc |= IsPyFuncDecorator(d);
      if (pyfunc && !py_module) {
        Error(span, "@I.pyfunc is only allowed in a class that inherits from BasePyModule");
      }
      // TVM declares a PrimFunc by its signature: without a return annotation it returns
      // nothing (R.Tuple()), so a direct call to it may stand as a statement.
      ir::StructInfo ret = !pyfunc && s->returns == nullptr ? ir::VoidSInfo() : ir::ObjectSInfo();
      ir::StructInfo sinfo = ir::Make<ir::FuncSInfoNode>(std::nullopt, ret, false);
      if (globals_.count(std::string(s->name))) {
        Error(span, "duplicate module member '" + std::string(s->name) + "'");
      }
      globals_[std::string(s->name)] =
          ir::Make<ir::GlobalVarNode>(std::string(s->name), sinfo, span);
      member_spans_[std::string(s->name)] = span;
    }
  }
  // Pass 3: the functions themselves.
  for (const PyStmt* s : cls->body) {
    if (s->kind == PyStmtKind::kFunctionDef) {
      ir::Function func = LowerFunction(s, /*nested=*/false);
      ir::GlobalVar& gvar = globals_.at(std::string(s->name));
      if (s->returns == nullptr &&
          !ir::StructInfoEqual(gvar->struct_info(), func->struct_info(), ir::DimEquality::kDeep)) {
        // TVM refines the declared R.Object return once the body is parsed, so a reference
        // made after this point carries the function's own signature.
        gvar = ir::Make<ir::GlobalVarNode>(gvar->name_hint(), func->struct_info(), gvar->span());
      }
      module_.Add(gvar, func);
    } else if (s->kind == PyStmtKind::kOpaqueDef) {
      bool pyfunc = false;
      for (const PyExpr* d : s->decorators) pyfunc |= IsPyFuncDecorator(d);
      if (pyfunc) {
        LowerPyFunc(s);
      } else {
        LowerPrimFunc(s);
      }
    }
  }
}

void Lowerer::LowerModuleStatement(const PyStmt* s) {
  Span span = SpanOf(s->begin, s->end);
  switch (s->kind) {
    case PyStmtKind::kPass:
    case PyStmtKind::kImport:
      return;
    case PyStmtKind::kExpr: {
      const PyExpr* e = s->value;
      if (e->kind == PyExprKind::kString) return;
      std::string callee = e->kind == PyExprKind::kCall ? DottedName(e->items[0]) : "";
      if (callee == "I.module_attrs" || callee == "I.module_global_infos") {
        if (e->items.size() != 2 || !e->keywords.empty()) {
          Error(e, callee + " expects one dictionary argument");
        }
        Value v = Eval(e->items[1]);
        if (v.kind != Value::Kind::kDict) {
          Error(e->items[1], callee + " expects a dictionary, not " + ValueKindName(v.kind));
        }
        ir::AttrValue attr = ToAttr(v, e->items[1]);
        ir::AttrMap map = *attr.as_map();
        if (callee == "I.module_attrs") {
          ir::AttrMap attrs = module_.attrs();
          for (auto& [key, value] : map) attrs = ir::WithAttr(std::move(attrs), key, value);
          module_.set_attrs(std::move(attrs));
          return;
        }
        // Virtual devices as TVM stores them (targets expanded, id and scope written out).
        for (auto& [key, value] : map) {
          const ir::AttrList* items = key == "vdevice" ? value.as_list() : nullptr;
          if (items == nullptr) continue;
          ir::AttrList completed;
          for (const ir::AttrValue& item : *items) {
            const ir::AttrCall* call = item.as_call();
            completed.push_back(call ? ir::AttrValue(ir::CompleteVDevice(*call)) : item);
          }
          value = ir::AttrValue(std::move(completed));
        }
        module_.set_global_infos(map);
        vdevices_.clear();
        if (const ir::AttrValue* list = ir::FindAttr(map, "vdevice")) {
          if (const ir::AttrList* items = list->as_list()) {
            for (const ir::AttrValue& item : *items) {
              const ir::AttrCall* call = item.as_call();
              if (call == nullptr || call->callee != "I.vdevice" || call->args.empty()) continue;
              VDevice vd;
              vd.memory_scope = "global";
              if (const std::string* target = call->args[0].as_string()) {
                vd.kind = target->substr(0, target->find(' '));
              } else if (const ir::AttrMap* config = call->args[0].as_map()) {
                if (const ir::AttrValue* kind = ir::FindAttr(*config, "kind")) {
                  if (kind->as_string()) vd.kind = *kind->as_string();
                }
              }
              if (call->args.size() > 2 && call->args[2].as_string()) {
                vd.memory_scope = *call->args[2].as_string();
              }
              if (const ir::AttrValue* scope = ir::FindAttr(call->kwargs, "memory_scope")) {
                if (scope->as_string()) vd.memory_scope = *scope->as_string();
              }
              vdevices_.push_back(vd);
            }
          }
        }
        return;
      }
      Error(span,
            "unsupported statement in a module; expected a function, "
            "I.module_attrs or I.module_global_infos");
    }
    case PyStmtKind::kAssign: {
      if (s->target->kind != PyExprKind::kName) {
        Error(s->target, "a module-level assignment must bind a name");
      }
      Value v = Eval(s->value);
      if (v.kind == Value::Kind::kExpr && v.expr->kind() == ir::NodeKind::kExternFunc) {
        std::string name(s->target->text);
        auto gvar = ir::Make<ir::GlobalVarNode>(name, v.expr->struct_info(), SpanOf(s->target));
        if (globals_.count(name)) {
          Error(s->target, "duplicate module member '" + name + "'");
        }
        globals_[name] = gvar;
        member_spans_[name] = SpanOf(s->target);
        module_.Add(gvar, v.expr);
        return;
      }
      Error(s->value, "a module-level assignment must define an R.ExternFunc");
    }
    case PyStmtKind::kClassDef:
      Error(span, "nested classes are not supported");
    default:
      Error(span, "unsupported statement in a module");
  }
}

Lowerer::DecoratorInfo Lowerer::LowerFunctionDecorators(const PyStmt* def) {
  DecoratorInfo info;
  Span name_span =
      SpanOf(def->name_begin, def->name_begin + static_cast<uint32_t>(def->name.size()));
  if (def->decorators.empty()) {
    Error(name_span,
          "function '" + std::string(def->name) + "' must be decorated with @R.function");
  }
  for (const PyExpr* d : def->decorators) {
    if (!IsRelaxFunctionDecorator(d)) Error(d, "unsupported decorator; expected @R.function");
    if (d->kind != PyExprKind::kCall) continue;
    if (d->items.size() > 1) Error(d->items[1], "R.function takes only keyword arguments");
    for (const PyKeyword& kw : d->keywords) {
      Span kw_span = SpanOf(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()));
      if (kw.name == "pure") {
        info.pure = ToBool(Eval(kw.value), kw.value, "pure");
      } else if (kw.name == "private") {
        info.is_private = ToBool(Eval(kw.value), kw.value, "private");
      } else if (kw.name == "check_well_formed") {
        ToBool(Eval(kw.value), kw.value, "check_well_formed");
      } else {
        Error(kw_span,
              "R.function got an unexpected keyword argument '" + std::string(kw.name) + "'");
      }
    }
  }
  return info;
}

void Lowerer::DeclareFunction(const PyStmt* def) {
  std::string name(def->name);
  Span span = SpanOf(def->name_begin, def->name_begin + static_cast<uint32_t>(def->name.size()));
  if (globals_.count(name)) Error(span, "duplicate module member '" + name + "'");
  // TVM declares an unannotated return as R.Object (it is refined when the body is parsed).
  ir::StructInfo sinfo = DeclaredSignature(def, nullptr, ir::ObjectSInfo());
  globals_[name] = ir::Make<ir::GlobalVarNode>(name, sinfo, span);
  member_spans_[name] = span;
}

void Lowerer::LowerPrimFunc(const PyStmt* def) {
  bool is_private = false;
  bool s_tir = false;
  for (const PyExpr* d : def->decorators) {
    if (d->kind != PyExprKind::kCall) continue;
    for (const PyKeyword& kw : d->keywords) {
      if (kw.name == "private") is_private = ToBool(Eval(kw.value), kw.value, "private");
      if (kw.name == "s_tir") s_tir = ToBool(Eval(kw.value), kw.value, "s_tir");
    }
  }
  std::string name(def->name);
  bool uses_sblock = false;
  TirLowerOptions tir_options;
  tir_options.is_private = is_private;
  tir_options.s_tir = s_tir;
  // A PEP 695 def (`def f[n](...)`) names its TypeVars itself: they join the module-level ones.
  std::unordered_set<std::string> type_vars = type_var_names_;
  for (const PyParam& p : def->type_params) {
    CheckTypeParam(p);
    type_vars.insert(std::string(p.name));
  }
  tir_options.type_vars = &type_vars;
  tir_options.max_depth = options_.max_depth;
  tir_options.current_syntax = current_syntax_;
  module_.Add(globals_.at(name), LowerTirFunction(file_, def, tir_options, &uses_sblock));
  tir_sblock_ |= s_tir || uses_sblock;
}

void Lowerer::LowerPyFunc(const PyStmt* def) {
  std::string name(def->name);
  auto func = ir::Make<ir::ExternFuncNode>(name, nullptr, SpanOf(def->text_begin, def->text_end));
  module_.Add(globals_.at(name), func);
}

// ---- Entry points ----

ir::IRModule ParseModule(const SourceFile& file, const ParseOptions& options) {
  ParseOptions opts = options;
  if (opts.max_depth < 1) opts.max_depth = 1;
  LexInfo lex_info;
  SyntaxTree tree;
  // The tokens are freed before lowering, which reuses their memory.
  LexAndParse(file, opts.max_depth, opts.split_parse_min_bytes, &tree, &lex_info);
  return Lowerer(file, opts, tree, lex_info).Run();
}

ir::IRModule ParseModule(std::string_view text, std::string file_name,
                         const ParseOptions& options) {
  const SourceFile& file = SourceManager::Global().Add(std::move(file_name), std::string(text));
  return ParseModule(file, options);
}

}  // namespace pipesplit::script
