// Linear algebra operators: matmul (numpy semantics: 1-d operands and batch broadcasting),
// einsum and outer.
#include <algorithm>
#include <cctype>
#include <map>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {
namespace {

// The common virtual device of two operands for matmul: equal ones, or whichever is set.
std::string MatmulVDevice(const TensorSInfoNode& a, const TensorSInfoNode& b) {
  if (!a.vdevice().empty() && !b.vdevice().empty()) {
    return a.vdevice() == b.vdevice() ? a.vdevice() : "";
  }
  return a.vdevice().empty() ? b.vdevice() : a.vdevice();
}

StructInfo InferMatmul(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x1 = TensorArg(call, 0);
  const TensorSInfoNode& x2 = TensorArg(call, 1);
  std::string vdevice = MatmulVDevice(x1, x2);
  DataType dtype = CallAttrs(call).DType("out_dtype");
  if (dtype.is_void()) {
    DataType a = x1.dtype(), b = x2.dtype();
    if (!a.is_void() && !b.is_void() && a != b && !a.is_bool() && !b.is_bool()) {
      Fail(call, "dtypes " + a.ToString() + " and " + b.ToString() + " do not match");
    }
    dtype = (a.is_void() || b.is_void()) ? DataType::Void() : a;
  }
  if (x1.ndim() == -1 || x2.ndim() == -1) return MakeTensorNdim(dtype, -1, vdevice);
  if (x1.ndim() == 0 || x2.ndim() == 0) Fail(call, "operands must not be 0-d tensors");
  // A 1-d left operand is a row vector, a 1-d right operand a column vector; the added dim is
  // dropped from the result.
  bool x1_vector = x1.ndim() == 1;
  bool x2_vector = x2.ndim() == 1;
  int n1 = x1_vector ? 2 : x1.ndim();
  int n2 = x2_vector ? 2 : x2.ndim();
  int out_ndim = std::max(n1, n2) - (x1_vector ? 1 : 0) - (x2_vector ? 1 : 0);
  if (!x1.shape() || !x2.shape()) return MakeTensorNdim(dtype, out_ndim, vdevice);
  const std::vector<PrimExpr>& s1 = *x1.shape();
  const std::vector<PrimExpr>& s2 = *x2.shape();
  std::vector<PrimExpr> batch1(s1.begin(), s1.end() - (x1_vector ? 1 : 2));
  std::vector<PrimExpr> batch2(s2.begin(), s2.end() - (x2_vector ? 1 : 2));
  auto batch = BroadcastShapes(call, batch1, batch2);
  if (!batch) return MakeTensorNdim(dtype, out_ndim, vdevice);
  const PrimExpr& k1 = s1.back();
  const PrimExpr& k2 = x2_vector ? s2[0] : s2[s2.size() - 2];
  if (ProvablyNe(k1, k2)) {
    Fail(call, "the reduction dims differ: " + ToString(k1) + " (shape " + ShapeString(s1) +
                   ") and " + ToString(k2) + " (shape " + ShapeString(s2) + ")");
  }
  std::vector<PrimExpr> shape = std::move(*batch);
  if (!x1_vector) shape.push_back(s1[s1.size() - 2]);
  if (!x2_vector) shape.push_back(s2.back());
  return MakeTensor(std::move(shape), dtype, vdevice);
}

constexpr char kEllipsis = '.';

struct EinsumEquation {
  std::vector<std::string> inputs;  // labels; '.' stands for an ellipsis
  std::string output;
};

EinsumEquation ParseEinsum(const CallNode& call, const std::string& text) {
  EinsumEquation eq;
  std::string current;
  bool arrow = false, ellipsis = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ') continue;
    if (c == '-' || c == ',') {
      if (c == '-') {
        if (arrow || i + 1 >= text.size() || text[i + 1] != '>') {
          Fail(call, "invalid subscripts \"" + text + "\"");
        }
        arrow = true;
        ++i;
      } else if (arrow) {
        Fail(call, "invalid subscripts \"" + text + "\"");
      }
      eq.inputs.push_back(current);
      current.clear();
      ellipsis = false;
    } else if (c == '.') {
      if (ellipsis || text.compare(i, 3, "...") != 0) {
        Fail(call, "invalid subscripts \"" + text + "\"");
      }
      current.push_back(kEllipsis);
      ellipsis = true;
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      current.push_back(c);
    } else {
      Fail(call, "invalid subscripts \"" + text + "\"");
    }
  }
  if (arrow) {
    eq.output = current;
    return eq;
  }
  eq.inputs.push_back(current);
  // Implicit output: the ellipsis, then the labels used once, in alphabetical order.
  std::map<char, int> counts;
  for (const std::string& in : eq.inputs) {
    for (char l : in) counts[l]++;
  }
  for (auto [label, count] : counts) {
    if (label == kEllipsis || count == 1) eq.output.push_back(label);
  }
  return eq;
}

StructInfo InferEinsum(const CallNode& call) {
  CheckArgCount(call, 1);
  std::vector<const TensorSInfoNode*> operands = TensorTupleArg(call, 0);
  if (operands.empty()) Fail(call, "expects at least one operand");
  std::string vdevice = MatmulVDevice(*operands[0], *operands[0]);
  for (const TensorSInfoNode* t : operands) {
    if (!t->vdevice().empty() && t->vdevice() != vdevice) vdevice.clear();
  }
  DataType dtype = operands[0]->dtype();
  for (const TensorSInfoNode* t : operands) {
    if (t->dtype() != dtype) {
      Fail(call, "dtypes " + dtype.ToString() + " and " + t->dtype().ToString() + " do not match");
    }
    if (!t->shape()) return MakeTensorNdim(dtype, t->ndim(), vdevice);
  }
  EinsumEquation eq = ParseEinsum(call, CallAttrs(call).Str("subscripts"));
  if (eq.inputs.size() != operands.size()) {
    Fail(call, "the subscripts name " + std::to_string(eq.inputs.size()) +
                   " operands but there are " + std::to_string(operands.size()));
  }
  std::map<char, PrimExpr> extents;
  std::optional<std::vector<PrimExpr>> ellipsis_shape;
  for (size_t i = 0; i < operands.size(); ++i) {
    const std::vector<PrimExpr>& shape = *operands[i]->shape();
    const std::string& labels = eq.inputs[i];
    bool has_ellipsis = labels.find(kEllipsis) != std::string::npos;
    size_t named = labels.size() - (has_ellipsis ? 1 : 0);
    if (has_ellipsis ? shape.size() < named : shape.size() != named) {
      Fail(call, "operand " + std::to_string(i) + " has " + std::to_string(shape.size()) +
                     " dimensions but its subscripts name " + std::to_string(named));
    }
    size_t ellipsis_len = shape.size() - named;
    size_t dim = 0;
    for (char l : labels) {
      if (l == kEllipsis) {
        auto first = shape.begin() + static_cast<std::ptrdiff_t>(dim);
        std::vector<PrimExpr> part(first, first + static_cast<std::ptrdiff_t>(ellipsis_len));
        if (!ellipsis_shape) {
          ellipsis_shape = part;
        } else if (auto b = BroadcastShapes(call, *ellipsis_shape, part)) {
          ellipsis_shape = *b;
        } else {
          return MakeTensorNdim(dtype, -1, vdevice);
        }
        dim += ellipsis_len;
        continue;
      }
      const PrimExpr& extent = shape[dim++];
      auto it = extents.find(l);
      if (it == extents.end() || AsConstInt(it->second) == 1) {
        extents[l] = extent;
      } else if (AsConstInt(extent) != 1 && ProvablyNe(it->second, extent)) {
        Fail(call, "label " + std::string(1, l) + " has extents " + ToString(it->second) + " and " +
                       ToString(extent));
      }
    }
  }
  std::vector<PrimExpr> out;
  for (char l : eq.output) {
    if (l == kEllipsis) {
      if (ellipsis_shape) out.insert(out.end(), ellipsis_shape->begin(), ellipsis_shape->end());
      continue;
    }
    auto it = extents.find(l);
    if (it == extents.end()) {
      Fail(call, "output label " + std::string(1, l) + " does not appear in the inputs");
    }
    out.push_back(it->second);
  }
  return MakeTensor(std::move(out), dtype, vdevice);
}

StructInfo InferOuter(const CallNode& call) {
  CheckArgCount(call, 2);
  const TensorSInfoNode& x1 = TensorArg(call, 0);
  const TensorSInfoNode& x2 = TensorArg(call, 1);
  if (x1.ndim() != 1 || x2.ndim() != 1) Fail(call, "both operands must be 1-d tensors");
  if (!x1.shape() || !x2.shape()) return MakeTensorNdim(x1.dtype(), 2, "");
  return MakeTensor({(*x1.shape())[0], (*x2.shape())[0]}, x1.dtype(), "");
}

}  // namespace

void RegisterLinearAlgebraOps() {
  RegisterOp({.name = "relax.matmul",
              .params = {Arg("x1"), Arg("x2"), OptionalDType("out_dtype")},
              .infer = InferMatmul,
              .summary = "matrix product with numpy semantics (batch broadcasting, 1-d operands)"});
  RegisterOp({.name = "relax.einsum",
              .params = {Arg("operands"), RequiredAttr("subscripts")},
              .infer = InferEinsum,
              .summary = "Einstein summation over a tuple of operands"});
  RegisterOp({.name = "relax.outer",
              .params = {Arg("x1"), Arg("x2")},
              .infer = InferOuter,
              .summary = "outer product of two 1-d tensors"});
}

}  // namespace pipesplit::ir
