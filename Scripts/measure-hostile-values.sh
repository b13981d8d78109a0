#!/usr/bin/env bash
# What each hostile value-class archive costs to decode with the default options: every file of
# Fixtures/hostile-values decoded as Any (and the attributed strings as NSAttributedString, the
# index sets as [IndexSet]), each in a process of its own, with its time and peak memory.
#   Scripts/measure-hostile-values.sh            # release build in .build
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product KeyedArchiveBenchmarks >/dev/null
bench="$(swift build -c release --show-bin-path)/KeyedArchiveBenchmarks"
for file in Fixtures/hostile-values/*.archive; do
    "$bench" decode "$file" Any
    case "$file" in
    *attributed-string*) "$bench" decode "$file" NSAttributedString ;;
    *index-set-shared*) "$bench" decode "$file" "[IndexSet]" ;;
    *counted-set*) "$bench" decode "$file" NSCountedSet ;;
    esac
done
