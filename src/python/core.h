// The private Python extension pipesplit._core: what its source files share. core.cc defines
// the module and calls the Bind* functions; errors.cc maps every pipesplit error to the
// exceptions of python/pipesplit/errors.py in one place; compiler.cc binds parsing, printing,
// passes, checks and kernel builds; runtime.cc runs modules on worker groups with NumPy arrays
// in and out (zero-copy for contiguous arrays of a dtype the runtime stores); generate.cc
// generates tokens; models.cc builds the example models of the models layer.
#ifndef PIPESPLIT_SRC_PYTHON_CORE_H_
#define PIPESPLIT_SRC_PYTHON_CORE_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::python {

namespace py = pybind11;

// Arrays and tensors (runtime.cc). A read-only runtime::Tensor viewing a C-contiguous aligned
// array's buffer and keeping the array alive (TypeError/ValueError otherwise; `what` names it).
runtime::Tensor TensorView(const py::handle& object, const std::string& what);
// A read-only array viewing `tensor`'s buffer; its base owns the storage.
py::array ArrayView(const runtime::Tensor& tensor);
// packed_params from a safetensors path or a sequence of arrays (field i: the i-th array).
std::unique_ptr<runtime::WeightSource> Weights(const py::object& params);
// The loaded kernel library of `mod`'s PrimFuncs, built through the cache; nullptr without
// kernels. Call without the GIL.
std::shared_ptr<const runtime::KernelLibrary> LoadKernels(const ir::IRModule& mod,
                                                          const std::string& cache_dir,
                                                          bool check_bounds);

// Registers the translator of pipesplit errors (errors.cc).
void RegisterErrorTranslator();
// Module, parse, passes, check, build (compiler.cc).
void BindCompiler(py::module_& m);
// Entry layout, safetensors reading, run (runtime.cc).
void BindRuntime(py::module_& m);
// Token generation from a module in MLC's serving form (generate.cc).
void BindGenerate(py::module_& m);
// The example models as data (models.cc).
void BindModels(py::module_& m);

}  // namespace pipesplit::python

#endif  // PIPESPLIT_SRC_PYTHON_CORE_H_
