// Internals of the TVMScript printer, shared by the printer_*.cc files.
//
// The printer mirrors TVM's IRDocsifier + PythonDocPrinter: it walks the IR in the same order
// as TVM does, with the same side effects (names taken and freed by frames, symbolic var
// declarations pushed into the enclosing function frame, `cls = Module` on first use, the set
// of dialects used so far for header comments), so that the text comes out byte for byte as
// TVM prints it. Expressions are rendered straight to strings; statements are kept as a small
// tree (StmtDoc) until the end, because a function's preamble and the file header depend on
// what is found later. The text of expressions is appended to one caller-owned string (the
// `std::string* out` overloads; the returning ones are wrappers for the few callers that need a
// string of their own), so a binding line costs one allocation.
#ifndef PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_INTERNAL_H_
#define PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_INTERNAL_H_

#include <charconv>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/support/text.h"

namespace pipesplit::script::printer {

// ---- Literals: FloatLiteral and QuoteString (pipesplit/support/text.h) ----

// A name hint with every character outside [A-Za-z0-9_] replaced by '_' ("v" when empty).
std::string SanitizeName(std::string_view hint);

// Appends the decimal digits of `value` (std::to_string without the temporary).
inline void AppendInt(int64_t value, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, static_cast<size_t>(end - buf));
}

// Appends QuoteString(text) (pipesplit/support/text.h) without a temporary when no character
// needs an escape (names, symbols, dtypes).
inline void AppendQuoted(std::string_view text, std::string* out) {
  for (char ch : text) {
    if (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\') {
      *out += QuoteString(text);
      return;
    }
  }
  *out += '"';
  *out += text;
  *out += '"';
}

// ---- Statements ----

struct StmtDoc {
  enum class Kind : uint8_t {
    kLine,      // one line of code
    kComment,   // "# text" (empty text: an empty line at the current indentation)
    kScope,     // text ("with R.dataflow():") + indented body
    kIf,        // "if text:" + body, "else:" + else_body when non-empty
    kFunction,  // decorators, text ("def f(...) -> R:") + body, then an empty line
    kClass,     // decorators, text ("class Module:") + body
    kVerbatim,  // opaque text (a PrimFunc): first line at the indentation, others re-indented
    kRendered,  // text rendered at the indentation it lands at (RenderStmtAt), copied as is
  };
  Kind kind = Kind::kLine;
  std::string text;
  std::vector<std::string> decorators;
  std::vector<StmtDoc> body;
  std::vector<StmtDoc> else_body;

  static StmtDoc Line(std::string text) { return {Kind::kLine, std::move(text), {}, {}, {}}; }
  static StmtDoc Comment(std::string text) { return {Kind::kComment, std::move(text), {}, {}, {}}; }
};

// Renders statements one per line at indentation 0 the way TVM's PythonDocPrinter does
// (4-space indents, "pass" for an empty body, an empty line after each def), with trailing
// whitespace removed. Appends to *out.
void RenderStmts(const std::vector<StmtDoc>& stmts, std::string* out);
// Renders one statement as it would be rendered at `indent` spaces, without the indentation of
// its first line (a kRendered doc at that indentation reproduces it). Appends to *out.
void RenderStmtAt(const StmtDoc& stmt, size_t indent, std::string* out);

// ---- Names ----

// The names in use, with TVM's de-duplication: a taken name gets the smallest free suffix
// "_1", "_2", ... Names can be freed (when a frame ends). Amortized O(log n) per operation:
// per base name, suffixes below a high-water mark are either in use or queued as free.
class NameTable {
 public:
  // Nodes come from `arena` (a monotonic resource: frees are no-ops, printing is one pass).
  explicit NameTable(std::pmr::memory_resource* arena) : used_(arena), suffixes_(arena) {}
  // Takes `name` as is (reserved words, the module name). No-op when already taken.
  void Reserve(const std::string& name);
  // Takes and returns a unique name derived from the already sanitized `base`.
  std::string Take(std::string base);
  void Free(const std::string& name);

 private:
  struct Suffixes {
    int64_t high = 1;  // every suffix in [1, high) is taken or queued in `freed`
    std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>> freed;
  };
  // Hashes strings and string_views alike (lookups by a part of a name without a copy).
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::pmr::unordered_set<std::string, Hash, std::equal_to<>> used_;
  std::pmr::unordered_map<std::string, Suffixes, Hash, std::equal_to<>> suffixes_;
};

// ---- The printer ----

// Which `from tvm.script import ...` header lines are needed (TVM's ir_usage).
enum Usage : uint32_t {
  kUseIr = 1,
  kUseTir = 2,
  kUseRelax = 4,
  kUseTypeVar = 8,    // current syntax, `n = TypeVar("n")`
  kUseFuture = 16,    // current syntax, `from __future__ import annotations`
  kUseMetadata = 32,  // a metadata["..."][i] reference was printed
};

// A printed PrimExpr with its Python precedence (for parenthesization).
struct PrimText {
  std::string text;
  int prec;
};

class Printer {
 public:
  struct Config {
    ir::Syntax syntax = ir::Syntax::kClassic;
    bool legacy_tir_header = false;
    ir::TirSyntax tir_syntax = ir::TirSyntax::kBlock;
    bool s_tir_for_blocks = false;  // converting T.block to T.sblock (TirPrintOptions)
    bool pep695 = true;
    bool complete_attrs = false;  // PrintOptions::complete_attrs
    // PrintOptions::for_tvm_parser: the module-level TypeVar names kernels must not redeclare
    // (filled by Module() before it prints the members again).
    const std::unordered_set<std::string>* kernel_reserved_names = nullptr;
    // Fragment mode (PrintExpr / PrintStructInfo): vars print their names, nothing is
    // declared, dims are never quoted.
    bool fragment = false;
    // One-line fragments for messages (printer_fragment.cc): statements summarized, module
    // functions as `cls.f`, missing struct info as "<none>".
    bool one_line = false;
    // Expr / SInfo / Attr nested deeper than this print "..." (0: no limit).
    int max_depth = 0;
  };

  Printer(const Config& config, const ir::IRModule* mod);

  // Entry points.
  std::string Module();  // printer_module.cc
  // After Module(): the names it declared as module-level TypeVars.
  const std::unordered_set<std::string>& module_type_vars() const { return module_type_vars_; }
  std::string Fragment(const ir::Expr& expr);         // printer_module.cc
  std::string Fragment(const ir::StructInfo& sinfo);  // printer_module.cc
  // Fragments for messages (printer_fragment.cc).
  std::string FragmentAttr(const ir::AttrValue& value);
  std::string FragmentBinding(const ir::Binding& binding);
  std::string FragmentBlock(const ir::BindingBlock& block);
  std::string FragmentCallee(const ir::Expr& callee);
  std::string FragmentLine(const ir::Expr& expr);

 private:
  // A scope of the IRDocsifier: names defined in it are freed when it ends.
  struct Frame {
    bool is_relax = true;  // false for the module frame
    bool is_func = false;
    bool module_alias_printed = false;
    bool collecting_signature = false;            // TVM's func_vars != nullptr
    std::unordered_set<const void*> func_vars;    // symbolic vars first seen in the signature
    std::unordered_set<const void*> type_vars;    // current syntax: signature-only vars
    std::unordered_set<const void*> prim_params;  // current syntax: params of prim type
    std::vector<StmtDoc> stmts;
    std::vector<const void*> defined;
  };
  class FrameScope;  // below
  class Nest;        // below

  bool current() const { return config_.syntax == ir::Syntax::kCurrent; }

  // ---- names and frames (printer_names.cc) ----
  void ExitFrame(Frame* frame);
  // Defines `key` in `frame` under a unique name derived from `hint`; returns the existing
  // name when `key` is already defined (as TVM does for ill-formed input).
  const std::string& Define(const void* key, std::string_view hint, Frame* frame);
  const std::string* NameOf(const void* key) const;
  // The frame that receives symbolic var declarations and `cls = Module`: classic, the
  // outermost function frame; current, the innermost one (else a non-function frame).
  Frame* RelaxFrame();
  Frame* InnermostFrame() { return frames_.back(); }
  // Identity of a symbolic var (current syntax: a prim param's var is the param itself).
  const void* TirKey(const ir::TirVarNode& var) const;

  // ---- symbolic expressions (printer_prim.cc) ----
  PrimText Prim(const ir::PrimExpr& expr);
  std::string PrimStr(const ir::PrimExpr& expr) { return expr ? Prim(expr).text : "<null>"; }
  // A dim in a shape / prim value (TVM's PrintShapeVar): quoted in a function signature when
  // it mentions a var first seen there.
  void ShapeDim(const ir::PrimExpr& expr, std::string* out);
  const std::string& TirVar(const ir::TirVarNode& var);
  std::string TirVarCreation(const ir::TirVarNode& var);

  // ---- struct info (printer_sinfo.cc) ----
  void SInfo(const ir::StructInfo& sinfo, std::string* out);
  std::string SInfo(const ir::StructInfo& sinfo) {
    std::string out;
    SInfo(sinfo, &out);
    return out;
  }
  void Dim(const ir::PrimExpr& expr, std::string* out);  // ShapeDim, "<null>" for a missing dim
  // Appends the binding annotation (TVM's StructInfoAsAnn) and returns true; none (false)
  // when the rhs is R.call_tir / R.call_dps_packed and the var's struct info equals the
  // declared output.
  bool Annotation(const ir::VarNode& var, const ir::Expr& rhs, std::string* out);

  // ---- expressions (printer_expr.cc) ----
  void Expr(const ir::Expr& expr, std::string* out);
  std::string Expr(const ir::Expr& expr) {
    std::string out;
    Expr(expr, &out);
    return out;
  }
  void Callee(const ir::Expr& expr, std::string* out);  // an ExternFunc: its symbol string
  void RelaxVar(const ir::VarNode& var, std::string* out);
  void GlobalVarRef(const ir::GlobalVarNode& gvar, std::string* out);
  void ExternFuncExpr(const ir::ExternFuncNode& func, std::string* out);
  // The fields of a tuple, `(a,)` / `(a, b)`, each appended by `field(i)`; printer_sinfo.cc.
  template <typename Field>
  void Tuple(size_t n, std::string* out, Field field);
  void Attr(const ir::AttrValue& value, std::string* out);
  std::string Attr(const ir::AttrValue& value) {
    std::string out;
    Attr(value, &out);
    return out;
  }
  void AttrDict(const ir::AttrMap& map, std::string* out);
  std::string AttrDict(const ir::AttrMap& map) {
    std::string out;
    AttrDict(map, &out);
    return out;
  }
  // `lambda i, j: (i, j // 4)`: the parser's AttrCall{"lambda", [params, body]} (index maps).
  void Lambda(const ir::AttrList& params, const ir::AttrValue& body, std::string* out);
  void Call(const ir::CallNode& call, std::string* out);           // printer_call.cc
  bool CallTirFamily(const ir::CallNode& call, std::string* out);  // printer_call.cc

  // ---- statements (printer_function.cc) ----
  std::vector<StmtDoc> SeqExpr(const ir::SeqExprNode& seq, bool use_ret,
                               const ir::ExprNode** result);
  void BindingBlock(const ir::BindingBlockNode& block, std::vector<StmtDoc>* out);
  void Binding(const ir::BindingNode& binding, std::vector<StmtDoc>* out);
  StmtDoc IfStmt(const ir::IfNode& node, const std::string* var, const std::string* ann);
  // A Relax function, wrapped with header comments as TVM does (the last statement is the
  // def; current syntax with TypeVars: the `n = TypeVar("n")` lines come before it).
  // `type_vars` (top level, TypeVar style) receives the names declared with TypeVar.
  std::vector<StmtDoc> Function(const ir::FunctionNode& func, const std::string& name,
                                bool top_level, std::vector<std::string>* type_vars);
  std::vector<StmtDoc> HeaderWrap(std::vector<StmtDoc> stmts);
  // A tuple of 2+ fields unparenthesized.
  void RhsText(const ir::Expr& value, std::string* out);
  std::string RhsText(const ir::Expr& value) {
    std::string out;
    RhsText(value, &out);
    return out;
  }

  // ---- one-line summaries of statements (printer_fragment.cc) ----
  std::string Summary(const ir::Expr& expr);  // a function, body or if on one line
  std::string BindingLine(const ir::BindingNode& binding);

  // ---- module (printer_module.cc) ----
  std::vector<StmtDoc> HeaderComments() const;
  // `type_vars` (TypeVar style) receives the TypeVar names of the function's signature.
  void PrimFuncMember(const ir::PrimFuncNode& func, std::vector<StmtDoc>* out,
                      std::vector<std::string>* type_vars);
  // One member of the module class, rendered at the class body's indentation; `type_vars`
  // receives the TypeVar names a Relax function declares.
  StmtDoc Member(const ir::IRModule::Member& member, std::vector<std::string>* type_vars);

  Config config_;
  const ir::IRModule* mod_;
  uint32_t usage_ = 0;
  std::unordered_set<std::string> module_type_vars_;  // Module(): its TypeVar declarations
  int depth_ = 0;                              // current nesting of Expr / SInfo / Attr (Nest)
  std::pmr::monotonic_buffer_resource arena_;  // nodes of the name tables below
  NameTable names_{&arena_};
  std::pmr::unordered_map<const void*, std::string> obj_names_{&arena_};
  std::vector<Frame*> frames_;
  // Current syntax: symbolic var -> the prim param it stands for.
  std::unordered_map<const void*, const void*> tir_alias_;
  std::unordered_map<const void*, std::string> alias_hint_;
  // Whether the module has a member of a GlobalVar's name (IRModule::Find), per GlobalVar.
  std::unordered_map<const void*, bool> gvar_in_module_;
  // The annotation of the binding being printed (Binding), kept to reuse its buffer.
  std::string binding_ann_;
  // The text of each context-free tensor type printed so far (SInfo); the node is held so
  // that its address is not reused while it is a key.
  absl::flat_hash_map<const ir::StructInfoNode*, std::pair<ir::StructInfo, std::string>>
      tensor_text_;
};

template <typename Field>
void Printer::Tuple(size_t n, std::string* out, Field field) {
  *out += '(';
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) *out += ", ";
    field(i);
  }
  *out += n == 1 ? ",)" : ")";
}

// Pushes a frame onto the printer for its lifetime; names defined in it are freed at the end.
class Printer::FrameScope {
 public:
  explicit FrameScope(Printer* printer, bool is_func = false) : printer_(printer) {
    frame_.is_func = is_func;
    printer_->frames_.push_back(&frame_);
  }
  ~FrameScope() { printer_->ExitFrame(&frame_); }
  FrameScope(const FrameScope&) = delete;
  FrameScope& operator=(const FrameScope&) = delete;

  Frame* get() { return &frame_; }
  Frame* operator->() { return &frame_; }

 private:
  Printer* printer_;
  Frame frame_;
};

// Counts one level of Expr / SInfo / Attr nesting for its lifetime.
class Printer::Nest {
 public:
  explicit Nest(Printer* printer) : printer_(printer) { ++printer_->depth_; }
  ~Nest() { --printer_->depth_; }
  Nest(const Nest&) = delete;
  Nest& operator=(const Nest&) = delete;

  // Past the configured depth: the caller prints "..." instead of recursing.
  bool too_deep() const {
    return printer_->config_.max_depth > 0 && printer_->depth_ > printer_->config_.max_depth;
  }

 private:
  Printer* printer_;
};

}  // namespace pipesplit::script::printer

#endif  // PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_INTERNAL_H_
