#!/usr/bin/env bash
# Runs the test suite under the sanitizers, each in its own build directory (run before a submission;
# too slow for every CI run on a 2-core machine):
#   thread  — ArchiveStoreTests (the store's own threads and processes) and EverydayUseTests (an
#             app's use of the public modules, eight threads archiving at once); every
#             ThreadSanitizer report is printed (halt_on_error=0) and fails the run
#   address — the whole suite
# Usage: Scripts/sanitize.sh [thread|address|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
# A crash report comes from the sanitizer, not from Swift's backtracer (which would itself trip ASan).
export SWIFT_BACKTRACE=enable=no
which="${1:-all}"
if [[ "$which" == thread || "$which" == all ]]; then
    log="$(mktemp)"
    trap 'rm -f "$log"' EXIT
    status=0
    TSAN_OPTIONS="halt_on_error=0${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
        swift test --sanitize=thread --scratch-path .build/tsan --filter 'ArchiveStoreTests|EverydayUseTests' 2>&1 \
        | tee "$log" || status=$?
    reports=$(grep -c '^WARNING: ThreadSanitizer' "$log" || true)
    if [[ $status -ne 0 || $reports -ne 0 ]]; then
        echo "sanitize.sh: thread: exit status $status, $reports ThreadSanitizer report(s)" >&2
        exit 1
    fi
fi
if [[ "$which" == address || "$which" == all ]]; then
    # Real stack frames, so the library's stack guard sees the thread's stack (ASan's fake frames
    # for use-after-return live on the heap).
    ASAN_OPTIONS="detect_stack_use_after_return=0" \
    LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp:print_suppressions=0" \
        swift test --sanitize=address --scratch-path .build/asan
fi
