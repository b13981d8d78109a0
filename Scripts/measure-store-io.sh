#!/usr/bin/env bash
# What ArchiveStore costs in flushes to the drive, write calls and time, against UserDefaults
# and against the least the file system can do (the floors), as a Markdown table.
#
# How: Scripts/flush-shim.c, built here with gcc, is preloaded (LD_PRELOAD) into
# `KeyedArchiveBenchmarks store-io SCENARIO`, one process per scenario and run. It counts every
# fsync, fdatasync, syncfs, sync, sync_file_range and msync(MS_SYNC), and every write, pwrite,
# writev and pwritev, in the timed phase only (the benchmark resets the counts after preparing).
# Each scenario runs twice per round: once as the machine is, and once with every flush made
# DELAY_MS milliseconds slower, the time a drive takes to empty its cache (a sleep after the
# real call, which the system makes a little longer than asked: the floors pay the same). The
# delays of flushes from several threads overlap unless SERIAL=1 makes them take turns; the
# threads row depends on which, and a real drive may be nearer either. The times are the median
# of RUNS rounds; the counts must be the same in every run, or the table shows their range.
#
# The floors replace one file with open, write, close and rename (floor-rename), and with an
# fsync of the file before the rename and of the folder after it (floor-flushed): what a durable
# save cannot do without. The ratio column divides a row's time by its floor's: set-int and
# defaults-sync by floor-flushed (the same ≈300 bytes per value, an Int), set-int-buffered and
# defaults by floor-rename, threads by floor-flushed-1k (a ≈1 KB value; the floor runs on one
# thread, the row on 8 at once). A batch row's operation is a whole batch of 100 saves.
#
# What it cannot measure: Apple's F_FULLFSYNC (about 17 ms on Apple's drives, which is what
# ArchiveStore calls there) and F_BARRIERFSYNC do not exist on Linux, and a virtual disk often
# answers fsync long before the data would be safe; DELAY_MS stands for that cost, it does not
# measure it. UserDefaults here is swift-corelibs-foundation's, which writes its file itself;
# on Apple's systems cfprefsd writes it in another process, where no count of this one sees it.
# The shim does not see writes the C library makes inside itself (stdio), raw syscall(2),
# io_uring, or writes to files opened with O_SYNC. Times depend on everything else the machine
# is doing: compare rows of one table, measured together, not tables of different days.
#
#   Scripts/measure-store-io.sh                         # every scenario, DELAY_MS=2, RUNS=3
#   DELAY_MS=17 SCENARIOS="set-int floor-flushed" Scripts/measure-store-io.sh
# Options (environment): DELAY_MS (default 2), SCENARIOS (space-separated; default all),
# RUNS (rounds, default 3), COUNT (operations per run; default the benchmark's, 1,000),
# SERIAL=1 (delays of concurrent flushes take turns),
# SCRATCH_PATH (swift build's scratch path, default .build), TMPDIR (where the files go).
set -euo pipefail
cd "$(dirname "$0")/.."

delay="${DELAY_MS:-2}"
runs="${RUNS:-3}"
count="${COUNT:-}"
serial="${SERIAL:-0}"
scratch="${SCRATCH_PATH:-.build}"
scenarios="${SCENARIOS:-set-int set-int-buffered threads batch loads loads-limited defaults-sync defaults floor-rename floor-flushed floor-rename-1k floor-flushed-1k}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gcc -shared -fPIC -O2 -Wall -o "$work/flush-shim.so" Scripts/flush-shim.c -ldl -pthread
# The build yields to other work on the machine; the measured runs below do not.
nice -n 10 swift build -c release --product KeyedArchiveBenchmarks --scratch-path "$scratch" >&2
bench="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/KeyedArchiveBenchmarks"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
results="$work/results.tsv"
: >"$results"
# Rounds outermost, so that a slow moment of the machine spreads over every row instead of
# landing on one.
for round in $(seq 1 "$runs"); do
    for scenario in $scenarios; do
        for flush_delay in 0 "$delay"; do
            # Only the benchmark gets the shim: the shell and its tools stay uncounted.
            line="$(LD_PRELOAD="$work/flush-shim.so" FLUSH_DELAY_MS="$flush_delay" FLUSH_DELAY_SERIAL="$serial" "$bench" store-io "$scenario" $count)"
            case "$(cut -f5 <<<"$line")" in
            '' | *[!0-9]*) echo "measure-store-io: no counts from $scenario (was the shim loaded?): $line" >&2; exit 1 ;;
            esac
            printf '%s\t%s\t%s\n' "$round" "$flush_delay" "$line" >>"$results"
        done
    done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

folder="${TMPDIR:-/tmp}"
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift Scripts/flush-shim.c || echo ' (with uncommitted changes)')" \
    "on Linux $(uname -r), $(nproc) cores, $(findmnt -n -o FSTYPE -T "$folder") at $folder;" \
    "median of $runs runs; flush delay $delay ms$([ "$serial" = 1 ] && echo ', taking turns' || echo ', overlapping across threads'); load average $load_before before, $load_after after."
echo
python3 - "$results" "$delay" <<'EOF'
import statistics
import sys

path, delay = sys.argv[1], sys.argv[2]
floors = {"set-int": "floor-flushed", "set-int-buffered": "floor-rename", "defaults-sync": "floor-flushed", "defaults": "floor-rename", "threads": "floor-flushed-1k"}

order, runs = [], {}
for line in open(path):
    round_, flush_delay, scenario, operations, seconds, per_op, flushes, flushes_per_op, writes, writes_per_op = line.rstrip("\n").split("\t")
    if scenario not in runs:
        order.append(scenario)
        runs[scenario] = []
    runs[scenario].append(
        dict(delayed=flush_delay != "0", operations=int(operations), per_op=float(per_op),
             flushes=float(flushes_per_op), writes=float(writes_per_op)))

def count(values):
    # A count that differs between runs (a journal compaction in one of them) shows its range.
    low, high = min(values), max(values)
    return f"{low:.3f}" if low == high else f"{low:.3f}–{high:.3f}"

def microseconds(value):
    return f"{value:.1f}" if value < 1000 else f"{value:,.0f}"

def median(scenario, delayed):
    return statistics.median(run["per_op"] for run in runs[scenario] if run["delayed"] == delayed)

print(f"| scenario | operations | flushes/op | write calls/op | µs/op | µs/op, {delay} ms/flush | floor | × floor | × floor, {delay} ms/flush |")
print("|---|--:|--:|--:|--:|--:|---|--:|--:|")
for scenario in order:
    rows = runs[scenario]
    cells = [
        scenario, f"{rows[0]['operations']:,}",
        count([run["flushes"] for run in rows]), count([run["writes"] for run in rows]),
        microseconds(median(scenario, False)), microseconds(median(scenario, True)),
    ]
    floor = floors.get(scenario)
    if floor in runs:
        cells += [floor, f"{median(scenario, False) / median(floor, False):.2f}", f"{median(scenario, True) / median(floor, True):.2f}"]
    else:
        cells += ["", "", ""]
    print("| " + " | ".join(cells) + " |")

print()
print("<details><summary>Every run: round, flush delay (ms), then the benchmark's line (scenario, operations, seconds, µs/op, flushes, flushes/op, write calls, write calls/op)</summary>")
print()
print("```")
print(open(path).read(), end="")
print("```")
print()
print("</details>")
EOF
