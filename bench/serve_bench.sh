#!/usr/bin/env bash
# The serving benchmark (`make bench`): `pipesplit serve` on the 8-layer, hidden-512 serving
# example, one core per group, with bench/serve_bench.cc's client sending streaming requests
# at a Poisson rate that saturates one group (fixed seeds). Compares, at the same arrival rate:
#   1 group; 2 groups with 1 batch in flight (MLC's schedule); 2 groups with 2 batches in flight
# and then, with long prompts arriving among the short ones (2 groups, 2 batches in flight),
# chunked prefill (the default chunk of 512 tokens) against whole prompts (a chunk larger than
# any prompt). Each run prints request throughput, output tokens/s, TTFT and ITL p50/p99.
#
# Usage: bench/serve_bench.sh [BUILD_DIR]. SERVE_BENCH_REQUESTS (default 200) and
# SERVE_BENCH_RATE (requests/s, default 20) change the load.
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
    grep -E '^pipesplit:(bubble_fraction|num_preemptions_total)' | sed 's/{model_name="model",*/{/;s/^/    /' || true
  kill -TERM "$server"
  wait "$server"
}

rm -f "$DIR/results.jsonl" "$DIR/results.out"
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
