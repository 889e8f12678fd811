// tir-compute-inline keeps the bits: kernels shaped as MLC-LLM's 2026 CPU kernels (4-bit
// embedding lookup, 4-bit matmul with an add epilogue, float16 rms_norm, split + silu +
// multiply) and the kernels of the TinyLlama dump itself, built as written and after the pass
// (loop optimizations on in both), run on the same random inputs, give outputs equal bit for
// bit.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "pipesplit/ir/arith.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/tir_compute_inline.h"
#include "tests/codegen/kernel_test_util.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::codegen {
namespace {

using testing::KernelLibrary;

const std::string kKernels = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dequantize_take(weight: T.Buffer(("vocab_size", 8), "uint32"), scale: T.Buffer((vocab_size, 2), "float16"), input_ids: T.Buffer(("seq_len",), "int32"), out: T.Buffer((seq_len, 64), "float16")):
        vocab_size = T.int32()
        seq_len = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        compute = T.sblock_alloc_buffer((vocab_size, 64), "float16")
        for i0, i1 in T.grid(vocab_size, 64):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(weight[v_i0, v_i1 // 8])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.Cast("float16", T.bitwise_and(T.shift_right(weight[v_i0, v_i1 // 8], T.Cast("uint32", v_i1 % 8 * 4)), T.uint32(15)))
        for ax0, ax1 in T.grid(seq_len, 64):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(input_ids[v_ax0], compute[input_ids[v_ax0], v_ax1], scale[input_ids[v_ax0], v_ax1 // 32])
                T.writes(out[v_ax0, v_ax1])
                out[v_ax0, v_ax1] = (compute[input_ids[v_ax0], v_ax1] - T.float16(7.0)) * scale[input_ids[v_ax0], v_ax1 // 32]

    @T.prim_func(private=True, s_tir=True)
    def q4_matmul_add(weight: T.Buffer((32, 8), "uint32"), scale: T.Buffer((32, 2), "float16"), x: T.Buffer(("batch_size", 1, 64), "float16"), residual: T.Buffer((batch_size, 1, 32), "float16"), out: T.Buffer((batch_size, 1, 32), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        compute = T.sblock_alloc_buffer((32, 64), "float16")
        dequantize = T.sblock_alloc_buffer((32, 64), "float16")
        NT_matmul = T.sblock_alloc_buffer((batch_size, 1, 32), "float16")
        for i0, i1 in T.grid(32, 64):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(weight[v_i0, v_i1 // 8])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.Cast("float16", T.bitwise_and(T.shift_right(weight[v_i0, v_i1 // 8], T.Cast("uint32", v_i1 % 8 * 4)), T.uint32(15)))
        for i0, i1 in T.grid(32, 64):
            with T.sblock("dequantize"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(compute[v_i0, v_i1], scale[v_i0, v_i1 // 32])
                T.writes(dequantize[v_i0, v_i1])
                dequantize[v_i0, v_i1] = (compute[v_i0, v_i1] - T.float16(7.0)) * scale[v_i0, v_i1 // 32]
        for i0, i1, i2, k in T.grid(batch_size, 1, 32, 64):
            with T.sblock("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(x[v_i0, v_i1, v_k], dequantize[v_i2, v_k])
                T.writes(NT_matmul[v_i0, v_i1, v_i2])
                with T.init():
                    NT_matmul[v_i0, v_i1, v_i2] = T.float16(0.0)
                NT_matmul[v_i0, v_i1, v_i2] = NT_matmul[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * dequantize[v_i2, v_k]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 32):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(NT_matmul[v_ax0, v_ax1, v_ax2], residual[v_ax0, v_ax1, v_ax2])
                T.writes(out[v_ax0, v_ax1, v_ax2])
                out[v_ax0, v_ax1, v_ax2] = NT_matmul[v_ax0, v_ax1, v_ax2] + residual[v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True, s_tir=True)
    def rms_norm(data: T.Buffer(("batch_size", 1, 64), "float16"), weight: T.Buffer((64,), "float16"), T_cast: T.Buffer((batch_size, 1, 64), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_cast_1 = T.sblock_alloc_buffer((batch_size, 1, 64))
        T_multiply = T.sblock_alloc_buffer((batch_size, 1, 64))
        T_multiply_red = T.sblock_alloc_buffer((batch_size, 1))
        rsqrt = T.sblock_alloc_buffer((batch_size, 1))
        T_cast_2 = T.sblock_alloc_buffer((64,))
        T_rms_norm = T.sblock_alloc_buffer((batch_size, 1, 64))
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 64):
            with T.sblock("T_cast"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(data[v_ax0, v_ax1, v_ax2])
                T.writes(T_cast_1[v_ax0, v_ax1, v_ax2])
                T_cast_1[v_ax0, v_ax1, v_ax2] = T.Cast("float32", data[v_ax0, v_ax1, v_ax2])
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 64):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_cast_1[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2])
                T_multiply[v_ax0, v_ax1, v_ax2] = T_cast_1[v_ax0, v_ax1, v_ax2] * T_cast_1[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, k2 in T.grid(batch_size, 1, 64):
            with T.sblock("T_multiply_red"):
                v_ax0, v_ax1, v_k2 = T.axis.remap("SSR", [ax0, ax1, k2])
                T.reads(T_multiply[v_ax0, v_ax1, v_k2])
                T.writes(T_multiply_red[v_ax0, v_ax1])
                with T.init():
                    T_multiply_red[v_ax0, v_ax1] = T.float32(0.0)
                T_multiply_red[v_ax0, v_ax1] = T_multiply_red[v_ax0, v_ax1] + T_multiply[v_ax0, v_ax1, v_k2]
        for ax0, ax1 in T.grid(batch_size, 1):
            with T.sblock("rsqrt"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_red[v_ax0, v_ax1])
                T.writes(rsqrt[v_ax0, v_ax1])
                rsqrt[v_ax0, v_ax1] = T.rsqrt(T_multiply_red[v_ax0, v_ax1] / T.float32(64.0) + T.float32(1.0000000000000001e-05))
        for ax0 in range(64):
            with T.sblock("T_cast_1"):
                v_ax0 = T.axis.spatial(64, ax0)
                T.reads(weight[v_ax0])
                T.writes(T_cast_2[v_ax0])
                T_cast_2[v_ax0] = T.Cast("float32", weight[v_ax0])
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 64):
            with T.sblock("T_rms_norm"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(rsqrt[v_ax0, v_ax1], T_cast_1[v_ax0, v_ax1, v_ax2], T_cast_2[v_ax2])
                T.writes(T_rms_norm[v_ax0, v_ax1, v_ax2])
                T_rms_norm[v_ax0, v_ax1, v_ax2] = rsqrt[v_ax0, v_ax1] * T_cast_1[v_ax0, v_ax1, v_ax2] * T_cast_2[v_ax2]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 64):
            with T.sblock("T_cast_2"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_rms_norm[v_ax0, v_ax1, v_ax2])
                T.writes(T_cast[v_ax0, v_ax1, v_ax2])
                T_cast[v_ax0, v_ax1, v_ax2] = T.Cast("float16", T_rms_norm[v_ax0, v_ax1, v_ax2])

    @T.prim_func(private=True, s_tir=True)
    def split_silu_multiply(lv: T.Buffer(("batch_size", 1, 96), "float16"), out: T.Buffer((batch_size, 1, 48), "float16")):
        batch_size = T.int32()
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        T_split_sections = T.sblock_alloc_buffer((batch_size, 1, 48), "float16")
        T_split_sections_1 = T.sblock_alloc_buffer((batch_size, 1, 48), "float16")
        compute = T.sblock_alloc_buffer((batch_size, 1, 48), "float16")
        T_multiply = T.sblock_alloc_buffer((batch_size, 1, 48), "float16")
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 48):
            with T.sblock("T_split_sections"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv[v_ax0, v_ax1, v_ax2])
                T.writes(T_split_sections[v_ax0, v_ax1, v_ax2])
                T_split_sections[v_ax0, v_ax1, v_ax2] = lv[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 48):
            with T.sblock("T_split_sections_1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv[v_ax0, v_ax1, v_ax2 + 48])
                T.writes(T_split_sections_1[v_ax0, v_ax1, v_ax2])
                T_split_sections_1[v_ax0, v_ax1, v_ax2] = lv[v_ax0, v_ax1, v_ax2 + 48]
        for i0, i1, i2 in T.grid(batch_size, 1, 48):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_split_sections[v_i0, v_i1, v_i2])
                T.writes(compute[v_i0, v_i1, v_i2])
                compute[v_i0, v_i1, v_i2] = T.sigmoid(T_split_sections[v_i0, v_i1, v_i2])
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 48):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_split_sections[v_ax0, v_ax1, v_ax2], compute[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2])
                T_multiply[v_ax0, v_ax1, v_ax2] = T_split_sections[v_ax0, v_ax1, v_ax2] * compute[v_ax0, v_ax1, v_ax2]
        for ax0, ax1, ax2 in T.grid(batch_size, 1, 48):
            with T.sblock("T_multiply1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_multiply[v_ax0, v_ax1, v_ax2], T_split_sections_1[v_ax0, v_ax1, v_ax2])
                T.writes(out[v_ax0, v_ax1, v_ax2])
                out[v_ax0, v_ax1, v_ax2] = T_multiply[v_ax0, v_ax1, v_ax2] * T_split_sections_1[v_ax0, v_ax1, v_ax2]
)";

// A kernel argument: its bytes, shape and ABI type, and how its random contents are drawn.
struct Tensor {
  enum class Fill : uint8_t { kHalf, kBits, kIds, kZero };
  Fill fill;
  uint8_t code;  // ABI dtype code: 0 int, 1 uint, 2 float
  uint8_t bits;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t Elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  PipesplitKernelArg Arg() {
    PipesplitKernelArg arg{};
    arg.data = bytes.data();
    arg.shape = shape.data();
    arg.ndim = static_cast<int32_t>(shape.size());
    arg.dtype_code = code;
    arg.dtype_bits = bits;
    arg.lanes = 1;
    return arg;
  }
};

Tensor Half(std::vector<int64_t> shape) {
  return {Tensor::Fill::kHalf, 2, 16, std::move(shape), {}};
}
Tensor Output(std::vector<int64_t> shape) {
  return {Tensor::Fill::kZero, 2, 16, std::move(shape), {}};
}

// Random contents: float16 values of either sign in [2^-5, 2) (no infinities, NaNs or
// subnormals), any bits for packed weights, token ids below `vocab`.
void Randomize(Tensor* t, int64_t vocab, std::mt19937* rng) {
  t->bytes.assign(static_cast<size_t>(t->Elements() * t->bits / 8), 0);
  std::uniform_int_distribution<uint32_t> bits;
  for (int64_t i = 0; i < t->Elements(); ++i) {
    uint32_t r = bits(*rng);
    if (t->fill == Tensor::Fill::kHalf) {
      auto h = static_cast<uint16_t>((r & 0x8000u) | ((10 + (r >> 16) % 6) << 10) | (r & 0x3ffu));
      std::memcpy(t->bytes.data() + 2 * i, &h, 2);
    } else if (t->fill == Tensor::Fill::kBits) {
      std::memcpy(t->bytes.data() + 4 * i, &r, 4);
    } else if (t->fill == Tensor::Fill::kIds) {
      auto id = static_cast<int32_t>(r % static_cast<uint32_t>(vocab));
      std::memcpy(t->bytes.data() + 4 * i, &id, 4);
    }
  }
}

TEST(TirComputeInlineExec, InlinedKernelsGiveTheSameBits) {
  ir::IRModule before = script::ParseModule(kKernels, "kernels.py");
  ir::IRModule after = before;
  std::map<std::string, size_t> inlined;
  for (const ir::IRModule::Member& m : before.members()) {
    auto func = ir::Cast<ir::PrimFuncNode>(m.func);
    ASSERT_NE(func, nullptr);
    transform::ComputeInlineReport report;
    after.Update(m.gvar, transform::ComputeInline(func, &report));
    inlined[func->name()] = report.inlined.size();
  }
  // Not vacuous: the pass changed every kernel.
  EXPECT_EQ(inlined, (std::map<std::string, size_t>{{"dequantize_take", 1},
                                                    {"q4_matmul_add", 2},
                                                    {"rms_norm", 5},
                                                    {"split_silu_multiply", 4}}));
  BuildOptions options;
  options.cache_dir = testing::SharedCacheDir();
  options.optimize_loops = true;
  KernelLibrary lib_before(BuildKernelLibrary(before, options));
  KernelLibrary lib_after(BuildKernelLibrary(after, options));

  const int64_t vocab = 16, seq = 5, batch = 3;
  const Tensor bits_tensor{Tensor::Fill::kBits, 1, 32, {}, {}};
  std::map<std::string, std::vector<Tensor>> kernels;
  Tensor weight = bits_tensor, q4_weight = bits_tensor, ids{Tensor::Fill::kIds, 0, 32, {seq}, {}};
  weight.shape = {vocab, 8};
  q4_weight.shape = {32, 8};
  kernels["dequantize_take"] = {weight, Half({vocab, 2}), ids, Output({seq, 64})};
  kernels["q4_matmul_add"] = {q4_weight, Half({32, 2}), Half({batch, 1, 64}), Half({batch, 1, 32}),
                              Output({batch, 1, 32})};
  kernels["rms_norm"] = {Half({batch, 1, 64}), Half({64}), Output({batch, 1, 64})};
  kernels["split_silu_multiply"] = {Half({batch, 1, 96}), Output({batch, 1, 48})};

  std::mt19937 rng(2026);
  for (auto& [name, tensors] : kernels) {
    for (int trial = 0; trial < 4; ++trial) {
      for (Tensor& t : tensors) Randomize(&t, vocab, &rng);
      std::vector<Tensor> theirs = tensors;
      std::vector<PipesplitKernelArg> args, other_args;
      for (Tensor& t : tensors) args.push_back(t.Arg());
      for (Tensor& t : theirs) other_args.push_back(t.Arg());
      ASSERT_EQ(lib_before.Call(name, args), "") << name;
      ASSERT_EQ(lib_after.Call(name, other_args), "") << name;
      const std::vector<uint8_t>& want = tensors.back().bytes;
      const std::vector<uint8_t>& got = theirs.back().bytes;
      EXPECT_NE(want, std::vector<uint8_t>(want.size(), 0)) << name << ": nothing was written";
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); i += 2) {
        uint16_t w = 0, g = 0;
        std::memcpy(&w, want.data() + i, 2);
        std::memcpy(&g, got.data() + i, 2);
        ASSERT_EQ(g, w) << name << " trial " << trial << " element " << i / 2;
      }
    }
  }
}

// The value of a symbolic dim in the corpus runs: the vocabulary as MLC's sampling kernels
// assume it (they guard their reads with 32000), 8 chunks of 4096 over it, 3 for the others.
int64_t CorpusDim(const std::string& name) {
  return name == "vocab_size" ? 32000 : name == "num_chunks" ? 8 : 3;
}

// Random contents for a buffer of `dtype`: float16 values in [2^-5, 2) and float32 values in
// (-2, 2) of either sign, any bits for packed uint32 weights, 0 or 1 for other integers (token
// ids and positions stay in range).
void RandomBytes(std::vector<uint8_t>* bytes, DataType dtype, std::mt19937* rng) {
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  const int64_t size = dtype.bytes();
  for (size_t at = 0; at + size <= bytes->size(); at += size) {
    uint8_t* p = bytes->data() + at;
    const uint32_t r = bits(*rng);
    if (dtype.is_float() && dtype.bits() == 32) {
      float v = real(*rng);
      std::memcpy(p, &v, 4);
    } else if (dtype.is_float() && dtype.bits() == 16) {
      auto h = static_cast<uint16_t>((r & 0x8000u) | ((10 + (r >> 16) % 6) << 10) | (r & 0x3ffu));
      std::memcpy(p, &h, 2);
    } else if (dtype.is_uint() && dtype.bits() == 32) {
      std::memcpy(p, &r, 4);
    } else {
      std::memset(p, 0, size);
      p[0] = static_cast<uint8_t>(r % 2);
    }
  }
}

// Every kernel of the TinyLlama q4f16_1 CPU dump that the pass changes (21: embedding, q4
// matmuls, rms_norm, split_silu_multiply, reshapes, chunk_lse), built before and after (loop
// optimizations on), on the same random inputs: every buffer ends with the same bytes. About
// 40 s to compile cold (the kernel cache keeps them), 10 s to run on 2 cores.
TEST(TirComputeInlineExec, ChangedMlcKernelsGiveTheSameBits) {
  const std::filesystem::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "the MLC-LLM 2026 corpus is not here";
  const std::filesystem::path dump = corpus / "tinyllama-q4f16_1/cpu-pp1/debug-phase5.py";
  std::string text, error;
  ASSERT_TRUE(ReadFile(dump.string(), &text, &error)) << error;
  ir::IRModule mod = script::ParseModule(text, dump.string());
  ir::IRModule before, after;
  for (const ir::IRModule::Member& m : mod.members()) {
    auto func = ir::Cast<ir::PrimFuncNode>(m.func);
    if (func == nullptr) continue;
    ir::PrimFunc inlined = transform::ComputeInline(func);
    if (inlined == func) continue;
    before.Add(m.gvar, func);
    after.Add(m.gvar, inlined);
  }
  ASSERT_FALSE(before.members().empty());
  BuildOptions options;
  options.cache_dir = testing::SharedCacheDir();
  KernelLibrary lib_before(BuildKernelLibrary(before, options));
  KernelLibrary lib_after(BuildKernelLibrary(after, options));
  std::mt19937 rng(5);
  int ran = 0;
  auto start = std::chrono::steady_clock::now();
  for (const ir::IRModule::Member& m : before.members()) {
    const auto* func = ir::As<ir::PrimFuncNode>(m.func);
    const std::string& name = m.gvar->name_hint();
    std::vector<std::vector<uint8_t>> mine, theirs;
    std::vector<std::vector<int64_t>> shapes;
    mine.reserve(func->params().size());
    theirs.reserve(func->params().size());
    shapes.reserve(func->params().size());
    std::vector<PipesplitKernelArg> args;
    for (const ir::TirVar& param : func->params()) {
      const ir::Buffer* buffer = func->BufferOf(param.get());
      ASSERT_NE(buffer, nullptr) << name << ": a scalar parameter";
      DataType dtype = (*buffer)->dtype();
      std::optional<std::vector<int64_t>> concrete = testing::ConcreteShape(
          *buffer, [](const ir::TirVar& v) { return CorpusDim(v->name()); });
      ASSERT_TRUE(concrete.has_value()) << name;
      std::vector<int64_t>& shape = shapes.emplace_back(std::move(*concrete));
      int64_t elements = 1;
      for (int64_t extent : shape) elements *= extent;
      std::vector<uint8_t>& bytes = mine.emplace_back(elements * dtype.bytes());
      RandomBytes(&bytes, dtype, &rng);
      theirs.push_back(bytes);
      PipesplitKernelArg arg{};
      arg.shape = shape.data();
      arg.ndim = static_cast<int32_t>(shape.size());
      arg.dtype_code = dtype.is_int() ? 0 : dtype.is_uint() ? 1 : 2;
      arg.dtype_bits = static_cast<uint8_t>(dtype.bits());
      arg.lanes = 1;
      args.push_back(arg);
    }
    for (size_t i = 0; i < args.size(); ++i) args[i].data = mine[i].data();
    ASSERT_EQ(lib_before.Call(name, args), "") << name;
    for (size_t i = 0; i < args.size(); ++i) args[i].data = theirs[i].data();
    ASSERT_EQ(lib_after.Call(name, args), "") << name;
    for (size_t i = 0; i < args.size(); ++i) {
      EXPECT_TRUE(mine[i] == theirs[i]) << name << ": parameter " << i << " differs";
    }
    ++ran;
  }
  std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  std::cout << "ran " << ran << " changed kernels before and after in " << seconds.count()
            << " s\n";
}

}  // namespace
}  // namespace pipesplit::codegen
