// A main for the fuzz targets in builds without libFuzzer (gcc, the test build): runs
// LLVMFuzzerTestOneInput once on every file named on the command line or found under a
// directory named there, so ctest replays the seed corpora and saved findings through each
// target. A finding aborts the process, as under libFuzzer.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) RunFile(entry.path()), ++count;
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      RunFile(arg), ++count;
    } else {
      std::fprintf(stderr, "error: no file or directory '%s'\n", argv[i]);
      return 1;
    }
  }
  std::printf("replayed %zu inputs\n", count);
  return 0;
}
