// Every error pipesplit throws has one root (support/error.h), so a caller maps them in one
// place: user errors exit 1, internal ones 2; located ones say where.
#include <gtest/gtest.h>

#include <type_traits>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/runtime/dist/transport.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/exec/schedule.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/error.h"

namespace pipesplit {
namespace {

static_assert(std::is_base_of_v<Error, DiagnosticError>);
static_assert(std::is_base_of_v<Error, InternalError>);
static_assert(std::is_base_of_v<Error, runtime::RuntimeError>);
static_assert(std::is_base_of_v<Error, runtime::ExecutionError>);
static_assert(std::is_base_of_v<Error, runtime::WorkerError>);
static_assert(std::is_base_of_v<Error, runtime::ScheduleError>);
static_assert(std::is_base_of_v<Error, runtime::TransportAborted>);
static_assert(std::is_base_of_v<Error, codegen::CodegenError>);

template <typename E, typename... Args>
ErrorReport ReportOfThrown(Args&&... args) {
  try {
    throw E(std::forward<Args>(args)...);
  } catch (...) {
    return ReportCurrentException();
  }
}

TEST(ErrorFamilyTest, EveryLayersErrorMapsThroughTheRoot) {
  EXPECT_EQ(ReportOfThrown<runtime::RuntimeError>("bad axis").text, "error: bad axis\n");
  EXPECT_EQ(ReportOfThrown<codegen::CodegenError>("no compiler").text, "error: no compiler\n");
  ErrorReport worker = ReportOfThrown<runtime::WorkerError>(1, 1, "failed");
  EXPECT_EQ(worker.text, "error: worker 1 (group 1) failed\n");
  EXPECT_EQ(worker.exit_code, 1);
  EXPECT_EQ(ReportOfThrown<InternalError>("broken").exit_code, 2);
}

TEST(ErrorFamilyTest, ExecutionErrorIsLocatedAtItsBinding) {
  const SourceFile& file = SourceManager::Global().Add("run.py", "lv = R.add(x, y)\n");
  runtime::ExecutionError located("main", "lv", Span{file.id(), 5, 16}, "shapes differ");
  ASSERT_TRUE(located.location().has_value());
  EXPECT_EQ(located.location()->begin, 5u);
  EXPECT_EQ(std::string(located.what()),
            "in function 'main', binding 'lv' (run.py:1:6): shapes differ");
  runtime::ExecutionError unlocated("main", "lv", Span{}, "shapes differ");
  EXPECT_FALSE(unlocated.location().has_value());
}

}  // namespace
}  // namespace pipesplit
