// The packed functions of the pipeline-parallel protocol and the VM builtins pipesplit names,
// and the one way to recognise or build a call of one.
//
// A packed function is called by symbol through an ExternFunc: either as the first argument of
// a packing op (`R.call_pure_packed("sym", args...)`, likewise call_dps_packed,
// call_builtin_with_ctx, call_inplace_packed), or directly as the callee
// (`R.call_packed("sym", args...)` prints a call whose op is the ExternFunc).
//
// The protocol: a model marks stage cuts with kStageBoundary calls in a function with the
// pipeline_parallel_stages attribute (attr_names.h); the pipeline-parallel rewrite replaces it
// by one function per stage, which receive activations with kRecvFromPrevGroup, read weights
// from kPackedParams with kTupleGetItem and pass values on with kSendToNextGroup, and a
// dispatcher that calls kDispatchFunctionByGroup with the table of stages.
#ifndef PIPESPLIT_IR_PROTOCOL_H_
#define PIPESPLIT_IR_PROTOCOL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/ir/expr.h"

namespace pipesplit::ir {

namespace protocol {

// Marks a stage cut: `b = call_pure_packed(kStageBoundary, v1, ..., vm)`; `b` (or, for m > 1,
// its unpacked fields) stands for v1..vm in the next stage. At run time it returns its inputs.
inline constexpr const char kStageBoundary[] = "mlc.pipeline_parallel_stage_boundary";

// Sends one value to the worker group of the next stage (called directly, returns R.Object).
inline constexpr const char kSendToNextGroup[] = "runtime.disco.send_to_next_group";

// Receives the next value sent by the previous stage's group
// (`call_dps_packed(kRecvFromPrevGroup, R.tuple(), out_sinfo=<type>)`).
inline constexpr const char kRecvFromPrevGroup[] = "runtime.disco.recv_from_prev_group";

// The collectives TVM's legalize-ops lowers the R.ccl ops to (destination-passing):
//   call_dps_packed(kAllReduce, (x, R.shape([kind]), in_group), out_sinfo=x's type), kind as
//     TVM numbers it (0 sum, 1 prod, 2 min, 3 max, 4 avg);
//   call_dps_packed(kAllGather, (x, in_group), out_sinfo=x's type with dim 0 times the workers);
//   call_dps_packed(kBroadcastFromWorker0, (x, False), out_sinfo=x's type);
//   call_dps_packed(kScatterFromWorker0, (x, False), out_sinfo=x's type without its dim 0),
//     x reshaped (and transposed) so that its dim 0 counts the workers.
inline constexpr const char kAllReduce[] = "runtime.disco.allreduce";
inline constexpr const char kAllGather[] = "runtime.disco.allgather";
inline constexpr const char kBroadcastFromWorker0[] = "runtime.disco.broadcast_from_worker0";
inline constexpr const char kScatterFromWorker0[] = "runtime.disco.scatter_from_worker0";

// Runs, on each worker group, the stage function of that group: called by the dispatcher as
// `call_builtin_with_ctx(kDispatchFunctionByGroup, (((stage0, args...), (stage1, ...)),))`.
inline constexpr const char kDispatchFunctionByGroup[] = "mlc.multi_gpu.DispatchFunctionByGroup";

// Field `i` of a tuple: `call_pure_packed(kTupleGetItem, tuple, R.prim_value(i))`; a stage
// reads weight i of packed_params with it.
inline constexpr const char kTupleGetItem[] = "vm.builtin.tuple_getitem";

// The attention KV cache of the MLC dumps, an R.Object shared by reference (runtime/kv_cache.h).
// Creates a cache: `call_packed(kKvCacheCreate, init, R.shape(reserve), R.prim_value(fill))`.
inline constexpr const char kKvCacheCreate[] = "vm.builtin.attention_kv_cache_create";
// Appends rows: `call_packed(kKvCacheAppend, cache, value)`, returns the same cache.
inline constexpr const char kKvCacheAppend[] = "vm.builtin.attention_kv_cache_append";
// The filled rows as one tensor: `call_packed(kKvCacheView, cache, R.shape(shape))`.
inline constexpr const char kKvCacheView[] = "vm.builtin.attention_kv_cache_view";

// The name of the last parameter of a pipeline-parallel function and of its stages: the tuple
// of weights (R.Object in the stages and the dispatcher).
inline constexpr const char kPackedParams[] = "packed_params";

// The packing ops that call an ExternFunc passed as their first argument.
inline constexpr const char kCallPurePacked[] = "relax.call_pure_packed";
inline constexpr const char kCallDpsPacked[] = "relax.call_dps_packed";
inline constexpr const char kCallBuiltinWithCtx[] = "relax.call_builtin_with_ctx";

}  // namespace protocol

// The first kDispatchFunctionByGroup call bound in the body of `func`, or nullptr.
const CallNode* FindDispatchCall(const FunctionNode& func);

// The stage table of a kDispatchFunctionByGroup call, in group order: entry g is the tuple
// `(stage_g, args...)`, or nullptr where the table holds something else (an empty tuple, a
// var). nullopt when the call carries no table at all. The one decoder of the table: the
// runtime runs it, the pipeline checks compare its stages' sends and receives.
std::optional<std::vector<const TupleNode*>> ReadDispatchTable(const CallNode& dispatch);

// The packed_params fields `function` reads (kTupleGetItem calls on its packed_params
// parameter, through call_pure_packed or called directly, and packed_params[i] items), ascending by
// index, each with the struct info it is read as (R.Object when unknown). Empty when its last
// parameter is not packed_params.
struct WeightRead {
  int64_t index;
  StructInfo sinfo;
};
std::vector<WeightRead> WeightReadsOf(const FunctionNode& function);

// How many calls of packed function `symbol` the body of `function` holds, called directly or
// through a packing op, nested ones included (a stage's sends per micro-batch: kSendToNextGroup,
// receives: kRecvFromPrevGroup).
size_t CountPackedCalls(const FunctionNode& function, std::string_view symbol);

// The ExternFunc `call` passes as its first argument (the callee of a packing op), or nullptr.
const ExternFuncNode* PackedCallee(const CallNode& call);

// Whether `call` is a call of op `op_name` whose first argument is ExternFunc(`symbol`)
// (`R.call_pure_packed("symbol", ...)` for op_name "relax.call_pure_packed").
bool IsExternCall(const CallNode& call, std::string_view op_name, std::string_view symbol);

// `expr` as such a call, or nullptr when it is not one.
const CallNode* IsExternCall(const Expr& expr, std::string_view op_name, std::string_view symbol);

// `expr` as a call whose callee itself is ExternFunc(`symbol`) (`R.call_packed("symbol", ...)`);
// nullptr when it is not one.
const CallNode* IsExternCall(const Expr& expr, std::string_view symbol);

// The call `op_name(ExternFunc(symbol), rest...)` with the given sinfo_args and struct info.
Call MakeExternCall(std::string_view op_name, std::string symbol, std::vector<Expr> rest,
                    std::vector<StructInfo> sinfo_args = {}, StructInfo sinfo = nullptr);

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_PROTOCOL_H_
