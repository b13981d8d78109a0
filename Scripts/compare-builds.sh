#!/usr/bin/env bash
# Usage: Scripts/compare-builds.sh OLD_BINARY NEW_BINARY [WORKLOAD] [OPERATION] [PROCESSES]
#   e.g. Scripts/compare-builds.sh /tmp/bench-old .build/release/KeyedArchiveBenchmarks keyed-10k ours-encode 8
# Times one operation of two builds of KeyedArchiveBenchmarks steadier than a benchmark run can on
# a shared machine: each process runs the operation once (--warmup 0) or 41 times (--warmup 40);
# the process CPU time of the second less that of the first, over 40, is one run's time, from the
# least CPU time of PROCESSES processes of each kind, the two builds alternated. Needs perf.
set -euo pipefail
old="${1:?usage: compare-builds.sh OLD_BINARY NEW_BINARY [WORKLOAD] [OPERATION] [PROCESSES]}"
new="${2:?usage: compare-builds.sh OLD_BINARY NEW_BINARY [WORKLOAD] [OPERATION] [PROCESSES]}"
workload="${3:-keyed-10k}"
operation="${4:-ours-encode}"
processes="${5:-6}"
extra=40

cpu_ms() {  # BINARY WARMUP → the process's CPU time in ms
    perf stat -x, -e task-clock "$1" "$workload" --only "$operation" --warmup "$2" 2>&1 >/dev/null |
        awk -F, '/task-clock/ { print $1 }'
}

declare -A least
for ((i = 1; i <= processes; i++)); do
    for binary in "$old" "$new"; do
        for warmup in 0 "$extra"; do
            ms="$(cpu_ms "$binary" "$warmup")"
            key="$binary@$warmup"
            least[$key]="$(awk -v a="${least[$key]:-1e12}" -v b="$ms" 'BEGIN { print (b < a) ? b : a }')"
        done
    done
done
for binary in "$old" "$new"; do
    awk -v name="$binary" -v one="${least[$binary@0]}" -v many="${least[$binary@$extra]}" -v n="$extra" \
        -v what="$workload $operation" 'BEGIN { printf "%s: %s %.2f ms a run\n", name, what, (many - one) / n }'
done
