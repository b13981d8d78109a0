#!/usr/bin/env bash
# Builds the documentation of the three libraries (PropertyList, KeyedArchive, ArchiveStore) with
# DocC, and fails on any DocC warning or any public symbol without a doc comment.
#
#   Scripts/docs.sh                  build and check; the archives land in .build/docs/
#
# Steps: the libraries are compiled in a scratch folder of their own (.build/docs-build, so the
# normal .build is left alone) and swift-symbolgraph-extract writes each module's symbol graphs
# afresh; every public symbol declared in a module must carry a doc comment of its own (python3
# reads the graphs and lists the ones that do not); every line of the catalogs' Swift snippets
# must be in Tests/EverydayUseTests/DocumentationExampleTests.swift, which runs them, and every line
# of README.md's Swift snippets in Tests/EverydayUseTests/ReadmeSnippetTests.swift; then
# `docc convert` turns each module's catalog (Sources/<Module>/<Module>.docc) and graphs into
# .build/docs/<Module>.doccarchive with --warnings-as-errors, each module able to link to the
# ones it depends on, and `docc merge` combines the three into
# .build/docs/swift-keyed-archive.doccarchive. Serve that folder with any static file server and
# open /documentation/.
#
# Needs the Swift toolchain (docc sits next to swift) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
docc=${DOCC:-$toolchain/docc}
[[ -x $docc ]] || { echo "docs.sh: no docc next to swift ($docc); set DOCC to its path" >&2; exit 1; }
command -v python3 >/dev/null || { echo "docs.sh: python3 is needed to check the symbol graphs" >&2; exit 1; }

modules=(PropertyList KeyedArchive ArchiveStore)
scratch=.build/docs-build
out=.build/docs
graphs=$out/symbol-graphs

echo "== build"
# ArchiveStore depends on the other two, so this compiles all three libraries.
swift build --scratch-path "$scratch" --target ArchiveStore
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
# The C modules under ArchiveFileSystem (syncfs) and KeyedArchive (the allocator's block size) are
# found through the module maps SwiftPM writes.
cmodules=(-Xcc "-fmodule-map-file=$bin/CFileSystem.build/module.modulemap" -I Sources/CFileSystem/include
    -Xcc "-fmodule-map-file=$bin/CAllocation.build/module.modulemap" -I Sources/CAllocation/include)
[[ -d $bin/Modules ]] && bin=$bin/Modules

echo "== symbol graphs"
rm -rf "$out"
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
[[ $(uname) == Darwin ]] && sdk=(-sdk "$(xcrun --show-sdk-path)")
for module in "${modules[@]}"; do
    mkdir -p "$graphs/$module"
    # Extension graphs (KeyedArchive@PropertyList.symbols.json) hold the members a module adds to
    # another module's types.
    "$toolchain/swift-symbolgraph-extract" -module-name "$module" -target "$triple" "${sdk[@]}" -I "$bin" "${cmodules[@]}" \
        -output-dir "$graphs/$module" -minimum-access-level public -skip-synthesized-members \
        -emit-extension-block-symbols
done

echo "== documentation coverage"
python3 - "$graphs" "${modules[@]}" <<'PY'
import glob, json, os, sys

graphs, modules = sys.argv[1], sys.argv[2:]
undocumented = []
for module in modules:
    count, missing = 0, 0
    for path in sorted(glob.glob(os.path.join(graphs, module, "*.symbols.json"))):
        for symbol in json.load(open(path))["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open") or symbol.get("spi"):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue  # an extension block is documented by its members
            location = symbol.get("location", {}).get("uri", "")
            if f"/Sources/{module}/" not in location:
                continue  # declared elsewhere (synthesized, or inherited from another module)
            count += 1
            doc = symbol.get("docComment") or {}
            own = doc.get("module", module) == module and any(line["text"].strip() for line in doc.get("lines", []))
            if not own:
                missing += 1
                line = symbol["location"]["position"]["line"] + 1
                path_in_repo = location.split("/Sources/", 1)[1]
                name = ".".join(symbol["pathComponents"])
                undocumented.append(f"  Sources/{path_in_repo}:{line}: {name} ({symbol['kind']['displayName']})")
    print(f"{module}: {count} public symbols, {count - missing} documented")
if undocumented:
    print(f"{len(undocumented)} public symbols have no doc comment:")
    print("\n".join(undocumented))
    sys.exit(1)
PY

echo "== snippets"
# Every line of a Swift code block in a catalog is in the test that runs it (public API only), and
# every line of one in README.md in the README's test.
check_snippets() {
python3 - "$@" <<'PY'
import re, sys

tests, pages = sys.argv[1], sys.argv[2:]
# The tests give each store a name of their own instead of the pages' "com.example.MyApp".
tested = {line.strip().replace("named: name)", 'named: "com.example.MyApp")') for line in open(tests)}
missing = []
for page in pages:
    inside = False
    for number, line in enumerate(open(page), 1):
        if re.match(r"\s*```", line):
            inside = not inside and line.strip() == "```swift"
            continue
        if inside and line.strip() and line.strip() not in tested:
            missing.append(f"  {page}:{number}: {line.strip()}")
if missing:
    print(f"lines of Swift snippets that are not in {tests} ({len(missing)}):")
    print("\n".join(missing))
    sys.exit(1)
print(f"every Swift snippet line of {len(pages)} pages is in {tests}")
PY
}
check_snippets Tests/EverydayUseTests/DocumentationExampleTests.swift Sources/*/*.docc/*.md
check_snippets Tests/EverydayUseTests/ReadmeSnippetTests.swift README.md

echo "== docc convert"
dependencies=()
for module in "${modules[@]}"; do
    log=$out/$module.log
    if ! "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --output-path "$out/$module.doccarchive" \
        --enable-experimental-external-link-support "${dependencies[@]}" \
        --warnings-as-errors >"$log" 2>&1 || grep -q "warning:" "$log"; then
        cat "$log"
        echo "docs.sh: docc reported problems in $module (above)" >&2
        exit 1
    fi
    echo "$module: $out/$module.doccarchive"
    dependencies+=(--dependency "$out/$module.doccarchive")
done

archives=()
for module in "${modules[@]}"; do archives+=("$out/$module.doccarchive"); done
"$docc" merge "${archives[@]}" --synthesized-landing-page-name swift-keyed-archive \
    --output-path "$out/swift-keyed-archive.doccarchive" >"$out/merge.log" 2>&1 || { cat "$out/merge.log"; exit 1; }
echo "combined: $out/swift-keyed-archive.doccarchive"
echo "docs.sh: done in $((SECONDS - start)) s"
