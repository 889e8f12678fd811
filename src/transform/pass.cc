// Pass, FunctionPass, Sequential and PassContext.
#include "pipesplit/transform/pass.h"

#include <fmt/format.h>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::transform {

ir::IRModule FunctionPass::Run(const ir::IRModule& mod, PassContext& ctx) const {
  ir::IRModule out = mod;
  for (const ir::IRModule::Member& member : mod.members()) {
    auto func = ir::Cast<ir::FunctionNode>(member.func);
    if (!func) continue;
    ir::Function updated = RunOnFunction(func, member.gvar, mod, ctx);
    if (updated != func) out.Update(member.gvar, updated);
  }
  return out;
}

std::string PassContext::TimingReport() const {
  std::chrono::nanoseconds total{0};
  for (const PassTiming& t : timings_) total += t.time;
  std::string out = "pass timings:\n";
  for (const PassTiming& t : timings_) {
    double ms = std::chrono::duration<double, std::milli>(t.time).count();
    double share = total.count() ? 100.0 * static_cast<double>(t.time.count()) /
                                       static_cast<double>(total.count())
                                 : 0.0;
    out += fmt::format("  {:>10.3f} ms {:>5.1f}%  {}\n", ms, share, t.pass);
  }
  out += fmt::format("  {:>10.3f} ms        total\n",
                     std::chrono::duration<double, std::milli>(total).count());
  return out;
}

ir::IRModule Sequential::Run(const ir::IRModule& mod, PassContext& ctx) const {
  ir::IRModule current = mod;
  for (const auto& pass : passes_) {
    auto start = std::chrono::steady_clock::now();
    current = pass->Run(current, ctx);
    if (ctx.time_passes) {
      ctx.AddTiming({pass->name(), std::chrono::steady_clock::now() - start});
    }
    if (ctx.verify_each) {
      std::vector<Diagnostic> problems = analysis::CheckWellFormed(current);
      if (!problems.empty()) {
        for (Diagnostic& d : problems) {
          d.message = "after pass '" + pass->name() + "': " + d.message;
        }
        throw DiagnosticError(std::move(problems));
      }
    }
  }
  return current;
}

}  // namespace pipesplit::transform
