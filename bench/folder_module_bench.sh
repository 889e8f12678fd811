#!/usr/bin/env bash
# `make bench`: the module pipesplit writes for an MLC folder alone (models/mlc_llama_module.h)
# against MLC's compiled module (its phase-5 dump), on TinyLlama's shape with random weights
# (../shared/tools/random_mlc_weights.py, made once): the same greedy tokens, and the decode
# speed of each. q4f16_1 and q0f16; skipped without the corpus or python3-numpy.
#
# Usage: bench/folder_module_bench.sh BUILD_DIR   (FOLDER_BENCH_TOKENS: new tokens, default 8)
set -euo pipefail
build=${1:?usage: folder_module_bench.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
corpus=""
for root in "$here/../../shared/corpus" /work/shared/corpus; do
  if [ -d "$root/mlc-llm-2026" ]; then corpus="$root/mlc-llm-2026"; break; fi
done
if [ -z "$corpus" ] || ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  echo "folder_module_bench: skipped (no ../shared/corpus/mlc-llm-2026 or no python3-numpy)"
  exit 0
fi
tokens=${FOLDER_BENCH_TOKENS:-8}
work=${TMPDIR:-/tmp}/pipesplit_bench_models
mkdir -p "$work"
echo '[[1, 415, 16439, 8536, 1169, 278, 1904, 964, 22950, 29889], [1, 3118, 2501, 263, 931]]' \
  > "$work/folder_prompts.json"
printf '%-20s %-28s %-18s %s\n' model module "decode tokens/s" "tokens equal"
for model in tinyllama-q4f16_1 tinyllama-q0f16; do
  folder="$work/$model"
  if [ ! -f "$folder/params_shard_0.bin" ]; then
    mkdir -p "$folder"
    cp "$corpus/$model/mlc/"* "$folder/"
    /usr/bin/python3 "$corpus/../../tools/random_mlc_weights.py" "$folder" > /dev/null
  fi
  run() {  # run NAME ARGS...: generate, keep the tokens, print the decode speed
    local name=$1
    shift
    "$build/pipesplit" generate "$@" --prompts "$work/folder_prompts.json" \
      --max-new-tokens "$tokens" -o "$work/$model.$name.json" > "$work/$model.$name.log" 2>&1 ||
      { cat "$work/$model.$name.log"; exit 1; }
    sed -n 's/^decode: .* \([0-9.]*\) tokens\/s.*/\1/p' "$work/$model.$name.log"
  }
  dump_speed=$(run dump "$corpus/$model/cpu-pp1/debug-phase5.py" --params "$folder")
  folder_speed=$(run folder "$folder")
  equal=$(/usr/bin/python3 -c "
import json, sys
a, b = (json.load(open(f))['requests'] for f in sys.argv[1:])
print('yes' if [r['tokens'] for r in a] == [r['tokens'] for r in b] else 'NO')
" "$work/$model.dump.json" "$work/$model.folder.json")
  printf '%-20s %-28s %-18s %s\n' "$model" "MLC's phase 5" "$dump_speed" ""
  printf '%-20s %-28s %-18s %s\n' "$model" "written from the folder" "$folder_speed" "$equal"
  [ "$equal" = yes ] || exit 1
done
