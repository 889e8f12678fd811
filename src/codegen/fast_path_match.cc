// The fast path's pattern match (codegen/fast_path.h states what matches).
//
// Preconditions: `func` is a well-formed PrimFunc (vars defined before use, buffers declared).
//
// Steps:
//  1. Inline the kernel's elementwise producers (tir-compute-inline), so that MLC's
//     unscheduled kernels (unpack, dequantize, then multiply) and dlight's scheduled ones
//     (dequantization already inside the multiply) look alike.
//  2. Collect the top-level loop nests; each must cover its block's domain exactly once
//     (fast_path_nest.h), and the kernel must say its buffers do not alias ("tir.noalias").
//  3. The first block is the reduction: its store, init and product (MatchReduction), its
//     activation and weight factors (MatchActivation, MatchWeight), their shapes.
//  4. The blocks after it are the epilogue (MatchEpilogue), ending in a parameter.
//  5. Every buffer the kernel allocates is one of the chain's intermediates, read by the next
//     block only; parameters other than the output are only read.
#include <algorithm>
#include <functional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/codegen/fast_path.h"
#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/tir_functor.h"
#include "pipesplit/transform/tir_compute_inline.h"
#include "src/codegen/fast_path_nest.h"

namespace pipesplit::codegen {
namespace {

using detail::NestBlock;

bool IsFloatType(DataType dt) {
  return (dt.is_float() && (dt.bits() == 16 || dt.bits() == 32)) ||
         (dt.code() == DataType::Code::kBFloat && dt.bits() == 16);
}

bool IsVar(const ir::PrimExpr& e, const ir::TirVarNode* v) {
  return v != nullptr && ir::As<ir::TirVarNode>(e) == v;
}

bool SameExtent(const ir::PrimExpr& a, const ir::PrimExpr& b) {
  return ir::ExprDeepEqual(a, b) || ir::ProvablyEqual(a, b);
}

// Strips casts from one float type to another (the factors of a mixed-precision product).
const ir::PrimExpr& StripFloatCasts(const ir::PrimExpr& e) {
  const ir::PrimExpr* at = &e;
  while (const auto* cast = ir::As<ir::CastNode>(*at)) {
    if (!IsFloatType(cast->dtype()) || !IsFloatType(cast->value()->dtype())) break;
    at = &cast->value();
  }
  return *at;
}

const ir::BinaryNode* AsBinary(const ir::PrimExpr& e, ir::BinaryOp op) {
  const auto* b = ir::As<ir::BinaryNode>(e);
  return b != nullptr && b->op() == op ? b : nullptr;
}

// `k // c` (or `k % c`) for the var k: c, else nullopt.
std::optional<int64_t> DivisorOf(const ir::PrimExpr& e, ir::BinaryOp op, const ir::TirVarNode* k) {
  const ir::BinaryNode* b = AsBinary(e, op);
  if (b == nullptr || !IsVar(b->a(), k)) return std::nullopt;
  return ir::AsConstInt(b->b());
}

class Matcher {
 public:
  explicit Matcher(const ir::PrimFuncNode& func) : func_(func) {
    for (size_t i = 0; i < func.params().size(); ++i) {
      if (const ir::Buffer* b = func.BufferOf(func.params()[i].get())) {
        param_of_[b->get()] = static_cast<int>(i);
      }
    }
  }

  FastPathMatch Run(const ir::PrimFuncNode& inlined);

 private:
  bool Refuse(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }
  int ParamOf(const ir::Buffer& b) const {
    auto it = param_of_.find(b.get());
    return it == param_of_.end() ? -1 : it->second;
  }
  bool MatchReduction(const NestBlock& nest);
  bool MatchActivation(const ir::PrimExpr& e);
  bool MatchWeight(const ir::PrimExpr& e);
  bool MatchDequantize(const ir::PrimExpr& e);
  bool MatchEpilogue(const NestBlock& nest, const ir::Buffer& prev);
  // Whether `indices` address every element of `shape` once through distinct spatial iter vars
  // of `block` (0 on dims of extent 1); the vars' positions go to `vars`.
  bool FullIndices(const ir::BlockNode& block, const std::vector<ir::PrimExpr>& indices,
                   const std::vector<ir::PrimExpr>& shape,
                   std::vector<const ir::TirVarNode*>* vars);

  const ir::PrimFuncNode& func_;
  std::unordered_map<const ir::BufferNode*, int> param_of_;
  std::string why_;
  FastContraction c_;
  // The reduction: its output, vars and extents.
  ir::Buffer out_;
  std::vector<ir::PrimExpr> out_shape_;
  const ir::TirVarNode* k_ = nullptr;
  const ir::TirVarNode* n_ = nullptr;
  ir::PrimExpr k_extent_, n_extent_;
  std::vector<const ir::TirVarNode*> batch_;  // O's index vars before n, in order
  std::unordered_map<const ir::TirVarNode*, ir::PrimExpr> extent_of_;
};

bool Matcher::FullIndices(const ir::BlockNode& block, const std::vector<ir::PrimExpr>& indices,
                          const std::vector<ir::PrimExpr>& shape,
                          std::vector<const ir::TirVarNode*>* vars) {
  if (indices.size() != shape.size()) return false;
  std::unordered_map<const ir::TirVarNode*, const ir::IterVar*> spatial;
  for (const ir::IterVar& iv : block.iter_vars()) {
    if (iv.type == ir::IterVarType::kDataPar) spatial[iv.var.get()] = &iv;
  }
  std::unordered_set<const ir::TirVarNode*> seen;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (const auto* v = ir::As<ir::TirVarNode>(indices[d]); v != nullptr && spatial.count(v)) {
      if (!seen.insert(v).second || !SameExtent(spatial[v]->dom.extent, shape[d])) return false;
      vars->push_back(v);
      continue;
    }
    if (ir::AsConstInt(indices[d]) != 0 || ir::AsConstInt(shape[d]) != 1) return false;
    vars->push_back(nullptr);
  }
  return seen.size() == spatial.size();  // every spatial var indexes the output
}

bool Matcher::MatchReduction(const NestBlock& nest) {
  const ir::BlockNode& block = *nest.block;
  for (const ir::IterVar& iv : block.iter_vars()) {
    extent_of_[iv.var.get()] = iv.dom.extent;
    if (iv.type != ir::IterVarType::kCommReduce) continue;
    if (k_ != nullptr) return Refuse("the reduction has two reduction iter vars");
    k_ = iv.var.get();
    k_extent_ = iv.dom.extent;
  }
  if (k_ == nullptr) return Refuse("the kernel has no reduction");
  const auto* store = ir::As<ir::BufferStoreNode>(block.body());
  const auto* init = block.init() ? ir::As<ir::BufferStoreNode>(block.init()) : nullptr;
  if (store == nullptr || init == nullptr)
    return Refuse("the reduction is not one store with an init");
  out_ = store->buffer();
  if (!IsFloatType(out_->dtype())) {
    return Refuse("the reduction's result is " + out_->dtype().ToString());
  }
  const auto* zero = ir::As<ir::FloatImmNode>(init->value());
  if (init->buffer() != out_ || zero == nullptr || zero->value() != 0.0 ||
      init->indices().size() != store->indices().size()) {
    return Refuse("the reduction's init is not a store of 0 to its output");
  }
  for (size_t d = 0; d < store->indices().size(); ++d) {
    if (!ir::ExprDeepEqual(init->indices()[d], store->indices()[d])) {
      return Refuse("the reduction's init is not a store of 0 to its output");
    }
  }
  std::vector<const ir::TirVarNode*> vars;
  if (!FullIndices(block, store->indices(), out_->shape(), &vars) || vars.back() == nullptr) {
    return Refuse("the reduction does not write each element of its output once, n last");
  }
  n_ = vars.back();
  n_extent_ = extent_of_[n_];
  for (size_t d = 0; d + 1 < vars.size(); ++d) {
    if (vars[d] != nullptr) batch_.push_back(vars[d]);
  }
  out_shape_ = out_->shape();
  // value = O[idx] + product (either order).
  const ir::BinaryNode* add = AsBinary(store->value(), ir::BinaryOp::kAdd);
  if (add == nullptr) return Refuse("the reduction is not a sum");
  auto is_acc = [&](const ir::PrimExpr& e) {
    const auto* load = ir::As<ir::BufferLoadNode>(e);
    if (load == nullptr || load->buffer() != out_) return false;
    for (size_t d = 0; d < load->indices().size(); ++d) {
      if (!ir::ExprDeepEqual(load->indices()[d], store->indices()[d])) return false;
    }
    return true;
  };
  const ir::PrimExpr* product = is_acc(add->a())   ? &add->b()
                                : is_acc(add->b()) ? &add->a()
                                                   : nullptr;
  if (product == nullptr) return Refuse("the reduction does not accumulate into its output");
  const ir::BinaryNode* mul = AsBinary(StripFloatCasts(*product), ir::BinaryOp::kMul);
  if (mul == nullptr) return Refuse("the reduction is not a sum of products");
  if (mul->dtype().bits() > 32) return Refuse("the product is " + mul->dtype().ToString());
  c_.product = out_->dtype();
  // x * w, else w * x; a refusal names what the first order lacks.
  if (MatchActivation(mul->a()) && MatchWeight(mul->b())) return true;
  const std::string first = why_;
  why_.clear();
  c_ = FastContraction();
  c_.product = out_->dtype();
  if (MatchActivation(mul->b()) && MatchWeight(mul->a())) return true;
  why_ = first;
  return false;
}

bool Matcher::MatchActivation(const ir::PrimExpr& e) {
  const auto* load = ir::As<ir::BufferLoadNode>(StripFloatCasts(e));
  if (load == nullptr || !IsFloatType(load->buffer()->dtype())) {
    return Refuse("no factor of the product is a float activation x[..., k]");
  }
  const ir::Buffer& x = load->buffer();
  c_.x_param = ParamOf(x);
  const auto& idx = load->indices();
  if (c_.x_param < 0 || idx.empty() || !IsVar(idx.back(), k_)) {
    return Refuse("no factor of the product is a parameter indexed [..., k]");
  }
  if (!SameExtent(x->shape().back(), k_extent_)) {
    return Refuse("the reduction does not cover the activation's last dim");
  }
  std::vector<const ir::TirVarNode*> rows;
  for (size_t d = 0; d + 1 < idx.size(); ++d) {
    if (const auto* v = ir::As<ir::TirVarNode>(idx[d])) {
      if (!SameExtent(x->shape()[d], extent_of_[v])) return Refuse("the activation's dims differ");
      rows.push_back(v);
    } else if (ir::AsConstInt(idx[d]) != 0 || ir::AsConstInt(x->shape()[d]) != 1) {
      return Refuse("the activation is not indexed by the output's rows");
    }
  }
  if (rows != batch_) return Refuse("the activation's rows are not the output's rows");
  return true;
}

bool Matcher::MatchWeight(const ir::PrimExpr& e) {
  const ir::PrimExpr& w = StripFloatCasts(e);
  if (const auto* load = ir::As<ir::BufferLoadNode>(w)) {
    const ir::Buffer& b = load->buffer();
    if (!IsFloatType(b->dtype()) || load->indices().size() != 2 || !IsVar(load->indices()[0], n_) ||
        !IsVar(load->indices()[1], k_)) {
      return Refuse("the weight is not a load w[n, k] of a float matrix");
    }
    c_.w_param = ParamOf(b);
    if (c_.w_param < 0) return Refuse("the weight is not a parameter");
    if (!SameExtent(b->shape()[0], n_extent_) || !SameExtent(b->shape()[1], k_extent_)) {
      return Refuse("the weight's shape is not [N, K]");
    }
    c_.description = "w[N, K] " + load->buffer()->dtype().ToString();
    return true;
  }
  return MatchDequantize(w);
}

bool Matcher::MatchDequantize(const ir::PrimExpr& e) {
  // (Cast(D, nibble) - z) * S[n, k // G], either order.
  const ir::BinaryNode* mul = AsBinary(e, ir::BinaryOp::kMul);
  if (mul == nullptr) return Refuse("the weight is neither a matrix load nor a dequantization");
  const ir::BufferLoadNode* scale = ir::As<ir::BufferLoadNode>(mul->b());
  const ir::BinaryNode* sub = AsBinary(mul->a(), ir::BinaryOp::kSub);
  if (scale == nullptr || sub == nullptr) {
    scale = ir::As<ir::BufferLoadNode>(mul->a());
    sub = AsBinary(mul->b(), ir::BinaryOp::kSub);
  }
  const ir::CastNode* cast = sub ? ir::As<ir::CastNode>(sub->a()) : nullptr;
  const auto* zero = sub ? ir::As<ir::FloatImmNode>(sub->b()) : nullptr;
  if (scale == nullptr || cast == nullptr || zero == nullptr || !IsFloatType(cast->dtype())) {
    return Refuse("the weight is not (T.Cast(float, q) - z) * scale");
  }
  // scale: S[n, k // G]
  std::optional<int64_t> group;
  if (scale->indices().size() == 2 && IsVar(scale->indices()[0], n_)) {
    group = DivisorOf(scale->indices()[1], ir::BinaryOp::kFloorDiv, k_);
  }
  if (!group || *group <= 0) return Refuse("the scales are not indexed [n, k // G]");
  if (*group % 32 != 0)
    return Refuse("the group size " + std::to_string(*group) + " is not a multiple of 32");
  // q = (Wq[n, k // 8] >> T.Cast("uint32", k % 8 * 4)) & 15
  const auto* band = ir::As<ir::PrimCallNode>(cast->value());
  if (band == nullptr || band->name() != "bitwise_and" || band->args().size() != 2 ||
      ir::AsConstInt(band->args()[1]) != 15) {
    return Refuse("the quantized value is not (word >> shift) & 15");
  }
  const auto* shr = ir::As<ir::PrimCallNode>(band->args()[0]);
  if (shr == nullptr || shr->name() != "shift_right" || shr->args().size() != 2) {
    return Refuse("the quantized value is not (word >> shift) & 15");
  }
  const auto* word = ir::As<ir::BufferLoadNode>(shr->args()[0]);
  if (word == nullptr || word->buffer()->dtype() != DataType::UInt(32) ||
      word->indices().size() != 2 || !IsVar(word->indices()[0], n_) ||
      DivisorOf(word->indices()[1], ir::BinaryOp::kFloorDiv, k_) != 8) {
    return Refuse("the packed words are not uint32 indexed [n, k // 8]");
  }
  const ir::PrimExpr* shift = &shr->args()[1];
  if (const auto* c = ir::As<ir::CastNode>(*shift); c != nullptr && c->dtype().is_integer()) {
    shift = &c->value();
  }
  const ir::BinaryNode* times = AsBinary(*shift, ir::BinaryOp::kMul);
  bool shift_ok = false;
  if (times != nullptr) {
    shift_ok = (DivisorOf(times->a(), ir::BinaryOp::kFloorMod, k_) == 8 &&
                ir::AsConstInt(times->b()) == 4) ||
               (DivisorOf(times->b(), ir::BinaryOp::kFloorMod, k_) == 8 &&
                ir::AsConstInt(times->a()) == 4);
  }
  if (!shift_ok) return Refuse("the nibble of k is not selected by k % 8 * 4");
  c_.quantized = true;
  c_.w_param = ParamOf(word->buffer());
  c_.scale_param = ParamOf(scale->buffer());
  if (c_.w_param < 0 || c_.scale_param < 0) return Refuse("the packed weight is not a parameter");
  if (!IsFloatType(scale->buffer()->dtype()) ||
      scale->buffer()->dtype().code() == DataType::Code::kBFloat) {
    return Refuse("the scales are " + scale->buffer()->dtype().ToString());
  }
  c_.group_size = *group;
  c_.zero_point = zero->value();
  c_.dequant = mul->dtype();
  if (c_.dequant.code() == DataType::Code::kBFloat || c_.dequant.bits() > 32) {
    return Refuse("the weight is dequantized in " + c_.dequant.ToString());
  }
  // Shapes: Wq [N, W] with 8 W >= K, S [N, G'] with G' >= ceil(K / G) (MLC pads a row to
  // whole groups).
  const auto& wq = word->buffer()->shape();
  const auto& s = scale->buffer()->shape();
  std::optional<int64_t> k = ir::AsConstInt(k_extent_);
  std::optional<int64_t> words = ir::AsConstInt(wq[1]);
  std::optional<int64_t> groups = ir::AsConstInt(s[1]);
  if (!k || *k % 8 != 0 || !words || *words * 8 < *k || !groups ||
      *groups < (*k + *group - 1) / *group || !SameExtent(wq[0], n_extent_) ||
      !SameExtent(s[0], n_extent_)) {
    return Refuse("the packed weight or its scales are not [N, >= K / 8] and [N, >= K / G]");
  }
  std::ostringstream d;
  d << "4-bit w[N, K] " << c_.dequant.ToString() << " (" << scale->buffer()->dtype().ToString()
    << " scales, group " << *group << ", zero point " << zero->value() << ")";
  c_.description = d.str();
  return true;
}

bool Matcher::MatchEpilogue(const NestBlock& nest, const ir::Buffer& prev) {
  const ir::BlockNode& block = *nest.block;
  const std::string name = "epilogue block '" + block.name_hint() + "'";
  const auto* store = ir::As<ir::BufferStoreNode>(block.body());
  if (store == nullptr || block.init()) return Refuse(name + " is not one store");
  for (const ir::IterVar& iv : block.iter_vars()) {
    if (iv.type != ir::IterVarType::kDataPar) return Refuse(name + " is a reduction");
  }
  const ir::Buffer& dst = store->buffer();
  if (dst->shape().size() != out_shape_.size()) return Refuse(name + " changes the shape");
  for (size_t d = 0; d < out_shape_.size(); ++d) {
    if (!SameExtent(dst->shape()[d], out_shape_[d])) return Refuse(name + " changes the shape");
  }
  std::vector<const ir::TirVarNode*> vars;
  if (!FullIndices(block, store->indices(), dst->shape(), &vars) || vars.back() == nullptr) {
    return Refuse(name + " does not write each element once");
  }
  auto same_indices = [&](const ir::BufferLoadNode& load) {
    if (load.indices().size() != store->indices().size()) return false;
    for (size_t d = 0; d < load.indices().size(); ++d) {
      if (!ir::ExprDeepEqual(load.indices()[d], store->indices()[d])) return false;
    }
    return true;
  };
  auto is_prev = [&](const ir::PrimExpr& e) {
    const auto* load = ir::As<ir::BufferLoadNode>(e);
    return load != nullptr && load->buffer() == prev && same_indices(*load);
  };
  FastEpilogueOp op;
  op.dtype = dst->dtype();
  if (!IsFloatType(op.dtype)) return Refuse(name + " writes " + op.dtype.ToString());
  const ir::PrimExpr& value = store->value();
  if (const auto* cast = ir::As<ir::CastNode>(value); cast != nullptr && is_prev(cast->value())) {
    op.kind = FastEpilogueOp::Kind::kCast;
  } else if (const auto* bin = ir::As<ir::BinaryNode>(value);
             bin != nullptr &&
             (bin->op() == ir::BinaryOp::kAdd || bin->op() == ir::BinaryOp::kMul)) {
    op.kind = bin->op() == ir::BinaryOp::kAdd ? FastEpilogueOp::Kind::kAdd
                                              : FastEpilogueOp::Kind::kMultiply;
    const ir::PrimExpr* other = nullptr;
    if (is_prev(bin->a())) {
      other = &bin->b();
    } else if (is_prev(bin->b())) {
      other = &bin->a();
      op.operand_first = true;
    }
    const auto* load = other ? ir::As<ir::BufferLoadNode>(*other) : nullptr;
    if (load == nullptr || ParamOf(load->buffer()) < 0 || !IsFloatType(load->dtype())) {
      return Refuse(name + " does not combine the result with a parameter");
    }
    op.operand_param = ParamOf(load->buffer());
    const auto& shape = load->buffer()->shape();
    if (shape.size() == 1 && load->indices().size() == 1 &&
        ir::ExprDeepEqual(load->indices()[0], store->indices().back()) &&
        SameExtent(shape[0], n_extent_)) {
      op.operand_column = true;
    } else if (!same_indices(*load) || shape.size() != out_shape_.size()) {
      return Refuse(name + "'s operand is neither of the output's shape nor one value per n");
    } else {
      for (size_t d = 0; d < shape.size(); ++d) {
        if (!SameExtent(shape[d], out_shape_[d])) {
          return Refuse(name + "'s operand is neither of the output's shape nor one value per n");
        }
      }
    }
  } else {
    return Refuse(name + " is not a cast, an add or a multiply of the result");
  }
  c_.epilogue.push_back(op);
  return true;
}

FastPathMatch Matcher::Run(const ir::PrimFuncNode& inlined) {
  FastPathMatch result;
  auto refused = [&]() {
    result.refusal = why_;
    return result;
  };
  // Step 2.
  detail::KernelNests nests;
  if (!detail::CollectNests(inlined, &nests, &why_)) return refused();
  const ir::AttrValue* noalias = ir::FindAttr(inlined.attrs(), "tir.noalias");
  if (noalias == nullptr) noalias = ir::FindAttr(inlined.attrs(), "tirx.noalias");
  bool no_alias = false;
  if (noalias != nullptr) {
    if (const bool* b = noalias->as_bool()) {
      no_alias = *b;
    } else if (const ir::PrimExpr* e = noalias->as_prim_expr()) {
      no_alias = ir::AsConstInt(*e) == 1;
    } else {
      no_alias = noalias->ToInt() == 1;
    }
  }
  if (!no_alias) {
    Refuse("the kernel does not declare its buffers free of aliases (tir.noalias)");
    return refused();
  }
  for (const NestBlock& nest : nests.blocks) {
    if (!detail::CoversDomainOnce(nest, &why_)) return refused();
  }
  // Step 3.
  if (nests.blocks.empty()) {
    Refuse("the kernel has no blocks");
    return refused();
  }
  for (size_t i = 1; i < nests.blocks.size(); ++i) {
    for (const ir::IterVar& iv : nests.blocks[i].block->iter_vars()) {
      if (iv.type == ir::IterVarType::kCommReduce) {
        Refuse("block '" + nests.blocks[0].block->name_hint() + "' before the reduction '" +
               nests.blocks[i].block->name_hint() + "' is not inlined into it");
        return refused();
      }
    }
  }
  if (!MatchReduction(nests.blocks[0])) return refused();
  // Step 4.
  ir::Buffer prev = out_;
  std::vector<const ir::BufferNode*> chain{out_.get()};
  for (size_t i = 1; i < nests.blocks.size(); ++i) {
    if (ParamOf(prev) >= 0) {
      Refuse("a block after the result reaches a parameter");
      return refused();
    }
    if (!MatchEpilogue(nests.blocks[i], prev)) return refused();
    prev = ir::As<ir::BufferStoreNode>(nests.blocks[i].block->body())->buffer();
    chain.push_back(prev.get());
  }
  c_.out_param = ParamOf(prev);
  if (c_.out_param < 0) {
    Refuse("the result does not reach a parameter");
    return refused();
  }
  // Step 5.
  for (const ir::Buffer& b : nests.allocated) {
    if (std::find(chain.begin(), chain.end(), b.get()) == chain.end()) {
      Refuse("buffer '" + b->name() + "' is left between the kernel's blocks");
      return refused();
    }
  }
  std::unordered_set<const ir::BufferNode*> inputs;
  for (int p : {c_.x_param, c_.w_param, c_.scale_param}) {
    if (p >= 0) inputs.insert(func_.BufferOf(func_.params()[p].get())->get());
  }
  for (const FastEpilogueOp& op : c_.epilogue) {
    if (op.operand_param >= 0) {
      inputs.insert(func_.BufferOf(func_.params()[op.operand_param].get())->get());
    }
  }
  if (inputs.count(func_.BufferOf(func_.params()[c_.out_param].get())->get()) != 0) {
    Refuse("the output is also an input");
    return refused();
  }
  // Block 0 (the reduction) reads chain[0], its accumulator; block i > 0 reads chain[i - 1].
  for (size_t i = 0; i < nests.blocks.size(); ++i) {
    bool ok = true;
    std::function<void(const ir::PrimExpr&)> visit = [&](const ir::PrimExpr& e) {
      if (!e) return;
      if (const auto* load = ir::As<ir::BufferLoadNode>(e)) {
        auto it = std::find(chain.begin(), chain.end(), load->buffer().get());
        const size_t j = static_cast<size_t>(it - chain.begin());
        if (it != chain.end() && !(i == 0 && j == 0) && j + 1 != i) ok = false;
      }
      ir::ForEachChild(e, visit);
    };
    const auto* store = ir::As<ir::BufferStoreNode>(nests.blocks[i].block->body());
    visit(store->value());
    for (const ir::PrimExpr& idx : store->indices()) visit(idx);
    if (!ok) {
      Refuse("an intermediate result is read by another block than the next one");
      return refused();
    }
  }
  // The description.
  const ir::Buffer* x = func_.BufferOf(func_.params()[c_.x_param].get());
  std::ostringstream d;
  d << "matmul x[M, K] " << (*x)->dtype().ToString() << " . " << c_.description << " -> "
    << c_.product.ToString();
  for (const FastEpilogueOp& op : c_.epilogue) {
    if (op.kind == FastEpilogueOp::Kind::kCast) {
      d << "; cast " << op.dtype.ToString();
    } else {
      d << (op.kind == FastEpilogueOp::Kind::kAdd ? "; + " : "; * ")
        << (op.operand_column ? "[N] " : "[M, N] ")
        << (*func_.BufferOf(func_.params()[op.operand_param].get()))->dtype().ToString();
    }
  }
  c_.description = d.str();
  result.contraction = c_;
  return result;
}

}  // namespace

FastPathMatch MatchFastPath(const ir::PrimFunc& func) {
  // Step 1.
  const ir::PrimFunc inlined = transform::ComputeInline(func);
  Matcher matcher(*func);
  return matcher.Run(*inlined);
}

}  // namespace pipesplit::codegen
