// pipesplit._core's runtime half: runs a module on worker groups of threads through the launch
// API (runtime/launch/launch.h), as the CLI's `run` does (src/cli/commands_run.cc), with NumPy
// arrays in and out.
//
// No copies: a C-contiguous, aligned array of a dtype the runtime stores becomes a read-only
// runtime::Tensor view of the array's buffer that keeps the array alive (its reference is
// dropped under the GIL when the last tensor viewing it goes); an output tensor becomes a
// read-only array viewing the tensor's buffer, whose base is a capsule owning the storage.
// Tensors are immutable (runtime/tensor/tensor.h), hence read-only outputs; an output may
// even be an input's own buffer (an entry that returns its parameter). The GIL is released
// while kernels are built and the workers run.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/runtime/tensor/value.h"
#include "src/python/core.h"

namespace pipesplit::python {
namespace {

// A shared owner holding a reference to `object`, dropped under the GIL.
std::shared_ptr<const void> KeepAlive(py::object object) {
  return std::shared_ptr<const void>(object.release().ptr(), [](PyObject* p) {
    if (!Py_IsInitialized()) return;  // the interpreter is gone, and the object with it
    py::gil_scoped_acquire gil;
    Py_DECREF(p);
  });
}

// The runtime dtype of an array (TypeError when the runtime cannot store it).
DataType TensorDType(const py::array& array) {
  std::string name = py::str(array.dtype().attr("name"));
  std::optional<DataType> dtype = DataType::Parse(name);
  if (!dtype || !runtime::IsStorableDType(*dtype)) {
    throw py::type_error("arrays of dtype " + name + " cannot be passed to pipesplit");
  }
  return *dtype;
}

}  // namespace

runtime::Tensor TensorView(const py::handle& object, const std::string& what) {
  if (!py::isinstance<py::array>(object)) throw py::type_error(what + ": expected an array");
  py::array array = py::reinterpret_borrow<py::array>(object);
  if (!(array.flags() & py::array::c_style) || !array.attr("flags").attr("aligned").cast<bool>()) {
    throw py::value_error(what + ": the array must be C-contiguous and aligned");
  }
  DataType dtype = TensorDType(array);
  runtime::Shape shape(array.shape(), array.shape() + array.ndim());
  const void* data = array.data();
  return runtime::Tensor::View(dtype, std::move(shape), data, KeepAlive(array));
}

py::array ArrayView(const runtime::Tensor& tensor) {
  DataType dtype = tensor.dtype();
  if (dtype.code() == DataType::Code::kBFloat || (dtype.bits() == 8 && dtype.is_float())) {
    throw py::type_error("pipesplit cannot return a " + dtype.ToString() +
                         " tensor: NumPy has no such dtype");
  }
  auto* owner = new std::shared_ptr<const void>(tensor.storage());
  py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  py::array array(py::dtype(dtype.ToString()), shape, {}, tensor.raw_data(), base);
  array.attr("flags").attr("writeable") = false;
  return array;
}

std::unique_ptr<runtime::WeightSource> Weights(const py::object& params) {
  if (py::isinstance<py::str>(params)) {
    return std::make_unique<runtime::SafetensorsWeights>(
        runtime::SafetensorsFile::Open(params.cast<std::string>()));
  }
  std::vector<runtime::Tensor> tensors;
  for (py::handle item : params) {
    tensors.push_back(TensorView(item, "packed_params field " + std::to_string(tensors.size())));
  }
  return std::make_unique<runtime::InMemoryWeights>(std::move(tensors));
}

std::shared_ptr<const runtime::KernelLibrary> LoadKernels(const ir::IRModule& mod,
                                                          const std::string& cache_dir,
                                                          bool check_bounds) {
  bool has_kernels = std::any_of(mod.members().begin(), mod.members().end(),
                                 [](const auto& m) { return ir::Is<ir::PrimFuncNode>(m.func); });
  if (!has_kernels) return nullptr;
  codegen::BuildOptions build;
  build.cache_dir = cache_dir;
  build.check_bounds = check_bounds;
  return runtime::KernelLibrary::Load(codegen::BuildKernelLibrary(mod, build));
}

namespace {

// The inputs of one micro-batch: an array per tensor parameter, a tuple of ints per shape one.
std::vector<runtime::Value> Inputs(const py::list& items, int microbatch) {
  std::vector<runtime::Value> values;
  for (size_t i = 0; i < items.size(); ++i) {
    py::handle item = items[i];
    if (py::isinstance<py::tuple>(item)) {
      values.push_back(runtime::Value::MakeShape(item.cast<std::vector<int64_t>>()));
    } else {
      std::string what =
          "input " + std::to_string(i) + " of micro-batch " + std::to_string(microbatch);
      values.emplace_back(TensorView(item, what));
    }
  }
  return values;
}

struct RunOptions {
  std::string entry = "main";
  int groups = 0;
  int group_size = 0;
  double timeout = 60;
  std::string cache_dir;
  bool check_bounds = false;
  int threads_per_group = 0;
  int max_in_flight = 2;
};

// The session of a run, formed as the CLI's `run` forms it (commands_run.cc Options and
// ApplyPipelineArgs): groups from the module's stages, kernels built through the cache,
// kernel threads cores / groups unless given or PIPESPLIT_NUM_THREADS is set, OpenBLAS
// threads left alone unless given. Call without the GIL.
runtime::SessionOptions Session(const ir::IRModule& mod, const RunOptions& run,
                                const runtime::Launcher& launcher, int microbatches) {
  runtime::SessionOptions options;
  runtime::EntryLayout layout = runtime::AnalyzeEntry(mod, run.entry);
  int stages = layout.stages.empty() ? 1 : static_cast<int>(layout.stages.size());
  runtime::GroupShape shape = launcher.FormGroups({run.groups, run.group_size}, stages);
  options.num_groups = shape.num_groups;
  options.group_size = shape.group_size;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(run.timeout * 1000));
  options.kernels = LoadKernels(mod, run.cache_dir, run.check_bounds);
  options.num_microbatches = microbatches;
  options.max_in_flight = run.max_in_flight;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.threads_per_group =
      run.threads_per_group > 0 ? run.threads_per_group : std::max(1, cores / options.num_groups);
  if (run.threads_per_group == 0 && std::getenv("PIPESPLIT_NUM_THREADS") != nullptr) {
    options.threads_per_group = 0;
  }
  options.blas_threads_per_group = run.threads_per_group;
  return options;
}

// Runs `mod` on worker threads: microbatches[k] holds micro-batch k's inputs. Returns the
// flattened outputs of every micro-batch.
py::list Run(const ir::IRModule& mod, const py::object& params, const py::list& microbatches,
             const RunOptions& run) {
  std::unique_ptr<runtime::WeightSource> weights = Weights(params);
  std::vector<std::vector<runtime::Value>> inputs;
  for (size_t k = 0; k < microbatches.size(); ++k) {
    inputs.push_back(Inputs(microbatches[k].cast<py::list>(), static_cast<int>(k)));
  }
  runtime::RunResult result;
  {
    py::gil_scoped_release release;
    std::unique_ptr<runtime::Launcher> launcher = runtime::MakeThreadLauncher();
    runtime::SessionOptions options =
        Session(mod, run, *launcher, static_cast<int>(std::max<size_t>(inputs.size(), 1)));
    runtime::ResolveSchedule(options);  // a bad schedule fails before any worker starts
    result = launcher->Run(mod, run.entry, inputs, *weights, options);
    launcher->Shutdown();
  }
  py::list outputs;
  for (const runtime::Value& output : result.outputs) {
    std::vector<runtime::Tensor> flat;
    output.Flatten(&flat);
    py::list arrays;
    for (const runtime::Tensor& t : flat) arrays.append(ArrayView(t));
    outputs.append(arrays);
  }
  return outputs;
}

// The tensors of a safetensors file by name, as read-only arrays viewing the mapped file.
py::dict ReadSafetensors(const std::string& path) {
  runtime::SafetensorsFile file = runtime::SafetensorsFile::Open(path);
  py::dict tensors;
  for (const std::string& name : file.names()) tensors[py::str(name)] = ArrayView(file.Get(name));
  return tensors;
}

// Writes `tensors` ((name, array) pairs, in order) and the __metadata__ entries to `path`.
void WriteSafetensorsFile(const std::string& path, const py::list& tensors,
                          const runtime::SafetensorsMetadata& metadata) {
  std::vector<runtime::NamedTensor> named;
  for (py::handle item : tensors) {
    auto pair = item.cast<py::tuple>();
    std::string name = pair[0].cast<std::string>();
    named.emplace_back(name, TensorView(pair[1], "tensor '" + name + "'"));
  }
  py::gil_scoped_release release;
  runtime::WriteSafetensors(path, named, metadata);
}

// {"inputs": [(name, is_shape)], "packed_params": bool, "stages": [stage function]} of
// `entry` (stages empty when the module is not split).
py::dict EntryLayout(const ir::IRModule& mod, const std::string& entry) {
  runtime::EntryLayout layout = runtime::AnalyzeEntry(mod, entry);
  py::list inputs;
  for (size_t i = 0; i < layout.num_inputs; ++i) {
    const ir::Var& param = layout.func->params()[i];
    inputs.append(
        py::make_tuple(param->name_hint(), ir::Is<ir::ShapeSInfoNode>(param->struct_info())));
  }
  py::dict out;
  out["inputs"] = inputs;
  out["packed_params"] = layout.has_packed_params;
  out["stages"] = layout.stages;
  return out;
}

}  // namespace

void BindRuntime(py::module_& m) {
  py::class_<RunOptions>(m, "RunOptions")
      .def(py::init<>())
      .def_readwrite("entry", &RunOptions::entry)
      .def_readwrite("groups", &RunOptions::groups)
      .def_readwrite("group_size", &RunOptions::group_size)
      .def_readwrite("timeout", &RunOptions::timeout)
      .def_readwrite("cache_dir", &RunOptions::cache_dir)
      .def_readwrite("check_bounds", &RunOptions::check_bounds)
      .def_readwrite("threads_per_group", &RunOptions::threads_per_group)
      .def_readwrite("max_in_flight", &RunOptions::max_in_flight);
  m.def("run", &Run, py::arg("module"), py::arg("params"), py::arg("microbatches"),
        py::arg("options"));
  m.def("read_safetensors", &ReadSafetensors, py::arg("path"));
  m.def("write_safetensors", &WriteSafetensorsFile, py::arg("path"), py::arg("tensors"),
        py::arg("metadata"));
  m.def("entry_layout", &EntryLayout, py::arg("module"), py::arg("entry"));
}

}  // namespace pipesplit::python
