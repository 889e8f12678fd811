// The OpenAI API's requests and responses (openai_protocol.h).
//
// ParseCompletionRequest, steps:
//   1. The body is a JSON object; every field is known (OpenAI refuses unknown arguments too).
//   2. The prompt: token ids (a list of ints, or a list of such lists, one choice each) or text
//      (a string or a list of strings) tokenized by the loaded tokenizer; for chat, the messages
//      through the model's conversation template (conversation.h: its prefix ids, then the text
//      tokenized without special tokens) or else the plain chat template (tokenizer.h).
//   3. The sampling and stop fields, with the server's defaults: n choices per prompt, stop
//      strings (chat: and the template's), log probabilities, echo; fields pipesplit does not
//      implement are refused when they ask for something (penalties, logit_bias, best_of, tools,
//      ...), accepted at their neutral value.
#include "src/serve/http/openai_protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace pipesplit::serve::http {
namespace {

using nlohmann::json;

ApiError Bad(std::string message, std::string param = "") {
  return ApiError{400, std::move(message), std::move(param)};
}

std::string TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "a list";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_float:
      return "a number";
    default:
      return "an integer";
  }
}

ApiError WrongType(const std::string& field, const std::string& expected, const json& got) {
  return Bad(fmt::format("'{}' must be {}, got {}", field, expected, TypeName(got)), field);
}

// A token id: an integer in [0, 2^31).
int32_t TokenId(const json& v, const std::string& field) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
      v.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
    throw Bad(fmt::format("'{}' must hold token ids (integers from 0), got {}", field, v.dump()),
              field);
  }
  return v.get<int32_t>();
}

std::vector<int32_t> TokenIds(const json& list, const std::string& field) {
  std::vector<int32_t> ids;
  ids.reserve(list.size());
  for (const json& v : list) ids.push_back(TokenId(v, field));
  return ids;
}

const text::Tokenizer& NeedTokenizer(const text::Tokenizer* tokenizer, const std::string& field) {
  if (tokenizer == nullptr) {
    throw Bad(fmt::format("'{}' as text needs a tokenizer: start the server with --tokenizer, or "
                          "send token ids",
                          field),
              field);
  }
  return *tokenizer;
}

// Step 2 for /v1/completions; `texts` gets each prompt's text when it came as text.
std::vector<std::vector<int32_t>> Prompts(const json& prompt, const text::Tokenizer* tokenizer,
                                          std::vector<std::optional<std::string>>* texts) {
  const std::string field = "prompt";
  if (prompt.is_string()) {
    texts->push_back(prompt.get<std::string>());
    return {NeedTokenizer(tokenizer, field).Encode(prompt.get<std::string>())};
  }
  if (!prompt.is_array() || prompt.empty()) {
    throw WrongType(field, "a string, a list of token ids, or a non-empty list of either", prompt);
  }
  if (prompt[0].is_number_integer()) {
    texts->push_back(std::nullopt);
    return {TokenIds(prompt, field)};
  }
  std::vector<std::vector<int32_t>> prompts;
  for (const json& p : prompt) {
    if (p.is_string()) {
      prompts.push_back(NeedTokenizer(tokenizer, field).Encode(p.get<std::string>()));
      texts->push_back(p.get<std::string>());
    } else if (p.is_array()) {
      prompts.push_back(TokenIds(p, field));
      texts->push_back(std::nullopt);
    } else {
      throw Bad(fmt::format("'prompt' must be a string, a list of token ids, or a list of "
                            "either, and holds {}",
                            TypeName(p)),
                field);
    }
    if (prompts.back().empty()) throw Bad("'prompt' holds an empty prompt", field);
  }
  return prompts;
}

// Step 2 for /v1/chat/completions: the messages through the model's conversation template (its
// roles) or the plain one (system, user, assistant).
std::vector<int32_t> ChatPromptIds(const json& messages, const text::Tokenizer* tokenizer,
                                   const std::optional<text::ConversationTemplate>& conversation) {
  const std::string field = "messages";
  if (!messages.is_array() || messages.empty()) {
    throw WrongType(field, "a non-empty list of messages", messages);
  }
  std::vector<text::ChatMessage> chat;
  for (const json& m : messages) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content")) {
      throw Bad("each message must be an object with a string 'role' and a 'content'", field);
    }
    const std::string role = m["role"].get<std::string>();
    if (!conversation && role != "system" && role != "user" && role != "assistant") {
      throw Bad(fmt::format("message role '{}' is not supported (system, user or assistant)", role),
                field);
    }
    std::string content;
    if (m["content"].is_string()) {
      content = m["content"].get<std::string>();
    } else if (m["content"].is_array()) {
      for (const json& part : m["content"]) {
        if (!part.is_object() || part.value("type", "") != "text" || !part.contains("text") ||
            !part["text"].is_string()) {
          throw Bad("message content parts must be {\"type\": \"text\", \"text\": ...}", field);
        }
        content += part["text"].get<std::string>();
      }
    } else {
      throw Bad("a message's 'content' must be a string or a list of text parts", field);
    }
    chat.push_back({role, std::move(content)});
  }
  const text::Tokenizer& t = NeedTokenizer(tokenizer, field);
  if (!conversation) return t.Encode(text::ChatPrompt(chat));
  try {
    return text::ConversationPromptIds(*conversation, chat, t);
  } catch (const std::invalid_argument& e) {
    throw Bad(e.what(), field);
  }
}

// Step 3: `stop`, a string or a list of at most kMaxStopStrings non-empty strings.
std::vector<std::string> StopStrings(const json& j) {
  if (!j.contains("stop") || j["stop"].is_null()) return {};
  const json& v = j["stop"];
  std::vector<std::string> stops;
  if (v.is_string()) {
    stops.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    if (v.size() > kMaxStopStrings) {
      throw Bad(fmt::format("'stop' holds at most {} strings", kMaxStopStrings), "stop");
    }
    for (const json& s : v) {
      if (!s.is_string()) throw WrongType("stop", "a string or a list of strings", s);
      stops.push_back(s.get<std::string>());
    }
  } else {
    throw WrongType("stop", "a string or a list of strings", v);
  }
  for (const std::string& s : stops) {
    if (s.empty()) throw Bad("'stop' strings must not be empty", "stop");
  }
  return stops;
}

// Step 3: the alternatives to list beside each token's log probability; nullopt for none.
// Completions: `logprobs` an integer (0..kMaxTopLogprobs). Chat: `logprobs` a boolean and
// `top_logprobs` an integer (only with logprobs).
std::optional<int> Logprobs(const json& j, bool chat) {
  auto count = [&](const char* field) -> int {
    const json& v = j[field];
    if (!v.is_number_integer()) throw WrongType(field, "an integer", v);
    if (v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxTopLogprobs) {
      throw Bad(fmt::format("'{}' must be from 0 to {}", field, kMaxTopLogprobs), field);
    }
    return v.get<int>();
  };
  const bool has = j.contains("logprobs") && !j["logprobs"].is_null();
  if (!chat) return has ? std::optional<int>(count("logprobs")) : std::nullopt;
  if (has && !j["logprobs"].is_boolean()) throw WrongType("logprobs", "a boolean", j["logprobs"]);
  const bool on = has && j["logprobs"].get<bool>();
  if (j.contains("top_logprobs") && !j["top_logprobs"].is_null()) {
    if (!on) throw Bad("'top_logprobs' needs 'logprobs': true", "top_logprobs");
    return count("top_logprobs");
  }
  return on ? std::optional<int>(0) : std::nullopt;
}

// Fields accepted only at their neutral value.
void RefuseUnsupported(const json& body) {
  auto refuse = [](const std::string& field, const std::string& what) {
    throw Bad(fmt::format("'{}' is not supported: {}", field, what), field);
  };
  for (const char* f : {"presence_penalty", "frequency_penalty", "repetition_penalty"}) {
    if (body.contains(f) && !body[f].is_null() &&
        !(body[f].is_number() &&
          body[f].get<double>() == (std::string(f) == "repetition_penalty" ? 1.0 : 0.0))) {
      refuse(f, "no penalties are applied");
    }
  }
  if (body.contains("logit_bias") && !body["logit_bias"].is_null() &&
      !(body["logit_bias"].is_object() && body["logit_bias"].empty())) {
    refuse("logit_bias", "logits are not biased");
  }
  if (body.contains("best_of") && !body["best_of"].is_null() && body["best_of"] != 1) {
    refuse("best_of", "one sequence is generated per prompt");
  }
  if (body.contains("suffix") && !body["suffix"].is_null()) refuse("suffix", "no insertion");
  for (const char* f : {"tools", "functions", "response_format"}) {
    if (body.contains(f) && !body[f].is_null()) refuse(f, "no tools or structured output");
  }
}

}  // namespace

std::string ApiError::Type() const {
  if (status == 503) return "service_unavailable_error";
  if (status >= 500) return "server_error";
  if (status == 404) return "not_found_error";
  return "invalid_request_error";
}

json ApiError::Json() const {
  return {{"error",
           {{"message", message},
            {"type", Type()},
            {"param", param.empty() ? json(nullptr) : json(param)},
            {"code", status}}}};
}

CompletionRequest ParseCompletionRequest(std::string_view body, bool chat,
                                         const text::Tokenizer* tokenizer,
                                         const RequestDefaults& defaults, const std::string& model,
                                         uint64_t fresh_seed) {
  json j;  // step 1
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    throw Bad(fmt::format("the body is not valid JSON: {}", e.what()));
  }
  if (!j.is_object()) throw Bad("the body must be a JSON object, not " + TypeName(j));
  static const std::set<std::string> kCommon = {"model",
                                                "max_tokens",
                                                "temperature",
                                                "top_p",
                                                "seed",
                                                "stream",
                                                "stream_options",
                                                "stop_token_ids",
                                                "n",
                                                "user",
                                                "ignore_eos",
                                                "presence_penalty",
                                                "frequency_penalty",
                                                "repetition_penalty",
                                                "stop",
                                                "logprobs",
                                                "logit_bias",
                                                "best_of",
                                                "echo",
                                                "suffix"};
  static const std::set<std::string> kChat = {
      "messages", "max_completion_tokens", "top_logprobs", "tools", "functions", "response_format"};
  for (const auto& [key, value] : j.items()) {
    if (kCommon.count(key) == 0 && !(chat ? kChat.count(key) : key == "prompt")) {
      throw Bad(fmt::format("unknown field '{}'", key), key);
    }
  }
  RefuseUnsupported(j);
  if (j.contains("model") && !j["model"].is_null()) {
    if (!j["model"].is_string()) throw WrongType("model", "a string", j["model"]);
    if (j["model"].get<std::string>() != model) {
      throw ApiError{404,
                     fmt::format("the model '{}' does not exist (this server serves '{}')",
                                 j["model"].get<std::string>(), model),
                     "model"};
    }
  }

  CompletionRequest r;  // step 2
  r.chat = chat;
  if (chat) {
    if (!j.contains("messages")) throw Bad("'messages' is required", "messages");
    r.prompts = {ChatPromptIds(j["messages"], tokenizer, defaults.conversation)};
  } else {
    if (!j.contains("prompt")) throw Bad("'prompt' is required", "prompt");
    r.prompts = Prompts(j["prompt"], tokenizer, &r.prompt_texts);
  }
  for (const std::vector<int32_t>& p : r.prompts) {
    if (p.empty()) throw Bad(chat ? "the messages make no tokens" : "the prompt is empty");
  }

  // Step 3.
  auto number = [&](const char* field, double fallback) {
    if (!j.contains(field) || j[field].is_null()) return fallback;
    if (!j[field].is_number()) throw WrongType(field, "a number", j[field]);
    return j[field].get<double>();
  };
  auto integer = [&](const char* field) -> std::optional<int64_t> {
    if (!j.contains(field) || j[field].is_null()) return std::nullopt;
    if (!j[field].is_number_integer()) throw WrongType(field, "an integer", j[field]);
    return j[field].get<int64_t>();
  };
  auto boolean = [&](const char* field) {
    if (!j.contains(field) || j[field].is_null()) return false;
    if (!j[field].is_boolean()) throw WrongType(field, "a boolean", j[field]);
    return j[field].get<bool>();
  };
  r.sampling.temperature = number("temperature", defaults.temperature);
  if (!(r.sampling.temperature >= 0)) throw Bad("'temperature' must be at least 0", "temperature");
  r.sampling.top_p = number("top_p", defaults.top_p);
  if (!(r.sampling.top_p > 0 && r.sampling.top_p <= 1)) {
    throw Bad("'top_p' must be in (0, 1]", "top_p");
  }
  std::optional<int64_t> max_tokens = integer("max_tokens");
  if (chat && !max_tokens) max_tokens = integer("max_completion_tokens");
  if (max_tokens && *max_tokens < 1) throw Bad("'max_tokens' must be at least 1", "max_tokens");
  r.max_tokens = max_tokens.value_or(chat ? 0 : defaults.completion_max_tokens);
  if (std::optional<int64_t> n = integer("n")) {
    if (*n < 1 || *n > kMaxChoices) {
      throw Bad(fmt::format("'n' must be from 1 to {}", kMaxChoices), "n");
    }
    r.n = *n;
  }
  if (r.n * static_cast<int64_t>(r.prompts.size()) > kMaxChoices) {
    throw Bad(fmt::format("{} prompts with 'n' {} make more than {} choices", r.prompts.size(), r.n,
                          kMaxChoices),
              "n");
  }
  r.stop = StopStrings(j);
  if (chat && defaults.conversation) {  // the template's stop strings, as MLC adds them
    for (const std::string& s : defaults.conversation->stop_str) {
      if (!s.empty() && std::find(r.stop.begin(), r.stop.end(), s) == r.stop.end()) {
        r.stop.push_back(s);
      }
    }
  }
  r.logprobs = Logprobs(j, chat);
  r.echo = boolean("echo");
  if (r.echo) {
    if (chat) throw Bad("'echo' is a field of /v1/completions", "echo");
    if (r.logprobs) {
      throw Bad(
          "'echo' with 'logprobs' asks for the prompt's log probabilities, which are not "
          "computed",
          "echo");
    }
    if (tokenizer == nullptr) {
      throw Bad(
          "'echo' needs a tokenizer to give the prompt as text: start the server with "
          "--tokenizer",
          "echo");
    }
  }
  if (std::optional<int64_t> seed = integer("seed")) {
    r.sampling.seed = static_cast<uint64_t>(*seed);
    r.seeded = true;
  } else {
    r.sampling.seed = fresh_seed;
  }
  r.stream = boolean("stream");
  if (j.contains("stream_options") && !j["stream_options"].is_null()) {
    const json& o = j["stream_options"];
    if (!o.is_object()) throw WrongType("stream_options", "an object", o);
    if (!r.stream) throw Bad("'stream_options' needs 'stream': true", "stream_options");
    if (o.contains("include_usage")) {
      if (!o["include_usage"].is_boolean()) {
        throw WrongType("stream_options.include_usage", "a boolean", o["include_usage"]);
      }
      r.include_usage = o["include_usage"].get<bool>();
    }
  }
  if (!boolean("ignore_eos")) {
    r.stop_token_ids = defaults.stop_token_ids;
    if (chat && defaults.conversation) {  // the template's, as MLC adds them
      for (int32_t id : defaults.conversation->stop_token_ids) {
        if (std::find(r.stop_token_ids.begin(), r.stop_token_ids.end(), id) ==
            r.stop_token_ids.end()) {
          r.stop_token_ids.push_back(id);
        }
      }
    }
  }
  if (j.contains("stop_token_ids") && !j["stop_token_ids"].is_null()) {
    if (!j["stop_token_ids"].is_array()) {
      throw WrongType("stop_token_ids", "a list of token ids", j["stop_token_ids"]);
    }
    for (int32_t id : TokenIds(j["stop_token_ids"], "stop_token_ids"))
      r.stop_token_ids.push_back(id);
  }
  if (j.contains("user") && !j["user"].is_null() && !j["user"].is_string()) {
    throw WrongType("user", "a string", j["user"]);
  }
  return r;
}

json Usage(int64_t prompt_tokens, int64_t completion_tokens) {
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens}};
}

namespace {

json Envelope(const ResponseHeader& h, bool chunk) {
  return {{"id", h.id},
          {"object",
           h.chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
          {"created", h.created},
          {"model", h.model}};
}

json Finish(FinishReason reason) {
  return reason == FinishReason::kNone ? json(nullptr) : json(FinishReasonName(reason));
}

}  // namespace

json CompletionResponse(const ResponseHeader& header, const std::vector<ChoiceResult>& choices,
                        int64_t prompt_tokens) {
  json out = Envelope(header, false);
  json list = json::array();
  int64_t completion_tokens = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    const ChoiceResult& c = choices[i];
    completion_tokens += static_cast<int64_t>(c.tokens.size());
    json choice = {{"index", i}, {"finish_reason", Finish(c.finish)}, {"logprobs", c.logprobs}};
    if (header.chat) {
      choice["message"] = {{"role", "assistant"}, {"content", c.text}};
    } else {
      choice["text"] = c.text;
    }
    choice["token_ids"] = c.tokens;
    list.push_back(std::move(choice));
  }
  out["choices"] = std::move(list);
  out["usage"] = Usage(prompt_tokens, completion_tokens);
  return out;
}

json StreamChunk(const ResponseHeader& header, int64_t index, std::string_view text,
                 const std::vector<int32_t>& tokens, FinishReason finish, bool first,
                 json logprobs) {
  json out = Envelope(header, true);
  json choice = {
      {"index", index}, {"finish_reason", Finish(finish)}, {"logprobs", std::move(logprobs)}};
  if (header.chat) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    delta["content"] = std::string(text);
    choice["delta"] = std::move(delta);
  } else {
    choice["text"] = std::string(text);
  }
  choice["token_ids"] = tokens;
  out["choices"] = json::array({std::move(choice)});
  return out;
}

json UsageChunk(const ResponseHeader& header, int64_t prompt_tokens, int64_t completion_tokens) {
  json out = Envelope(header, true);
  out["choices"] = json::array();
  out["usage"] = Usage(prompt_tokens, completion_tokens);
  return out;
}

TokenLogprob LogprobOf(std::span<const float> logits, int32_t token, int top) {
  double most = -std::numeric_limits<double>::infinity();
  for (float l : logits) most = std::max(most, static_cast<double>(l));
  double sum = 0;
  for (float l : logits) sum += std::exp(static_cast<double>(l) - most);
  const double log_sum = most + std::log(sum);
  auto logprob = [&](int32_t id) {
    return static_cast<float>(static_cast<double>(logits[static_cast<size_t>(id)]) - log_sum);
  };
  TokenLogprob out;
  out.token = token;
  out.logprob = logprob(token);
  const size_t k = std::min(static_cast<size_t>(std::max(top, 0)), logits.size());
  std::vector<int32_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(),
                    [&](int32_t a, int32_t b) {
                      return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                    });
  for (size_t i = 0; i < k; ++i) out.top.emplace_back(ids[i], logprob(ids[i]));
  return out;
}

json LogprobsJson(const std::vector<TokenLogprob>& tokens, bool chat,
                  const text::Tokenizer* tokenizer, int64_t* text_offset) {
  auto name = [&](int32_t id) {
    return tokenizer != nullptr ? tokenizer->TokenBytes(id) : fmt::format("token_id:{}", id);
  };
  auto bytes = [](const std::string& s) {
    json list = json::array();
    for (char c : s) list.push_back(static_cast<int>(static_cast<unsigned char>(c)));
    return list;
  };
  if (chat) {
    json content = json::array();
    for (const TokenLogprob& t : tokens) {
      json top = json::array();
      for (const auto& [id, lp] : t.top) {
        const std::string s = name(id);
        top.push_back({{"token", s}, {"logprob", lp}, {"bytes", bytes(s)}});
      }
      const std::string s = name(t.token);
      content.push_back(
          {{"token", s}, {"logprob", t.logprob}, {"bytes", bytes(s)}, {"top_logprobs", top}});
    }
    return {{"content", std::move(content)}};
  }
  json names = json::array(), logprobs = json::array(), tops = json::array(),
       offsets = json::array();
  int64_t& offset = *text_offset;
  for (const TokenLogprob& t : tokens) {
    const std::string s = name(t.token);
    names.push_back(s);
    logprobs.push_back(t.logprob);
    json top = json::object();
    for (const auto& [id, lp] : t.top) top[name(id)] = lp;
    tops.push_back(std::move(top));
    offsets.push_back(offset);
    offset += static_cast<int64_t>(s.size());
  }
  return {{"tokens", std::move(names)},
          {"token_logprobs", std::move(logprobs)},
          {"top_logprobs", std::move(tops)},
          {"text_offset", std::move(offsets)}};
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace pipesplit::serve::http
