// The SVG Gantt writer: rows, bars scaled to the axis, escaping.
#include "pipesplit/support/gantt_svg.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pipesplit {
namespace {

using testing::HasSubstr;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(GanttSvgTest, DrawsRowsBarsAndCaption) {
  GanttChart chart;
  chart.title = "a <run> & more";
  chart.rows = {"group 0", "group 1"};
  chart.bars = {{0, 0, 5, "0", 0, GanttBar::Style::kSolid},
                {1, 5, 10, "0", 0, GanttBar::Style::kSolid},
                {1, 0, 5, "idle", 0, GanttBar::Style::kIdle},
                {1, 5, 6, "wait", 0, GanttBar::Style::kHatched}};
  chart.caption = {"line one", "line two"};
  std::string svg = RenderGanttSvg(chart);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("</svg>\n"));
  EXPECT_EQ(Count(svg, "class=\"bar\""), 2u);
  EXPECT_EQ(Count(svg, "class=\"idle\""), 1u);
  EXPECT_EQ(Count(svg, "class=\"wait\""), 1u);
  EXPECT_THAT(svg, HasSubstr("a &lt;run&gt; &amp; more"));
  EXPECT_THAT(svg, HasSubstr(">group 1</text>"));
  EXPECT_THAT(svg, HasSubstr(">line two</text>"));
  // The plot is 860 wide from x = 110: the bar ending at 10 (the end of time) ends at 970.
  EXPECT_THAT(svg, HasSubstr("x=\"540.00\" y=\"79.0\" width=\"430.00\""));
}

TEST(GanttSvgTest, EmptyChartIsStillADocument) {
  std::string svg = RenderGanttSvg(GanttChart{});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

}  // namespace
}  // namespace pipesplit
