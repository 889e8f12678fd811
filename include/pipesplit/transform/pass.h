// Pass infrastructure: passes over modules, the context they run in, sequences of passes,
// and the one explicit registry of named passes with typed options.
//
// A pipeline is written `pass1,pass2{key=value,key2=a;b}`: passes separated by commas,
// options in braces (list values separated by ';'). Errors in it are diagnostics located
// in the pipeline text.
#ifndef PIPESPLIT_TRANSFORM_PASS_H_
#define PIPESPLIT_TRANSFORM_PASS_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/source.h"

namespace pipesplit::transform {

class PassContext;

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  // Returns the transformed module; throws DiagnosticError on bad input.
  virtual ir::IRModule Run(const ir::IRModule& mod, PassContext& ctx) const = 0;
};

// Runs a function-level transformation on every Relax function of a module. Functions for
// which RunOnFunction returns the same node are left untouched.
class FunctionPass : public Pass {
 public:
  ir::IRModule Run(const ir::IRModule& mod, PassContext& ctx) const override;

 protected:
  virtual ir::Function RunOnFunction(const ir::Function& func, const ir::GlobalVar& gvar,
                                     const ir::IRModule& mod, PassContext& ctx) const = 0;
};

struct PassTiming {
  std::string pass;
  std::chrono::nanoseconds time{0};
};

class PassContext {
 public:
  // Run the well-formedness check after every pass (errors name the pass).
  bool verify_each = false;
  // Record the wall time of every pass (see timings()).
  bool time_passes = false;

  const std::vector<PassTiming>& timings() const { return timings_; }
  void AddTiming(PassTiming timing) { timings_.push_back(std::move(timing)); }
  // A table of the recorded timings, one line per pass plus a total.
  std::string TimingReport() const;

  // Results passes leave for their callers, one value per C++ type (in the manner of MLIR's
  // analysis manager: the type is the key, so a caller needs no name and no cast). For example
  // pipeline-parallel-rewrite stores its plans, which `opt --stage-report` reads back:
  //
  //   ctx.Set(std::vector<StagePlan>(...));                            // in the pass
  //   if (const auto* plans = ctx.Get<std::vector<StagePlan>>()) ...   // in the caller
  //
  // Set replaces a value of the same type set earlier (the last pass to run wins).
  template <typename T>
  void Set(T value) {
    results_[std::type_index(typeid(T))] = std::make_shared<const T>(std::move(value));
  }
  // The value of type T set last, or nullptr when none was set. The pointer stays valid until
  // the next Set<T> or the end of the context.
  template <typename T>
  const T* Get() const {
    auto it = results_.find(std::type_index(typeid(T)));
    return it == results_.end() ? nullptr : static_cast<const T*>(it->second.get());
  }

 private:
  std::vector<PassTiming> timings_;
  // Type -> a `const T` owned through a type-erased pointer; only Set and Get know T.
  std::unordered_map<std::type_index, std::shared_ptr<const void>> results_;
};

// Runs passes in order, honouring verify_each and time_passes.
class Sequential : public Pass {
 public:
  explicit Sequential(std::vector<std::unique_ptr<Pass>> passes) : passes_(std::move(passes)) {}
  std::string name() const override { return "sequential"; }
  ir::IRModule Run(const ir::IRModule& mod, PassContext& ctx) const override;
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

// ---- Registry ----

// A typed option of a registered pass.
struct PassOptionSpec {
  enum class Type { kInt, kBool, kString, kStringList };
  std::string name;
  Type type = Type::kString;
  std::string help;
  bool required = false;
};

// Parsed, type-checked option values of one pass instance.
class PassOptions {
 public:
  bool Has(std::string_view name) const { return values_.count(std::string(name)) != 0; }
  int64_t GetInt(std::string_view name, int64_t fallback = 0) const;
  bool GetBool(std::string_view name, bool fallback = false) const;
  std::string GetString(std::string_view name, const std::string& fallback = {}) const;
  std::vector<std::string> GetStringList(std::string_view name) const;
  void Set(std::string name, std::string raw, Span span = {}) {
    spans_[name] = span;
    values_[std::move(name)] = std::move(raw);
  }
  // Where the option's value was written (invalid when not given).
  Span SpanOf(std::string_view name) const;
  // Where the pass was named in the pipeline.
  Span pass_span() const { return pass_span_; }
  void set_pass_span(Span span) { pass_span_ = span; }

 private:
  std::map<std::string, std::string> values_;  // raw text, validated at parse time
  std::map<std::string, Span> spans_;
  Span pass_span_;
};

struct PassInfo {
  std::string name;
  std::string summary;  // one line
  std::vector<PassOptionSpec> options;
  std::function<std::unique_ptr<Pass>(const PassOptions&)> create;
};

// Every registered pass, sorted by name.
const std::vector<PassInfo>& RegisteredPasses();
const PassInfo* FindPass(std::string_view name);

// Parses a pipeline (see the file comment). Throws DiagnosticError located in `text`
// (registered as a source file named `source_name`): unknown pass, unknown option, bad
// option value, missing required option, malformed syntax.
std::unique_ptr<Sequential> ParsePipeline(std::string_view text,
                                          std::string source_name = "<pipeline>");

}  // namespace pipesplit::transform

#endif  // PIPESPLIT_TRANSFORM_PASS_H_
