#!/usr/bin/env bash
# Checks the include layering of the library: a file of layer L (under src/L/ or
# include/pipesplit/L/) may include only headers of L itself and of the layers below L:
#
#   support < ir < script < analysis < transform < codegen < runtime < serve < models < cli, python
#
# with three exceptions: runtime includes only support and ir (never script, analysis, transform
# or codegen), so a deployed runtime carries no compiler; serve (the engine, tokenizer and HTTP
# server, an application of the runtime) includes only support, ir and runtime, for the same
# reason; models (the example models as data) builds IR and weights above the compiler and the
# runtime; python (the Python extension) and cli are both top layers, and python never includes
# cli (the CLI's helpers are not a library).
# Includes are recognised in both spellings, "pipesplit/<layer>/..." and "src/<layer>/...".
# tests/ and bench/ are not checked.
#
# Usage: check_layering.sh <source-dir>. Prints every offending line and exits 1 if there is
# one; a directory or included layer not in the order above is an error too (add it here).
set -u

root="${1:-.}"
order=(support ir script analysis transform codegen runtime serve models cli python)

rank_of() {
  local i
  for i in "${!order[@]}"; do
    if [[ "${order[$i]}" == "$1" ]]; then
      echo "$i"
      return
    fi
  done
  echo -1
}

# Whether a file of layer $1 may include a header of layer $2.
allowed() {
  local from="$1" to="$2"
  if [[ "$from" == runtime ]]; then
    [[ "$to" == runtime || "$to" == ir || "$to" == support ]]
    return
  fi
  if [[ "$from" == serve ]]; then
    [[ "$to" == serve || "$to" == runtime || "$to" == ir || "$to" == support ]]
    return
  fi
  if [[ "$from" == python && "$to" == cli ]]; then
    return 1
  fi
  local from_rank to_rank
  from_rank=$(rank_of "$from")
  to_rank=$(rank_of "$to")
  ((to_rank >= 0 && to_rank <= from_rank))
}

if [[ ! -d "$root/src" ]]; then
  echo "check_layering.sh: no src/ under '$root'" >&2
  exit 2
fi

# An include of a pipesplit header; group 2 is the layer it belongs to.
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](pipesplit|src)/([A-Za-z0-9_]+)/'

# file:line:text of every include under directory $1 matching the regex $2, in file order.
includes_in() {
  grep -rnE "$2" --include='*.h' --include='*.hpp' --include='*.cc' --include='*.cpp' \
    --include='*.inc' "$1" | sort -t: -k1,1 -k2,2n
}

# Splits a line of includes_in into $file, $line and $text.
split_hit() {
  file="${1%%:*}"
  local rest="${1#*:}"
  line="${rest%%:*}"
  text="${rest#*:}"
}

status=0
checked=0
for base in src include/pipesplit; do
  [[ -d "$root/$base" ]] || continue
  for dir in "$root/$base"/*/; do
    layer=$(basename "$dir")
    if (($(rank_of "$layer") < 0)); then
      echo "$base/$layer/: unknown layer '$layer' (not in: ${order[*]})"
      status=1
      continue
    fi
    # Every include of a pipesplit header, in either spelling.
    while IFS= read -r hit; do
      split_hit "$hit"
      to=$(sed -E "s@${include_re}.*@\\2@" <<<"$text")
      checked=$((checked + 1))
      if ! allowed "$layer" "$to"; then
        echo "${file#"$root"/}:$line: layer '$layer' includes layer '$to': ${text}"
        status=1
      fi
    done < <(includes_in "$dir" "$include_re")
  done
done

# Inside a layer split into folders, a file of folder F includes only headers of F and of the
# folders before it (the order its CMakeLists.txt states).
declare -A folder_order=(
  [runtime]="tensor kernels io dist exec launch"
  [serve]="engine text http"
  [script]="syntax tir relax printer"
)
folder_rank() {  # folder_rank <layer> <folder>: its position, -1 when unknown
  local i=0 f
  for f in ${folder_order[$1]}; do
    if [[ "$f" == "$2" ]]; then
      echo "$i"
      return
    fi
    i=$((i + 1))
  done
  echo -1
}
folder_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](pipesplit|src)/([A-Za-z0-9_]+)/([A-Za-z0-9_]+)/'
for layer in "${!folder_order[@]}"; do
  for base in src include/pipesplit; do
    for dir in "$root/$base/$layer"/*/; do
      [[ -d "$dir" ]] || continue
      folder=$(basename "$dir")
      from_rank=$(folder_rank "$layer" "$folder")
      if ((from_rank < 0)); then
        echo "$base/$layer/$folder/: unknown folder (not in: ${folder_order[$layer]})"
        status=1
        continue
      fi
      while IFS= read -r hit; do
        split_hit "$hit"
        [[ "$(sed -E "s@${folder_re}.*@\\2@" <<<"$text")" == "$layer" ]] || continue
        to=$(sed -E "s@${folder_re}.*@\\3@" <<<"$text")
        checked=$((checked + 1))
        if (($(folder_rank "$layer" "$to") < 0 || $(folder_rank "$layer" "$to") > from_rank)); then
          echo "${file#"$root"/}:$line: $layer/$folder includes $layer/$to: ${text}"
          status=1
        fi
      done < <(includes_in "$dir" "$folder_re")
    done
  done
done

if ((status != 0)); then
  echo "include layering violated (order: ${order[*]}; runtime includes only support and ir)"
else
  echo "include layering holds ($checked includes checked)"
fi
exit "$status"
