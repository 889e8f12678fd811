#!/usr/bin/env bash
# The serving benchmark (`make bench`): `pipesplit serve` on the 8-layer, hidden-512 serving
# example, one core per group, with bench/serve_bench.cc's client sending streaming requests
# at a Poisson rate that saturates one group (fixed seeds). Compares, at the same arrival rate:
#   1 group; 2 groups with 1 batch in flight (MLC's schedule); 2 groups with 2 batches in flight
# and then, with long prompts arriving among the short ones (2 groups, 2 batches in flight),
# chunked prefill (the default chunk of 512 tokens) against whole prompts (a chunk larger than
# any prompt). Each run prints request throughput, output tokens/s, TTFT and ITL p50/p99.
# Last, a multi-turn chat (2 groups, 2 batches in flight): 8 conversations at once, 10 turns
# each of 64 new prompt ids and 32 generated tokens, on a KV cache of 7168 tokens (less than the
# conversations' 7680 at the end, so cached prefixes are evicted), with the prefix cache and
# with --no-prefix-cache: TTFT of the last two turns, output tokens/s, the cache's hit rate,
# and whether every generated token is the same.
#
# Usage: bench/serve_bench.sh [BUILD_DIR]. SERVE_BENCH_REQUESTS (default 200) and
# SERVE_BENCH_RATE (requests/s, default 20) change the load; SERVE_BENCH_ONLY=chat runs the
# multi-turn chat only, SERVE_BENCH_CHAT_TOKENS (default 7168) sets its KV cache.
set -euo pipefail
BUILD=${1:-build}
PIPESPLIT=$BUILD/pipesplit
CLIENT=$BUILD/bench/pipesplit_serve_bench
DIR=$BUILD/bench/serve
REQUESTS=${SERVE_BENCH_REQUESTS:-200}
RATE=${SERVE_BENCH_RATE:-20}

"$PIPESPLIT" example llama --serving --layers 8 --hidden 512 --heads 8 --kv-heads 4 --ffn 1376 \
  --vocab 1024 --stages 2 --requests 1 -o "$DIR" >/dev/null

# run LABEL "SERVER FLAGS" "CLIENT FLAGS": one server, one client run; the client's JSON line is
# kept in $DIR/results.jsonl.
run() {
  local log="$DIR/server.log"
  "$PIPESPLIT" serve "$DIR/model.py" --params "$DIR/params.safetensors" --port 0 \
    --threads-per-group 1 --max-batch-size 64 $2 >"$log" 2>&1 &
  local server=$!
  local port=""
  for _ in $(seq 600); do
    port=$(grep -o 'at http://127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    [[ -n "$port" ]] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z "$port" ]]; then
    cat "$log"
    exit 1
  fi
  "$CLIENT" --port "$port" --requests "$REQUESTS" --rate "$RATE" --vocab 1024 --seed 1 \
    --label "$1" $3 | tee -a "$DIR/results.out" | grep -v '^json'
  grep '^json' "$DIR/results.out" | tail -1 | sed 's/^json //' >>"$DIR/results.jsonl"
  python3 -c "import urllib.request, sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" |
    grep -E '^pipesplit:(bubble_fraction|num_preemptions_total|prefix_cache_[a-z_]*total)' |
    sed 's/{model_name="model",*/{/;s/^/    /' | tee -a "$DIR/results.out" || true
  kill -TERM "$server"
  wait "$server"
}

rm -f "$DIR/results.jsonl" "$DIR/results.out"
if [[ "${SERVE_BENCH_ONLY:-}" != chat ]]; then
echo "== $REQUESTS requests of 32 prompt and 64 output tokens at $RATE/s (Poisson), streamed"
run "1 group" "--groups 1" ""
run "2 groups, 1 in flight (MLC)" "" ""
run "2 groups, 2 in flight" "--batches-in-flight 2" ""
echo "== the same with every 8th prompt 1536 tokens long (2 groups, 2 in flight)"
run "whole prompts (chunk 4096)" "--batches-in-flight 2 --prefill-chunk-size 4096" \
  "--long-every 8 --long-prompt-len 1536"
run "chunked prefill (chunk 512)" "--batches-in-flight 2 --prefill-chunk-size 512" \
  "--long-every 8 --long-prompt-len 1536"

python3 - "$DIR/results.jsonl" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
one, mlc, two, whole, chunked = r
print("2 groups, 2 in flight: %.2fx the throughput of MLC's schedule (%.2fx one group); "
      "p99 ITL %.1f ms vs %.1f ms" % (two["output_tokens_per_s"] / mlc["output_tokens_per_s"],
                                      two["output_tokens_per_s"] / one["output_tokens_per_s"],
                                      two["itl_p99_ms"], mlc["itl_p99_ms"]))
print("chunked prefill: p99 ITL %.1f ms vs %.1f ms with whole prompts" %
      (chunked["itl_p99_ms"], whole["itl_p99_ms"]))
PY
fi

CHAT_TOKENS=${SERVE_BENCH_CHAT_TOKENS:-7168}
echo "== multi-turn chat: 8 conversations x 10 turns of 64 new + 32 generated tokens, KV cache" \
  "of $CHAT_TOKENS tokens (2 groups, 2 in flight)"
CHAT="--conversations 8 --turns 10 --prompt-len 64 --output-len 32"
run "prefix cache" "--batches-in-flight 2 --max-total-tokens $CHAT_TOKENS" \
  "$CHAT --tokens-out $DIR/chat_on.json"
run "no prefix cache" "--batches-in-flight 2 --max-total-tokens $CHAT_TOKENS --no-prefix-cache" \
  "$CHAT --tokens-out $DIR/chat_off.json"
python3 - "$DIR" <<'PY'
import json, re, sys
d = sys.argv[1]
on, off = [json.loads(l) for l in open(d + "/results.jsonl")][-2:]
out = open(d + "/results.out").read()
hits = [float(v) for v in re.findall(r"prefix_cache_hit_tokens_total\{[^}]*\} (\S+)", out)]
queries = [float(v) for v in re.findall(r"prefix_cache_query_tokens_total\{[^}]*\} (\S+)", out)]
same = json.load(open(d + "/chat_on.json")) == json.load(open(d + "/chat_off.json"))
print("prefix cache: last turns' TTFT %.0f ms vs %.0f ms, %.2fx the output tokens/s; %.0f%% of "
      "the prompt tokens forked; tokens %s" %
      (on["last_turns_ttft_mean_ms"], off["last_turns_ttft_mean_ms"],
       on["output_tokens_per_s"] / off["output_tokens_per_s"],
       100 * hits[-2] / queries[-2] if len(queries) >= 2 and queries[-2] else 0,
       "identical" if same else "DIFFER"))
sys.exit(0 if same else 1)
PY
