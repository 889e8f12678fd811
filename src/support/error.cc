#include "pipesplit/support/error.h"

#include <new>

namespace pipesplit {
namespace {

std::string InternalReport(const char* what) {
  return std::string("internal error: ") + what + "\nplease report this bug\n";
}

}  // namespace

std::string Error::Report() const {
  return internal() ? InternalReport(what()) : std::string("error: ") + what() + "\n";
}

ErrorReport ReportCurrentException() {
  try {
    throw;
  } catch (const Error& e) {
    return {e.Report(), e.exit_code()};
  } catch (const std::bad_alloc&) {
    return {"error: out of memory\n", 1};
  } catch (const std::exception& e) {
    return {InternalReport(e.what()), 2};
  }
}

}  // namespace pipesplit
