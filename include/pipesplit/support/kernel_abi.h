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
 * Parallel loops. A library built by pipesplit codegen also exports
 *
 *   void pipesplit_kernel_set_parallel_launch(PipesplitParallelLaunchFn launch);
 *
 * which the runtime calls once after loading it (the export is optional: a library without it
 * is loaded as well). Its kernels then run their parallel loops (T.parallel, and the outer
 * loops of a nest whose iterations write disjoint outputs) through `launch`:
 * launch(n, grain, task, closure) must call task(closure, begin, end) on ranges that cover
 * [0, n) exactly once, each range holding at least `grain` iterations except possibly the
 * last, from any threads, and return when all calls have returned: 0 when every task returned
 * 0, else non-zero. The runtime decides how many threads run the tasks; the iterations of one
 * launch write disjoint memory, so a kernel's results do not depend on the thread count or on
 * how [0, n) is cut. Launches from inside a task may run serially. Without a registered launch
 * (or with NULL) every loop runs serially on the calling thread.
 */
#ifndef PIPESPLIT_SUPPORT_KERNEL_ABI_H_
#define PIPESPLIT_SUPPORT_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PIPESPLIT_KERNEL_ABI_VERSION 1
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
typedef void (*PipesplitKernelSetParallelLaunchFn)(PipesplitParallelLaunchFn launch);
typedef const char* (*PipesplitKernelNamesFn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PIPESPLIT_SUPPORT_KERNEL_ABI_H_ */
