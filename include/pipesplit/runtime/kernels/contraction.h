// The fast path of compiled kernels: matmuls and matvecs (weights dense or 4-bit quantized,
// an elementwise epilogue after them) that codegen recognised in a module's TIR and hands to
// the runtime through the kernel ABI (support/kernel_abi.h, PipesplitContraction).
//
// The arithmetic (the same on every instruction set, every thread count and every batch):
//  1. Every operand is widened to float32 exactly: float16 and bfloat16 activations and
//     weights; a 4-bit weight is (q - zero_point) * scale, each step one float32 operation
//     (exact for q4f16_1: an integer below 16 times a float16 has at most 15 significant bits),
//     rounded to float16 when the kernel dequantizes in float16 (the weight the module's own
//     arithmetic multiplies by).
//  2. Dense weights summed in float32 (the kernel's product type): each output sums its K
//     products one after another, k ascending, each product rounded to float32 and added, as
//     the kernel's own loop does (bit for bit its result). Other weights (4-bit, or summed in
//     float16): each output sums its K products in 16 float32 lanes with fused multiply-adds,
//     each lane in ascending k: lane j takes k = 16b + j of every block b of 16 for dense
//     weights, and k = 32b + 2j then 32b + 2j + 1 of every block b of 32 for 4-bit weights
//     (the order the packed nibbles come in). Lanes that run past K add nothing.
//  3. (16 lanes) The lanes are added pairwise: lane j + lane j+8, then j + j+4, j + j+2,
//     j + j+1.
//  4. The sum is rounded to the kernel's product type, then the epilogue runs as the kernel
//     writes it (each operation rounded to its type).
// So an output depends on its own row of x and of w only: not on the other rows of the batch
// (a request's results do not change with what it is batched with), not on how the rows are
// cut among threads or tiles, and not on the instruction set (AVX-512, AVX2 and the portable
// code agree bit for bit). Float32 matmuls keep the kernel's bits; against a float16 kernel's
// written arithmetic (accumulators rounded to float16 after every add, in MLC's CPU modules)
// the result is far closer to the exact value.
#ifndef PIPESPLIT_RUNTIME_KERNELS_CONTRACTION_H_
#define PIPESPLIT_RUNTIME_KERNELS_CONTRACTION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pipesplit/support/kernel_abi.h"

namespace pipesplit::runtime {

// Runs `c` on the calling thread and the kernel threads (threading.h). Returns 0, or
// PIPESPLIT_CONTRACT_DECLINED for a contraction it does not run (a dtype it lacks), or 1 with
// `error` set for malformed input (negative sizes, a missing pointer, K not a multiple of 8
// for 4-bit weights).
int32_t RunContraction(const PipesplitContraction& c, std::string* error);

// The same as a PipesplitContractFn (what the kernel libraries get): counts the calls that ran
// on the calling thread (FastPathCalls).
int32_t ContractEntry(const PipesplitContraction* c, char* error, int64_t error_size);

// How many contractions ran on the calling thread so far (the op profile tells the paths of
// kernel calls apart with it).
int64_t FastPathCalls();

// Whether kernel libraries get the fast path: true unless the environment variable
// PIPESPLIT_FAST_KERNELS is "0" (read once), or as set last by SetFastKernelsEnabled (for the
// libraries loaded after the call).
bool FastKernelsEnabled();
void SetFastKernelsEnabled(bool enabled);

// The instruction sets the contraction kernels have: "avx512", "avx2", "portable".
// ContractionIsa is the one in use: the best the CPU runs, unless PIPESPLIT_CONTRACTION_ISA
// names another one it runs, or SetContractionIsa chose one (an empty name: automatic). An
// unknown name or one the CPU cannot run is an error (std::invalid_argument).
std::string_view ContractionIsa();
void SetContractionIsa(std::string_view isa);
bool CpuRunsIsa(std::string_view isa);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_CONTRACTION_H_
