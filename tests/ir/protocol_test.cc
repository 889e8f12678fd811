// The named contracts: recognising and building extern calls (protocol.h), and the script
// spelling every op carries (OpNode::script_name).
#include "pipesplit/ir/protocol.h"

#include <gtest/gtest.h>

#include "pipesplit/ir/attr_names.h"
#include "pipesplit/ir/op.h"

namespace pipesplit::ir {
namespace {

Expr Extern(const char* symbol) { return std::make_shared<const ExternFuncNode>(symbol); }

Call CallOf(std::string_view op, std::vector<Expr> args) {
  return std::make_shared<const CallNode>(GetOp(op), std::move(args));
}

TEST(ProtocolTest, IsExternCallMatchesOpAndSymbol) {
  Call call = CallOf(protocol::kCallPurePacked, {Extern(protocol::kStageBoundary)});
  EXPECT_EQ(IsExternCall(call, protocol::kCallPurePacked, protocol::kStageBoundary), call.get());
  EXPECT_TRUE(IsExternCall(*call, protocol::kCallPurePacked, protocol::kStageBoundary));
  EXPECT_EQ(PackedCallee(*call)->global_symbol(), protocol::kStageBoundary);
}

TEST(ProtocolTest, IsExternCallRejectsAnotherOp) {
  Call call = CallOf(protocol::kCallDpsPacked, {Extern(protocol::kStageBoundary)});
  EXPECT_EQ(IsExternCall(call, protocol::kCallPurePacked, protocol::kStageBoundary), nullptr);
  EXPECT_FALSE(IsExternCall(*call, protocol::kCallPurePacked, protocol::kStageBoundary));
}

TEST(ProtocolTest, IsExternCallRejectsAnotherSymbol) {
  Call call = CallOf(protocol::kCallPurePacked, {Extern(protocol::kTupleGetItem)});
  EXPECT_EQ(IsExternCall(call, protocol::kCallPurePacked, protocol::kStageBoundary), nullptr);
}

TEST(ProtocolTest, IsExternCallRejectsNonExternCallee) {
  // The first argument is a string, not an ExternFunc; no argument at all; not a call.
  Call string_arg = CallOf(protocol::kCallPurePacked,
                           {std::make_shared<const StringImmNode>(protocol::kStageBoundary)});
  EXPECT_EQ(IsExternCall(string_arg, protocol::kCallPurePacked, protocol::kStageBoundary), nullptr);
  EXPECT_EQ(PackedCallee(*string_arg), nullptr);
  Call no_args = CallOf(protocol::kCallPurePacked, {});
  EXPECT_EQ(IsExternCall(no_args, protocol::kCallPurePacked, protocol::kStageBoundary), nullptr);
  EXPECT_EQ(IsExternCall(Extern(protocol::kStageBoundary), protocol::kCallPurePacked,
                         protocol::kStageBoundary),
            nullptr);
}

TEST(ProtocolTest, DirectExternCall) {
  Expr value = CallOf("relax.add", {});
  Call send = std::make_shared<const CallNode>(Extern(protocol::kSendToNextGroup),
                                               std::vector<Expr>{value});
  EXPECT_EQ(IsExternCall(send, protocol::kSendToNextGroup), send.get());
  EXPECT_EQ(IsExternCall(send, protocol::kRecvFromPrevGroup), nullptr);
  // A packing op is not a direct call, whatever its first argument.
  Call packed = CallOf(protocol::kCallPurePacked, {Extern(protocol::kSendToNextGroup)});
  EXPECT_EQ(IsExternCall(packed, protocol::kSendToNextGroup), nullptr);
}

TEST(ProtocolTest, MakeExternCallBuildsWhatIsExternCallMatches) {
  Expr index = std::make_shared<const PrimValueNode>(IntImm(3));
  Call call = MakeExternCall(protocol::kCallPurePacked, protocol::kTupleGetItem, {index},
                             {ObjectSInfo()}, ObjectSInfo());
  ASSERT_TRUE(IsExternCall(*call, protocol::kCallPurePacked, protocol::kTupleGetItem));
  ASSERT_EQ(call->args().size(), 2u);
  EXPECT_EQ(call->args()[1], index);
  EXPECT_EQ(call->sinfo_args().size(), 1u);
  EXPECT_NE(call->struct_info(), nullptr);
}

TEST(ProtocolTest, AttributeNames) {
  EXPECT_STREQ(attr::kGlobalSymbol, "global_symbol");
  EXPECT_STREQ(attr::kNumInput, "num_input");
  EXPECT_STREQ(attr::kPipelineParallelStages, "pipeline_parallel_stages");
}

TEST(OpScriptNameTest, RelaxOpsArePrefixedWithR) {
  EXPECT_EQ(GetOp("relax.add")->script_name(), "R.add");
  EXPECT_EQ(GetOp("relax.nn.conv2d")->script_name(), "R.nn.conv2d");
  EXPECT_EQ(GetOp("relax.call_pure_packed")->script_name(), "R.call_pure_packed");
  // Opaque ops (not in the table) are spelled the same way.
  EXPECT_EQ(GetOp("relax.not_an_op")->script_name(), "R.not_an_op");
}

TEST(OpScriptNameTest, OtherNamesAreKept) {
  EXPECT_EQ(GetOp("custom.op")->script_name(), "custom.op");
  EXPECT_EQ(OpScriptName("relaxed.op"), "relaxed.op");
  EXPECT_EQ(OpScriptName("relax."), "R.");
}

TEST(OpScriptNameTest, EveryRegisteredOp) {
  for (const OpInfo* info : ListOps()) {
    const std::string& spelled = GetOp(info->name)->script_name();
    EXPECT_EQ("relax." + spelled.substr(2), info->name);
    EXPECT_EQ(spelled.rfind("R.", 0), 0u) << info->name;
  }
}

}  // namespace
}  // namespace pipesplit::ir
