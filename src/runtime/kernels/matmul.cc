// relax.matmul: batched, broadcasting matrix multiplication on OpenBLAS (float32/float64)
// or plain loops (integers).
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

#include "pipesplit/runtime/kernels/elementwise.h"
#include "pipesplit/runtime/kernels/linalg.h"
#include "src/runtime/kernels/blas.h"
#include "src/runtime/kernels/kernel_util.h"
#include "src/runtime/kernels/parallel.h"

namespace pipesplit::runtime {

namespace {

std::atomic<int> blas_threads{1};

// Sets the loaded library's thread count (another BLAS has no such control: nothing to do).
void ApplyBlasThreads(const blas::Api& api) {
  if (api.set_num_threads != nullptr) api.set_num_threads(blas_threads.load());
}

// Loads OpenBLAS on the first gemm (src/runtime/kernels/blas.h says why) with the thread count set.
const blas::Api& EnsureBlasConfigured() {
  static std::once_flag once;
  const blas::Api& api = blas::Get();
  std::call_once(once, [&] { ApplyBlasThreads(api); });
  return api;
}

// The problem after 1-D promotion, transposition and batch broadcasting.
struct MatmulPlan {
  int64_t m = 0, n = 0, k = 0;
  Shape out_shape;
  // Element offsets of each output batch's A and B matrices.
  std::vector<int64_t> a_offsets, b_offsets;
  // B has a single matrix and A's batches are contiguous: one gemm with M = batches * m.
  bool fold_batches = false;
};

[[noreturn]] void ThrowShapes(const Tensor& a, const Tensor& b, const std::string& what) {
  detail::ThrowError("matmul: " + what + " (shapes " + ShapeToString(a.shape()) + " and " +
                     ShapeToString(b.shape()) + ")");
}

MatmulPlan Plan(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  if (a.ndim() == 0 || b.ndim() == 0) ThrowShapes(a, b, "operands must have at least one dim");
  if ((ta && a.ndim() < 2) || (tb && b.ndim() < 2)) {
    ThrowShapes(a, b, "a transposed operand must have at least two dims");
  }
  const bool a_vec = a.ndim() == 1;
  const bool b_vec = b.ndim() == 1;
  MatmulPlan plan;
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  const size_t an = as.size();
  const size_t bn = bs.size();
  plan.m = a_vec ? 1 : (ta ? as[an - 1] : as[an - 2]);
  plan.k = a_vec ? as[0] : (ta ? as[an - 2] : as[an - 1]);
  const int64_t kb = b_vec ? bs[0] : (tb ? bs[bn - 1] : bs[bn - 2]);
  plan.n = b_vec ? 1 : (tb ? bs[bn - 2] : bs[bn - 1]);
  if (plan.k != kb) {
    ThrowShapes(
        a, b,
        "reduction dims " + std::to_string(plan.k) + " and " + std::to_string(kb) + " differ");
  }
  const Shape a_batch(as.begin(), as.end() - (a_vec ? 1 : 2));
  const Shape b_batch(bs.begin(), bs.end() - (b_vec ? 1 : 2));
  const size_t nb = std::max(a_batch.size(), b_batch.size());
  Shape out_batch(nb);
  for (size_t i = 0; i < nb; ++i) {
    const int64_t da = i < nb - a_batch.size() ? 1 : a_batch[i - (nb - a_batch.size())];
    const int64_t db = i < nb - b_batch.size() ? 1 : b_batch[i - (nb - b_batch.size())];
    if (da != db && da != 1 && db != 1) ThrowShapes(a, b, "batch dims cannot be broadcast");
    out_batch[i] = da == 1 ? db : da;
  }
  plan.out_shape = out_batch;
  if (!a_vec) plan.out_shape.push_back(plan.m);
  if (!b_vec) plan.out_shape.push_back(plan.n);

  const int64_t batches = ShapeNumel(out_batch, "matmul");
  const int64_t b_batches = ShapeNumel(b_batch, "matmul");
  plan.fold_batches = b_batches == 1 && !ta;
  if (plan.fold_batches) return plan;
  // Offsets by an odometer over the output batch dims, with broadcast dims not advancing.
  const int64_t a_mat = plan.m * plan.k;
  const int64_t b_mat = plan.k * plan.n;
  std::vector<int64_t> a_stride(nb, 0), b_stride(nb, 0);
  int64_t ra = a_mat, rb = b_mat;
  for (size_t i = nb; i-- > 0;) {
    const int64_t da = i < nb - a_batch.size() ? 1 : a_batch[i - (nb - a_batch.size())];
    const int64_t db = i < nb - b_batch.size() ? 1 : b_batch[i - (nb - b_batch.size())];
    a_stride[i] = da == 1 ? 0 : ra;
    b_stride[i] = db == 1 ? 0 : rb;
    ra *= da;
    rb *= db;
  }
  std::vector<int64_t> index(nb, 0);
  int64_t ao = 0, bo = 0;
  for (int64_t batch = 0; batch < batches; ++batch) {
    plan.a_offsets.push_back(ao);
    plan.b_offsets.push_back(bo);
    for (size_t d = nb; d-- > 0;) {
      ao += a_stride[d];
      bo += b_stride[d];
      if (++index[d] < out_batch[d]) break;
      ao -= a_stride[d] * out_batch[d];
      bo -= b_stride[d] * out_batch[d];
      index[d] = 0;
    }
  }
  return plan;
}

// One row-major C = op(A) @ op(B) call on sub-blocks of the operands.
template <typename T>
struct GemmTask {
  int64_t m, n, k;
  const T* a;
  const T* b;
  T* c;
  int64_t lda, ldb, ldc;
};

template <typename T>
void RunGemm(bool ta, bool tb, const GemmTask<T>& t) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const int64_t biggest = std::max({t.m, t.n, t.k, t.lda, t.ldb, t.ldc});
    if (biggest <= INT_MAX) {  // BLAS takes int dims; larger ones use the loops below
      const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans;
      const CBLAS_TRANSPOSE opb = tb ? CblasTrans : CblasNoTrans;
      const int m = static_cast<int>(t.m), n = static_cast<int>(t.n), k = static_cast<int>(t.k);
      const int lda = static_cast<int>(t.lda), ldb = static_cast<int>(t.ldb);
      const int ldc = static_cast<int>(t.ldc);
      if constexpr (std::is_same_v<T, float>) {
        blas::Get().sgemm(CblasRowMajor, opa, opb, m, n, k, 1.0f, t.a, lda, t.b, ldb, 0.0f, t.c,
                          ldc);
      } else {
        blas::Get().dgemm(CblasRowMajor, opa, opb, m, n, k, 1.0, t.a, lda, t.b, ldb, 0.0, t.c, ldc);
      }
      return;
    }
  }
  // i-k-j loops; integers wrap.
  for (int64_t i = 0; i < t.m; ++i) {
    T* row = t.c + i * t.ldc;
    for (int64_t j = 0; j < t.n; ++j) row[j] = T(0);
    for (int64_t kk = 0; kk < t.k; ++kk) {
      const T av = ta ? t.a[kk * t.lda + i] : t.a[i * t.lda + kk];
      for (int64_t j = 0; j < t.n; ++j) {
        const T bv = tb ? t.b[j * t.ldb + kk] : t.b[kk * t.ldb + j];
        if constexpr (std::is_integral_v<T>) {
          row[j] = detail::WrapAdd(row[j], detail::WrapMul(av, bv));
        } else {
          row[j] += av * bv;
        }
      }
    }
  }
}

// Work split: a gemm with at least kParallelMacs multiply-adds is cut into kSplit column
// blocks (or row blocks when it is narrow), each a multiple of kAlign wide and at least
// kMinBlock. The cut depends on the shapes only, so every thread count computes each output
// element with the same call. Few large blocks rather than many small ones: each OpenBLAS call
// packs its operands again, and on one thread a forward of the example Llama ran about 7% of
// its matmul time slower with 256-column blocks than with whole gemms.
constexpr int64_t kParallelMacs = int64_t{1} << 21;
constexpr int64_t kSplit = 2;
constexpr int64_t kAlign = 64;
constexpr int64_t kMinBlock = 128;

// The block size that cuts `extent` into kSplit blocks, or 0 when it is too small to cut.
int64_t SplitBlock(int64_t extent) {
  if (extent < kSplit * kMinBlock) return 0;
  const int64_t per = (extent + kSplit - 1) / kSplit;
  return (per + kAlign - 1) / kAlign * kAlign;
}

template <typename T>
void AddTasks(std::vector<GemmTask<T>>* tasks, bool ta, bool tb, const GemmTask<T>& whole) {
  const double macs =
      static_cast<double>(whole.m) * static_cast<double>(whole.n) * static_cast<double>(whole.k);
  const bool parallel = macs >= static_cast<double>(kParallelMacs);
  const int64_t block_n = SplitBlock(whole.n);
  const int64_t block_m = SplitBlock(whole.m);
  if (parallel && block_n > 0) {
    for (int64_t j = 0; j < whole.n; j += block_n) {
      GemmTask<T> t = whole;
      t.n = std::min(block_n, whole.n - j);
      t.b = whole.b + (tb ? j * whole.ldb : j);
      t.c = whole.c + j;
      tasks->push_back(t);
    }
  } else if (parallel && block_m > 0) {
    for (int64_t i = 0; i < whole.m; i += block_m) {
      GemmTask<T> t = whole;
      t.m = std::min(block_m, whole.m - i);
      t.a = whole.a + (ta ? i : i * whole.lda);
      t.c = whole.c + i * whole.ldc;
      tasks->push_back(t);
    }
  } else {
    tasks->push_back(whole);
  }
}

}  // namespace

void SetBlasThreads(int threads) {
  blas_threads.store(std::max(threads, 1));
  if (blas::Loaded()) ApplyBlasThreads(blas::Get());  // else applied when it is loaded
}

int GetBlasThreads() { return blas_threads.load(); }

Tensor Matmul(const Tensor& a_in, const Tensor& b_in, DataType out_dtype, bool transpose_a,
              bool transpose_b) {
  DataType compute = out_dtype;
  if (compute.is_void()) {
    detail::CheckSameDType("matmul", a_in, b_in);
    compute = a_in.dtype();
  }
  for (DataType dtype : {a_in.dtype(), b_in.dtype(), compute}) {
    const detail::ElemKind kind = detail::KindOf(dtype);
    if (kind == detail::ElemKind::kBool || kind == detail::ElemKind::kStorageOnly ||
        kind == detail::ElemKind::kInvalid) {
      detail::ThrowUnsupportedDType("matmul", dtype);
    }
  }
  const MatmulPlan plan = Plan(a_in, b_in, transpose_a, transpose_b);
  const Tensor a = detail::WidenHalf(Astype(a_in, compute));
  const Tensor b = detail::WidenHalf(Astype(b_in, compute));
  Tensor result = detail::DispatchArith(a.dtype(), "matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    TensorBuilder out(a.dtype(), plan.out_shape);
    T* c = out.data<T>();
    if (out.numel() == 0) return std::move(out).Publish();
    if (plan.k == 0) {
      std::fill(c, c + out.numel(), T(0));
      return std::move(out).Publish();
    }
    EnsureBlasConfigured();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    const int64_t lda = transpose_a ? plan.m : plan.k;
    const int64_t ldb = transpose_b ? plan.k : plan.n;
    std::vector<GemmTask<T>> tasks;
    if (plan.fold_batches) {
      const int64_t rows = out.numel() / plan.n;
      AddTasks(&tasks, false, transpose_b, {rows, plan.n, plan.k, pa, pb, c, plan.k, ldb, plan.n});
    } else {
      const int64_t c_mat = plan.m * plan.n;
      for (size_t i = 0; i < plan.a_offsets.size(); ++i) {
        AddTasks(&tasks, transpose_a, transpose_b,
                 {plan.m, plan.n, plan.k, pa + plan.a_offsets[i], pb + plan.b_offsets[i],
                  c + static_cast<int64_t>(i) * c_mat, lda, ldb, plan.n});
      }
    }
    const bool ta = transpose_a && !plan.fold_batches;
    detail::ParallelFor(static_cast<int64_t>(tasks.size()),
                        [&](int64_t i) { RunGemm(ta, transpose_b, tasks[i]); });
    return std::move(out).Publish();
  });
  return detail::NarrowTo(result, compute);
}

}  // namespace pipesplit::runtime
