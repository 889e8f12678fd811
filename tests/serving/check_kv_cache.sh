#!/usr/bin/env bash
# The paged KV cache scenario: pipesplit_kv_cache_scenario records every operation, input and
# attention output to JSON; kv_cache_reference.py replays them in float64 NumPy and compares
# (max abs diff <= 1e-5). Exit 77 (skip) without numpy.
# usage: check_kv_cache.sh SCENARIO_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
scenario=$1 src=$2 work=$3
# /usr/bin/python3 first: the python3 on PATH may lack numpy.
python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
rm -rf "$work" && mkdir -p "$work"
"$scenario" "$work/scenario.json"
exec "$python" "$src/kv_cache_reference.py" "$work/scenario.json"
