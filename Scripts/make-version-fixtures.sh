#!/usr/bin/env bash
# Regenerates Fixtures/versions: archives of three versions of one model family, each written by
# that version's own program, compiled on its own:
#   v0  Scripts/VersionFixtures/v0/main.swift  (models and writer)
#   v1  Scripts/VersionFixtures/v1/main.swift
#   v2  Scripts/VersionFixtures/v2/main.swift with today's models,
#       Tests/KeyedArchiveTests/Models/KennelModels.swift
# Each program gets its own module in a scratch package that depends on this repository by path,
# so versions never see each other's types. KennelVersionTests decode every archive as today's
# version, and compare the v2 archives byte for byte with what today's build writes.
#
# Usage: Scripts/make-version-fixtures.sh   (needs only the Swift toolchain)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
output=Fixtures/versions
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for version in v0 v1 v2; do
    mkdir -p "$work/Sources/kennel-$version"
    cp "Scripts/VersionFixtures/$version/main.swift" "$work/Sources/kennel-$version/"
done
cp Tests/KeyedArchiveTests/Models/KennelModels.swift "$work/Sources/kennel-v2/"
# A package found by path goes by its folder's name.
identity=$(basename "$repo" | tr '[:upper:]' '[:lower:]')
cat >"$work/Package.swift" <<PACKAGE
// swift-tools-version: 6.0
import PackageDescription

let library = Target.Dependency.product(name: "KeyedArchive", package: "$identity")
let package = Package(
    name: "kennel-versions",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$repo")],
    targets: ["v0", "v1", "v2"].map { .executableTarget(name: "kennel-\(\$0)", dependencies: [library]) },
    swiftLanguageModes: [.v6]
)
PACKAGE

swift build --package-path "$work"
bin=$(swift build --package-path "$work" --show-bin-path)
mkdir -p "$output"
rm -f "$output"/*.archive
for version in v0 v1 v2; do "$bin/kennel-$version" "$output"; done
echo "wrote $(ls "$output"/*.archive | wc -l) archives to $output"
