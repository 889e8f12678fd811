// Printer: the module (header comments, `@I.ir_module class Module:`, module attrs and global
// infos, members sorted as TVM sorts them, the metadata note) and the public entry points.
#include <algorithm>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/thread_pool.h"
#include "src/script/printer/printer_internal.h"
#include "src/script/printer/printer_tir.h"

namespace pipesplit::script {
namespace printer {

Printer::Printer(const Config& config, const ir::IRModule* mod) : config_(config), mod_(mod) {
  // TVM's builtin keywords: the dialect prefixes and the module alias.
  for (const char* keyword : {"I", "T", "R", "cls"}) names_.Reserve(keyword);
}

std::vector<StmtDoc> Printer::HeaderComments() const {
  std::vector<StmtDoc> out;
  if ((usage_ & (kUseIr | kUseTir | kUseRelax | kUseTypeVar | kUseFuture)) == 0) return out;
  if (usage_ & kUseTypeVar) out.push_back(StmtDoc::Comment("from typing import TypeVar"));
  if (usage_ & kUseIr) out.push_back(StmtDoc::Comment("from tvm.script import ir as I"));
  if (usage_ & kUseTir) {
    if (config_.legacy_tir_header) {
      out.push_back(StmtDoc::Comment("from tvm.script import tir as T"));
    } else {
      out.push_back(StmtDoc::Comment("from tvm.script import tirx as T"));
      out.push_back(StmtDoc::Comment("from tvm.tirx.layout import Axis"));
    }
  }
  if (usage_ & kUseRelax) out.push_back(StmtDoc::Comment("from tvm.script import relax as R"));
  out.push_back(StmtDoc::Comment(""));
  return out;
}

void Printer::PrimFuncMember(const ir::PrimFuncNode& func, std::vector<StmtDoc>* out,
                             std::vector<std::string>* type_vars) {
  usage_ |= kUseTir;
  StmtDoc doc;
  doc.kind = StmtDoc::Kind::kVerbatim;
  TirPrintOptions options;
  options.sblock = config_.tir_syntax == ir::TirSyntax::kSBlock;
  options.s_tir_for_blocks = config_.s_tir_for_blocks;
  options.quoted_signature = current() && !config_.fragment;
  options.pep695 = config_.pep695;
  options.reserved_names = config_.kernel_reserved_names;
  std::vector<std::string> names;
  doc.text = PrintTirFunction(func, options, &names);
  if (!names.empty()) {
    // As a Relax function's: module-level TypeVars, or PEP 695 type parameters.
    usage_ |= config_.pep695 ? kUseFuture : kUseTypeVar;
    if (type_vars != nullptr && !config_.pep695) *type_vars = std::move(names);
  }
  out->push_back(std::move(doc));
}

StmtDoc Printer::Member(const ir::IRModule::Member& member, std::vector<std::string>* type_vars) {
  FrameScope frame(this);
  frame->is_relax = false;
  names_.Reserve("Module");
  std::vector<StmtDoc> docs;
  const std::string& name = member.gvar->name_hint();
  if (const auto* prim = ir::As<ir::PrimFuncNode>(member.func)) {
    PrimFuncMember(*prim, &docs, type_vars);
  } else if (const auto* ext = ir::As<ir::ExternFuncNode>(member.func)) {
    std::string line = name + " = ";
    ExternFuncExpr(*ext, &line);
    docs.push_back(StmtDoc::Line(std::move(line)));
  } else if (const auto* func = ir::As<ir::FunctionNode>(member.func)) {
    docs = Function(*func, name, /*top_level=*/true, type_vars);
  }
  PS_CHECK(!docs.empty()) << "module member '" << name << "' of an unknown kind";
  StmtDoc rendered;
  rendered.kind = StmtDoc::Kind::kRendered;
  RenderStmtAt(docs.back(), /*indent=*/4, &rendered.text);
  return rendered;
}

std::string Printer::Module() {
  FrameScope frame(this);
  frame->is_relax = false;
  names_.Reserve("Module");
  std::vector<StmtDoc> body;
  if (!mod_->attrs().empty()) {
    usage_ |= kUseIr;
    body.push_back(StmtDoc::Line("I.module_attrs(" + AttrDict(mod_->attrs()) + ")"));
  }
  if (!mod_->global_infos().empty()) {
    usage_ |= kUseIr;
    body.push_back(StmtDoc::Line("I.module_global_infos(" + AttrDict(mod_->global_infos()) + ")"));
  }
  // TVM's order: PrimFuncs, then ExternFuncs, then Relax functions, each by name; `main` last.
  auto priority = [](const ir::IRModule::Member& m) {
    if (m.gvar->name_hint() == "main") return 1000;
    if (ir::Is<ir::PrimFuncNode>(m.func)) return 1;
    if (ir::Is<ir::ExternFuncNode>(m.func)) return 2;
    return 3;
  };
  std::vector<const ir::IRModule::Member*> members;
  for (const auto& m : mod_->members()) members.push_back(&m);
  std::sort(members.begin(), members.end(), [&](const auto* a, const auto* b) {
    int pa = priority(*a), pb = priority(*b);
    if (pa != pb) return pa < pb;
    return a->gvar->name_hint() < b->gvar->name_hint();
  });
  // Members are printed side by side, each by a printer of its own, and rendered at the class
  // body's indentation. A member's names are freed when it ends, so each starts from the names
  // reserved here, as it would after the members before it.
  struct Printed {
    StmtDoc doc;
    std::vector<std::string> type_vars;
    uint32_t usage = 0;
  };
  std::vector<Printed> printed(members.size());
  support::CompileParallelFor(static_cast<int64_t>(members.size()), [&](int64_t i) {
    Printer member_printer(config_, mod_);
    Printed& p = printed[static_cast<size_t>(i)];
    p.doc = member_printer.Member(*members[static_cast<size_t>(i)], &p.type_vars);
    p.usage = member_printer.usage_;
  });
  std::vector<StmtDoc> type_var_decls;
  std::unordered_set<std::string>& declared_type_vars = module_type_vars_;
  size_t members_size = 0;  // to reserve the output once
  for (Printed& p : printed) {
    usage_ |= p.usage;
    for (const std::string& v : p.type_vars) {
      if (declared_type_vars.insert(v).second) {
        type_var_decls.push_back(StmtDoc::Line(v + " = TypeVar(" + QuoteString(v) + ")"));
      }
    }
    members_size += p.doc.text.size() + 8;
    body.push_back(std::move(p.doc));
  }
  usage_ |= kUseIr;
  StmtDoc cls;
  cls.kind = StmtDoc::Kind::kClass;
  cls.decorators.push_back("I.ir_module");
  cls.text = "class Module:";
  cls.body = std::move(body);
  type_var_decls.push_back(std::move(cls));
  std::vector<StmtDoc> file = HeaderWrap(std::move(type_var_decls));
  if (mod_->has_omitted_metadata() || (usage_ & kUseMetadata)) {
    file.push_back(
        StmtDoc::Comment("Metadata omitted. Use show_meta=True in script() method to show it."));
  }
  std::string out;
  out.reserve(members_size + 4096);
  if (usage_ & kUseFuture) out += "from __future__ import annotations\n\n";
  RenderStmts(file, &out);
  out += '\n';
  return out;
}

std::string Printer::Fragment(const ir::Expr& expr) {
  FrameScope frame(this);
  std::vector<StmtDoc> stmts;
  if (const auto* func = ir::As<ir::FunctionNode>(expr)) {
    // As TVM prints a lone function: named by its global symbol, else "main"; private when it
    // has no global symbol.
    const ir::AttrValue* symbol = func->GetAttr(ir::attr::kGlobalSymbol);
    std::string name = symbol != nullptr && symbol->as_string() ? *symbol->as_string() : "main";
    std::vector<StmtDoc> docs = Function(*func, name, /*top_level=*/true, nullptr);
    stmts.push_back(std::move(docs.back()));
  } else if (const auto* seq = ir::As<ir::SeqExprNode>(expr)) {
    stmts = SeqExpr(*seq, /*use_ret=*/false, nullptr);
  } else if (const auto* if_node = ir::As<ir::IfNode>(expr)) {
    stmts.push_back(IfStmt(*if_node, nullptr, nullptr));
  } else if (const auto* prim = ir::As<ir::PrimFuncNode>(expr)) {
    PrimFuncMember(*prim, &stmts, nullptr);
  } else {
    stmts.push_back(StmtDoc::Line(Expr(expr)));
  }
  std::string out;
  RenderStmts(stmts, &out);
  return out;
}

std::string Printer::Fragment(const ir::StructInfo& sinfo) {
  FrameScope frame(this);
  return SInfo(sinfo);
}

}  // namespace printer

std::string PrintModule(const ir::IRModule& mod, const PrintOptions& options) {
  printer::Printer::Config config;
  config.syntax = options.syntax.value_or(mod.syntax());
  config.tir_syntax = options.tir_syntax.value_or(mod.script_style().tir_syntax);
  bool converted = config.tir_syntax != mod.script_style().tir_syntax;
  config.s_tir_for_blocks = converted && config.tir_syntax == ir::TirSyntax::kSBlock;
  // Converting the spelling converts the header too: T.block is TVM's before 2026, whose
  // header names the dialect `tir`; T.sblock is TVM's since, whose header says `tirx`.
  config.legacy_tir_header =
      options.legacy_tir_header.value_or(converted ? config.tir_syntax == ir::TirSyntax::kBlock
                                                   : mod.script_style().legacy_tir_header);
  config.pep695 = options.pep695.value_or(mod.script_style().pep695);
  config.complete_attrs = options.complete_attrs;
  printer::Printer printer(config, &mod);
  std::string text = printer.Module();
  if (!options.for_tvm_parser || printer.module_type_vars().empty()) return text;
  // Again, the kernels' own vars kept off the TypeVar names (the TypeVars are the same: a
  // signature's TypeVars are named before the reserved names apply).
  std::unordered_set<std::string> reserved = printer.module_type_vars();
  config.kernel_reserved_names = &reserved;
  return printer::Printer(config, &mod).Module();
}

std::string PrintStructInfo(const ir::StructInfo& sinfo, ir::Syntax syntax) {
  FragmentOptions options;
  options.syntax = syntax;
  return PrintStructInfo(sinfo, options);
}

std::string PrintExpr(const ir::Expr& expr, ir::Syntax syntax) {
  FragmentOptions options;
  options.syntax = syntax;
  return PrintExpr(expr, options);
}

}  // namespace pipesplit::script
