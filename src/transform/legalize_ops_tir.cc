// KernelBuilder and the expression helpers of legalize-ops (see legalize_ops_tir.h).
#include "src/transform/legalize_ops_tir.h"

#include <cmath>
#include <limits>
#include <unordered_set>

#include "pipesplit/ir/arith.h"

namespace pipesplit::transform::legalize {

std::optional<TensorType> KnownTensor(const ir::Expr& e) {
  const auto* t = ir::As<ir::TensorSInfoNode>(e->struct_info());
  if (t == nullptr || !t->shape() || t->dtype().is_void()) return std::nullopt;
  return TensorType{*t->shape(), t->dtype()};
}

std::optional<TensorType> Result(const ir::CallNode& call) {
  const auto* t = ir::As<ir::TensorSInfoNode>(call.struct_info());
  if (t == nullptr || !t->shape() || t->dtype().is_void()) return std::nullopt;
  return TensorType{*t->shape(), t->dtype()};
}

std::string KernelName(const ir::CallNode& call) {
  std::string name = call.op_node()->name();
  for (std::string prefix : {"relax.", "nn."}) {
    if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  }
  return name;
}

PrimExpr ScalarConstant(const ir::Expr& e) {
  const auto* c = ir::As<ir::ConstantNode>(e);
  if (c == nullptr || c->is_metadata() || c->is_tensor()) return nullptr;
  DataType dtype = c->dtype();
  if (const auto* d = std::get_if<double>(&c->scalar())) return Imm(dtype, *d);
  if (const auto* i = std::get_if<int64_t>(&c->scalar())) {
    return dtype.is_float() ? Imm(dtype, static_cast<double>(*i)) : ir::IntImm(*i, dtype);
  }
  const bool b = std::get<bool>(c->scalar());
  return dtype.is_float() ? Imm(dtype, b ? 1.0 : 0.0) : ir::IntImm(b ? 1 : 0, dtype);
}

std::optional<int64_t> ConstInt(const ir::Expr& e) {
  if (const auto* p = ir::As<ir::PrimValueNode>(e)) return ir::AsConstInt(p->value());
  if (const auto* c = ir::As<ir::ConstantNode>(e); c != nullptr && !c->is_tensor()) {
    if (const auto* i = std::get_if<int64_t>(&c->scalar())) return *i;
  }
  return std::nullopt;
}

PrimExpr Load(const ir::Buffer& buffer, Indices indices) {
  return ir::Make<ir::BufferLoadNode>(buffer, std::move(indices));
}

PrimExpr Call(const std::string& intrinsic, PrimExpr arg) {
  DataType dtype = arg->dtype();
  return ir::Make<ir::PrimCallNode>(intrinsic, std::vector<PrimExpr>{std::move(arg)}, dtype);
}

PrimExpr Cast(DataType dtype, PrimExpr value) {
  if (value->dtype() == dtype) return value;
  return ir::Make<ir::CastNode>(dtype, std::move(value));
}

PrimExpr Imm(DataType dtype, double value) {
  if (dtype.is_float()) return ir::FloatImm(value, dtype);
  if (dtype.is_bool()) return ir::IntImm(value != 0 ? 1 : 0, dtype);
  return ir::IntImm(static_cast<int64_t>(value), dtype);
}

PrimExpr MinValue(DataType dtype) {
  if (dtype.is_float()) {
    double lowest = dtype.bits() == 64   ? std::numeric_limits<double>::lowest()
                    : dtype.bits() == 16 ? -65504.0
                                         : std::numeric_limits<float>::lowest();
    return ir::FloatImm(lowest, dtype);
  }
  if (dtype.is_uint() || dtype.is_bool()) return ir::IntImm(0, dtype);
  int bits = dtype.bits();
  return ir::IntImm(bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1)),
                    dtype);
}

Indices BroadcastIndices(const Indices& out_vars, const std::vector<PrimExpr>& out_shape,
                         const std::vector<PrimExpr>& operand_shape) {
  Indices out;
  const size_t offset = out_vars.size() - operand_shape.size();
  for (size_t i = 0; i < operand_shape.size(); ++i) {
    const PrimExpr& d = operand_shape[i];
    bool one = ir::AsConstInt(d) == 1 && ir::AsConstInt(out_shape[offset + i]) != 1;
    out.push_back(one ? ir::Int64(0) : out_vars[offset + i]);
  }
  return out;
}

PrimExpr KernelBuilder::Local(const PrimExpr& relax_expr) {
  ir::TirVarMap map;
  ir::VisitTirVars(relax_expr, [&](const ir::TirVar& v) {
    auto it = local_.find(v.get());
    if (it == local_.end()) {
      it = local_.emplace(v.get(), ir::MakeTirVar(v->name(), v->dtype())).first;
      relax_vars_.push_back(v);
    }
    map[v.get()] = it->second;
  });
  return map.empty() ? relax_expr : ir::Substitute(relax_expr, map);
}

ir::Buffer KernelBuilder::Param(const std::string& name, const TensorType& type) {
  std::vector<PrimExpr> shape;
  for (const PrimExpr& d : type.shape) shape.push_back(Local(d));
  return ir::MakeBuffer(name, type.dtype, std::move(shape));
}

ir::Buffer KernelBuilder::Input(const ir::Expr& arg, const TensorType& type) {
  // A, B, ..., Z, then A1, B1, ...
  const size_t i = inputs_.size();
  std::string name(1, static_cast<char>('A' + i % 26));
  if (i >= 26) name += std::to_string(i / 26);
  inputs_.push_back(Param(name, type));
  args_.push_back(arg);
  return inputs_.back();
}

ir::Buffer KernelBuilder::Output(const std::string& name, const TensorType& type) {
  outputs_.push_back(Param(name, type));
  return outputs_.back();
}

ir::Buffer KernelBuilder::Alloc(const std::string& name, DataType dtype,
                                std::vector<PrimExpr> shape) {
  allocs_.push_back(ir::MakeBuffer(name, dtype, std::move(shape)));
  return allocs_.back();
}

void KernelBuilder::Compute(const std::string& block, const ir::Buffer& out, const ValueFn& value,
                            const std::string& loop_prefix, ir::AttrMap block_attrs) {
  Stage(block, out, out->shape(), out->shape().size(), loop_prefix, value, std::nullopt, nullptr,
        std::move(block_attrs));
}

void KernelBuilder::Reduce(const std::string& block, const ir::Buffer& out,
                           const std::vector<PrimExpr>& reduce_extents, Combiner combiner,
                           PrimExpr init, const ValueFn& value, const std::string& loop_prefix) {
  std::vector<PrimExpr> extents = out->shape();
  extents.insert(extents.end(), reduce_extents.begin(), reduce_extents.end());
  Stage(block, out, extents, out->shape().size(), loop_prefix, value, combiner, std::move(init),
        {});
}

namespace {

// The distinct buffers `e` loads from, in order of first appearance, with the region each is
// read at: the accessed point when every access uses the same indices, else the whole buffer.
void CollectReads(const PrimExpr& e, const ir::BufferNode* skip,
                  std::vector<ir::BufferRegion>* reads) {
  if (const auto* load = ir::As<ir::BufferLoadNode>(e)) {
    if (load->buffer().get() != skip) {
      ir::BufferRegion* found = nullptr;
      for (ir::BufferRegion& r : *reads) {
        if (r.buffer == load->buffer()) found = &r;
      }
      std::vector<ir::Range> point;
      for (const PrimExpr& i : load->indices()) point.push_back({i, ir::IntImm(1, i->dtype())});
      if (found == nullptr) {
        reads->push_back({load->buffer(), std::move(point)});
      } else {
        bool same = found->region.size() == point.size();
        for (size_t i = 0; same && i < point.size(); ++i) {
          same = ir::ExprDeepEqual(found->region[i].min, point[i].min) &&
                 ir::ExprDeepEqual(found->region[i].extent, point[i].extent);
        }
        if (!same) {
          found->region.clear();
          for (const PrimExpr& d : load->buffer()->shape()) {
            found->region.push_back({ir::Int64(0), d});
          }
        }
      }
    }
  }
  ir::ForEachChild(e, [&](const PrimExpr& child) { CollectReads(child, skip, reads); });
}

}  // namespace

void KernelBuilder::Stage(const std::string& block, const ir::Buffer& out,
                          const std::vector<PrimExpr>& extents, size_t num_spatial,
                          const std::string& loop_prefix, const ValueFn& value,
                          std::optional<Combiner> combiner, PrimExpr init,
                          ir::AttrMap block_attrs) {
  const size_t num_reduce = extents.size() - num_spatial;
  std::vector<ir::TirVar> loops;
  ir::BlockNode::Fields f;
  f.name_hint = block;
  Indices vars, spatial;
  for (size_t i = 0; i < extents.size(); ++i) {
    std::string name;
    if (i < num_spatial) {
      name = loop_prefix + std::to_string(i);
    } else {
      name = num_reduce == 1 ? "k" : "k" + std::to_string(i - num_spatial);
    }
    loops.push_back(ir::MakeTirVar(name));
    ir::TirVar v = ir::MakeTirVar("v_" + name);
    f.iter_vars.push_back(
        {v,
         {ir::Int64(0), extents[i]},
         i < num_spatial ? ir::IterVarType::kDataPar : ir::IterVarType::kCommReduce});
    vars.push_back(v);
    if (i < num_spatial) spatial.push_back(v);
  }
  PrimExpr result = value(vars);
  if (combiner) {
    PrimExpr acc = Load(out, spatial);
    result = ir::MakeBinary(*combiner == Combiner::kSum ? ir::BinaryOp::kAdd : ir::BinaryOp::kMax,
                            acc, result);
    f.init = ir::Make<ir::BufferStoreNode>(out, std::move(init), spatial);
  }
  CollectReads(result, combiner ? out.get() : nullptr, &f.reads);
  std::vector<ir::Range> write;
  for (const PrimExpr& s : spatial) write.push_back({s, ir::Int64(1)});
  f.writes.push_back({out, std::move(write)});
  f.annotations = std::move(block_attrs);
  f.body = ir::Make<ir::BufferStoreNode>(out, std::move(result), spatial);
  std::vector<PrimExpr> iter_values(loops.begin(), loops.end());
  ir::Stmt stmt = ir::Make<ir::BlockRealizeNode>(std::move(iter_values), ir::BoolImm(true),
                                                 ir::Make<ir::BlockNode>(std::move(f)));
  for (size_t i = loops.size(); i-- > 0;) {
    stmt = ir::Make<ir::ForNode>(loops[i], ir::Int64(0), extents[i], ir::ForKind::kSerial,
                                 std::move(stmt));
  }
  stages_.push_back(std::move(stmt));
}

LoweredCall KernelBuilder::Finish() {
  ir::PrimFuncNode::Fields f;
  f.name = name_hint_;
  f.is_private = true;
  std::unordered_set<const ir::TirVarNode*> defined;
  auto add_param = [&](const ir::Buffer& b) {
    ir::TirVar handle = ir::MakeTirVar("var_" + b->name(), DataType::Handle());
    f.params.push_back(handle);
    f.buffer_map.emplace_back(handle, b);
    for (const PrimExpr& d : b->shape()) {
      if (const auto* v = ir::As<ir::TirVarNode>(d)) defined.insert(v);
    }
  };
  for (const ir::Buffer& b : inputs_) add_param(b);
  for (const ir::Buffer& b : outputs_) add_param(b);
  LoweredCall out;
  for (const ir::TirVar& relax_var : relax_vars_) {
    const ir::TirVar& local = local_.at(relax_var.get());
    if (defined.count(local.get())) continue;
    f.params.push_back(local);
    out.tir_vars.push_back(relax_var);
  }
  ir::BlockNode::Fields root;
  root.name_hint = "root";
  root.alloc_buffers = allocs_;
  root.body = ir::MakeSeq(stages_);
  f.body = ir::Make<ir::BlockRealizeNode>(std::vector<PrimExpr>{}, ir::BoolImm(true),
                                          ir::Make<ir::BlockNode>(std::move(root)));
  f.attrs.emplace_back("tir.noalias", ir::AttrValue(ir::BoolImm(true)));
  out.func = ir::Make<ir::PrimFuncNode>(std::move(f));
  out.args = args_;
  return out;
}

}  // namespace pipesplit::transform::legalize
