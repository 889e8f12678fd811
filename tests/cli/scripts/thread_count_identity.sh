#!/bin/bash
# The compiler's output does not depend on its thread count: the lowered Llama example, split
# into 8 stages (stage functions built side by side) and printed (members printed side by
# side), is byte-identical with PIPESPLIT_COMPILE_THREADS=1, 2 and 5.
# usage: thread_count_identity.sh <pipesplit> <work dir>
set -euo pipefail
tool=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$tool" example llama-lowered --layers 24 --stages 8 --module-only -o "$dir/ex"
module=$(ls "$dir"/ex/*.py | head -n 1)
for threads in 1 2 5; do
  PIPESPLIT_COMPILE_THREADS=$threads "$tool" opt -p pipeline-parallel-rewrite "$module" \
    -o "$dir/split_$threads.py"
  PIPESPLIT_COMPILE_THREADS=$threads "$tool" fmt "$dir/split_1.py" > "$dir/fmt_$threads.py"
done
# The split module has its 8 stage functions (the comparison is not between empty outputs).
test "$(grep -c '^    def main_stage[0-7](' "$dir/split_1.py")" -eq 8
for threads in 2 5; do
  cmp "$dir/split_1.py" "$dir/split_$threads.py"
  cmp "$dir/fmt_1.py" "$dir/fmt_$threads.py"
done
cmp "$dir/split_1.py" "$dir/fmt_1.py"
echo "identical for 1, 2 and 5 threads"
