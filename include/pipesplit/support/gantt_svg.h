// A small SVG writer for Gantt charts: named rows, bars on a shared time axis, and a caption.
// Knows nothing of what the bars mean (the runtime's timeline maps a run onto it).
#ifndef PIPESPLIT_SUPPORT_GANTT_SVG_H_
#define PIPESPLIT_SUPPORT_GANTT_SVG_H_

#include <string>
#include <vector>

namespace pipesplit {

struct GanttBar {
  enum class Style { kSolid, kHatched, kIdle };
  int row = 0;
  double begin = 0;  // in the chart's time unit
  double end = 0;
  std::string label;  // drawn inside the bar when it fits
  int color = 0;      // index into a fixed palette (solid bars)
  Style style = Style::kSolid;
};

struct GanttChart {
  std::string title;
  std::string unit = "ms";  // the time axis label
  std::vector<std::string> rows;
  std::vector<GanttBar> bars;
  std::vector<std::string> caption;  // lines under the chart
};

// The chart as a standalone SVG document (text is XML-escaped).
std::string RenderGanttSvg(const GanttChart& chart);

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_GANTT_SVG_H_
