// The partition part of the stage report (see stage_report.h): JSON, a text table and an SVG
// bar chart of what auto-pipeline-stages chose.
#include <fmt/format.h>

#include <algorithm>

#include "pipesplit/transform/stage_report.h"

namespace pipesplit::transform {

using nlohmann::ordered_json;

namespace {

double Ideal(const analysis::PartitionResult& p) {
  return p.stages > 0 ? static_cast<double>(p.total_ps) / p.stages : 0;
}

double Ratio(int64_t value, double ideal) { return ideal > 0 ? value / ideal : 1.0; }

std::string Microseconds(int64_t ps) {
  return fmt::format("{:.3f}", static_cast<double>(ps) / 1e6);
}

}  // namespace

ordered_json PartitionJson(const analysis::PartitionResult& p) {
  ordered_json j;
  j["num_stages"] = p.stages;
  j["functions"] = p.functions;
  ordered_json cuts;
  for (size_t f = 0; f < p.functions.size(); ++f) cuts[p.functions[f]] = p.cuts[f];
  j["cuts"] = cuts;
  j["memory_limit"] = p.memory_limit;
  j["total_time_ps"] = p.total_ps;
  j["ideal_time_ps"] = Ideal(p);
  j["slowest_time_ps"] = p.slowest_ps;
  j["imbalance"] = p.imbalance;
  j["stages"] = ordered_json::array();
  for (size_t i = 0; i < p.stage.size(); ++i) {
    const analysis::StageSummary& s = p.stage[i];
    ordered_json st;
    st["stage"] = i;
    st["time_ps"] = s.time_ps;
    st["transfer_ps"] = s.transfer_ps;
    st["flops"] = s.flops;
    st["weight_bytes"] = s.weight_bytes;
    st["activation_bytes"] = s.act_bytes;
    st["recv_bytes"] = s.recv_bytes;
    st["send_bytes"] = s.send_bytes;
    st["memory_bytes"] = s.memory_bytes;
    st["vs_ideal"] = Ratio(s.time_ps, Ideal(p));
    st["weights"] = s.weights;
    j["stages"].push_back(st);
  }
  return j;
}

std::string PartitionText(const analysis::PartitionResult& p) {
  std::string out = fmt::format(
      "partition ({} stages, functions {}): slowest {} us, ideal {:.3f} us, imbalance {:.3f}\n",
      p.stages, fmt::join(p.functions, ", "), Microseconds(p.slowest_ps), Ideal(p) / 1e6,
      p.imbalance);
  out +=
      fmt::format("  {:<6} {:>12} {:>16} {:>14} {:>14} {:>12} {:>12} {:>8}\n", "stage", "time (us)",
                  "flops", "weight bytes", "act bytes", "recv bytes", "send bytes", "/ideal");
  for (size_t i = 0; i < p.stage.size(); ++i) {
    const analysis::StageSummary& s = p.stage[i];
    out += fmt::format("  {:<6} {:>12} {:>16} {:>14} {:>14} {:>12} {:>12} {:>8.3f}\n", i,
                       Microseconds(s.time_ps), s.flops, s.weight_bytes, s.act_bytes, s.recv_bytes,
                       s.send_bytes, Ratio(s.time_ps, Ideal(p)));
  }
  for (size_t f = 0; f < p.functions.size(); ++f) {
    out += fmt::format("  cuts of {}: after bindings {}\n", p.functions[f],
                       fmt::join(p.cuts[f], ", "));
  }
  return out;
}

std::string PartitionSvg(const analysis::PartitionResult& p) {
  const int bar = 40, gap = 20, left = 70, top = 40, height = 200;
  const int n = static_cast<int>(p.stage.size());
  const int panel = left + n * (bar + gap) + gap;
  const int width = 2 * panel;
  double max_time = Ideal(p), max_mem = static_cast<double>(p.memory_limit);
  for (const analysis::StageSummary& s : p.stage) {
    max_time = std::max(max_time, static_cast<double>(s.time_ps));
    max_mem = std::max(max_mem, static_cast<double>(s.memory_bytes));
  }
  max_time = std::max(max_time, 1.0);
  max_mem = std::max(max_mem, 1.0);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n",
      width, top + height + 60);
  auto rect = [&](int x, double y0, double h, const char* color, const std::string& title) {
    svg += fmt::format(
        "  <rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"><title>{}"
        "</title></rect>\n",
        x, y0 - h, bar, h, color, title);
  };
  auto line = [&](int x0, int x1, double y, const char* color, const std::string& label) {
    svg += fmt::format(
        "  <line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-dasharray=\"4 3\"/>\n  <text x=\"{}\" y=\"{:.1f}\" fill=\"{}\">{}</text>\n",
        x0, x1, y, y, color, x1 - 60, y - 3, color, label);
  };
  const double base = top + height;
  svg += fmt::format("  <text x=\"{}\" y=\"20\">time per stage (us): compute, transfer</text>\n",
                     left);
  svg += fmt::format(
      "  <text x=\"{}\" y=\"20\">memory per stage (bytes): weights, activations"
      "</text>\n",
      panel + left);
  for (int i = 0; i < n; ++i) {
    const analysis::StageSummary& s = p.stage[i];
    int x = left + gap + i * (bar + gap);
    double transfer = static_cast<double>(s.transfer_ps) / max_time * height;
    double compute = static_cast<double>(s.time_ps - s.transfer_ps) / max_time * height;
    rect(x, base, compute, "#4878cf",
         fmt::format("stage {}: compute {} us", i, Microseconds(s.time_ps - s.transfer_ps)));
    rect(x, base - compute, transfer, "#ee854a",
         fmt::format("stage {}: transfer {} us", i, Microseconds(s.transfer_ps)));
    svg += fmt::format("  <text x=\"{}\" y=\"{:.1f}\">{}</text>\n", x + 8, base + 15, i);
    int mx = panel + x;
    double w = static_cast<double>(s.weight_bytes) / max_mem * height;
    double a = static_cast<double>(s.memory_bytes - s.weight_bytes) / max_mem * height;
    rect(mx, base, w, "#6acc65", fmt::format("stage {}: weights {} bytes", i, s.weight_bytes));
    rect(mx, base - w, a, "#d65f5f",
         fmt::format("stage {}: activations + received {} bytes", i,
                     s.memory_bytes - s.weight_bytes));
    svg += fmt::format("  <text x=\"{}\" y=\"{:.1f}\">{}</text>\n", mx + 8, base + 15, i);
  }
  line(left, panel - gap, base - Ideal(p) / max_time * height, "#333",
       fmt::format("ideal {:.3f}", Ideal(p) / 1e6));
  if (p.memory_limit > 0) {
    line(panel + left, width - gap, base - p.memory_limit / max_mem * height, "#b00", "limit");
  }
  svg += fmt::format("  <text x=\"{}\" y=\"{}\">slowest {} us, imbalance {:.3f}</text>\n</svg>\n",
                     left, base + 40, Microseconds(p.slowest_ps), p.imbalance);
  return svg;
}

}  // namespace pipesplit::transform
