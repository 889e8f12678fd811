// Lowering: the syntax tree of one TVMScript file to an IRModule.
//
// Evaluates expressions the way TVM's parser does (TVM's parser is Python evaluation with
// overloaded names): a Value is what Python would hold (an int, a string, a symbolic
// PrimExpr, a Relax expression, struct info, a tuple, ...), and each consumer converts it
// (a Relax argument, an op attribute, a shape dimension). Bindings go through an
// ir::BlockBuilder per function; nested non-leaf arguments are bound to fresh vars named the
// way TVM's BlockBuilder names them ("lv"/"gv" plus a counter shared with the user's
// bindings), so printing reproduces TVM's output.
//
// The class is implemented across several files by concept:
//   parser_module.cc    module level: members, signatures, prim funcs, syntax detection
//   parser_function.cc  signatures, bodies, statements, nested functions, return
//   parser_blocks.cc    dataflow blocks, if/else, SeqExpr assembly
//   parser_binding.cc   bindings, normalization and annotation checks
//   parser_eval.cc      expression evaluation: names, literals, attributes, subscripts
//   parser_operators.cc Python operators: folding, TIR arithmetic, Relax operator sugar
//   parser_call.cc      calls: R.* builtins, op-table argument placement, packed calls
//   parser_intrinsics.cc T.* and I.* calls: immediates, declarations, intrinsics
//   parser_sinfo.cc     struct info annotations, symbolic dimensions, vdevices
//   parser_value.cc     Value conversions (to Relax args, PrimExprs, attributes)
#ifndef PIPESPLIT_SRC_SCRIPT_RELAX_PARSER_LOWER_H_
#define PIPESPLIT_SRC_SCRIPT_RELAX_PARSER_LOWER_H_

#include <array>
#include <bitset>
#include <deque>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "pipesplit/ir/block_builder.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/ir/op.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/source.h"
#include "src/script/syntax/lexer.h"
#include "src/script/syntax/parser_ast.h"

namespace pipesplit::script {

// A hash of short names (identifiers) for the lowering's maps (abseil's flat maps): FNV-1a,
// cheaper than std::hash's on the few bytes of a name; transparent, so lookups take a
// string_view (Debian's abseil has its own string_view, which its default hash requires).
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    uint64_t h = 14695981039346656037ull;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};
template <typename T>
using NameMap = absl::flat_hash_map<std::string, T, NameHash, std::equal_to<>>;
using NameSet = absl::flat_hash_set<std::string, NameHash, std::equal_to<>>;

// A Python-level value during evaluation.
struct Value {
  enum class Kind : uint8_t {
    kNone,
    kBool,
    kInt,
    kFloat,
    kStr,
    kPrim,       // symbolic/scalar PrimExpr (TirVar, n * 2, T.float32(1.5))
    kExpr,       // Relax expression (possibly an unnormalized call)
    kSInfo,      // struct info (R.Tensor(...), T.int64 as a type)
    kTuple,      // items
    kList,       // items
    kDict,       // items = [k0, v0, k1, v1, ...]
    kModule,     // the module class (`Module`, `cls`)
    kTypeVar,    // module-level `n = TypeVar("n")`
    kSymDecl,    // T.int64() / T.Var("n", "int64"): declares a symbolic var when bound
    kMatchCast,  // R.match_cast(value, sinfo): expr + sinfo
    kAttr,       // an attribute-only value (I.vdevice(...), T.index_map(...))
  };
  Kind kind = Kind::kNone;
  bool b = false;
  bool is_size_var = false;  // kSymDecl
  int64_t i = 0;
  double f = 0;
  std::string s;   // kStr; kModule: class name; kTypeVar / kSymDecl: declared name
  DataType dtype;  // kSymDecl
  ir::PrimExpr prim;
  ir::Expr expr;
  ir::StructInfo sinfo;
  std::vector<Value> items;
  // kAttr (shared: most values have none, and a Value is copied and moved often)
  std::shared_ptr<const ir::AttrValue> attr;
  const PyExpr* node = nullptr;  // the expression it was evaluated from (for locations)
};

const char* ValueKindName(Value::Kind kind);

// Python scalars, with the expression they came from.
Value MakeInt(int64_t v, const PyExpr* node);
Value MakeFloat(double v, const PyExpr* node);
Value MakeBool(bool v, const PyExpr* node);
bool IsNumber(const Value& v);    // bool, int or float
double AsDouble(const Value& v);  // of a number
int64_t AsInt(const Value& v);    // of a bool or int

// Name -> value bindings with nested frames. O(1) lookup: each name maps to its innermost
// entry, entries link to the one they shadow, and a frame's entries are the tail of one
// vector (frames are LIFO), so popping a frame restores the shadowed entries.
class SymbolTable {
 public:
  void PushFrame();
  void PopFrame();
  // Binds `name` in the innermost frame (rebinding replaces).
  void Define(std::string_view name, Value value);
  // Room for `count` more names without rehashing (a block about to bind that many).
  void Reserve(size_t count) { innermost_.reserve(innermost_.size() + count); }
  // The innermost binding of `name`, or nullptr.
  const Value* Lookup(std::string_view name) const;
  // Whether `name` is bound in the innermost frame.
  bool InInnermostFrame(std::string_view name) const;
  size_t depth() const { return frame_starts_.size(); }

 private:
  struct Entry {
    std::string name;
    Value value;
    int64_t shadowed;  // the entry this one hides, or -1
  };
  std::deque<Entry> entries_;  // a deque: growing never moves the (large) entries
  std::vector<size_t> frame_starts_;
  NameMap<int64_t> innermost_;
  // The one-character names ever defined (never cleared): a lookup of an unbound one (the
  // namespaces "R", "T", "I", looked up on each call) skips the hash table.
  std::bitset<256> single_chars_defined_;
  bool NeverDefined(std::string_view name) const {
    return name.size() == 1 && !single_chars_defined_[static_cast<unsigned char>(name[0])];
  }
};

// Per-function parsing state (nested functions get their own).
struct FunctionState {
  FunctionState* parent = nullptr;
  std::string name;
  ir::BlockBuilder bb;
  // TVM's BlockBuilder names every emitted var "gv" / "lv" plus a counter (its name supply
  // only ever sees those two hints), whatever name the binding finally gets.
  int gv_count = 0;
  int lv_count = 0;
  std::string FreshName(bool dataflow) {
    int& count = dataflow ? lv_count : gv_count;
    std::string name = dataflow ? "lv" : "gv";
    if (count > 0) name += std::to_string(count);
    ++count;
    return name;
  }
  // Advances the counter FreshName uses, without making the name.
  void SkipFreshName(bool dataflow) { ++(dataflow ? lv_count : gv_count); }
  // Finished binding blocks of each open SeqExpr (function body, if branches).
  std::vector<std::vector<ir::BindingBlock>> seq_blocks;
  // Symbolic declarations found in the top-level body (`n = T.int32()`): their dtype decides
  // the dtype of the signature's var of that name; a constant (`n = T.int64(4)`) replaces it.
  std::unordered_map<std::string, Value> prelude_decls;
  // Dataflow block being parsed.
  bool in_dataflow = false;
  bool dataflow_output_seen = false;
  size_t dataflow_stmt_index = 0;
  NameMap<size_t> dataflow_last_binding;  // name -> statement index
  NameSet dataflow_outputs;               // names listed in R.output
  std::vector<std::pair<std::string, ir::Var>> dataflow_output_vars;
  absl::flat_hash_set<const ir::VarNode*> dataflow_emitted;
  // R.func_attr
  bool has_attrs = false;
  ir::AttrMap attrs;
  // Nesting of if branches (dataflow blocks are not allowed inside them and vice versa).
  int if_depth = 0;
};

class Lowerer {
 public:
  Lowerer(const SourceFile& file, const ParseOptions& options, const SyntaxTree& tree,
          const LexInfo& lex_info);
  ir::IRModule Run();

  // ---- Shared helpers (used across the implementation files) ----
  Span SpanOf(const PyExpr* e) const;
  Span SpanOf(uint32_t begin, uint32_t end) const;
  [[noreturn]] void Error(const PyExpr* e, std::string message) const;
  [[noreturn]] void Error(Span span, std::string message) const;
  std::string Text(const PyExpr* e) const;

 private:
  // ---- parser_module.cc ----
  void DetectSyntax();
  void LowerModuleClass(const PyStmt* cls);
  void LowerModuleStatement(const PyStmt* stmt);
  void DeclareFunction(const PyStmt* def);
  void LowerPrimFunc(const PyStmt* def);
  void LowerPyFunc(const PyStmt* def);
  void AddMember(std::string_view name, Span span, ir::GlobalVar gvar, ir::Expr func);
  struct DecoratorInfo {
    bool pure = true;
    bool is_private = false;
  };
  DecoratorInfo LowerFunctionDecorators(const PyStmt* def);

  // ---- parser_function.cc ----
  // Parses a Relax function (top-level or nested).
  ir::Function LowerFunction(const PyStmt* def, bool nested);
  // Signature: params (defined in the current frame) and return annotation (may be null).
  std::vector<ir::Var> LowerParams(const PyStmt* def);
  ir::StructInfo LowerReturnAnnotation(const PyStmt* def);
  void CollectPreludeDecls(const PyStmt* def, FunctionState* fn);
  // A PEP 695 type parameter is an unbounded or int-bounded name without a default.
  void CheckTypeParam(const PyParam& p);
  void DefineTypeParams(const PyStmt* def);
  // The callable struct info a signature declares, parsed in a scratch scope under `parent`
  // (for GlobalVars declared before bodies, and recursive local functions); `unannotated` is
  // the return struct info used when the signature has no return annotation.
  ir::StructInfo DeclaredSignature(const PyStmt* def, FunctionState* parent,
                                   const ir::StructInfo& unannotated);
  void LowerBody(const std::vector<PyStmt*>& body, bool top_level, ir::Expr* ret);
  void LowerStatement(const PyStmt* stmt, bool top_level, ir::Expr* ret);
  void LowerWith(const PyStmt* stmt);
  void LowerIf(const PyStmt* stmt);
  void LowerExprStatement(const PyStmt* stmt);
  void LowerFuncAttr(const PyExpr* call);
  void LowerOutput(const PyExpr* call);
  void LowerNestedFunction(const PyStmt* def);
  ir::Expr LowerReturnValue(const PyStmt* stmt);
  // Closes the open block and appends it to the innermost SeqExpr's blocks.
  void FinishBlock();
  // Builds the SeqExpr of the innermost frame with TVM's block normalization (empty blocks
  // dropped, adjacent blocks of the same kind merged).
  ir::Expr MakeSeqExpr(const ir::Expr& body, Span span);

  // ---- parser_binding.cc ----
  void LowerAssign(const PyStmt* stmt);
  void BindTarget(const PyExpr* target, const Value& value, const PyExpr* annotation_node,
                  const ir::StructInfo& annotation, Span stmt_span);
  void BindSymbolicDecl(const PyExpr* target, const Value& value);
  ir::Var EmitBinding(std::string_view name, Span name_span, const Value& value,
                      const ir::StructInfo& annotation, const PyExpr* annotation_node,
                      Span stmt_span);
  ir::Var EmitMatchCast(std::string_view name, Span name_span, const Value& value,
                        const ir::StructInfo& annotation, const PyExpr* annotation_node,
                        Span stmt_span);
  // Makes a new binding var (dataflow or not, by the dataflow rules) and emits the binding.
  ir::Var EmitVar(std::string_view name, Span name_span, const ir::Expr& value,
                  const ir::StructInfo& sinfo, const ir::StructInfo* match_sinfo, Span stmt_span);
  bool IsDataflowBindingName(std::string_view name) const;

 public:
  // Normalizes a value used as an argument: infers its struct info and binds it to a fresh
  // var unless it is a leaf or a tuple (TVM's NormalizeArgument).
  ir::Expr NormalizeArg(const ir::Expr& expr);
  // Infers the struct info of an expression whose arguments are normalized.
  ir::Expr NormalizeValue(const ir::Expr& expr);
  // Emits `value` under a fresh "lv"/"gv" name.
  ir::Var EmitFresh(const ir::Expr& value);

  // ---- parser_eval.cc ----
  Value Eval(const PyExpr* e);
  Value EvalName(const PyExpr* e);
  Value EvalAttribute(const PyExpr* e);
  Value EvalSubscript(const PyExpr* e);
  Value EvalBinOp(const PyExpr* e);
  Value EvalUnaryOp(const PyExpr* e);
  Value EvalCompare(const PyExpr* e);
  Value EvalBoolOp(const PyExpr* e);
  Value EvalLiteral(const PyExpr* e);
  Value EvalLambda(const PyExpr* e, DataType index_dtype);
  // Applies a binary operator to evaluated operands (Python semantics per value kind).
  Value ApplyBinary(PyOp op, const Value& a, const Value& b, const PyExpr* node);
  Value RelaxOperator(const char* op_name, std::vector<ir::Expr> args, const PyExpr* node);

  // ---- parser_call.cc ----
  // Binds the arguments of `call` to the parameters of a builtin with a fixed Python signature;
  // one node per parameter (null when not given). `call` may be a bare name (no arguments).
  // At most kMaxBoundArgs parameters.
  static constexpr size_t kMaxBoundArgs = 4;
  struct BoundArgs {
    std::array<const PyExpr*, kMaxBoundArgs> items{};
    const PyExpr* operator[](size_t i) const { return items[i]; }
  };
  BoundArgs BindArgs(const PyExpr* call, std::string_view display,
                     std::initializer_list<std::string_view> params) const;
  Value EvalCall(const PyExpr* e);
  Value EvalRelaxBuiltin(const std::string& name, const PyExpr* call);
  Value EvalTirBuiltin(const std::string& name, const PyExpr* call);
  Value EvalIrBuiltin(const std::string& name, const PyExpr* call);
  // A call kept as an attribute value (AttrCall named `callee`), e.g. a global info.
  Value EvalAttrCall(const std::string& callee, const PyExpr* call);
  Value CallOp(const std::string& op_name, const PyExpr* call);
  // R.call_tir(cls.f, (names...), out_sinfo=...) built directly (parser_call_tir.cc; EvalCall
  // tries it first); false (nothing evaluated) when the call has another form.
  bool TryDirectCallTir(const PyExpr* call, Value* out);
  void DesugarOpCall(const std::string& op_name, const PyExpr* call, ir::Op* op,
                     std::vector<ir::Expr>* args, ir::AttrMap* attrs);
  // Takes the evaluated arguments (may modify them: call_tir's trailing symbolic arguments).
  Value CallOpWithArgs(const std::string& op_name, std::vector<Value>& positional,
                       std::vector<std::pair<const PyKeyword*, Value>>& keywords,
                       const PyExpr* call);
  Value CallPacked(const PyExpr* call);
  // `A.ndim`, `A.dtype.bits`, `A.shape[i]`, ...: the relax.inspect op `op` of a tensor.
  Value InspectTensor(const std::string& op, const Value& tensor, const Value* axis,
                      const PyExpr* e);
  Value CallPyFunc(const PyExpr* call);
  Value CallValue(const Value& callee, const PyExpr* call);

  // ---- parser_sinfo.cc ----
  // Evaluates an annotation to struct info (signature: strings may introduce symbolic vars).
  ir::StructInfo EvalSInfo(const PyExpr* e, bool signature);
  ir::StructInfo ToSInfo(const Value& v, const PyExpr* node);
  // The struct info of an op call's sinfo_args / out_sinfo (a list folds into one tuple when
  // `fold_list`).
  std::vector<ir::StructInfo> ToSInfoArgs(const Value& v, bool fold_list, const PyExpr* node);
  Value MakeSInfo(const std::string& name, const PyExpr* call);
  ir::PrimExpr EvalDim(const PyExpr* e);
  std::vector<ir::PrimExpr> EvalDims(const PyExpr* e);
  // `dim` if every symbolic variable in it is int64; a located error otherwise.
  ir::PrimExpr CheckShapeDim(ir::PrimExpr dim, const PyExpr* node);
  ir::PrimExpr ParseStringDim(const PyExpr* e);
  std::string LookupVDevice(const Value& v, const PyExpr* node);
  // Whether `annotation` can never describe a value of struct info `value` (TVM's kFailL0).
  static bool StaticallyIncompatible(const ir::StructInfo& annotation, const ir::StructInfo& value);

  // ---- parser_value.cc ----
  ir::Expr ToExpr(const Value& v, const PyExpr* node);  // convert_to_expr (unnormalized)
  ir::Expr ToArg(const Value& v, const PyExpr* node);   // ToExpr + NormalizeArg
  ir::Expr ToOpArg(const Value& v, const ir::OpParam& param, const std::string& op_name,
                   const PyExpr* node);
  ir::PrimExpr ToPrim(const Value& v, const PyExpr* node);
  // The symbolic value of a Relax var of known prim value (R.Prim(value=n); in the current
  // syntax a `n: T.int64` parameter), or null.
  static ir::PrimExpr PrimOfVar(const Value& v);
  bool IsPrimLike(const Value& v) const;
  ir::AttrValue ToAttr(const Value& v, const PyExpr* node);
  std::string ToStr(const Value& v, const PyExpr* node, const char* what);
  int64_t ToInt(const Value& v, const PyExpr* node, const char* what);
  bool ToBool(const Value& v, const PyExpr* node, const char* what);
  DataType ToDType(const Value& v, const PyExpr* node);
  ir::PrimExpr MakeIntImm(int64_t value, DataType dtype, const PyExpr* node);
  // R.const (parser_const.cc): the dtype of an untyped literal, one element converted to
  // `dtype`, and a tensor literal from a nested list (`dtype` null when not given).
  static DataType DefaultConstDType(Value::Kind kind);
  ir::ConstantNode::Scalar ConstElement(const Value& value, DataType dtype, const PyExpr* node);
  ir::Expr ConstTensor(const Value& value, const PyExpr* node, const DataType* dtype, Span span);
  // Coerces two PrimExprs to a common dtype (literal operands take the other's dtype).
  void MatchDTypes(ir::PrimExpr* a, ir::PrimExpr* b, bool a_literal, bool b_literal,
                   const PyExpr* node);

  // ---- State ----
  const SourceFile& file_;
  ParseOptions options_;
  const SyntaxTree& tree_;
  LexInfo lex_info_;
  bool current_syntax_ = false;  // the file uses the current (Aug 2026) syntax
  bool future_annotations_ = false;
  bool uses_type_var_decls_ = false;                // module-level `n = TypeVar("n")`
  std::unordered_set<std::string> type_var_names_;  // their names (for the TIR functions)
  bool tir_sblock_ = false;  // TIR spelled T.sblock / s_tir=True (TVM since 2026)
  ir::IRModule module_;
  std::string module_name_;
  NameMap<ir::GlobalVar> globals_;
  std::unordered_map<std::string, Span> member_spans_;
  struct VDevice {
    std::string kind;
    std::string memory_scope;
  };
  std::vector<VDevice> vdevices_;
  bool metadata_referenced_ = false;
  SymbolTable symbols_;
  FunctionState* fn_ = nullptr;
  bool signature_mode_ = false;  // evaluating a function signature
  // The value of the annotated assignment being lowered (its call takes the annotation as its
  // struct info, not an inferred one), or null.
  const PyExpr* annotated_value_ = nullptr;
  bool create_symbols_ = false;  // undefined names in dimensions become symbolic vars
  // A copy of the file in which string dimensions holding escaped quotes
  // ("n * T.Cast(\"int32\", m)") read unescaped, at the same offsets (made on first use).
  std::unique_ptr<SourceFile> unescaped_file_;
  // The last op looked up by name and the last dtype parsed from a string (consecutive
  // bindings mostly repeat them: one string compare instead of a table lookup or a parse).
  std::string last_op_name_;
  ir::Op last_op_;
  std::string last_relax_short_name_;  // R.<name> called last as an op, and its "relax.<name>"
  std::string last_relax_op_name_;
  std::string last_dtype_text_;
  DataType last_dtype_;
  // R.Tensor((16, 64), dtype="float32") with literal dims and a literal dtype, by its text: one
  // node for every occurrence (a lowered module writes a few dozen such types thousands of
  // times). Such a struct info holds no symbolic var, so no diagnostic ever points at its span
  // (it is the first occurrence's); see StaticTensorText.
  absl::flat_hash_map<std::string_view, ir::StructInfo> static_tensors_;
  // The text of `call` when it is R.Tensor(<tuple or list of int literals>, dtype=<string>)
  // (or with the dtype second positionally), else empty.
  std::string_view StaticTensorText(const PyExpr* call) const;
  // The shared node of `call`, a call of R.Tensor (R unbound), when it is such a type built
  // before (EvalCall returns it without evaluating the call).
  const ir::StructInfo* SeenStaticTensor(const PyExpr* call) const;
  // CallOp's argument vectors, reused (a stack: calls nest in arguments).
  std::vector<std::vector<Value>> positional_pool_;
  std::vector<std::vector<std::pair<const PyKeyword*, Value>>> keyword_pool_;
  // CallOpWithArgs's working vectors (reused: no allocation per call).
  std::vector<const Value*> scratch_bound_;
  std::vector<const Value*> scratch_variadic_;
  std::vector<std::pair<int, ir::Expr>> scratch_placed_;
  std::vector<ir::Expr> scratch_ordered_;
  bool in_scratch_call_ = false;  // CallOpWithArgs is using the scratch vectors
  // The op GetOp returns for `name`, through the one-entry cache above.
  ir::Op CachedOp(const std::string& name);
};

// Leaf expressions and tuples: what TVM's normalizer leaves in place as an argument.
bool IsLeafOrTuple(const ir::Expr& e);

// Whether `e` is a call of `R.<name>` written as such ("R.output(...)").
bool IsRelaxCall(const PyExpr* e, std::string_view name);

// Struct info as the parser's diagnostics spell it: the printer's classic spelling on one
// line, not cut.
inline std::string RenderStructInfo(const ir::StructInfo& sinfo) {
  FragmentOptions options;
  options.one_line = true;
  return PrintStructInfo(sinfo, options);
}

// Gives each kernel the shape vars of the one Relax function that calls it, where its calls
// align them (parser_kernel_vars.cc): the sharing LegalizeOps made and TVM's printer hides.
void ShareKernelVars(ir::IRModule* mod);

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SRC_SCRIPT_RELAX_PARSER_LOWER_H_
