// The private Python extension pipesplit._core: what its source files share. core.cc defines
// the module and calls the Bind* functions; errors.cc maps every pipesplit error to the
// exceptions of python/pipesplit/errors.py in one place; compiler.cc binds parsing, printing,
// passes, checks and kernel builds; runtime.cc runs modules on worker groups with NumPy arrays
// in and out (zero-copy for contiguous arrays of a dtype the runtime stores).
#ifndef PIPESPLIT_SRC_PYTHON_CORE_H_
#define PIPESPLIT_SRC_PYTHON_CORE_H_

#include <pybind11/pybind11.h>

namespace pipesplit::python {

namespace py = pybind11;

// Registers the translator of pipesplit errors (errors.cc).
void RegisterErrorTranslator();
// Module, parse, passes, check, build (compiler.cc).
void BindCompiler(py::module_& m);
// Entry layout, safetensors reading, run (runtime.cc).
void BindRuntime(py::module_& m);

}  // namespace pipesplit::python

#endif  // PIPESPLIT_SRC_PYTHON_CORE_H_
