// The TIR kernels of the module written for an MLC folder (mlc_llama_kernels.h).
#include "src/models/mlc_llama_kernels.h"

#include <fmt/format.h>

namespace pipesplit::models {
namespace {

std::string I64(int64_t v) { return fmt::format("T.int64({})", v); }

int64_t Groups(int64_t cols) { return (cols + 31) / 32; }

// The rows (b, s) of `form`.
std::string RowsB(const std::string& form) { return form == "mx1" ? "m" : "T.int64(1)"; }
std::string RowsS(const std::string& form) { return form == "1xm" ? "m" : "T.int64(1)"; }

// The blocks unpacking `p`'s q_weight and q_scale into `dequantize` ([rows, cols] float16).
std::string DequantizeBlocks(const KernelWeight& p) {
  const std::string grid = fmt::format("T.grid({}, {})", I64(p.rows), I64(p.cols));
  return fmt::format(
      "        compute = T.alloc_buffer(({0}, {1}), \"float16\")\n"
      "        dequantize = T.alloc_buffer(({0}, {1}), \"float16\")\n"
      "        for i0, i1 in {2}:\n"
      "            with T.block(\"compute\"):\n"
      "                v_i0, v_i1 = T.axis.remap(\"SS\", [i0, i1])\n"
      "                T.reads(q_weight[v_i0, v_i1 // T.int64(8)])\n"
      "                T.writes(compute[v_i0, v_i1])\n"
      "                compute[v_i0, v_i1] = T.Cast(\"float16\", T.bitwise_and(T.shift_right("
      "q_weight[v_i0, v_i1 // T.int64(8)], T.Cast(\"uint32\", v_i1 % T.int64(8) * "
      "T.int64(4))), T.uint32(15)))\n"
      "        for i0, i1 in {2}:\n"
      "            with T.block(\"dequantize\"):\n"
      "                v_i0, v_i1 = T.axis.remap(\"SS\", [i0, i1])\n"
      "                T.reads(compute[v_i0, v_i1], q_scale[v_i0, v_i1 // T.int64(32)])\n"
      "                T.writes(dequantize[v_i0, v_i1])\n"
      "                dequantize[v_i0, v_i1] = (compute[v_i0, v_i1] - T.float16(7.0)) * "
      "q_scale[v_i0, v_i1 // T.int64(32)]\n",
      I64(p.rows), I64(p.cols), grid);
}

// The weight parameters of a kernel reading `p`.
std::string WeightParams(const KernelWeight& p, const std::string& dtype) {
  if (!p.quantized) {
    return fmt::format("w: T.Buffer(({}, {}), \"{}\"), ", I64(p.rows), I64(p.cols), dtype);
  }
  return fmt::format(
      "q_weight: T.Buffer(({0}, {1}), \"uint32\"), q_scale: T.Buffer(({0}, {2}), \"float16\"), ",
      I64(p.rows), I64(Groups(p.cols) * 4), I64(Groups(p.cols)));
}

// out[b, s, n] = sum_k x[b, s, k] * W[n, k], for rows (b, s) of `form`: "1x1", "1xm" or
// "mx1" (m a symbolic var); with `epilogue` "add" plus a residual input, with "cast" as
// float32 (the logits), each a block after the product's as MLC's fusion writes them. Returns
// the kernel's name.
}  // namespace

KernelText NtMatmulKernel(const KernelWeight& p, const std::string& form,
                          const std::string& epilogue, const std::string& dtype) {
  std::string name = fmt::format("{}NT_matmul{}_{}x{}_{}", p.quantized ? "fused_dequantize_" : "",
                                 epilogue.empty() ? "" : "_" + epilogue, p.rows, p.cols, form);
  const std::string b = RowsB(form), s = RowsS(form);
  const std::string w = p.quantized ? "dequantize" : "w";
  const std::string out_shape = fmt::format("{}, {}, {}", b, s, I64(p.rows));
  std::string k = fmt::format(
      "    @T.prim_func(private=True)\n"
      "    def {0}({1}var_x: T.handle, {2}var_out: T.handle):\n"
      "        T.func_attr({{\"tir.noalias\": T.bool(True)}})\n",
      name, WeightParams(p, dtype), epilogue == "add" ? "var_residual: T.handle, " : "");
  if (form != "1x1") k += "        m = T.int64()\n";
  k += fmt::format("        x = T.match_buffer(var_x, ({}, {}, {}), \"{}\")\n", b, s, I64(p.cols),
                   dtype);
  if (epilogue == "add") {
    k += fmt::format("        residual = T.match_buffer(var_residual, ({}), \"{}\")\n", out_shape,
                     dtype);
  }
  k += fmt::format("        out = T.match_buffer(var_out, ({}), \"{}\")\n", out_shape,
                   epilogue == "cast" ? "float32" : dtype);
  const std::string product = epilogue.empty() ? "out" : "NT_matmul";
  if (!epilogue.empty()) {
    k += fmt::format("        NT_matmul = T.alloc_buffer(({}), \"{}\")\n", out_shape, dtype);
  }
  if (p.quantized) k += DequantizeBlocks(p);
  k += fmt::format(
      "        for i0, i1, i2, k in T.grid({0}, {1}, {2}, {3}):\n"
      "            with T.block(\"NT_matmul\"):\n"
      "                v_i0, v_i1, v_i2, v_k = T.axis.remap(\"SSSR\", [i0, i1, i2, k])\n"
      "                T.reads(x[v_i0, v_i1, v_k], {4}[v_i2, v_k])\n"
      "                T.writes({6}[v_i0, v_i1, v_i2])\n"
      "                with T.init():\n"
      "                    {6}[v_i0, v_i1, v_i2] = T.{5}(0)\n"
      "                {6}[v_i0, v_i1, v_i2] = {6}[v_i0, v_i1, v_i2] + "
      "x[v_i0, v_i1, v_k] * {4}[v_i2, v_k]\n",
      b, s, I64(p.rows), I64(p.cols), w, dtype, product);
  if (!epilogue.empty()) {
    const std::string value = epilogue == "add" ? "NT_matmul[v0, v1, v2] + residual[v0, v1, v2]"
                                                : "T.Cast(\"float32\", NT_matmul[v0, v1, v2])";
    k += fmt::format(
        "        for i0, i1, i2 in T.grid({0}, {1}, {2}):\n"
        "            with T.block(\"T_{3}\"):\n"
        "                v0, v1, v2 = T.axis.remap(\"SSS\", [i0, i1, i2])\n"
        "                out[v0, v1, v2] = {4}\n",
        b, s, I64(p.rows), epilogue, value);
  }
  return {std::move(name), std::move(k)};
}

// MLC's rms_norm over rows (b, s) of `form` (TVM's legalization: in float32, the sum of squares
// in k order, rsqrt of its mean plus eps, times x, times the weight, cast back).
KernelText RmsNormKernel(const std::string& form, int64_t hidden, double eps,
                         const std::string& dtype) {
  std::string name = "rms_norm_" + form;
  const std::string b = RowsB(form), s = RowsS(form);
  const std::string h = I64(hidden);
  std::string k = fmt::format(
      "    @T.prim_func(private=True)\n"
      "    def {0}(var_x: T.handle, weight: T.Buffer(({3},), \"{4}\"), var_out: T.handle):\n"
      "        T.func_attr({{\"tir.noalias\": T.bool(True)}})\n",
      name, b, s, h, dtype);
  if (form != "1x1") k += "        m = T.int64()\n";
  k += fmt::format(
      "        x = T.match_buffer(var_x, ({0}, {1}, {2}), \"{3}\")\n"
      "        out = T.match_buffer(var_out, ({0}, {1}, {2}), \"{3}\")\n"
      "        x32 = T.alloc_buffer(({0}, {1}, {2}))\n"
      "        square = T.alloc_buffer(({0}, {1}, {2}))\n"
      "        square_sum = T.alloc_buffer(({0}, {1}))\n"
      "        rsqrt = T.alloc_buffer(({0}, {1}))\n"
      "        weight32 = T.alloc_buffer(({2},))\n"
      "        normed = T.alloc_buffer(({0}, {1}, {2}))\n"
      "        for a0, a1, a2 in T.grid({0}, {1}, {2}):\n"
      "            with T.block(\"T_cast\"):\n"
      "                v0, v1, v2 = T.axis.remap(\"SSS\", [a0, a1, a2])\n"
      "                x32[v0, v1, v2] = T.Cast(\"float32\", x[v0, v1, v2])\n"
      "        for a0, a1, a2 in T.grid({0}, {1}, {2}):\n"
      "            with T.block(\"T_multiply\"):\n"
      "                v0, v1, v2 = T.axis.remap(\"SSS\", [a0, a1, a2])\n"
      "                square[v0, v1, v2] = x32[v0, v1, v2] * x32[v0, v1, v2]\n"
      "        for a0, a1, k2 in T.grid({0}, {1}, {2}):\n"
      "            with T.block(\"T_multiply_red\"):\n"
      "                v0, v1, v_k2 = T.axis.remap(\"SSR\", [a0, a1, k2])\n"
      "                with T.init():\n"
      "                    square_sum[v0, v1] = T.float32(0)\n"
      "                square_sum[v0, v1] = square_sum[v0, v1] + square[v0, v1, v_k2]\n"
      "        for a0, a1 in T.grid({0}, {1}):\n"
      "            with T.block(\"rsqrt\"):\n"
      "                v0, v1 = T.axis.remap(\"SS\", [a0, a1])\n"
      "                rsqrt[v0, v1] = T.rsqrt(square_sum[v0, v1] / T.float32({4}) + "
      "T.float32({5:.17g}))\n"
      "        for a0 in range({2}):\n"
      "            with T.block(\"T_cast_1\"):\n"
      "                v0 = T.axis.spatial({2}, a0)\n"
      "                weight32[v0] = T.Cast(\"float32\", weight[v0])\n"
      "        for a0, a1, a2 in T.grid({0}, {1}, {2}):\n"
      "            with T.block(\"T_rms_norm\"):\n"
      "                v0, v1, v2 = T.axis.remap(\"SSS\", [a0, a1, a2])\n"
      "                normed[v0, v1, v2] = rsqrt[v0, v1] * x32[v0, v1, v2] * weight32[v2]\n"
      "        for a0, a1, a2 in T.grid({0}, {1}, {2}):\n"
      "            with T.block(\"T_cast_2\"):\n"
      "                v0, v1, v2 = T.axis.remap(\"SSS\", [a0, a1, a2])\n"
      "                out[v0, v1, v2] = T.Cast(\"{3}\", normed[v0, v1, v2])\n",
      b, s, h, dtype, static_cast<double>(hidden), eps);
  return {std::move(name), std::move(k)};
}

// take(dequantize(table), ids): only the rows asked for are dequantized.
KernelText DequantizeTakeKernel(const KernelWeight& p) {
  std::string name = fmt::format("fused_dequantize_take_{}x{}", p.rows, p.cols);
  std::string text = fmt::format(
      "    @T.prim_func(private=True)\n"
      "    def {0}({1}var_ids: T.handle, var_out: T.handle):\n"
      "        T.func_attr({{\"tir.noalias\": T.bool(True)}})\n"
      "        m = T.int64()\n"
      "        ids = T.match_buffer(var_ids, (m,), \"int32\")\n"
      "        out = T.match_buffer(var_out, (m, {2}), \"float16\")\n"
      "        for i0, i1 in T.grid(m, {2}):\n"
      "            with T.block(\"take\"):\n"
      "                v_i0, v_i1 = T.axis.remap(\"SS\", [i0, i1])\n"
      "                T.reads(ids[v_i0], q_weight[T.Cast(\"int64\", ids[v_i0]), v_i1 // "
      "T.int64(8)], q_scale[T.Cast(\"int64\", ids[v_i0]), v_i1 // T.int64(32)])\n"
      "                T.writes(out[v_i0, v_i1])\n"
      "                out[v_i0, v_i1] = (T.Cast(\"float16\", T.bitwise_and(T.shift_right("
      "q_weight[T.Cast(\"int64\", ids[v_i0]), v_i1 // T.int64(8)], T.Cast(\"uint32\", "
      "v_i1 % T.int64(8) * T.int64(4))), T.uint32(15))) - T.float16(7.0)) * "
      "q_scale[T.Cast(\"int64\", ids[v_i0]), v_i1 // T.int64(32)]\n",
      name, WeightParams(p, "float16"), I64(p.cols));
  return {std::move(name), std::move(text)};
}

}  // namespace pipesplit::models
