// Micro-batches through worker groups on threads: every micro-batch's output equals its own
// unsplit run bit for bit, whatever the schedule, the in-flight bound or the thread count;
// bad schedules are named errors before anything runs; the trace is valid trace event JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "pipesplit/runtime/exec/schedule.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/kernels/threading.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/runtime/kernels/parallel.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

// Three stages; stage 0's `a` is forwarded through stage 1 (two tensors per transfer).
constexpr const char* kThreeStages = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), packed_params: R.Tuple(R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"))) -> R.Tensor((2, 8), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 3})
        with R.dataflow():
            w0: R.Tensor((8, 8), dtype="float32") = packed_params[0]
            a: R.Tensor((2, 8), dtype="float32") = R.matmul(x, w0)
            b1: R.Tensor((2, 8), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((2, 8), dtype="float32"),))
            w1: R.Tensor((8, 8), dtype="float32") = packed_params[1]
            c: R.Tensor((2, 8), dtype="float32") = R.matmul(b1, w1)
            d: R.Tensor((2, 8), dtype="float32") = R.nn.silu(c)
            b2: R.Tensor((2, 8), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", d, sinfo_args=(R.Tensor((2, 8), dtype="float32"),))
            w2: R.Tensor((8, 8), dtype="float32") = packed_params[2]
            e: R.Tensor((2, 8), dtype="float32") = R.matmul(b2, w2)
            f: R.Tensor((2, 8), dtype="float32") = R.add(e, a)
            gv: R.Tensor((2, 8), dtype="float32") = R.exp(f)
            R.output(gv)
        return gv
)";

std::vector<Tensor> Weights() {
  std::vector<Tensor> out;
  for (int k = 0; k < 3; ++k) {
    std::vector<double> v(64);
    for (int i = 0; i < 64; ++i) v[i] = 0.03 * ((i * 7 + k * 3) % 11) - 0.1;
    out.push_back(MakeTensor(DataType::Float(32), {8, 8}, v));
  }
  return out;
}

// Micro-batch k's input: different values for every k.
std::vector<std::vector<Value>> Microbatches(int m) {
  std::vector<std::vector<Value>> out;
  for (int k = 0; k < m; ++k) {
    std::vector<double> v(16);
    for (int i = 0; i < 16; ++i) v[i] = 0.37 * i - 1.1 * k + 0.01 * k * k;
    out.push_back({Value(MakeTensor(DataType::Float(32), {2, 8}, v))});
  }
  return out;
}

Tensor Only(const Value& v) {
  std::vector<Tensor> flat;
  v.Flatten(&flat);
  EXPECT_EQ(flat.size(), 1u);
  return flat.at(0);
}

// Counts weight loads, to tell whether any worker started.
class CountingWeights : public InMemoryWeights {
 public:
  using InMemoryWeights::InMemoryWeights;
  Tensor Load(int64_t index) const override {
    ++loads;
    return InMemoryWeights::Load(index);
  }
  mutable std::atomic<int> loads{0};
};

class PipelineTest : public testing::Test {
 protected:
  void SetUp() override {
    unsplit_ = script::ParseModule(kThreeStages, "three.py");
    split_ = transform::RewritePipelineStages(unsplit_);
  }
  // Runs the split module with `options` and compares every micro-batch with its own
  // unsplit single-worker run.
  void ExpectEveryMicrobatchMatchesItsUnsplitRun(const SessionOptions& options) {
    InMemoryWeights weights(Weights());
    auto inputs = Microbatches(options.num_microbatches);
    RunResult staged = RunPipelineThreads(split_, "main", inputs, weights, options);
    ASSERT_EQ(staged.outputs.size(), inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) {
      RunResult alone = RunThreads(unsplit_, "main", inputs[k], weights, {});
      EXPECT_TRUE(BitwiseEqual(Only(alone.output), Only(staged.outputs[k]))) << "micro-batch " << k;
      if (k > 0) {
        EXPECT_FALSE(BitwiseEqual(Only(staged.outputs[k]), Only(staged.outputs[0])));
      }
    }
  }
  ir::IRModule unsplit_;
  ir::IRModule split_;
};

TEST_F(PipelineTest, EveryMicrobatchIsBitIdenticalToItsUnsplitRun) {
  for (int m : {1, 2, 7}) {
    for (int in_flight : {1, 3}) {
      SessionOptions options;
      options.num_groups = 3;
      options.num_microbatches = m;
      options.max_in_flight = in_flight;
      ExpectEveryMicrobatchMatchesItsUnsplitRun(options);
    }
  }
}

// A link holds max_in_flight micro-batches of the most tensors any stage sends: stage 1 of
// kThreeStages forwards `a` beside its own result, two direct send_to_next_group calls.
TEST_F(PipelineTest, LinkCapacityCountsEverySendOfTheBusiestStage) {
  SessionOptions options;
  options.num_groups = 3;
  options.max_in_flight = 3;
  EXPECT_EQ(LinkCapacity(split_, "main", options), 6u);
  EXPECT_EQ(LinkCapacity(unsplit_, "main", options), 3u);  // no stages: one tensor per batch
}

TEST_F(PipelineTest, GroupSizeAndThreadsPerGroupDoNotChangeResults) {
  SessionOptions options;
  options.num_groups = 3;
  options.group_size = 2;
  options.num_microbatches = 4;
  options.threads_per_group = 4;
  ExpectEveryMicrobatchMatchesItsUnsplitRun(options);
}

TEST_F(PipelineTest, ReceivesAheadOfTheComputeUseTheInbox) {
  // Group 1 takes every micro-batch off the link before computing any; group 2 takes two.
  auto schedule = std::make_shared<Schedule>();
  schedule->num_microbatches = 3;
  using K = ActionKind;
  schedule->groups = {
      {{K::kCompute, 0},
       {K::kSend, 0},
       {K::kCompute, 1},
       {K::kSend, 1},
       {K::kCompute, 2},
       {K::kSend, 2}},
      {{K::kRecv, 0},
       {K::kRecv, 1},
       {K::kRecv, 2},
       {K::kCompute, 0},
       {K::kSend, 0},
       {K::kCompute, 1},
       {K::kSend, 1},
       {K::kCompute, 2},
       {K::kSend, 2}},
      {{K::kRecv, 0},
       {K::kRecv, 1},
       {K::kCompute, 1},
       {K::kCompute, 0},
       {K::kRecv, 2},
       {K::kCompute, 2}},
  };
  SessionOptions options;
  options.num_groups = 3;
  options.num_microbatches = 3;
  options.max_in_flight = 3;
  options.schedule = schedule;
  ExpectEveryMicrobatchMatchesItsUnsplitRun(options);
}

TEST(ThreadsPerGroupTest, AThreadGetsItsOwnPool) {
  const int global = GetNumThreads();
  std::thread worker([] {
    SetThreadNumThreads(3);
    std::mutex mu;
    std::set<std::thread::id> ids;
    detail::ParallelFor(24, [&](int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    });
    EXPECT_GE(ids.size(), 2u);
    EXPECT_LE(ids.size(), 3u);
    SetThreadNumThreads(1);
    ids.clear();
    detail::ParallelFor(8, [&](int64_t) {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    });
    EXPECT_EQ(ids, (std::set<std::thread::id>{std::this_thread::get_id()}));
    SetThreadNumThreads(0);
  });
  worker.join();
  EXPECT_EQ(GetNumThreads(), global);  // the process-wide setting is untouched
}

TEST(ScheduleTest, PipelineSchedulesPass) {
  for (int groups = 1; groups <= 4; ++groups) {
    for (int m : {1, 2, 5}) {
      Schedule s = MakePipelineSchedule(groups, m);
      EXPECT_EQ(s.groups.size(), static_cast<size_t>(groups));
      EXPECT_NO_THROW(CheckSchedule(s, 1));
    }
  }
  Schedule s = MakePipelineSchedule(2, 2);
  using K = ActionKind;
  EXPECT_EQ(s.groups[0], (std::vector<Action>{
                             {K::kCompute, 0}, {K::kSend, 0}, {K::kCompute, 1}, {K::kSend, 1}}));
  EXPECT_EQ(s.groups[1], (std::vector<Action>{
                             {K::kRecv, 0}, {K::kCompute, 0}, {K::kRecv, 1}, {K::kCompute, 1}}));
}

std::string CheckError(const Schedule& s, int max_in_flight) {
  try {
    CheckSchedule(s, max_in_flight);
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ScheduleTest, DeadlockIsNamed) {
  // Group 0 sends micro-batch 1 first but group 1 waits for 0; with one slot on the link
  // group 0 cannot send 0 either.
  Schedule s = MakePipelineSchedule(2, 2);
  using K = ActionKind;
  s.groups[0] = {{K::kCompute, 0}, {K::kCompute, 1}, {K::kSend, 1}, {K::kSend, 0}};
  EXPECT_EQ(CheckError(s, 1),
            "invalid schedule: it deadlocks: group 0 'send 0' waits for room on the link to "
            "group 1 (1 in flight, at most 1); group 1 'recv 0' waits, but the link from group 0 "
            "delivers micro-batch 1 first");
  EXPECT_THAT(CheckError(s, 2), HasSubstr("it deadlocks: group 1 'recv 0' waits, but the link"));
}

TEST(ScheduleTest, UnmatchedAndMalformedSchedulesAreNamed) {
  using K = ActionKind;
  Schedule s = MakePipelineSchedule(2, 2);
  s.groups[0].pop_back();  // never sends 1
  EXPECT_EQ(CheckError(s, 2),
            "invalid schedule: group 0 never sends micro-batch 1 that group 1 receives");
  s = MakePipelineSchedule(2, 2);
  s.groups[1].push_back({K::kRecv, 1});
  EXPECT_EQ(CheckError(s, 2), "invalid schedule: group 1 'recv 1' receives micro-batch twice");
  s = MakePipelineSchedule(2, 2);
  std::swap(s.groups[1][0], s.groups[1][1]);
  EXPECT_EQ(CheckError(s, 2),
            "invalid schedule: group 1 'compute 0' computes before receiving micro-batch 0");
  s = MakePipelineSchedule(2, 2);
  std::swap(s.groups[0][0], s.groups[0][1]);
  EXPECT_EQ(CheckError(s, 2),
            "invalid schedule: group 0 'send 0' sends before computing micro-batch 0");
  s = MakePipelineSchedule(2, 2);
  s.groups[1].erase(s.groups[1].begin() + 3);
  EXPECT_EQ(CheckError(s, 2), "invalid schedule: group 1 never computes micro-batch 1");
  s = MakePipelineSchedule(2, 2);
  s.groups[1].push_back({K::kSend, 1});
  EXPECT_THAT(CheckError(s, 2), HasSubstr("the last group has no next group to send to"));
  s = MakePipelineSchedule(2, 2);
  s.groups[0].push_back({K::kRecv, 0});
  EXPECT_THAT(CheckError(s, 2), HasSubstr("the first group has nothing to receive"));
  s = MakePipelineSchedule(2, 2);
  s.groups[0][0].microbatch = 5;
  EXPECT_THAT(CheckError(s, 2), HasSubstr("'compute 5' names a micro-batch outside 0..1"));
  EXPECT_THAT(CheckError(MakePipelineSchedule(2, 2), 0), HasSubstr("need at least 1"));
  EXPECT_THAT(CheckError(MakePipelineSchedule(0, 2), 1), HasSubstr("it has no groups"));
  EXPECT_THAT(CheckError(MakePipelineSchedule(2, 0), 1), HasSubstr("it has no micro-batches"));
}

TEST_F(PipelineTest, BadScheduleIsRejectedBeforeAnyWorkerStarts) {
  auto schedule = std::make_shared<Schedule>(MakePipelineSchedule(3, 2));
  using K = ActionKind;
  schedule->groups[1] = {{K::kRecv, 1}, {K::kCompute, 1}, {K::kSend, 1},
                         {K::kRecv, 0}, {K::kCompute, 0}, {K::kSend, 0}};
  SessionOptions options;
  options.num_groups = 3;
  options.num_microbatches = 2;
  options.max_in_flight = 1;
  options.schedule = schedule;
  CountingWeights weights(Weights());
  try {
    RunPipelineThreads(split_, "main", Microbatches(2), weights, options);
    FAIL();
  } catch (const ScheduleError& e) {
    EXPECT_THAT(e.what(), HasSubstr("invalid schedule: it deadlocks: group 0 'send 1' waits"));
    EXPECT_THAT(e.what(), HasSubstr("group 1 'recv 1' waits, but the link from group 0 delivers "
                                    "micro-batch 0 first"));
  }
  EXPECT_EQ(weights.loads.load(), 0);
  // The schedule must fit the session.
  options.schedule = std::make_shared<Schedule>(MakePipelineSchedule(2, 2));
  EXPECT_THROW(RunPipelineThreads(split_, "main", Microbatches(2), weights, options),
               ScheduleError);
  options.schedule = std::make_shared<Schedule>(MakePipelineSchedule(3, 3));
  EXPECT_THROW(RunPipelineThreads(split_, "main", Microbatches(2), weights, options),
               ScheduleError);
  EXPECT_EQ(weights.loads.load(), 0);
}

TEST_F(PipelineTest, WrongNumberOfInputListsIsAnError) {
  SessionOptions options;
  options.num_groups = 3;
  options.num_microbatches = 3;
  InMemoryWeights weights(Weights());
  try {
    RunPipelineThreads(split_, "main", Microbatches(2), weights, options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the run has 3 micro-batches but 2 input lists were given"));
  }
}

TEST_F(PipelineTest, FailureNamesTheMicrobatch) {
  // Micro-batch 2's input has the wrong shape: the error says which micro-batch failed.
  // Every group runs the dispatcher, which checks its parameters, so whichever group reaches
  // the check first reports it.
  SessionOptions options;
  options.num_groups = 3;
  options.num_microbatches = 3;
  auto inputs = Microbatches(3);
  inputs[2][0] = Value(MakeTensor(DataType::Float(32), {2, 4}, std::vector<double>(8, 1.0)));
  InMemoryWeights weights(Weights());
  try {
    RunPipelineThreads(split_, "main", inputs, weights, options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_THAT(e.what(), ::testing::ContainsRegex(
                              "^worker [0-2] \\(group [0-2]\\) failed on micro-batch 2 "));
    EXPECT_THAT(e.what(), HasSubstr("parameter 'x' of 'main': dim 1 is 4, expected 8"));
  }
}

TEST_F(PipelineTest, TraceIsTraceEventJsonWithOneSlicePerStageCall) {
  constexpr int kGroups = 3, kMicrobatches = 4;
  SessionOptions options;
  options.num_groups = kGroups;
  options.num_microbatches = kMicrobatches;
  InMemoryWeights weights(Weights());
  RunResult r = RunPipelineThreads(split_, "main", Microbatches(kMicrobatches), weights, options);
  nlohmann::json doc = nlohmann::json::parse(ChromeTraceJson(r.trace));
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc.contains("traceEvents"));
  ASSERT_TRUE(doc["traceEvents"].is_array());
  std::set<std::pair<int, int>> computes;
  std::set<int> named_tracks;
  std::multiset<int64_t> flow_starts, flow_ends;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string());
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer());
    ASSERT_TRUE(e.contains("name") && e["name"].is_string());
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "thread_name") named_tracks.insert(e["tid"].get<int>());
      continue;
    }
    ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer());
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number());
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number());
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      if (e["cat"] == "compute") {
        const int group = e["tid"], mb = e["args"]["microbatch"];
        EXPECT_EQ(e["name"], "main_stage" + std::to_string(group) + " mb " + std::to_string(mb));
        EXPECT_TRUE(computes.insert({group, mb}).second) << "two slices for one stage call";
      }
    } else if (ph == "s") {
      flow_starts.insert(e["id"].get<int64_t>());
    } else if (ph == "f") {
      flow_ends.insert(e["id"].get<int64_t>());
      EXPECT_EQ(e["bp"], "e");
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  EXPECT_EQ(computes.size(), static_cast<size_t>(kGroups * kMicrobatches));
  EXPECT_EQ(named_tracks, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(flow_starts.size(), static_cast<size_t>((kGroups - 1) * kMicrobatches));
  EXPECT_EQ(flow_starts, flow_ends);
  // Group 1 computes micro-batch k only after group 0 finished it.
  auto compute = [&](int group, int mb) {
    for (const TraceSlice& s : r.trace.slices) {
      if (s.kind == TraceSlice::Kind::kCompute && s.group == group && s.microbatch == mb) return s;
    }
    ADD_FAILURE() << "no compute " << group << " " << mb;
    return TraceSlice{};
  };
  for (int k = 0; k < kMicrobatches; ++k) {
    EXPECT_LE(compute(0, k).end_us, compute(1, k).end_us);
    EXPECT_LE(compute(1, k).end_us, compute(2, k).end_us);
  }
}

// A hand-made timeline: group 0 computes [0, 10) and [10, 20); group 1 computes [10, 20) of
// which [10, 12) waits for a receive, and [20, 30).
RunTrace HandTrace() {
  RunTrace t;
  t.num_groups = 2;
  t.num_microbatches = 2;
  t.group_functions = {"s0", "s1"};
  using K = TraceSlice::Kind;
  t.slices = {{K::kCompute, 0, 0, 0, 10},  {K::kSend, 0, 0, 10, 10.5},  {K::kCompute, 0, 1, 10, 20},
              {K::kSend, 0, 1, 20, 20.5},  {K::kCompute, 1, 0, 10, 20}, {K::kRecv, 1, 0, 10, 12},
              {K::kCompute, 1, 1, 20, 30}, {K::kRecv, 1, 1, 20, 20.5}};
  return t;
}

TEST(TraceTest, SummaryCountsBusyTimeWithoutReceiveWaits) {
  RunSummary s = Summarize(HandTrace());
  EXPECT_DOUBLE_EQ(s.seconds, 30e-6);
  EXPECT_DOUBLE_EQ(s.microbatches_per_second, 2 / 30e-6);
  ASSERT_EQ(s.utilization.size(), 2u);
  EXPECT_DOUBLE_EQ(s.utilization[0], 20.0 / 30);
  EXPECT_DOUBLE_EQ(s.utilization[1], (8.0 + 9.5) / 30);
  EXPECT_DOUBLE_EQ(s.bubble_fraction, 1 - (20.0 + 17.5) / 60);
  EXPECT_THAT(FormatSummary(HandTrace(), s),
              HasSubstr("2 groups x 2 micro-batches in 0.0 ms: 66666.7 micro-batches/s, bubbles "
                        "37.5%, utilization group 0 67%, group 1 58%"));
}

TEST(TraceTest, SlicesTravelAsATensorAndAreRebased) {
  RunTrace hand = HandTrace();
  std::vector<TraceSlice> shifted = hand.slices;
  for (TraceSlice& s : shifted) {
    s.begin_us += 1e9;
    s.end_us += 1e9;
  }
  std::vector<TraceSlice> back = SlicesFromTensor(SlicesToTensor(shifted));
  ASSERT_EQ(back.size(), shifted.size());
  RunTrace rebuilt = MakeRunTrace(2, 2, {"s0", "s1"}, back);
  RunSummary a = Summarize(hand), b = Summarize(rebuilt);
  EXPECT_DOUBLE_EQ(a.bubble_fraction, b.bubble_fraction);
  EXPECT_EQ(rebuilt.slices.front().begin_us, 0.0);
  for (size_t i = 1; i < rebuilt.slices.size(); ++i) {
    EXPECT_LE(rebuilt.slices[i - 1].begin_us, rebuilt.slices[i].begin_us);
  }
  try {
    SlicesFromTensor(MakeTensor(DataType::Float(32), {1, 5}, {0, 0, 0, 0, 1}));
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected trace slices as float64[n, 5]"));
  }
  EXPECT_THROW(SlicesFromTensor(MakeTensor(DataType::Float(64), {1, 5}, {7, 0, 0, 0, 1})),
               RuntimeError);
}

TEST(TraceTest, TimelineSvgDrawsEveryComputeAndTheBubbles) {
  std::string svg = TimelineSvg(HandTrace());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"bar\""), 4u);
  EXPECT_EQ(count("class=\"wait\""), 2u);
  // Group 0 idles after 20; group 1 before 12 and while waiting at 20.
  EXPECT_EQ(count("class=\"idle\""), 3u);
  EXPECT_THAT(svg, HasSubstr("bubbles 37.5%"));
}

}  // namespace
}  // namespace pipesplit::runtime
