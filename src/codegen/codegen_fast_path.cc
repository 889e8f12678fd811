// A recognised kernel (fast_path.h) hands its computation to the runtime: the kernel fills a
// PipesplitContraction (kernel_abi.h) from its checked arguments and calls the contraction the
// runtime registered; without one, or when it declines, the kernel runs as written.
#include <string>

#include "src/codegen/kernel_emitter.h"

namespace pipesplit::codegen {

void KernelEmitter::EmitFastPath(const ir::PrimFuncNode& func, const FastContraction& c) {
  auto info = [&](int param) -> const BufferInfo& {
    return buffers_.at(func.BufferOf(func.params()[param].get())->get());
  };
  auto type = [&](DataType dt) {
    auto [code, bits] = AbiType(dt);
    return "PipesplitScalarType{" + std::to_string(code) + ", " + std::to_string(bits) + "}";
  };
  auto dtype_of = [&](int param) { return (*func.BufferOf(func.params()[param].get()))->dtype(); };
  const BufferInfo& out = info(c.out_param);
  const BufferInfo& x = info(c.x_param);
  const BufferInfo& w = info(c.w_param);
  std::string rows = "INT64_C(1)";
  for (size_t d = 0; d + 1 < out.dims.size(); ++d) rows += " * " + out.dims[d];
  Line("if (PipesplitContractFn ps_contract = ps_fast_contract.load(std::memory_order_acquire)) {");
  ++indent_;
  Line("PipesplitContraction ps_c{};");
  Line(std::string("ps_c.weight_format = ") +
       (c.quantized ? "PIPESPLIT_WEIGHT_Q4;" : "PIPESPLIT_WEIGHT_DENSE;"));
  Line("ps_c.m = " + rows + ";");
  Line("ps_c.n = " + out.dims.back() + ";");
  Line("ps_c.k = " + x.dims.back() + ";");
  Line("ps_c.x = " + x.ptr + ";");
  Line("ps_c.x_dtype = " + type(dtype_of(c.x_param)) + ";");
  Line("ps_c.w = " + w.ptr + ";");
  Line("ps_c.w_dtype = " + type(dtype_of(c.w_param)) + ";");
  Line("ps_c.w_row_stride = " + w.dims.back() + ";");
  if (c.quantized) {
    Line("ps_c.scale = " + info(c.scale_param).ptr + ";");
    Line("ps_c.scale_row_stride = " + info(c.scale_param).dims.back() + ";");
    Line("ps_c.scale_dtype = " + type(dtype_of(c.scale_param)) + ";");
    Line("ps_c.group_size = " + IntLiteral(c.group_size) + ";");
    Line("ps_c.zero_point = " + DoubleLiteral(c.zero_point) + ";");
    Line("ps_c.dequant_dtype = " + type(c.dequant) + ";");
  }
  Line("ps_c.product = " + type(c.product) + ";");
  Line("ps_c.num_epilogue = " + std::to_string(c.epilogue.size()) + ";");
  for (size_t i = 0; i < c.epilogue.size(); ++i) {
    const FastEpilogueOp& op = c.epilogue[i];
    const std::string e = "ps_c.epilogue[" + std::to_string(i) + "].";
    const char* kind = op.kind == FastEpilogueOp::Kind::kCast  ? "PIPESPLIT_EPILOGUE_CAST"
                       : op.kind == FastEpilogueOp::Kind::kAdd ? "PIPESPLIT_EPILOGUE_ADD"
                                                               : "PIPESPLIT_EPILOGUE_MULTIPLY";
    Line(e + "kind = " + kind + ";");
    Line(e + "dtype = " + type(op.dtype) + ";");
    if (op.kind != FastEpilogueOp::Kind::kCast) {
      Line(e + "operand = " + info(op.operand_param).ptr + ";");
      Line(e + "operand_dtype = " + type(dtype_of(op.operand_param)) + ";");
      Line(e + "operand_layout = " +
           (op.operand_column ? "PIPESPLIT_OPERAND_COLUMN;" : "PIPESPLIT_OPERAND_FULL;"));
      Line(e + "operand_first = " + (op.operand_first ? "1;" : "0;"));
    }
  }
  Line("ps_c.y = " + out.ptr + ";");
  Line("ps_c.y_dtype = " + type(dtype_of(c.out_param)) + ";");
  Line("const int32_t ps_status = ps_contract(&ps_c, error, static_cast<int64_t>(error_size));");
  Line("if (ps_status != PIPESPLIT_CONTRACT_DECLINED) return ps_status;");
  --indent_;
  Line("}");
}

}  // namespace pipesplit::codegen
