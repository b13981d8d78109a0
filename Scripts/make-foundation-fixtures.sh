#!/usr/bin/env bash
# Regenerates Fixtures/foundation: keyed archives written by this platform's own Foundation
# NSKeyedArchiver (the program Scripts/FoundationFixtures/main.swift, hand-written NSCoding classes),
# each with NAME.json beside it, its raw plist in plist-json as `karchive json` prints it.
#
# Foundation's output is NOT byte-deterministic: the top-level dictionary, NSDictionary and NSSet
# contents are written in hash order, which changes from run to run, so every run gives files that
# differ in bytes while holding the same content. Tests compare what these files decode to (and
# their plist-json as values), never their bytes; a regenerated file is a change only if its
# decoded content changed.
#
# Usage: Scripts/make-foundation-fixtures.sh   (needs only the Swift toolchain)
set -euo pipefail
cd "$(dirname "$0")/.."
output=Fixtures/foundation
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The module name is part of the archived class names: `keyedgen.Person`...
swiftc -swift-version 6 -module-name keyedgen Scripts/FoundationFixtures/main.swift -o "$work/keyedgen"
"$work/keyedgen" "$work/archives"

swift build --product karchive
karchive="$(swift build --show-bin-path)/karchive"

mkdir -p "$output"
rm -f "$output"/*.archive "$output"/*.json
for archive in "$work/archives"/*.archive; do
    name=$(basename "$archive" .archive)
    cp "$archive" "$output/$name.archive"
    "$karchive" json "$output/$name.archive" >"$output/$name.json"
done
echo "wrote $(ls "$output"/*.archive | wc -l) archives and their plist-json to $output"
