// MLC-LLM's preset conversation templates that pipesplit carries (conversation.h): the Llama
// family's, Mistral's, ChatML's and a few others, as MLC-LLM 79d603f registers them
// (python/mlc_llm/conversation_template/). tests/serving/conversation_test.cc checks each against
// the JSON MLC writes for it (tests/serving/conversation_fixtures/, from MLC's source).
#include <functional>
#include <utility>

#include "pipesplit/serve/text/conversation.h"

namespace pipesplit::serve::text {
namespace {

using Roles = std::vector<std::pair<std::string, std::string>>;

struct Preset {
  const char* name;
  std::function<void(ConversationTemplate&)> fill;
};

// What every template starts from: MLC's defaults.
ConversationTemplate Base(const char* name) {
  ConversationTemplate conv;
  conv.name = name;
  conv.role_templates = {
      {"user", "{user_message}"}, {"assistant", "{assistant_message}"}, {"tool", "{tool_message}"}};
  return conv;
}

constexpr const char* kLlamaSystem = "You are a helpful, respectful and honest assistant.";

// What every template sets together: its roles, separators and the separators after a role.
void Turns(ConversationTemplate& c, Roles roles, std::vector<std::string> seps,
           const char* content_sep, const char* empty_sep) {
  c.roles = std::move(roles);
  c.seps = std::move(seps);
  c.role_content_sep = content_sep;
  c.role_empty_sep = empty_sep;
}

// Llama 3's header tokens (llama-3, llama-3_1).
void Llama3(ConversationTemplate& c, Roles roles) {
  c.system_template = "<|start_header_id|>system<|end_header_id|>\n\n{system_message}<|eot_id|>";
  c.system_message = kLlamaSystem;
  Turns(c, std::move(roles), {"<|eot_id|>"}, "<|end_header_id|>\n\n", "<|end_header_id|>\n\n");
  c.system_prefix_token_ids = std::vector<int32_t>{128000};
}

// ChatML's turns (chatml, chatml_nosystem, qwen2), with a system turn when `system` is given.
void ChatMl(ConversationTemplate& c, const char* system) {
  if (system != nullptr) {
    c.system_template = "<|im_start|>system\n{system_message}<|im_end|>\n";
    c.system_message = system;
  }
  Turns(c, {{"user", "<|im_start|>user"}, {"assistant", "<|im_start|>assistant"}}, {"<|im_end|>\n"},
        "\n", "\n");
}

const std::vector<Preset>& Presets() {
  static const std::vector<Preset> kPresets = {
      {"LM",
       [](ConversationTemplate& c) {
         Turns(c, {{"user", ""}, {"assistant", ""}}, {""}, "", "");
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
       }},
      {"llama-2",
       [](ConversationTemplate& c) {
         c.system_template = "[INST] <<SYS>>\n{system_message}\n<</SYS>>\n\n";
         c.system_message = kLlamaSystem;
         Turns(c, {{"user", "<s>[INST]"}, {"assistant", "[/INST]"}, {"tool", "[INST]"}},
               {" ", " </s>"}, " ", " ");
         c.stop_str = {"[INST]"};
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
         c.add_role_after_system_message = false;
       }},
      {"llama-3",
       [](ConversationTemplate& c) {
         Llama3(c, {{"user", "<|start_header_id|>user"},
                    {"assistant", "<|start_header_id|>assistant"}});
         c.stop_str = {"<|end_of_text|>", "<|eot_id|>"};
         c.stop_token_ids = {128001, 128009};
       }},
      {"llama-3_1",
       [](ConversationTemplate& c) {
         Llama3(c, {{"user", "<|start_header_id|>user"},
                    {"assistant", "<|start_header_id|>assistant"},
                    {"tool", "<|start_header_id|>ipython"}});
         c.stop_token_ids = {128001, 128008, 128009};
       }},
      {"codellama_instruct",
       [](ConversationTemplate& c) {
         Turns(c, {{"user", "[INST]"}, {"assistant", "[/INST]"}}, {" "}, " ", " ");
         c.stop_str = {"</s>"};
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
       }},
      {"mistral_default",
       [](ConversationTemplate& c) {
         c.system_template = "[INST] {system_message}";
         c.system_message =
             "Always assist with care, respect, and truth. Respond with utmost utility yet "
             "securely. Avoid harmful, unethical, prejudiced, or negative content. Ensure "
             "replies promote fairness and positivity.";
         Turns(c, {{"user", "[INST]"}, {"assistant", "[/INST]"}, {"tool", "[INST]"}}, {" "}, " ",
               "");
         c.stop_str = {"</s>"};
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
         c.add_role_after_system_message = false;
       }},
      {"chatml",
       [](ConversationTemplate& c) {
         ChatMl(c,
                "A conversation between a user and an LLM-based AI assistant. The assistant "
                "gives helpful and honest answers.");
         c.stop_str = {"<|im_end|>"};
         c.stop_token_ids = {2};
       }},
      {"chatml_nosystem",
       [](ConversationTemplate& c) {
         ChatMl(c, nullptr);
         c.stop_str = {"<|im_end|>"};
         c.stop_token_ids = {2};
       }},
      {"qwen2",
       [](ConversationTemplate& c) {
         ChatMl(c, "You are a helpful assistant.");
         c.stop_str = {"<|endoftext|>", "<|im_end|>"};
         c.stop_token_ids = {151643, 151645};
       }},
      {"tinyllama_v1_0",
       [](ConversationTemplate& c) {
         c.system_template = "<|system|>\n{system_message}</s>";
         c.system_message = "You are a helpful chatbot.";
         Turns(c, {{"user", "<|user|>"}, {"assistant", "<|assistant|>"}}, {"</s>"}, "\n", "\n");
         c.stop_str = {"</s>"};
         c.stop_token_ids = {2};
       }},
      {"phi-2",
       [](ConversationTemplate& c) {
         Turns(c, {{"user", "Instruct"}, {"assistant", "Output"}}, {"\n"}, ": ", ":");
         c.stop_str = {"<|endoftext|>"};
         c.stop_token_ids = {50256};
       }},
      {"phi-3",
       [](ConversationTemplate& c) {
         c.system_template = "<|system|>\n{system_message}";
         c.system_message =
             "You are a helpful digital assistant. Please provide safe, ethical and accurate "
             "information to the user.";
         Turns(c, {{"user", "<|user|>"}, {"assistant", "<|assistant|>"}}, {"<|end|>\n"}, "\n",
               "\n");
         c.system_prefix_token_ids = std::vector<int32_t>{1};
         c.stop_str = {"<|endoftext|>"};
         c.stop_token_ids = {2, 32000, 32001, 32007};
       }},
      {"gpt2",
       [](ConversationTemplate& c) {
         Turns(c, {{"user", ""}, {"assistant", ""}}, {""}, "", "");
         c.stop_str = {"</s>"};
         c.stop_token_ids = {50256};
       }},
  };
  return kPresets;
}

}  // namespace

std::optional<ConversationTemplate> ConversationPreset(std::string_view name) {
  for (const Preset& p : Presets()) {
    if (name == p.name) {
      ConversationTemplate conv = Base(p.name);
      p.fill(conv);
      return conv;
    }
  }
  return std::nullopt;
}

std::vector<std::string> ConversationPresetNames() {
  std::vector<std::string> names;
  for (const Preset& p : Presets()) names.emplace_back(p.name);
  return names;
}

}  // namespace pipesplit::serve::text
