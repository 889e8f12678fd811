// Whole files: read-only memory maps (the safetensors reader's file, an MLC folder's shards)
// and writes that leave a file whole or absent (safetensors, .npy).
#ifndef PIPESPLIT_SRC_RUNTIME_IO_MAPPED_FILE_H_
#define PIPESPLIT_SRC_RUNTIME_IO_MAPPED_FILE_H_

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace pipesplit::runtime {

// A file's bytes in memory, released on destruction: a read-only map of the file, or a copy
// in anonymous memory (`region` and `region_size`: what to unmap). An empty file has
// data == nullptr, size 0.
struct MappedFile {
  const unsigned char* data = nullptr;
  size_t size = 0;
  void* region = nullptr;
  size_t region_size = 0;
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
};

// The regular file at `path` in memory, as WeightMemoryMode() says (weights.h): mapped
// (page-aligned), or read into anonymous memory the kernel may back with 2 MiB pages. On
// failure nullptr, and `*error` says why ("cannot open: No such file or directory", "not a
// regular file", ...).
std::shared_ptr<const MappedFile> MapFile(const std::string& path, std::string* error);

// Writes `pieces` one after another to `path`, whole or not at all: into a temporary file next
// to it, renamed over it once complete, so a run that fails (or is killed) midway never leaves a
// truncated file. RuntimeError "<path>: cannot write: <reason>".
void WriteFileAtomically(const std::string& path, std::span<const std::string_view> pieces);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_SRC_RUNTIME_IO_MAPPED_FILE_H_
