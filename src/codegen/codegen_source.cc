// PrimFuncs to C++ source: one extern "C" function per PrimFunc implementing the kernel ABI,
// with TVM's semantics (blocks in loop order, T.init on the first iteration of every
// reduction var, predicates, floor division, wrapping integers, float16/bfloat16 rounded to
// nearest even after every operation). T.Select and T.if_then_else both evaluate only the
// chosen side (the value is the same; no out-of-range load on the untaken side).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/ir/prim_text.h"
#include "src/codegen/kernel_emitter.h"

namespace pipesplit::codegen {

using ir::BinaryOp;
using ir::PrimExpr;

std::string KernelEmitter::Emit(const ir::PrimFuncNode& func) {
  func_ = &func;
  out_ << "int32_t ps_kernel_body([[maybe_unused]] const char* ps_kernel,\n"
       << "    const PipesplitKernelArg* args, int32_t num_args, char* error, int64_t error_size) "
          "{\n";
  indent_ = 1;
  Line("try {");
  ++indent_;
  EmitParams(func);
  if (fast_ != nullptr) EmitFastPath(func, *fast_);
  EmitStmt(func.body());
  --indent_;
  Line("} catch (const PsFail& f) {");
  Line("  return ps_report(f.message.c_str(), error, error_size);");
  Line("} catch (const std::exception& e) {");
  Line(
      "  return ps_report((std::string(ps_kernel) + \": \" + e.what()).c_str(), error, "
      "error_size);");
  Line("}");
  Line("return 0;");
  out_ << "}\n";
  return out_.str();
}

void KernelEmitter::BindLayout(const ir::Buffer& b) {
  if (!b->strides().empty()) Unsupported("buffer '" + b->name() + "' with strides");
  const PrimExpr& offset = b->elem_offset();
  if (offset == nullptr) return;
  if (auto c = ir::AsConstInt(offset); c && *c == 0) return;
  const auto* v = ir::As<ir::TirVarNode>(offset);
  if (v != nullptr && offset_vars_.count(v) != 0) return;
  if (v == nullptr || vars_.count(v) != 0 || !v->dtype().is_integer()) {
    Unsupported("buffer '" + b->name() + "' with element offset " + ir::ToString(offset));
  }
  BindVar(v, "0");
  offset_vars_.insert(v);
}

KernelEmitter::BufferInfo& KernelEmitter::DeclareDims(const ir::Buffer& b, const std::string& ptr) {
  BindLayout(b);
  BufferInfo info{ptr, {}, b->name()};
  for (size_t j = 0; j < b->shape().size(); ++j) {
    std::string d = ptr + "_d" + std::to_string(j);
    Line("[[maybe_unused]] const int64_t " + d + " = static_cast<int64_t>(" + Expr(b->shape()[j]) +
         ");");
    info.dims.push_back(d);
  }
  return buffers_[b.get()] = std::move(info);
}

void KernelEmitter::AllocateBuffer(const ir::Buffer& b) {
  std::string ptr = Fresh(b->name());
  BufferInfo& info = DeclareDims(b, ptr);
  std::string size = "INT64_C(1)";
  for (const std::string& d : info.dims) size += " * " + d;
  std::string st = StorageType(b->dtype());
  Line("auto " + ptr + "_store = ps_alloc<" + st + ">(" + size + ", ps_kernel, " +
       Quote(b->name()) + ");");
  Line(st + "* const " + ptr + " = " + ptr + "_store.get();");
}

const KernelEmitter::BufferInfo& KernelEmitter::LookupBuffer(const ir::Buffer& b) {
  auto it = buffers_.find(b.get());
  if (it != buffers_.end()) return it->second;
  auto data = allocations_.find(b->data().get());
  if (data == allocations_.end()) Unsupported("buffer '" + b->name() + "' with no storage");
  std::string ptr = Fresh(b->name());
  Line(StorageType(b->dtype()) + "* const " + ptr + " = reinterpret_cast<" +
       StorageType(b->dtype()) + "*>(" + data->second + ");");
  return DeclareDims(b, ptr);
}

std::string KernelEmitter::Element(const ir::Buffer& b, const std::vector<PrimExpr>& indices) {
  const BufferInfo& info = LookupBuffer(b);
  if (indices.size() != info.dims.size()) {
    Unsupported("access to buffer '" + b->name() + "' with " + std::to_string(indices.size()) +
                " indices for " + std::to_string(info.dims.size()) + " dims");
  }
  std::string flat;
  for (size_t j = 0; j < indices.size(); ++j) {
    std::string index = "static_cast<int64_t>(" + Expr(indices[j]) + ")";
    if (check_bounds_) {
      index = "ps_chk(" + index + ", " + info.dims[j] + ", ps_kernel, " + Quote(info.name) + ", " +
              std::to_string(j) + ")";
    }
    flat = j == 0 ? index : "(" + flat + ") * " + info.dims[j] + " + " + index;
  }
  if (flat.empty()) flat = "0";
  return info.ptr + "[" + flat + "]";
}

void KernelEmitter::EmitParams(const ir::PrimFuncNode& func) {
  const auto& params = func.params();
  Line("ps_check_arity(ps_kernel, num_args, " + std::to_string(params.size()) + ");");
  // Scalars first: buffer shapes may use them.
  for (size_t i = 0; i < params.size(); ++i) {
    const ir::TirVar& p = params[i];
    if (func.BufferOf(p.get()) != nullptr) continue;
    DataType dt = p->dtype();
    if (dt.code() == DataType::Code::kHandle) {
      Unsupported("handle parameter '" + p->name() + "' without a buffer");
    }
    std::string arg = "args[" + std::to_string(i) + "]";
    Line("ps_check_scalar(ps_kernel, " + Quote(p->name()) + ", " + arg + ", " +
         std::to_string(AbiType(dt).first) + ");");
    BindVar(p, arg + (dt.is_float() ? ".scalar_float" : ".scalar_int"));
  }
  std::vector<std::pair<std::string, PrimExpr>> deferred;
  for (size_t i = 0; i < params.size(); ++i) {
    const ir::Buffer* b = func.BufferOf(params[i].get());
    if (b == nullptr) continue;
    const ir::Buffer& buf = *b;
    BindLayout(buf);
    std::string arg = "args[" + std::to_string(i) + "]";
    auto [code, bits] = AbiType(buf->dtype());
    Line("ps_check_buffer(ps_kernel, " + Quote(buf->name()) + ", " + arg + ", " +
         std::to_string(buf->shape().size()) + ", " + std::to_string(code) + ", " +
         std::to_string(bits) + ");");
    std::string ptr = Fresh(buf->name());
    std::string st = StorageType(buf->dtype());
    Line(st + "* const " + ptr + " = static_cast<" + st + "*>(" + arg + ".data);");
    BufferInfo info{ptr, {}, buf->name()};
    for (size_t j = 0; j < buf->shape().size(); ++j) {
      std::string d = ptr + "_d" + std::to_string(j);
      Line("[[maybe_unused]] const int64_t " + d + " = " + arg + ".shape[" + std::to_string(j) +
           "];");
      info.dims.push_back(d);
      const PrimExpr& dim = buf->shape()[j];
      std::string check = "ps_check_dim(ps_kernel, " + Quote(buf->name()) + ", " +
                          std::to_string(j) + ", " + d + ", ";
      if (auto c = ir::AsConstInt(dim)) {
        Line(check + IntLiteral(*c) + ");");
      } else if (const auto* v = ir::As<ir::TirVarNode>(dim);
                 v != nullptr && vars_.find(v) == vars_.end()) {
        if (!v->dtype().is_integer()) Unsupported("non-integer shape var '" + v->name() + "'");
        BindVar(v, d);
      } else {
        deferred.emplace_back(check, dim);  // its vars may be bound by a later parameter
      }
    }
    buffers_[buf.get()] = std::move(info);
  }
  for (const auto& [check, dim] : deferred) {
    Line(check + "static_cast<int64_t>(" + Expr(dim) + "));");
  }
}

std::string KernelEmitter::VisitExpr_(const ir::IntImmNode& n) {
  DataType dt = n.dtype();
  int64_t v = n.value();
  if (IsBoolLike(dt)) return v != 0 ? "true" : "false";
  if (dt == DataType::Int(64)) return IntLiteral(v);
  return "static_cast<" + ValueType(dt) + ">(" + IntLiteral(v) + ")";
}

std::string KernelEmitter::VisitExpr_(const ir::FloatImmNode& n) {
  DataType dt = n.dtype();
  return Round(dt, "static_cast<" + ValueType(dt) + ">(" + DoubleLiteral(n.value()) + ")");
}

std::string KernelEmitter::VisitExpr_(const ir::NotNode& n) {
  return "(!static_cast<bool>(" + Expr(n.a()) + "))";
}

std::string KernelEmitter::VisitExpr_(const ir::CastNode& n) {
  DataType dt = n.dtype();
  return Round(dt, "static_cast<" + ValueType(dt) + ">(" + Expr(n.value()) + ")");
}

std::string KernelEmitter::VisitExpr_(const ir::SelectNode& n) {
  // TVM evaluates both sides of a Select; PrimExprs have no side effects, so evaluating
  // only the chosen side gives the same value without touching memory the untaken side
  // indexes out of range (rotary embedding selects between x[i - 64] and x[i + 64]).
  std::string vt = ValueType(n.dtype());
  return "(static_cast<bool>(" + Expr(n.cond()) + ") ? static_cast<" + vt + ">(" +
         Expr(n.true_value()) + ") : static_cast<" + vt + ">(" + Expr(n.false_value()) + "))";
}

std::string KernelEmitter::VisitExpr_(const ir::BufferLoadNode& n) {
  if (acc_buffer_ != nullptr && n.buffer()->data() == (*acc_buffer_)->data()) {
    return acc_element_;
  }
  return FromStorage(n.buffer()->dtype(), Element(n.buffer(), n.indices()));
}

std::string KernelEmitter::VisitExpr_(const ir::BinaryNode& n) {
  DataType dt = n.dtype();
  std::string a = Expr(n.a());
  std::string b = Expr(n.b());
  auto call = [&](const char* fn) {
    std::string vt = ValueType(dt);
    return fn + std::string("<") + vt + ">(" + a + ", " + b + ")";
  };
  auto compare = [&](const char* op) {
    std::string ot = ValueType(n.a()->dtype());
    return "(static_cast<" + ot + ">(" + a + ") " + op + " static_cast<" + ot + ">(" + b + "))";
  };
  switch (n.op()) {
    case BinaryOp::kAdd:
      return Round(dt, call("ps_add"));
    case BinaryOp::kSub:
      return Round(dt, call("ps_sub"));
    case BinaryOp::kMul:
      return Round(dt, call("ps_mul"));
    case BinaryOp::kDiv:
      return Round(dt, call("ps_truncdiv"));
    case BinaryOp::kMod:
      return Round(dt, call("ps_truncmod"));
    case BinaryOp::kFloorDiv:
      return Round(dt, call("ps_floordiv"));
    case BinaryOp::kFloorMod:
      return Round(dt, call("ps_floormod"));
    case BinaryOp::kMin:
      return call("ps_min");
    case BinaryOp::kMax:
      return call("ps_max");
    case BinaryOp::kEQ:
      return compare("==");
    case BinaryOp::kNE:
      return compare("!=");
    case BinaryOp::kLT:
      return compare("<");
    case BinaryOp::kLE:
      return compare("<=");
    case BinaryOp::kGT:
      return compare(">");
    case BinaryOp::kGE:
      return compare(">=");
    case BinaryOp::kAnd:
      return "(static_cast<bool>(" + a + ") && static_cast<bool>(" + b + "))";
    case BinaryOp::kOr:
      return "(static_cast<bool>(" + a + ") || static_cast<bool>(" + b + "))";
  }
  Unsupported(std::string("binary operator ") + ir::BinaryOpName(n.op()));
}

std::string KernelEmitter::VisitExpr_(const ir::PrimCallNode& n) {
  std::vector<std::string> args;
  for (const PrimExpr& a : n.args()) args.push_back(Expr(a));
  return EmitIntrinsic(kernel_, n, args);
}

void KernelEmitter::VisitStmt_(const ir::ForNode& n) {
  if (optimize_) {
    if (std::optional<NestPlan> plan = PlanLoopNest(n, *func_)) {
      EmitNest(*plan);
      return;
    }
    if (n.for_kind() == ir::ForKind::kParallel && !in_parallel_) {
      EmitParallelLoop(n);
      return;
    }
  }
  std::string lt = ValueType(n.loop_var()->dtype());
  std::string lo = Fresh("lo");
  std::string hi = Fresh("hi");
  std::string v = Fresh(n.loop_var()->name());
  Line("{");
  ++indent_;
  Line("const " + lt + " " + lo + " = static_cast<" + lt + ">(" + Expr(n.min()) + ");");
  Line("const " + lt + " " + hi + " = ps_add<" + lt + ">(" + lo + ", static_cast<" + lt + ">(" +
       Expr(n.extent()) + "));");
  Line("for (" + lt + " " + v + " = " + lo + "; " + v + " < " + hi + "; ++" + v + ") {");
  ++indent_;
  vars_[n.loop_var().get()] = v;
  EmitStmt(n.body());
  vars_.erase(n.loop_var().get());
  --indent_;
  Line("}");
  --indent_;
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::BufferStoreNode& n) {
  std::string value = Expr(n.value());
  Line(Element(n.buffer(), n.indices()) + " = " + ToStorage(n.buffer()->dtype(), value) + ";");
}

void KernelEmitter::VisitStmt_(const ir::LetStmtNode& n) {
  std::string value = Expr(n.value());
  Line("{");
  ++indent_;
  BindVar(n.var(), value);
  EmitStmt(n.body());
  vars_.erase(n.var().get());
  --indent_;
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::IfThenElseNode& n) {
  Line("if (static_cast<bool>(" + Expr(n.cond()) + ")) {");
  ++indent_;
  EmitStmt(n.then_case());
  --indent_;
  if (n.else_case()) {
    Line("} else {");
    ++indent_;
    EmitStmt(n.else_case());
    --indent_;
  }
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::AllocateNode& n) {
  std::string ptr = Fresh(n.buffer_var()->name());
  std::string size = "INT64_C(1)";
  for (const PrimExpr& e : n.extents()) size += " * static_cast<int64_t>(" + Expr(e) + ")";
  std::string st = StorageType(n.dtype());
  Line("{");
  ++indent_;
  Line("auto " + ptr + "_store = ps_alloc<" + st + ">(" + size + ", ps_kernel, " +
       Quote(n.buffer_var()->name()) + ");");
  allocations_[n.buffer_var().get()] = ptr + "_store.get()";
  EmitStmt(n.body());
  allocations_.erase(n.buffer_var().get());
  --indent_;
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::DeclBufferNode& n) {
  Line("{");
  ++indent_;
  if (allocations_.count(n.buffer()->data().get()) != 0) {
    LookupBuffer(n.buffer());
  } else {
    AllocateBuffer(n.buffer());
  }
  EmitStmt(n.body());
  buffers_.erase(n.buffer().get());
  --indent_;
  Line("}");
}

std::string KernelEmitter::VisitExpr_(const ir::LetNode& n) {
  // T.Let(body, where={v: value}): an immediately invoked lambda binding v (PrimExprs have no
  // side effects, so the value is computed once, before the body, as TVM does).
  const std::string value = Expr(n.value());
  const std::string vt = ValueType(n.var()->dtype());
  const std::string name = Fresh(n.var()->name());
  auto previous = vars_.find(n.var().get());
  const std::optional<std::string> shadowed =
      previous == vars_.end() ? std::nullopt : std::optional<std::string>(previous->second);
  vars_[n.var().get()] = name;
  const std::string body = Expr(n.body());
  if (shadowed) {
    vars_[n.var().get()] = *shadowed;
  } else {
    vars_.erase(n.var().get());
  }
  return "([&]() -> " + ValueType(n.dtype()) + " { const " + vt + " " + name + " = static_cast<" +
         vt + ">(" + value + "); return " + body + "; }())";
}

void KernelEmitter::VisitStmt_(const ir::AssertStmtNode& n) {
  // A failing assert fails the call: "<kernel>: <error kind>: <message>".
  std::string message;
  for (const std::string& part : n.message_parts()) message += part;
  Line("if (!static_cast<bool>(" + Expr(n.cond()) + ")) {");
  Line("  ps_fail(std::string(ps_kernel) + " + Quote(": " + n.error_kind() + ": " + message) +
       ");");
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::WhileNode& n) {
  Line("while (static_cast<bool>(" + Expr(n.cond()) + ")) {");
  ++indent_;
  EmitStmt(n.body());
  --indent_;
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::AttrStmtNode& n) {
  if (n.is_thread_launch()) Unsupported("T.launch_thread");
  // Other attributes (pragmas, hints) do not change what the body computes.
  EmitStmt(n.body());
}

void KernelEmitter::VisitStmt_(const ir::AllocBufferNode& n) {
  // T.alloc_buffer as a statement: the buffer lives for the rest of the enclosing sequence,
  // which is the node's body.
  Line("{");
  ++indent_;
  AllocateBuffer(n.buffer());
  EmitStmt(n.body());
  buffers_.erase(n.buffer().get());
  --indent_;
  Line("}");
}

void KernelEmitter::VisitStmt_(const ir::EvaluateNode& n) {
  const PrimExpr& v = n.value();
  if (v->kind() == ir::NodeKind::kIntImm) return;
  Line("(void)(" + Expr(v) + ");");
}

void KernelEmitter::EmitBlock(const ir::BlockRealizeNode& realize) {
  const ir::BlockNode& block = *realize.block();
  if (!block.match_buffers().empty()) {
    Unsupported("T.match_buffer inside block '" + block.name_hint() + "'");
  }
  if (realize.iter_values().size() != block.iter_vars().size()) {
    Unsupported("block '" + block.name_hint() + "' with mismatched iter values");
  }
  Line("{  // block " + block.name_hint());
  ++indent_;
  std::vector<std::string> values;
  for (const PrimExpr& v : realize.iter_values()) values.push_back(Expr(v));
  for (size_t i = 0; i < values.size(); ++i) BindVar(block.iter_vars()[i].var, values[i]);
  bool predicated = false;
  if (realize.predicate()) {
    auto c = ir::AsConstInt(realize.predicate());
    if (!c || *c == 0) {
      Line("if (static_cast<bool>(" + Expr(realize.predicate()) + ")) {");
      ++indent_;
      predicated = true;
    }
  }
  for (const ir::Buffer& b : block.alloc_buffers()) AllocateBuffer(b);
  const InitMode init_mode = init_mode_;
  init_mode_ = InitMode::kCheck;
  if (block.init() && init_mode == InitMode::kAlways) {
    EmitStmt(block.init());
  } else if (block.init() && init_mode == InitMode::kCheck) {
    std::string cond;
    for (const ir::IterVar& iv : block.iter_vars()) {
      if (iv.type != ir::IterVarType::kCommReduce) continue;
      std::string vt = ValueType(iv.var->dtype());
      if (!cond.empty()) cond += " && ";
      cond += VarName(iv.var.get()) + " == static_cast<" + vt + ">(" + Expr(iv.dom.min) + ")";
    }
    Line("if (" + (cond.empty() ? std::string("true") : cond) + ") {");
    ++indent_;
    EmitStmt(block.init());
    --indent_;
    Line("}");
  }
  EmitStmt(block.body());
  for (const ir::Buffer& b : block.alloc_buffers()) buffers_.erase(b.get());
  for (const ir::IterVar& iv : block.iter_vars()) vars_.erase(iv.var.get());
  if (predicated) {
    --indent_;
    Line("}");
  }
  --indent_;
  Line("}");
}
std::string EmitKernel(const std::string& name, const ir::PrimFuncNode& func, bool check_bounds,
                       bool optimize_loops, int64_t* cost, const FastContraction* fast) {
  KernelEmitter emitter(name, check_bounds, optimize_loops, fast);
  std::string text = emitter.Emit(func);
  if (cost != nullptr) *cost = emitter.cost();
  return text;
}

}  // namespace pipesplit::codegen
