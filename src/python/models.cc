// pipesplit._core's models: the example models of the models layer (models/llama_model.h) as a
// module and NumPy arrays. The weights are the generator's own tensors, viewed without a copy.
#include <pybind11/stl.h>

#include <cctype>
#include <stdexcept>
#include <string>
#include <utility>

#include "pipesplit/models/llama_model.h"
#include "src/python/core.h"

namespace pipesplit::python {
namespace {

// A generator's message with the CLI's flags spelled as the Python keywords: "--kv-heads" is
// "kv_heads".
std::string AsKeywords(const std::string& message) {
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    const bool flag = message.compare(i, 2, "--") == 0 && i + 2 < message.size() &&
                      std::islower(static_cast<unsigned char>(message[i + 2])) &&
                      (i == 0 || message[i - 1] == ' ' || message[i - 1] == '(');
    if (!flag) {
      out += message[i];
      continue;
    }
    for (i += 2; i < message.size() &&
                 (std::islower(static_cast<unsigned char>(message[i])) || message[i] == '-');
         ++i) {
      out += message[i] == '-' ? '_' : message[i];
    }
    --i;
  }
  return out;
}

py::list NamedArrays(const std::vector<runtime::NamedTensor>& tensors) {
  py::list out;
  for (const auto& [name, tensor] : tensors) out.append(py::make_tuple(name, ArrayView(tensor)));
  return out;
}

// {"module", "weights": [(name, array)], "weight_metadata": [(key, value)], "inputs": [(name,
// array)], "prompts": [[ids]], "layer_partition": [...], "kv_heads": k}. An impossible
// configuration raises ValueError.
py::dict Llama(const models::LlamaConfig& config, const std::string& form_name,
               const models::ServingRequests& requests) {
  std::optional<models::LlamaForm> form = models::ParseLlamaForm(form_name);
  if (!form) {
    throw py::value_error("form must be one of " + models::LlamaFormNames() + ", not '" +
                          form_name + "'");
  }
  models::LlamaModel model;
  try {
    py::gil_scoped_release release;
    model = models::BuildLlama(config, *form, requests);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(AsKeywords(e.what()));
  }
  py::dict out;
  out["module"] = model.module;
  out["weights"] = NamedArrays(model.weights);
  out["weight_metadata"] = model.weight_metadata;
  out["inputs"] = NamedArrays(model.inputs);
  out["prompts"] = model.prompts;
  out["layer_partition"] = model.layer_partition;
  out["kv_heads"] = model.kv_heads;
  return out;
}

}  // namespace

void BindModels(py::module_& m) {
  py::class_<models::LlamaConfig>(m, "LlamaConfig")
      .def(py::init<>())
      .def_readwrite("layers", &models::LlamaConfig::layers)
      .def_readwrite("hidden", &models::LlamaConfig::hidden)
      .def_readwrite("heads", &models::LlamaConfig::heads)
      .def_readwrite("kv_heads", &models::LlamaConfig::kv_heads)
      .def_readwrite("ffn", &models::LlamaConfig::ffn)
      .def_readwrite("vocab", &models::LlamaConfig::vocab)
      .def_readwrite("seq", &models::LlamaConfig::seq)
      .def_readwrite("stages", &models::LlamaConfig::stages)
      .def_readwrite("seed", &models::LlamaConfig::seed);
  py::class_<models::ServingRequests>(m, "ServingRequests")
      .def(py::init<>())
      .def_readwrite("requests", &models::ServingRequests::requests)
      .def_readwrite("prompt_len", &models::ServingRequests::prompt_len);
  m.def("llama", &Llama, py::arg("config"), py::arg("form"), py::arg("requests"));
}

}  // namespace pipesplit::python
