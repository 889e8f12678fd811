// Read-only memory maps (mapped_file.h).
#include "src/runtime/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime {

MappedFile::~MappedFile() {
  if (data != nullptr) munmap(const_cast<unsigned char*>(data), size);
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
