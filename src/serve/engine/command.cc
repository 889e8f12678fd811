// Commands on the wire (command.h).
#include "src/serve/engine/command.h"

namespace pipesplit::serve::engine {
namespace {

constexpr int64_t kHeaderWords = 7;

}  // namespace

runtime::Tensor EncodeCommand(const Command& c) {
  std::vector<int64_t> words = {static_cast<int64_t>(c.kind),
                                c.batch,
                                static_cast<int64_t>(c.forks.size() / 3),
                                static_cast<int64_t>(c.remove.size()),
                                static_cast<int64_t>(c.add.size()),
                                static_cast<int64_t>(c.seq_ids.size()),
                                static_cast<int64_t>(c.tokens.size())};
  for (const std::vector<int64_t>* part :
       {&c.forks, &c.remove, &c.add, &c.seq_ids, &c.lengths, &c.tokens}) {
    words.insert(words.end(), part->begin(), part->end());
  }
  return runtime::MakeIntTensor(DataType::Int(64), {static_cast<int64_t>(words.size())}, words);
}

Command DecodeCommand(const runtime::Tensor& t) {
  auto bad = [] { return runtime::RuntimeError("a malformed generation command arrived"); };
  if (t.dtype() != DataType::Int(64) || t.ndim() != 1 || t.numel() < kHeaderWords) throw bad();
  const int64_t* w = t.data<int64_t>();
  Command c;
  if (w[0] < 0 || w[0] > static_cast<int64_t>(StepKind::kStats)) throw bad();
  c.kind = static_cast<StepKind>(w[0]);
  c.batch = w[1];
  if (w[2] < 0 || w[2] > t.numel()) throw bad();
  const int64_t counts[6] = {3 * w[2], w[3], w[4], w[5], w[5], w[6]};
  int64_t total = kHeaderWords;
  for (int64_t n : counts) {
    if (n < 0 || n > t.numel()) throw bad();
    total += n;
  }
  if (total != t.numel()) throw bad();
  const int64_t* p = w + kHeaderWords;
  for (int i = 0; std::vector<int64_t> * part :
                  {&c.forks, &c.remove, &c.add, &c.seq_ids, &c.lengths, &c.tokens}) {
    part->assign(p, p + counts[i]);
    p += counts[i++];
  }
  return c;
}

}  // namespace pipesplit::serve::engine
