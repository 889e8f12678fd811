// Tensor layout strings ("NCHW", "NHWC", "NCHW4c", "N4cHWC") and shape conversion between a
// layout and its primal axes, as TVM's bijective layouts do for shapes.
#include <algorithm>
#include <cctype>

#include "src/ir/op/op_families.h"

namespace pipesplit::ir {

TensorLayout TensorLayout::Parse(const CallNode& call, const std::string& name,
                                 const std::string& primal, const char* what) {
  TensorLayout layout;
  layout.name_ = name;
  layout.primal_ = primal;
  auto bad = [&](const std::string& why) {
    Fail(call, std::string(what) + " layout \"" + name + "\" " + why);
  };
  int64_t factor = 0;
  bool has_factor = false;
  for (char c : name) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      factor = factor * 10 + (c - '0');
      if (factor > (int64_t{1} << 40)) bad("has a split factor that is too large");
      has_factor = true;
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      if (has_factor) bad("puts a split factor before a primal axis");
      layout.axes_.push_back({c, 0});
    } else if (std::islower(static_cast<unsigned char>(c))) {
      if (!has_factor || factor <= 0) bad("has a sub-axis without a positive split factor");
      layout.axes_.push_back({c, factor});
      factor = 0;
      has_factor = false;
    } else {
      bad("is not a layout");
    }
  }
  if (has_factor) bad("ends with a split factor");
  std::string found;
  for (const auto& [axis, f] : layout.axes_) {
    if (f == 0) found += axis;
  }
  std::string sorted_found = found, sorted_primal = primal;
  std::sort(sorted_found.begin(), sorted_found.end());
  std::sort(sorted_primal.begin(), sorted_primal.end());
  if (sorted_found != sorted_primal) bad("does not match " + primal);
  for (const auto& [axis, f] : layout.axes_) {
    if (f != 0 && found.find(static_cast<char>(std::toupper(axis))) == std::string::npos) {
      bad("splits an axis it does not have");
    }
  }
  return layout;
}

int64_t TensorLayout::FactorOf(char primal_axis) const {
  int64_t factor = 1;
  char sub = static_cast<char>(std::tolower(primal_axis));
  for (const auto& [axis, f] : axes_) {
    if (axis == sub) factor *= f;
  }
  return factor;
}

std::vector<PrimExpr> TensorLayout::ToPrimal(const std::vector<PrimExpr>& shape) const {
  std::vector<PrimExpr> out;
  for (char p : primal_) {
    size_t pos = 0;
    while (axes_[pos].first != p) ++pos;
    out.push_back(NormalizeArith(Mul(shape[pos], Int64(FactorOf(p)))));
  }
  return out;
}

std::vector<PrimExpr> TensorLayout::FromPrimal(const std::vector<PrimExpr>& dims) const {
  std::vector<PrimExpr> out;
  for (const auto& [axis, f] : axes_) {
    if (f != 0) {
      out.push_back(Int64(f));
      continue;
    }
    const PrimExpr& d = dims[primal_.find(axis)];
    int64_t factor = FactorOf(axis);
    out.push_back(factor == 1 ? d : NormalizeArith(CeilDiv(d, factor)));
  }
  return out;
}

std::optional<std::vector<PrimExpr>> TensorLayout::ShapeOf(const CallNode& call,
                                                           const TensorSInfoNode& t,
                                                           const char* what) const {
  if (t.ndim() != -1 && t.ndim() != ndim()) {
    Fail(call, std::string(what) + " layout " + name_ + " needs a " + std::to_string(ndim()) +
                   "-d tensor, got " + std::to_string(t.ndim()) + "-d");
  }
  return t.shape();
}

}  // namespace pipesplit::ir
