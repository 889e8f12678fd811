// The Relax interpreter: evaluation of expressions, bindings, calls and functions.
#include "pipesplit/runtime/exec/interpreter.h"

#include <cstdio>

#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/support/check.h"
#include "src/runtime/exec/op_profile.h"

namespace pipesplit::runtime {
namespace {

constexpr int kMaxCallDepth = 200;

std::string KernelName(const ir::CallNode& call) {
  if (!call.args().empty()) {
    if (const auto* g = ir::As<ir::GlobalVarNode>(call.args()[0])) return g->name_hint();
  }
  return "?";
}

const std::string& ExternSymbol(const ir::CallNode& call) {
  static const std::string kNone;
  const ir::ExternFuncNode* f = ir::PackedCallee(call);
  return f ? f->global_symbol() : kNone;
}

// The Relax vars an expression reads (nested functions, branches and sequences included), and
// whether it makes a closure.
class UseCollector : public ir::ExprVisitor {
 public:
  std::vector<const ir::VarNode*> uses;
  bool has_function = false;

 protected:
  void VisitExpr_(const ir::VarNode& node) override { uses.push_back(&node); }
  void VisitExpr_(const ir::FunctionNode& node) override {
    has_function = true;
    ir::ExprVisitor::VisitExpr_(node);
  }
};

}  // namespace

ExecutionError::ExecutionError(std::string function, std::string binding, Span span,
                               std::string message)
    : RuntimeError("in function '" + function + "', binding '" + binding + "' (" +
                       SourceManager::Global().Describe(span) + "): " + message,
                   span.valid() ? std::optional<Span>(span) : std::nullopt),
      function_(std::move(function)),
      binding_(std::move(binding)),
      span_(span),
      message_(std::move(message)) {}

const Value* Frame::Find(const ir::VarNode* var) const {
  for (const Frame* f = this; f != nullptr; f = f->parent_.get()) {
    auto it = f->vars_.find(var);
    if (it != f->vars_.end()) return &it->second;
  }
  return nullptr;
}

const int64_t* Frame::FindSym(const ir::TirVarNode* var) const {
  for (const Frame* f = this; f != nullptr; f = f->parent_.get()) {
    auto it = f->syms_.find(var);
    if (it != f->syms_.end()) return &it->second;
  }
  return nullptr;
}

Interpreter::Interpreter(const ir::IRModule& mod, const BuiltinRegistry& builtins,
                         std::shared_ptr<const KernelLibrary> kernels)
    : mod_(mod), builtins_(builtins), kernels_(std::move(kernels)) {}

Value Interpreter::Invoke(std::string_view function, std::vector<Value> args) {
  ir::Function func = mod_.LookupFunction(function);
  if (!func) throw RuntimeError("the module has no Relax function '" + std::string(function) + "'");
  return CallFunction(*func, std::string(function), std::move(args), nullptr);
}

Value Interpreter::Invoke(const Value& callable, std::vector<Value> args) {
  const Callable* c = callable.as_callable();
  if (c == nullptr) throw RuntimeError("calling " + callable.Describe() + ", not a function");
  if (c->func == nullptr) {
    if (mod_.Lookup(c->name) && ir::Is<ir::PrimFuncNode>(mod_.Lookup(c->name))) {
      if (kernels_ == nullptr) {
        throw RuntimeError("cannot call TIR function '" + c->name +
                           "': pipesplit does not execute TIR");
      }
      // Destination-passing (a memory-planned module's `cls.f(x, out)`): the kernel writes
      // into the tensors it is given, the planner's allocations.
      detail::KernelTimer timer(c->name);
      kernels_->Call(c->name, std::span<const Value>(args));
      return Value();
    }
    Frame empty;
    return CallPacked(c->name, std::move(args), nullptr, empty);
  }
  return CallFunction(*c->func, c->name, std::move(args), c->captured);
}

namespace {

bool HoldsCallable(const Value& v) {
  if (v.as_callable() != nullptr) return true;
  if (const Value::Tuple* fields = v.as_tuple()) {
    for (const Value& f : *fields) {
      if (HoldsCallable(f)) return true;
    }
  }
  return false;
}

}  // namespace

Value Interpreter::CallFunction(const ir::FunctionNode& func, const std::string& name,
                                std::vector<Value> args,
                                const std::shared_ptr<const Frame>& captured) {
  if (depth_ >= kMaxCallDepth) {
    throw RuntimeError("call depth exceeds " + std::to_string(kMaxCallDepth) + " calling '" + name +
                       "'");
  }
  if (args.size() != func.params().size()) {
    throw RuntimeError("'" + name + "' takes " + std::to_string(func.params().size()) +
                       " arguments, got " + std::to_string(args.size()));
  }
  // Restores the caller's context however this call ends.
  struct Restore {
    Interpreter* self;
    std::string function, binding;
    ~Restore() {
      --self->depth_;
      self->current_function_ = std::move(function);
      self->current_binding_ = std::move(binding);
    }
  } restore{this, current_function_, current_binding_};
  current_function_ = name;
  ++depth_;
  auto frame = std::make_shared<Frame>(captured);
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Var& param = func.params()[i];
    current_binding_ = param->name_hint();
    try {
      Match(args[i], param->struct_info(), *frame,
            "parameter '" + param->name_hint() + "' of '" + name + "'");
    } catch (const ExecutionError&) {
      throw;
    } catch (const RuntimeError& e) {
      throw ExecutionError(name, param->name_hint(), param->span(), e.what());
    }
    frame->Bind(param.get(), std::move(args[i]));
  }
  // A nested function bound in this frame captures the frame: frame -> closure -> frame, a
  // cycle of shared pointers. When the activation ends the frame's values are dropped, unless
  // the result holds a closure (which may still read them).
  struct ReleaseFrame {
    const std::shared_ptr<Frame>& frame;
    bool keep = false;
    ~ReleaseFrame() {
      if (!keep && frame.use_count() > 1) frame->Clear();
    }
  } release{frame};
  Value result = Eval(func.body(), frame);
  release.keep = HoldsCallable(result);
  return result;
}

// A var of the sequence is dropped from the frame right after the binding that reads it last,
// so its tensor's buffer goes back to the pool while it is still in cache and the next kernel
// reuses it (a run allocates its intermediates in a hot working set instead of one new buffer
// per binding). Vars the body reads stay; a sequence that makes a closure keeps every var (the
// closure captures the frame and may read them later).
//
// A transpose is deferred when the binding is a last-two-dims permute_dims and every use of its
// var in the sequence is the second operand of an R.matmul binding (once); the body or any
// other use keeps it.
const Interpreter::SeqPlan& Interpreter::Plan(const ir::SeqExprNode& seq) {
  auto it = plans_.find(&seq);
  if (it != plans_.end()) return it->second;
  std::vector<const ir::Binding*> bindings;
  for (const ir::BindingBlock& block : seq.blocks()) {
    for (const ir::Binding& binding : block->bindings()) bindings.push_back(&binding);
  }
  SeqPlan plan;
  plan.drops.resize(bindings.size());
  plan.deferred_transpose.assign(bindings.size(), false);
  std::unordered_map<const ir::VarNode*, size_t> last;        // var bound here -> last reader
  std::unordered_map<const ir::VarNode*, size_t> transposes;  // candidate var -> its binding
  bool has_function = false;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const ir::Expr& value = (*bindings[i])->value();
    UseCollector uses;
    uses.VisitExpr(value);
    has_function = has_function || uses.has_function;
    const auto* call = ir::As<ir::CallNode>(value);
    const bool is_matmul = call != nullptr && call->op_node() != nullptr &&
                           call->op_node()->name() == "relax.matmul" && call->args().size() == 2;
    for (const ir::VarNode* v : uses.uses) {
      if (auto found = last.find(v); found != last.end()) found->second = i;
      // A candidate read other than as this matmul's second operand, once, is not deferred.
      if (transposes.count(v) != 0 &&
          !(is_matmul && call->args()[1].get() == v && call->args()[0].get() != v)) {
        transposes.erase(v);
      }
    }
    const ir::Var& var = (*bindings[i])->var();
    last[var.get()] = i;  // unread vars are dropped right away
    if (call != nullptr && ir::Is<ir::VarBindingNode>(*bindings[i]) &&
        IsLastTwoDimsTranspose(*call)) {
      transposes[var.get()] = i;
    }
  }
  UseCollector body;
  body.VisitExpr(seq.body());
  for (const ir::VarNode* v : body.uses) {
    last.erase(v);
    transposes.erase(v);
  }
  if (!has_function && !body.has_function) {
    for (const auto& [var, index] : last) plan.drops[index].push_back(var);
    for (const auto& [var, index] : transposes) {
      plan.deferred_transpose[index] = true;
      transposed_vars_.insert(var);
    }
  }
  return plans_.emplace(&seq, std::move(plan)).first->second;
}

Value Interpreter::EvalSeq(const ir::SeqExprNode& seq, std::shared_ptr<Frame>& frame) {
  const SeqPlan& plan = Plan(seq);
  size_t index = 0;
  for (const ir::BindingBlock& block : seq.blocks()) {
    for (const ir::Binding& binding : block->bindings()) {
      const ir::Var& var = binding->var();
      current_binding_ = var->name_hint();
      try {
        // A deferred transpose binds its operand; the matmuls reading it transpose it.
        Value value =
            plan.deferred_transpose[index]
                ? Eval(static_cast<const ir::CallNode&>(*binding->value()).args()[0], frame)
                : Eval(binding->value(), frame);
        if (const auto* mc = ir::As<ir::MatchCastNode>(binding)) {
          Match(value, mc->struct_info(), *frame, "R.match_cast of '" + var->name_hint() + "'");
        }
        frame->Bind(var.get(), std::move(value));
        for (const ir::VarNode* dead : plan.drops[index]) frame->Erase(dead);
        ++index;
      } catch (const ExecutionError&) {
        throw;
      } catch (const TransportAborted&) {
        throw;  // another worker's failure, reported as such
      } catch (const RuntimeError& e) {
        throw ExecutionError(current_function_, var->name_hint(), binding->span(), e.what());
      }
    }
  }
  return Eval(seq.body(), frame);
}

Value Interpreter::Eval(const ir::Expr& expr, std::shared_ptr<Frame>& frame) {
  switch (expr->kind()) {
    case ir::NodeKind::kVar:
    case ir::NodeKind::kDataflowVar: {
      const auto* var = static_cast<const ir::VarNode*>(expr.get());
      const Value* v = frame->Find(var);
      if (v == nullptr) throw RuntimeError("variable '" + var->name_hint() + "' has no value");
      return *v;
    }
    case ir::NodeKind::kGlobalVar: {
      const auto* g = static_cast<const ir::GlobalVarNode*>(expr.get());
      Callable c;
      c.name = g->name_hint();
      if (ir::Function f = mod_.LookupFunction(g->name_hint())) c.func = f.get();
      return Value::MakeCallable(std::move(c));
    }
    case ir::NodeKind::kConstant: {
      const auto* c = static_cast<const ir::ConstantNode*>(expr.get());
      if (c->is_metadata()) {
        if (metadata_ != nullptr) {
          auto it = metadata_->find(c->metadata_index());
          if (it != metadata_->end()) return it->second;
        }
        const std::string index = std::to_string(c->metadata_index());
        throw RuntimeError("constant metadata[\"relax.expr.Constant\"][" + index +
                           "] is not available: the module was printed without its metadata; "
                           "supply it as tensor 'relax.expr.Constant." +
                           index + "' of a --metadata file");
      }
      if (c->is_tensor()) {
        Shape shape = c->shape();
        std::vector<int64_t> ints;
        std::vector<double> doubles;
        for (const ir::ConstantNode::Scalar& e : c->elements()) {
          if (const int64_t* i = std::get_if<int64_t>(&e)) ints.push_back(*i);
          doubles.push_back(std::visit([](auto v) { return static_cast<double>(v); }, e));
        }
        // Integers exactly when every element is one (int64 beyond 2^53).
        if (ints.size() == doubles.size()) return Tensor(MakeIntTensor(c->dtype(), shape, ints));
        return Tensor(MakeTensor(c->dtype(), shape, doubles));
      }
      double value = std::visit([](auto v) { return static_cast<double>(v); }, c->scalar());
      if (const int64_t* i = std::get_if<int64_t>(&c->scalar())) {
        return Tensor(MakeIntTensor(c->dtype(), {}, {*i}));
      }
      return Tensor(MakeScalar(c->dtype(), value));
    }
    case ir::NodeKind::kTuple: {
      const auto* t = static_cast<const ir::TupleNode*>(expr.get());
      Value::Tuple fields;
      fields.reserve(t->fields().size());
      for (const ir::Expr& f : t->fields()) fields.push_back(Eval(f, frame));
      return Value::MakeTuple(std::move(fields));
    }
    case ir::NodeKind::kTupleGetItem: {
      const auto* item = static_cast<const ir::TupleGetItemNode*>(expr.get());
      Value tuple = Eval(item->tuple(), frame);
      if (const auto* fields = tuple.as_tuple()) {
        if (item->index() < 0 || item->index() >= static_cast<int>(fields->size())) {
          throw RuntimeError("tuple index " + std::to_string(item->index()) +
                             " is out of range for a tuple of " + std::to_string(fields->size()));
        }
        return (*fields)[item->index()];
      }
      if (const auto* object = dynamic_cast<const FieldObject*>(tuple.as_object())) {
        return object->GetField(item->index());
      }
      throw RuntimeError("indexing " + tuple.Describe() + ", not a tuple");
    }
    case ir::NodeKind::kShapeExpr: {
      const auto* s = static_cast<const ir::ShapeExprNode*>(expr.get());
      Shape shape;
      shape.reserve(s->values().size());
      for (const ir::PrimExpr& e : s->values()) shape.push_back(EvalInt(e, *frame));
      return Value::MakeShape(std::move(shape));
    }
    case ir::NodeKind::kPrimValue: {
      const auto* p = static_cast<const ir::PrimValueNode*>(expr.get());
      PrimScalar s;
      s.dtype = p->value()->dtype();
      if (s.is_float()) {
        s.float_value = EvalFloat(p->value(), *frame);
      } else {
        s.int_value = EvalInt(p->value(), *frame);
      }
      return Value::MakePrim(s);
    }
    case ir::NodeKind::kStringImm:
      return Value::MakeString(static_cast<const ir::StringImmNode*>(expr.get())->value());
    case ir::NodeKind::kDataTypeImm:
      return Value::MakeDType(static_cast<const ir::DataTypeImmNode*>(expr.get())->value());
    case ir::NodeKind::kExternFunc: {
      Callable c;
      c.name = static_cast<const ir::ExternFuncNode*>(expr.get())->global_symbol();
      return Value::MakeCallable(std::move(c));
    }
    case ir::NodeKind::kCall:
      return EvalCall(static_cast<const ir::CallNode&>(*expr), frame);
    case ir::NodeKind::kIf: {
      const auto* node = static_cast<const ir::IfNode*>(expr.get());
      Value cond = Eval(node->cond(), frame);
      bool taken;
      if (const PrimScalar* p = cond.as_prim()) {
        taken = p->AsDouble() != 0;
      } else if (const Tensor* t = cond.as_tensor(); t != nullptr && t->numel() == 1) {
        taken = ElementAsDouble(*t, 0) != 0;
      } else {
        throw RuntimeError("the condition of an if must be a scalar, got " + cond.Describe());
      }
      const ir::Expr& branch = taken ? node->true_branch() : node->false_branch();
      return Eval(branch, frame);
    }
    case ir::NodeKind::kSeqExpr:
      return EvalSeq(static_cast<const ir::SeqExprNode&>(*expr), frame);
    case ir::NodeKind::kFunction: {
      auto func = std::static_pointer_cast<const ir::FunctionNode>(expr);
      Callable c;
      c.func = func.get();
      c.keep_alive = func;
      c.name = current_binding_;
      c.captured = frame;
      return Value::MakeCallable(std::move(c));
    }
    case ir::NodeKind::kOp:
    case ir::NodeKind::kPrimFunc:
    PIPESPLIT_KINDS_OUTSIDE_EXPR:
      throw RuntimeError("cannot evaluate this expression");
  }
  PS_UNREACHABLE();
}

Value Interpreter::EvalCall(const ir::CallNode& call, std::shared_ptr<Frame>& frame) {
  auto eval_args = [&](size_t from) {
    std::vector<Value> out;
    for (size_t i = from; i < call.args().size(); ++i) out.push_back(Eval(call.args()[i], frame));
    return out;
  };
  auto tuple_args = [&](size_t index) {
    std::vector<Value> out;
    if (index >= call.args().size()) return out;
    Value packed = Eval(call.args()[index], frame);
    if (const auto* tuple = packed.as_tuple()) return *tuple;
    out.push_back(std::move(packed));
    return out;
  };
  if (const ir::OpNode* op = call.op_node()) {
    const std::string& name = op->name();
    if (name == "relax.call_tir" || name == "relax.call_tir_inplace" ||
        name == "relax.call_tir_with_grad") {
      if (kernels_ == nullptr) {
        throw RuntimeError("cannot execute " + op->script_name() + " of TIR kernel '" +
                           KernelName(call) + "': pipesplit does not execute TIR");
      }
      return CallTIR(call, frame);
    }
    if (name == "relax.call_pure_packed" || name == "relax.call_inplace_packed") {
      return CallPacked(ExternSymbol(call), eval_args(1), nullptr, *frame);
    }
    if (name == "relax.call_dps_packed") {
      const ir::StructInfo* out = call.sinfo_args().empty() ? nullptr : &call.sinfo_args()[0];
      return CallPacked(ExternSymbol(call), tuple_args(1), out, *frame);
    }
    if (name == "relax.call_builtin_with_ctx") {
      return CallPacked(ExternSymbol(call), tuple_args(1), nullptr, *frame);
    }
    if (name == "relax.builtin.stop_lift_params") return Eval(call.args()[0], frame);
    if (IsMemoryOp(name)) return RunMemoryOp(call, eval_args(0));
    if (name == "relax.print") {
      std::vector<Value> args = eval_args(0);
      for (const Value& v : args) std::fprintf(stderr, "%s\n", v.Describe().c_str());
      return Value();
    }
    if (name == "relax.matmul" && call.args().size() == 2 &&
        transposed_vars_.count(static_cast<const ir::VarNode*>(call.args()[1].get())) != 0) {
      return RunMatmulTransposedB(call, eval_args(0));
    }
    if (name.starts_with("relax.ccl.")) {
      std::vector<Value> args = eval_args(0);
      const Value input = args.empty() ? Value() : args[0];
      CclCall lowered = LowerCclOp(call, std::move(args));
      Value out = CallPacked(lowered.symbol, std::move(lowered.args), nullptr, *frame);
      if (lowered.gather_workers > 0) {
        const Tensor& in = input.ExpectTensor("the gathered tensor");
        const Tensor& got = out.ExpectTensor("the result of " + op->script_name());
        if (got.dim(0) != in.dim(0) * lowered.gather_workers) {
          throw RuntimeError(op->script_name() + " declares " +
                             std::to_string(lowered.gather_workers) + " workers but gathered " +
                             got.ToString() + " from " + in.ToString());
        }
      }
      return out;
    }
    return RunOp(call, eval_args(0));
  }
  if (const auto* extern_func = ir::As<ir::ExternFuncNode>(call.op())) {
    return CallPacked(extern_func->global_symbol(), eval_args(0), nullptr, *frame);
  }
  Value callee = Eval(call.op(), frame);
  return Invoke(callee, eval_args(0));
}

Value Interpreter::CallPacked(const std::string& symbol, std::vector<Value> args,
                              const ir::StructInfo* out_sinfo, const Frame& frame) {
  const BuiltinFn* fn = builtins_.Find(symbol);
  if (fn == nullptr) throw RuntimeError("unknown packed function '" + symbol + "'");
  BuiltinCall call{*this, args, out_sinfo, &frame, std::nullopt};
  Value result = (*fn)(call);
  if (!result.is_null() || !call.outputs) return result;
  Value::Tuple outputs;
  for (TensorBuilder& b : *call.outputs) outputs.push_back(std::move(b).Publish());
  if (out_sinfo != nullptr && ir::Is<ir::TupleSInfoNode>(*out_sinfo)) {
    return Value::MakeTuple(std::move(outputs));
  }
  return outputs.size() == 1 ? outputs[0] : Value::MakeTuple(std::move(outputs));
}

std::vector<TensorBuilder>& BuiltinCall::Outputs() {
  if (!outputs) {
    if (out_sinfo == nullptr || frame == nullptr) {
      throw RuntimeError("this packed call declares no outputs (out_sinfo)");
    }
    outputs = interpreter.AllocateOutputs(*out_sinfo, *frame, "the output of the packed call");
  }
  return *outputs;
}

}  // namespace pipesplit::runtime
