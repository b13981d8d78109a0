#!/usr/bin/env python3
"""Writes Fixtures/xml: XML property lists made by Python's plistlib (written here) and by
Foundation (written by Scripts/XMLFixtures/main.swift, run by make-xml-fixtures.sh before this),
each with NAME.json beside it, its content in plist-json as plistlib reads it.

Usage: Scripts/make-xml-fixtures.py FOLDER   (FOLDER holds Foundation's files already)
"""

import datetime
import importlib.util
import json
import pathlib
import plistlib
import sys

here = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("plistlib_fixtures", here / "make-plistlib-fixtures.py")
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)
plist_json = fixtures.plist_json

folder = pathlib.Path(sys.argv[1])

values = {
    "string": "plain",
    "escaped": "<a href=\"x\">Fish & Chips</a> 'quoted' ]]>",
    "unicode": "Mässig, Maß — 日本語 😀",
    "empty string": "",
    "integers": [0, 1, -1, 255, 65536, 2**63 - 1, -2**63, 2**64 - 1, -80000000000],
    "reals": [0.5, 0.1, 60.0, -0.0, 1e300, 5e-324, float("inf"), float("-inf")],
    "dates": [datetime.datetime(2001, 1, 1), datetime.datetime(2004, 10, 26, 10, 33, 33),
              datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59)],
    "data": bytes(range(256)) * 3,
    "empty data": b"",
    "booleans": [True, False],
    "empty array": [],
    "empty dict": {},
    "nested": {"level": {"deeper": {"deepest": [b"\x01\x02\x03", "end", [[[]]]]}}},
    "CF$UID lookalike": {"CF$UID": 7},
}
(folder / "plistlib-values.plist").write_bytes(plistlib.dumps(values, fmt=plistlib.FMT_XML))
unsorted = {"zebra": 1, "apple": [True, {"z": "", "a": b"x"}], "Mango": "m", "élan": 2.5}
(folder / "plistlib-unsorted.plist").write_bytes(plistlib.dumps(unsorted, fmt=plistlib.FMT_XML, sort_keys=False))

for path in sorted(folder.glob("*.plist")):
    with open(path, "rb") as f:
        value = plistlib.load(f, fmt=plistlib.FMT_XML)
    with open(path.with_suffix(".json"), "w", encoding="utf-8") as f:
        json.dump(plist_json(value), f, ensure_ascii=True, sort_keys=False)
        f.write("\n")
