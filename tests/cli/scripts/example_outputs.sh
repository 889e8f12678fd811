#!/bin/bash
# `pipesplit example` writes the same bytes as before the example models moved into the models
# layer: every file written for fixed options (each form of the Llama, micro-batches, TIR in
# both spellings, random inputs) has the SHA-256 recorded in golden/example_outputs.sha256,
# taken from the tool as it was before the move (commit 46aec5e). A change to a generator that
# is meant to change its output regenerates the list: example_outputs.sh <pipesplit> <dir>
# --update > tests/cli/golden/example_outputs.sha256.
# usage: example_outputs.sh <pipesplit> <work dir> [--update]
set -euo pipefail
tool=$1
dir=$2
golden="$(cd "$(dirname "$0")/../golden" && pwd)/example_outputs.sha256"
rm -rf "$dir" && mkdir -p "$dir"
sizes="--layers 2 --hidden 32 --heads 4 --ffn 64 --vocab 64 --stages 2"
run() { "$tool" "$@" >/dev/null; }
run example llama $sizes --seq 8 --microbatches 2 -o "$dir/high"
run example llama-lowered $sizes --seq 8 -o "$dir/lowered"
run example llama-lowered $sizes --seq 8 --module-only --tir-syntax sblock -o "$dir/lowered_sblock"
run example llama --serving $sizes --kv-heads 2 --requests 3 --prompt-len 5 -o "$dir/serving"
run example llama-lowered --serving $sizes --kv-heads 2 --requests 3 --prompt-len 5 --seed 7 \
  -o "$dir/serving_lowered"
run example random-inputs "$dir/high/model.py" --entry main --seed 3 -o "$dir/random"
cd "$dir"
if [[ "${3:-}" == --update ]]; then
  find . -type f | LC_ALL=C sort | xargs sha256sum
  exit 0
fi
# Every file written is listed, and every listed file matches.
diff <(find . -type f | LC_ALL=C sort) <(awk '{print $2}' "$golden")
sha256sum --quiet -c "$golden"
echo "$(wc -l <"$golden") files identical to the recorded outputs"
