// pipesplit._core: the private extension module behind the `pipesplit` Python package
// (python/pipesplit/). Its functions take and return plain values; the public API, its
// argument checking and its documentation are in the Python files.
#include "src/python/core.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "pipesplit's C++ core (private: use the pipesplit package)";
  pipesplit::python::RegisterErrorTranslator();
  pipesplit::python::BindCompiler(m);
  pipesplit::python::BindRuntime(m);
  pipesplit::python::BindGenerate(m);
  pipesplit::python::BindModels(m);
}
