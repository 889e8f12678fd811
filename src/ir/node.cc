// Pooled node storage behind ir::Make (see node.h): per-thread free lists by 16-byte size
// class, refilled by bumping through 256 KiB chunks that live until the process exits.
#include "pipesplit/ir/node.h"

#include <mutex>
#include <new>
#include <vector>

namespace pipesplit::ir {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

constexpr size_t kGranule = 16;  // also the alignment of every block
constexpr size_t kMaxPooled = 512;
constexpr size_t kClasses = kMaxPooled / kGranule;
constexpr size_t kChunkBytes = 256 * 1024;

struct FreeBlock {
  FreeBlock* next;
};

// Trivially destructible, so a thread's exit frees nothing another thread may still use.
struct ThreadPool {
  FreeBlock* free[kClasses];
  char* cursor;
  char* end;
};
thread_local ThreadPool pool{};

// Every chunk stays reachable from here, so leak checkers do not report the pools.
char* NewChunk() {
  static std::mutex mu;
  static auto* chunks = new std::vector<void*>();
  void* chunk = ::operator new (kChunkBytes, std::align_val_t{kGranule});
  std::lock_guard<std::mutex> lock(mu);
  chunks->push_back(chunk);
  return static_cast<char*>(chunk);
}

}  // namespace

void* PoolAllocate(size_t bytes) {
  if (!kPooled || bytes > kMaxPooled || bytes == 0) return ::operator new(bytes);
  size_t c = (bytes - 1) / kGranule;
  ThreadPool& p = pool;
  if (FreeBlock* block = p.free[c]) {
    p.free[c] = block->next;
    return block;
  }
  size_t size = (c + 1) * kGranule;
  if (static_cast<size_t>(p.end - p.cursor) < size) {  // the old chunk's tail is left unused
    p.cursor = NewChunk();
    p.end = p.cursor + kChunkBytes;
  }
  void* block = p.cursor;
  p.cursor += size;
  return block;
}

void PoolFree(void* block, size_t bytes) {
  if (!kPooled || bytes > kMaxPooled || bytes == 0) return ::operator delete(block);
  size_t c = (bytes - 1) / kGranule;
  ThreadPool& p = pool;
  auto* free_block = static_cast<FreeBlock*>(block);
  free_block->next = p.free[c];
  p.free[c] = free_block;
}

}  // namespace pipesplit::ir
