// Stage report rendering (JSON through nlohmann-json, and a text table).
#include "pipesplit/transform/stage_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "pipesplit/ir/arith.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/script/printer.h"

namespace pipesplit::transform {
namespace {

using nlohmann::ordered_json;

// Total bytes as a PrimExpr (nullptr when unknown).
ir::PrimExpr ByteExpr(const ir::StructInfo& sinfo) {
  if (const auto* t = ir::As<ir::TensorSInfoNode>(sinfo)) {
    if (!t->shape() || t->dtype().is_void()) return nullptr;
    ir::PrimExpr total = ir::IntImm(t->dtype().bytes());
    for (const ir::PrimExpr& d : *t->shape()) {
      total = ir::MakeBinary(ir::BinaryOp::kMul, d, total);
    }
    return ir::CanonicalSimplify(total);
  }
  if (const auto* tuple = ir::As<ir::TupleSInfoNode>(sinfo)) {
    ir::PrimExpr total = ir::IntImm(0);
    for (const ir::StructInfo& f : tuple->fields()) {
      ir::PrimExpr b = ByteExpr(f);
      if (!b) return nullptr;
      total = ir::MakeBinary(ir::BinaryOp::kAdd, total, b);
    }
    return ir::CanonicalSimplify(total);
  }
  return nullptr;
}

ordered_json ValueJson(const std::string& name, const ir::StructInfo& sinfo) {
  ordered_json v;
  v["name"] = name;
  v["struct_info"] = script::PrintStructInfo(sinfo);
  ir::PrimExpr bytes = ByteExpr(sinfo);
  if (bytes && ir::AsConstInt(bytes)) {
    v["bytes"] = *ir::AsConstInt(bytes);
  } else {
    v["bytes"] = bytes ? ir::ToString(bytes) : "?";
  }
  return v;
}

const ir::StructInfo& WeightSInfo(const StagePlan& plan, int64_t index) {
  const auto* tuple = ir::As<ir::TupleSInfoNode>(plan.packed_params->struct_info());
  if (tuple != nullptr && index >= 0 && static_cast<size_t>(index) < tuple->fields().size()) {
    return tuple->fields()[index];
  }
  static const ir::StructInfo kUnknown = ir::ObjectSInfo();
  return kUnknown;
}

// Adds byte counts that are constants; symbolic or unknown ones make the sum symbolic.
struct ByteSum {
  int64_t known = 0;
  bool exact = true;
  void Add(const ir::StructInfo& sinfo) {
    ir::PrimExpr b = ByteExpr(sinfo);
    auto c = b ? ir::AsConstInt(b) : std::nullopt;
    if (c) {
      known += *c;
    } else {
      exact = false;
    }
  }
};

ordered_json PlanJson(const StagePlan& plan) {
  ordered_json f;
  f["function"] = plan.gvar->name_hint();
  f["num_stages"] = plan.num_stages;
  f["stages"] = ordered_json::array();
  for (const Stage& stage : plan.stages) {
    ordered_json s;
    s["stage"] = stage.index;
    s["function"] = plan.gvar->name_hint() + "_stage" + std::to_string(stage.index);
    s["bindings"] = stage.bindings.size();
    s["params"] = ordered_json::array();
    for (const ir::Var& p : stage.params) {
      s["params"].push_back(ValueJson(p->name_hint(), p->struct_info()));
    }
    s["weights"] = ordered_json::array();
    ByteSum weight_bytes;
    for (int64_t w : stage.weights) {
      ordered_json wj = ValueJson("packed_params[" + std::to_string(w) + "]", WeightSInfo(plan, w));
      wj["index"] = w;
      s["weights"].push_back(wj);
      weight_bytes.Add(WeightSInfo(plan, w));
    }
    s["weight_bytes"] = weight_bytes.known;
    s["weight_bytes_exact"] = weight_bytes.exact;
    auto transfers = [&](const std::vector<Transfer>& list, bool receiving) {
      ordered_json arr = ordered_json::array();
      for (const Transfer& t : list) {
        const ir::Var& shown = receiving ? t.receiver : t.value;
        ordered_json v = ValueJson(shown->name_hint(), shown->struct_info());
        v["forwarded"] = t.forwarded;
        if (receiving) v["rederives_shape"] = t.erase_shape;
        arr.push_back(v);
      }
      return arr;
    };
    s["received"] =
        stage.index > 0 ? transfers(plan.transfers[stage.index - 1], true) : ordered_json::array();
    s["sent"] = stage.index + 1 < plan.num_stages ? transfers(plan.transfers[stage.index], false)
                                                  : ordered_json::array();
    s["forwarded"] = ordered_json::array();
    if (stage.index + 1 < plan.num_stages) {
      for (const Transfer& t : plan.transfers[stage.index]) {
        if (t.forwarded) s["forwarded"].push_back(t.value->name_hint());
      }
    }
    s["shape_vars"] = ordered_json::array();
    for (const ir::TirVar& v : stage.shape_vars) s["shape_vars"].push_back(v->name());
    f["stages"].push_back(s);
  }
  return f;
}

}  // namespace

std::string BytesOf(const ir::StructInfo& sinfo) {
  ir::PrimExpr b = ByteExpr(sinfo);
  return b ? ir::ToString(b) : "?";
}

std::string StageReportJson(const std::vector<StagePlan>& plans,
                            const analysis::PartitionResult* partition,
                            const MlcPartitionOrError* mlc) {
  ordered_json root;
  root["functions"] = ordered_json::array();
  for (const StagePlan& plan : plans) root["functions"].push_back(PlanJson(plan));
  if (partition != nullptr) root["partition"] = PartitionJson(*partition);
  if (mlc != nullptr) {
    root["mlc"] = mlc->partition       ? MlcPartitionJson(*mlc->partition)
                  : !mlc->note.empty() ? ordered_json::object({{"note", mlc->note}})
                                       : ordered_json::object({{"error", mlc->error}});
  }
  return root.dump(2) + "\n";
}

std::string StageReportText(const std::vector<StagePlan>& plans,
                            const analysis::PartitionResult* partition,
                            const MlcPartitionOrError* mlc) {
  std::string out = partition != nullptr ? PartitionText(*partition) : std::string();
  for (const StagePlan& plan : plans) {
    ordered_json f = PlanJson(plan);
    out += fmt::format("function {} ({} stages)\n", plan.gvar->name_hint(), plan.num_stages);
    out += fmt::format("  {:<6} {:>8} {:>8} {:>14} {:>5} {:>5} {:>5}  {}\n", "stage", "bindings",
                       "weights", "weight bytes", "recv", "send", "fwd", "params / shape vars");
    for (const auto& s : f["stages"]) {
      std::string params;
      for (const auto& p : s["params"])
        params += (params.empty() ? "" : ", ") + p["name"].get<std::string>();
      std::string shape_vars;
      for (const auto& v : s["shape_vars"])
        shape_vars += (shape_vars.empty() ? "" : ", ") + v.get<std::string>();
      std::string bytes = std::to_string(s["weight_bytes"].get<int64_t>());
      if (!s["weight_bytes_exact"].get<bool>()) bytes += "+";
      out +=
          fmt::format("  {:<6} {:>8} {:>8} {:>14} {:>5} {:>5} {:>5}  {}{}\n", s["stage"].get<int>(),
                      s["bindings"].get<size_t>(), s["weights"].size(), bytes, s["received"].size(),
                      s["sent"].size(), s["forwarded"].size(), params.empty() ? "-" : params,
                      shape_vars.empty() ? "" : " / " + shape_vars);
      for (const auto& r : s["received"]) {
        out += fmt::format("           recv {} : {} ({} bytes){}\n", r["name"].get<std::string>(),
                           r["struct_info"].get<std::string>(), r["bytes"].dump(),
                           r["forwarded"].get<bool>() ? " forwarded" : "");
      }
    }
  }
  if (mlc != nullptr) {
    out += mlc->partition       ? MlcPartitionText(*mlc->partition)
           : !mlc->note.empty() ? "mlc partition: " + mlc->note + "\n"
                                : "mlc partition: error: " + mlc->error + "\n";
  }
  return out;
}

}  // namespace pipesplit::transform
