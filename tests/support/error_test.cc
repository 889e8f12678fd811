// The error root (support/error.h): kinds, exit statuses, locations and the one report every
// caller prints.
#include "pipesplit/support/error.h"

#include <gtest/gtest.h>

#include <functional>
#include <new>
#include <stdexcept>

#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit {
namespace {

ErrorReport ReportOf(const std::function<void()>& thrower) {
  try {
    thrower();
  } catch (...) {
    return ReportCurrentException();
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

TEST(ErrorTest, UserErrorReportsAndExitsWithOne) {
  Error e(ErrorKind::kUser, "the file is empty");
  EXPECT_FALSE(e.internal());
  EXPECT_EQ(e.exit_code(), 1);
  EXPECT_FALSE(e.location().has_value());
  EXPECT_EQ(e.Report(), "error: the file is empty\n");
}

TEST(ErrorTest, InternalErrorAsksForABugReportAndExitsWithTwo) {
  InternalError e("x.cc:3: check failed: a");
  EXPECT_TRUE(e.internal());
  EXPECT_EQ(e.exit_code(), 2);
  EXPECT_EQ(e.Report(), "internal error: x.cc:3: check failed: a\nplease report this bug\n");
}

TEST(ErrorTest, FailedCheckIsAnInternalError) {
  ErrorReport report = ReportOf([] { PS_CHECK(1 + 1 == 3) << "arithmetic"; });
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_NE(report.text.find("check failed: 1 + 1 == 3: arithmetic"), std::string::npos);
}

TEST(ErrorTest, DiagnosticErrorIsLocatedAtItsFirstDiagnostic) {
  const SourceFile& file = SourceManager::Global().Add("err.py", "x = 1\ny = 2\n");
  Span first{file.id(), 6, 7};
  Diagnostic a;
  a.span = first;
  a.message = "unknown name 'y'";
  Diagnostic b;
  b.span = Span{file.id(), 0, 1};
  b.message = "unused 'x'";
  DiagnosticError e(std::vector<Diagnostic>{a, b});
  ASSERT_TRUE(e.location().has_value());
  EXPECT_EQ(e.location()->begin, first.begin);
  EXPECT_EQ(e.exit_code(), 1);
  EXPECT_EQ(e.Report(), e.what());  // rendered diagnostics, printed as they are
  EXPECT_NE(e.Report().find("err.py:2:1: error: unknown name 'y'"), std::string::npos);
}

TEST(ErrorTest, ReportCurrentExceptionMapsEveryException) {
  EXPECT_EQ(ReportOf([] { throw Error(ErrorKind::kUser, "bad"); }).text, "error: bad\n");
  ErrorReport oom = ReportOf([] { throw std::bad_alloc(); });
  EXPECT_EQ(oom.text, "error: out of memory\n");
  EXPECT_EQ(oom.exit_code, 1);
  ErrorReport other = ReportOf([] { throw std::out_of_range("vector::at"); });
  EXPECT_EQ(other.text, "internal error: vector::at\nplease report this bug\n");
  EXPECT_EQ(other.exit_code, 2);
}

}  // namespace
}  // namespace pipesplit
