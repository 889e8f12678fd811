// Lowering: struct info annotations (R.Tensor, R.Shape, R.Tuple, R.Object / R.Any, R.Prim /
// T.int64, R.Callable), symbolic dimensions (bare or as strings such as "n * 2" in
// signatures), vdevice lookup, and the compatibility rules between annotations and values.
#include "pipesplit/ir/arith.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/relax/parser_lower.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {
namespace {

bool IsSInfoName(std::string_view n) {
  return n == "Tensor" || n == "Shape" || n == "Tuple" || n == "Object" || n == "Any" ||
         n == "Prim" || n == "Callable" || n == "PackedFunc";
}

// Two dimensions that are both constants and differ.
bool ConstantsDiffer(const ir::PrimExpr& a, const ir::PrimExpr& b) {
  auto x = ir::AsConstInt(a);
  auto y = ir::AsConstInt(b);
  return x && y && *x != *y;
}

bool DimsIncompatible(const std::vector<ir::PrimExpr>& a, const std::vector<ir::PrimExpr>& b) {
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ConstantsDiffer(a[i], b[i])) return true;
  }
  return false;
}

}  // namespace

ir::StructInfo Lowerer::EvalSInfo(const PyExpr* e, bool signature) {
  const PyExpr* callee = e->kind == PyExprKind::kCall ? e->items[0] : e;
  // Most annotations: R.<struct info>(...), known without building the dotted name.
  bool known = callee->kind == PyExprKind::kAttribute &&
               callee->items[0]->kind == PyExprKind::kName && callee->items[0]->text == "R" &&
               IsSInfoName(callee->text);
  if (!known) {
    std::string name = DottedName(callee);
    if (name.rfind("R.", 0) == 0 && symbols_.Lookup("R") == nullptr &&
        !IsSInfoName(name.substr(2))) {
      Error(callee, "unknown struct info '" + name + "'");
    }
  }
  if (e->kind == PyExprKind::kString) {
    Error(e, "expected struct info but found a string");
  }
  bool saved = signature_mode_;
  signature_mode_ = signature;
  Value v = Eval(e);
  signature_mode_ = saved;
  return ToSInfo(v, e);
}

ir::StructInfo Lowerer::ToSInfo(const Value& v, const PyExpr* node) {
  if (v.kind == Value::Kind::kSInfo) return v.sinfo;
  if (v.kind == Value::Kind::kNone) return ir::VoidSInfo();
  Error(node, std::string("expected struct info but found ") + ValueKindName(v.kind));
}

std::vector<ir::StructInfo> Lowerer::ToSInfoArgs(const Value& v, bool fold_list,
                                                 const PyExpr* node) {
  std::vector<ir::StructInfo> out;
  if (v.kind == Value::Kind::kNone) return out;
  if (v.kind == Value::Kind::kTuple || v.kind == Value::Kind::kList) {
    for (const Value& item : v.items) out.push_back(ToSInfo(item, item.node ? item.node : node));
    if (fold_list && out.size() != 1) {
      return {ir::Make<ir::TupleSInfoNode>(std::move(out), SpanOf(node))};
    }
    return out;
  }
  out.push_back(ToSInfo(v, node));
  return out;
}

Value Lowerer::MakeSInfo(const std::string& name, const PyExpr* call) {
  Span span = SpanOf(call);
  // "R.<name>" for messages (a literal for the names handled: no string is built).
  std::string_view display;
  std::string unknown_display;
  for (std::string_view known : {"R.Tensor", "R.Shape", "R.Tuple", "R.Object", "R.Any", "R.Prim",
                                 "R.Callable", "R.PackedFunc"}) {
    if (known.substr(2) == name) {
      display = known;
      break;
    }
  }
  if (display.empty()) {
    unknown_display = "R." + name;
    display = unknown_display;
  }
  Value result;
  result.kind = Value::Kind::kSInfo;
  result.node = call;
  auto is_none = [](const PyExpr* e) { return e == nullptr || e->kind == PyExprKind::kNone; };
  // A dtype written as a string literal (most) is parsed in place, without a Value.
  auto dtype_of = [&](const PyExpr* e) {
    if (e->kind != PyExprKind::kString) return ToDType(Eval(e), e);
    if (e->str.empty()) return DataType::Void();
    if (!last_dtype_text_.empty() && e->str == last_dtype_text_) return last_dtype_;
    std::optional<DataType> dtype = DataType::Parse(e->str);
    if (!dtype) Error(e, "invalid dtype '" + std::string(e->str) + "'");
    last_dtype_text_ = e->str;
    last_dtype_ = *dtype;
    return *dtype;
  };
  if (name == "Tensor") {
    // EvalCall takes a type seen before (SeenStaticTensor); this builds the first one.
    std::string_view static_text = StaticTensorText(call);
    auto a = BindArgs(call, display, {"shape", "dtype", "vdevice", "ndim"});
    std::optional<std::vector<ir::PrimExpr>> shape;
    ir::Var shape_var;  // R.Tensor(s, ...) with `s` a shape var of unknown values
    DataType dtype = DataType::Void();
    std::string vdevice;
    int ndim = -1;
    const PyExpr* shape_node = a[0];
    if (shape_node != nullptr && shape_node->kind == PyExprKind::kString && a[1] == nullptr) {
      dtype = dtype_of(shape_node);  // R.Tensor("float32")
      shape_node = nullptr;
    }
    if (!is_none(shape_node)) {
      if (shape_node->kind == PyExprKind::kTuple || shape_node->kind == PyExprKind::kList) {
        shape = EvalDims(shape_node);
      } else {
        Value sv = Eval(shape_node);
        const auto* shape_sinfo = sv.kind == Value::Kind::kExpr
                                      ? ir::As<ir::ShapeSInfoNode>(sv.expr->struct_info())
                                      : nullptr;
        if (shape_sinfo == nullptr) {
          Error(shape_node,
                "the shape of R.Tensor must be a tuple or list of dimensions or a shape var");
        }
        if (shape_sinfo->values()) {
          shape = *shape_sinfo->values();
        } else if (ir::Is<ir::VarNode>(sv.expr)) {
          shape_var = ir::Cast<ir::VarNode>(sv.expr);
          ndim = shape_sinfo->ndim();
        } else {
          ndim = shape_sinfo->ndim();
        }
      }
    }
    if (!is_none(a[1])) dtype = dtype_of(a[1]);
    if (!is_none(a[2])) vdevice = LookupVDevice(Eval(a[2]), a[2]);
    if (!is_none(a[3])) {
      int64_t n = ToInt(Eval(a[3]), a[3], "ndim");
      if (n < -1 || n > 1 << 20) Error(a[3], "invalid ndim " + std::to_string(n));
      if (shape && n != -1 && static_cast<size_t>(n) != shape->size()) {
        Error(a[3], "ndim " + std::to_string(n) + " does not match the shape's " +
                        std::to_string(shape->size()) + " dimensions");
      }
      if (shape_var && n != -1 && ndim != -1 && n != ndim) {
        Error(a[3], "ndim " + std::to_string(n) + " does not match the shape var's " +
                        std::to_string(ndim));
      }
      if (!shape) ndim = static_cast<int>(n);
    }
    if (shape_var) {
      result.sinfo = ir::Make<ir::TensorSInfoNode>(std::move(shape_var), dtype, vdevice, span);
    } else if (shape) {
      result.sinfo = ir::Make<ir::TensorSInfoNode>(std::move(*shape), dtype, vdevice, span);
      if (!static_text.empty()) static_tensors_.try_emplace(static_text, result.sinfo);
    } else {
      result.sinfo = ir::Make<ir::TensorSInfoNode>(dtype, ndim, vdevice, span);
    }
    return result;
  }
  if (name == "Shape") {
    auto a = BindArgs(call, display, {"values", "ndim"});
    int ndim = -1;
    if (!is_none(a[1])) {
      int64_t n = ToInt(Eval(a[1]), a[1], "ndim");
      if (n < -1 || n > 1 << 20) Error(a[1], "invalid ndim " + std::to_string(n));
      ndim = static_cast<int>(n);
    }
    if (!is_none(a[0])) {
      std::vector<ir::PrimExpr> values = EvalDims(a[0]);
      if (ndim != -1 && static_cast<size_t>(ndim) != values.size()) {
        Error(a[1], "ndim " + std::to_string(ndim) + " does not match the " +
                        std::to_string(values.size()) + " values");
      }
      result.sinfo = ir::Make<ir::ShapeSInfoNode>(std::move(values), span);
    } else {
      result.sinfo = ir::Make<ir::ShapeSInfoNode>(ndim, span);
    }
    return result;
  }
  if (name == "Tuple") {
    std::vector<ir::StructInfo> fields;
    if (call->kind == PyExprKind::kCall) {
      if (!call->keywords.empty()) Error(call, "R.Tuple takes no keyword arguments");
      std::vector<const PyExpr*> nodes(call->items.begin() + 1, call->items.end());
      if (nodes.size() == 1 &&
          (nodes[0]->kind == PyExprKind::kTuple || nodes[0]->kind == PyExprKind::kList)) {
        nodes.assign(nodes[0]->items.begin(), nodes[0]->items.end());
      }
      for (const PyExpr* n : nodes) fields.push_back(ToSInfo(Eval(n), n));
    }
    result.sinfo = ir::Make<ir::TupleSInfoNode>(std::move(fields), span);
    return result;
  }
  if (name == "Object" || name == "Any") {
    BindArgs(call, display, {});
    result.sinfo = ir::Make<ir::ObjectSInfoNode>(span);
    return result;
  }
  if (name == "Prim") {
    auto a = BindArgs(call, display, {"dtype", "value"});
    std::optional<DataType> dtype;
    if (!is_none(a[0])) dtype = ToDType(Eval(a[0]), a[0]);
    ir::PrimExpr value;
    if (!is_none(a[1])) value = EvalDim(a[1]);
    if (!dtype && !value) Error(call, "R.Prim needs a dtype or a value");
    if (!dtype) dtype = value->dtype();
    result.sinfo = ir::Make<ir::PrimSInfoNode>(*dtype, value, span);
    return result;
  }
  if (name == "Callable") {
    auto a = BindArgs(call, display, {"params", "ret", "purity", "derive_func"});
    std::optional<std::vector<ir::StructInfo>> params;
    if (!is_none(a[0])) {
      Value pv = Eval(a[0]);
      params.emplace();
      if (pv.kind == Value::Kind::kTuple || pv.kind == Value::Kind::kList) {
        for (const Value& p : pv.items) params->push_back(ToSInfo(p, p.node ? p.node : a[0]));
      } else {
        params->push_back(ToSInfo(pv, a[0]));
      }
    }
    ir::StructInfo ret = is_none(a[1]) ? ir::ObjectSInfo() : ToSInfo(Eval(a[1]), a[1]);
    bool purity = params.has_value();
    if (!is_none(a[2])) purity = ToBool(Eval(a[2]), a[2], "purity");
    if (!is_none(a[3])) Error(a[3], "R.Callable's derive_func is not supported");
    result.sinfo = ir::Make<ir::FuncSInfoNode>(std::move(params), ret, purity, span);
    return result;
  }
  if (name == "PackedFunc") {
    result.sinfo = ir::Make<ir::FuncSInfoNode>(std::nullopt, ir::ObjectSInfo(), false, span);
    return result;
  }
  Error(call, "unknown struct info '" + std::string(display) + "'");
}

ir::PrimExpr Lowerer::CheckShapeDim(ir::PrimExpr dim, const PyExpr* node) {
  // Relax shapes are int64, as TVM's ShapeExpr requires. A constant of another integer type
  // becomes int64 (T.int32(4) is the dimension 4, as ShapeExpr casts it); a var of another type
  // may appear only inside an int64 expression (T.Cast("int64", n) * 2).
  if (dim->dtype() == DataType::Int(64)) return dim;
  const auto* imm = ir::As<ir::IntImmNode>(dim);
  if (imm != nullptr && dim->dtype().is_integer()) return ir::IntImm(imm->value());
  if (const auto* var = ir::As<ir::TirVarNode>(dim)) {
    Error(node, "symbolic shape variable '" + var->name() + "' must be int64, not " +
                    var->dtype().ToString());
  }
  Error(node, "a shape dimension must be int64, not " + dim->dtype().ToString());
}

std::string_view Lowerer::StaticTensorText(const PyExpr* call) const {
  if (!options_.share_static_tensor_types) return {};
  const PyExpr* dtype = nullptr;
  if (call->items.size() == 2 && call->keywords.size() == 1 && call->keywords[0].name == "dtype") {
    dtype = call->keywords[0].value;
  } else if (call->items.size() == 3 && call->keywords.empty()) {
    dtype = call->items[2];
  }
  if (dtype == nullptr || dtype->kind != PyExprKind::kString) return {};
  const PyExpr* shape = call->items[1];
  if (shape->kind != PyExprKind::kTuple && shape->kind != PyExprKind::kList) return {};
  for (const PyExpr* dim : shape->items) {
    if (dim->kind != PyExprKind::kInt) return {};
  }
  return std::string_view(file_.text()).substr(call->begin, call->end - call->begin);
}

const ir::StructInfo* Lowerer::SeenStaticTensor(const PyExpr* call) const {
  std::string_view text = StaticTensorText(call);
  if (text.empty()) return nullptr;
  auto it = static_tensors_.find(text);
  return it == static_tensors_.end() ? nullptr : &it->second;
}

std::vector<ir::PrimExpr> Lowerer::EvalDims(const PyExpr* e) {
  std::vector<ir::PrimExpr> dims;
  if (e->kind == PyExprKind::kTuple || e->kind == PyExprKind::kList) {
    dims.reserve(e->items.size());
    for (const PyExpr* item : e->items) {
      // A literal is an int64 IntImm (or an error): nothing to check.
      dims.push_back(item->kind == PyExprKind::kInt ? EvalDim(item)
                                                    : CheckShapeDim(EvalDim(item), item));
    }
    return dims;
  }
  Value v = Eval(e);
  if (v.kind != Value::Kind::kTuple && v.kind != Value::Kind::kList) {
    Error(e, std::string("expected a list of dimensions but found ") + ValueKindName(v.kind));
  }
  for (const Value& item : v.items) {
    const PyExpr* node = item.node ? item.node : e;
    dims.push_back(CheckShapeDim(ToPrim(item, node), node));
  }
  return dims;
}

ir::PrimExpr Lowerer::EvalDim(const PyExpr* e) {
  if (e->kind == PyExprKind::kString) return ParseStringDim(e);
  if (e->kind == PyExprKind::kInt) {  // most dims: straight to the IntImm (errors: below)
    int64_t value = 0;
    if (DecodeIntLiteral(e->text, &value) == IntLiteralStatus::kOk) {
      return ir::Make<ir::IntImmNode>(DataType::Int(64), value, SpanOf(e));  // always in range
    }
  }
  bool saved = create_symbols_;
  if (signature_mode_) create_symbols_ = true;
  Value v = Eval(e);
  create_symbols_ = saved;
  if (v.kind == Value::Kind::kStr) Error(e, "a symbolic dimension must be a literal string");
  return ToPrim(v, e);
}

// The only escapes a dimension needs are its own quote inside (TVM prints
// R.Prim(value="n * T.Cast(\"int32\", m)")): each `\"` is read as ` "` from a copy of the file,
// so every token keeps its offset and diagnostics point into the original text.
ir::PrimExpr Lowerer::ParseStringDim(const PyExpr* e) {
  std::string_view t = e->text;
  if (t.size() < 2 || (t[0] != '"' && t[0] != '\'') || t.back() != t[0]) {
    Error(e, "a symbolic dimension must be a plain string literal");
  }
  const char quote = t[0];
  std::string_view body = t.substr(1, t.size() - 2);
  bool escaped = false;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\') {
      if (i + 1 >= body.size() || body[i + 1] != quote) {
        Error(e, "a symbolic dimension may escape only its own quote");
      }
      escaped = true;
      ++i;
    } else if (body[i] == quote) {
      Error(e, "a symbolic dimension must be a plain string literal");
    }
  }
  const SourceFile* source = &file_;
  if (escaped) {
    if (unescaped_file_ == nullptr) {
      unescaped_file_ = std::make_unique<SourceFile>(file_.id(), file_.name(), file_.text());
    }
    // An opening \" reads as ` "`, a closing one as `" `: the inner string keeps its value.
    bool open = true;
    for (uint32_t i = e->begin + 1; i + 1 < e->end; ++i) {
      if (file_.text()[i] != '\\') continue;
      unescaped_file_->SetByte(open ? i : i + 1, ' ');
      unescaped_file_->SetByte(open ? i + 1 : i, quote);
      open = !open;
      ++i;
    }
    source = unescaped_file_.get();
  }
  std::vector<Token> tokens = LexExpression(*source, e->begin + 1, e->end - 1, options_.max_depth);
  if (tokens.size() <= 1) Error(e, "empty symbolic dimension");
  SyntaxTree tree;
  SyntaxParser parser(*source, tokens, options_.max_depth, &tree);
  const PyExpr* expr = parser.ParseStandaloneExpression();
  bool saved = create_symbols_;
  if (signature_mode_) create_symbols_ = true;
  Value v = Eval(expr);
  create_symbols_ = saved;
  if (v.kind == Value::Kind::kStr) Error(e, "a symbolic dimension must not be a nested string");
  return ToPrim(v, e);
}

std::string Lowerer::LookupVDevice(const Value& v, const PyExpr* node) {
  std::string s = ToStr(v, node, "vdevice");
  std::string kind = s.substr(0, s.find(':'));
  int64_t index = 0;
  size_t colon = s.find(':');
  if (colon != std::string::npos) {
    std::string rest = s.substr(colon + 1);
    rest = rest.substr(0, rest.find(':'));
    if (rest.empty() || rest.size() > 9 ||
        rest.find_first_not_of("0123456789") != std::string::npos) {
      Error(node, "invalid vdevice '" + s +
                      "': expected \"kind\", \"kind:index\" or "
                      "\"kind:index:scope\"");
    }
    index = std::stoll(rest);
  }
  if (vdevices_.empty()) {
    Error(node, "vdevice '" + s + "' needs I.module_global_infos({\"vdevice\": [...]})");
  }
  int64_t count = 0;
  for (size_t i = 0; i < vdevices_.size(); ++i) {
    const VDevice& vd = vdevices_[i];
    bool match = kind == "vdevice" ? static_cast<int64_t>(i) == index
                                   : (vd.kind == kind && count++ == index);
    if (!match) continue;
    int64_t within_kind = 0;
    for (size_t j = 0; j < i; ++j) within_kind += vdevices_[j].kind == vd.kind;
    return vd.kind + ":" + std::to_string(within_kind) + ":" + vd.memory_scope;
  }
  return {};  // TVM warns and drops an unknown vdevice
}

bool Lowerer::StaticallyIncompatible(const ir::StructInfo& annotation,
                                     const ir::StructInfo& value) {
  using ir::NodeKind;
  if (annotation->kind() == NodeKind::kObjectSInfo || value->kind() == NodeKind::kObjectSInfo) {
    return false;
  }
  if (annotation->kind() != value->kind()) return true;
  switch (annotation->kind()) {
    case NodeKind::kPrimSInfo: {
      const auto* a = static_cast<const ir::PrimSInfoNode*>(annotation.get());
      const auto* v = static_cast<const ir::PrimSInfoNode*>(value.get());
      if (!a->dtype().is_void() && !v->dtype().is_void() && a->dtype() != v->dtype()) return true;
      return a->value() && v->value() && ConstantsDiffer(a->value(), v->value());
    }
    case NodeKind::kShapeSInfo: {
      const auto* a = static_cast<const ir::ShapeSInfoNode*>(annotation.get());
      const auto* v = static_cast<const ir::ShapeSInfoNode*>(value.get());
      if (a->ndim() != -1 && v->ndim() != -1 && a->ndim() != v->ndim()) return true;
      return a->values() && v->values() && DimsIncompatible(*a->values(), *v->values());
    }
    case NodeKind::kTensorSInfo: {
      const auto* a = static_cast<const ir::TensorSInfoNode*>(annotation.get());
      const auto* v = static_cast<const ir::TensorSInfoNode*>(value.get());
      if (!a->dtype().is_void() && !v->dtype().is_void() && a->dtype() != v->dtype()) return true;
      if (a->ndim() != -1 && v->ndim() != -1 && a->ndim() != v->ndim()) return true;
      if (!a->vdevice().empty() && !v->vdevice().empty() && a->vdevice() != v->vdevice()) {
        return true;
      }
      return a->shape() && v->shape() && DimsIncompatible(*a->shape(), *v->shape());
    }
    case NodeKind::kTupleSInfo: {
      const auto* a = static_cast<const ir::TupleSInfoNode*>(annotation.get());
      const auto* v = static_cast<const ir::TupleSInfoNode*>(value.get());
      if (a->fields().size() != v->fields().size()) return true;
      for (size_t i = 0; i < a->fields().size(); ++i) {
        if (StaticallyIncompatible(a->fields()[i], v->fields()[i])) return true;
      }
      return false;
    }
    case NodeKind::kFuncSInfo: {
      const auto* a = static_cast<const ir::FuncSInfoNode*>(annotation.get());
      const auto* v = static_cast<const ir::FuncSInfoNode*>(value.get());
      if (a->params() && v->params()) {
        if (a->params()->size() != v->params()->size()) return true;
        for (size_t i = 0; i < a->params()->size(); ++i) {
          if (StaticallyIncompatible((*v->params())[i], (*a->params())[i])) return true;
        }
      }
      return StaticallyIncompatible(a->ret(), v->ret());
    }
    case NodeKind::kObjectSInfo:
    PIPESPLIT_KINDS_OUTSIDE_STRUCT_INFO:
      return false;
  }
  PS_UNREACHABLE();
}

}  // namespace pipesplit::script
