// Internals of the TIR printer (printer_tir.cc: functions, signatures, buffers, names and
// frames; printer_tir_stmt.cc: statements).
//
// The printer mirrors TVM's TIR docsifier: frames (the function, a loop nest, a block, T.init,
// an if branch, a while, an attribute statement) own the names defined in them; a var or buffer
// printed before any definition is declared (`v = T.float32()`, `B = T.Buffer(...)`) in the
// lowest open frame that encloses every use of it (TVM's common prefix), just before the
// statement that frame is printing. Text goes to one string; a frame remembers where its
// current statement starts so that such a declaration can be inserted there.
#ifndef PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_TIR_INTERNAL_H_
#define PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_TIR_INTERNAL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/prim_text.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/ir/tir_functor.h"
#include "src/script/printer/printer_tir.h"

namespace pipesplit::script::printer {

// Whether `e` is the integer constant `value`.
inline bool IsConst(const ir::PrimExpr& e, int64_t value) {
  std::optional<int64_t> c = ir::AsConstInt(e);
  return c && *c == value;
}

// "a, b, c": items joined by commas (the one joiner of the TIR printer).
std::string Join(const std::vector<std::string>& items);

// Which of a buffer's vars a declaration of it defines (TVM's BufferVarDefinition).
enum class BufferVars : uint8_t {
  kNone,        // everything it names is defined before (T.decl_buffer)
  kData,        // its data pointer (allocations, T.Buffer forward declarations)
  kMatchBuffer  // also the shape, stride and offset vars not defined yet (params, match_buffer)
};

class TirPrinter : private ir::StmtFunctor<void(const ir::StmtNode&)> {
 public:
  explicit TirPrinter(const TirPrintOptions& options);
  // The decorator, def line and body; `type_vars` receives the names of the function's
  // module-level TypeVars (sorted), when the signature declares any.
  std::string Function(const ir::PrimFuncNode& f, std::vector<std::string>* type_vars);

 private:
  static constexpr size_t kNotStarted = static_cast<size_t>(-1);
  struct Frame {
    const void* node = nullptr;
    int indent = 0;
    size_t stmt_start = kNotStarted;   // where its current statement starts in out_
    std::string pending;               // declarations made before its first statement
    std::vector<const void*> named;    // defined under a name taken in it (freed at its end)
    std::vector<const void*> defined;  // defined as a text (A.strides[0])
    std::vector<const void*> data;     // data pointers of its buffers
    bool any = false;                  // printed a statement
    bool allow_concise = false;        // the statement being printed is the last of its body
  };

  // ---- frames, names and paths (printer_tir.cc) ----
  void OpenFrame(const void* node, int indent);
  void CloseFrame();
  // Starts a statement of the innermost frame (a declaration it triggers goes before it).
  void BeginStmt();
  // Appends one line at `indent`.
  void Emit(int indent, const std::string& text);
  // A statement of the innermost frame on one line.
  void Line(const std::string& text) { Emit(frames_.back().indent, text); }
  // Inserts a line before the current statement of frame `k`.
  void Insert(size_t k, const std::string& text);
  // Defines `key` in frame `k` under a unique name derived from `hint` (TVM's: characters other
  // than [A-Za-z0-9_] become '_', a taken name gets the smallest free suffix _1, _2, ...) and
  // returns it; the name it has when already defined.
  std::string Define(const void* key, std::string_view hint, size_t k);
  std::string DefineInner(const void* key, std::string_view hint) {
    return Define(key, hint, Top());
  }
  // Defines `key` as printing `text` (A.data, A.strides[0]), taking no name.
  void DefineAs(const void* key, const std::string& text, size_t k);
  size_t Top() const { return frames_.size() - 1; }
  bool IsDefined(const void* key) const { return names_.count(key) != 0; }
  // The lowest open frame enclosing every use of `key`, if any.
  std::optional<size_t> LowestFrameOf(const void* key);
  // Whether `node` encloses every use of `key`.
  bool EnclosesAllUses(const void* node, const void* key);
  // The paths and the data pointers' buffers, collected on first need (most functions print
  // nothing before its definition and launch no thread, and never need them).
  void CollectPaths();
  std::string VarName(const ir::TirVarNode& v);
  std::string BufferName(const ir::BufferNode& b);
  // Defines a buffer (and its data pointer, A.data); returns its name.
  std::string DefineBuffer(const ir::BufferNode& b, size_t k);

  // ---- expressions, buffers, signature (printer_tir.cc) ----
  std::string Text(const ir::PrimExpr& e) { return ir::FormatPrimExpr(e, text_options_).text; }
  std::string Region(const ir::BufferRegion& r);
  std::string Stop(const ir::PrimExpr& min, const ir::PrimExpr& extent);
  std::string Attr(const ir::AttrValue& value);
  std::string AttrDict(const ir::AttrMap& map) { return Attr(ir::AttrValue(map)); }
  // The arguments of a buffer declaration call after the leading ones: shape, dtype (always
  // when `dtype_always`), then data-less keywords (strides, elem_offset, scope, align,
  // offset_factor); vars it defines are defined in frame `k`. `quote_first`: vars whose first
  // dim must be quoted (a signature); `quote_compound`: type vars, quoted inside compound dims.
  using VarSet = absl::flat_hash_set<const void*>;
  std::string BufferArgs(const ir::BufferNode& b, size_t k, BufferVars vars, bool dtype_always,
                         bool quote_undefined, bool print_scope = true,
                         const VarSet* quote_first = nullptr,
                         const VarSet* quote_compound = nullptr);
  std::string VarCreation(const ir::TirVarNode& v) const;
  std::string Signature(const ir::PrimFuncNode& f, std::vector<std::string>* type_vars);
  std::string ClassicSignature(const ir::PrimFuncNode& f);

  // ---- statements (printer_tir_stmt.cc) ----
  // The statements of `s` into the innermost frame; `tail`: `s` ends its frame's body.
  void Body(const ir::Stmt& s, bool tail);
  void Items(const std::vector<ir::Stmt>& items, bool tail);
  void Stmt(const ir::Stmt& s) { VisitStmt(*s); }
  void VisitStmt_(const ir::ForNode& loop) override;
  void VisitStmt_(const ir::BlockRealizeNode& realize) override;
  void VisitStmt_(const ir::BlockNode& block) override;
  void VisitStmt_(const ir::SeqStmtNode& seq) override;
  void VisitStmt_(const ir::BufferStoreNode& store) override;
  void VisitStmt_(const ir::LetStmtNode& let) override;
  void VisitStmt_(const ir::IfThenElseNode& branch) override;
  void VisitStmt_(const ir::EvaluateNode& evaluate) override;
  void VisitStmt_(const ir::AllocateNode& alloc) override;
  void VisitStmt_(const ir::DeclBufferNode& decl) override;
  void VisitStmt_(const ir::AssertStmtNode& assert_stmt) override;
  void VisitStmt_(const ir::WhileNode& loop) override;
  void VisitStmt_(const ir::AttrStmtNode& attr) override;
  void VisitStmt_(const ir::AllocBufferNode& alloc) override;
  void Realize(const ir::BlockNode& b, const std::vector<ir::PrimExpr>& iter_values,
               const ir::PrimExpr& predicate, bool no_realize);
  void IterVars(const ir::BlockNode& block, const std::vector<ir::PrimExpr>& values);
  // `T.<method>(...)` of an allocation; method "alloc_statement": an allocation statement
  // (T.alloc_buffer / T.alloc_shared / T.alloc_local).
  std::string AllocBufferDecl(const ir::BufferNode& b, const char* method);
  std::string CommReducer(const ir::CommReducer& reducer);
  const char* BlockWord() const { return options_.sblock ? "sblock" : "block"; }

  TirPrintOptions options_;
  ir::PrimTextOptions text_options_;
  std::string out_;
  std::vector<Frame> frames_;
  absl::flat_hash_map<const void*, std::string> names_;
  absl::flat_hash_set<std::string> taken_{"I", "T", "R"};  // TVM's builtin keywords
  // The data pointers of the buffers defined (A.data).
  absl::flat_hash_map<const void*, const ir::BufferNode*> data_of_;
  const ir::PrimFuncNode* func_ = nullptr;
  bool paths_collected_ = false;
  // The frame nodes (loops, blocks, branches, ...) enclosing every use of each var and buffer.
  std::unordered_map<const void*, std::vector<const void*>> paths_;
  std::unordered_map<const ir::TirVarNode*, const ir::BufferNode*> data_owner_;
  std::unordered_map<const ir::TirVarNode*, const ir::ForNode*> loops_;
};

}  // namespace pipesplit::script::printer

#endif  // PIPESPLIT_SRC_SCRIPT_PRINTER_PRINTER_TIR_INTERNAL_H_
