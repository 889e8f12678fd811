// The serving benchmark's client (as vLLM's benchmark_serving): sends N streaming completion
// requests to a `pipesplit serve` server at a Poisson rate, with fixed seeds, and reports
// request throughput, output tokens/s, and time to first token and inter-token latency
// (p50, p99). Prompts are random token ids (seeded); every request asks for exactly
// --output-len tokens (ignore_eos, greedy). With --long-every K, every K-th request has a
// prompt of --long-prompt-len tokens instead (long prompts arriving while others stream).
// With --conversations C --turns T it runs a multi-turn chat instead: C conversations at once,
// each sending T requests one after the other, every prompt the conversation so far (its
// prompts and the tokens generated) and --prompt-len new random ids, and reports the time to
// first token of the last turns and the output tokens/s; --tokens-out writes every
// conversation's ids (to compare runs).
// bench/serve_bench.sh starts the servers and runs it (`make bench`).
#include <httplib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 8000;
  int requests = 200;
  double rate = 10;  // requests per second (Poisson arrivals)
  int prompt_len = 32;
  int output_len = 64;
  int long_every = 0;
  int long_prompt_len = 1024;
  int vocab = 1024;
  uint64_t seed = 0;
  std::string label;
  int conversations = 0;  // > 0: the multi-turn chat
  int turns = 10;
  std::string tokens_out;
};

struct Outcome {
  bool ok = false;
  std::string error;
  double ttft = 0;
  std::vector<double> itl;
  int tokens = 0;
  std::vector<int> token_ids;
  Clock::time_point end;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = p * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(rank);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

// One streamed request: the arrival time of each token.
Outcome Send(const Options& o, const std::vector<int>& prompt) {
  Outcome out;
  httplib::Client client(o.host, o.port);
  client.set_read_timeout(600, 0);
  nlohmann::json body = {{"prompt", prompt},
                         {"max_tokens", o.output_len},
                         {"temperature", 0},
                         {"ignore_eos", true},
                         {"stream", true}};
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.body = body.dump();
  req.set_header("Content-Type", "application/json");
  std::string buffer;
  const Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> last;
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    const Clock::time_point now = Clock::now();
    buffer.append(data, n);
    size_t end;
    while ((end = buffer.find("\n\n")) != std::string::npos) {
      std::string event = buffer.substr(0, end);
      buffer.erase(0, end + 2);
      if (event.rfind("data: ", 0) != 0) continue;
      event.erase(0, 6);
      if (event == "[DONE]") {
        out.ok = out.error.empty();
        continue;
      }
      nlohmann::json chunk = nlohmann::json::parse(event, nullptr, false);
      if (chunk.contains("error")) {
        out.error = chunk["error"]["message"];
        continue;
      }
      if (!chunk.contains("choices") || chunk["choices"].empty()) continue;
      const nlohmann::json& ids = chunk["choices"][0]["token_ids"];
      for (size_t i = 0; i < ids.size(); ++i) {
        out.token_ids.push_back(ids[i].get<int>());
        if (!last) {
          out.ttft = std::chrono::duration<double>(now - start).count();
        } else {
          out.itl.push_back(std::chrono::duration<double>(now - *last).count());
        }
        last = now;
        ++out.tokens;
      }
    }
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  if (!client.send(req, res, error)) {
    out.ok = false;
    out.error = httplib::to_string(error);
  } else if (res.status != 200) {
    out.ok = false;
    out.error = "HTTP " + std::to_string(res.status) + " " + res.body;
  }
  out.end = Clock::now();
  return out;
}

// The multi-turn chat (--conversations): prints its results; 1 when a request failed.
int Chat(const Options& o) {
  std::vector<std::vector<int>> history(o.conversations);
  std::vector<std::vector<Outcome>> outcomes(o.conversations);
  std::vector<std::thread> threads;
  const Clock::time_point start = Clock::now();
  for (int c = 0; c < o.conversations; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937_64 rng(o.seed * 1000 + static_cast<uint64_t>(c));
      std::uniform_int_distribution<int> token(0, o.vocab - 1);
      for (int turn = 0; turn < o.turns; ++turn) {
        for (int i = 0; i < o.prompt_len; ++i) history[c].push_back(token(rng));
        Outcome out = Send(o, history[c]);
        const bool ok = out.ok;
        history[c].insert(history[c].end(), out.token_ids.begin(), out.token_ids.end());
        outcomes[c].push_back(std::move(out));
        if (!ok) break;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  Clock::time_point end = start;
  std::vector<double> last_ttft, ttft;
  int64_t tokens = 0;
  int failed = 0;
  for (const std::vector<Outcome>& turns : outcomes) {
    for (size_t turn = 0; turn < turns.size(); ++turn) {
      const Outcome& r = turns[turn];
      if (!r.ok) {
        if (failed++ == 0) std::fprintf(stderr, "a request failed: %s\n", r.error.c_str());
        continue;
      }
      end = std::max(end, r.end);
      ttft.push_back(r.ttft);
      if (turn + 2 >= static_cast<size_t>(o.turns)) last_ttft.push_back(r.ttft);
      tokens += r.tokens;
    }
  }
  const double seconds = std::chrono::duration<double>(end - start).count();
  double mean_last = 0;
  for (double t : last_ttft) mean_last += t / static_cast<double>(last_ttft.size());
  nlohmann::json result = {{"label", o.label},
                           {"conversations", o.conversations},
                           {"turns", o.turns},
                           {"failed", failed},
                           {"seconds", seconds},
                           {"output_tokens_per_s", static_cast<double>(tokens) / seconds},
                           {"ttft_p50_ms", 1e3 * Percentile(ttft, 0.5)},
                           {"last_turns_ttft_mean_ms", 1e3 * mean_last},
                           {"last_turns_ttft_p50_ms", 1e3 * Percentile(last_ttft, 0.5)}};
  std::printf(
      "%-28s %d conversations x %d turns in %.1f s (%d failed): %.0f output tok/s; TTFT p50 %.0f "
      "ms, last two turns mean %.0f ms p50 %.0f ms\n",
      o.label.c_str(), o.conversations, o.turns, seconds, failed,
      result["output_tokens_per_s"].get<double>(), result["ttft_p50_ms"].get<double>(),
      result["last_turns_ttft_mean_ms"].get<double>(),
      result["last_turns_ttft_p50_ms"].get<double>());
  std::printf("json %s\n", result.dump().c_str());
  if (!o.tokens_out.empty()) {
    std::FILE* f = std::fopen(o.tokens_out.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", o.tokens_out.c_str());
      return 1;
    }
    std::fprintf(f, "%s\n", nlohmann::json(history).dump().c_str());
    std::fclose(f);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("pipesplit serving benchmark client");
  app.add_option("--host", o.host);
  app.add_option("--port", o.port)->required();
  app.add_option("--requests", o.requests);
  app.add_option("--rate", o.rate, "requests per second (Poisson)");
  app.add_option("--prompt-len", o.prompt_len);
  app.add_option("--output-len", o.output_len);
  app.add_option("--long-every", o.long_every, "every K-th request has a long prompt (0: none)");
  app.add_option("--long-prompt-len", o.long_prompt_len);
  app.add_option("--vocab", o.vocab);
  app.add_option("--seed", o.seed);
  app.add_option("--label", o.label);
  app.add_option("--conversations", o.conversations,
                 "run a multi-turn chat of this many conversations at once");
  app.add_option("--turns", o.turns, "requests of each conversation, one after the other");
  app.add_option("--tokens-out", o.tokens_out, "write each conversation's ids (JSON)");
  CLI11_PARSE(app, argc, argv);
  if (o.conversations > 0) return Chat(o);

  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int> token(0, o.vocab - 1);
  std::exponential_distribution<double> gap(o.rate);
  std::vector<std::vector<int>> prompts(o.requests);
  std::vector<double> arrivals(o.requests);
  double t = 0;
  for (int i = 0; i < o.requests; ++i) {
    const bool long_prompt = o.long_every > 0 && i % o.long_every == o.long_every - 1;
    prompts[i].resize(long_prompt ? o.long_prompt_len : o.prompt_len);
    for (int& id : prompts[i]) id = token(rng);
    arrivals[i] = t;
    t += gap(rng);
  }
  std::vector<Outcome> outcomes(o.requests);
  std::vector<std::thread> threads;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < o.requests; ++i) {
    std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(arrivals[i])));
    threads.emplace_back([&, i] { outcomes[i] = Send(o, prompts[i]); });
  }
  for (std::thread& th : threads) th.join();
  Clock::time_point end = start;
  std::vector<double> ttft, itl;
  int64_t tokens = 0;
  int failed = 0;
  for (const Outcome& r : outcomes) {
    if (!r.ok) {
      if (failed++ == 0) std::fprintf(stderr, "a request failed: %s\n", r.error.c_str());
      continue;
    }
    end = std::max(end, r.end);
    ttft.push_back(r.ttft);
    itl.insert(itl.end(), r.itl.begin(), r.itl.end());
    tokens += r.tokens;
  }
  const double seconds = std::chrono::duration<double>(end - start).count();
  const double req_s = static_cast<double>(o.requests - failed) / seconds;
  const double tok_s = static_cast<double>(tokens) / seconds;
  nlohmann::json result = {{"label", o.label},
                           {"requests", o.requests},
                           {"failed", failed},
                           {"rate", o.rate},
                           {"seconds", seconds},
                           {"request_throughput", req_s},
                           {"output_tokens_per_s", tok_s},
                           {"ttft_p50_ms", 1e3 * Percentile(ttft, 0.5)},
                           {"ttft_p99_ms", 1e3 * Percentile(ttft, 0.99)},
                           {"itl_p50_ms", 1e3 * Percentile(itl, 0.5)},
                           {"itl_p99_ms", 1e3 * Percentile(itl, 0.99)}};
  std::printf(
      "%-28s %4d requests (%d failed) at %.1f/s in %.1f s: %.2f req/s, %.0f output tok/s; "
      "TTFT p50 %.0f ms p99 %.0f ms; ITL p50 %.1f ms p99 %.1f ms\n",
      o.label.c_str(), o.requests, failed, o.rate, seconds, req_s, tok_s,
      result["ttft_p50_ms"].get<double>(), result["ttft_p99_ms"].get<double>(),
      result["itl_p50_ms"].get<double>(), result["itl_p99_ms"].get<double>());
  std::printf("json %s\n", result.dump().c_str());
  return failed == 0 ? 0 : 1;
}
