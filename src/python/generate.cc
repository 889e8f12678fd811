// pipesplit._core's generation: `pipesplit generate` from Python (serve/engine/generate.h) on
// worker groups of threads. The module is unsplit (one group) or already split by the
// pipeline-parallel rewrite (the Python layer splits it when asked for several groups). The GIL
// is released while the workers run.
#include "pipesplit/serve/engine/generate.h"

#include <pybind11/stl.h>

#include <chrono>
#include <string>
#include <vector>

#include "pipesplit/runtime/launch/launch.h"
#include "src/python/core.h"

namespace pipesplit::python {
namespace {

struct GenerateArgs {
  int groups = 0;  // 0: the module's stages
  int batches_in_flight = 1;
  int max_new_tokens = 16;
  int max_batch_size = 0;
  double temperature = 0;
  double top_p = 1;
  uint64_t seed = 0;
  int threads_per_group = 1;
  double timeout = 60;
  std::string cache_dir;
  bool check_bounds = false;
  bool keep_logits = false;
};

// {"tokens": [[ids]], "logits": [float32 array (steps, vocab)] (keep_logits),
// "first_token_seconds":
// [...], "seconds", "prefill_steps", "decode_steps", "decode_tokens", "decode_seconds", "groups"}.
py::dict Generate(const ir::IRModule& mod, const py::object& params,
                  const std::vector<std::vector<int32_t>>& prompts, const GenerateArgs& args) {
  std::unique_ptr<runtime::WeightSource> weights = Weights(params);
  serve::GenerateResult result;
  int groups = 0;
  {
    py::gil_scoped_release release;
    std::unique_ptr<runtime::Launcher> launcher = runtime::MakeThreadLauncher();
    const size_t stages = runtime::AnalyzeEntry(mod, serve::serve_fn::kBatchDecode).stages.size();
    groups = launcher->FormGroups({args.groups, 1}, std::max<int>(1, static_cast<int>(stages)))
                 .num_groups;
    serve::GenerateOptions options;
    options.engine.session.num_groups = groups;
    options.engine.session.group_size = 1;
    options.engine.session.timeout =
        std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
    options.engine.session.kernels = LoadKernels(mod, args.cache_dir, args.check_bounds);
    options.engine.session.threads_per_group = args.threads_per_group;
    options.engine.session.blas_threads_per_group = args.threads_per_group;
    options.engine.batches_in_flight = args.batches_in_flight;
    options.max_new_tokens = args.max_new_tokens;
    options.engine.max_batch_size = args.max_batch_size;
    options.sampling = {args.temperature, args.top_p, args.seed};
    options.engine.keep_logits = args.keep_logits;
    result = serve::Generate(*launcher, mod, *weights, prompts, options);
    launcher->Shutdown();
  }
  py::list tokens, logits, first_token;
  for (const serve::RequestOutput& r : result.requests) {
    tokens.append(r.tokens);
    first_token.append(r.first_token_seconds);
    if (!args.keep_logits) continue;
    const size_t steps = r.logits.size(), vocab = steps ? r.logits[0].size() : 0;
    py::array_t<float> array({steps, vocab});
    float* out = array.mutable_data();
    for (size_t i = 0; i < steps; ++i)
      std::copy(r.logits[i].begin(), r.logits[i].end(), out + i * vocab);
    logits.append(array);
  }
  py::dict out;
  out["tokens"] = tokens;
  if (args.keep_logits) out["logits"] = logits;
  out["first_token_seconds"] = first_token;
  out["seconds"] = result.seconds;
  out["prefill_steps"] = result.prefill_steps;
  out["decode_steps"] = result.decode_steps;
  out["decode_tokens"] = result.decode_tokens;
  out["decode_seconds"] = result.decode_seconds;
  out["groups"] = groups;
  return out;
}

}  // namespace

void BindGenerate(py::module_& m) {
  py::class_<GenerateArgs>(m, "GenerateOptions")
      .def(py::init<>())
      .def_readwrite("groups", &GenerateArgs::groups)
      .def_readwrite("batches_in_flight", &GenerateArgs::batches_in_flight)
      .def_readwrite("max_new_tokens", &GenerateArgs::max_new_tokens)
      .def_readwrite("max_batch_size", &GenerateArgs::max_batch_size)
      .def_readwrite("temperature", &GenerateArgs::temperature)
      .def_readwrite("top_p", &GenerateArgs::top_p)
      .def_readwrite("seed", &GenerateArgs::seed)
      .def_readwrite("threads_per_group", &GenerateArgs::threads_per_group)
      .def_readwrite("timeout", &GenerateArgs::timeout)
      .def_readwrite("cache_dir", &GenerateArgs::cache_dir)
      .def_readwrite("check_bounds", &GenerateArgs::check_bounds)
      .def_readwrite("keep_logits", &GenerateArgs::keep_logits);
  m.def("generate", &Generate, py::arg("module"), py::arg("params"), py::arg("prompts"),
        py::arg("options"));
}

}  // namespace pipesplit::python
