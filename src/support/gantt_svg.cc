// SVG Gantt charts (see gantt_svg.h): a title, one row per name, bars scaled to the chart
// width, a tick axis with round steps, and caption lines.
#include "pipesplit/support/gantt_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pipesplit {
namespace {

constexpr double kLeft = 110, kRight = 20, kTop = 40, kRowHeight = 34, kBarHeight = 24;
constexpr double kPlotWidth = 860;
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                                    "#76b7b2", "#edc948", "#e15759", "#9c755f"};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A step of 1, 2 or 5 times a power of ten giving about 8 ticks over `span`.
double TickStep(double span) {
  if (span <= 0) return 1;
  double raw = span / 8, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

}  // namespace

std::string RenderGanttSvg(const GanttChart& chart) {
  double end = 0;
  for (const GanttBar& b : chart.bars) end = std::max(end, b.end);
  if (end <= 0) end = 1;
  const double scale = kPlotWidth / end;
  const double rows_height = kRowHeight * static_cast<double>(chart.rows.size());
  const double axis_y = kTop + rows_height + 6;
  const double width = kLeft + kPlotWidth + kRight;
  const double height = axis_y + 40 + 18 * static_cast<double>(chart.caption.size());
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      width, height, width, height);
  out +=
      "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ddd\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#888\" stroke-width=\"2\"/>"
      "</pattern></defs>\n";
  out += fmt::format("<rect width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", width, height);
  out +=
      fmt::format("<text x=\"{:.0f}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
                  kLeft, Escape(chart.title));
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const double y = kTop + kRowHeight * static_cast<double>(r);
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f4f4f4\"/>\n",
        kLeft, y + (kRowHeight - kBarHeight) / 2, kPlotWidth, kBarHeight);
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 8,
                       y + kRowHeight / 2 + 4, Escape(chart.rows[r]));
  }
  for (const GanttBar& b : chart.bars) {
    const double x = kLeft + b.begin * scale, w = std::max((b.end - b.begin) * scale, 0.5);
    const double y = kTop + kRowHeight * b.row + (kRowHeight - kBarHeight) / 2;
    std::string fill = b.style == GanttBar::Style::kHatched ? "url(#hatch)"
                       : b.style == GanttBar::Style::kIdle
                           ? "#fbe3e3"
                           : kPalette[static_cast<size_t>(std::abs(b.color)) % 8];
    out += fmt::format(
        "<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" "
        "fill=\"{}\" stroke=\"white\" stroke-width=\"0.5\"><title>{}</title></rect>\n",
        b.style == GanttBar::Style::kSolid     ? "bar"
        : b.style == GanttBar::Style::kHatched ? "wait"
                                               : "idle",
        x, y, w, kBarHeight, fill, Escape(b.label));
    if (b.style == GanttBar::Style::kSolid && !b.label.empty() &&
        w > 7.0 * static_cast<double>(b.label.size())) {
      out += fmt::format(
          "<text x=\"{:.2f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"white\">{}</text>\n",
          x + w / 2, y + kBarHeight / 2 + 4, Escape(b.label));
    }
  }
  out += fmt::format(
      "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" "
      "stroke=\"#333\"/>\n",
      kLeft, axis_y, kLeft + kPlotWidth, axis_y);
  const double step = TickStep(end);
  for (int i = 0; i * step <= end * (1 + 1e-9); ++i) {
    const double x = kLeft + i * step * scale;
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#333\"/><text x=\"{:.1f}\" y=\"{:.1f}\" "
        "text-anchor=\"middle\">{:g}</text>\n",
        x, axis_y, x, axis_y + 4, x, axis_y + 17, i * step);
  }
  out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 8,
                     axis_y + 17, Escape(chart.unit));
  for (size_t i = 0; i < chart.caption.size(); ++i) {
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\">{}</text>\n", kLeft,
                       axis_y + 38 + 18 * static_cast<double>(i), Escape(chart.caption[i]));
  }
  return out + "</svg>\n";
}

}  // namespace pipesplit
