// MLC-LLM's preset conversation templates that pipesplit carries (conversation.h): the Llama
// family's, Mistral's, ChatML's and a few others, as MLC-LLM 79d603f registers them
// (python/mlc_llm/conversation_template/). tests/serving/conversation_test.cc checks each against
// the JSON MLC writes for it (tests/serving/conversation_fixtures/, from MLC's source).
#include <functional>

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
constexpr const char* kLlama3System =
    "<|start_header_id|>system<|end_header_id|>\n\n{system_message}<|eot_id|>";

const std::vector<Preset>& Presets() {
  static const std::vector<Preset> kPresets = {
      {"LM",
       [](ConversationTemplate& c) {
         c.roles = {{"user", ""}, {"assistant", ""}};
         c.seps = {""};
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
       }},
      {"llama-2",
       [](ConversationTemplate& c) {
         c.system_template = "[INST] <<SYS>>\n{system_message}\n<</SYS>>\n\n";
         c.system_message = kLlamaSystem;
         c.roles = {{"user", "<s>[INST]"}, {"assistant", "[/INST]"}, {"tool", "[INST]"}};
         c.seps = {" ", " </s>"};
         c.role_content_sep = " ";
         c.role_empty_sep = " ";
         c.stop_str = {"[INST]"};
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
         c.add_role_after_system_message = false;
       }},
      {"llama-3",
       [](ConversationTemplate& c) {
         c.system_template = kLlama3System;
         c.system_message = kLlamaSystem;
         c.roles = {{"user", "<|start_header_id|>user"},
                    {"assistant", "<|start_header_id|>assistant"}};
         c.seps = {"<|eot_id|>"};
         c.role_content_sep = "<|end_header_id|>\n\n";
         c.role_empty_sep = "<|end_header_id|>\n\n";
         c.stop_str = {"<|end_of_text|>", "<|eot_id|>"};
         c.stop_token_ids = {128001, 128009};
         c.system_prefix_token_ids = std::vector<int32_t>{128000};
       }},
      {"llama-3_1",
       [](ConversationTemplate& c) {
         c.system_template = kLlama3System;
         c.system_message = kLlamaSystem;
         c.roles = {{"user", "<|start_header_id|>user"},
                    {"assistant", "<|start_header_id|>assistant"},
                    {"tool", "<|start_header_id|>ipython"}};
         c.seps = {"<|eot_id|>"};
         c.role_content_sep = "<|end_header_id|>\n\n";
         c.role_empty_sep = "<|end_header_id|>\n\n";
         c.stop_token_ids = {128001, 128008, 128009};
         c.system_prefix_token_ids = std::vector<int32_t>{128000};
       }},
      {"codellama_instruct",
       [](ConversationTemplate& c) {
         c.roles = {{"user", "[INST]"}, {"assistant", "[/INST]"}};
         c.seps = {" "};
         c.role_content_sep = " ";
         c.role_empty_sep = " ";
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
         c.roles = {{"user", "[INST]"}, {"assistant", "[/INST]"}, {"tool", "[INST]"}};
         c.seps = {" "};
         c.role_content_sep = " ";
         c.stop_str = {"</s>"};
         c.stop_token_ids = {2};
         c.system_prefix_token_ids = std::vector<int32_t>{1};
         c.add_role_after_system_message = false;
       }},
      {"chatml",
       [](ConversationTemplate& c) {
         c.system_template = "<|im_start|>system\n{system_message}<|im_end|>\n";
         c.system_message =
             "A conversation between a user and an LLM-based AI assistant. The assistant gives "
             "helpful and honest answers.";
         c.roles = {{"user", "<|im_start|>user"}, {"assistant", "<|im_start|>assistant"}};
         c.seps = {"<|im_end|>\n"};
         c.role_content_sep = "\n";
         c.role_empty_sep = "\n";
         c.stop_str = {"<|im_end|>"};
         c.stop_token_ids = {2};
       }},
      {"chatml_nosystem",
       [](ConversationTemplate& c) {
         c.roles = {{"user", "<|im_start|>user"}, {"assistant", "<|im_start|>assistant"}};
         c.seps = {"<|im_end|>\n"};
         c.role_content_sep = "\n";
         c.role_empty_sep = "\n";
         c.stop_str = {"<|im_end|>"};
         c.stop_token_ids = {2};
       }},
      {"qwen2",
       [](ConversationTemplate& c) {
         c.system_template = "<|im_start|>system\n{system_message}<|im_end|>\n";
         c.system_message = "You are a helpful assistant.";
         c.roles = {{"user", "<|im_start|>user"}, {"assistant", "<|im_start|>assistant"}};
         c.seps = {"<|im_end|>\n"};
         c.role_content_sep = "\n";
         c.role_empty_sep = "\n";
         c.stop_str = {"<|endoftext|>", "<|im_end|>"};
         c.stop_token_ids = {151643, 151645};
       }},
      {"tinyllama_v1_0",
       [](ConversationTemplate& c) {
         c.system_template = "<|system|>\n{system_message}</s>";
         c.system_message = "You are a helpful chatbot.";
         c.roles = {{"user", "<|user|>"}, {"assistant", "<|assistant|>"}};
         c.seps = {"</s>"};
         c.role_content_sep = "\n";
         c.role_empty_sep = "\n";
         c.stop_str = {"</s>"};
         c.stop_token_ids = {2};
       }},
      {"phi-2",
       [](ConversationTemplate& c) {
         c.roles = {{"user", "Instruct"}, {"assistant", "Output"}};
         c.seps = {"\n"};
         c.role_content_sep = ": ";
         c.role_empty_sep = ":";
         c.stop_str = {"<|endoftext|>"};
         c.stop_token_ids = {50256};
       }},
      {"phi-3",
       [](ConversationTemplate& c) {
         c.system_template = "<|system|>\n{system_message}";
         c.system_message =
             "You are a helpful digital assistant. Please provide safe, ethical and accurate "
             "information to the user.";
         c.roles = {{"user", "<|user|>"}, {"assistant", "<|assistant|>"}};
         c.seps = {"<|end|>\n"};
         c.role_content_sep = "\n";
         c.role_empty_sep = "\n";
         c.system_prefix_token_ids = std::vector<int32_t>{1};
         c.stop_str = {"<|endoftext|>"};
         c.stop_token_ids = {2, 32000, 32001, 32007};
       }},
      {"gpt2",
       [](ConversationTemplate& c) {
         c.roles = {{"user", ""}, {"assistant", ""}};
         c.seps = {""};
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
