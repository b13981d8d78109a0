#!/usr/bin/env python3
"""Regenerates Fixtures/plistlib: binary property lists written by Python's own plistlib, each with
NAME.json beside it, its expected contents in plist-json (DESIGN.md §7) written here from the same
Python value, not read back through this library, so the reader is checked against a second
implementation on a fresh clone.

plistlib's output is deterministic (keys sorted, objects numbered in visiting order): running this
again with the same Python gives the same bytes.

Usage: Scripts/make-plistlib-fixtures.py   (any Python 3.8 or later)
"""

import base64
import datetime
import json
import math
import pathlib
import plistlib

EPOCH_2001 = datetime.datetime(2001, 1, 1)


def plist_json(value):
    """The plist-json form of a value as plistlib writes it (a one-key object tagged by type)."""
    if isinstance(value, bool):  # before int: bool is an int in Python
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"real": "nan"}
        if math.isinf(value):
            return {"real": "inf" if value > 0 else "-inf"}
        return {"real": value}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, bytes):
        return {"data": base64.b64encode(value).decode("ascii")}
    if isinstance(value, datetime.datetime):
        # plistlib stores a naive datetime as seconds since 2001-01-01 UTC, computed this way.
        return {"date": (value - EPOCH_2001).total_seconds()}
    if isinstance(value, plistlib.UID):
        return {"uid": value.data}
    if isinstance(value, list):
        return {"array": [plist_json(element) for element in value]}
    if isinstance(value, dict):
        return {"dict": {key: plist_json(element) for key, element in value.items()}}
    raise TypeError(f"no plist-json form for {type(value).__name__}")


def fixtures():
    """NAME -> the value written to NAME.bplist."""
    shared = ["shared", "by two references"]
    return {
        # ASCII and UTF-16 strings, counts either side of the extended-count boundary (15).
        "strings": [
            "", "a", "fourteen chars", "fifteen chars!!", "sixteen chars!!!", "x" * 300,
            "Zürich", "中文字符", "emoji 😀 and 𝄞 need surrogate pairs", "ÿ" * 20,
        ],
        # Every integer width plistlib writes: 1, 2, 4 and 8 bytes, 8-byte negatives, and
        # 16 bytes above Int64.max.
        "integers": [
            0, 1, 255, 256, 65_535, 65_536, 2**31 - 1, 2**32, 2**63 - 1, -1, -255, -(2**31), -(2**63),
            2**63, 2**64 - 1,
        ],
        # 8-byte reals; plistlib uniques equal floats, so no -0.0 beside 0.0.
        "reals": [0.0, 1.5, -2.25, 0.1, 1e300, 5e-324, 2.2250738585072014e-308, float("inf"), float("-inf"), float("nan")],
        "dates": [
            datetime.datetime(2001, 1, 1), datetime.datetime(2001, 1, 1, 0, 0, 10),
            datetime.datetime(1970, 1, 1), datetime.datetime(2038, 1, 19, 3, 14, 8),
            datetime.datetime(1900, 6, 15, 12, 0, 0), datetime.datetime(2024, 2, 29, 23, 59, 59, 500_000),
        ],
        "data": [b"", b"\x00\x01\x02\xff", bytes(range(256)) * 4],
        # Dictionaries in arrays in dictionaries, empty containers, booleans.
        "nested": {
            "flags": [True, False, True],
            "empty array": [],
            "empty dict": {},
            "levels": {"one": {"two": {"three": ["deep", {"four": 4}]}}},
        },
        # One container referenced twice: plistlib writes it once.
        "dag": [shared, shared, "shared"],
        # UIDs of 1, 2 and 4 bytes, in a dictionary shaped like a keyed archive's $top (without $archiver).
        "uids": {"$top": {"a": plistlib.UID(0), "b": plistlib.UID(255), "c": plistlib.UID(256), "d": plistlib.UID(70_000)}},
        # 1,000 entries: 2-byte object references and extended counts.
        "big-dict": {f"key{i:04}": i * 3 for i in range(1000)},
        # A cached network response.
        "json-like": {
            "code": 200,
            "message": "ok",
            "data": {
                "total": 3,
                "items": [
                    {"id": 100 + i, "title": f"Item {i}", "price": 9.99 + i, "tags": ["new"] if i % 2 else [], "available": i != 1}
                    for i in range(3)
                ],
                "next": "https://example.com/items?page=2",
            },
        },
    }


def main():
    output = pathlib.Path(__file__).resolve().parent.parent / "Fixtures" / "plistlib"
    output.mkdir(parents=True, exist_ok=True)
    for old in list(output.glob("*.bplist")) + list(output.glob("*.json")):
        old.unlink()
    for name, value in fixtures().items():
        (output / f"{name}.bplist").write_bytes(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
        text = json.dumps(plist_json(value), ensure_ascii=False, sort_keys=True, allow_nan=False)
        (output / f"{name}.json").write_text(text + "\n", encoding="utf-8")
    print(f"wrote {len(fixtures())} property lists and their plist-json to {output}")


if __name__ == "__main__":
    main()
