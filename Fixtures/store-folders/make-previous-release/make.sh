#!/usr/bin/env bash
# Regenerates Fixtures/store-folders/previous-release: an ArchiveStore folder written by the
# release before the store's engine changes (commit c4b876b), with that release's own code:
#   Fixtures/store-folders/make-previous-release/main.swift  (models and writer)
# is compiled as the executable `PreviousReleaseApp` of a scratch package that depends, by path,
# on a worktree of c4b876b made for the run (and removed after it), so nothing of today's
# sources takes part. PreviousReleaseFolderTests opens a copy of the folder with today's code.
#
# The folder is not the same bytes from one run to the next (the journal records times, a value
# expires 100 years after it was written, a hashed namespace's folder is created at run time):
# regenerate it only to change what it holds, and update the expected values of
# Fixtures/store-folders/README.md and of the test with it.
#
# Usage: Fixtures/store-folders/make-previous-release/make.sh   (needs git and the Swift toolchain)
#   SCRATCH_PATH=<folder>: where to build (default: a temporary folder, deleted afterwards).
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$(pwd)
commit=c4b876b
output=Fixtures/store-folders/previous-release
work=$(mktemp -d)
release="$work/prev-release"
cleanup() {
    git -C "$repo" worktree remove --force "$release" 2>/dev/null || true
    git -C "$repo" worktree prune
    rm -rf "$work"
}
trap cleanup EXIT

git worktree add --detach "$release" "$commit"
mkdir -p "$work/app/Sources/PreviousReleaseApp"
cp Fixtures/store-folders/make-previous-release/main.swift "$work/app/Sources/PreviousReleaseApp/"
# A package found by path goes by its folder's name: prev-release.
cat >"$work/app/Package.swift" <<PACKAGE
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "previous-release-app",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "$release")],
    targets: [
        .executableTarget(
            name: "PreviousReleaseApp",
            dependencies: [
                .product(name: "ArchiveStore", package: "prev-release"),
                .product(name: "KeyedArchive", package: "prev-release"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
PACKAGE

scratch=${SCRATCH_PATH:-$work/.build}
swift build --package-path "$work/app" --scratch-path "$scratch"
bin=$(swift build --package-path "$work/app" --scratch-path "$scratch" --show-bin-path)
"$bin/PreviousReleaseApp" "$work/folder"
rm -rf "$output"
mkdir -p "$(dirname "$output")"
cp -R "$work/folder" "$output"
echo "wrote $(find "$output" -name 'key-*.archive' | wc -l) values to $output"
