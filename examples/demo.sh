#!/usr/bin/env bash
# The main job on the bundled example: generate a tiny Llama, split it into 2 pipeline
# stages, run the split program on 2 worker groups, and verify it against the unsplit run.
set -euo pipefail
PIPESPLIT=${1:-build/pipesplit}
DIR=${DEMO_DIR:-build/demo}

echo "== 1. generate a tiny Llama (4 layers, 2 stage markers' worth of stages) =="
"$PIPESPLIT" example llama --layers 4 --hidden 64 --heads 4 --ffn 128 --vocab 256 --seq 16 \
    --stages 2 -o "$DIR"

echo
echo "== 2. split it: pipeline-parallel-rewrite, then verify; stage report =="
"$PIPESPLIT" opt "$DIR/model.py" -p "pipeline-parallel-rewrite,verify" -o "$DIR/model.split.py" \
    --stage-report - --stage-report-format text
echo "split module written to $DIR/model.split.py"

echo
echo "== 3. run the split module on 2 groups (threads) =="
"$PIPESPLIT" run "$DIR/model.split.py" --params "$DIR/params.safetensors" \
    --inputs "$DIR/inputs.safetensors" --groups 2 -o "$DIR/out.safetensors"

echo
echo "== 4. verify: unsplit on one worker vs split on 2 groups, bit for bit =="
"$PIPESPLIT" verify-split "$DIR/model.py" --params "$DIR/params.safetensors" \
    --inputs "$DIR/inputs.safetensors" --groups 2
