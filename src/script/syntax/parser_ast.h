// Syntax tree of the Python subset TVMScript is written in.
//
// The syntax parser (parser_syntax.h) builds it from tokens; the lowering (parser_lower.h)
// turns it into IR. Nodes live in an arena owned by the SyntaxTree and point into the file
// text (identifiers and literal spellings are string_views into it). Every node records its
// byte range and its depth (1 for a leaf), which the syntax parser caps at
// ParseOptions::max_depth so that nothing downstream recurses deeper than that.
#ifndef PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSER_AST_H_
#define PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSER_AST_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pipesplit::script {

enum class PyExprKind : uint8_t {
  kName,    // text = identifier
  kInt,     // text = spelling (decoded by the lowering, which reports overflow)
  kFloat,   // text = spelling
  kString,  // str = decoded value (adjacent literals concatenated)
  kBool,    // bool_value
  kNone,
  kEllipsis,
  kAttribute,  // items[0].text
  kCall,       // items[0](items[1:], keywords)
  kSubscript,  // items[0][items[1]]
  kSlice,      // items = [lower, upper, step], each may be null
  kTuple,      // items (parenthesized or not)
  kList,       // items
  kDict,       // items = [k0, v0, k1, v1, ...]
  kBinOp,      // items[0] op items[1]
  kUnaryOp,    // op items[0]
  kCompare,    // items[0] op items[1] (chains are rejected by the parser)
  kBoolOp,     // items[0] op items[1] op ...
  kLambda,     // lambda params: items[0]; params in `params`
  kIfExp,      // items[1] if items[0] else items[2]
  kStarred,    // *items[0]
};

enum class PyOp : uint8_t {
  kNone,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kMatMul,
  kLShift,
  kRShift,
  kBitOr,
  kBitXor,
  kBitAnd,
  kUSub,
  kUAdd,
  kInvert,
  kNot,
  kEq,
  kNotEq,
  kLt,
  kLtE,
  kGt,
  kGtE,
  kIs,
  kIsNot,
  kIn,
  kNotIn,
  kAnd,
  kOr,
};

// Python spelling of an operator ("+", "//", "not", "and").
const char* PyOpSpelling(PyOp op);

struct PyExpr;

// A read-only list of nodes stored in the tree's arena (the nodes stay trivially
// destructible and small).
template <typename T>
class NodeList {
 public:
  NodeList() = default;
  NodeList(T* data, uint32_t size) : data_(data), size_(size) {}
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) const { return data_[i]; }
  T& front() const { return data_[0]; }
  T& back() const { return data_[size_ - 1]; }

 private:
  T* data_ = nullptr;
  uint32_t size_ = 0;
};

struct PyKeyword {
  std::string_view name;  // empty for **kwargs (rejected by the parser)
  uint32_t name_begin = 0;
  PyExpr* value = nullptr;
};

struct PyExpr {
  PyExprKind kind = PyExprKind::kNone;
  PyOp op = PyOp::kNone;
  bool bool_value = false;
  bool parenthesized = false;  // written inside its own parentheses
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t depth = 1;
  std::string_view text;
  std::string_view str;  // kString: the decoded value (owned by the tree)
  NodeList<PyExpr*> items;
  NodeList<PyKeyword> keywords;  // call keywords; lambda parameters (value null)
};

enum class PyStmtKind : uint8_t {
  kExpr,       // value
  kAssign,     // target = value
  kAnnAssign,  // target: annotation [= value]
  kAugAssign,  // target op= value (a buffer store in TIR; rejected in Relax)
  kReturn,     // return [value]
  kPass,
  kIf,           // if value: body else: orelse
  kWith,         // with value [as target]: body
  kFunctionDef,  // decorators def name[type_params](params) -> returns: body
  kClassDef,     // decorators class name(bases): body
  kImport,       // import / from ... import ...
  kOpaqueDef,    // @I.pyfunc (body kept as text) or @T.prim_func (params and body parsed as TIR)
  kFor,          // for target in value: body (only inside a @T.prim_func)
  kWhile,        // while value: body (only inside a @T.prim_func)
  kAssert,       // assert value[, target] (only inside a @T.prim_func; target: the message)
  kUnsupported,  // for / while / try / ... (text = keyword), reported by the lowering
};

struct PyParam {
  std::string_view name;
  uint32_t begin = 0;
  uint32_t end = 0;
  PyExpr* annotation = nullptr;
  PyExpr* default_value = nullptr;
};

struct PyStmt {
  PyStmtKind kind = PyStmtKind::kPass;
  uint32_t begin = 0;  // the whole statement (for defs: from the first decorator)
  uint32_t end = 0;
  PyExpr* target = nullptr;
  PyExpr* value = nullptr;
  PyExpr* annotation = nullptr;
  std::vector<PyStmt*> body;
  std::vector<PyStmt*> orelse;
  bool has_else = false;
  // kFunctionDef / kClassDef / kOpaqueDef
  std::string_view name;
  uint32_t name_begin = 0;
  std::vector<PyExpr*> decorators;
  std::vector<PyParam> params;       // function parameters
  std::vector<PyParam> type_params;  // def f[n, m: int](...) (annotation = bound)
  PyExpr* returns = nullptr;
  std::vector<PyExpr*> bases;  // class bases and keywords (as written)
  // kImport: `from <module> import <names>` or `import <names>`; kUnsupported: the keyword;
  // kAugAssign: the operator ("+=").
  std::string_view text;
  std::vector<std::string_view> names;
  // kOpaqueDef: the text [text_begin, text_end) of the file (for @T.prim_func: the def only;
  // `params` and `body` hold its parsed signature and body).
  uint32_t text_begin = 0;
  uint32_t text_end = 0;
};

// The dotted spelling of a Name/Attribute chain ("R.nn.conv2d"), or "" for anything else.
std::string DottedName(const PyExpr* e);

// Allocates objects in chunks (stable addresses, one allocation per chunk).
template <typename T>
class Arena {
 public:
  T* New(size_t count = 1) {
    if (count > kChunk) {
      big_.push_back(std::make_unique<T[]>(count));
      return big_.back().get();
    }
    if (used_ + count > kChunk) {
      chunks_.push_back(std::make_unique<T[]>(kChunk));
      used_ = 0;
    }
    T* out = &chunks_.back()[used_];
    used_ += count;
    return out;
  }

 private:
  static constexpr size_t kChunk = 512;
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::vector<std::unique_ptr<T[]>> big_;
  size_t used_ = kChunk;
};

// Owns every node of one parsed file.
class SyntaxTree {
 public:
  PyExpr* NewExpr(PyExprKind kind) {
    PyExpr* e = exprs_.New();
    e->kind = kind;
    return e;
  }
  PyStmt* NewStmt(PyStmtKind kind) {
    PyStmt* s = stmts_.New();
    s->kind = kind;
    return s;
  }
  NodeList<PyExpr*> List(PyExpr* const* items, size_t size) {
    if (size == 0) return {};
    PyExpr** data = expr_lists_.New(size);
    std::copy(items, items + size, data);
    return {data, static_cast<uint32_t>(size)};
  }
  NodeList<PyExpr*> List(const std::vector<PyExpr*>& items) {
    return List(items.data(), items.size());
  }
  NodeList<PyKeyword> List(const PyKeyword* items, size_t size) {
    if (size == 0) return {};
    PyKeyword* data = keyword_lists_.New(size);
    std::copy(items, items + size, data);
    return {data, static_cast<uint32_t>(size)};
  }
  NodeList<PyKeyword> List(const std::vector<PyKeyword>& items) {
    return List(items.data(), items.size());
  }
  std::string_view Str(std::string value) { return strings_.emplace_back(std::move(value)); }
  // Keeps the nodes of `other` (whose statements this tree's body may now hold) alive as long
  // as this tree.
  void Adopt(std::unique_ptr<SyntaxTree> other) { adopted_.push_back(std::move(other)); }

  std::vector<PyStmt*> body;  // top-level statements

 private:
  Arena<PyExpr> exprs_;
  Arena<PyStmt> stmts_;
  Arena<PyExpr*> expr_lists_;
  Arena<PyKeyword> keyword_lists_;
  std::deque<std::string> strings_;
  std::vector<std::unique_ptr<SyntaxTree>> adopted_;
};

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SRC_SCRIPT_SYNTAX_PARSER_AST_H_
