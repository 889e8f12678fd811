#!/usr/bin/env bash
# Tests check_layering.sh on small trees: models may include the compiler and the runtime and is
# included by cli and python; a layer below it (transform, runtime) may not include it, nor may it
# include cli; serve includes the runtime and is included by cli and python, but neither the
# runtime includes serve nor serve the compiler or models; serve's folders keep their order; an
# unknown layer is reported.
# Usage: check_layering_test.sh <path to check_layering.sh>
set -u
checker="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# make_tree <dir> <file>=<include>...: a src/ tree whose files include the given headers.
make_tree() {
  local dir="$1"
  shift
  mkdir -p "$dir/src"
  local spec file header
  for spec in "$@"; do
    file="${spec%%=*}"
    header="${spec#*=}"
    mkdir -p "$dir/src/$(dirname "$file")"
    echo "#include \"$header\"" >>"$dir/src/$file"
  done
}

# expect <name> <exit status> <text the output must hold or ''> <tree specs...>
expect() {
  local name="$1" status="$2" text="$3"
  shift 3
  local dir="$tmp/$name"
  make_tree "$dir" "$@"
  local out code
  out=$(bash "$checker" "$dir" 2>&1)
  code=$?
  if [[ "$code" != "$status" ]] || [[ -n "$text" && "$out" != *"$text"* ]]; then
    echo "FAIL $name: exit $code (want $status), output:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

expect models_above_compiler_and_runtime 0 "include layering holds" \
  "models/a.cc=pipesplit/transform/pass.h" "models/b.cc=pipesplit/runtime/io/weights.h" \
  "cli/c.cc=pipesplit/models/llama.h" "python/d.cc=pipesplit/models/llama.h"
expect transform_includes_models 1 "layer 'transform' includes layer 'models'" \
  "transform/a.cc=pipesplit/models/llama.h"
expect runtime_includes_models 1 "layer 'runtime' includes layer 'models'" \
  "runtime/a.cc=pipesplit/models/llama.h"
expect models_includes_cli 1 "layer 'models' includes layer 'cli'" \
  "models/a.cc=src/cli/cli_common.h"
expect serve_above_runtime 0 "include layering holds" \
  "serve/engine/a.cc=pipesplit/runtime/exec/interpreter.h" \
  "serve/http/b.cc=pipesplit/serve/engine/engine.h" "cli/c.cc=pipesplit/serve/http/server.h" \
  "python/d.cc=pipesplit/serve/engine/generate.h" "models/e.cc=pipesplit/serve/text/tokenizer.h"
expect runtime_includes_serve 1 "layer 'runtime' includes layer 'serve'" \
  "runtime/exec/a.cc=pipesplit/serve/engine/engine.h"
expect serve_includes_compiler 1 "layer 'serve' includes layer 'script'" \
  "serve/engine/a.cc=pipesplit/script/parser.h"
expect serve_includes_models 1 "layer 'serve' includes layer 'models'" \
  "serve/text/a.cc=pipesplit/models/llama.h"
expect serve_engine_includes_http 1 "serve/engine" \
  "serve/engine/a.cc=pipesplit/serve/http/server.h"
expect unknown_layer 1 "unknown layer 'widgets'" "widgets/a.cc=pipesplit/ir/node.h"

exit $((failures > 0))
