// Cuts every tensor of a safetensors file into its shards with ShardSingleDim (io/shard.h), for
// shard_reference.py to compare with NumPy. The strategy of tensor `name` is the __metadata__
// entry `name`: "<dim>;<segs, comma-separated, or empty>;<shards>". Writes `<name>.<k>`.
// usage: pipesplit_shard_slices IN.safetensors OUT.safetensors
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/io/shard.h"

int main(int argc, char** argv) {
  using namespace pipesplit::runtime;  // NOLINT
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.safetensors OUT.safetensors\n", argv[0]);
    return 2;
  }
  SafetensorsFile in = SafetensorsFile::Open(argv[1]);
  std::vector<NamedTensor> out;
  for (const auto& [name, spec_text] : in.metadata()) {
    std::vector<std::string> fields;
    std::stringstream ss(spec_text);
    for (std::string field; std::getline(ss, field, ';');) fields.push_back(field);
    if (fields.size() != 3) {
      std::fprintf(stderr, "bad strategy '%s'\n", spec_text.c_str());
      return 2;
    }
    ShardSpec spec{name, std::stoll(fields[0]), {}};
    std::stringstream segs(fields[1]);
    for (std::string seg; std::getline(segs, seg, ',');) spec.segs.push_back(std::stoll(seg));
    const int64_t shards = std::stoll(fields[2]);
    for (int64_t k = 0; k < shards; ++k) {
      out.emplace_back(name + "." + std::to_string(k),
                       ShardSingleDim(in.Get(name), spec, shards, k));
    }
  }
  WriteSafetensors(argv[2], out);
  return 0;
}
