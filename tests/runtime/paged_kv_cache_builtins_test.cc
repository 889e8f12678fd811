// The paged KV cache builtins (paged_kv_cache.h): the arguments of
// vm.builtin.paged_attention_kv_cache_create as MLC passes them (including the layer partition of
// a worker group), every misuse as a named RuntimeError, and a TVMScript module creating the
// cache and running attention layers through the interpreter, checked against the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/exec/paged_kv_cache.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "tests/runtime/paged_kv_reference.h"

namespace pipesplit::runtime {
namespace {

using ::testing::HasSubstr;

Value Int(int64_t v) { return Value::MakePrim({DataType::Int(64), v, 0}); }
Value Float(double v) { return Value::MakePrim({DataType::Float(64), 0, v}); }
Value Shp(Shape s) { return Value::MakeShape(std::move(s)); }

// The 28 arguments of the create call for h_q = 4, h_kv = 2, d = 8, max_total_seq_len 100
// (8 pages of 16), float32; the TIR kernel slots are empty tuples.
std::vector<Value> CreateArgs(Shape partition = {0, 2}, Shape kinds = {0, 0}) {
  std::vector<Value> args = {Shp({4, 100, 64, 16, 0}),
                             Shp(std::move(partition)),
                             Int(4),
                             Int(2),
                             Int(8),
                             Int(8),
                             Shp(std::move(kinds)),
                             Int(0),
                             Int(1),
                             Float(1),
                             Float(10000),
                             Int(0),
                             MakeScalar(DataType::Float(32), 0)};
  while (args.size() < 28) args.push_back(Value::MakeTuple({}));
  return args;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PagedKvCacheCreate, ReadsMlcArguments) {
  PagedKvCacheConfig c = PagedKvCacheConfigFromArgs(CreateArgs(), {});
  EXPECT_EQ(c.page_size, 16);
  EXPECT_EQ(c.num_pages, 8);  // ceil(100 / 16) + 1
  EXPECT_EQ(c.num_layers, 2);
  EXPECT_EQ(c.layer_begin, 0);
  EXPECT_EQ(c.layer_end, 2);
  EXPECT_EQ(c.num_qo_heads, 4);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 8);
  EXPECT_EQ(c.rope_mode, RopeMode::kNormal);
  EXPECT_EQ(c.rope_scale, 1);
  EXPECT_EQ(c.rope_theta, 10000);
  EXPECT_EQ(c.dtype, DataType::Float(32));
  // 29 arguments and the 6-entry cache config (with the sliding window size) are accepted too.
  std::vector<Value> args = CreateArgs();
  args[0] = Shp({4, 96, 64, 16, 0, 1024});
  args[12] = MakeScalar(DataType::Float(16), 0);
  args.push_back(Value::MakeTuple({}));
  c = PagedKvCacheConfigFromArgs(args, {});
  EXPECT_EQ(c.num_pages, 7);
  EXPECT_EQ(c.dtype, DataType::Float(16));
  EXPECT_EQ(c.llama3.factor, 0);  // plain RoPE
  // The module pipesplit writes for a Llama 3.1 folder passes its rope_scaling in argument 11.
  args[11] = Value::MakeString(R"({"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": )"
                               R"(1.0, "original_max_position_embeddings": 8192, )"
                               R"("rope_type": "llama3"})");
  c = PagedKvCacheConfigFromArgs(args, {});
  EXPECT_EQ(c.llama3.factor, 8);
  EXPECT_EQ(c.llama3.low_freq_factor, 1);
  EXPECT_EQ(c.llama3.high_freq_factor, 4);
  EXPECT_EQ(c.llama3.original_max_position_embeddings, 8192);
}

TEST(PagedKvCacheCreate, AGroupHoldsItsSliceOfTheLayerPartition) {
  const Shape partition{0, 2, 3, 5};
  const Shape kinds{0, 0, 0, 0, 0};
  const int64_t want[3][2] = {{0, 2}, {2, 3}, {3, 5}};
  for (int g = 0; g < 3; ++g) {
    PagedKvCacheConfig c = PagedKvCacheConfigFromArgs(CreateArgs(partition, kinds), {g, 3});
    EXPECT_EQ(c.num_layers, 5);
    EXPECT_EQ(c.layer_begin, want[g][0]);
    EXPECT_EQ(c.layer_end, want[g][1]);
  }
  EXPECT_THAT(ErrorOf([&] {
                PagedKvCacheConfigFromArgs(CreateArgs(partition, kinds), {1, 2});
              }),
              HasSubstr("the layer partition [0, 2, 3, 5] must have 3 entries, one more than the 2 "
                        "worker groups"));
  // One group (the module run unsplit) holds every layer.
  PagedKvCacheConfig whole = PagedKvCacheConfigFromArgs(CreateArgs(partition, kinds), {});
  EXPECT_EQ(whole.layer_begin, 0);
  EXPECT_EQ(whole.layer_end, 5);
  EXPECT_THAT(ErrorOf([&] {
                PagedKvCacheConfigFromArgs(CreateArgs({0, 3, 2}, kinds), {0, 2});
              }),
              HasSubstr("must be non-negative and non-decreasing"));
  EXPECT_THAT(ErrorOf([&] {
                PagedKvCacheConfigFromArgs(CreateArgs({0, 6}, kinds), {});
              }),
              HasSubstr("goes past the 5 layers"));
  EXPECT_THAT(ErrorOf([&] {
                PagedKvCacheConfigFromArgs(CreateArgs(), {2, 2});
              }),
              HasSubstr("worker group 2 of 2 does not exist"));
}

TEST(PagedKvCacheCreate, RejectsWhatItDoesNotSupport) {
  auto error = [](int index, Value value) {
    std::vector<Value> args = CreateArgs();
    args[index] = std::move(value);
    return ErrorOf([&] { PagedKvCache::Create(PagedKvCacheConfigFromArgs(args, {})); });
  };
  EXPECT_THAT(ErrorOf([] {
                std::vector<Value> args = CreateArgs();
                args.pop_back();
                PagedKvCacheConfigFromArgs(args, {});
              }),
              HasSubstr("takes 28 or 29 arguments, got 27"));
  EXPECT_THAT(error(0, Shp({4, 100, 64, 16, 1})), HasSubstr("sliding windows are not supported"));
  EXPECT_THAT(error(0, Shp({4, 100, 64})), HasSubstr("must have 5 or 6 entries"));
  EXPECT_THAT(error(0, Int(3)), HasSubstr("the cache config (argument 0) must be a shape"));
  EXPECT_THAT(error(3, Int(3)),
              HasSubstr("the 4 query heads are not a multiple of the 3 kv heads"));
  EXPECT_THAT(error(5, Int(16)), HasSubstr("a v head dim (16) other than the qk head dim (8)"));
  EXPECT_THAT(error(6, Shp({0, 1})), HasSubstr("attention kind 1 of layer 1 is not supported"));
  EXPECT_THAT(error(7, Int(1)), HasSubstr("disaggregation) is not supported"));
  EXPECT_THAT(error(8, Int(2)), HasSubstr("rope mode 2 is not supported"));
  EXPECT_THAT(error(11, MakeScalar(DataType::Float(32), 1)),
              HasSubstr("rope ext factors are not supported"));
  EXPECT_THAT(error(11, Value::MakeString(R"({"rope_type": "yarn", "factor": 4})")),
              HasSubstr("argument 11 names a RoPE scaling other than llama3"));
  EXPECT_THAT(error(11, Value::MakeString("not json")),
              HasSubstr("argument 11 names a RoPE scaling other than llama3"));
  EXPECT_THAT(error(11, Value::MakeString(R"({"rope_type": "llama3", "factor": 8})")),
              HasSubstr("llama3 rope_scaling needs a number 'low_freq_factor'"));
  EXPECT_THAT(error(11, Value::MakeString(R"({"rope_type": "llama3", "factor": 8, )"
                                          R"("low_freq_factor": 4, "high_freq_factor": 1, )"
                                          R"("original_max_position_embeddings": 8192})")),
              HasSubstr("needs factor > 0 and high_freq_factor > low_freq_factor"));
  EXPECT_THAT(error(12, Int(0)), HasSubstr("argument 12 must be a tensor of the cache dtype"));
  EXPECT_THAT(error(12, MakeScalar(DataType::Int(32), 0)), HasSubstr("unsupported dtype int32"));
}

// Misuse of a created cache (C++ API; the builtins forward to it).
class PagedKvCacheErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = PagedKvCache::Create(PagedKvCacheConfigFromArgs(CreateArgs(), {}));
    cache_->AddSequence(0);
    cache_->BeginForward(std::vector<int64_t>{0}, std::vector<int64_t>{3});
    cache_->EndForward();
  }
  void Begin(std::vector<int64_t> ids, std::vector<int64_t> lengths) {
    cache_->BeginForward(ids, lengths);
  }
  Tensor Qkv(int64_t rows, int64_t heads = 8, int64_t dim = 8,
             DataType dtype = DataType::Float(32)) {
    return MakeTensor(dtype, {rows, heads, dim}, std::vector<double>(rows * heads * dim, 0.5));
  }
  std::shared_ptr<PagedKvCache> cache_;
};

TEST_F(PagedKvCacheErrors, UnknownAndDuplicateSequenceIds) {
  for (auto f : std::vector<std::function<void()>>{[&] { cache_->RemoveSequence(9); },
                                                   [&] { cache_->PopN(9, 1); },
                                                   [&] { cache_->ForkSequence(9, 1); },
                                                   [&] {
                                                     Begin({0, 9}, {1, 1});
                                                   },
                                                   [&] { cache_->SequenceLength(9); }}) {
    EXPECT_THAT(ErrorOf(f), HasSubstr("unknown sequence id 9"));
  }
  EXPECT_FALSE(cache_->InForward());
  EXPECT_THAT(ErrorOf([&] { cache_->AddSequence(0); }), HasSubstr("sequence id 0 already exists"));
  cache_->AddSequence(1);
  EXPECT_THAT(ErrorOf([&] { cache_->ForkSequence(0, 1); }),
              HasSubstr("sequence id 1 already exists"));
}

TEST_F(PagedKvCacheErrors, PopNAndForkPositionsOutOfRange) {
  EXPECT_THAT(ErrorOf([&] { cache_->PopN(0, 4); }),
              HasSubstr("cannot pop 4 tokens from sequence 0 of length 3"));
  EXPECT_THAT(ErrorOf([&] { cache_->PopN(0, -1); }), HasSubstr("cannot pop -1 tokens"));
  EXPECT_THAT(ErrorOf([&] { cache_->ForkSequence(0, 1, 4); }),
              HasSubstr("fork position 4 is outside [-1, 3] for sequence 0 of length 3"));
  EXPECT_THAT(ErrorOf([&] { cache_->ForkSequence(0, 1, -2); }), HasSubstr("fork position -2"));
  EXPECT_EQ(cache_->SequenceLength(0), 3);
}

TEST_F(PagedKvCacheErrors, BadBatches) {
  EXPECT_THAT(ErrorOf([&] {
                Begin({0}, {1, 1});
              }),
              HasSubstr("begin_forward: 1 sequence ids but 2 append lengths"));
  cache_->AddSequence(1);
  EXPECT_THAT(ErrorOf([&] {
                Begin({0, 1, 0}, {1, 1, 1});
              }),
              HasSubstr("sequence 0 appears twice in the batch"));
  EXPECT_THAT(ErrorOf([&] {
                Begin({1, 0}, {2, 0});
              }),
              HasSubstr("the append length of sequence 0 is 0, it must be at least 1"));
  EXPECT_EQ(cache_->TotalSequenceLength(), 3);
  EXPECT_THAT(ErrorOf([&] { cache_->EndForward(); }),
              HasSubstr("end_forward without begin_forward"));
  Begin({0}, {1});
  EXPECT_THAT(ErrorOf([&] { Begin({1}, {1}); }),
              HasSubstr("begin_forward during a forward (end_forward was not called)"));
  for (auto f : std::vector<std::function<void()>>{
           [&] { cache_->AddSequence(5); }, [&] { cache_->RemoveSequence(1); },
           [&] { cache_->ForkSequence(0, 5); }, [&] { cache_->PopN(0, 1); }}) {
    EXPECT_THAT(ErrorOf(f), HasSubstr("during a forward: sequences cannot change between "
                                      "begin_forward and end_forward"));
  }
  cache_->Clear();  // also ends the forward
  EXPECT_FALSE(cache_->InForward());
  EXPECT_FALSE(cache_->HasSequence(0));
}

TEST_F(PagedKvCacheErrors, AttentionOutsideAForward) {
  EXPECT_THAT(ErrorOf([&] { cache_->AttentionWithFusedQkv(0, 1.0, Qkv(1)); }),
              HasSubstr("attention outside begin_forward/end_forward"));
  Begin({0}, {1});
  cache_->AttentionWithFusedQkv(0, 1.0, Qkv(1));
  cache_->EndForward();
  EXPECT_THAT(ErrorOf([&] { cache_->AttentionWithFusedQkv(1, 1.0, Qkv(1)); }),
              HasSubstr("attention outside begin_forward/end_forward"));
}

TEST_F(PagedKvCacheErrors, ShapesThatDoNotMatch) {
  Begin({0}, {2});
  auto qkv_error = [&](const Tensor& qkv) {
    return ErrorOf([&] { cache_->AttentionWithFusedQkv(0, 1.0, qkv); });
  };
  EXPECT_THAT(qkv_error(Qkv(2, 6)),
              HasSubstr("attention: qkv float32[2, 6, 8] must be float32[n, 8, 8]"));
  EXPECT_THAT(qkv_error(Qkv(2, 8, 4)), HasSubstr("float32[2, 8, 4] must be"));
  EXPECT_THAT(qkv_error(Qkv(1)), HasSubstr("with n at least the 2 tokens of the forward"));
  EXPECT_THAT(qkv_error(Qkv(2, 8, 8, DataType::Float(16))), HasSubstr("qkv float16[2, 8, 8]"));
  EXPECT_THAT(qkv_error(MakeTensor(DataType::Float(32), {16, 8}, std::vector<double>(128))),
              HasSubstr("qkv float32[16, 8] must be"));
  TensorBuilder out(DataType::Float(32), {2, 8, 8});
  EXPECT_THAT(ErrorOf([&] { cache_->AttentionWithFusedQkv(0, 1.0, Qkv(2), out); }),
              HasSubstr("the output float32[2, 8, 8] must be float32[2, 4, 8]"));
  EXPECT_THAT(ErrorOf([&] { cache_->AttentionWithFusedQkv(2, 1.0, Qkv(2)); }),
              HasSubstr("layer 2 is outside the layers [0, 2)"));
}

// The builtins through an interpreter: engine-side calls by name, model-side calls in TVMScript.
constexpr const char* kModule = R"(@I.ir_module
class Module:
    @R.function
    def create_tir_paged_kv_cache(max_batch_size_: R.Shape(["max_batch_size"]), max_total_seq_len_: R.Shape(["max_total_seq_len"]), prefill_chunk_size_: R.Shape(["prefill_chunk_size"]), page_size_: R.Shape(["page_size"]), support_sliding_window_: R.Shape(["support_sliding_window"])) -> R.Object:
        max_batch_size = T.int64()
        max_total_seq_len = T.int64()
        prefill_chunk_size = T.int64()
        page_size = T.int64()
        support_sliding_window = T.int64()
        init: R.Tensor((), dtype="float32") = R.zeros(R.shape([]), dtype="float32")
        paged_kv_cache: R.Object = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([max_batch_size, max_total_seq_len, prefill_chunk_size, page_size, support_sliding_window]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(T.float64(1)), R.prim_value(T.float64(10000)), R.prim_value(0), init, R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), sinfo_args=(R.Object,))
        return paged_kv_cache

    @R.function
    def two_layers(qkv0: R.Tensor(("n", 8, 8), dtype="float32"), qkv1: R.Tensor(("n", 8, 8), dtype="float32"), paged_kv_cache: R.Object) -> R.Tuple(R.Tensor(("n", 4, 8), dtype="float32"), R.Tensor(("n", 4, 8), dtype="float32"), R.Object):
        n = T.int64()
        o0 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (paged_kv_cache, R.prim_value(0), R.prim_value(T.float64(0.25)), qkv0), out_sinfo=R.Tensor((n, 4, 8), dtype="float32"))
        o1 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (paged_kv_cache, R.prim_value(1), R.prim_value(T.float64(0.25)), qkv1), out_sinfo=R.Tensor((n, 4, 8), dtype="float32"))
        return (o0, o1, paged_kv_cache)
)";

class PagedKvCacheScript : public ::testing::Test {
 protected:
  void SetUp() override {
    mod_ = script::ParseModule(kModule, "paged_kv_cache.py");
    RegisterCoreBuiltins(&builtins_);
    interp_ = std::make_unique<Interpreter>(mod_, builtins_);
  }
  Value Builtin(const std::string& name, std::vector<Value> args) {
    Callable c;
    c.name = name;
    return interp_->Invoke(Value::MakeCallable(std::move(c)), std::move(args));
  }
  Tensor Qkv(int64_t rows, double start) {
    std::vector<double> v(rows * 64);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(start + 0.37 * static_cast<double>(i));
    return MakeTensor(DataType::Float(32), {rows, 8, 8}, v);
  }
  ir::IRModule mod_;
  BuiltinRegistry builtins_;
  std::unique_ptr<Interpreter> interp_;
};

TEST_F(PagedKvCacheScript, RunsAttentionLayersLikeTheMlcEngine) {
  const Value kv = interp_->Invoke("create_tir_paged_kv_cache",
                                   {Shp({4}), Shp({100}), Shp({64}), Shp({16}), Shp({0})});
  const auto* cache = dynamic_cast<const PagedKvCache*>(kv.as_object());
  ASSERT_NE(cache, nullptr);
  testing::PagedKvReference ref(cache->config());
  for (int64_t id : {0, 1}) {
    Builtin(paged_kv::kAddSequence, {kv, Int(id)});
    ref.Add(id);
  }
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> steps = {
      {{1, 0}, {5, 18}}, {{0, 1}, {1, 1}}, {{1, 0}, {1, 1}}};
  double start = 0;
  for (const auto& [ids, lengths] : steps) {
    Builtin(paged_kv::kBeginForward, {kv, Shp(ids), Shp(lengths)});
    ref.Begin(ids, lengths);
    const int64_t rows = lengths[0] + lengths[1];
    const Tensor qkv0 = Qkv(rows, start += 1), qkv1 = Qkv(rows, start += 1);
    const Value out = interp_->Invoke("two_layers", {qkv0, qkv1, kv});
    const Value::Tuple& fields = *out.as_tuple();
    EXPECT_EQ(fields[2].as_object(), kv.as_object());
    for (int layer = 0; layer < 2; ++layer) {
      const std::vector<double> got = ToDoubleVector(fields[layer].ExpectTensor("o"));
      const std::vector<double> want = ref.Attention(layer, 0.25, layer == 0 ? qkv0 : qkv1);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << i;
    }
    Builtin(paged_kv::kEndForward, {kv});
  }
  EXPECT_EQ(Builtin(paged_kv::kGetTotalSequenceLength, {kv}).as_prim()->int_value, 27);
  EXPECT_EQ(Builtin(paged_kv::kGetNumAvailablePages, {kv}).as_prim()->int_value, 8 - 3);
  Builtin(paged_kv::kForkSequence, {kv, Int(0), Int(2), Int(17)});
  Builtin(paged_kv::kPopN, {kv, Int(0), Int(4)});
  Builtin(paged_kv::kRemoveSequence, {kv, Int(1)});
  EXPECT_EQ(cache->SequenceLength(2), 17);
  EXPECT_EQ(cache->SequenceLength(0), 16);
  Builtin(paged_kv::kClear, {kv});
  EXPECT_EQ(Builtin(paged_kv::kGetNumAvailablePages, {kv}).as_prim()->int_value, 8);
}

TEST_F(PagedKvCacheScript, ReportsMisuseThroughTheInterpreter) {
  const Value kv = interp_->Invoke("create_tir_paged_kv_cache",
                                   {Shp({4}), Shp({100}), Shp({64}), Shp({16}), Shp({0})});
  Builtin(paged_kv::kAddSequence, {kv, Int(0)});
  EXPECT_THAT(ErrorOf([&] {
                interp_->Invoke("two_layers", {Qkv(1, 0), Qkv(1, 1), kv});
              }),
              HasSubstr("attention outside begin_forward/end_forward"));
  EXPECT_THAT(ErrorOf([&] {
                Builtin(paged_kv::kAddSequence, {Int(0), Int(1)});
              }),
              HasSubstr("vm.builtin.kv_state_add_sequence: the first argument must be a paged kv "
                        "cache, got int64 0"));
  EXPECT_THAT(ErrorOf([&] {
                Builtin(paged_kv::kPopN, {kv, Int(0)});
              }),
              HasSubstr("vm.builtin.kv_state_popn takes 3 arguments, got 2"));
  EXPECT_THAT(ErrorOf([&] {
                Builtin(paged_kv::kBeginForward, {kv, Shp({0}), Shp({1}), Shp({-1})});
              }),
              HasSubstr("token trees are not supported"));
  EXPECT_THAT(ErrorOf([&] {
                Builtin(paged_kv::kBeginForward, {kv, Shp({0}), Int(1)});
              }),
              HasSubstr("the append lengths must be a shape, got int64 1"));
  EXPECT_THAT(ErrorOf([&] {
                Builtin(paged_kv::kAttentionWithFusedQkv, {kv, Int(0), Float(1), Qkv(1, 0)});
              }),
              HasSubstr("declares no outputs"));
}

// MLC's memory-planned form: R.call_packed(attention, cache, layer, scale, qkv, dest) writes
// into dest what the destination-passing form returns.
TEST_F(PagedKvCacheScript, AttentionWritesIntoADestinationArgument) {
  const Value kv = interp_->Invoke("create_tir_paged_kv_cache",
                                   {Shp({4}), Shp({100}), Shp({64}), Shp({16}), Shp({0})});
  Builtin(paged_kv::kAddSequence, {kv, Int(0)});
  Builtin(paged_kv::kBeginForward, {kv, Shp({0}), Shp({3})});
  const Tensor qkv0 = Qkv(3, 1), qkv1 = Qkv(3, 2);
  const Value out = interp_->Invoke("two_layers", {qkv0, qkv1, kv});
  Builtin(paged_kv::kEndForward, {kv});
  Builtin(paged_kv::kRemoveSequence, {kv, Int(0)});
  Builtin(paged_kv::kAddSequence, {kv, Int(0)});
  Builtin(paged_kv::kBeginForward, {kv, Shp({0}), Shp({3})});
  TensorBuilder zeros(DataType::Float(32), {3, 4, 8});
  std::fill_n(zeros.data<float>(), zeros.numel(), 0.0f);
  const Tensor dest = std::move(zeros).Publish();
  EXPECT_TRUE(
      Builtin(paged_kv::kAttentionWithFusedQkv, {kv, Int(0), Float(0.25), qkv0, dest}).is_null());
  EXPECT_TRUE(BitwiseEqual(dest, (*out.as_tuple())[0].ExpectTensor("o0")));
  EXPECT_THAT(ErrorOf([&] {
                Builtin(paged_kv::kAttentionWithFusedQkv, {kv, Int(1), Float(0.25), qkv1, Int(0)});
              }),
              HasSubstr("the output must be a tensor"));
}

TEST(PagedKvCacheRegistration, AWorkerRegistersTheBuiltinsForItsGroup) {
  BuiltinRegistry registry;
  RegisterCoreBuiltins(&registry);
  RegisterPagedKvCacheBuiltins(&registry, {1, 2});
  ir::IRModule mod = script::ParseModule(kModule, "paged_kv_cache.py");
  Interpreter interp(mod, registry);
  Callable create;
  create.name = paged_kv::kCreate;
  const Value kv = interp.Invoke(Value::MakeCallable(create), CreateArgs({0, 1, 3}, {0, 0, 0}));
  const PagedKvCacheConfig& c = dynamic_cast<const PagedKvCache*>(kv.as_object())->config();
  EXPECT_EQ(c.layer_begin, 1);
  EXPECT_EQ(c.layer_end, 3);
}

// Two worker groups each create a cache for layer_partition [0, 1, 2] (which needs the worker's
// group) and run attention on their own global layer: group 0 layer 0, group 1 layer 1 of the
// qkv group 0 sends on. One token at position 0 attends to itself only: o[h] = v[h / 2].
TEST(PagedKvCacheSession, EachWorkerGroupHoldsItsLayer) {
  const std::string create =
      R"(R.call_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([1, 32, 32, 16, 0]), R.shape([0, 1, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(T.float64(1)), R.prim_value(T.float64(10000)), R.prim_value(0), init, R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), R.tuple(), sinfo_args=(R.Object,)))";
  auto stage = [&](const std::string& layer) {
    return R"(        init: R.Tensor((), dtype="float32") = R.zeros(R.shape([]), dtype="float32")
        kv: R.Object = )" +
           create + R"(
        a: R.Object = R.call_packed("vm.builtin.kv_state_add_sequence", kv, R.prim_value(0), sinfo_args=(R.Object,))
        b: R.Object = R.call_packed("vm.builtin.kv_state_begin_forward", kv, R.shape([0]), R.shape([1]), sinfo_args=(R.Object,))
        o = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (kv, R.prim_value()" +
           layer +
           R"(), R.prim_value(T.float64(0.25)), qkv), out_sinfo=R.Tensor((1, 4, 8), dtype="float32"))
        c: R.Object = R.call_packed("vm.builtin.kv_state_end_forward", kv, sinfo_args=(R.Object,))
)";
  };
  const std::string text = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((1, 8, 8), dtype="float32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.s0, x, R.shape([]), packed_params), (cls.s1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv

    @R.function(pure=False, private=True)
    def s0(qkv: R.Tensor((1, 8, 8), dtype="float32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, 8, 8), dtype="float32")):
)" + stage("0") + R"(        d: R.Object = R.call_packed("runtime.disco.send_to_next_group", qkv)
        return (qkv,)

    @R.function(pure=False, private=True)
    def s1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((1, 4, 8), dtype="float32")):
        qkv = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((1, 8, 8), dtype="float32"))
)" + stage("1") + R"(        return (o,)
)";
  ir::IRModule mod = script::ParseModule(text, "groups.py");
  InMemoryWeights weights({});
  SessionOptions options;
  options.num_groups = 2;
  std::vector<double> x(64);
  for (int i = 0; i < 64; ++i) x[i] = i;
  RunResult result = RunThreads(mod, "main", {Value(MakeTensor(DataType::Float(32), {1, 8, 8}, x))},
                                weights, options);
  std::vector<Tensor> flat;
  result.output.Flatten(&flat);
  ASSERT_EQ(flat.size(), 1u);
  std::vector<double> want;
  for (int h = 0; h < 4; ++h) {
    for (int d = 0; d < 8; ++d) want.push_back((6 + h / 2) * 8 + d);
  }
  EXPECT_EQ(ToDoubleVector(flat[0]), want);
}

}  // namespace
}  // namespace pipesplit::runtime
