// MLC's conversation protocol (conversation.h): reading a template, writing its JSON, building a
// chat prompt.
#include "pipesplit/serve/text/conversation.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "src/runtime/io/json_document.h"

namespace pipesplit::serve::text {
namespace {

using runtime::Json;
using runtime::JsonDocument;
using runtime::JsonValue;

constexpr std::string_view kSystemPlaceholder = "{system_message}";
constexpr std::string_view kFunctionPlaceholder = "{function_string}";

// Python's str.replace: every occurrence of `from` in `text`.
std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  if (from.empty()) return text;
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = text.find(from, at)) != std::string::npos; at = hit + from.size()) {
    out.append(text, at, hit - at).append(to);
  }
  return out.append(text, at);
}

// The placeholder of a role's message in role_templates: "{user_message}" for "user".
std::string MessagePlaceholder(std::string_view role) {
  return fmt::format("{{{}_message}}", role);
}

std::string ReadString(const JsonValue& object, const char* key, const std::string& fallback) {
  std::optional<JsonValue> v = object.Find(key);
  return v && !v->IsNull() ? v->String() : fallback;
}

bool ReadBool(const JsonValue& object, const char* key, bool fallback) {
  std::optional<JsonValue> v = object.Find(key);
  return v && !v->IsNull() ? v->Bool() : fallback;
}

std::vector<std::string> ReadStrings(const JsonValue& object, const char* key) {
  std::vector<std::string> out;
  std::optional<JsonValue> v = object.Find(key);
  if (!v || v->IsNull()) return out;
  for (size_t i = 0, n = v->ArraySize(); i < n; ++i) out.push_back(v->At(i).String());
  return out;
}

std::vector<int32_t> ReadIds(const JsonValue& list) {
  std::vector<int32_t> ids;
  for (size_t i = 0, n = list.ArraySize(); i < n; ++i) {
    const JsonValue id = list.At(i);
    const int64_t value = id.Int();
    if (value < 0 || value > std::numeric_limits<int32_t>::max()) {
      id.Fail(fmt::format("'{}' must be a token id, got {}", id.Label(), value));
    }
    ids.push_back(static_cast<int32_t>(value));
  }
  return ids;
}

std::vector<std::pair<std::string, std::string>> ReadRoles(const JsonValue& object,
                                                           const char* key) {
  std::vector<std::pair<std::string, std::string>> out;
  std::optional<JsonValue> v = object.Find(key);
  if (!v || v->IsNull()) return out;
  if (!v->IsObject()) v->Fail(fmt::format("'{}' must be an object of strings", v->Label()));
  for (const auto& [role, _] : v->json().items()) out.emplace_back(role, v->Field(role).String());
  return out;
}

void Set(std::vector<std::pair<std::string, std::string>>& table, const std::string& key,
         const std::string& value) {
  for (auto& [k, v] : table) {
    if (k == key) {
      v = value;
      return;
    }
  }
  table.emplace_back(key, value);
}

// A conv_template object (MLC's Conversation.from_json_dict).
ConversationTemplate FromObject(const JsonValue& object) {
  if (!object.IsObject()) object.Fail("'conv_template' must be an object or a template's name");
  ConversationTemplate conv;
  if (std::optional<JsonValue> name = object.Find("name"); name && !name->IsNull()) {
    conv.name = name->String();
  }
  conv.system_template = ReadString(object, "system_template", conv.system_template);
  conv.system_message = ReadString(object, "system_message", "");
  if (std::optional<JsonValue> ids = object.Find("system_prefix_token_ids");
      ids && !ids->IsNull()) {
    conv.system_prefix_token_ids = ReadIds(*ids);
  }
  conv.add_role_after_system_message = ReadBool(object, "add_role_after_system_message", true);
  conv.roles = ReadRoles(object, "roles");
  if (conv.roles.empty()) object.Field("roles");  // MLC requires it: a located fault if absent
  conv.role_templates = ConversationPreset("LM")->role_templates;  // MLC's defaults
  for (const auto& [role, text] : ReadRoles(object, "role_templates")) {
    Set(conv.role_templates, role, text);
  }
  const JsonValue seps = object.Field("seps");
  conv.seps = ReadStrings(object, "seps");
  if (conv.seps.empty() || conv.seps.size() > 2) {
    seps.Fail(fmt::format("'{}' must hold one or two separators, got {}", seps.Label(),
                          conv.seps.size()));
  }
  conv.role_content_sep = ReadString(object, "role_content_sep", "");
  conv.role_empty_sep = ReadString(object, "role_empty_sep", "");
  conv.stop_str = ReadStrings(object, "stop_str");
  if (std::optional<JsonValue> ids = object.Find("stop_token_ids"); ids && !ids->IsNull()) {
    conv.stop_token_ids = ReadIds(*ids);
  }
  conv.strip_reasoning_in_history = ReadBool(object, "strip_reasoning_in_history", false);
  conv.function_string = ReadString(object, "function_string", "");
  conv.use_function_calling = ReadBool(object, "use_function_calling", false);
  if (std::optional<JsonValue> messages = object.Find("messages");
      messages && !messages->IsNull() && messages->ArraySize() != 0) {
    messages->Fail("a template's 'messages' must be empty (pipesplit does not keep history)");
  }
  return conv;
}

ConversationTemplate FromValue(const JsonValue& value) {
  if (value.json().is_string()) {
    const std::string name = value.String();
    std::optional<ConversationTemplate> preset = ConversationPreset(name);
    if (!preset) {
      value.Fail(fmt::format("unknown conversation template '{}' (pipesplit knows {})", name,
                             fmt::join(ConversationPresetNames(), ", ")));
    }
    return *preset;
  }
  return FromObject(value);
}

// MLC's _strip_reasoning_in_history.
std::vector<ChatMessage> StripReasoning(std::vector<ChatMessage> messages) {
  ptrdiff_t last_user = -1;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role == "user") last_user = static_cast<ptrdiff_t>(i);
  }
  constexpr std::string_view kEnd = "</think>";
  for (ptrdiff_t i = 0; i < last_user; ++i) {
    std::string& content = messages[i].content;
    const size_t end = content.rfind(kEnd);
    if (messages[i].role != "assistant" || end == std::string::npos) continue;
    content = content.substr(end + kEnd.size());
    content.erase(0, std::min(content.find_first_not_of('\n'), content.size()));
  }
  return messages;
}

}  // namespace

const std::string* ConversationTemplate::Role(std::string_view role) const {
  for (const auto& [k, v] : roles) {
    if (k == role) return &v;
  }
  return nullptr;
}

const std::string* ConversationTemplate::RoleTemplate(std::string_view role) const {
  for (const auto& [k, v] : role_templates) {
    if (k == role) return &v;
  }
  return nullptr;
}

std::optional<ConversationTemplate> ReadConversationTemplate(const std::string& chat_config_path) {
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Load(chat_config_path);
  const JsonValue root = doc->root();
  if (!root.IsObject()) root.Fail("mlc-chat-config.json must be an object");
  std::optional<JsonValue> conv = root.Find("conv_template");
  if (!conv || conv->IsNull()) return std::nullopt;
  return FromValue(*conv);
}

ConversationTemplate ParseConversationTemplate(const std::string& name,
                                               std::string_view json_text) {
  std::shared_ptr<const JsonDocument> doc = JsonDocument::Parse(name, json_text);
  return FromValue(doc->root());
}

std::string ConversationTemplateJson(const ConversationTemplate& conv, int indent) {
  Json j = Json::object();
  if (conv.name) j["name"] = *conv.name;
  j["system_template"] = conv.system_template;
  j["system_message"] = conv.system_message;
  if (conv.system_prefix_token_ids) j["system_prefix_token_ids"] = *conv.system_prefix_token_ids;
  j["add_role_after_system_message"] = conv.add_role_after_system_message;
  j["roles"] = Json::object();
  for (const auto& [k, v] : conv.roles) j["roles"][k] = v;
  j["role_templates"] = Json::object();
  for (const auto& [k, v] : conv.role_templates) j["role_templates"][k] = v;
  j["messages"] = Json::array();
  j["seps"] = conv.seps;
  j["role_content_sep"] = conv.role_content_sep;
  j["role_empty_sep"] = conv.role_empty_sep;
  j["stop_str"] = conv.stop_str;
  j["stop_token_ids"] = conv.stop_token_ids;
  j["strip_reasoning_in_history"] = conv.strip_reasoning_in_history;
  j["function_string"] = conv.function_string;
  j["use_function_calling"] = conv.use_function_calling;
  return j.dump(indent, ' ', /*ensure_ascii=*/true);
}

std::string ConversationPrompt(const ConversationTemplate& conv,
                               const std::vector<ChatMessage>& request) {
  // The request's system message replaces the template's; the others are the history.
  std::string system_message = conv.system_message;
  std::vector<ChatMessage> messages;
  for (size_t i = 0; i < request.size(); ++i) {
    const ChatMessage& m = request[i];
    if (m.role == "system") {
      if (i != 0) {
        throw std::invalid_argument(
            fmt::format("a system message must come first, not at position {}", i));
      }
      system_message = m.content;
      continue;
    }
    if (conv.Role(m.role) == nullptr || conv.RoleTemplate(m.role) == nullptr) {
      std::vector<std::string> names{"system"};
      for (const auto& [k, _] : conv.roles) {
        if (conv.RoleTemplate(k) != nullptr) names.push_back(k);
      }
      throw std::invalid_argument(
          fmt::format("message role '{}' is not a role of the conversation template{} ({})", m.role,
                      conv.name ? " '" + *conv.name + "'" : "", fmt::join(names, ", ")));
    }
    messages.push_back(m);
  }
  if (conv.Role("assistant") == nullptr) {
    throw std::invalid_argument("the conversation template has no assistant role");
  }
  if (conv.strip_reasoning_in_history) messages = StripReasoning(std::move(messages));

  const std::string system = ReplaceAll(conv.system_template, kSystemPlaceholder, system_message);
  const std::string& user_sep = conv.seps.at(0);
  const std::string& assistant_sep = conv.seps.size() > 1 ? conv.seps[1] : conv.seps[0];
  std::string prompt = system;
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (!(i == 0 && !system.empty() && !conv.add_role_after_system_message)) {
      prompt += *conv.Role(m.role) + conv.role_content_sep;
    }
    prompt += ReplaceAll(*conv.RoleTemplate(m.role), MessagePlaceholder(m.role), m.content);
    prompt += m.role == "assistant" ? assistant_sep : user_sep;
  }
  prompt += *conv.Role("assistant") + conv.role_empty_sep;
  // The last {function_string} becomes the function string, then every one left goes.
  if (const size_t last = prompt.rfind(kFunctionPlaceholder); last != std::string::npos) {
    prompt = prompt.substr(0, last) + conv.function_string +
             prompt.substr(last + kFunctionPlaceholder.size());
  }
  prompt = ReplaceAll(std::move(prompt), kFunctionPlaceholder, "");
  return prompt;
}

std::vector<int32_t> ConversationPromptIds(const ConversationTemplate& conv,
                                           const std::vector<ChatMessage>& messages,
                                           const Tokenizer& tokenizer) {
  std::vector<int32_t> ids = conv.system_prefix_token_ids.value_or(std::vector<int32_t>{});
  const std::vector<int32_t> text =
      tokenizer.Encode(ConversationPrompt(conv, messages), /*add_special=*/false);
  ids.insert(ids.end(), text.begin(), text.end());
  return ids;
}

}  // namespace pipesplit::serve::text
