// Where a run's weights (packed_params) come from: memory, or a safetensors file.
//
// packed_params from a safetensors file: field i is the tensor named at position i of the
// JSON list in __metadata__["packed_params"], or, without that key, the tensor named
// `param_<i>`.
#ifndef PIPESPLIT_RUNTIME_IO_WEIGHTS_H_
#define PIPESPLIT_RUNTIME_IO_WEIGHTS_H_

#include <string>
#include <utility>
#include <vector>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/support/source.h"

namespace pipesplit::runtime {

// How weight files (safetensors files, an MLC folder's shards) are held in memory:
//  - kHugePages: read into anonymous memory advised to the kernel's transparent huge pages
//    (MADV_HUGEPAGE): a decode step streams every weight once, and with 4 KiB pages of a
//    mapped file its address translations (nested ones in a virtual machine) cost as much as
//    the reads (a float16 TinyLlama decodes 1.9x faster). The file is read once at load time
//    and the copy is the process's own memory.
//  - kMapped: mapped read-only (the page cache's pages, shared between processes, faulted in
//    on first use).
// The default is kHugePages where the kernel offers transparent huge pages (its setting is
// `always` or `madvise`), else kMapped; files under 2 MiB are always mapped. Set the mode
// before the files are opened.
enum class WeightMemory { kHugePages, kMapped };
void SetWeightMemoryMode(WeightMemory mode);
WeightMemory WeightMemoryMode();

// Where a weight is stored, for messages.
struct WeightLocation {
  std::string file;  // the file holding it (or its index); empty for weights in memory
  // Where it is described in a text index (MLC's tensor-cache.json): its record, and the
  // record's shape and dtype fields; invalid elsewhere.
  Span record;
  Span shape;
  Span dtype;
};

// Where packed_params field i comes from.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  virtual int64_t size() const = 0;
  virtual std::string Name(int64_t index) const = 0;
  // The tensor of field `index` (RuntimeError if it cannot be loaded).
  virtual Tensor Load(int64_t index) const = 0;
  // The dtype and shape Load(index) gives (by default from Load).
  virtual std::pair<DataType, Shape> TypeOf(int64_t index) const;
  virtual WeightLocation Locate(int64_t /*index*/) const { return {}; }
};

// Weights already in memory (tests, generated examples).
class InMemoryWeights : public WeightSource {
 public:
  explicit InMemoryWeights(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {}
  int64_t size() const override { return static_cast<int64_t>(tensors_.size()); }
  std::string Name(int64_t index) const override { return "param_" + std::to_string(index); }
  Tensor Load(int64_t index) const override;

 private:
  std::vector<Tensor> tensors_;
};

class SafetensorsWeights : public WeightSource {
 public:
  // Validates the naming: every listed name exists, no name is listed twice, and the file
  // holds no tensor outside the list (without the key: only param_<i> tensors numbered
  // 0..n-1). Throws RuntimeError naming the file and tensor.
  explicit SafetensorsWeights(SafetensorsFile file);

  int64_t size() const override { return static_cast<int64_t>(names_.size()); }
  std::string Name(int64_t index) const override;
  Tensor Load(int64_t index) const override;
  WeightLocation Locate(int64_t /*index*/) const override {
    return {file_.display_name(), {}, {}, {}};
  }

 private:
  SafetensorsFile file_;
  std::vector<std::string> names_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_IO_WEIGHTS_H_
