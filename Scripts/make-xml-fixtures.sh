#!/usr/bin/env bash
# Regenerates Fixtures/xml: XML property lists written by this platform's Foundation
# (Scripts/XMLFixtures/main.swift: PropertyListSerialization, and NSKeyedArchiver with
# outputFormat = .xml) and by Python's plistlib (Scripts/make-xml-fixtures.py), each with
# NAME.json beside it, its content in plist-json as plistlib reads it.
#
# Both writers sort keys, so their output is deterministic: a regenerated file that differs in
# bytes is a change in the writer.
#
# Usage: Scripts/make-xml-fixtures.sh   (needs the Swift toolchain and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
output=Fixtures/xml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swiftc -swift-version 6 -module-name xmlgen Scripts/XMLFixtures/main.swift -o "$work/xmlgen"
mkdir -p "$output"
rm -f "$output"/foundation-*.plist "$output"/plistlib-*.plist "$output"/foundation-*.json "$output"/plistlib-*.json
"$work/xmlgen" "$output"
python3 Scripts/make-xml-fixtures.py "$output"
ls -l "$output"
