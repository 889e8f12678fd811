// Read-only memory maps (mapped_file.h).
#include "src/runtime/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// -1: not decided yet; else a WeightMemory.
std::atomic<int> weight_memory{-1};

bool KernelOffersHugePages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string setting;
  std::getline(in, setting);
  return setting.find("[always]") != std::string::npos ||
         setting.find("[madvise]") != std::string::npos;
}

// Reads `size` bytes of `fd` into anonymous memory advised to huge pages. Returns false with
// `error` set when the memory or a read fails.
bool ReadIntoHugePages(int fd, size_t size, MappedFile* out, std::string* error) {
  // A 2 MiB-aligned start, so that every page of the copy can be a huge one.
  const size_t length = (size + kHugePage - 1) / kHugePage * kHugePage + kHugePage;
  void* region =
      ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    *error = std::string("cannot allocate memory for it: ") + std::strerror(errno);
    return false;
  }
  const size_t misalignment = reinterpret_cast<uintptr_t>(region) % kHugePage;
  unsigned char* start =
      static_cast<unsigned char*>(region) + (misalignment == 0 ? 0 : kHugePage - misalignment);
  ::madvise(start, length - kHugePage, MADV_HUGEPAGE);  // advice: failure changes no result
  size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, start + done, std::min<size_t>(size - done, size_t{1} << 26),
                                static_cast<off_t>(done));
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      *error = got < 0 ? std::string("cannot read: ") + std::strerror(errno)
                       : std::string("cannot read: the file is shorter than its size");
      ::munmap(region, length);
      return false;
    }
    done += static_cast<size_t>(got);
  }
  ::mprotect(region, length, PROT_READ);  // weights are read-only, as a mapping would be
  out->data = start;
  out->region = region;
  out->region_size = length;
  return true;
}

}  // namespace

void SetWeightMemoryMode(WeightMemory mode) {
  weight_memory.store(static_cast<int>(mode), std::memory_order_release);
}

WeightMemory WeightMemoryMode() {
  int mode = weight_memory.load(std::memory_order_acquire);
  if (mode < 0) {
    mode = static_cast<int>(KernelOffersHugePages() ? WeightMemory::kHugePages
                                                    : WeightMemory::kMapped);
    weight_memory.store(mode, std::memory_order_release);
  }
  return static_cast<WeightMemory>(mode);
}

MappedFile::~MappedFile() {
  if (region != nullptr) {
    munmap(region, region_size);
  } else if (data != nullptr) {
    munmap(const_cast<unsigned char*>(data), size);
  }
}

std::shared_ptr<const MappedFile> MapFile(const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = std::string("cannot stat: ") + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    *error = "not a regular file";
    return nullptr;
  }
  auto mapping = std::make_shared<MappedFile>();
  mapping->size = static_cast<size_t>(st.st_size);
  if (mapping->size >= kHugePage && WeightMemoryMode() == WeightMemory::kHugePages) {
    const bool read = ReadIntoHugePages(fd, mapping->size, mapping.get(), error);
    ::close(fd);
    return read ? mapping : nullptr;
  }
  if (mapping->size > 0) {
    void* address = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
      *error = std::string("cannot map: ") + std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
    mapping->data = static_cast<const unsigned char*>(address);
  }
  ::close(fd);
  return mapping;
}

void WriteFileAtomically(const std::string& path, std::span<const std::string_view> pieces) {
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(temp.c_str(), "wb"), &std::fclose);
  if (!file) throw RuntimeError(path + ": cannot write: " + std::strerror(errno));
  auto fail = [&](const std::string& reason) {
    file.reset();
    std::remove(temp.c_str());
    throw RuntimeError(path + ": cannot write: " + reason);
  };
  for (std::string_view piece : pieces) {
    if (!piece.empty() && std::fwrite(piece.data(), 1, piece.size(), file.get()) != piece.size()) {
      fail(std::strerror(errno));
    }
  }
  if (std::fflush(file.get()) != 0) fail(std::strerror(errno));
  if (std::fclose(file.release()) != 0) {
    std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    throw RuntimeError(path + ": cannot write: " + reason);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    throw RuntimeError(path + ": cannot write: " + reason);
  }
}

}  // namespace pipesplit::runtime
