// pipesplit_serving_greedy DIR MAX_NEW_TOKENS OUT.json: greedy generation of every prompt of
// DIR/prompts.json with the serving example in DIR (model.py, params.safetensors) through the
// interpreter, all requests in one paged KV cache; writes {"tokens": ..., "logits": ...} like
// greedy_reference.py does.
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "tests/serving/serving_driver.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DIR MAX_NEW_TOKENS OUT.json\n", argv[0]);
    return 2;
  }
  try {
    using namespace pipesplit::serving_test;
    const std::string dir = argv[1];
    auto model = ServingModel::Load(dir);
    GreedyResult result = Greedy(*model, ReadPrompts(dir + "/prompts.json"), std::stoi(argv[2]));
    std::ofstream(argv[3]) << GreedyJson(result);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
