// MLC's conversation templates (serve/text/conversation.h), against
// tests/serving/conversation_fixtures/prompts.json, written from MLC-LLM 79d603f's own source by
// tools/make_conversation_fixtures.py (and its ids by tools/make_conversation_ids.js, Hugging
// Face's tokenizers 0.23.2):
//  - every preset pipesplit carries writes MLC's JSON of it, field order included;
//  - for every preset and 5 conversations (multi-turn with a system message, one message, the
//    template's own system message, an empty one, an assistant message last) the prompt text is
//    MLC's, from the preset and from its JSON;
//  - the ids equal where a corpus tokenizer has the template's special tokens (Llama 2's BPE,
//    Phi-3's, Phi-2's, and DeepSeek's with Llama 3's regex and Llama 3's and ChatML's tokens);
//  - an mlc-chat-config.json's template, object or name; the errors, located.
#include "pipesplit/serve/text/conversation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "pipesplit/support/diagnostic.h"
#include "tests/serving/tokenizer_variants.h"

namespace pipesplit::serve {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using ::testing::HasSubstr;
using text::ChatMessage;
using text::ConversationTemplate;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

const Json& Fixture() {
  static const Json fixture =
      Json::parse(ReadFile(fs::path(PIPESPLIT_SOURCE_DIR) / "tests" / "serving" /
                           "conversation_fixtures" / "prompts.json"));
  return fixture;
}

std::vector<ChatMessage> Messages(const Json& list) {
  std::vector<ChatMessage> out;
  for (const Json& m : list) out.push_back({m.at("role"), m.at("content")});
  return out;
}

fs::path TokenizerCorpus() {
  for (const fs::path& root : {fs::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus",
                               fs::path("/work/shared/corpus")}) {
    if (fs::is_directory(root / "tokenizers")) return root;
  }
  return {};
}

std::vector<std::string> TemplateNames() {
  std::vector<std::string> names;
  for (const Json& t : Fixture().at("templates")) names.push_back(t.at("name"));
  return names;
}

class Preset : public ::testing::TestWithParam<std::string> {
 protected:
  const Json& Entry() const {
    for (const Json& t : Fixture().at("templates")) {
      if (t.at("name") == GetParam()) return t;
    }
    throw std::logic_error("no fixture");
  }
};

TEST(Conversation, EveryPresetIsInTheFixture) {
  EXPECT_EQ(text::ConversationPresetNames(), TemplateNames());
}

TEST_P(Preset, WritesMlcsJson) {
  const std::optional<ConversationTemplate> conv = text::ConversationPreset(GetParam());
  ASSERT_TRUE(conv.has_value());
  const std::string expected = Entry().at("json").dump(-1, ' ', /*ensure_ascii=*/true);
  EXPECT_EQ(text::ConversationTemplateJson(*conv, -1), expected);
  // And reads it back to the same template.
  const ConversationTemplate back =
      text::ParseConversationTemplate("fixture.json", Entry().at("json").dump());
  EXPECT_EQ(text::ConversationTemplateJson(back, 2), text::ConversationTemplateJson(*conv, 2));
}

TEST_P(Preset, BuildsMlcsPrompts) {
  const ConversationTemplate preset = *text::ConversationPreset(GetParam());
  const ConversationTemplate parsed =
      text::ParseConversationTemplate("fixture.json", Entry().at("json").dump());
  for (const auto& [key, expected] : Entry().at("prompts").items()) {
    const std::vector<ChatMessage> messages = Messages(Fixture().at("conversations").at(key));
    EXPECT_EQ(text::ConversationPrompt(preset, messages), expected.get<std::string>()) << key;
    EXPECT_EQ(text::ConversationPrompt(parsed, messages), expected.get<std::string>()) << key;
  }
}

// The chat tokens tools/make_conversation_ids.js adds to DeepSeek's tokenizer (ids from 32022).
void MakeLlama3Chat(Json& j) {
  testing_tokenizers::SetLlama3PreTokenizer(j);
  int id = 32022;
  for (const char* content :
       {"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eom_id|>", "<|eot_id|>", "<|im_start|>", "<|im_end|>", "<|endoftext|>"}) {
    j["added_tokens"].push_back({{"id", id++},
                                 {"content", content},
                                 {"single_word", false},
                                 {"lstrip", false},
                                 {"rstrip", false},
                                 {"normalized", false},
                                 {"special", true}});
  }
}

TEST_P(Preset, GivesTheTokenizersIds) {
  const Json& entry = Entry();
  if (!entry.contains("tokenizer")) GTEST_SKIP() << "no tokenizer pairs with this template";
  const fs::path corpus = TokenizerCorpus();
  if (corpus.empty()) GTEST_SKIP() << "no ../shared/corpus/tokenizers";
  const std::string name = entry.at("tokenizer");
  fs::path file = corpus / "tokenizers" / name / "tokenizer.json";
  if (name == "llama3-chat") {
    Json j = Json::parse(
        ReadFile(corpus / "tokenizers" / "deepseek-coder-6.7b-instruct" / "tokenizer.json"));
    MakeLlama3Chat(j);
    const fs::path dir = fs::path(testing::TempDir()) / "llama3-chat";
    fs::create_directories(dir);
    file = dir / "tokenizer.json";
    WriteFile(file, j.dump());
  }
  const auto tokenizer = text::Tokenizer::Load(file.string());
  const ConversationTemplate conv = *text::ConversationPreset(GetParam());
  for (const auto& [key, expected] : entry.at("ids").items()) {
    const std::vector<ChatMessage> messages = Messages(Fixture().at("conversations").at(key));
    EXPECT_EQ(text::ConversationPromptIds(conv, messages, *tokenizer),
              expected.get<std::vector<int32_t>>())
        << key;
  }
}

INSTANTIATE_TEST_SUITE_P(Mlc, Preset, ::testing::ValuesIn(TemplateNames()), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

TEST(Conversation, SystemPrefixIdsAndStopsOfLlama3) {
  const ConversationTemplate conv = *text::ConversationPreset("llama-3");
  EXPECT_EQ(conv.system_prefix_token_ids, std::vector<int32_t>({128000}));
  EXPECT_EQ(conv.stop_str, std::vector<std::string>({"<|end_of_text|>", "<|eot_id|>"}));
  EXPECT_EQ(conv.stop_token_ids, std::vector<int32_t>({128001, 128009}));
}

TEST(Conversation, FunctionStringPlaceholders) {
  ConversationTemplate conv = *text::ConversationPreset("chatml_nosystem");
  conv.system_template = "{function_string}[{system_message}]{function_string}";
  conv.function_string = "f()";
  EXPECT_EQ(text::ConversationPrompt(conv, {{"system", "s"}, {"user", "u"}}),
            "[s]f()<|im_start|>user\nu<|im_end|>\n<|im_start|>assistant\n");
}

TEST(Conversation, StripsReasoningBeforeTheLastUserMessage) {
  ConversationTemplate conv = *text::ConversationPreset("chatml_nosystem");
  conv.strip_reasoning_in_history = true;
  const std::string prompt = text::ConversationPrompt(
      conv, {{"user", "a"}, {"assistant", "<think>x</think>\n\nb"}, {"user", "c"}});
  EXPECT_THAT(prompt, HasSubstr("assistant\nb<|im_end|>"));
  EXPECT_THAT(prompt, ::testing::Not(HasSubstr("think")));
}

// The corpus's MLC folders name no preset: their template is the object (MLC's "LM").
TEST(Conversation, ReadsAnMlcFoldersTemplate) {
  const fs::path corpus = TokenizerCorpus();
  const fs::path config = corpus / "mlc-llm-2026" / "llama-q0f32" / "mlc" / "mlc-chat-config.json";
  if (corpus.empty() || !fs::exists(config)) GTEST_SKIP() << "no ../shared/corpus/mlc-llm-2026";
  const std::optional<ConversationTemplate> conv = text::ReadConversationTemplate(config.string());
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(text::ConversationTemplateJson(*conv, 2),
            text::ConversationTemplateJson(*text::ConversationPreset("LM"), 2));
}

// Writes an mlc-chat-config.json holding `conv_template` and returns its template or its error.
std::string ErrorOfConfig(const std::string& conv_template) {
  const fs::path file = fs::path(testing::TempDir()) / "mlc-chat-config.json";
  WriteFile(file, "{\"vocab_size\": 32,\n \"conv_template\": " + conv_template + "}");
  try {
    text::ReadConversationTemplate(file.string());
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "";
}

TEST(Conversation, ANameInAConfigIsAPreset) {
  const fs::path file = fs::path(testing::TempDir()) / "mlc-chat-config.json";
  WriteFile(file, R"({"conv_template": "llama-2"})");
  EXPECT_EQ(text::ReadConversationTemplate(file.string())->name, "llama-2");
  WriteFile(file, R"({"vocab_size": 3})");
  EXPECT_FALSE(text::ReadConversationTemplate(file.string()).has_value());
}

TEST(Conversation, BadTemplatesAreLocatedErrors) {
  EXPECT_THAT(ErrorOfConfig("\"vicuna-13b\""),
              HasSubstr("mlc-chat-config.json:2:19: error: unknown conversation template "
                        "'vicuna-13b' (pipesplit knows LM, llama-2,"));
  EXPECT_THAT(ErrorOfConfig(R"({"roles": {"user": "u", "assistant": "a"}, "seps": ["", "", ""]})"),
              HasSubstr("error: 'conv_template.seps' must hold one or two separators, got 3"));
  EXPECT_THAT(ErrorOfConfig(R"({"roles": {"user": "u", "assistant": "a"}, "seps": []})"),
              HasSubstr("got 0"));
  EXPECT_THAT(ErrorOfConfig(R"({"seps": [""]})"), HasSubstr("roles"));
  EXPECT_THAT(ErrorOfConfig(R"({"roles": {"user": 3}, "seps": [""]})"),
              HasSubstr("conv_template.roles.user"));
  EXPECT_THAT(ErrorOfConfig(R"({"roles": {"user": "u"}, "seps": [""], "stop_token_ids": [-4]})"),
              HasSubstr("'conv_template.stop_token_ids[0]' must be a token id, got -4"));
  EXPECT_THAT(
      ErrorOfConfig(R"({"roles": {"user": "u"}, "seps": [""], "messages": [["user", "x"]]})"),
      HasSubstr("must be empty"));
  EXPECT_THAT(ErrorOfConfig("[1]"), HasSubstr("must be an object or a template's name"));
  EXPECT_THAT(ErrorOfConfig("{"), HasSubstr("error:"));
}

TEST(Conversation, RefusedMessages) {
  const ConversationTemplate conv = *text::ConversationPreset("llama-3");
  auto error_of = [&](const std::vector<ChatMessage>& messages) -> std::string {
    try {
      text::ConversationPrompt(conv, messages);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({{"user", "a"}, {"system", "s"}}),
            "a system message must come first, not at position 1");
  EXPECT_EQ(error_of({{"tool", "a"}}),
            "message role 'tool' is not a role of the conversation template 'llama-3' (system, "
            "user, assistant)");
  ConversationTemplate no_assistant = conv;
  no_assistant.roles = {{"user", "u"}};
  EXPECT_THROW(text::ConversationPrompt(no_assistant, {{"user", "a"}}), std::invalid_argument);
}

}  // namespace
}  // namespace pipesplit::serve
