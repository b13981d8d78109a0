#!/usr/bin/env bash
# Runs the test suite under the sanitizers, each in its own build directory (run before a submission;
# too slow for every CI run on a 2-core machine):
#   thread  — ArchiveStoreTests (the store is the only shared-state, multi-threaded part)
#   address — the whole suite
# Usage: Scripts/sanitize.sh [thread|address|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
# A crash report comes from the sanitizer, not from Swift's backtracer (which would itself trip ASan).
export SWIFT_BACKTRACE=enable=no
which="${1:-all}"
if [[ "$which" == thread || "$which" == all ]]; then
    swift test --sanitize=thread --scratch-path .build/tsan --filter ArchiveStoreTests
fi
if [[ "$which" == address || "$which" == all ]]; then
    # Real stack frames, so the library's stack guard sees the thread's stack (ASan's fake frames
    # for use-after-return live on the heap).
    ASAN_OPTIONS="detect_stack_use_after_return=0" \
    LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp:print_suppressions=0" \
        swift test --sanitize=address --scratch-path .build/asan
fi
