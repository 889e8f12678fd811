// The runtime's reference kernels: plain C++ functions on Tensors, one per Relax op,
// grouped by family. Include this header for all of them.
//
//   elementwise.h  add ... power, comparisons, logical ops, unary math, activations, where,
//                  clip, astype
//   linalg.h       matmul (OpenBLAS)
//   manipulate.h   permute_dims, reshape, expand_dims, squeeze, flatten, broadcast_to,
//                  concat, split, strided_slice, take
//   reduce.h       sum, mean, max, min, prod, argmax, argmin, softmax, log_softmax,
//                  rms_norm, layer_norm
//   create.h       zeros, ones, full, arange, triu, tril
//   threading.h    the number of threads kernels may use
//
// Every kernel is deterministic: the same inputs give bit-identical outputs on every run,
// whatever the number of threads (threading.h). Bad inputs throw RuntimeError
// with a lowercase message naming the op.
#ifndef PIPESPLIT_RUNTIME_KERNELS_KERNELS_H_
#define PIPESPLIT_RUNTIME_KERNELS_KERNELS_H_

#include "pipesplit/runtime/kernels/create.h"
#include "pipesplit/runtime/kernels/elementwise.h"
#include "pipesplit/runtime/kernels/linalg.h"
#include "pipesplit/runtime/kernels/manipulate.h"
#include "pipesplit/runtime/kernels/reduce.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/runtime/tensor/tensor.h"

#endif  // PIPESPLIT_RUNTIME_KERNELS_KERNELS_H_
