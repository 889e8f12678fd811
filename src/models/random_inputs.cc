// Random weights and inputs for a function's parameters (see random_inputs.h).
#include "pipesplit/models/random_inputs.h"

#include <fmt/format.h>

#include <random>
#include <set>
#include <stdexcept>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/protocol.h"

namespace pipesplit::models {
namespace {

class Generator {
 public:
  Generator(const RandomInputsConfig& config) : config_(config), rng_(config.seed) {}

  // A dim or shape value with the assumed vars substituted; `what` names it in errors.
  int64_t Dim(const ir::PrimExpr& e, const std::string& what) {
    ir::TirVarMap map;
    std::string unbound;
    ir::VisitTirVars(e, [&](const ir::TirVar& v) {
      auto it = config_.assume.find(v->name());
      if (it == config_.assume.end()) {
        unbound = v->name();
        return;
      }
      used_.insert(v->name());
      map[v.get()] = ir::Int64(it->second);
    });
    if (!unbound.empty()) {
      throw std::invalid_argument(
          fmt::format("{} has the symbolic dim '{}': give its value with --assume {}=VALUE", what,
                      unbound, unbound));
    }
    std::optional<int64_t> value = ir::AsConstInt(ir::Simplify(ir::Substitute(e, map)));
    if (!value || *value < 0) {
      throw std::invalid_argument(fmt::format("{}: a dim is not a non-negative integer", what));
    }
    return *value;
  }

  runtime::Tensor Tensor(const ir::TensorSInfoNode& sinfo, const std::string& what) {
    if (sinfo.dtype().is_void() || !sinfo.shape()) {
      throw std::invalid_argument(
          fmt::format("{} has an unknown dtype or shape; cannot make random data", what));
    }
    runtime::Shape shape;
    for (const ir::PrimExpr& d : *sinfo.shape()) shape.push_back(Dim(d, what));
    DataType dtype = sinfo.dtype();
    int64_t numel = runtime::ShapeNumel(shape);
    if (dtype.is_float()) {
      std::uniform_real_distribution<double> dist(-kFloatRange, kFloatRange);
      std::vector<double> values(static_cast<size_t>(numel));
      for (double& v : values) v = dist(rng_);
      return runtime::MakeTensor(dtype, std::move(shape), values);
    }
    runtime::TensorBuilder builder(dtype, shape);
    if (dtype.is_uint()) {
      auto* bytes = static_cast<unsigned char*>(builder.raw_data());
      for (int64_t i = 0; i < builder.nbytes(); ++i) bytes[i] = static_cast<unsigned char>(rng_());
      return std::move(builder).Publish();
    }
    std::uniform_int_distribution<int64_t> dist(0, dtype.is_bool() ? 1 : kIntHigh - 1);
    std::vector<int64_t> values(static_cast<size_t>(numel));
    for (int64_t& v : values) v = dist(rng_);
    return runtime::MakeIntTensor(dtype, std::move(shape), values);
  }

  // Every --assume names a var some parameter uses (catches typos).
  void CheckAssumesUsed(const std::string& entry) const {
    for (const auto& [name, value] : config_.assume) {
      if (!used_.contains(name)) {
        throw std::invalid_argument(
            fmt::format("--assume {}={}: no parameter of '{}' has the symbolic var '{}'", name,
                        value, entry, name));
      }
    }
  }

 private:
  const RandomInputsConfig& config_;
  std::mt19937_64 rng_;
  std::set<std::string> used_;
};

}  // namespace

RandomInputs GenerateRandomInputs(const ir::IRModule& mod, const RandomInputsConfig& config) {
  ir::Function func = mod.LookupFunction(config.entry);
  if (!func) {
    throw std::invalid_argument("the module has no Relax function '" + config.entry + "'");
  }
  Generator gen(config);
  RandomInputs out;
  const auto& params = func->params();
  for (size_t i = 0; i < params.size(); ++i) {
    const ir::Var& param = params[i];
    const std::string& name = param->name_hint();
    const std::string what = "parameter '" + name + "'";
    const ir::StructInfo& sinfo = param->struct_info();
    if (i + 1 == params.size() && name == ir::protocol::kPackedParams) {
      const auto* tuple = ir::As<ir::TupleSInfoNode>(sinfo);
      if (tuple == nullptr) {
        throw std::invalid_argument("packed_params of '" + config.entry +
                                    "' is not a tuple of tensors");
      }
      for (size_t f = 0; f < tuple->fields().size(); ++f) {
        const std::string field = "packed_params[" + std::to_string(f) + "]";
        const auto* t = ir::As<ir::TensorSInfoNode>(tuple->fields()[f]);
        if (t == nullptr) throw std::invalid_argument(field + " is not a tensor");
        out.params.emplace_back("param_" + std::to_string(f), gen.Tensor(*t, field));
      }
    } else if (const auto* t = ir::As<ir::TensorSInfoNode>(sinfo)) {
      out.inputs.emplace_back(name, gen.Tensor(*t, what));
    } else if (const auto* s = ir::As<ir::ShapeSInfoNode>(sinfo); s != nullptr && s->values()) {
      std::vector<int64_t> values;
      for (const ir::PrimExpr& v : *s->values()) values.push_back(gen.Dim(v, what));
      runtime::Shape dims{static_cast<int64_t>(values.size())};
      out.inputs.emplace_back(name, runtime::MakeIntTensor(DataType::Int(64), dims, values));
    } else {
      out.skipped.push_back(name);
    }
  }
  gen.CheckAssumesUsed(config.entry);
  return out;
}

}  // namespace pipesplit::models
