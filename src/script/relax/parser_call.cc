// Lowering: calls. R.* builtins (constants, shapes, tuples, match_cast), op
// calls placed through the op table's TVMScript signatures (OpInfo::params), T.* intrinsics
// and symbolic declarations, I.* attribute calls, and calls of functions and closures.
#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"

namespace pipesplit::script {
namespace {

bool IsSInfoKeyword(std::string_view name) {
  return name == "sinfo_args" || name == "out_sinfo" || name == "ty_args" || name == "out_ty";
}

}  // namespace

Lowerer::BoundArgs Lowerer::BindArgs(const PyExpr* call, std::string_view display_view,
                                     std::initializer_list<std::string_view> param_list) const {
  const Lowerer& lowerer = *this;
  const std::string_view* params = param_list.begin();
  const size_t n_params = param_list.size();
  auto display_text = [&] { return std::string(display_view); };
  PS_CHECK(n_params <= kMaxBoundArgs) << display_view << " has too many parameters for BindArgs";
  BoundArgs result;
  std::array<const PyExpr*, kMaxBoundArgs>& bound = result.items;
  if (call == nullptr || call->kind != PyExprKind::kCall) return result;
  size_t positional = call->items.size() - 1;
  if (positional > n_params) {
    lowerer.Error(call->items[n_params + 1],
                  display_text() + " takes at most " + std::to_string(n_params) +
                      " positional arguments but " + std::to_string(positional) + " were given");
  }
  for (size_t i = 0; i < positional; ++i) {
    if (call->items[i + 1]->kind == PyExprKind::kStarred) {
      lowerer.Error(call->items[i + 1], "starred arguments are not supported here");
    }
    bound[i] = call->items[i + 1];
  }
  for (const PyKeyword& kw : call->keywords) {
    size_t k = 0;
    while (k < n_params && params[k] != kw.name) ++k;
    Span span =
        lowerer.SpanOf(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()));
    if (k == n_params) {
      lowerer.Error(span, display_text() + " got an unexpected keyword argument '" +
                              std::string(kw.name) + "'");
    }
    if (bound[k] != nullptr) {
      lowerer.Error(span, display_text() + " got multiple values for argument '" +
                              std::string(kw.name) + "'");
    }
    bound[k] = kw.value;
  }
  return result;
}

Value Lowerer::EvalCall(const PyExpr* e) {
  const PyExpr* callee = e->items[0];
  // The name the dotted callee starts with, if it is one (no string is built unless it is
  // unbound: a builtin namespace or an error).
  const PyExpr* root_node = callee;
  while (root_node->kind == PyExprKind::kAttribute) root_node = root_node->items[0];
  if (root_node->kind == PyExprKind::kName && symbols_.Lookup(root_node->text) == nullptr) {
    // Most calls: R.<op>(...).
    if (callee->kind == PyExprKind::kAttribute && callee->items[0] == root_node &&
        root_node->text == "R" && callee->text != "device_mesh") {
      // The commonest calls of a lowered module, without the builtin dispatch.
      if (callee->text == "call_tir") {
        Value direct;
        if (TryDirectCallTir(e, &direct)) return direct;
      } else if (callee->text == "Tensor") {
        if (const ir::StructInfo* seen = SeenStaticTensor(e)) {
          Value v;
          v.kind = Value::Kind::kSInfo;
          v.sinfo = *seen;
          v.node = e;
          return v;
        }
      }
      return EvalRelaxBuiltin(std::string(callee->text), e);
    }
    std::string name = DottedName(callee);
    std::string root(root_node->text);
    // A device mesh is a global info (I.module_global_infos({"mesh": [R.device_mesh(...)]})),
    // kept as the call written, like I.vdevice.
    if (name == "R.device_mesh" || name == "R.dist.device_mesh") return EvalAttrCall(name, e);
    if (name.rfind("R.", 0) == 0) return EvalRelaxBuiltin(name.substr(2), e);
    if (name.rfind("T.", 0) == 0) return EvalTirBuiltin(name.substr(2), e);
    if (name.rfind("I.", 0) == 0) return EvalIrBuiltin(name.substr(2), e);
    if (name == "TypeVar") Error(callee, "TypeVar declarations are only allowed at module level");
    if (root == "R" || root == "T" || root == "I") Error(callee, "unknown function '" + name + "'");
    Error(callee, name.find('.') == std::string::npos
                      ? "undefined variable '" + root + "'"
                      : "undefined variable '" + root + "' in '" + name + "'");
  }
  // Methods of Relax values: x.astype("float16").
  if (callee->kind == PyExprKind::kAttribute && callee->text == "astype") {
    Value base = Eval(callee->items[0]);
    if (base.kind == Value::Kind::kExpr) {
      std::vector<Value> positional{base};
      for (size_t i = 1; i < e->items.size(); ++i) positional.push_back(Eval(e->items[i]));
      std::vector<std::pair<const PyKeyword*, Value>> keywords;
      for (const PyKeyword& kw : e->keywords) keywords.emplace_back(&kw, Eval(kw.value));
      return CallOpWithArgs("relax.astype", positional, keywords, e);
    }
  }
  return CallValue(Eval(callee), e);
}

Value Lowerer::CallValue(const Value& callee, const PyExpr* call) {
  if (callee.kind != Value::Kind::kExpr) {
    Error(call->items[0], std::string(ValueKindName(callee.kind)) + " is not callable");
  }
  if (!call->keywords.empty()) {
    Error(call, "keyword arguments are not supported when calling a relax function");
  }
  std::vector<ir::Expr> args;
  for (size_t i = 1; i < call->items.size(); ++i) {
    if (call->items[i]->kind == PyExprKind::kStarred) {
      Error(call->items[i], "starred arguments are not supported");
    }
    args.push_back(ToArg(Eval(call->items[i]), call->items[i]));
  }
  ir::Expr op = NormalizeArg(callee.expr);
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr = ir::Make<ir::CallNode>(op, std::move(args), ir::AttrMap{}, std::vector<ir::StructInfo>{},
                                  nullptr, SpanOf(call));
  v.node = call;
  return v;
}

Value Lowerer::EvalRelaxBuiltin(const std::string& name, const PyExpr* call) {
  // The names this function handles; any other R.<name> is an operator (most calls: one
  // lookup here instead of a comparison with each name below).
  static const std::unordered_set<std::string_view, NameHash> kHandled = {
      "Tensor",       "Shape",      "Tuple",        "Object",     "Any",        "Prim",
      "Callable",     "PackedFunc", "const",        "prim_value", "str",        "dtype",
      "shape",        "tuple",      "TupleGetItem", "match_cast", "ExternFunc", "call_packed",
      "call_py_func", "output",     "func_attr",    "dataflow",   "function"};
  if (kHandled.count(name) == 0) {
    if (name != last_relax_short_name_ || last_relax_op_name_.empty()) {
      last_relax_short_name_ = name;
      last_relax_op_name_ = "relax." + name;
    }
    std::string op_name = last_relax_op_name_;  // a copy: nested calls replace the cache
    return CallOp(op_name, call);
  }
  if (name == "Tensor" || name == "Shape" || name == "Tuple" || name == "Object" || name == "Any" ||
      name == "Prim" || name == "Callable" || name == "PackedFunc") {
    return MakeSInfo(name, call);
  }
  const std::string display = "R." + name;
  Span span = SpanOf(call);
  Value v;
  v.kind = Value::Kind::kExpr;
  v.node = call;
  if (name == "const") {
    auto args = BindArgs(call, display, {"value", "dtype"});
    if (args[0] == nullptr) Error(call, "R.const needs a value");
    DataType dtype;
    bool has_dtype = args[1] != nullptr && args[1]->kind != PyExprKind::kNone;
    if (has_dtype) dtype = ToDType(Eval(args[1]), args[1]);
    if (has_dtype && (dtype.is_void() || dtype.lanes() != 1)) {
      Error(args[1], "invalid dtype for R.const");
    }
    Value value = Eval(args[0]);
    if (value.kind == Value::Kind::kList || value.kind == Value::Kind::kTuple) {
      v.expr = ConstTensor(value, args[0], has_dtype ? &dtype : nullptr, span);
      return v;
    }
    if (value.kind != Value::Kind::kInt && value.kind != Value::Kind::kFloat &&
        value.kind != Value::Kind::kBool) {
      Error(args[0], std::string("R.const takes a number, a bool or a nested list of them, not ") +
                         ValueKindName(value.kind));
    }
    if (!has_dtype) dtype = DefaultConstDType(value.kind);
    v.expr = ir::Make<ir::ConstantNode>(ConstElement(value, dtype, args[0]), dtype, span);
    return v;
  }
  if (name == "prim_value") {
    auto args = BindArgs(call, display, {"value"});
    if (args[0] == nullptr) Error(call, "R.prim_value needs a value");
    Value value = Eval(args[0]);
    if (value.kind == Value::Kind::kBool) {  // a Python bool is an int: IntImm("int64", b)
      value.kind = Value::Kind::kInt;
      value.i = value.b ? 1 : 0;
    }
    v.expr = ir::Make<ir::PrimValueNode>(ToPrim(value, args[0]), span);
    return v;
  }
  if (name == "str") {
    auto args = BindArgs(call, display, {"value"});
    if (args[0] == nullptr) Error(call, "R.str needs a value");
    v.expr = ir::Make<ir::StringImmNode>(ToStr(Eval(args[0]), args[0], "R.str"), span);
    return v;
  }
  if (name == "dtype") {
    auto args = BindArgs(call, display, {"value"});
    if (args[0] == nullptr) Error(call, "R.dtype needs a value");
    v.expr = ir::Make<ir::DataTypeImmNode>(ToDType(Eval(args[0]), args[0]), span);
    return v;
  }
  if (name == "shape") {
    auto args = BindArgs(call, display, {"value"});
    if (args[0] == nullptr) Error(call, "R.shape needs a list of dimensions");
    v.expr = ir::Make<ir::ShapeExprNode>(EvalDims(args[0]), span);
    return v;
  }
  if (name == "tuple") {
    if (!call->keywords.empty()) Error(call, "R.tuple takes no keyword arguments");
    std::vector<ir::Expr> fields;
    for (size_t i = 1; i < call->items.size(); ++i) {
      fields.push_back(ToArg(Eval(call->items[i]), call->items[i]));
    }
    v.expr = NormalizeValue(ir::Make<ir::TupleNode>(std::move(fields), nullptr, span));
    return v;
  }
  if (name == "TupleGetItem") {
    auto args = BindArgs(call, display, {"tuple_value", "index"});
    if (args[0] == nullptr || args[1] == nullptr)
      Error(call, "R.TupleGetItem needs a tuple and an index");
    ir::Expr tuple = ToArg(Eval(args[0]), args[0]);
    int64_t index = ToInt(Eval(args[1]), args[1], "the tuple index");
    if (index < 0 || index > std::numeric_limits<int>::max()) {
      Error(args[1], "a tuple index must be non-negative");
    }
    v.expr = NormalizeValue(
        ir::Make<ir::TupleGetItemNode>(tuple, static_cast<int>(index), nullptr, span));
    return v;
  }
  if (name == "match_cast") {
    auto args = BindArgs(call, display, {"value", "struct_info"});
    if (args[0] == nullptr || args[1] == nullptr) {
      Error(call, "R.match_cast needs a value and a struct info");
    }
    Value value = Eval(args[0]);
    Value r;
    r.kind = Value::Kind::kMatchCast;
    r.expr = ToExpr(value, args[0]);
    bool saved = create_symbols_;
    create_symbols_ = true;  // symbolic vars first seen in the target are defined by the cast
    try {
      r.sinfo = EvalSInfo(args[1], false);
    } catch (...) {
      create_symbols_ = saved;
      throw;
    }
    create_symbols_ = saved;
    r.node = call;
    return r;
  }
  if (name == "ExternFunc") {
    auto args = BindArgs(call, display, {"global_symbol", "struct_info"});
    if (args[0] == nullptr) Error(call, "R.ExternFunc needs a symbol name");
    std::string symbol = ToStr(Eval(args[0]), args[0], "R.ExternFunc");
    ir::StructInfo sinfo = args[1] != nullptr ? EvalSInfo(args[1], false) : nullptr;
    v.expr = ir::Make<ir::ExternFuncNode>(symbol, sinfo, span);
    return v;
  }
  if (name == "call_packed") return CallPacked(call);
  if (name == "call_py_func") return CallPyFunc(call);
  if (name == "output") Error(call, "R.output is only allowed inside a dataflow block");
  if (name == "func_attr") Error(call, "R.func_attr is only allowed as a statement of a function");
  if (name == "dataflow") Error(call, "R.dataflow() is only allowed in a with statement");
  if (name == "function") Error(call, "R.function is a decorator");
  return CallOp("relax." + name, call);
}

Value Lowerer::CallOp(const std::string& op_name, const PyExpr* call) {
  std::vector<Value> positional;
  std::vector<std::pair<const PyKeyword*, Value>> keywords;
  if (!positional_pool_.empty()) {
    positional = std::move(positional_pool_.back());
    positional_pool_.pop_back();
  }
  if (!keyword_pool_.empty()) {
    keywords = std::move(keyword_pool_.back());
    keyword_pool_.pop_back();
  }
  positional.reserve(call->items.size());
  for (size_t i = 1; i < call->items.size(); ++i) {
    if (call->items[i]->kind == PyExprKind::kStarred) {
      Error(call->items[i], "starred arguments are not supported");
    }
    positional.push_back(Eval(call->items[i]));
  }
  keywords.reserve(call->keywords.size() + 1);  // + 1: call_tir may add its tir_vars
  for (const PyKeyword& kw : call->keywords) keywords.emplace_back(&kw, Eval(kw.value));
  Value result = CallOpWithArgs(op_name, positional, keywords, call);
  positional.clear();
  keywords.clear();
  positional_pool_.push_back(std::move(positional));
  keyword_pool_.push_back(std::move(keywords));
  return result;
}

Value Lowerer::CallOpWithArgs(const std::string& op_name, std::vector<Value>& positional,
                              std::vector<std::pair<const PyKeyword*, Value>>& keywords,
                              const PyExpr* call) {
  ir::Op op = CachedOp(op_name);
  const ir::OpInfo* info = op->info();
  const std::string& display = op->script_name();
  auto kw_span = [&](const PyKeyword* kw) {
    return SpanOf(kw->name_begin, kw->name_begin + static_cast<uint32_t>(kw->name.size()));
  };
  auto node_of = [&](const Value& value) { return value.node != nullptr ? value.node : call; };
  std::vector<ir::Expr> args;
  ir::AttrMap attrs;
  std::vector<ir::StructInfo> sinfo_args;
  if (info == nullptr) {
    for (const Value& p : positional) args.push_back(ToArg(p, node_of(p)));
    for (const auto& [kw, value] : keywords) {
      if (IsSInfoKeyword(kw->name)) {
        sinfo_args =
            ToSInfoArgs(value, kw->name == "out_sinfo" || kw->name == "out_ty", node_of(value));
      } else {
        attrs =
            ir::WithAttr(std::move(attrs), std::string(kw->name), ToAttr(value, node_of(value)));
      }
    }
  } else {
    const std::vector<ir::OpParam>& params = info->params;
    // Current syntax: call_tir's trailing symbolic arguments are its tir_vars.
    auto has_tir_vars = [&] {
      for (const auto& [kw, value] : keywords) {
        if (kw->name == "tir_vars") return true;
      }
      for (size_t k = 0; k < params.size() && k < positional.size(); ++k) {
        if (params[k].name == "tir_vars") return true;
      }
      return false;
    };
    if (current_syntax_ && positional.size() >= 2 &&
        (positional[1].kind == Value::Kind::kTuple || positional[1].kind == Value::Kind::kList) &&
        (op_name == "relax.call_tir" || op_name == "relax.call_tir_inplace" ||
         op_name == "relax.call_tir_with_grad") &&
        !has_tir_vars()) {
      std::vector<Value>& items = positional[1].items;
      size_t split = items.size();
      while (split > 0 && IsPrimLike(items[split - 1])) --split;
      if (split < items.size()) {
        Value tir_vars;
        tir_vars.kind = Value::Kind::kList;
        tir_vars.node = positional[1].node;
        tir_vars.items.assign(items.begin() + static_cast<std::ptrdiff_t>(split), items.end());
        items.resize(split);
        static const PyKeyword kTirVars{"tir_vars", 0, nullptr};
        keywords.emplace_back(&kTirVars, std::move(tir_vars));
      }
    }
    // Scratch vectors kept across calls (no allocation per call). Nothing below re-enters
    // this function; the guard turns a future re-entry into a reported bug, not a silent
    // overwrite of the vectors in use.
    PS_CHECK(!in_scratch_call_) << "CallOpWithArgs re-entered while its scratch vectors are in use";
    in_scratch_call_ = true;
    struct Release {
      bool* flag;
      ~Release() { *flag = false; }
    } release{&in_scratch_call_};
    std::vector<const Value*>& bound = scratch_bound_;
    std::vector<const Value*>& variadic = scratch_variadic_;
    bound.assign(params.size(), nullptr);
    variadic.clear();
    size_t pi = 0;
    for (const Value& p : positional) {
      if (pi < params.size() && params[pi].kind == ir::OpParam::Kind::kVariadic) {
        variadic.push_back(&p);
        continue;
      }
      if (pi >= params.size()) {
        Error(node_of(p), display + " takes " + std::to_string(params.size()) +
                              " positional arguments but " + std::to_string(positional.size()) +
                              " were given");
      }
      bound[pi++] = &p;
    }
    for (const auto& [kw, value] : keywords) {
      size_t k = 0;
      bool sinfo_kw = IsSInfoKeyword(kw->name);
      while (k < params.size() &&
             !(params[k].name == kw->name ||
               (sinfo_kw && params[k].kind == ir::OpParam::Kind::kSInfoArgs))) {
        ++k;
      }
      Span span = kw->value != nullptr ? kw_span(kw) : SpanOf(call);
      if (k == params.size() || params[k].kind == ir::OpParam::Kind::kVariadic) {
        Error(span,
              display + " got an unexpected keyword argument '" + std::string(kw->name) + "'");
      }
      if (bound[k] != nullptr) {
        Error(span, display + " got multiple values for argument '" + params[k].name + "'");
      }
      bound[k] = &value;
    }
    // Relax arguments in signature order; an optional one left out is dropped when it
    // defaults to None (unless a later one is given) and materialized when it defaults to an
    // expression, as TVM's op constructors do.
    size_t last_given = 0;
    for (size_t k = 0; k < params.size(); ++k) {
      if (params[k].kind == ir::OpParam::Kind::kArg && bound[k] != nullptr &&
          bound[k]->kind != Value::Kind::kNone) {
        last_given = k + 1;
      }
    }
    // (arg_index, arg) of args with a fixed slot
    std::vector<std::pair<int, ir::Expr>>& placed = scratch_placed_;
    std::vector<ir::Expr>& ordered = scratch_ordered_;
    placed.clear();
    ordered.clear();
    auto add_arg = [&](const ir::OpParam& param, ir::Expr arg) {
      if (param.arg_index >= 0) {
        placed.emplace_back(param.arg_index, std::move(arg));
      } else {
        ordered.push_back(std::move(arg));
      }
    };
    for (size_t k = 0; k < params.size(); ++k) {
      const ir::OpParam& param = params[k];
      const Value* value = bound[k];
      switch (param.kind) {
        case ir::OpParam::Kind::kArg: {
          bool given = value != nullptr &&
                       !(value->kind == Value::Kind::kNone && param.default_value.has_value());
          if (given) {
            add_arg(param, ToOpArg(*value, param, op_name, node_of(*value)));
            break;
          }
          if (!param.default_value) {
            Error(call, display + " missing required argument '" + param.name + "'");
          }
          const ir::AttrValue& dv = *param.default_value;
          if (const ir::Expr* e = dv.as_expr()) {
            add_arg(param, *e);
            break;
          }
          if (k >= last_given) break;
          Value d;
          if (const int64_t* i = dv.as_int()) {
            d.kind = Value::Kind::kInt, d.i = *i;
          } else if (const double* f = dv.as_float()) {
            d.kind = Value::Kind::kFloat, d.f = *f;
          } else if (const bool* b = dv.as_bool()) {
            d.kind = Value::Kind::kBool, d.b = *b;
          } else if (const std::string* s = dv.as_string()) {
            d.kind = Value::Kind::kStr, d.s = *s;
          } else {
            Error(call, display + " needs argument '" + param.name +
                            "' because a later argument is given");
          }
          add_arg(param, ToOpArg(d, param, op_name, call));
          break;
        }
        case ir::OpParam::Kind::kVariadic:
          for (const Value* p : variadic) add_arg(param, ToArg(*p, node_of(*p)));
          break;
        case ir::OpParam::Kind::kAttr:
          if (value != nullptr) {
            ir::AttrValue attr = ToAttr(*value, node_of(*value));
            // A dtype attribute stores DataType(""), which is void (TVM prints "void").
            const std::string* text = attr.as_string();
            const std::string* fallback =
                param.default_value ? param.default_value->as_string() : nullptr;
            if (text && text->empty() && fallback && *fallback == "void") attr = *fallback;
            // A float attribute that is not finite prints quoted (epsilon="inf"): read back as
            // the float it was.
            if (text && param.default_value && param.default_value->as_float() &&
                (*text == "inf" || *text == "-inf" || *text == "nan")) {
              attr = *text == "nan"
                         ? std::numeric_limits<double>::quiet_NaN()
                         : (*text == "inf" ? 1.0 : -1.0) * std::numeric_limits<double>::infinity();
            }
            // A device named by kind ("llvm") is the module's vdevice it designates, as in
            // annotations ("llvm:0:global").
            // One the module does not declare is an error: an annotation would drop it (as TVM
            // does), so the inferred type would not survive a reprint.
            if (op_name == "relax.to_vdevice" && param.name == "dst_vdevice" && text) {
              std::string resolved = LookupVDevice(*value, node_of(*value));
              if (resolved.empty()) {
                Error(node_of(*value), display + ": no vdevice '" + *text +
                                           "' among the module's I.module_global_infos");
              }
              attr = std::move(resolved);
            }
            attrs.emplace_back(param.name, std::move(attr));
          } else if (!param.default_value) {
            Error(call, display + " missing required argument '" + param.name + "'");
          }
          break;
        case ir::OpParam::Kind::kSInfoArgs:
          if (value != nullptr) {
            sinfo_args = ToSInfoArgs(*value, param.name == "out_sinfo", node_of(*value));
          }
          break;
      }
    }
    auto by_index = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(placed.begin(), placed.end(), by_index)) {
      std::stable_sort(placed.begin(), placed.end(), by_index);
    }
    size_t next_placed = 0, next_ordered = 0;
    size_t total = placed.size() + ordered.size();
    args.reserve(total);
    for (size_t i = 0; i < total; ++i) {
      if (next_placed < placed.size() &&
          (static_cast<size_t>(placed[next_placed].first) <= i || next_ordered == ordered.size())) {
        args.push_back(std::move(placed[next_placed++].second));
      } else {
        args.push_back(std::move(ordered[next_ordered++]));
      }
    }
    // The attributes TVM's op constructor stores: every declared one in declaration (printing)
    // order, defaults filled in and derived values normalized (the op table's CompleteAttrs).
    attrs = ir::CompleteAttrs(*info, attrs, args);
  }
  DesugarOpCall(op_name, call, &op, &args, &attrs);
  Value v;
  v.kind = Value::Kind::kExpr;
  v.expr = ir::Make<ir::CallNode>(op, std::move(args), std::move(attrs), std::move(sinfo_args),
                                  nullptr, SpanOf(call));
  v.node = call;
  return v;
}

ir::Op Lowerer::CachedOp(const std::string& name) {
  if (last_op_ == nullptr || name != last_op_name_) {
    last_op_ = ir::GetOp(name);
    last_op_name_ = name;
  }
  return last_op_;
}

// The rewrites TVM's Python op wrappers make before the call reaches the IR: R.nn.relu6(x) is
// R.clip(x, 0, 6), and R.nn.attention with a bias is the op R.nn.attention_bias.
void Lowerer::DesugarOpCall(const std::string& op_name, const PyExpr* call, ir::Op* op,
                            std::vector<ir::Expr>* args, ir::AttrMap* attrs) {
  if (args->size() == 1 && attrs->empty() && op_name == "relax.nn.relu6") {
    *op = ir::GetOp("relax.clip");
    for (int64_t bound : {0, 6}) {
      args->push_back(ir::Make<ir::PrimValueNode>(ir::IntImm(bound), SpanOf(call)));
    }
  } else if (args->size() == 4 && op_name == "relax.nn.attention") {
    *op = ir::GetOp("relax.nn.attention_bias");
  }
}

}  // namespace pipesplit::script
