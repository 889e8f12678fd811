// A model's conversation template, as MLC-LLM defines it (its conversation protocol): what an
// MLC folder's mlc-chat-config.json holds under `conv_template`, or one of MLC's preset templates
// by name. `pipesplit serve` builds a chat request's prompt with it exactly as MLC's chat endpoint
// does, and stops on its stop strings and stop token ids.
//
// The prompt (ConversationPrompt): the request's system message (first, if any) replaces the
// template's; then the system text (system_template with {system_message} replaced, left out
// when empty); then for each other message its role's prefix (roles[role] + role_content_sep;
// no prefix for the first message after a system text when add_role_after_system_message is
// false), its content through role_templates[role] ({user_message}, {assistant_message},
// {tool_message} replaced) and a separator (seps[1] after an assistant message, seps[0] after
// the others; one sep serves both); last the assistant's role + role_empty_sep. The model's ids
// are system_prefix_token_ids, then the prompt text tokenized without special tokens.
#ifndef PIPESPLIT_SERVE_TEXT_CONVERSATION_H_
#define PIPESPLIT_SERVE_TEXT_CONVERSATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipesplit/serve/text/tokenizer.h"

namespace pipesplit::serve::text {

struct ConversationTemplate {
  std::optional<std::string> name;
  std::string system_template = "{system_message}";
  std::string system_message;
  std::optional<std::vector<int32_t>> system_prefix_token_ids;
  bool add_role_after_system_message = true;
  // In their JSON order (mlc-chat-config.json keeps it).
  std::vector<std::pair<std::string, std::string>> roles;
  // MLC's defaults for user, assistant and tool, then the template's.
  std::vector<std::pair<std::string, std::string>> role_templates;
  std::vector<std::string> seps;  // one or two
  std::string role_content_sep;
  std::string role_empty_sep;
  std::vector<std::string> stop_str;
  std::vector<int32_t> stop_token_ids;
  // Drops `<think>...</think>` from assistant messages before the last user message.
  bool strip_reasoning_in_history = false;
  std::string function_string;
  bool use_function_calling = false;

  // roles[role], role_templates[role]; nullptr when absent.
  const std::string* Role(std::string_view role) const;
  const std::string* RoleTemplate(std::string_view role) const;
};

// MLC's preset template `name` (conversation_template/ of MLC-LLM; the names MLC uses in
// mlc-chat-config.json and `--conv-template`); nullopt for a name pipesplit does not carry.
std::optional<ConversationTemplate> ConversationPreset(std::string_view name);
// The preset names, in the order of ConversationPreset's table.
std::vector<std::string> ConversationPresetNames();

// The template of an mlc-chat-config.json: its `conv_template` object, or a preset's name (older
// folders); nullopt when the file has none. Faults (malformed JSON, a field of the wrong type, one
// or more than two seps, an unknown preset name) are located errors in the file.
std::optional<ConversationTemplate> ReadConversationTemplate(const std::string& chat_config_path);
// The template of `json_text` (a conv_template object), faults reported in `name`.
ConversationTemplate ParseConversationTemplate(const std::string& name, std::string_view json_text);
// MLC's JSON of the template (`to_json_dict`: its field order, `system_prefix_token_ids` and
// `name` left out when unset, `messages` empty), indented by `indent` spaces (-1: one line).
std::string ConversationTemplateJson(const ConversationTemplate& conv, int indent);

// The prompt text MLC's chat endpoint builds for `messages` (a system message only first; roles
// the template has). std::invalid_argument (a lowercase message) for a message it refuses.
std::string ConversationPrompt(const ConversationTemplate& conv,
                               const std::vector<ChatMessage>& messages);
// The model's ids for `messages`: system_prefix_token_ids, then the prompt tokenized without
// special tokens.
std::vector<int32_t> ConversationPromptIds(const ConversationTemplate& conv,
                                           const std::vector<ChatMessage>& messages,
                                           const Tokenizer& tokenizer);

}  // namespace pipesplit::serve::text

#endif  // PIPESPLIT_SERVE_TEXT_CONVERSATION_H_
