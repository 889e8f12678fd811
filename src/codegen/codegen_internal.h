// Internal pieces of the code generator shared by its source files.
#ifndef PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_
#define PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/codegen/fast_path.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::codegen {

// The text of include/pipesplit/support/kernel_abi.h (embedded at build time).
const char* KernelAbiText();
// The text of include/pipesplit/support/float16_bits.h (embedded at build time), and the
// macro settings that come before it in a kernel.
const char* KernelFloat16Text();
const char* KernelFloat16Config();
// The helpers every generated source starts with (after the ABI and float16 texts).
const char* KernelPrelude();

// The C++ function `ps_kernel_body` implementing one PrimFunc (codegen_source.cc): the ABI's
// kernel signature with the kernel's name as a first parameter `ps_kernel` (for its messages),
// so that kernels differing only in name have the same text. `name` appears in codegen errors
// only. With `optimize_loops` false (and always with `check_bounds`) every loop runs serially in
// the written order; else loop nests follow PlanLoopNest and parallel loops use the runtime's
// parallel launch. `cost` (when set) receives an estimate of the compile time: the lines, each
// counted as often as the loops the compiler unrolls copy it. With `fast` (the kernel's fast
// path match) the kernel first hands its computation to the runtime's contraction, when the
// runtime registered one, and runs as written only when there is none or it declines.
std::string EmitKernel(const std::string& name, const ir::PrimFuncNode& func, bool check_bounds,
                       bool optimize_loops, int64_t* cost = nullptr,
                       const FastContraction* fast = nullptr);

// ---- Translation units (codegen_module.cc).

// One PrimFunc's kernel: its name and its `ps_kernel_body` text.
struct KernelUnit {
  std::string name;
  std::string body;
  int64_t cost = 0;  // EmitKernel's compile cost estimate
  // Why codegen could not translate the kernel (empty: it could); its body then only reports
  // this when called (UncompiledKernelBody).
  std::string error;
  // What the fast path recognised the kernel as (fast_path.h), or empty.
  std::string fast_path;
};
// The body of a kernel codegen cannot translate: every call fails with `message`.
std::string UncompiledKernelBody(const std::string& message);
// The kernels of `mod`'s PrimFuncs sorted by name. Throws CodegenError for a name that cannot
// be a symbol; a kernel using a construct codegen does not support gets a body reporting it
// when called (KernelUnit::error).
// `fast_path`: recognised kernels hand their work to the runtime (fast_path.h); `float64`:
// every kernel evaluated in float64 (Float64Evaluation), without a fast path.
std::vector<KernelUnit> GenerateKernelUnits(const ir::IRModule& mod, bool check_bounds,
                                            bool optimize_loops, bool fast_path = true,
                                            bool float64 = false);
// The "NAME\tDESCRIPTION" lines of the kernels the fast path recognised.
std::string FastPathLines(const std::vector<KernelUnit>& units);
// What every kernel source holds first: the ABI text and the prelude.
std::string KernelSourceHeader();

// A kernel body in a translation unit, and the symbol it is called by.
struct UnitKernel {
  const std::string* body;
  std::string symbol;
};
// A translation unit of kernel bodies: a comment, KernelSourceHeader(), and per kernel its body
// (in a unit-local namespace `symbol`_n) and `symbol`(name, args, num_args, error, error_size) with
// C linkage, weak and hidden, running the body; then `set_runtime_symbol`(runtime), which sets
// the unit's parallel launch and fast contraction. `first_lines` (when set) receives the line each body starts on.
std::string KernelUnitSource(const std::vector<UnitKernel>& kernels,
                             const std::string& set_runtime_symbol, bool check_bounds,
                             std::vector<int>* first_lines);

// The library's own unit, linked with the units' objects: the ABI text, the kernels' exported
// entry points (kernel `name` calls `symbol`("name", ...)), their names, the ABI version, and
// the runtime's services handed to every unit's `set_runtime_symbols`, and the kernels' fast
// paths (`fast_paths`: one "NAME\tDESCRIPTION" line per recognised kernel).
struct KernelExport {
  std::string name;
  std::string symbol;
};
std::string LibraryGlueSource(const std::vector<KernelExport>& exports,
                              const std::vector<std::string>& set_runtime_symbols,
                              const std::string& fast_paths);

// A TIR intrinsic call as a C++ expression, given its arguments' C++ expressions
// (codegen_intrinsics.cc). Throws CodegenError naming `kernel` for an unsupported call.
std::string EmitIntrinsic(const std::string& kernel, const ir::PrimCallNode& call,
                          const std::vector<std::string>& args);

// ---- Loop nests (loop_plan.cc; the legality rules are in its header comment).

// How to run a perfect loop nest ending in one block whose results do not depend on the loop
// order of its spatial loops.
struct NestPlan {
  std::vector<const ir::ForNode*> loops;          // outermost first, as written
  const ir::BlockRealizeNode* realize = nullptr;  // the nest's body
  // Per loop: distinct iterations write distinct output elements (an "index loop"); the others
  // ("order loops") must keep their relative order.
  std::vector<bool> is_index;
  // The index loop moved innermost (-1: the written order is kept), and the size of the tiles
  // it is cut into, the tile loop staying at its written place (0: not tiled).
  int moved = -1;
  int64_t tile = 0;
  // The register tile (-1: none): the row loop, another index loop, and the tile's rows and
  // columns (iterations of the row and the moved loop) held in accumulators across the order
  // loops. With a register tile the emitter ignores `tile`.
  int reg_row = -1;
  int64_t reg_rows = 0;
  int64_t reg_cols = 0;
};

// The plan of the perfect nest starting at `outer`, or nullopt when the nest must run as
// written.
std::optional<NestPlan> PlanLoopNest(const ir::ForNode& outer, const ir::PrimFuncNode& func);

// ---- C++ spellings (c_types.cc).

// While one is alive on this thread with `on`, the spellings below evaluate in float64: every
// float16, bfloat16 and float32 value, buffer element and kernel argument is a double and is
// never rounded (BuildOptions::float64_reference).
class Float64Evaluation {
 public:
  explicit Float64Evaluation(bool on);
  ~Float64Evaluation();
  Float64Evaluation(const Float64Evaluation&) = delete;
  Float64Evaluation& operator=(const Float64Evaluation&) = delete;

 private:
  bool previous_;
};
bool InFloat64Evaluation();

// A C string literal of `text`; `name` with every character outside [A-Za-z0-9] made '_'.
std::string Quote(const std::string& text);
std::string Sanitize(const std::string& name);
// Exact literals: an int64_t, a double (hex float, or inf / nan spelled through limits).
std::string IntLiteral(int64_t v);
std::string DoubleLiteral(double v);
bool IsHalf(DataType dt);
bool IsBF16(DataType dt);
bool IsBoolLike(DataType dt);  // bool, or uint of 1 bit
// The C++ type a value of `dt` is computed in (float16 and bfloat16: float) and the type an
// element is stored as (bool: uint8_t, float16 / bfloat16: their bits in uint16_t); nullopt
// for a dtype codegen does not support.
std::optional<std::string> CValueType(DataType dt);
std::optional<std::string> CStorageType(DataType dt);
// The ABI type code and bits of a supported dtype.
std::pair<int, int> AbiTypeOf(DataType dt);
// `e` (computed in float) rounded to the precision of a 16-bit float dtype; others unchanged.
std::string Round(DataType dt, const std::string& e);
// Round(dt, e), or `e` itself when it is already a whole Round(dt, ...) expression (rounding is
// idempotent: the bits of a rounded value survive another rounding).
std::string RoundOnce(DataType dt, const std::string& e);
// A stored element as a value, and a value as a stored element.
std::string FromStorage(DataType dt, const std::string& e);
std::string ToStorageValue(DataType dt, const std::string& storage_type, const std::string& e);

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_
