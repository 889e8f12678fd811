// The Relax interpreter on small TVMScript programs, with results computed by hand.
#include "pipesplit/runtime/exec/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "pipesplit/script/parser.h"
#include "src/runtime/exec/op_profile.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

class InterpreterTest : public testing::Test {
 protected:
  Value Run(const std::string& text, std::vector<Value> args, const std::string& fn = "main") {
    mod_ = script::ParseModule(text, "interp.py");
    RegisterCoreBuiltins(&builtins_);
    Interpreter interp(mod_, builtins_);
    return interp.Invoke(fn, std::move(args));
  }
  std::string RunError(const std::string& text, std::vector<Value> args) {
    try {
      Run(text, std::move(args));
    } catch (const RuntimeError& e) {
      return e.what();
    }
    return "no error";
  }
  ir::IRModule mod_;
  BuiltinRegistry builtins_;
};

Tensor F32(Shape shape, std::initializer_list<double> values) {
  return MakeTensor(DataType::Float(32), std::move(shape), values);
}

TEST_F(InterpreterTest, RunsOpsInADataflowBlock) {
  Value out = Run(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), y: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((2, 2), dtype="float32") = R.matmul(x, y)
            b: R.Tensor((2, 2), dtype="float32") = R.add(a, x)
            R.output(b)
        return b
)",
                  {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {1, 0, 0, 1})});
  // x @ I + x = 2x.
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("out")), (std::vector<double>{2, 4, 6, 8}));
}

TEST_F(InterpreterTest, BindsSymbolicVarsFromParameterShapes) {
  Value out = Run(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), dtype="float32")) -> R.Shape(ndim=2):
        n = T.int64()
        s: R.Shape([n * 3, 2]) = R.shape([n * 3, 2])
        return s
)",
                  {F32({4, 2}, {0, 0, 0, 0, 0, 0, 0, 0})});
  ASSERT_NE(out.as_shape(), nullptr);
  EXPECT_EQ(*out.as_shape(), (Shape{12, 2}));
}

TEST_F(InterpreterTest, ParameterShapeMismatchNamesTheParameterAndDim) {
  std::string error = RunError(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        z: R.Tensor((n,), dtype="float32") = R.add(x, y)
        return z
)",
                               {F32({2}, {1, 2}), F32({3}, {1, 2, 3})});
  EXPECT_THAT(error, HasSubstr("parameter 'y' of 'main': dim 0 is 3, expected 2 (n)"));
  EXPECT_THAT(error, HasSubstr("in function 'main', binding 'y' (interp.py:4:52)"));
}

TEST_F(InterpreterTest, MatchCastChecksAndBinds) {
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Shape(ndim=1):
        m = T.int64()
        y: R.Tensor((m,), dtype="float32") = R.match_cast(x, R.Tensor((m,), dtype="float32"))
        z: R.Tensor((2,), dtype="float32") = R.match_cast(y, R.Tensor((2,), dtype="float32"))
        s: R.Shape([m]) = R.shape([m])
        return s
)";
  Value ok = Run(text, {F32({2}, {1, 2})});
  EXPECT_EQ(*ok.as_shape(), (Shape{2}));
  std::string error = RunError(text, {F32({3}, {1, 2, 3})});
  EXPECT_THAT(error, HasSubstr("binding 'z' (interp.py:7:9): R.match_cast of 'z': dim 0 is 3, "
                               "expected 2"));
}

TEST_F(InterpreterTest, IfElseAndFunctionCalls) {
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def double(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y: R.Tensor((2,), dtype="float32") = R.add(x, x)
        return y

    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        if c:
            r: R.Tensor((2,), dtype="float32") = cls.double(x)
        else:
            r: R.Tensor((2,), dtype="float32") = R.negative(x)
        return r
)";
  Tensor x = F32({2}, {1, -3});
  Value yes = Run(text, {MakeTensor(DataType::Bool(), {}, {1}), x});
  EXPECT_EQ(ToDoubleVector(yes.ExpectTensor("out")), (std::vector<double>{2, -6}));
  Value no = Run(text, {MakeTensor(DataType::Bool(), {}, {0}), x});
  EXPECT_EQ(ToDoubleVector(no.ExpectTensor("out")), (std::vector<double>{-1, 3}));
}

// Values are dropped after their last use (interpreter.cc, LastUses): reads several bindings
// later, reads from inside an if branch, the returned var, and a closure that reads a var after
// its last direct use must all still see their values.
TEST_F(InterpreterTest, DropsValuesOnlyAfterTheirLastUse) {
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        a = R.add(x, x)
        b = R.multiply(a, x)
        unused = R.negative(b)
        if c:
            r = R.add(a, b)
        else:
            r = R.subtract(a, b)
        s = R.add(r, a)
        return s
)";
  Tensor x = F32({2}, {1, -3});
  // a = 2x = [2, -6], b = a * x = [2, 18].
  Value yes = Run(text, {MakeTensor(DataType::Bool(), {}, {1}), x});
  EXPECT_EQ(ToDoubleVector(yes.ExpectTensor("out")), (std::vector<double>{6, 6}));
  Value no = Run(text, {MakeTensor(DataType::Bool(), {}, {0}), x});
  EXPECT_EQ(ToDoubleVector(no.ExpectTensor("out")), (std::vector<double>{2, -30}));
}

TEST_F(InterpreterTest, KeepsValuesAClosureReadsLater) {
  Value out = Run(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        a = R.add(x, x)

        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            z = R.multiply(y, a)
            return z

        b = R.negative(x)
        w = inner(b)
        return w
)",
                  {F32({2}, {1, -3})});
  // (-x) * 2x = [-2, -18].
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("out")), (std::vector<double>{-2, -18}));
}

// The buffer of an intermediate goes back to the pool once its last reader ran: a probe keeps
// a weak reference to a tensor's storage, and a later binding reads whether it expired.
TEST_F(InterpreterTest, ReleasesAnIntermediateAfterItsLastReader) {
  auto storage = std::make_shared<std::weak_ptr<const void>>();
  builtins_.Register("test.watch", [storage](BuiltinCall& call) -> Value {
    *storage = call.args[0].ExpectTensor("watched").storage();
    return Value::MakeShape({2});
  });
  builtins_.Register("test.expired", [storage](BuiltinCall& call) -> Value {
    return Tensor(MakeScalar(DataType::Bool(), storage->expired() ? 1 : 0));
  });
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="bool"), R.Tensor((), dtype="bool"), R.Tensor((2,), dtype="float32")):
        a = R.add(x, x)
        w = R.call_pure_packed("test.watch", a, sinfo_args=(R.Shape([2]),))
        still = R.call_pure_packed("test.expired", w, sinfo_args=(R.Tensor((), dtype="bool"),))
        b = R.multiply(a, x)
        gone = R.call_pure_packed("test.expired", b, sinfo_args=(R.Tensor((), dtype="bool"),))
        return (still, gone, b)
)";
  Value out = Run(text, {F32({2}, {1, -3})});
  const Value::Tuple* fields = out.as_tuple();
  ASSERT_NE(fields, nullptr);
  EXPECT_EQ(ElementAsDouble((*fields)[0].ExpectTensor("still"), 0), 0);  // `b` still reads a
  EXPECT_EQ(ElementAsDouble((*fields)[1].ExpectTensor("gone"), 0), 1);
  EXPECT_EQ(ToDoubleVector((*fields)[2].ExpectTensor("b")), (std::vector<double>{2, 18}));
}

// PIPESPLIT_OP_PROFILE's counters: one call per op run, none while profiling is off.
TEST_F(InterpreterTest, OpProfileCountsKernelCalls) {
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        a = R.add(x, x)
        b = R.add(a, x)
        c = R.multiply(b, x)
        return c
)";
  detail::ResetOpProfile();
  detail::SetOpProfileEnabled(true);
  Run(text, {F32({2}, {1, 2})});
  detail::SetOpProfileEnabled(false);
  Run(text, {F32({2}, {1, 2})});
  const std::vector<detail::OpProfileEntry> entries = detail::OpProfileSnapshot();
  detail::ResetOpProfile();
  std::map<std::string, int64_t> calls;
  for (const detail::OpProfileEntry& e : entries) calls[e.op] = e.calls;
  EXPECT_EQ(calls, (std::map<std::string, int64_t>{{"relax.add", 2}, {"relax.multiply", 1}}));
}

TEST_F(InterpreterTest, CallTirIsReportedAsNotExecutable) {
  std::string error = RunError(R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def kernel(A: T.Buffer((T.int64(2),), "float32"), B: T.Buffer((T.int64(2),), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.kernel, (x,), out_sinfo=R.Tensor((2,), dtype="float32"))
        return y
)",
                               {F32({2}, {1, 2})});
  EXPECT_THAT(error, HasSubstr("binding 'y' (interp.py:10:9): cannot execute R.call_tir of TIR "
                               "kernel 'kernel': pipesplit does not execute TIR"));
}

TEST_F(InterpreterTest, UnknownPackedFunctionIsAnError) {
  std::string error = RunError(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Object:
        y: R.Object = R.call_packed("my.missing_func", x, sinfo_args=(R.Object,))
        return y
)",
                               {F32({2}, {1, 2})});
  EXPECT_THAT(error, HasSubstr("unknown packed function 'my.missing_func'"));
}

TEST_F(InterpreterTest, TupleGetItemBuiltinAndStageBoundaryIdentity) {
  Value out = Run(R"(@I.ir_module
class Module:
    @R.function
    def main(p: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32"))) -> R.Tensor((2,), dtype="float32"):
        with R.dataflow():
            w: R.Tensor((2,), dtype="float32") = R.call_pure_packed("vm.builtin.tuple_getitem", p, R.prim_value(1), sinfo_args=(R.Tensor((2,), dtype="float32"),))
            b: R.Tensor((2,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", w, sinfo_args=(R.Tensor((2,), dtype="float32"),))
            R.output(b)
        return b
)",
                  {Value::MakeTuple({F32({2}, {1, 2}), F32({2}, {5, 6})})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("out")), (std::vector<double>{5, 6}));
}

TEST_F(InterpreterTest, MetadataConstantsAreNotAvailable) {
  std::string error = RunError(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y: R.Tensor((2,), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
        return y
)",
                               {F32({2}, {1, 2})});
  EXPECT_THAT(error, HasSubstr("constant metadata[\"relax.expr.Constant\"][0] is not available"));
}

// R.Tensor(s, ...): the annotation is checked against the shape `s` holds at run time.
constexpr const char* kShapeVarModule = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), s: R.Shape(ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        y: R.Tensor(s, dtype="float32") = R.reshape(x, s)
        z = R.match_cast(x, R.Tensor(s, dtype="float32"))
        return y
)";

TEST_F(InterpreterTest, ChecksATensorShapedByAShapeVar) {
  std::string error = RunError(kShapeVarModule, {F32({4}, {1, 2, 3, 4}), Value::MakeShape({2, 2})});
  EXPECT_THAT(error, HasSubstr("has shape (4), expected (2, 2) (the value of s)"));
  EXPECT_THAT(error, HasSubstr("binding 'z'"));
}

}  // namespace
}  // namespace pipesplit::runtime

namespace pipesplit::runtime {
namespace {

// nn.Linear's matmul(x, permute_dims(w)): the transpose is deferred into the matmul (no
// permute_dims kernel runs) when the matmuls are its only readers, and runs when anything else
// reads it; the results are those of the materialized transpose.
TEST_F(InterpreterTest, MatmulReadsAPermutedWeightInPlace) {
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float32")):
        with R.dataflow():
            wt: R.Tensor((3, 2), dtype="float32") = R.permute_dims(w, axes=None)
            a: R.Tensor((2, 2), dtype="float32") = R.matmul(x, wt)
            wt2: R.Tensor((3, 2), dtype="float32") = R.permute_dims(w, axes=[1, 0])
            b: R.Tensor((2, 2), dtype="float32") = R.matmul(x, wt2)
            gv = (a, b)
            R.output(gv)
        return gv
)";
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = F32({2, 3}, {1, 0, -1, 2, 1, 0});
  detail::ResetOpProfile();
  detail::SetOpProfileEnabled(true);
  Value out = Run(text, {x, w});
  std::map<std::string, int64_t> calls;
  for (const detail::OpProfileEntry& e : detail::OpProfileSnapshot()) calls[e.op] = e.calls;
  detail::SetOpProfileEnabled(false);
  EXPECT_EQ(calls["relax.permute_dims"], 0);
  EXPECT_EQ(calls["relax.matmul"], 2);
  // x @ w^T = [[1*1 + 3*-1, 1*2 + 2*1], [4 - 6, 8 + 5]].
  const std::vector<double> want = {-2, 4, -2, 13};
  EXPECT_EQ(ToDoubleVector((*out.as_tuple())[0].ExpectTensor("a")), want);
  EXPECT_EQ(ToDoubleVector((*out.as_tuple())[1].ExpectTensor("b")), want);

  // The transposed weight is also returned: it is materialized.
  detail::ResetOpProfile();
  detail::SetOpProfileEnabled(true);
  Value kept = Run(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32")):
        with R.dataflow():
            wt: R.Tensor((3, 2), dtype="float32") = R.permute_dims(w, axes=None)
            a: R.Tensor((2, 2), dtype="float32") = R.matmul(x, wt)
            gv = (a, wt)
            R.output(gv)
        return gv
)",
                   {x, w});
  calls.clear();
  for (const detail::OpProfileEntry& e : detail::OpProfileSnapshot()) calls[e.op] = e.calls;
  detail::SetOpProfileEnabled(false);
  EXPECT_EQ(calls["relax.permute_dims"], 1);
  EXPECT_EQ(ToDoubleVector((*kept.as_tuple())[0].ExpectTensor("a")), want);
  EXPECT_EQ(ToDoubleVector((*kept.as_tuple())[1].ExpectTensor("wt")),
            (std::vector<double>{1, 2, 0, 1, -1, 0}));
}

}  // namespace
}  // namespace pipesplit::runtime
