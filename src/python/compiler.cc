// pipesplit._core's compiler half: Module (parse, print), the pass registry, the checks of the
// CLI's `check` and kernel builds. The GIL is released while C++ parses, runs passes, checks
// and compiles, so other Python threads keep running.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/analysis/pipeline_checks.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/script/syntax.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/mlc_partition.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/python/core.h"

namespace pipesplit::python {
namespace {

// The module text as `pipesplit fmt` prints it; `syntax`, `tir_syntax` and `for_tvm_parser` as
// its --syntax, --tir-syntax (None: the module's own) and --for-tvm-parser.
std::string Script(const ir::IRModule& mod, const std::optional<std::string>& syntax,
                   const std::optional<std::string>& tir_syntax, bool for_tvm_parser) {
  script::PrintOptions options;
  options.for_tvm_parser = for_tvm_parser;
  if (syntax) {
    options.syntax = script::ParseSyntaxName(*syntax);
    if (!options.syntax) throw py::value_error("syntax must be 'classic' or 'current'");
  }
  if (tir_syntax) {
    options.tir_syntax = script::ParseTirSyntaxName(*tir_syntax);
    if (!options.tir_syntax) throw py::value_error("tir_syntax must be 'block' or 'sblock'");
  }
  py::gil_scoped_release release;
  return script::PrintModule(mod, options);
}

std::vector<std::string> FunctionNames(const ir::IRModule& mod) {
  std::vector<std::string> names;
  for (const ir::IRModule::Member& member : mod.members()) {
    names.push_back(member.gvar->name_hint());
  }
  return names;
}

ir::IRModule Parse(std::string text, std::string path) {
  py::gil_scoped_release release;
  return script::ParseModule(text, std::move(path));
}

// Runs a pipeline in the CLI's `opt -p` syntax.
ir::IRModule RunPipeline(const ir::IRModule& mod, const std::string& pipeline, bool verify_each) {
  py::gil_scoped_release release;
  std::unique_ptr<transform::Sequential> passes = transform::ParsePipeline(pipeline);
  transform::PassContext ctx;
  ctx.verify_each = verify_each;
  return passes->Run(mod, ctx);
}

// Throws the DiagnosticError of a malformed pipeline (so a pass object fails when made).
void CheckPipeline(const std::string& pipeline) { transform::ParsePipeline(pipeline); }

// (name, summary, [(option, type, help, required)]) of every registered pass.
py::list Passes() {
  static const char* const kTypes[] = {"int", "bool", "str", "list"};
  py::list passes;
  for (const transform::PassInfo& info : transform::RegisteredPasses()) {
    py::list options;
    for (const transform::PassOptionSpec& o : info.options) {
      options.append(py::make_tuple(o.name, kTypes[static_cast<int>(o.type)], o.help, o.required));
    }
    passes.append(py::make_tuple(info.name, info.summary, options));
  }
  return passes;
}

// The CLI's `check`: well-formedness, then the pairing of sends and receives.
void Check(const ir::IRModule& mod) {
  py::gil_scoped_release release;
  std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
  std::vector<Diagnostic> pairing = analysis::CheckSendRecvPairing(mod);
  problems.insert(problems.end(), pairing.begin(), pairing.end());
  if (!problems.empty()) throw DiagnosticError(std::move(problems));
}

// The path of the kernel library of mod's PrimFuncs, built or found in the cache.
std::string Build(const ir::IRModule& mod, const std::string& cache_dir, bool check_bounds,
                  int jobs) {
  codegen::BuildOptions options;
  options.cache_dir = cache_dir;
  options.check_bounds = check_bounds;
  options.jobs = jobs;
  py::gil_scoped_release release;
  return codegen::BuildKernelLibrary(mod, options);
}

// The partition MLC-LLM's loader and KV cache consume (transform/mlc_partition.h) of `mod`, a
// module with stage markers, as split by the pipeline-parallel rewrite: JSON text.
std::string MlcPartition(const ir::IRModule& mod, const std::vector<std::string>& param_names) {
  py::gil_scoped_release release;
  std::vector<transform::StagePlan> plans;
  ir::IRModule split = transform::RewritePipelineStages(mod, &plans);
  transform::MlcPartition partition = transform::ComputeMlcPartition(split, plans, param_names);
  partition.tensor_parallel_shards = runtime::TensorParallelPlanOf(mod).shards;
  return transform::MlcPartitionJson(partition).dump();
}

}  // namespace

void BindCompiler(py::module_& m) {
  py::class_<ir::IRModule>(m, "Module", "an IRModule (immutable)")
      .def("script", &Script, py::arg("syntax") = py::none(), py::arg("tir_syntax") = py::none(),
           py::arg("for_tvm_parser") = false)
      .def_property_readonly("functions", &FunctionNames)
      .def_property_readonly(
          "syntax", [](const ir::IRModule& mod) { return script::SyntaxName(mod.syntax()); })
      .def("has_kernels", [](const ir::IRModule& mod) {
        for (const ir::IRModule::Member& member : mod.members()) {
          if (ir::Is<ir::PrimFuncNode>(member.func)) return true;
        }
        return false;
      });
  m.def("parse", &Parse, py::arg("text"), py::arg("path"));
  m.def("run_pipeline", &RunPipeline, py::arg("module"), py::arg("pipeline"),
        py::arg("verify_each") = false);
  m.def("check_pipeline", &CheckPipeline, py::arg("pipeline"));
  m.def("passes", &Passes);
  m.def("check", &Check, py::arg("module"));
  m.def("mlc_partition", &MlcPartition, py::arg("module"), py::arg("param_names"));
  m.def("build", &Build, py::arg("module"), py::arg("cache_dir"), py::arg("check_bounds"),
        py::arg("jobs"));
}

}  // namespace pipesplit::python
