// The serving benchmark's client (as vLLM's benchmark_serving): sends N streaming completion
// requests to a `pipesplit serve` server at a Poisson rate, with fixed seeds, and reports
// request throughput, output tokens/s, and time to first token and inter-token latency
// (p50, p99). Prompts are random token ids (seeded); every request asks for exactly
// --output-len tokens (ignore_eos, greedy). With --long-every K, every K-th request has a
// prompt of --long-prompt-len tokens instead (long prompts arriving while others stream).
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
};

struct Outcome {
  bool ok = false;
  std::string error;
  double ttft = 0;
  std::vector<double> itl;
  int tokens = 0;
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
      const size_t count = chunk["choices"][0]["token_ids"].size();
      for (size_t i = 0; i < count; ++i) {
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
  CLI11_PARSE(app, argc, argv);

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
