// Printer: symbolic expressions (PrimExprs) as TVM prints them inside Relax, symbolic var
// declarations (`n = T.int64()`) and signature dims quoted as strings ("n * 2").
#include "pipesplit/ir/prim_expr.h"
#include "src/script/printer_internal.h"

namespace pipesplit::script::printer {
namespace {

using ir::BinaryNode;
using ir::BinaryOp;
using ir::FloatImmNode;
using ir::IntImmNode;
using ir::NodeKind;
using ir::PrimExpr;

// Python precedence levels as TVM's PythonDocPrinter ranks them.
enum Prec : int {
  kPrecOr = 3,
  kPrecAnd = 4,
  kPrecNot = 5,
  kPrecCmp = 6,
  kPrecAdd = 11,
  kPrecMul = 12,
  kPrecAtom = 15,
};

struct Infix {
  const char* token;  // Python operator
  const char* name;   // T.<name>(a, b) when TVM's constructor would have folded the operands
  int prec;
};

std::optional<Infix> InfixOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return Infix{"+", "Add", kPrecAdd};
    case BinaryOp::kSub:
      return Infix{"-", "Sub", kPrecAdd};
    case BinaryOp::kMul:
      return Infix{"*", "Mul", kPrecMul};
    case BinaryOp::kFloorDiv:
      return Infix{"//", "FloorDiv", kPrecMul};
    case BinaryOp::kFloorMod:
      return Infix{"%", "FloorMod", kPrecMul};
    case BinaryOp::kLT:
      return Infix{"<", "LT", kPrecCmp};
    case BinaryOp::kLE:
      return Infix{"<=", "LE", kPrecCmp};
    case BinaryOp::kEQ:
      return Infix{"==", "EQ", kPrecCmp};
    case BinaryOp::kNE:
      return Infix{"!=", "NE", kPrecCmp};
    case BinaryOp::kGT:
      return Infix{">", "GT", kPrecCmp};
    case BinaryOp::kGE:
      return Infix{">=", "GE", kPrecCmp};
    case BinaryOp::kAnd:
      return Infix{"and", "And", kPrecAnd};
    case BinaryOp::kOr:
      return Infix{"or", "Or", kPrecOr};
    case BinaryOp::kDiv:
      return Infix{"/", "Div", kPrecMul};
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> IntOf(const PrimExpr& e) {
  if (const auto* n = ir::As<IntImmNode>(e)) return n->value();
  return std::nullopt;
}
std::optional<double> FloatOf(const PrimExpr& e) {
  if (const auto* n = ir::As<FloatImmNode>(e)) return n->value();
  return std::nullopt;
}

// Whether TVM's operator constructor (tvm::add, tvm::floordiv, ...) would return something
// other than a fresh node over the same operands: operand dtypes that need matching, or a
// constant fold (arith::TryConstFold). TVM then prints the function form T.Add(a, b).
bool WouldFold(const BinaryNode& n) {
  const PrimExpr& a = n.a();
  const PrimExpr& b = n.b();
  auto pa = IntOf(a), pb = IntOf(b);
  auto fa = FloatOf(a), fb = FloatOf(b);
  int bits = a->dtype().bits();
  bool float_fold = fa && fb && (bits == 32 || bits == 64);
  switch (n.op()) {
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      return pa || pb;
    default:
      break;
  }
  if (!(a->dtype() == b->dtype())) return true;
  switch (n.op()) {
    case BinaryOp::kAdd:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 0) || float_fold || (fa && *fa == 0) ||
             (fb && *fb == 0);
    case BinaryOp::kSub:
      return (pa && pb) || (pb && *pb == 0) || float_fold || (fb && *fb == 0);
    case BinaryOp::kMul:
      return (pa && pb) || (pa && (*pa == 0 || *pa == 1)) || (pb && (*pb == 0 || *pb == 1)) ||
             float_fold || (fa && (*fa == 0 || *fa == 1)) || (fb && (*fb == 0 || *fb == 1));
    case BinaryOp::kDiv:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 1) || float_fold || (fa && *fa == 0) ||
             (fb && *fb == 1);
    case BinaryOp::kFloorDiv:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 1) || (float_fold && *fb != 0) ||
             (fa && *fa == 0) || (fb && *fb == 1);
    case BinaryOp::kFloorMod:
      return (pa && pb) || (pa && *pa == 0) || (pb && *pb == 1);
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kGT:
    case BinaryOp::kGE:
      return (pa && pb) || (fa && fb);
    default:
      return false;
  }
}

}  // namespace

PrimText Printer::Prim(const PrimExpr& e) {
  switch (e->kind()) {
    case NodeKind::kIntImm: {
      // Relax prints integer immediates of any dtype as plain literals.
      const auto* n = static_cast<const IntImmNode*>(e.get());
      if (n->dtype().is_bool()) return {n->value() ? "True" : "False", kPrecAtom};
      return {std::to_string(n->value()), kPrecAtom};
    }
    case NodeKind::kFloatImm: {
      const auto* n = static_cast<const FloatImmNode*>(e.get());
      usage_ |= kUseTir;
      return {"T." + n->dtype().ToString() + "(" + FloatLiteral(n->value()) + ")", kPrecAtom};
    }
    case NodeKind::kTirVar:
      return {TirVar(*static_cast<const ir::TirVarNode*>(e.get())), kPrecAtom};
    case NodeKind::kBinary: {
      const auto* n = static_cast<const BinaryNode*>(e.get());
      PrimText a = Prim(n->a());
      PrimText b = Prim(n->b());
      std::optional<Infix> infix = InfixOf(n->op());
      bool call_form = !infix;
      if (infix && n->op() == BinaryOp::kDiv) {
        // T.Div for integers or when folding applies; `a / b` for floats.
        call_form = WouldFold(*n) || !n->a()->dtype().is_float() || !n->b()->dtype().is_float();
      } else if (infix) {
        call_form = WouldFold(*n);
      }
      if (call_form) {
        usage_ |= kUseTir;
        const char* name = infix                       ? infix->name
                           : n->op() == BinaryOp::kMin ? "min"
                           : n->op() == BinaryOp::kMax ? "max"
                                                       : "truncmod";
        return {std::string("T.") + name + "(" + a.text + ", " + b.text + ")", kPrecAtom};
      }
      std::string out = a.prec < infix->prec ? "(" + a.text + ")" : std::move(a.text);
      out += ' ';
      out += infix->token;
      out += ' ';
      out += b.prec <= infix->prec ? "(" + b.text + ")" : b.text;
      return {std::move(out), infix->prec};
    }
    case NodeKind::kNot: {
      const auto* n = static_cast<const ir::NotNode*>(e.get());
      PrimText a = Prim(n->a());
      if (n->a()->kind() == NodeKind::kIntImm) {
        usage_ |= kUseTir;
        return {"T.Not(" + a.text + ")", kPrecAtom};
      }
      return {"not " + (a.prec < kPrecNot ? "(" + a.text + ")" : a.text), kPrecNot};
    }
    case NodeKind::kCast: {
      const auto* n = static_cast<const ir::CastNode*>(e.get());
      usage_ |= kUseTir;
      std::string dtype = QuoteString(n->dtype().ToString());
      return {"T.Cast(" + dtype + ", " + Prim(n->value()).text + ")", kPrecAtom};
    }
    case NodeKind::kSelect: {
      const auto* n = static_cast<const ir::SelectNode*>(e.get());
      usage_ |= kUseTir;
      std::string c = Prim(n->cond()).text;
      std::string t = Prim(n->true_value()).text;
      std::string f = Prim(n->false_value()).text;
      return {"T.Select(" + c + ", " + t + ", " + f + ")", kPrecAtom};
    }
    case NodeKind::kPrimCall: {
      const auto* n = static_cast<const ir::PrimCallNode*>(e.get());
      usage_ |= kUseTir;
      std::string out = "T." + n->name() + "(";
      for (size_t i = 0; i < n->args().size(); ++i) {
        if (i > 0) out += ", ";
        out += Prim(n->args()[i]).text;
      }
      out += ')';
      return {std::move(out), kPrecAtom};
    }
    default:
      return {"<?>", kPrecAtom};
  }
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

std::string Printer::ShapeDim(const PrimExpr& e) {
  std::string text = Prim(e).text;
  if (config_.fragment) return text;
  // The outermost frame that is collecting a function signature, as TVM looks it up.
  const Frame* f = nullptr;
  for (const Frame* frame : frames_) {
    if (frame->collecting_signature) {
      f = frame;
      break;
    }
  }
  if (f == nullptr) return text;
  bool mentions_func_var = false;
  ir::VisitTirVars(e, [&](const ir::TirVar& v) {
    if (f->func_vars.count(TirKey(*v)) != 0) mentions_func_var = true;
  });
  if (!mentions_func_var) return text;
  if (current()) {
    const auto* var = ir::As<ir::TirVarNode>(e);
    bool bare_type_var = var != nullptr && f->type_vars.count(TirKey(*var)) != 0;
    bool postponed = config_.pep695 && !f->type_vars.empty();
    if (bare_type_var || postponed) return text;
  }
  return QuoteString(text);
}

}  // namespace pipesplit::script::printer
