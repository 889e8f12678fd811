#!/usr/bin/env bash
# Checks that the README's two commands need nothing but the Debian packages `make deps`
# installs, so `make demo` and `make test` work first on a fresh Debian machine:
#
#   1. the README's quick start is exactly `make demo` and `make test`, and both Makefile
#      targets run `deps` first;
#   2. the package list the README names is the Makefile's DEB_PACKAGES;
#   3. every system header the build compiled against and every shared library the built
#      tools load belongs to a package of DEB_PACKAGES or of their dependency closure
#      (apt-cache depends --recurse), so nothing installed by hand on this machine is used.
#
# Usage: check_deps.sh <source-dir> <build-dir> <tool>... Exits 77 (skipped) where dpkg or
# apt-cache is missing (not a Debian machine); prints each offence and exits 1 otherwise.
set -u
src="$1"
build="$2"
shift 2
tools=("$@")

if ! command -v dpkg-query >/dev/null || ! command -v apt-cache >/dev/null; then
  echo "not a Debian machine: skipped"
  exit 77
fi

status=0
fail() {
  echo "error: $*"
  status=1
}

# 1. Quick start and Makefile targets.
quick=$(awk '/^## Quick start/{on=1; next} on && /^```sh/{code=1; next} code && /^```/{exit}
             code {sub(/ *#.*/, ""); print}' "$src/README.md")
if [[ "$quick" != $'make demo\nmake test' ]]; then
  fail "README quick start must be exactly 'make demo' then 'make test', found: $(echo $quick)"
fi
for target in demo test; do
  grep -Eq "^$target:.*\bdeps\b" "$src/Makefile" || fail "Makefile target '$target' does not run deps"
done

# 2. README package list == DEB_PACKAGES.
make_pkgs=$(make -s -C "$src" -f Makefile -p -n deps 2>/dev/null |
  awk -F' := ' '/^DEB_PACKAGES :=/{print $2}' | tr ' ' '\n' | sed '/^$/d' | sort -u)
readme_pkgs=$(tr '\n' ' ' <"$src/README.md" | grep -o 'installs the missing ones of `[^`]*`' |
  sed 's/.*`\(.*\)`/\1/' | tr ' ' '\n' | sed '/^$/d' | sort -u)
[[ -n "$make_pkgs" ]] || fail "cannot read DEB_PACKAGES from the Makefile"
if [[ "$make_pkgs" != "$readme_pkgs" ]]; then
  fail "README package list differs from DEB_PACKAGES:" \
    "$(diff <(echo "$readme_pkgs") <(echo "$make_pkgs") | grep '^[<>]' | tr '\n' ' ')"
fi

# 3. Files used by the build and the tools, and the packages that own them.
files=$( {
  if [[ -f "$build/build.ninja" ]]; then
    ninja -C "$build" -t deps 2>/dev/null | sed -n 's/^ \+\(\/usr\/.*\)$/\1/p'
  else
    # Only CMake's objects: tests that compile kernels write and delete .o.d files of their
    # own under the build folder while this runs beside them.
    find "$build" -path '*/CMakeFiles/*' -name '*.o.d' -exec grep -ho '/usr/[^ :\\]*' {} +
  fi
  for t in "${tools[@]}"; do ldd "$t" | awk '$3 ~ /^\// {print $3}'; done
} | sort -u)
[[ -n "$files" ]] || fail "no dependency information in $build (build first)"

# Owners from dpkg's file lists in one pass (dpkg-query -S per file is slow); a file is looked
# up as given, resolved, and in its pre-/usr-merge spelling.
used=$(for f in $files; do
  real=$(readlink -f "$f")
  printf '%s\t%s\n%s\t%s\n%s\t%s\n' "$f" "$f" "$f" "$real" "$f" "${real#/usr}"
done | awk -F'\t' '
  FNR == NR { want[$2] = want[$2] " " $1; files[$1] = 1; next }
  ($0 in want) {
    pkg = FILENAME; sub(/.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg)
    n = split(want[$0], fs, " "); for (i = 1; i <= n; i++) owner[fs[i]] = pkg
  }
  END { for (f in files) print (f in owner) ? owner[f] : "?" f }' - /var/lib/dpkg/info/*.list |
  sort -u)
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances $make_pkgs 2>/dev/null |
  sed -n 's/^\([a-z0-9][^ ]*\)$/\1/p; s/^ *\(Pre\)\?Depends: <\?\([^>]*\)>\?$/\2/p' |
  sed 's/:amd64$//' | sort -u)
essential=$(dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
  awk '$2 == "yes" || $3 == "required" {print $1}' | sort -u)
for pkg in $used; do
  if [[ "$pkg" == \?* ]]; then
    fail "${pkg#\?} belongs to no Debian package (installed by hand?)"
  elif ! grep -qx "$pkg" <<<"$closure" && ! grep -qx "$pkg" <<<"$essential"; then
    fail "$pkg is used by the build but is not installed by 'make deps' (add it to DEB_PACKAGES)"
  fi
done
echo "checked $(wc -w <<<"$files") files from $(wc -w <<<"$used") packages"
exit $status
