#!/usr/bin/env bash
# Checks the include layering of the library: a file of layer L (under src/L/ or
# include/pipesplit/L/) may include only headers of L itself and of the layers below L:
#
#   support < ir < script < analysis < transform < codegen < runtime < cli
#
# with one exception: runtime includes only support and ir (never script, analysis, transform
# or codegen), so a deployed runtime carries no compiler. Includes are recognised in both
# spellings, "pipesplit/<layer>/..." and "src/<layer>/...". tests/ and bench/ are not checked.
#
# Usage: check_layering.sh <source-dir>. Prints every offending line and exits 1 if there is
# one; a directory or included layer not in the order above is an error too (add it here).
set -u

root="${1:-.}"
order=(support ir script analysis transform codegen runtime cli)

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
    # file:line:text of every include of a pipesplit header, in either spelling.
    while IFS= read -r hit; do
      file="${hit%%:*}"
      rest="${hit#*:}"
      line="${rest%%:*}"
      text="${rest#*:}"
      to=$(sed -E "s@${include_re}.*@\\2@" <<<"$text")
      checked=$((checked + 1))
      if ! allowed "$layer" "$to"; then
        echo "${file#"$root"/}:$line: layer '$layer' includes layer '$to': ${text}"
        status=1
      fi
    done < <(grep -rnE "$include_re" --include='*.h' --include='*.hpp' --include='*.cc' \
      --include='*.cpp' --include='*.inc' "$dir" | sort -t: -k1,1 -k2,2n)
  done
done

if ((status != 0)); then
  echo "include layering violated (order: ${order[*]}; runtime includes only support and ir)"
else
  echo "include layering holds ($checked includes checked)"
fi
exit "$status"
