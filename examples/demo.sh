#!/usr/bin/env bash
# The main job on the bundled example: generate a tiny Llama, split it into 2 pipeline
# stages (with the CLI, then the same from Python), run the split program on 2 worker groups,
# and verify it against the unsplit run; then pipeline 8 micro-batches through 2 groups and
# draw the run (build/demo/*.svg; set TIMELINE=FILE to write the SVG elsewhere, e.g.
# docs/pipeline_timeline.svg for the README);
# finally generate tokens from the model in MLC's serving form on 2 groups with 2 batches in
# flight, verified against the unsplit model, and draw it (GENERATE_TIMELINE=FILE); last, serve
# it over HTTP with the OpenAI API, send two requests (one streamed) and stop the server.
set -euo pipefail
PIPESPLIT=${1:-build/pipesplit}
DIR=${DEMO_DIR:-build/demo}

echo "== 1. generate a tiny Llama (4 layers, 2 stage markers' worth of stages) =="
"$PIPESPLIT" example llama --layers 4 --hidden 64 --heads 4 --ffn 128 --vocab 256 --seq 16 \
    --stages 2 -o "$DIR"

echo
echo "== 2. split it: pipeline-parallel-rewrite, then verify; stage report =="
"$PIPESPLIT" opt "$DIR/model.py" -p "pipeline-parallel-rewrite,verify" -o "$DIR/model.split.py" \
    --stage-report - --stage-report-format text --param-names "$DIR/params.safetensors"
echo "split module written to $DIR/model.split.py"
if compgen -G "$(dirname "$PIPESPLIT")/python/pipesplit/_core*.so" >/dev/null; then
  echo "the same from Python (README: From Python):"
  PYTHONPATH="$(dirname "$0")/../python:$(dirname "$PIPESPLIT")/python" \
    "${PYTHON:-/usr/bin/python3}" - "$DIR/model.py" <<'EOF'
import sys, pipesplit
mod = pipesplit.parse(open(sys.argv[1]).read(), path=sys.argv[1])
split = pipesplit.transform.PipelineParallelRewrite()(mod)
print(len(split.stages()), "stages:", ", ".join(split.stages()))
EOF
fi

echo
echo "== 3. run the split module on 2 groups (threads) =="
"$PIPESPLIT" run "$DIR/model.split.py" --params "$DIR/params.safetensors" \
    --inputs "$DIR/inputs.safetensors" --groups 2 -o "$DIR/out.safetensors"

echo
echo "== 4. verify: unsplit on one worker vs split on 2 groups, bit for bit =="
"$PIPESPLIT" verify-split "$DIR/model.py" --params "$DIR/params.safetensors" \
    --inputs "$DIR/inputs.safetensors" --groups 2

echo
echo "== 5. pipeline 8 micro-batches through 2 groups (one core each); trace and timeline =="
"$PIPESPLIT" example llama --layers 8 --hidden 256 --heads 8 --ffn 1024 --vocab 512 --seq 64 \
    --stages 2 --microbatches 8 -o "$DIR/mb" >/dev/null
"$PIPESPLIT" opt "$DIR/mb/model.py" -p "pipeline-parallel-rewrite,verify" \
    -o "$DIR/mb/model.split.py"
"$PIPESPLIT" run "$DIR/mb/model.split.py" --params "$DIR/mb/params.safetensors" \
    --inputs "$DIR/mb/microbatches.safetensors" --microbatches 8 --threads-per-group 1 \
    --trace "$DIR/pipeline_trace.json" --timeline "${TIMELINE:-$DIR/pipeline_timeline.svg}" \
    -o "$DIR/mb/out.safetensors"
echo "open $DIR/pipeline_trace.json in https://ui.perfetto.dev or chrome://tracing"
"$PIPESPLIT" verify-split "$DIR/mb/model.py" --params "$DIR/mb/params.safetensors" \
    --inputs "$DIR/mb/microbatches.safetensors" --microbatches 8 --threads-per-group 1

echo
echo "== 6. generate tokens from the model in MLC's serving form on 2 groups, 2 batches in flight =="
"$PIPESPLIT" example llama --serving --layers 8 --hidden 256 --heads 8 --kv-heads 4 --ffn 688 \
    --vocab 512 --stages 2 --requests 8 --prompt-len 16 -o "$DIR/serving" >/dev/null
"$PIPESPLIT" generate "$DIR/serving/model.py" --params "$DIR/serving/params.safetensors" \
    --prompts "$DIR/serving/prompts.json" --max-new-tokens 32 --groups 2 --batches-in-flight 2 \
    --verify --timeline "${GENERATE_TIMELINE:-$DIR/generate_timeline.svg}" \
    -o "$DIR/serving/tokens.json"
echo "timeline of the generation: ${GENERATE_TIMELINE:-$DIR/generate_timeline.svg}"

echo
echo "== 7. serve it over HTTP (OpenAI API), 2 groups, 2 batches in flight; two requests, one streamed =="
# A SentencePiece tokenizer of the model's 512 tokens, trained on a text Debian ships.
spm_train --input=/usr/share/common-licenses/GPL-3 --model_prefix="$DIR/serving/tokenizer" \
    --vocab_size=512 --model_type=bpe --minloglevel=2 >/dev/null 2>&1
"$PIPESPLIT" serve "$DIR/serving/model.py" --params "$DIR/serving/params.safetensors" \
    --tokenizer "$DIR/serving/tokenizer.model" --batches-in-flight 2 --port 0 \
    >"$DIR/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  grep -q "at http://" "$DIR/serve.log" && break
  sleep 0.1
done
cat "$DIR/serve.log"
PORT=$(grep -o 'at http://127.0.0.1:[0-9]*' "$DIR/serve.log" | grep -o '[0-9]*$')
"${PYTHON:-/usr/bin/python3}" - "$PORT" <<'PY'
import http.client, json, sys
port = int(sys.argv[1])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
c.request("POST", "/v1/completions", json.dumps(
    {"model": "model", "prompt": "This License", "max_tokens": 12, "temperature": 0}))
r = json.loads(c.getresponse().read())
print("POST /v1/completions ->", json.dumps(r["choices"][0]["text"]), r["usage"])
c.request("POST", "/v1/chat/completions", json.dumps(
    {"messages": [{"role": "user", "content": "What is free software?"}], "max_tokens": 12,
     "temperature": 0, "stream": True}))
print("POST /v1/chat/completions (stream) ->", end=" ", flush=True)
for line in c.getresponse():
    line = line.decode().strip()
    if line.startswith("data: {"):
        print(json.dumps(json.loads(line[6:])["choices"][0]["delta"]["content"]), end=" ",
              flush=True)
    elif line == "data: [DONE]":
        print("[DONE]")
PY
kill -TERM $SERVER
wait $SERVER
trap - EXIT
echo "server stopped"
