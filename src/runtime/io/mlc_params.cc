// The names of packed_params from a module's _metadata or a names file (mlc_params.h).
#include "pipesplit/runtime/io/mlc_params.h"

#include <fmt/format.h>

#include "pipesplit/ir/expr.h"
#include "pipesplit/support/diagnostic.h"
#include "src/runtime/io/json_document.h"

namespace pipesplit::runtime {
namespace {

// A "shard_strategy": {"name": "_shard_qkv", "dim": 0, "segs": [q, k, v] or null}.
ShardSpec ReadShardSpec(const JsonValue& strategy) {
  if (!strategy.IsObject()) {
    strategy.Fail(
        fmt::format("'{}' must be an object with \"dim\" (and \"segs\")", strategy.Label()));
  }
  ShardSpec spec;
  if (std::optional<JsonValue> name = strategy.Find("name")) spec.name = name->String();
  spec.dim = strategy.Field("dim").Int();
  if (std::optional<JsonValue> segs = strategy.Find("segs"); segs && !segs->IsNull()) {
    for (size_t i = 0; i < segs->ArraySize(); ++i) {
      JsonValue seg = segs->At(i);
      if (seg.Int() < 1) seg.Fail(fmt::format("'{}' must be at least 1", seg.Label()));
      spec.segs.push_back(seg.Int());
    }
  }
  return spec;
}

// The param at `entry` of a "params" list: an object with a string "name" and an optional
// "preprocs" list, or (`names_only`) a string.
MlcParam ReadParam(const JsonValue& entry, bool allow_names) {
  MlcParam param;
  param.span = entry.span();
  if (allow_names && entry.json().is_string()) {
    param.name = entry.String();
  } else {
    if (!entry.IsObject()) {
      entry.Fail(fmt::format("'{}' must be {}, got {}", entry.Label(),
                             allow_names ? "a weight name or an object" : "an object",
                             entry.json().dump().substr(0, 40)));
    }
    param.name = entry.Field("name").String();
    if (std::optional<JsonValue> preprocs = entry.Find("preprocs")) {
      if (preprocs->ArraySize() > 0) {
        JsonValue first = preprocs->At(0);
        std::optional<JsonValue> func = first.IsObject() ? first.Find("func_name") : std::nullopt;
        param.preproc = func && func->json().is_string() ? func->String() : first.json().dump();
      }
    }
    if (std::optional<JsonValue> strategy = entry.Find("shard_strategy");
        strategy && !strategy->IsNull()) {
      param.shard = ReadShardSpec(*strategy);
    }
  }
  if (param.name.empty()) entry.Fail(fmt::format("'{}' names no weight (empty)", entry.Label()));
  return param;
}

// The params of a document: its root is a list (`allow_list`) or an object with "params".
MlcParamList ReadParams(const JsonDocument& doc, bool allow_list, std::string source) {
  MlcParamList out;
  out.source = std::move(source);
  JsonValue root = doc.root();
  JsonValue list = root;
  if (!allow_list || !root.json().is_array()) {
    if (!root.IsObject()) {
      root.Fail(allow_list ? "expected a list of weight names or an object with \"params\""
                           : "expected an object with \"params\"");
    }
    list = root.Field("params");
    if (std::optional<JsonValue> shards = root.Find("tensor_parallel_shards")) {
      out.tensor_parallel_shards = shards->Int();
      out.shards_span = shards->span();
      if (out.tensor_parallel_shards < 1) {
        shards->Fail(fmt::format("'{}' must be at least 1", shards->Label()));
      }
    }
  }
  const size_t n = list.ArraySize();
  for (size_t i = 0; i < n; ++i) out.params.push_back(ReadParam(list.At(i), allow_list));
  return out;
}

// The value `_metadata` returns: its body's result, through the bindings of its blocks.
const ir::StringImmNode* MetadataString(const ir::FunctionNode& func) {
  const auto* seq = ir::As<ir::SeqExprNode>(func.body());
  if (seq == nullptr) return ir::As<ir::StringImmNode>(func.body());
  ir::Expr result = seq->body();
  for (;;) {
    if (const auto* text = ir::As<ir::StringImmNode>(result)) return text;
    const auto* var = ir::As<ir::VarNode>(result);
    if (var == nullptr) return nullptr;
    ir::Expr bound;
    for (const ir::BindingBlock& block : seq->blocks()) {
      for (const ir::Binding& binding : block->bindings()) {
        if (binding->var().get() == var) bound = binding->value();
      }
    }
    if (!bound) return nullptr;
    result = bound;
  }
}

}  // namespace

std::optional<MlcParamList> MlcParamsOfModule(const ir::IRModule& mod) {
  const ir::IRModule::Member* member = mod.Find(kMlcMetadataFunction);
  if (member == nullptr) return std::nullopt;
  const auto* func = ir::As<ir::FunctionNode>(member->func);
  const Span where = member->func->span();
  if (func == nullptr) {
    pipesplit::ThrowError(where, "'_metadata' must be a Relax function returning R.str(<json>)");
  }
  const ir::StringImmNode* text = MetadataString(*func);
  if (text == nullptr) {
    pipesplit::ThrowError(where,
                          "'_metadata' must return R.str(<json>), a JSON description "
                          "of the model with its \"params\"");
  }
  const Span anchor = text->span().valid() ? text->span() : where;
  std::string file = anchor.valid() ? SourceManager::Global().Get(anchor.file).name() : "";
  std::string source = "the _metadata of " + (file.empty() ? std::string("the module") : file);
  std::shared_ptr<const JsonDocument> doc =
      anchor.valid() ? JsonDocument::ParseAnchored(text->value(), anchor, source)
                     : JsonDocument::Parse("<_metadata>", text->value());
  return ReadParams(*doc, /*allow_list=*/false, source);
}

MlcParamList MlcParamsFromJsonFile(const std::string& path) {
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(path);
  return ReadParams(*doc, /*allow_list=*/true, path);
}

}  // namespace pipesplit::runtime
