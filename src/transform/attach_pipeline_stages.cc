// Pass `attach-pipeline-stages{stages=N,funcs=a;b}`: marks functions for the
// pipeline-parallel rewrite by setting their `pipeline_parallel_stages` attribute (as
// MLC-LLM's AttachPipelineParallelStages does).
//
// Preconditions: the named functions exist and are Relax functions.
// Steps:
//  1. resolve `funcs` (default: every Relax function that contains a stage-boundary call);
//  2. set `pipeline_parallel_stages = stages` on each, replacing any earlier value.
#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/ir/protocol.h"
#include "pipesplit/support/diagnostic.h"
#include "src/transform/passes.h"

namespace pipesplit::transform {
namespace {

bool ContainsStageBoundary(const ir::Function& func) {
  struct Finder : ir::ExprVisitor {
    bool found = false;
    void VisitExpr_(const ir::CallNode& call) override {
      found |= ir::IsExternCall(call, ir::protocol::kCallPurePacked, ir::protocol::kStageBoundary);
      ExprVisitor::VisitExpr_(call);
    }
  } finder;
  finder.VisitExpr(func);
  return finder.found;
}

class AttachPipelineStagesPass : public Pass {
 public:
  AttachPipelineStagesPass(int64_t stages, std::vector<std::string> funcs, Span funcs_span)
      : stages_(stages), funcs_(std::move(funcs)), funcs_span_(funcs_span) {}

  std::string name() const override { return "attach-pipeline-stages"; }

  ir::IRModule Run(const ir::IRModule& mod, PassContext&) const override {
    ir::IRModule out = mod;
    std::vector<std::string> targets = funcs_;
    if (targets.empty()) {
      for (const auto& member : mod.members()) {
        auto func = ir::Cast<ir::FunctionNode>(member.func);
        if (func && ContainsStageBoundary(func)) targets.push_back(member.gvar->name_hint());
      }
    }
    for (const std::string& name : targets) {
      const ir::IRModule::Member* member = mod.Find(name);
      if (member == nullptr) {
        ThrowError(funcs_span_,
                   "attach-pipeline-stages: the module has no function named '" + name + "'");
      }
      auto func = ir::Cast<ir::FunctionNode>(member->func);
      if (!func) {
        ThrowError(member->func->span(),
                   "attach-pipeline-stages: '" + name + "' is not a Relax function");
      }
      ir::AttrMap attrs = ir::WithAttr(func->attrs(), ir::attr::kPipelineParallelStages, stages_);
      out.Update(member->gvar, std::make_shared<const ir::FunctionNode>(
                                   func->params(), func->body(), func->ret_struct_info(),
                                   func->is_pure(), attrs, func->span()));
    }
    return out;
  }

 private:
  int64_t stages_;
  std::vector<std::string> funcs_;
  Span funcs_span_;
};

}  // namespace

PassInfo AttachPipelineStagesPassInfo() {
  return {"attach-pipeline-stages",
          "set pipeline_parallel_stages on functions to split",
          {{"stages", PassOptionSpec::Type::kInt, "number of pipeline stages (>= 1)", true},
           {"funcs", PassOptionSpec::Type::kStringList,
            "functions to mark, ';'-separated (default: those with stage boundaries)", false}},
          [](const PassOptions& options) -> std::unique_ptr<Pass> {
            int64_t stages = options.GetInt("stages");
            if (stages < 1) {
              ThrowError(options.SpanOf("stages"),
                         "attach-pipeline-stages: stages must be at least 1, got " +
                             std::to_string(stages));
            }
            return std::make_unique<AttachPipelineStagesPass>(
                stages, options.GetStringList("funcs"), options.SpanOf("funcs"));
          }};
}

}  // namespace pipesplit::transform
