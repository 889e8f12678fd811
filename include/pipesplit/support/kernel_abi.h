/* The binary interface between a compiled kernel library and the runtime.
 *
 * codegen turns every PrimFunc of a module into one C++ function with C linkage and compiles
 * them into one shared library; the runtime loads that library with dlopen and calls the
 * kernels through this interface only (it never includes the code generator). This header is
 * plain C so that the generated source can carry its text verbatim.
 *
 * For a PrimFunc named NAME the library exports
 *
 *   int32_t pipesplit_kernel_NAME(const PipesplitKernelArg* args, int32_t num_args,
 *                                 char* error, int64_t error_size);
 *
 * with one argument per PrimFunc parameter, in parameter order: a buffer parameter (T.Buffer,
 * or a T.handle bound by T.match_buffer) takes a PipesplitKernelArg with data, shape and ndim
 * set; a scalar parameter (an int or float var) takes scalar_int or scalar_float. The kernel
 * checks the arity, the ranks, the dtypes and every static dim of its buffers, binds its
 * symbolic dims from the shapes (a dim that contradicts an earlier binding is an error), and
 * returns 0 on success. On failure it returns non-zero and writes a NUL-terminated message of
 * at most error_size bytes into `error` (e.g. "NT_matmul: buffer A: dim 1 is 7, expected 8",
 * or, in a library built with bounds checks, "kernel K: buffer B: index 9 out of bounds for
 * dim 0 of extent 8"). A kernel never aborts the process.
 *
 * The library also exports
 *
 *   int32_t pipesplit_kernel_abi_version(void);   returns PIPESPLIT_KERNEL_ABI_VERSION
 *   const char* pipesplit_kernel_names(void);     the kernel names, separated by '\n'
 *
 * Calls on one kernel may run concurrently on different arguments (kernels keep no state).
 *
 * The runtime's services. A library built by pipesplit codegen also exports
 *
 *   void pipesplit_kernel_set_runtime(const PipesplitKernelRuntime* runtime);
 *   const char* pipesplit_kernel_fast_paths(void);
 *
 * The runtime calls set_runtime once after loading the library (both exports are optional: a
 * library without them is loaded as well, and its kernels run serially as written); the
 * struct is copied. Its fields:
 *
 * - launch: kernels run their parallel loops (T.parallel, and the outer loops of a nest whose
 *   iterations write disjoint outputs) through it. launch(n, grain, task, closure) must call
 *   task(closure, begin, end) on ranges that cover [0, n) exactly once, each range holding at
 *   least `grain` iterations except possibly the last, from any threads, and return when all
 *   calls have returned: 0 when every task returned 0, else non-zero. The runtime decides how
 *   many threads run the tasks; the iterations of one launch write disjoint memory, so a
 *   kernel's results do not depend on the thread count or on how [0, n) is cut. Launches from
 *   inside a task may run serially. NULL: every loop runs serially on the calling thread.
 * - contract: the fast path. Codegen recognises kernels by their computation (a matmul or
 *   matvec, its weight dense or 4-bit quantized, and the elementwise epilogue after it) and
 *   a recognised kernel hands the whole computation to contract(&c, error, error_size) as a
 *   PipesplitContraction after checking its arguments. contract returns 0 when it wrote the
 *   outputs, PIPESPLIT_CONTRACT_DECLINED when it leaves the kernel to run as written, other
 *   values (with a message) on failure. NULL: kernels run as written. The fast path computes
 *   in float32 with fused multiply-adds (the runtime's contraction.h states the arithmetic),
 *   not in the kernel's written order and precision.
 *
 * fast_paths lists the recognised kernels, one "NAME\tDESCRIPTION" line each.
 */
#ifndef PIPESPLIT_SUPPORT_KERNEL_ABI_H_
#define PIPESPLIT_SUPPORT_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PIPESPLIT_KERNEL_ABI_VERSION 2
#define PIPESPLIT_KERNEL_SYMBOL_PREFIX "pipesplit_kernel_"

/* Element types, as DLPack codes: 0 int, 1 uint, 2 float, 4 bfloat; bool is uint of 1 bit. */
typedef struct PipesplitKernelArg {
  void* data;           /* buffer: first element (row-major, dense); scalar: NULL */
  const int64_t* shape; /* buffer: ndim dims; scalar: NULL */
  int32_t ndim;         /* buffer rank; -1 for a scalar */
  uint8_t dtype_code;   /* element (or scalar) type code */
  uint8_t dtype_bits;   /* bits per element: 1, 4, 8, 16, 32, 64 */
  uint16_t lanes;       /* 1 */
  int64_t scalar_int;   /* the value of an integer scalar parameter */
  double scalar_float;  /* the value of a float scalar parameter */
} PipesplitKernelArg;

typedef int32_t (*PipesplitKernelFn)(const PipesplitKernelArg* args, int32_t num_args, char* error,
                                     int64_t error_size);
typedef int32_t (*PipesplitKernelAbiVersionFn)(void);
/* One range [begin, end) of a parallel loop; non-zero when it failed (the kernel keeps the
 * message). */
typedef int32_t (*PipesplitParallelTaskFn)(void* closure, int64_t begin, int64_t end);
typedef int32_t (*PipesplitParallelLaunchFn)(int64_t n, int64_t grain, PipesplitParallelTaskFn task,
                                             void* closure);
typedef const char* (*PipesplitKernelNamesFn)(void);

/* ---- The fast path's contractions.
 *
 * y[m, n] = epilogue(sum over k of x[m, k] * w[n, k]) for m < M, n < N, k < K, all tensors
 * dense and row-major: x is [M][K]; a dense w is [N][K]; a 4-bit w is [N][K/8] uint32 words,
 * element k of row n being bits 4*(k%8) .. 4*(k%8)+3 of word k/8, dequantized as
 * (q - zero_point) * scale[n][k / group_size] with scale [N][ceil(K/group_size)], rounded to
 * dequant_dtype (the type the kernel dequantizes in: float16 rounds it). Rows of w
 * and of the scales may be longer (w_row_stride words or elements, scale_row_stride scales;
 * 0: the lengths above): MLC pads a 4-bit row to whole groups. The sum is
 * rounded to `product` (the dtype the kernel's reduction writes), then each epilogue operation
 * applies in order, its result rounded to its dtype: CAST converts; ADD / MULTIPLY combine
 * with an operand that is either [M][N] (FULL) or [N] (COLUMN, one value per n), on the left
 * when operand_first is 1. y has the last operation's dtype (or product's).
 * Types are (code, bits) as in PipesplitKernelArg: float 16/32, bfloat 16. */
#define PIPESPLIT_WEIGHT_DENSE 0
#define PIPESPLIT_WEIGHT_Q4 1
#define PIPESPLIT_EPILOGUE_CAST 0
#define PIPESPLIT_EPILOGUE_ADD 1
#define PIPESPLIT_EPILOGUE_MULTIPLY 2
#define PIPESPLIT_OPERAND_FULL 0
#define PIPESPLIT_OPERAND_COLUMN 1
#define PIPESPLIT_MAX_EPILOGUE 4
#define PIPESPLIT_CONTRACT_DECLINED 2

typedef struct PipesplitScalarType {
  uint8_t code;
  uint8_t bits;
} PipesplitScalarType;

typedef struct PipesplitEpilogueOp {
  int32_t kind;              /* PIPESPLIT_EPILOGUE_* */
  PipesplitScalarType dtype; /* the result's type */
  int32_t operand_layout;    /* ADD / MULTIPLY: PIPESPLIT_OPERAND_* */
  int32_t operand_first;     /* 1: operand (op) value; 0: value (op) operand */
  PipesplitScalarType operand_dtype;
  const void* operand;
} PipesplitEpilogueOp;

typedef struct PipesplitContraction {
  int32_t weight_format; /* PIPESPLIT_WEIGHT_* */
  int64_t m, n, k;
  const void* x;
  PipesplitScalarType x_dtype;
  const void* w;
  PipesplitScalarType w_dtype; /* dense: the weight's type; 4-bit: uint 32 */
  int64_t w_row_stride;        /* elements (4-bit: words) from one row of w to the next; 0: K (K/8) */
  const void* scale;           /* 4-bit only */
  PipesplitScalarType scale_dtype;
  int64_t scale_row_stride; /* scales from one row to the next; 0: ceil(K / group_size) */
  int64_t group_size;
  double zero_point;
  PipesplitScalarType dequant_dtype; /* 4-bit: float 16 or 32 (0, 0: float 32) */
  PipesplitScalarType product;
  int32_t num_epilogue;
  PipesplitEpilogueOp epilogue[PIPESPLIT_MAX_EPILOGUE];
  void* y;
  PipesplitScalarType y_dtype;
} PipesplitContraction;

typedef int32_t (*PipesplitContractFn)(const PipesplitContraction* c, char* error,
                                       int64_t error_size);

typedef struct PipesplitKernelRuntime {
  PipesplitParallelLaunchFn launch;
  PipesplitContractFn contract;
} PipesplitKernelRuntime;

typedef void (*PipesplitKernelSetRuntimeFn)(const PipesplitKernelRuntime* runtime);
typedef const char* (*PipesplitKernelFastPathsFn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PIPESPLIT_SUPPORT_KERNEL_ABI_H_ */
