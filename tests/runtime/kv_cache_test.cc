// The attention KV cache builtins, driven by TVMScript programs as the MLC dumps call them,
// and the KvCache object directly (growth, sharing, errors).
#include "pipesplit/runtime/exec/kv_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/script/parser.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

Tensor F32(Shape shape, std::initializer_list<double> values) {
  return MakeTensor(DataType::Float(32), std::move(shape), values);
}

std::vector<double> Iota(int64_t n, double start) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
  return v;
}

class KvCacheTest : public testing::Test {
 protected:
  Value Run(const std::string& text, std::vector<Value> args) {
    mod_ = script::ParseModule(text, "kv_cache.py");
    RegisterCoreBuiltins(&builtins_);
    Interpreter interp(mod_, builtins_);
    return interp.Invoke("main", std::move(args));
  }
  std::string RunError(const std::string& text, std::vector<Value> args) {
    try {
      Run(text, std::move(args));
    } catch (const RuntimeError& e) {
      return e.what();
    }
    return "no error";
  }
  ir::IRModule mod_;
  BuiltinRegistry builtins_;
};

// A module whose main creates a cache from zeros with fill count 0 (reserving 4 rows), appends
// `a` then `b` and returns the view of `view_shape` with both caches (the created and the last
// appended one).
std::string AppendTwiceModule(const std::string& view_shape = "5, 4") {
  return R"(@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 4), dtype="float32"), b: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor(dtype="float32"), R.Object, R.Object):
        init: R.Tensor((4, 4), dtype="float32") = R.zeros(R.shape([4, 4]), dtype="float32")
        cache: R.Object = R.call_packed("vm.builtin.attention_kv_cache_create", init, R.shape([4, 4]), R.prim_value(0), sinfo_args=(R.Object,))
        c1: R.Object = R.call_packed("vm.builtin.attention_kv_cache_append", cache, a, sinfo_args=(R.Object,))
        c2: R.Object = R.call_packed("vm.builtin.attention_kv_cache_append", c1, b, sinfo_args=(R.Object,))
        v: R.Tensor(dtype="float32") = R.call_packed("vm.builtin.attention_kv_cache_view", c2, R.shape([)" +
         view_shape + R"(]), sinfo_args=(R.Tensor(dtype="float32"),))
        return (v, cache, c2)
)";
}

TEST_F(KvCacheTest, AppendsTwiceAndViewsTheFilledRows) {
  Value out = Run(AppendTwiceModule(), {MakeTensor(DataType::Float(32), {2, 4}, Iota(8, 1)),
                                        MakeTensor(DataType::Float(32), {3, 4}, Iota(12, 101))});
  const Value::Tuple& fields = *out.as_tuple();
  const Tensor& view = fields[0].ExpectTensor("view");
  EXPECT_EQ(view.shape(), (Shape{5, 4}));
  EXPECT_EQ(view.dtype(), DataType::Float(32));
  std::vector<double> expected = Iota(8, 1);
  for (double x : Iota(12, 101)) expected.push_back(x);
  EXPECT_EQ(ToDoubleVector(view), expected);
  // append returns the same object: the created cache saw both appends, and grew (4 -> 8 rows).
  EXPECT_EQ(fields[1].as_object(), fields[2].as_object());
  const auto* cache = dynamic_cast<const KvCache*>(fields[1].as_object());
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->fill_count(), 5);
  EXPECT_EQ(cache->reserved_shape(), (Shape{8, 4}));
  EXPECT_EQ(fields[1].Describe(), "kv_cache");
}

TEST_F(KvCacheTest, ViewReshapesToAnyShapeOfTheSameSize) {
  Value out =
      Run(AppendTwiceModule("5, 2, 2"), {MakeTensor(DataType::Float(32), {2, 4}, Iota(8, 0)),
                                         MakeTensor(DataType::Float(32), {3, 4}, Iota(12, 8))});
  const Tensor& view = (*out.as_tuple())[0].ExpectTensor("view");
  EXPECT_EQ(view.shape(), (Shape{5, 2, 2}));
  EXPECT_EQ(ToDoubleVector(view), Iota(20, 0));
}

TEST_F(KvCacheTest, BadViewShapeIsAnError) {
  std::string error =
      RunError(AppendTwiceModule("4, 4"), {MakeTensor(DataType::Float(32), {2, 4}, Iota(8, 0)),
                                           MakeTensor(DataType::Float(32), {3, 4}, Iota(12, 8))});
  EXPECT_THAT(error, HasSubstr("vm.builtin.attention_kv_cache_view: the shape [4, 4] has 16 "
                               "elements, but the cache holds 5 rows of [4] (20 elements)"));
}

TEST_F(KvCacheTest, AppendDTypeMismatchIsAnError) {
  std::string error = RunError(R"(@I.ir_module
class Module:
    @R.function
    def main(init: R.Tensor((2, 4), dtype="float32"), a: R.Tensor((1, 4), dtype="float16")) -> R.Object:
        cache: R.Object = R.call_packed("vm.builtin.attention_kv_cache_create", init, R.shape([2, 4]), R.prim_value(0), sinfo_args=(R.Object,))
        c1: R.Object = R.call_packed("vm.builtin.attention_kv_cache_append", cache, a, sinfo_args=(R.Object,))
        return c1
)",
                               {F32({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0}),
                                MakeTensor(DataType::Float(16), {1, 4}, {1, 2, 3, 4})});
  EXPECT_THAT(error, HasSubstr("vm.builtin.attention_kv_cache_append: dtype mismatch, the cache "
                               "holds float32 but the value is float16[1, 4]"));
}

TEST_F(KvCacheTest, WrongArgumentKindsAreErrors) {
  // The module passes its parameters straight to one builtin call.
  auto call = [&](const std::string& symbol, const std::string& args, std::vector<Value> values) {
    return RunError(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), s: R.Shape([2, 4])) -> R.Object:
        r: R.Object = R.call_packed(")" +
                        symbol + "\", " + args + R"(, sinfo_args=(R.Object,))
        return r
)",
                    std::move(values));
  };
  std::vector<Value> xs = {F32({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0}), Value::MakeShape({2, 4})};
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_append", "x, x", xs),
              HasSubstr("vm.builtin.attention_kv_cache_append: the first argument must be a kv "
                        "cache, got tensor float32[2, 4]"));
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_view", "x, s", xs),
              HasSubstr("vm.builtin.attention_kv_cache_view: the first argument must be a kv "
                        "cache, got tensor float32[2, 4]"));
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_create", "s, s, R.prim_value(0)", xs),
              HasSubstr("vm.builtin.attention_kv_cache_create: the initial data must be a "
                        "tensor, got shape [2, 4]"));
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_create", "x, x, R.prim_value(0)", xs),
              HasSubstr("vm.builtin.attention_kv_cache_create: the reserve shape must be a "
                        "shape, got tensor float32[2, 4]"));
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_create", "x, s, R.prim_value(T.float32(0))", xs),
              HasSubstr("vm.builtin.attention_kv_cache_create: the fill count must be an integer "
                        "prim value"));
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_create", "x, s", xs),
              HasSubstr("vm.builtin.attention_kv_cache_create takes 3 arguments, got 2"));
  EXPECT_THAT(call("vm.builtin.attention_kv_cache_append", "x", xs),
              HasSubstr("vm.builtin.attention_kv_cache_append takes 2 arguments, got 1"));
}

TEST(KvCache, GrowsByDoublingAndKeepsEarlierViews) {
  std::shared_ptr<KvCache> cache =
      KvCache::Create(MakeTensor(DataType::Float(32), {1, 2}, {0, 0}), {1, 2}, 0);
  EXPECT_EQ(cache->reserved_shape(), (Shape{1, 2}));
  cache->Append(F32({1, 2}, {1, 2}));
  EXPECT_EQ(cache->reserved_shape(), (Shape{1, 2}));  // exactly full, no growth
  Tensor first = cache->View({1, 2});
  cache->Append(F32({1, 2}, {3, 4}));
  EXPECT_EQ(cache->reserved_shape(), (Shape{2, 2}));
  cache->Append(F32({3, 2}, {5, 6, 7, 8, 9, 10}));  // 5 rows: 2 -> 4 -> 8
  EXPECT_EQ(cache->reserved_shape(), (Shape{8, 2}));
  EXPECT_EQ(cache->fill_count(), 5);
  EXPECT_EQ(ToDoubleVector(cache->View({5, 2})), Iota(10, 1));
  EXPECT_EQ(ToDoubleVector(cache->View({10})), Iota(10, 1));
  // A view taken before growth and appends still shows what it showed.
  EXPECT_EQ(ToDoubleVector(first), (std::vector<double>{1, 2}));
  // Appending zero rows is allowed and changes nothing.
  cache->Append(MakeTensor(DataType::Float(32), {0, 2}, {}));
  EXPECT_EQ(cache->fill_count(), 5);
}

TEST(KvCache, CreateCopiesTheFirstFillCountRowsOfTheInitialData) {
  std::shared_ptr<KvCache> cache =
      KvCache::Create(MakeIntTensor(DataType::Int(32), {3, 2}, {1, 2, 3, 4, 5, 6}), {4, 2}, 2);
  EXPECT_EQ(cache->dtype(), DataType::Int(32));
  EXPECT_EQ(cache->fill_count(), 2);
  cache->Append(MakeIntTensor(DataType::Int(32), {1, 2}, {7, 8}));
  EXPECT_EQ(ToInt64Vector(cache->View({3, 2})), (std::vector<int64_t>{1, 2, 3, 4, 7, 8}));
  // A fill count above the reserve grows the buffer at creation.
  EXPECT_EQ(KvCache::Create(MakeIntTensor(DataType::Int(32), {3, 2}, {1, 2, 3, 4, 5, 6}), {1, 2}, 3)
                ->reserved_shape(),
            (Shape{4, 2}));
  // A reserve of zero rows grows from one row.
  std::shared_ptr<KvCache> empty =
      KvCache::Create(MakeIntTensor(DataType::Int(32), {0, 2}, {}), {0, 2}, 0);
  empty->Append(MakeIntTensor(DataType::Int(32), {1, 2}, {1, 2}));
  EXPECT_EQ(empty->reserved_shape(), (Shape{1, 2}));
  EXPECT_EQ(ToInt64Vector(empty->View({1, 2})), (std::vector<int64_t>{1, 2}));
}

std::string Error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "no error";
}

TEST(KvCache, ErrorsNameTheBuiltinAndTheMismatch) {
  Tensor init = F32({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(Error([&] { KvCache::Create(init, {}, 0); }),
            "vm.builtin.attention_kv_cache_create: the reserve shape must have at least one "
            "dim, got []");
  EXPECT_EQ(Error([&] {
              KvCache::Create(init, {2, 4}, -1);
            }),
            "vm.builtin.attention_kv_cache_create: the fill count must be >= 0, got -1");
  EXPECT_EQ(Error([&] {
              KvCache::Create(init, {8, 3}, 1);
            }),
            "vm.builtin.attention_kv_cache_create: the initial data float32[2, 4] does not "
            "match the reserve shape [8, 3] in the dims after the first");
  EXPECT_EQ(Error([&] {
              KvCache::Create(init, {8, 4}, 3);
            }),
            "vm.builtin.attention_kv_cache_create: the fill count 3 exceeds the rows of the "
            "initial data float32[2, 4]");
  std::shared_ptr<KvCache> cache = KvCache::Create(init, {8, 4}, 0);
  EXPECT_EQ(Error([&] {
              cache->Append(F32({1, 3}, {1, 2, 3}));
            }),
            "vm.builtin.attention_kv_cache_append: the value float32[1, 3] must have the "
            "cache's dims after the first, [4]");
  EXPECT_EQ(Error([&] { cache->Append(MakeScalar(DataType::Float(32), 1)); }),
            "vm.builtin.attention_kv_cache_append: the value float32[] must have the cache's "
            "dims after the first, [4]");
  EXPECT_EQ(Error([&] {
              cache->View({1, 4});
            }),
            "vm.builtin.attention_kv_cache_view: the shape [1, 4] has 4 elements, but the "
            "cache holds 0 rows of [4] (0 elements)");
  EXPECT_EQ(cache->fill_count(), 0);  // failed appends leave the cache as it was
}

}  // namespace
}  // namespace pipesplit::runtime
