#include "pipesplit/support/diagnostic.h"

#include <gtest/gtest.h>

#include "pipesplit/support/check.h"

namespace pipesplit {
namespace {

TEST(SourceFileTest, LocatesLinesAndColumns) {
  const SourceFile& f = SourceManager::Global().Add("a.py", "ab\ncd\n\nxyz");
  EXPECT_EQ(f.Locate(0).line, 1u);
  EXPECT_EQ(f.Locate(0).col, 1u);
  EXPECT_EQ(f.Locate(4).line, 2u);
  EXPECT_EQ(f.Locate(4).col, 2u);
  EXPECT_EQ(f.Locate(7).line, 4u);
  EXPECT_EQ(f.Line(2), "cd");
  EXPECT_EQ(f.Line(3), "");
  EXPECT_EQ(f.Line(4), "xyz");
  EXPECT_EQ(f.OffsetOf({4, 2}), 8u);
}

TEST(DiagnosticTest, RendersLocationSourceLineAndCaret) {
  const SourceFile& f = SourceManager::Global().Add("m.py", "x = 1\ny = foo(x)\n");
  Diagnostic d;
  d.span = {f.id(), 10, 13};
  d.message = "unknown name 'foo'";
  d.AddNote({f.id(), 0, 1}, "x defined here");
  EXPECT_EQ(Render(d),
            "m.py:2:5: error: unknown name 'foo'\n"
            "  y = foo(x)\n"
            "      ^~~\n"
            "m.py:1:1: note: x defined here\n"
            "  x = 1\n"
            "  ^\n");
}

TEST(DiagnosticTest, ErrorWithoutLocation) {
  Diagnostic d;
  d.message = "no input";
  EXPECT_EQ(Render(d), "error: no input\n");
}

TEST(DiagnosticTest, ThrowErrorCarriesTheDiagnostic) {
  const SourceFile& f = SourceManager::Global().Add("t.py", "abc");
  try {
    ThrowError({f.id(), 1, 2}, "bad");
    FAIL() << "no throw";
  } catch (const DiagnosticError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message, "bad");
    EXPECT_NE(std::string(e.what()).find("t.py:1:2: error: bad"), std::string::npos);
  }
}

TEST(DiagnosticTest, ListThrowsOnlyWhenNonEmpty) {
  DiagnosticList list;
  EXPECT_NO_THROW(list.ThrowIfAny());
  list.Error({}, "one");
  list.Error({}, "two");
  try {
    list.ThrowIfAny();
    FAIL();
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostics().size(), 2u);
  }
}

TEST(CheckTest, FailedCheckThrowsInternalErrorWithMessage) {
  try {
    int x = 3;
    PS_CHECK(x == 4) << "x is " << x;
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("check failed: x == 4: x is 3"), std::string::npos);
  }
  EXPECT_NO_THROW(PS_CHECK(true) << "never");
}

}  // namespace
}  // namespace pipesplit
