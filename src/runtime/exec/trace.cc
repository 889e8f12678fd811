// Run timelines (see trace.h): recording, the summary, Chrome trace JSON and the SVG chart.
#include "pipesplit/runtime/exec/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "pipesplit/support/gantt_svg.h"

namespace pipesplit::runtime {
namespace {

const char* KindName(TraceSlice::Kind kind) {
  switch (kind) {
    case TraceSlice::Kind::kCompute:
      return "compute";
    case TraceSlice::Kind::kRecv:
      return "recv";
    case TraceSlice::Kind::kSend:
      return "send";
  }
  return "?";
}

std::pair<double, double> Span(const RunTrace& trace) {
  if (trace.slices.empty()) return {0, 0};
  double begin = trace.slices[0].begin_us, end = trace.slices[0].end_us;
  for (const TraceSlice& s : trace.slices) {
    begin = std::min(begin, s.begin_us);
    end = std::max(end, s.end_us);
  }
  return {begin, end};
}

// Per group: the intervals where it computes without waiting for a receive.
std::vector<std::vector<std::pair<double, double>>> BusyIntervals(const RunTrace& trace) {
  std::vector<std::vector<std::pair<double, double>>> busy(trace.num_groups);
  for (const TraceSlice& c : trace.slices) {
    if (c.kind != TraceSlice::Kind::kCompute || c.group < 0 || c.group >= trace.num_groups) {
      continue;
    }
    std::vector<std::pair<double, double>> waits;
    for (const TraceSlice& r : trace.slices) {
      if (r.kind == TraceSlice::Kind::kRecv && r.group == c.group && r.begin_us >= c.begin_us &&
          r.end_us <= c.end_us) {
        waits.emplace_back(r.begin_us, r.end_us);
      }
    }
    std::sort(waits.begin(), waits.end());
    double at = c.begin_us;
    for (auto [b, e] : waits) {
      if (b > at) busy[c.group].emplace_back(at, b);
      at = std::max(at, e);
    }
    if (c.end_us > at) busy[c.group].emplace_back(at, c.end_us);
  }
  return busy;
}

}  // namespace

void TraceRecorder::Add(TraceSlice::Kind kind, int group, int microbatch, Clock::time_point begin,
                        Clock::time_point end) {
  TraceSlice s{kind, group, microbatch, Micros(begin), Micros(end)};
  std::lock_guard<std::mutex> lock(mu_);
  slices_.push_back(s);
}

std::vector<TraceSlice> TraceRecorder::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TraceSlice> out = std::move(slices_);
  slices_.clear();
  std::sort(out.begin(), out.end(), [](const TraceSlice& a, const TraceSlice& b) {
    return a.begin_us != b.begin_us ? a.begin_us < b.begin_us : a.end_us > b.end_us;
  });
  return out;
}

RunTrace MakeRunTrace(int num_groups, int num_microbatches,
                      std::vector<std::string> group_functions, std::vector<TraceSlice> slices) {
  RunTrace trace;
  trace.num_groups = num_groups;
  trace.num_microbatches = num_microbatches;
  trace.group_functions = std::move(group_functions);
  double origin = slices.empty() ? 0 : slices[0].begin_us;
  for (const TraceSlice& s : slices) origin = std::min(origin, s.begin_us);
  for (TraceSlice& s : slices) {
    s.begin_us -= origin;
    s.end_us -= origin;
  }
  std::sort(slices.begin(), slices.end(), [](const TraceSlice& a, const TraceSlice& b) {
    return a.begin_us != b.begin_us ? a.begin_us < b.begin_us : a.end_us > b.end_us;
  });
  trace.slices = std::move(slices);
  return trace;
}

Tensor SlicesToTensor(const std::vector<TraceSlice>& slices) {
  std::vector<double> values;
  for (const TraceSlice& s : slices) {
    values.insert(values.end(), {static_cast<double>(s.kind), static_cast<double>(s.group),
                                 static_cast<double>(s.microbatch), s.begin_us, s.end_us});
  }
  return MakeTensor(DataType::Float(64), {static_cast<int64_t>(slices.size()), 5}, values);
}

std::vector<TraceSlice> SlicesFromTensor(const Tensor& t) {
  if (t.dtype() != DataType::Float(64) || t.ndim() != 2 || t.shape()[1] != 5) {
    throw RuntimeError("expected trace slices as float64[n, 5], got " + t.ToString());
  }
  std::vector<TraceSlice> out;
  const double* v = t.data<double>();
  for (int64_t i = 0; i < t.shape()[0]; ++i, v += 5) {
    const int kind = static_cast<int>(v[0]);
    if (kind < 0 || kind > 2)
      throw RuntimeError("trace slice of unknown kind " + std::to_string(kind));
    out.push_back({static_cast<TraceSlice::Kind>(kind), static_cast<int>(v[1]),
                   static_cast<int>(v[2]), v[3], v[4]});
  }
  return out;
}

RunSummary Summarize(const RunTrace& trace) {
  RunSummary summary;
  auto [begin, end] = Span(trace);
  const double span_us = end - begin;
  summary.seconds = span_us * 1e-6;
  summary.utilization.assign(trace.num_groups, 0.0);
  if (span_us <= 0 || trace.num_groups < 1) return summary;
  summary.microbatches_per_second = trace.num_microbatches / summary.seconds;
  double total = 0;
  auto busy = BusyIntervals(trace);
  for (int g = 0; g < trace.num_groups; ++g) {
    double sum = 0;
    for (auto [b, e] : busy[g]) sum += e - b;
    summary.utilization[g] = sum / span_us;
    total += sum;
  }
  summary.bubble_fraction = 1.0 - total / (span_us * trace.num_groups);
  return summary;
}

std::string FormatSummary(const RunTrace& trace, const RunSummary& summary) {
  std::string out = fmt::format(
      "{} group{} x {} micro-batch{} in {:.1f} ms: {:.1f} micro-batches/s, bubbles {:.1f}%, "
      "utilization",
      trace.num_groups, trace.num_groups == 1 ? "" : "s", trace.num_microbatches,
      trace.num_microbatches == 1 ? "" : "es", summary.seconds * 1e3,
      summary.microbatches_per_second, summary.bubble_fraction * 100);
  for (size_t g = 0; g < summary.utilization.size(); ++g) {
    out += fmt::format("{} group {} {:.0f}%", g ? "," : "", g, summary.utilization[g] * 100);
  }
  return out;
}

std::string ChromeTraceJson(const RunTrace& trace) {
  using nlohmann::json;
  json events = json::array();
  events.push_back(
      {{"ph", "M"}, {"pid", 0}, {"name", "process_name"}, {"args", {{"name", "pipesplit run"}}}});
  for (int g = 0; g < trace.num_groups; ++g) {
    std::string name = "group " + std::to_string(g);
    if (g < static_cast<int>(trace.group_functions.size())) {
      name += " (" + trace.group_functions[g] + ")";
    }
    events.push_back(
        {{"ph", "M"}, {"pid", 0}, {"tid", g}, {"name", "thread_name"}, {"args", {{"name", name}}}});
    events.push_back({{"ph", "M"},
                      {"pid", 0},
                      {"tid", g},
                      {"name", "thread_sort_index"},
                      {"args", {{"sort_index", g}}}});
  }
  // Flow ids: one per (link, micro-batch); a send starts it, the first receive ends it.
  std::map<std::pair<int, int>, bool> flow_ended;
  for (const TraceSlice& s : trace.slices) {
    std::string name = std::string(KindName(s.kind)) + " " + std::to_string(s.microbatch);
    if (s.kind == TraceSlice::Kind::kCompute &&
        s.group < static_cast<int>(trace.group_functions.size())) {
      name = trace.group_functions[s.group] + " mb " + std::to_string(s.microbatch);
    }
    json args = {{"microbatch", s.microbatch}, {"group", s.group}};
    events.push_back({{"ph", "X"},
                      {"pid", 0},
                      {"tid", s.group},
                      {"name", name},
                      {"cat", KindName(s.kind)},
                      {"ts", s.begin_us},
                      {"dur", std::max(s.end_us - s.begin_us, 0.0)},
                      {"args", args}});
    const int link = s.kind == TraceSlice::Kind::kSend ? s.group : s.group - 1;
    const int64_t id =
        static_cast<int64_t>(link) * std::max(trace.num_microbatches, 1) + s.microbatch + 1;
    if (s.kind == TraceSlice::Kind::kSend) {
      events.push_back({{"ph", "s"},
                        {"pid", 0},
                        {"tid", s.group},
                        {"name", "transfer"},
                        {"cat", "transfer"},
                        {"id", id},
                        {"ts", s.begin_us}});
    } else if (s.kind == TraceSlice::Kind::kRecv && !flow_ended[{link, s.microbatch}]) {
      flow_ended[{link, s.microbatch}] = true;
      events.push_back({{"ph", "f"},
                        {"bp", "e"},
                        {"pid", 0},
                        {"tid", s.group},
                        {"name", "transfer"},
                        {"cat", "transfer"},
                        {"id", id},
                        {"ts", s.end_us}});
    }
  }
  json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  return doc.dump(1) + "\n";
}

std::string TimelineSvg(const RunTrace& trace) {
  GanttChart chart;
  RunSummary summary = Summarize(trace);
  chart.title = fmt::format("pipesplit run: {} groups x {} micro-batches", trace.num_groups,
                            trace.num_microbatches);
  for (int g = 0; g < trace.num_groups; ++g) chart.rows.push_back("group " + std::to_string(g));
  const auto span = Span(trace);
  const double begin = span.first;
  const double end = span.second;
  auto ms = [begin](double us) { return (us - begin) * 1e-3; };
  auto busy = BusyIntervals(trace);
  // Idle background first (everything not busy), then computes, then receive waits on top.
  for (int g = 0; g < trace.num_groups; ++g) {
    double at = begin;
    std::sort(busy[g].begin(), busy[g].end());
    for (auto [b, e] : busy[g]) {
      if (b > at) chart.bars.push_back({g, ms(at), ms(b), "idle", 0, GanttBar::Style::kIdle});
      at = std::max(at, e);
    }
    if (end > at) chart.bars.push_back({g, ms(at), ms(end), "idle", 0, GanttBar::Style::kIdle});
  }
  for (const TraceSlice& s : trace.slices) {
    if (s.kind == TraceSlice::Kind::kCompute) {
      chart.bars.push_back({s.group, ms(s.begin_us), ms(s.end_us), std::to_string(s.microbatch),
                            s.microbatch, GanttBar::Style::kSolid});
    }
  }
  for (const TraceSlice& s : trace.slices) {
    if (s.kind == TraceSlice::Kind::kRecv) {
      chart.bars.push_back({s.group, ms(s.begin_us), ms(s.end_us),
                            "waiting for micro-batch " + std::to_string(s.microbatch), 0,
                            GanttBar::Style::kHatched});
    }
  }
  chart.caption.push_back(FormatSummary(trace, summary));
  chart.caption.push_back(
      "bars: a stage computing micro-batch k (labelled k); hatched: waiting for a receive; "
      "pink: idle (bubble)");
  return RenderGanttSvg(chart);
}

}  // namespace pipesplit::runtime
