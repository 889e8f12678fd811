#!/usr/bin/env bash
# Greedy generation of the serving example: the interpreter (pipesplit_serving_greedy, all
# requests in one paged KV cache) against greedy_reference.py (float64 NumPy, each request
# alone). Tokens must be identical, logits within 1e-3. Exit 77 (skip) without numpy.
# usage: check_greedy.sh PIPESPLIT GREEDY_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
pipesplit=$1 greedy=$2 src=$3 work=$4
python=
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then
    python=$candidate
    break
  fi
done
[[ -n "$python" ]] || { echo "numpy is missing: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
max_new=6
# Two unsplit (one-stage) configurations: the default one (4 layers, GQA 4/2) and MHA with
# prompts longer than a page.
"$pipesplit" example llama --serving --stages 1 --requests 3 --prompt-len 7 --seed 5 -o "$work/a"
"$pipesplit" example llama --serving --layers 3 --stages 1 --heads 2 --kv-heads 2 --hidden 32 \
  --ffn 48 --vocab 100 --requests 2 --prompt-len 20 --seed 9 -o "$work/b"
for case in a b; do
  "$greedy" "$work/$case" "$max_new" "$work/$case/interpreter.json"
  "$python" "$src/greedy_reference.py" --dir "$work/$case" --max-new-tokens "$max_new" \
    -o "$work/$case/reference.json"
  "$python" - "$work/$case/interpreter.json" "$work/$case/reference.json" <<'PY'
import json, sys
got, want = (json.load(open(p)) for p in sys.argv[1:3])
assert got["tokens"] == want["tokens"], "tokens differ: %s vs %s" % (got["tokens"], want["tokens"])
worst = max(abs(a - b) for r1, r2 in zip(got["logits"], want["logits"])
            for s1, s2 in zip(r1, r2) for a, b in zip(s1, s2))
assert worst <= 1e-3, "logits differ by %g" % worst
print("%s: %d requests, tokens %s, max logit difference %.3g" %
      (sys.argv[1], len(got["tokens"]), got["tokens"], worst))
PY
done
