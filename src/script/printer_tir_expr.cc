// Printer: PrimExprs in TIR context, and TIR attribute values.
//
// This is the one place that spells a PrimExpr inside a @T.prim_func; it is kept separate from
// the Relax-context spelling (printer_prim.cc) so that both can move to a shared PrimExpr text
// module with a context option.
#include <cmath>
#include <cstdio>

#include "src/script/printer_internal.h"
#include "src/script/printer_tir.h"

namespace pipesplit::script::printer {
namespace {

using ir::BinaryOp;
using ir::NodeKind;
using ir::PrimExpr;

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
  const char* token;
  int prec;
};

std::optional<Infix> InfixOf(BinaryOp op, bool float_operands) {
  switch (op) {
    case BinaryOp::kAdd:
      return Infix{"+", kPrecAdd};
    case BinaryOp::kSub:
      return Infix{"-", kPrecAdd};
    case BinaryOp::kMul:
      return Infix{"*", kPrecMul};
    case BinaryOp::kDiv:
      if (!float_operands) return std::nullopt;
      return Infix{"/", kPrecMul};
    case BinaryOp::kFloorDiv:
      return Infix{"//", kPrecMul};
    case BinaryOp::kFloorMod:
      return Infix{"%", kPrecMul};
    case BinaryOp::kLT:
      return Infix{"<", kPrecCmp};
    case BinaryOp::kLE:
      return Infix{"<=", kPrecCmp};
    case BinaryOp::kEQ:
      return Infix{"==", kPrecCmp};
    case BinaryOp::kNE:
      return Infix{"!=", kPrecCmp};
    case BinaryOp::kGT:
      return Infix{">", kPrecCmp};
    case BinaryOp::kGE:
      return Infix{">=", kPrecCmp};
    case BinaryOp::kAnd:
      return Infix{"and", kPrecAnd};
    case BinaryOp::kOr:
      return Infix{"or", kPrecOr};
    default:
      return std::nullopt;
  }
}

const char* CallNameOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    case BinaryOp::kMod:
      return "truncmod";
    default:
      return "Div";
  }
}

// A TIR float immediate's digits: 17 significant digits, integral values without a decimal
// point ("7", "-65504", "0.0001", "9.9999999999999995e-07").
std::string TirFloatDigits(double value) {
  if (std::isnan(value)) return "\"nan\"";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", value);
  return buf;
}

PrimText Text(const PrimExpr& e);

std::string Args(const std::vector<PrimExpr>& args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    out += Text(args[i]).text;
  }
  return out;
}

PrimText Text(const PrimExpr& e) {
  switch (e->kind()) {
    case NodeKind::kIntImm: {
      const auto* n = static_cast<const ir::IntImmNode*>(e.get());
      if (n->dtype().is_bool()) return {n->value() ? "T.bool(True)" : "T.bool(False)", kPrecAtom};
      if (n->dtype() == DataType::Int(32)) return {std::to_string(n->value()), kPrecAtom};
      return {"T." + n->dtype().ToString() + "(" + std::to_string(n->value()) + ")", kPrecAtom};
    }
    case NodeKind::kFloatImm: {
      const auto* n = static_cast<const ir::FloatImmNode*>(e.get());
      return {"T." + n->dtype().ToString() + "(" + TirFloatDigits(n->value()) + ")", kPrecAtom};
    }
    case NodeKind::kTirVar:
      return {static_cast<const ir::TirVarNode*>(e.get())->name(), kPrecAtom};
    case NodeKind::kBufferLoad: {
      const auto* n = static_cast<const ir::BufferLoadNode*>(e.get());
      std::string idx = n->indices().empty() ? "()" : Args(n->indices());
      return {n->buffer()->name() + "[" + idx + "]", kPrecAtom};
    }
    case NodeKind::kBinary: {
      const auto* n = static_cast<const ir::BinaryNode*>(e.get());
      bool float_operands = n->a()->dtype().is_float() && n->b()->dtype().is_float();
      std::optional<Infix> infix = InfixOf(n->op(), float_operands);
      PrimText a = Text(n->a());
      PrimText b = Text(n->b());
      if (!infix) {
        return {std::string("T.") + CallNameOf(n->op()) + "(" + a.text + ", " + b.text + ")",
                kPrecAtom};
      }
      std::string out = a.prec < infix->prec ? "(" + a.text + ")" : std::move(a.text);
      out += ' ';
      out += infix->token;
      out += ' ';
      out += b.prec <= infix->prec ? "(" + b.text + ")" : b.text;
      return {std::move(out), infix->prec};
    }
    case NodeKind::kNot: {
      PrimText a = Text(static_cast<const ir::NotNode*>(e.get())->a());
      return {"not " + (a.prec < kPrecNot ? "(" + a.text + ")" : a.text), kPrecNot};
    }
    case NodeKind::kCast: {
      const auto* n = static_cast<const ir::CastNode*>(e.get());
      return {"T.Cast(" + StrLiteral(n->dtype().ToString()) + ", " + Text(n->value()).text + ")",
              kPrecAtom};
    }
    case NodeKind::kSelect: {
      const auto* n = static_cast<const ir::SelectNode*>(e.get());
      return {"T.Select(" + Text(n->cond()).text + ", " + Text(n->true_value()).text + ", " +
                  Text(n->false_value()).text + ")",
              kPrecAtom};
    }
    case NodeKind::kPrimCall: {
      const auto* n = static_cast<const ir::PrimCallNode*>(e.get());
      return {"T." + n->name() + "(" + Args(n->args()) + ")", kPrecAtom};
    }
    default:
      return {"<?>", kPrecAtom};
  }
}

}  // namespace

std::string TirExprText(const PrimExpr& e) { return Text(e).text; }

}  // namespace pipesplit::script::printer
