// NumPy's .npy format, version 1.0: the magic "\x93NUMPY", the version bytes 1 0, a
// little-endian uint16 header length, an ASCII header (a Python dict literal: descr,
// fortran_order, shape) padded with spaces and a newline so the data starts at a multiple of 64
// bytes, then the elements in C order.
#ifndef PIPESPLIT_RUNTIME_IO_NPY_H_
#define PIPESPLIT_RUNTIME_IO_NPY_H_

#include <string>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

// The bytes of a .npy file holding `tensor` (float16/32/64, int8-64, uint8-64, bool; NumPy has
// no bfloat16 or float8: RuntimeError).
std::string SerializeNpy(const Tensor& tensor);
// Writes them to `path` (through a temporary file renamed into place); RuntimeError
// "<path>: ..." when it cannot.
void WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_NPY_H_
