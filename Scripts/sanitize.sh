#!/usr/bin/env bash
# Runs the test suite under the sanitizers, each in its own build directory (run before a submission;
# too slow for every CI run on a 2-core machine):
#   thread  — ArchiveStoreTests (the store is the only shared-state, multi-threaded part)
#   address — the whole suite
# Usage: Scripts/sanitize.sh [thread|address|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
if [[ "$which" == thread || "$which" == all ]]; then
    swift test --sanitize=thread --scratch-path .build/tsan --filter ArchiveStoreTests
fi
if [[ "$which" == address || "$which" == all ]]; then
    LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp:print_suppressions=0" \
        swift test --sanitize=address --scratch-path .build/asan
fi
