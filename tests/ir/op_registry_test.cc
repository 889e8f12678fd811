// The op table itself: well-formed signatures, attribute ordering and completion, lookups, and
// coverage of every op name used in the IR corpus.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "pipesplit/support/text.h"
#include "tests/ir/op_test_util.h"

namespace pipesplit::ir::optest {
namespace {

TEST(OpRegistryTest, EverySignatureIsWellFormed) {
  std::vector<const OpInfo*> ops = ListOps();
  ASSERT_GT(ops.size(), 200u);
  for (const OpInfo* info : ops) {
    SCOPED_TRACE(info->name);
    EXPECT_EQ(info->name.rfind("relax.", 0), 0u);
    EXPECT_FALSE(info->summary.empty());
    std::set<std::string> names;
    int variadic = 0, sinfo_args = 0, relax_args = 0;
    for (const OpParam& p : info->params) {
      EXPECT_TRUE(names.insert(p.name).second) << "duplicate param " << p.name;
      variadic += p.kind == OpParam::Kind::kVariadic;
      sinfo_args += p.kind == OpParam::Kind::kSInfoArgs;
      relax_args += p.kind == OpParam::Kind::kArg || p.kind == OpParam::Kind::kVariadic;
      if (p.kind == OpParam::Kind::kArg && p.default_value) {
        // An optional Relax argument defaults to None or to a Relax expression.
        EXPECT_TRUE(p.default_value->is_none() || p.default_value->as_expr()) << p.name;
      }
      if (p.arg_index >= 0) {
        EXPECT_TRUE(p.kind == OpParam::Kind::kArg || p.kind == OpParam::Kind::kVariadic);
      }
    }
    EXPECT_LE(variadic, 1);
    EXPECT_LE(sinfo_args, 1);
    for (const OpParam& p : info->params) {
      if (p.arg_index >= 0) {
        EXPECT_LT(p.arg_index, relax_args) << p.name;
      }
    }
    EXPECT_EQ(FindOpInfo(info->name), info);
  }
}

TEST(OpRegistryTest, LookupAndInterning) {
  EXPECT_EQ(FindOpInfo("relax.no_such_op"), nullptr);
  Op a = GetOp("relax.add");
  EXPECT_EQ(a, GetOp("relax.add"));
  EXPECT_EQ(a->info(), FindOpInfo("relax.add"));
  Op unknown = GetOp("relax.some_future_op");
  EXPECT_EQ(unknown->info(), nullptr);
  EXPECT_EQ(unknown, GetOp("relax.some_future_op"));
  const OpInfo* print = FindOpInfo("relax.print");
  ASSERT_NE(print, nullptr);
  EXPECT_FALSE(print->is_pure);
  EXPECT_TRUE(FindOpInfo("relax.add")->is_pure);
  EXPECT_EQ(FindParam(*print, "format")->arg_index, 0);
  EXPECT_EQ(FindParam(*print, "missing"), nullptr);
}

TEST(OpRegistryTest, UnknownOpsNeedAnAnnotation) {
  EXPECT_EQ(InferError(C("some_future_op", {T("x", {2})})),
            "op_test.py:1:6: cannot infer the result type of R.some_future_op (unknown op); "
            "annotate the binding");
}

std::string Keys(const AttrMap& attrs) {
  std::string out;
  for (const auto& [k, v] : attrs) out += (out.empty() ? "" : ",") + k;
  return out;
}

std::string IntsOf(const AttrValue& v) {
  std::string out;
  for (const AttrValue& i : *v.as_list())
    out += (out.empty() ? "" : ",") + std::to_string(*i.ToInt());
  return out;
}

TEST(OpRegistryTest, OrderAttrsFollowsTheDeclarationOrder) {
  const OpInfo& pad = *FindOpInfo("relax.nn.pad");
  // TVM's PadAttrs declares pad_value before pad_mode, unlike the Python signature.
  EXPECT_EQ(
      Keys(OrderAttrs(
          pad,
          {{"pad_mode", "edge"}, {"pad_width", Ints({1, 1})}, {"extra", 1}, {"pad_value", 1.0}})),
      "pad_width,pad_value,pad_mode,extra");
  std::vector<std::string> names;
  for (const OpParam* p : AttrParams(*FindOpInfo("relax.quantize"))) names.push_back(p->name);
  EXPECT_EQ(names, (std::vector<std::string>{"out_dtype", "axis"}));
  names.clear();
  for (const OpParam* p : AttrParams(*FindOpInfo("relax.nn.max_pool2d"))) names.push_back(p->name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"pool_size", "strides", "dilation", "padding", "ceil_mode",
                                      "count_include_pad", "layout", "out_layout"}));
}

TEST(OpRegistryTest, CompleteAttrsFillsDefaultsAsTVMStoresThem) {
  AttrMap sum = CompleteAttrs(*FindOpInfo("relax.sum"), {{"axis", 1}});
  EXPECT_EQ(Keys(sum), "axis,keepdims");
  EXPECT_EQ(IntsOf(sum[0].second), "1");
  EXPECT_EQ(*sum[1].second.as_bool(), false);

  AttrMap matmul = CompleteAttrs(*FindOpInfo("relax.matmul"), {{"out_dtype", AttrValue()}});
  EXPECT_EQ(*matmul[0].second.as_string(), "void");  // explicit None takes the default
  // ...but only for string-valued attributes: concat's axis=None means "flatten".
  AttrMap concat = CompleteAttrs(*FindOpInfo("relax.concat"), {{"axis", AttrValue()}});
  EXPECT_TRUE(concat[0].second.is_none());
  EXPECT_EQ(*CompleteAttrs(*FindOpInfo("relax.concat"), {})[0].second.as_int(), 0);

  AttrMap conv =
      CompleteAttrs(*FindOpInfo("relax.nn.conv2d"),
                    {{"padding", Ints({1, 2})}, {"strides", 2}, {"data_layout", "NHWC"}});
  EXPECT_EQ(Keys(conv),
            "strides,padding,dilation,groups,data_layout,kernel_layout,out_layout,out_dtype");
  EXPECT_EQ(IntsOf(*FindAttr(conv, "strides")), "2,2");
  EXPECT_EQ(IntsOf(*FindAttr(conv, "padding")), "1,2,1,2");
  EXPECT_EQ(*FindAttr(conv, "out_layout")->as_string(), "NHWC");
  EXPECT_EQ(*FindAttr(conv, "kernel_layout")->as_string(), "OIHW");

  AttrMap pool = CompleteAttrs(*FindOpInfo("relax.nn.avg_pool1d"), {{"padding", 1}});
  EXPECT_EQ(IntsOf(*FindAttr(pool, "padding")), "1,1");
  EXPECT_EQ(*FindAttr(pool, "count_include_pad")->as_bool(), true);
  EXPECT_EQ(*FindAttr(pool, "out_layout")->as_string(), "NCW");

  // Required attributes stay absent; unknown keys are kept at the end.
  EXPECT_EQ(Keys(CompleteAttrs(*FindOpInfo("relax.astype"), {{"foo", 1}})), "foo");
  AttrMap rms = CompleteAttrs(*FindOpInfo("relax.nn.rms_norm"), {});
  EXPECT_EQ(IntsOf(*FindAttr(rms, "axes")), "-1");
  EXPECT_EQ(*FindAttr(rms, "epsilon")->as_float(), 1e-5);
}

TEST(OpRegistryTest, GetAttrOrDefault) {
  Call take = C("take", {T("x", {4}), T("i", {2}, "int64")});
  EXPECT_TRUE(GetAttrOrDefault(*take, "axis")->is_none());
  EXPECT_EQ(*GetAttrOrDefault(*take, "mode")->as_string(), "fast");
  EXPECT_FALSE(GetAttrOrDefault(*take, "nope").has_value());
  Call unknown = C("future", {}, {{"k", 3}});
  EXPECT_EQ(*GetAttrOrDefault(*unknown, "k")->as_int(), 3);
  EXPECT_FALSE(GetAttrOrDefault(*unknown, "j").has_value());
}

TEST(OpRegistryTest, OptionalArgumentDefaults) {
  const OpParam* format = FindParam(*FindOpInfo("relax.print"), "format");
  const auto* str = As<StringImmNode>(*format->default_value->as_expr());
  ASSERT_NE(str, nullptr);
  EXPECT_EQ(str->value(), "");
  const OpParam* tir_vars = FindParam(*FindOpInfo("relax.call_tir"), "tir_vars");
  EXPECT_TRUE(tir_vars->default_value->is_none());
  const OpParam* k = FindParam(*FindOpInfo("relax.triu"), "k");
  const auto* prim = As<PrimValueNode>(*k->default_value->as_expr());
  ASSERT_NE(prim, nullptr);
  EXPECT_EQ(ToString(prim->value()), "0");
}

// Every R.<name>( in the corpus that is not struct info or syntax sugar is a registered op.
TEST(OpRegistryTest, CoversEveryOpInTheCorpus) {
  std::filesystem::path root =
      std::filesystem::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "corpus not found at " << root;
  const std::set<std::string> not_ops = {
      "Tensor",   "Tuple",      "Shape",     "Prim",       "Object",     "Callable", "function",
      "dataflow", "output",     "func_attr", "prim_value", "shape",      "str",      "dtype",
      "tuple",    "match_cast", "const",     "ExternFunc", "call_packed"};
  std::regex call(R"(R\.([A-Za-z_][A-Za-z_0-9.]*)\()");
  std::set<std::string> seen, missing;
  size_t files = 0;
  for (const char* dir : {"tvm-printer", "mlc-llm-2023"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      std::string name = entry.path().filename().string();
      if (name.size() < 3 || name.substr(name.size() - 3) != ".py") continue;
      if (std::string(dir) == "tvm-printer" && name.find(".tvm.py") == std::string::npos) {
        continue;
      }
      ++files;
      std::string text, error;
      ASSERT_TRUE(ReadFile(entry.path().string(), &text, &error)) << error;
      for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
        std::string op = (*it)[1];
        if (not_ops.count(op) || !seen.insert(op).second) continue;
        if (FindOpInfo("relax." + op) == nullptr) missing.insert(op);
      }
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_GT(seen.size(), 150u);
  std::string list;
  for (const std::string& m : missing) list += " " + m;
  EXPECT_TRUE(missing.empty()) << "unregistered corpus ops:" << list;
}

}  // namespace
}  // namespace pipesplit::ir::optest
