#!/usr/bin/env bash
# Crash soak for ArchiveStore: starts a child process that saves growing values ([0, ..., n-1])
# to several keys in a loop, kills it with SIGKILL at a random moment, and checks after every
# kill that once the next store has opened the folder no temporary file is left (the kill's own,
# if it left one, is deleted by that opening), that each key loads without error, holds a
# complete value, and has lost no save the child acknowledged. Repeats KILLS times (default
# 1000) and prints the figures.
#
# Then the same with eviction: the suite's EvictionCrashTests run with KILLS kills of a child
# saving past a byte limit (every remaining value loads whole, the store is within its limit
# after the next save, only the least recently used are missing).
#
# Then batches: the suite's BatchCrashTests run with KILLS kills of a child making numbered
# batches at .full durability (and three tenths as many at .buffered), while another process
# reads the keys the whole time (a batch seen in part, or seen and then unseen, fails it), and
# after each kill a third process checks that what is on disk is what the batches made up to
# the newest one there, and that no acknowledged batch is lost.
#
#   Scripts/crash-soak.sh                       # 1,000 kills, debug build in .build
#   KILLS=200 CONFIGURATION=release SCRATCH_PATH=/tmp/build Scripts/crash-soak.sh
#
# Exit status 0 when every check passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

KILLS=${KILLS:-1000}
CONFIGURATION=${CONFIGURATION:-debug}
SCRATCH_PATH=${SCRATCH_PATH:-.build}

# --product, not --target: a target is compiled but not linked (SwiftPM makes a product of each
# executable target of the package, so the child needs no product of its own in Package.swift).
swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH_PATH" --product archive-store-crash-child >/dev/null || exit 1
CHILD="$(swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH_PATH" --show-bin-path)/archive-store-crash-child"
[[ -x "$CHILD" ]] || { echo "crash-soak: $CHILD was not built" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/archive-store-soak.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
STORE="$WORK/store"
LONG_KEY=$(printf 'long key %.0s' {1..40})
KEYS=("plain" "Mixed/Case ünï" "$LONG_KEY")
ACKED=(0 0 0)

kills=0 mid_save=0 loads=0 failures=0 lost=0 torn=0 left_by_kills=0 left_after_open=0
temporary_files() { find "$STORE" -name '.tmp-*' | wc -l; }
start=$(date +%s.%N)
for ((cycle = 1; cycle <= KILLS; cycle++)); do
    : >"$WORK/acks"
    "$CHILD" loop "$STORE" "${KEYS[@]}" >"$WORK/acks" 2>"$WORK/child-errors" &
    pid=$!
    if ((RANDOM % 10)); then
        # Usually wait for the first acknowledged save, so the kill lands among saves.
        for ((wait = 0; wait < 4000; wait++)); do
            [[ -s "$WORK/acks" ]] && break
            sleep 0.005
        done
    fi
    sleep "0.0$(printf '%02d' $((RANDOM % 20)))"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    status=$?
    if ((status != 137)); then
        echo "cycle $cycle: the child ended by itself (status $status): $(cat "$WORK/child-errors")" >&2
        failures=$((failures + 1))
        continue
    fi
    kills=$((kills + 1))
    [[ -s "$WORK/acks" ]] && mid_save=$((mid_save + 1))

    # The longest acknowledged value per key never shrinks.
    while read -r key n; do
        ((n > ACKED[key])) && ACKED[key]=$n
    done < <(awk '$1 == "ack" && NF == 3 { print $2, $3 }' "$WORK/acks")

    # A kill in the middle of writing leaves a temporary file; the next store to open the
    # folder (another process, as an app's next launch) deletes it, and leaves nothing behind.
    (($(temporary_files) > 0)) && left_by_kills=$((left_by_kills + 1))
    if ! opened=$("$CHILD" open "$STORE" 2>"$WORK/open-errors") || [[ $opened != opened ]]; then
        echo "cycle $cycle: the store did not open: $(cat "$WORK/open-errors")" >&2
        failures=$((failures + 1))
        continue
    fi
    left=$(temporary_files)
    if ((left > 0)); then
        echo "cycle $cycle: $left temporary files left after the next store opened the folder" >&2
        left_after_open=$((left_after_open + left))
        failures=$((failures + 1))
    fi

    # verify prints "<key> <count>" for every key it loads, and the keys that do not load or
    # hold an incomplete value on standard error (exit status 1).
    counts=$("$CHILD" verify "$STORE" "${KEYS[@]}" 2>"$WORK/verify-errors")
    if [[ -s "$WORK/verify-errors" ]]; then
        echo "cycle $cycle: $(cat "$WORK/verify-errors")" >&2
        torn=$((torn + $(wc -l <"$WORK/verify-errors")))
        failures=$((failures + 1))
    fi
    while read -r key count; do
        [[ -n $key ]] || continue
        loads=$((loads + 1))
        if ((count < ACKED[key])); then
            echo "cycle $cycle: key $key holds $count elements, but $((ACKED[key])) were acknowledged" >&2
            lost=$((lost + 1))
            failures=$((failures + 1))
        fi
    done <<<"$counts"
done
end=$(date +%s.%N)

longest=$(printf '%s\n' "${ACKED[@]}" | sort -n | tail -1)
elapsed=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
echo "crash-soak: $kills kills ($mid_save after saves began, $left_by_kills left a temporary file)," \
    "$loads loads verified, $lost acknowledged saves lost, $torn torn or unreadable values," \
    "$left_after_open temporary files left after the next open ($(temporary_files) at the end)," \
    "$failures failures, longest value $longest, ${elapsed}s"
((failures == 0)) || exit 1

ARCHIVE_STORE_EVICTION_KILLS=$KILLS swift test -c "$CONFIGURATION" --scratch-path "$SCRATCH_PATH" \
    --filter EvictionCrashTests 2>&1 | grep -E "crash safety with eviction|✘|passed after|failed after"
eviction_status=${PIPESTATUS[0]}

# The figures of each pass (kills, batches acknowledged, kills after the batch in flight became
# visible, the reader's rounds and loads, time, seed) are the lines the tests print.
ARCHIVE_STORE_BATCH_KILLS=$KILLS swift test -c "$CONFIGURATION" --scratch-path "$SCRATCH_PATH" \
    --filter BatchCrashTests 2>&1 | grep -E "crash safety of batches|✘|passed after|failed after"
batch_status=${PIPESTATUS[0]}
((eviction_status == 0 && batch_status == 0)) || exit 1
