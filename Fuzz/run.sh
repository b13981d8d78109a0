#!/usr/bin/env bash
# Usage: Fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#        Fuzz/run.sh TARGET replay FILE-OR-DIRECTORY...
#   TARGET: FuzzPlistReader | FuzzKeyedUnarchiver | FuzzArchiveFile | FuzzXMLPlistReader
# Builds the fuzzers (release, libFuzzer + AddressSanitizer), seeds a scratch corpus in
# Fuzz/.corpus/TARGET from every file under Fixtures/ and ../shared/fixtures, in any folder (a new
# fixture folder seeds without a change here) except .json, .md, .txt and .swift files and files of
# 1 MiB or more (libFuzzer reads only the first -max_len=65536 bytes of a seed), plus generated zoo
# archives (for FuzzXMLPlistReader, the XML files among them and the XML form of the binary ones),
# and fuzzes for SECONDS. Crashes, timeouts and out-of-memory inputs
# land in Fuzz/.artifacts/TARGET/; the log in Fuzz/.logs/. Environment: JOBS (parallel jobs, default 1),
# NICE (default 10), SKIP_BUILD=1, DETECT_LEAKS (default 1: LeakSanitizer reports any memory an input
# leaves behind as a failure, since a decode that fails releases everything it made and the harness
# breaks the cycles of the models that decode; nothing is suppressed, unlike the test suite's
# Scripts/lsan.supp, whose entries the fuzzers never reach).
# Leak detection is turned off by DETECT_LEAKS=0 and nothing else: `detect_leaks=$DETECT_LEAKS` is
# appended to any ASAN_OPTIONS and LSAN_OPTIONS given (the last setting wins), and a -detect_leaks
# flag among the extra libFuzzer flags is refused. Other ASAN_OPTIONS are kept.
# `replay` runs each file given, and each file under each directory given, once through TARGET
# (libFuzzer -runs=0, whole files, no max_len), each in a process of its own with the same
# sanitizer options, so a crash does not hide the files after it and LeakSanitizer's report at exit
# names the file that leaked; it prints one line a file and exits 1 if any failed (their output is
# in Fuzz/.logs/replay-TARGET-*/). E.g. `Fuzz/run.sh FuzzKeyedUnarchiver replay Fuzz/.artifacts/FuzzKeyedUnarchiver`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
target="${1:?usage: run.sh TARGET SECONDS | run.sh TARGET replay PATH...}"
seconds="${2:?usage: run.sh TARGET SECONDS | run.sh TARGET replay PATH...}"
shift 2
case "$target" in
FuzzPlistReader | FuzzKeyedUnarchiver | FuzzArchiveFile | FuzzXMLPlistReader) ;;
*) echo "unknown target $target (FuzzPlistReader, FuzzKeyedUnarchiver, FuzzArchiveFile, FuzzXMLPlistReader)" >&2; exit 2 ;;
esac
if [[ "$seconds" == replay ]]; then
    [[ $# -gt 0 ]] || { echo "usage: run.sh $target replay FILE-OR-DIRECTORY..." >&2; exit 2; }
    paths=()
    for path in "$@"; do paths+=("$(realpath -m -- "$path")"); done  # before the cd below
elif ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "SECONDS must be a number of seconds, or \"replay\" (got \"$seconds\")" >&2; exit 2
fi
export SWIFT_BACKTRACE=enable=no
detect_leaks="${DETECT_LEAKS:-1}"
case "$detect_leaks" in
0 | 1) ;;
*) echo "DETECT_LEAKS must be 0 or 1 (got \"$detect_leaks\")" >&2; exit 2 ;;
esac
if [[ "$seconds" != replay ]]; then
    for flag in "$@"; do
        case "$flag" in
        -detect_leaks=*) echo "set DETECT_LEAKS=0 or 1 rather than passing $flag" >&2; exit 2 ;;
        esac
    done
fi
# Sanitizer options: later settings override earlier ones, and LSAN_OPTIONS is read after
# ASAN_OPTIONS; detect_leaks goes last in both, so neither can drop leak detection unnoticed.
export ASAN_OPTIONS="detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}:detect_leaks=$detect_leaks"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}detect_leaks=$detect_leaks"
nice_level="${NICE:-10}"
cd "$here"
# SwiftPM passes `-sanitize=fuzzer` and `-sanitize=address` as two options, in an order that
# changes from run to run (a Set), and swift-driver 6.3 keeps only the last `-sanitize=`: a build
# then silently lacks either the coverage instrumentation (libFuzzer: "Is the code instrumented
# for coverage?") or the ASan checks. The combined option, last on the line, gives both.
build=(swift build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    nice -n "$nice_level" "${build[@]}"
fi
bin_path="$("${build[@]}" --show-bin-path)"
binary="$bin_path/$target"
# Refuse to fuzz an uninstrumented build.
if ! grep -q __sancov_cntrs "$binary"; then
    echo "$binary has no coverage instrumentation (-sanitize=fuzzer was dropped); rebuild" >&2; exit 3
fi
if ! nm -u "$bin_path/PropertyList.build/BPlistDocument.swift.o" | grep -q __asan_; then
    echo "the library was built without AddressSanitizer checks (-sanitize=address was dropped); rebuild" >&2; exit 3
fi

logs="$here/.logs"
if [[ "$seconds" == replay ]]; then
    files=()
    for path in "${paths[@]}"; do
        if [[ -d "$path" ]]; then
            while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$path" -type f -print0 | sort -z)
        elif [[ -f "$path" ]]; then
            files+=("$path")
        else
            echo "$path is neither a file nor a directory" >&2; exit 2
        fi
    done
    out="$logs/replay-$target-$(date +%Y%m%d-%H%M%S)"
    mkdir -p "$out"
    echo "replaying ${#files[@]} file(s) through $target (detect_leaks=$detect_leaks); output of failures in $out"
    failed=0
    for f in "${files[@]}"; do
        log="$out/$(basename "$f").log"
        set +e
        nice -n "$nice_level" "$binary" -runs=0 -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 "$f" >"$log" 2>&1
        status=$?
        set -e
        if [[ $status -eq 0 ]]; then
            rm -f "$log"
            continue
        fi
        failed=$((failed + 1))
        summary="$(grep -m1 -E '^(SUMMARY|FUZZ INVARIANT VIOLATED|==[0-9]+== ?ERROR)' "$log" || tail -n 1 "$log")"
        echo "FAIL ($status) $f: $summary"
    done
    echo "$failed of ${#files[@]} file(s) failed"
    [[ $failed -eq 0 ]]
    exit
fi

corpus="$here/.corpus/$target"
seeds="$here/.seeds/$target"
artifacts="$here/.artifacts/$target"
mkdir -p "$corpus" "$seeds" "$artifacts" "$logs"
rm -rf "$seeds" && mkdir -p "$seeds"
# The XML target's seeds are made from the others': they are collected in $collected first.
collected="$seeds"
if [[ "$target" == FuzzXMLPlistReader ]]; then
    collected="$here/.seeds/$target-collected"
    rm -rf "$collected" && mkdir -p "$collected"
fi
# Seeds: every non-JSON fixture (bplist, keyed archives, peer files, libplist crashers, XML
# property lists), the regression corpus, and archives of the zoo models. Read-only; libFuzzer
# adds to $corpus.
for dir in "$root/Fixtures" "$root/../shared/fixtures"; do
    [[ -d "$dir" ]] || continue
    find "$dir" -type f ! -name '*.json' ! -name '*.md' ! -name '*.txt' ! -name '*.swift' -size -1024k -print0 |
        while IFS= read -r -d '' f; do
            name="$(realpath -m --relative-to="$root/.." "$f" | tr '/' '_')"
            cp "$f" "$collected/$name" && chmod u+w "$collected/$name"
        done
done
# The seed writers are not under test (and archive NSAttributedStrings, which Foundation leaks).
unchecked=(env ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" LSAN_OPTIONS="$LSAN_OPTIONS:detect_leaks=0")
case "$target" in
FuzzPlistReader | FuzzXMLPlistReader)
    "${unchecked[@]}" FUZZ_WRITE_SEEDS="$collected" "$(dirname "$binary")/FuzzKeyedUnarchiver" >/dev/null 2>&1 || true ;;
*) "${unchecked[@]}" FUZZ_WRITE_SEEDS="$seeds" "$binary" >/dev/null 2>&1 || true ;;
esac
if [[ "$target" == FuzzXMLPlistReader ]]; then
    # Also every file of any name under ../shared/fixtures that starts as XML does.
    if [[ -d "$root/../shared/fixtures" ]]; then
        find "$root/../shared/fixtures" -type f -size -1024k -print0 |
            while IFS= read -r -d '' f; do
                case "$(head -c 6 "$f" | tr -d '\0')" in
                '<?xml'* | '<plist'*)
                    name="$(realpath -m --relative-to="$root/.." "$f" | tr '/' '_')"
                    cp "$f" "$collected/$name" && chmod u+w "$collected/$name" ;;
                esac
            done
    fi
    # The XML files among them as they are, and the XML form of the binary property lists and
    # archives (those the writer takes: no null, set or UID of 2^32 or more).
    "${unchecked[@]}" FUZZ_XML_SEEDS_FROM="$collected" FUZZ_WRITE_SEEDS="$seeds" "$binary"
    rm -rf "$collected"
fi

dict="$here/keyed.dict"
if [[ "$target" == FuzzXMLPlistReader ]]; then dict="$here/xml.dict"; fi
log="$logs/$target-$(date +%Y%m%d-%H%M%S).log"
echo "fuzzing $target for ${seconds}s; corpus $corpus; artifacts $artifacts; log $log"
jobs="${JOBS:-1}"
parallel=()
if [[ "$jobs" -gt 1 ]]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
set +e
nice -n "$nice_level" "$binary" "$corpus" "$seeds" \
    -dict="$dict" \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks="$detect_leaks" -timeout=10 -max_len=65536 \
    -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${parallel[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo "exit status $status; $(ls "$artifacts" | wc -l) artifact(s) in $artifacts"
exit "$status"
