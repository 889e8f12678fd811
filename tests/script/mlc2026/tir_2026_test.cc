// The TIR and Relax constructs of TVM's 2026 printing that MLC-LLM's dumps brought, each in a
// small module written as TVM prints it: the parser builds the IR TVM had (checked node by
// node), the printer gives the text back byte for byte, and the checker accepts it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/tir_functor.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::script {
namespace {

using ir::NodeKind;

ir::IRModule Parse(const std::string& text) { return ParseModule(text, "test.py"); }

const ir::PrimFuncNode& Kernel(const ir::IRModule& mod, const char* name) {
  const auto* f = ir::As<ir::PrimFuncNode>(mod.Lookup(name));
  if (f == nullptr) throw std::runtime_error(std::string("no kernel ") + name);
  return *f;
}

// The statements of a kernel in walk order.
std::vector<const ir::StmtNode*> Stmts(const ir::PrimFuncNode& f) {
  class Collector : public ir::StmtVisitor {
   public:
    std::vector<const ir::StmtNode*> out;
    using StmtVisitor::VisitStmt;
    void VisitStmt(const ir::Stmt& s) {
      if (s != nullptr) {
        out.push_back(s.get());
        StmtVisitor::VisitStmt(*s);
      }
    }

   protected:
    void VisitStmt_(const ir::ForNode& n) override { VisitStmt(n.body()); }
    void VisitStmt_(const ir::SeqStmtNode& n) override {
      for (const ir::Stmt& s : n.seq()) VisitStmt(s);
    }
    void VisitStmt_(const ir::BlockRealizeNode& n) override { VisitStmt(ir::Stmt(n.block())); }
    void VisitStmt_(const ir::BlockNode& n) override {
      VisitStmt(n.init());
      VisitStmt(n.body());
    }
    void VisitStmt_(const ir::LetStmtNode& n) override { VisitStmt(n.body()); }
    void VisitStmt_(const ir::IfThenElseNode& n) override {
      VisitStmt(n.then_case());
      VisitStmt(n.else_case());
    }
    void VisitStmt_(const ir::WhileNode& n) override { VisitStmt(n.body()); }
    void VisitStmt_(const ir::AttrStmtNode& n) override { VisitStmt(n.body()); }
    void VisitStmt_(const ir::AllocBufferNode& n) override { VisitStmt(n.body()); }
    void VisitStmt_(const ir::DeclBufferNode& n) override { VisitStmt(n.body()); }
  };
  Collector c;
  c.VisitStmt(f.body());
  return c.out;
}

template <typename T>
std::vector<const T*> All(const ir::PrimFuncNode& f) {
  std::vector<const T*> out;
  for (const ir::StmtNode* s : Stmts(f)) {
    if (const T* t = ir::As<T>(s)) out.push_back(t);
  }
  return out;
}

void ExpectRoundTripAndWellFormed(const char* text) {
  ir::IRModule mod = Parse(text);
  std::string printed = PrintModule(mod);
  EXPECT_EQ(printed, text);
  EXPECT_EQ(PrintModule(Parse(printed)), printed);
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
  EXPECT_TRUE(problems.empty()) << DiagnosticError(std::move(problems)).what();
}

// A kernel with an assert, a while over a scalar, T.Let, T.target and TIR math, and a kernel
// made by LegalizeOps whose shape var is the module-level TypeVar of its caller.
constexpr const char* kKernels =
    "# from typing import TypeVar\n"
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "n = TypeVar(\"n\")\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(s_tir=True)\n"
    "    def kernel(A: T.Buffer((\"n\", 4), \"float32\"), B: T.Buffer((n, 4), \"float32\"), f"
    "lag: T.int32):\n"
    "        n = T.int32()\n"
    "        T.func_attr({\"target\": T.target({\"keys\": [\"cpu\"], \"kind\": \"llvm\", \"ta"
    "g\": \"\"}), \"tirx.noalias\": True})\n"
    "        assert flag == 0, (\"RuntimeError\", [\"flag must be \", \"zero\"])\n"
    "        i: T.int32 = 0\n"
    "        while i < n:\n"
    "            for j in range(4):\n"
    "                freq = T.float32()\n"
    "                B[i, j] = T.Let(T.cos(freq) + T.sin(freq), where={freq: A[i, j] * T.floa"
    "t32(2.0)})\n"
    "            i = i + 1\n"
    "\n"
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def scale(x: T.Buffer((n, T.int64(4)), \"float32\"), y: T.Buffer((n, T.int64(4)), \""
    "float32\")):\n"
    "        T.func_attr({\"tirx.noalias\": True})\n"
    "        # with T.sblock(\"root\"):\n"
    "        for i, j in T.grid(n, T.int64(4)):\n"
    "            with T.sblock(\"y\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(x[vi, vj])\n"
    "                T.writes(y[vi, vj])\n"
    "                y[vi, vj] = T.exp2(T.log2(x[vi, vj])) * T.ceil(x[vi, vj])\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((n, 4), dtype=\"float32\")) -> R.Tensor((n, 4), dtype=\"float32"
    "\"):\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            gv = R.call_tir(cls.scale, (x,), out_ty=R.Tensor((n, 4), dtype=\"float32\"))"
    "\n"
    "            R.output(gv)\n"
    "        return gv\n";

TEST(Tir2026, KernelsPrintBack) { ExpectRoundTripAndWellFormed(kKernels); }

TEST(Tir2026, AssertKeepsItsKindAndMessageParts) {
  ir::IRModule mod = Parse(kKernels);
  std::vector<const ir::AssertStmtNode*> asserts = All<ir::AssertStmtNode>(Kernel(mod, "kernel"));
  ASSERT_EQ(asserts.size(), 1u);
  EXPECT_EQ(asserts[0]->error_kind(), "RuntimeError");
  EXPECT_EQ(asserts[0]->message_parts(), (std::vector<std::string>{"flag must be ", "zero"}));
  EXPECT_TRUE(asserts[0]->cond()->dtype().is_bool());
}

TEST(Tir2026, ScalarAndWhile) {
  ir::IRModule mod = Parse(kKernels);
  const ir::PrimFuncNode& k = Kernel(mod, "kernel");
  // `i: T.int32 = 0` is a local scalar buffer, initialized by a store; `i = i + 1` stores to it.
  std::vector<const ir::AllocBufferNode*> allocs = All<ir::AllocBufferNode>(k);
  ASSERT_EQ(allocs.size(), 1u);
  const ir::Buffer& i = allocs[0]->buffer();
  EXPECT_TRUE(i->layout().scalar);
  EXPECT_EQ(i->scope(), "local");
  EXPECT_EQ(i->dtype(), DataType::Int(32));
  std::vector<const ir::WhileNode*> whiles = All<ir::WhileNode>(k);
  ASSERT_EQ(whiles.size(), 1u);
  const auto* cond = ir::As<ir::BinaryNode>(whiles[0]->cond());
  ASSERT_NE(cond, nullptr);
  const auto* load = ir::As<ir::BufferLoadNode>(cond->a());
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->buffer(), i);
  int stores_to_i = 0;
  for (const auto* store : All<ir::BufferStoreNode>(k)) stores_to_i += store->buffer() == i;
  EXPECT_EQ(stores_to_i, 2);
}

TEST(Tir2026, LetBindsTheDeclaredVar) {
  ir::IRModule mod = Parse(kKernels);
  std::vector<const ir::BufferStoreNode*> stores = All<ir::BufferStoreNode>(Kernel(mod, "kernel"));
  const ir::LetNode* let = nullptr;
  ir::PrimExpr let_expr;
  for (const auto* s : stores) {
    if (const auto* l = ir::As<ir::LetNode>(s->value())) let = l, let_expr = s->value();
  }
  ASSERT_NE(let, nullptr);
  EXPECT_EQ(let->var()->name(), "freq");
  EXPECT_EQ(let->var()->dtype(), DataType::Float(32));
  // The body's vars are the let's own.
  bool uses_var = false;
  ir::VisitTirVars(let->body(), [&](const ir::TirVar& v) { uses_var |= v == let->var(); });
  EXPECT_TRUE(uses_var);
  // A let's var is not free in the let.
  for (const ir::TirVar& v : ir::FreeTirVars(let_expr)) {
    EXPECT_NE(v, let->var());
  }
}

TEST(Tir2026, TargetAttributeIsACall) {
  ir::IRModule mod = Parse(kKernels);
  const ir::AttrValue* target = ir::FindAttr(Kernel(mod, "kernel").attrs(), "target");
  ASSERT_NE(target, nullptr);
  ASSERT_NE(target->as_call(), nullptr);
  EXPECT_EQ(target->as_call()->callee, "T.target");
  ASSERT_EQ(target->as_call()->args.size(), 1u);
  EXPECT_NE(target->as_call()->args[0].as_map(), nullptr);
}

// Thread launches (concise and `with ... as`), T.attr on an expression, on a reducer and as a
// dictionary, shared and local allocation statements, cross-thread reduction, storage sync.
constexpr const char* kGpuSchedule =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def gpu(A: T.Buffer((T.int64(128),), \"float32\"), B: T.Buffer((T.int64(1),), \"floa"
    "t32\")):\n"
    "        T.func_attr({\"tirx.is_scheduled\": True})\n"
    "        # with T.sblock(\"root\"):\n"
    "        with T.launch_thread(\"threadIdx.x\", T.int64(64)) as threadIdx_x:\n"
    "            buffer = T.alloc_shared((T.int64(64),))\n"
    "            buffer_1 = T.alloc_local((T.int64(1),))\n"
    "            buffer_1[T.int64(0)] = A[threadIdx_x] + A[threadIdx_x + T.int64(64)]\n"
    "            buffer[threadIdx_x] = buffer_1[T.int64(0)]\n"
    "            T.tvm_storage_sync(\"shared\")\n"
    "        with T.attr(0, \"hand_threaded\", 0):\n"
    "            threadIdx_x = T.launch_thread(\"threadIdx.x\", T.int64(32))\n"
    "            red = T.alloc_local((T.int64(1),))\n"
    "            with T.sblock(\"reduce\"):\n"
    "                T.reads(A[threadIdx_x])\n"
    "                T.writes(red[T.int64(0)])\n"
    "                t0 = T.sblock_alloc_buffer((1,), scope=\"local\")\n"
    "                T.attr(T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)]), \"reduc"
    "e_scope\", 0)\n"
    "                T.tvm_thread_allreduce(T.uint32(1), A[threadIdx_x], T.bool(True), t0[0],"
    " threadIdx_x)\n"
    "            T.attr({\"pragma_scope\": \"seq\"})\n"
    "            B[T.int64(0)] = red[T.int64(0)]\n"
    "        T.tvm_storage_sync(\"shared\", T.bool(False), -1)\n";

TEST(Tir2026, GpuSchedulePrintsBack) { ExpectRoundTripAndWellFormed(kGpuSchedule); }

TEST(Tir2026, ThreadLaunchesAndAttributes) {
  ir::IRModule mod = Parse(kGpuSchedule);
  std::vector<const ir::AttrStmtNode*> attrs = All<ir::AttrStmtNode>(Kernel(mod, "gpu"));
  std::vector<std::string> keys;
  for (const auto* a : attrs) keys.push_back(a->attr_key());
  EXPECT_EQ(keys, (std::vector<std::string>{"thread_extent", "hand_threaded", "thread_extent",
                                            "reduce_scope", "pragma_scope"}));
  ASSERT_EQ(attrs.size(), 5u);
  EXPECT_TRUE(attrs[0]->is_thread_launch());
  EXPECT_EQ(attrs[0]->target().thread_tag, "threadIdx.x");
  EXPECT_EQ(attrs[0]->target().var->name(), "threadIdx_x");
  EXPECT_EQ(attrs[0]->target().var->dtype(), DataType::Int(64));
  // The two launches of threadIdx.x bind two vars.
  EXPECT_NE(attrs[0]->target().var, attrs[2]->target().var);
  EXPECT_EQ(attrs[1]->target().kind, ir::AttrTarget::Kind::kExpr);
  ASSERT_EQ(attrs[3]->target().kind, ir::AttrTarget::Kind::kCommReducer);
  const ir::CommReducer& r = *attrs[3]->target().reducer;
  ASSERT_EQ(r.lhs.size(), 1u);
  EXPECT_EQ(r.lhs[0]->dtype(), DataType::Float(32));
  EXPECT_EQ(attrs[4]->target().kind, ir::AttrTarget::Kind::kNone);
  std::vector<std::string> scopes;
  for (const auto* a : All<ir::AllocBufferNode>(Kernel(mod, "gpu"))) {
    scopes.push_back(a->buffer()->scope());
  }
  EXPECT_EQ(scopes, (std::vector<std::string>{"shared", "local", "local"}));
}

// Tensor-core loads: matched buffers with stride vars and an offset var read back as C.strides[0]
// and C.elem_offset, T.tvm_access_ptr of a T.type_annotation, T.where; a block whose regions
// name a buffer it allocates (TVM declares it ahead with T.Buffer).
constexpr const char* kTensorCore =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def mma(A: T.Buffer((T.int64(16), T.int64(16)), \"float16\"), B: T.Buffer((T.int64(1"
    "6), T.int64(16)), \"float16\")):\n"
    "        T.func_attr({\"tirx.is_scheduled\": True})\n"
    "        # with T.sblock(\"root\"):\n"
    "        A_shared = T.sblock_alloc_buffer((T.int64(16), T.int64(16)), \"float16\", scope="
    "\"shared.dyn\")\n"
    "        A_frag = T.sblock_alloc_buffer((T.int64(16), T.int64(16)), \"float16\", scope=\""
    "wmma.matrix_a\")\n"
    "        for ty in T.thread_binding(T.int64(2), thread=\"threadIdx.y\"):\n"
    "            with T.sblock(\"load\"):\n"
    "                v = T.axis.spatial(T.int64(2), ty)\n"
    "                T.where(ty < T.int64(1))\n"
    "                T.reads(A_shared[T.int64(0):T.int64(16), T.int64(0):T.int64(16)])\n"
    "                T.writes(A_frag[T.int64(0):T.int64(16), T.int64(0):T.int64(16)])\n"
    "                S = T.match_buffer(A_shared[T.int64(0):T.int64(16), T.int64(0):T.int64(1"
    "6)], (T.int64(16), T.int64(16)), \"float16\", strides=(\"s1\", \"s0\"), scope=\"shared.d"
    "yn\", offset_factor=16)\n"
    "                C = T.match_buffer(A_frag[T.int64(0):T.int64(16), T.int64(0):T.int64(16)"
    "], (T.int64(16), T.int64(16)), \"float16\", strides=(\"d1\", \"d0\"), scope=\"wmma.matri"
    "x_a\", offset_factor=16)\n"
    "                T.tvm_load_matrix_sync(C.data, 16, 16, 16, C.elem_offset // C.strides[0]"
    " // T.int64(16), T.tvm_access_ptr(T.type_annotation(\"float16\"), S.data, S.elem_offset,"
    " S.strides[0] * T.int64(16), 1), S.strides[0], \"row_major\")\n"
    "        for i in range(T.int64(16)):\n"
    "            with T.sblock(\"copy\"):\n"
    "                vi = T.axis.spatial(T.int64(16), i)\n"
    "                n_valid = T.Buffer((1,), \"int32\", scope=\"local\")\n"
    "                T.reads(A[vi, T.int64(0):T.int64(16)], n_valid[0])\n"
    "                T.writes(B[vi, T.int64(0):T.int64(16)])\n"
    "                n_valid = T.sblock_alloc_buffer((1,), \"int32\", scope=\"local\")\n"
    "                n_valid[0] = 16\n"
    "                k: T.int32 = 0\n"
    "                while k < n_valid[0]:\n"
    "                    B[vi, k] = A[vi, k]\n"
    "                    k = k + 1\n";

TEST(Tir2026, TensorCorePrintsBack) { ExpectRoundTripAndWellFormed(kTensorCore); }

TEST(Tir2026, MatchedBufferLayout) {
  ir::IRModule mod = Parse(kTensorCore);
  const ir::PrimFuncNode& k = Kernel(mod, "mma");
  const ir::BlockNode* load = nullptr;
  for (const auto* realize : All<ir::BlockRealizeNode>(k)) {
    if (realize->block()->name_hint() == "load") load = realize->block().get();
  }
  ASSERT_NE(load, nullptr);
  ASSERT_EQ(load->match_buffers().size(), 2u);
  const ir::Buffer& c = load->match_buffers()[1].buffer;
  EXPECT_EQ(c->scope(), "wmma.matrix_a");
  ASSERT_EQ(c->strides().size(), 2u);
  EXPECT_EQ(ir::As<ir::TirVarNode>(c->strides()[0])->name(), "d1");
  EXPECT_EQ(c->strides()[0]->dtype(), DataType::Int(64));
  EXPECT_EQ(c->layout().offset_factor, 16);
  ASSERT_NE(ir::As<ir::TirVarNode>(c->elem_offset()), nullptr);
  EXPECT_EQ(c->elem_offset()->dtype(), DataType::Int(64));
}

TEST(Tir2026, ForwardDeclaredBufferIsTheAllocatedOne) {
  ir::IRModule mod = Parse(kTensorCore);
  const ir::BlockNode* copy = nullptr;
  for (const auto* realize : All<ir::BlockRealizeNode>(Kernel(mod, "mma"))) {
    if (realize->block()->name_hint() == "copy") copy = realize->block().get();
  }
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(copy->alloc_buffers().size(), 1u);
  ASSERT_EQ(copy->reads().size(), 2u);
  EXPECT_EQ(copy->reads()[1].buffer, copy->alloc_buffers()[0]);
}

// A module after MLC's memory planning: R.Any, a tuple of weights, a kernel handed to a builtin
// as (R.str("tirx"), cls.f), explicit storage, destination-passing calls, VM builtins through
// R.call_packed, an unset out_dtype as None, bools as bools, _metadata, and the ccl ops.
constexpr const char* kMemoryPlanned =
    "# from typing import TypeVar\n"
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "batch_size = TypeVar(\"batch_size\")\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    I.module_attrs({\"external_mods\": []})\n"
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def add_one(x: T.Buffer((\"batch_size\", 1, 256), \"float32\"), y: T.Buffer((batch_s"
    "ize, 1, 256), \"float32\")):\n"
    "        batch_size = T.int32()\n"
    "        T.func_attr({\"tirx.noalias\": True})\n"
    "        # with T.sblock(\"root\"):\n"
    "        for i0, i1, i2 in T.grid(batch_size, 1, 256):\n"
    "            with T.sblock(\"y\"):\n"
    "                v0, v1, v2 = T.axis.remap(\"SSS\", [i0, i1, i2])\n"
    "                T.reads(x[v0, v1, v2])\n"
    "                T.writes(y[v0, v1, v2])\n"
    "                y[v0, v1, v2] = x[v0, v1, v2] + T.float32(1.0)\n"
    "\n"
    "    @R.function\n"
    "    def _metadata() -> R.Any:\n"
    "        return R.str(\"{\\\"model_type\\\": \\\"llama\\\"}\")\n"
    "\n"
    "    @R.function\n"
    "    def create_cache(max_batch_size_: R.Shape([batch_size])) -> R.Any:\n"
    "        cls = Module\n"
    "        cache: R.Any = R.call_pure_packed(\"vm.builtin.create_cache\", R.shape([batch_si"
    "ze, 1024]), False, True, T.float64(10000.0), (R.str(\"tirx\"), cls.add_one), ty_args=(R."
    "Any,))\n"
    "        return cache\n"
    "\n"
    "    @R.function(pure=False)\n"
    "    def decode(x: R.Tensor((batch_size, 1, 256), dtype=\"float32\"), cache: R.Any, packe"
    "d_params: R.Tuple(R.Tensor((256, 256), dtype=\"float32\"), R.Tensor((256,), dtype=\"floa"
    "t32\"))) -> R.Tensor((batch_size, 1, 256), dtype=\"float32\"):\n"
    "        R.func_attr({\"num_input\": 2})\n"
    "        cls = Module\n"
    "        w: R.Tensor((256, 256), dtype=\"float32\") = R.call_packed(\"vm.builtin.tuple_ge"
    "titem\", packed_params, 0, ty_args=(R.Tensor((256, 256), dtype=\"float32\"),))\n"
    "        storage: R.Any = R.memory.alloc_storage(R.shape([4096]), 0, R.str(\"global\"), R"
    ".dtype(\"float32\"))\n"
    "        alloc: R.Tensor((batch_size, 1, 256), dtype=\"float32\") = R.memory.alloc_tensor"
    "(storage, 0, R.shape([batch_size, 1, 256]), R.dtype(\"float32\"), 0)\n"
    "        cls.add_one(x, alloc)\n"
    "        lv: R.Tensor((batch_size, 1, 256), dtype=\"float32\") = alloc\n"
    "        mm: R.Tensor((batch_size, 1, 256), dtype=\"float32\") = R.matmul(lv, w, out_dtyp"
    "e=None)\n"
    "        s0: R.Tensor((batch_size, 1, 256), dtype=\"float32\") = R.ccl.broadcast_from_wor"
    "ker0(mm)\n"
    "        s1: R.Tensor((batch_size, 1, 256), dtype=\"float32\") = R.ccl.allreduce(s0, op_t"
    "ype=\"sum\", in_group=True)\n"
    "        s2: R.Tensor((batch_size * 2, 1, 256), dtype=\"float32\") = R.ccl.allgather(s1, "
    "num_workers=2, in_group=True)\n"
    "        s3: R.Tensor((batch_size, 1, 128), dtype=\"float32\") = R.ccl.scatter_from_worke"
    "r0(s1, num_workers=2, axis=2)\n"
    "        t: R.Tensor((batch_size, 1, 256), dtype=\"float32\") = R.builtin.alloc_tensor(R."
    "shape([batch_size, 1, 256]), R.dtype(\"float32\"), 0, R.str(\"global\"), ty_args=(R.Tens"
    "or((batch_size, 1, 256), dtype=\"float32\"),))\n"
    "        return s1\n";

TEST(Relax2026, MemoryPlannedModulePrintsBack) { ExpectRoundTripAndWellFormed(kMemoryPlanned); }

TEST(Relax2026, CclOpsKeepTheirAttributes) {
  ir::IRModule mod = Parse(kMemoryPlanned);
  std::vector<std::string> attrs;
  for (const ir::Binding& b :
       ir::As<ir::SeqExprNode>(mod.LookupFunction("decode")->body())->blocks()[0]->bindings()) {
    const auto* call = ir::As<ir::CallNode>(b->value());
    if (call == nullptr || call->op_node() == nullptr ||
        call->op_node()->name().rfind("relax.ccl.", 0) != 0) {
      continue;
    }
    std::string line = call->op_node()->name();
    for (const auto& [key, value] : call->attrs()) line += " " + key;
    attrs.push_back(line);
  }
  EXPECT_EQ(attrs, (std::vector<std::string>{
                       "relax.ccl.broadcast_from_worker0",
                       "relax.ccl.allreduce op_type in_group",
                       "relax.ccl.allgather num_workers in_group",
                       "relax.ccl.scatter_from_worker0 num_workers axis",
                   }));
}

// The ccl ops written short (defaults left out, attributes by position) print every attribute
// by keyword, as TVM prints them, in both syntaxes; the printed text reads back unchanged.
TEST(Relax2026, CclOpsPrintEveryAttribute) {
  const std::string written =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor((4, 6), \"float32\")) -> R.Tensor((8, 3), \"float32\"):\n"
      "        a = R.ccl.allreduce(x)\n"
      "        b = R.ccl.allreduce(a, \"max\", False)\n"
      "        c = R.ccl.allgather(b, 2)\n"
      "        d = R.ccl.scatter_from_worker0(c, 2, 1)\n"
      "        e = R.ccl.broadcast_from_worker0(d)\n"
      "        return e\n";
  const std::string body =
      "        a: R.Tensor((4, 6), dtype=\"float32\") = R.ccl.allreduce(x, op_type=\"sum\", "
      "in_group=True)\n"
      "        b: R.Tensor((4, 6), dtype=\"float32\") = R.ccl.allreduce(a, op_type=\"max\", "
      "in_group=False)\n"
      "        c: R.Tensor((8, 6), dtype=\"float32\") = R.ccl.allgather(b, num_workers=2, "
      "in_group=True)\n"
      "        d: R.Tensor((8, 3), dtype=\"float32\") = R.ccl.scatter_from_worker0(c, "
      "num_workers=2, axis=1)\n"
      "        e: R.Tensor((8, 3), dtype=\"float32\") = R.ccl.broadcast_from_worker0(d)\n"
      "        return e\n";
  ir::IRModule mod = Parse(written);
  for (ir::Syntax syntax : {ir::Syntax::kClassic, ir::Syntax::kCurrent}) {
    PrintOptions options;
    options.syntax = syntax;
    const std::string printed = PrintModule(mod, options);
    EXPECT_NE(printed.find(body), std::string::npos) << printed;
    EXPECT_EQ(PrintModule(Parse(printed), options), printed);
  }
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
  EXPECT_TRUE(problems.empty()) << DiagnosticError(std::move(problems)).what();
}

TEST(Relax2026, BoolArgumentsAreBools) {
  ir::IRModule mod = Parse(kMemoryPlanned);
  const ir::Binding& b = ir::As<ir::SeqExprNode>(mod.LookupFunction("create_cache")->body())
                             ->blocks()[0]
                             ->bindings()[0];
  const auto* call = ir::As<ir::CallNode>(b->value());
  ASSERT_NE(call, nullptr);
  const auto* flag = ir::As<ir::PrimValueNode>(call->args()[2]);
  ASSERT_NE(flag, nullptr);
  EXPECT_TRUE(flag->value()->dtype().is_bool());
  // An unset optional dtype is None in the current syntax only.
  PrintOptions classic;
  classic.syntax = ir::Syntax::kClassic;
  EXPECT_NE(PrintModule(mod, classic).find("R.matmul(lv, w, out_dtype=\"void\")"),
            std::string::npos);
}

// A thread var launched twice: declared with T.env_thread where both launches see it.
constexpr const char* kEnvThread =
    "# from tvm.script import ir as I\n"
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True, s_tir=True)\n"
    "    def twice(A: T.Buffer((64,), \"float32\")):\n"
    "        threadIdx_x = T.env_thread(\"threadIdx.x\")\n"
    "        with T.launch_thread(threadIdx_x, 32):\n"
    "            A[threadIdx_x] = T.float32(0.0)\n"
    "        T.launch_thread(threadIdx_x, 32)\n"
    "        A[threadIdx_x + 32] = T.float32(1.0)\n";

TEST(Tir2026, EnvThreadPrintsBack) {
  ExpectRoundTripAndWellFormed(kEnvThread);
  ir::IRModule mod = Parse(kEnvThread);
  std::vector<const ir::AttrStmtNode*> launches = All<ir::AttrStmtNode>(Kernel(mod, "twice"));
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0]->target().var, launches[1]->target().var);
  EXPECT_EQ(launches[1]->target().thread_tag, "threadIdx.x");
}

}  // namespace
}  // namespace pipesplit::script
