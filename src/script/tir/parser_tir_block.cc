// TIR lowering, part 3: blocks (`with T.block(...)` and the 2026 spelling `with T.sblock(...)`),
// their signature lines (axes, T.where, regions, annotations, buffers, T.init) and the access
// regions TVM infers for a block written without T.reads / T.writes.
#include "pipesplit/ir/tir_access.h"
#include "pipesplit/support/diagnostic.h"
#include "src/script/tir/parser_tir.h"

namespace pipesplit::script {

using ir::PrimExpr;

struct TirLowerer::BlockParts {
  ir::BlockNode::Fields fields;
  std::vector<PrimExpr> iter_values;
  PrimExpr predicate;
  bool no_realize = false;  // T.block(name, no_realize=True): a block without its realize
  bool has_reads = false;
  bool has_writes = false;
};

ir::Stmt TirLowerer::BlockStmt(const PyStmt* s) {
  const PyExpr* call = s->value;
  std::string callee = TirCallee(call);
  if (callee == "T.sblock") uses_sblock_ = true;
  // `T.sblock()` names the block "".
  if (call->items.size() > 2 ||
      (call->items.size() == 2 && call->items[1]->kind != PyExprKind::kString)) {
    Error(call, callee + " expects a block name");
  }
  if (s->target != nullptr) Error(s->target, callee + " binds no name");
  BlockParts parts;
  for (const PyKeyword& kw : call->keywords) {
    if (kw.name == "no_realize" && kw.value->kind == PyExprKind::kBool) {
      parts.no_realize = kw.value->bool_value;
    } else {
      Error(kw.name_begin, kw.name_begin + static_cast<uint32_t>(kw.name.size()),
            "unsupported argument '" + std::string(kw.name) + "' of " + callee);
    }
  }
  // TVM adds an implicit root block around realized blocks only.
  if (!parts.no_realize) has_block_ = true;
  if (call->items.size() == 2) parts.fields.name_hint = std::string(call->items[1]->str);
  std::vector<ir::Buffer>* outer_allocs = allocs_;
  allocs_ = &parts.fields.alloc_buffers;
  Push();
  size_t first = 0;
  while (first < s->body.size() && BlockPart(s->body[first], &parts)) ++first;
  if (first == s->body.size() && parts.fields.name_hint != "root") {
    // Nothing but block parts (a kernel cut off after its signature lines, typically).
    Error(s->begin, s->end, "block \"" + parts.fields.name_hint + "\" has no body");
  }
  parts.fields.body = Body(s->body, first);
  Pop();
  allocs_ = outer_allocs;
  bool is_root = s == root_candidate_ && parts.fields.iter_vars.empty() && root_allocs_.empty();
  if (!is_root && (!parts.has_reads || !parts.has_writes)) {
    InferRegions(s, !parts.has_reads, !parts.has_writes, &parts.fields);
  }
  Span span = SpanOf(s->begin, s->end);
  auto block = ir::Make<ir::BlockNode>(std::move(parts.fields), span);
  if (parts.no_realize) {
    if (parts.predicate) Error(call, "a block with no_realize=True takes no T.where");
    return block;
  }
  PrimExpr predicate = parts.predicate ? parts.predicate : ir::BoolImm(true);
  return ir::Make<ir::BlockRealizeNode>(std::move(parts.iter_values), predicate, block, span);
}

void TirLowerer::InferRegions(const PyStmt* s, bool reads, bool writes,
                              ir::BlockNode::Fields* fields) {
  // The buffers declared outside the block (the block's own were just popped).
  ir::VisibleBuffers visible;
  for (const auto& scope : scopes_) {
    for (const auto& [name, symbol] : scope) {
      if (symbol.buffer != nullptr) visible[symbol.buffer->data().get()] = symbol.buffer;
    }
  }
  for (const ir::Buffer& b : root_allocs_) visible[b->data().get()] = b;
  ir::BlockNode probe(*fields);
  ir::BlockAccessRegions access = ir::DetectBlockAccessRegions(probe, visible);
  if (!access.opaque.empty()) {
    Error(s->value, "cannot infer the access regions of block \"" + fields->name_hint +
                        "\": it uses the data pointer of buffer '" +
                        access.opaque[0].buffer->name() + "'; write T.reads and T.writes");
  }
  if (reads) fields->reads = std::move(access.reads);
  if (writes) fields->writes = std::move(access.writes);
}

bool TirLowerer::BlockPart(const PyStmt* s, BlockParts* parts) {
  std::string callee =
      s->kind == PyStmtKind::kExpr || s->kind == PyStmtKind::kAssign || s->kind == PyStmtKind::kWith
          ? TirCallee(s->value)
          : std::string();
  if (s->kind == PyStmtKind::kAssign && callee.rfind("T.axis.", 0) == 0) {
    return BlockAxis(s, callee, parts);
  }
  // `X = T.Buffer(...)`: a buffer the block's regions name ahead of its definition.
  if (s->kind == PyStmtKind::kAssign && DeclareBuffer(s)) return true;
  if (s->kind == PyStmtKind::kExpr) {
    const PyExpr* call = s->value;
    if (callee == "T.where") {
      if (call->items.size() != 2) Error(call, "T.where expects one condition");
      parts->predicate = Expr(call->items[1]);
      return true;
    }
    if (callee == "T.reads" || callee == "T.writes") {
      auto& regions = callee == "T.reads" ? parts->fields.reads : parts->fields.writes;
      (callee == "T.reads" ? parts->has_reads : parts->has_writes) = true;
      for (size_t k = 1; k < call->items.size(); ++k) {
        const PyExpr* arg = call->items[k];
        if (arg->kind == PyExprKind::kList || arg->kind == PyExprKind::kTuple) {
          for (const PyExpr* item : arg->items) regions.push_back(Region(item));
        } else {
          regions.push_back(Region(arg));
        }
      }
      return true;
    }
    if (callee == "T.block_attr" || callee == "T.sblock_attr") {
      if (callee == "T.sblock_attr") uses_sblock_ = true;
      if (call->items.size() != 2) Error(call, callee + " expects one dictionary");
      for (auto& [key, value] : AttrDict(call->items[1])) {
        parts->fields.annotations.emplace_back(key, value);
      }
      return true;
    }
  }
  if (s->kind == PyStmtKind::kWith && callee == "T.init") {
    if (parts->fields.init != nullptr) Error(s->value, "a block has at most one T.init()");
    Push();
    parts->fields.init = Body(s->body, 0);
    Pop();
    return true;
  }
  if (s->kind == PyStmtKind::kAssign && callee == "T.match_buffer") {
    // X = T.match_buffer(A[region], shape, dtype): a view of a region of another buffer.
    const PyExpr* call = s->value;
    if (s->target->kind != PyExprKind::kName) Error(s->target, "expected a buffer name");
    if (call->items.size() < 2) Error(call, "T.match_buffer needs a source region and a shape");
    ir::BufferRegion source = Region(call->items[1]);
    ir::Buffer buffer = BufferDecl(call, 2, std::string(s->target->text));
    Define(s->target->text, {nullptr, buffer});
    parts->fields.match_buffers.push_back({buffer, std::move(source)});
    return true;
  }
  if (s->kind == PyStmtKind::kAssign &&
      (callee == "T.alloc_buffer" || callee == "T.sblock_alloc_buffer")) {
    if (callee == "T.sblock_alloc_buffer") uses_sblock_ = true;
    if (s->target->kind != PyExprKind::kName) Error(s->target, "expected a buffer name");
    ir::Buffer buffer = BufferDecl(s->value, 1, std::string(s->target->text));
    Define(s->target->text, {nullptr, buffer});
    parts->fields.alloc_buffers.push_back(buffer);
    return true;
  }
  return false;
}

bool TirLowerer::BlockAxis(const PyStmt* s, const std::string& callee, BlockParts* parts) {
  if (callee == "T.axis.remap") {
    const PyExpr* call = s->value;
    // The loop variables: a list, or the name of `for iters in T.grid(...)`.
    if (call->items.size() != 3 || call->items[1]->kind != PyExprKind::kString ||
        (call->items[2]->kind != PyExprKind::kList && Sequence(call->items[2]) == nullptr)) {
      Error(call, "T.axis.remap expects a kind string and a list of loop variables");
    }
    std::string_view kinds = call->items[1]->str;
    const PyExpr* list = call->items[2];
    std::vector<PrimExpr> loop_vars = Exprs(list);
    std::vector<const PyExpr*> names = TirTargetNames(*this, s->target);
    if (kinds.size() != loop_vars.size() || names.size() != loop_vars.size()) {
      Error(call, "T.axis.remap: " + std::to_string(kinds.size()) + " kinds, " +
                      std::to_string(loop_vars.size()) + " loop variables and " +
                      std::to_string(names.size()) + " block variables do not match");
    }
    std::vector<PrimExpr> values;
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (kinds[k] != 'S' && kinds[k] != 'R') {
        Error(call->items[1], std::string("T.axis.remap kinds are 'S' (spatial) or 'R' (reduce), "
                                          "not '") +
                                  kinds[k] + "'");
      }
      PrimExpr value = loop_vars[k];
      const auto* var = ir::As<ir::TirVarNode>(value);
      auto it = var != nullptr ? loop_ranges_.find(var) : loop_ranges_.end();
      if (it == loop_ranges_.end()) {
        Error(list->kind == PyExprKind::kList ? list->items[k] : list,
              "T.axis.remap expects the variables of enclosing loops");
      }
      values.push_back(value);
      parts->fields.iter_vars.push_back(
          {nullptr, it->second,
           kinds[k] == 'S' ? ir::IterVarType::kDataPar : ir::IterVarType::kCommReduce});
    }
    size_t base = parts->fields.iter_vars.size() - kinds.size();
    for (size_t k = 0; k < names.size(); ++k) {
      parts->fields.iter_vars[base + k].var = NewVar(names[k], values[k]->dtype());
      parts->iter_values.push_back(values[k]);
    }
    return true;
  }
  std::string kind = callee.substr(7);
  {
    ir::IterVarType type;
    if (kind == "spatial" || kind == "S") {
      type = ir::IterVarType::kDataPar;
    } else if (kind == "reduce" || kind == "R") {
      type = ir::IterVarType::kCommReduce;
    } else if (kind == "scan") {
      type = ir::IterVarType::kOrdered;
    } else if (kind == "opaque") {
      type = ir::IterVarType::kOpaque;
    } else {
      Error(s->value->items[0], "unknown block axis kind '" + callee + "'");
    }
    const PyExpr* call = s->value;
    // A block with no_realize=True has no values: `vi = T.axis.spatial(16)`.
    if (call->items.size() != (parts->no_realize ? 2u : 3u)) {
      Error(call, callee + (parts->no_realize ? " of a block with no_realize=True expects a domain"
                                              : " expects a domain and a value"));
    }
    if (s->target->kind != PyExprKind::kName) Error(s->target, "expected a block variable name");
    PrimExpr value;
    if (!parts->no_realize) value = Expr(call->items[2]);
    ir::Range dom;
    const PyExpr* d = call->items[1];
    std::optional<DataType> hint;
    if (value != nullptr) hint = value->dtype();
    if (d->kind == PyExprKind::kTuple) {
      if (d->items.size() != 2) Error(d, "a block axis domain is an extent or (begin, end)");
      PrimExpr begin = Expr(d->items[0], hint);
      dom = {begin, ExtentOf(begin, Expr(d->items[1], begin->dtype()))};
    } else {
      // A bare extent stays an int32 literal whatever the value's dtype, as in TVM:
      // `T.axis.spatial(1, T.int64(0))`. Since 2026 the domain starts at an int32 0, which is
      // why TVM then prints such an axis of an int64 loop without T.axis.remap; before, at a 0
      // of the extent's dtype (an axis of its loop's range prints as T.axis.remap).
      PrimExpr extent = Expr(d, d->kind == PyExprKind::kInt ? std::nullopt : hint);
      DataType min_dtype = options_.current_syntax ? DataType::Int(32) : extent->dtype();
      dom = {ir::IntImm(0, min_dtype), extent};
    }
    DataType var_dtype = value != nullptr ? value->dtype() : dom.extent->dtype();
    parts->fields.iter_vars.push_back({NewVar(s->target, var_dtype), dom, type});
    if (value != nullptr) parts->iter_values.push_back(value);
    return true;
  }
}

}  // namespace pipesplit::script
