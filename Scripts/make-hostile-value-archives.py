#!/usr/bin/env python3
"""Regenerates Fixtures/hostile-values: hostile keyed archives of Apple's Foundation value classes
(NSCountedSet, NSAttributedString, NSIndexSet, NSIndexPath, NSValue, NSTimeZone, NSCalendar,
NSLocale, NSMeasurement, NSNotification), each in exactly the layout Apple's NSKeyedArchiver writes
(binary property list, `$archiver`/`$version`/`$top`/`$objects`, strings and objects behind UIDs,
integers and reals inline where Foundation puts them inline, packed LEB128 numbers in NSMutableData
objects), with counts, lengths, cycles, depths and shared references chosen to cost a careless
reader time, memory or a crash. Beside them, manifest.json says for each file what to decode it as
and what must happen (`ok`, or the ArchiveError code), and why;
Tests/EverydayUseTests/HostileValueArchiveTests.swift reads the manifest and checks every entry.

Only the standard library is used (plistlib writes binary plists with plistlib.UID). The output is
deterministic (plistlib sorts dictionary keys and numbers objects in visiting order): running this
again gives the same bytes. Every file stays under 64 KiB.

Usage, from the package root:   python3 Scripts/make-hostile-value-archives.py
(regenerates the whole folder; files of earlier runs that are no longer made are removed)
"""

import json
import pathlib
import plistlib

OUT = pathlib.Path(__file__).resolve().parent.parent / "Fixtures" / "hostile-values"
SIZE_LIMIT = 64 * 1024
INT_MAX = 2**63 - 1


# MARK: The archive builder


class Archive:
    """One keyed archive being built: `$objects` in order, UIDs handed out as objects are added.

    Equal strings and numbers are written once, and class descriptions once per class name, as
    NSKeyedArchiver does. `reserve()` hands out a UID before its object exists, for the root
    (always UID 1) and for objects that refer to themselves."""

    def __init__(self):
        self.objects = ["$null"]
        self._uids = [plistlib.UID(0)]  # one UID object per index: plistlib then writes each once
        self._values = {}
        self._classes = {}

    def uid(self, index):
        return self._uids[index]

    def reserve(self):
        self.objects.append(None)
        self._uids.append(plistlib.UID(len(self._uids)))
        return self._uids[-1]

    def add(self, value):
        uid = self.reserve()
        self.objects[uid.data] = value
        return uid

    def value(self, value):
        """A string or number as an `$objects` entry of its own, written once."""
        key = (type(value), value)
        if key not in self._values:
            self._values[key] = self.add(value)
        return self._values[key]

    def class_uid(self, chain):
        if chain[0] not in self._classes:
            self._classes[chain[0]] = self.add({"$classname": chain[0], "$classes": list(chain)})
        return self._classes[chain[0]]

    def object(self, chain, fields, at=None):
        """An object of the class chain `chain` (most derived first) with `fields`; at `at` if given."""
        body = dict(fields)
        uid = at if at is not None else self.reserve()
        body["$class"] = self.class_uid(chain)
        self.objects[uid.data] = body
        return uid

    def encoded(self, root):
        assert root.data == 1, "Apple's archives put the root object at UID 1"
        assert all(entry is not None for entry in self.objects), "a reserved UID was never filled"
        archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root}, "$objects": self.objects}
        return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY, sort_keys=True)


def leb128(*numbers):
    """Unsigned LEB128, as NSIndexSet, NSIndexPath and NSAttributedString pack their numbers."""
    out = bytearray()
    for number in numbers:
        assert number >= 0
        while number >= 0x80:
            out.append((number & 0x7F) | 0x80)
            number >>= 7
        out.append(number)
    return bytes(out)


# MARK: Class layouts (one function per class, the keys Apple's Foundation writes)

NSOBJECT = "NSObject"


def ns_array(a, items, at=None):
    return a.object(["NSArray", NSOBJECT], {"NS.objects": list(items)}, at)


def ns_dictionary(a, pairs, at=None):
    return a.object(["NSDictionary", NSOBJECT], {"NS.keys": [k for k, _ in pairs], "NS.objects": [v for _, v in pairs]}, at)


def ns_mutable_data(a, data):
    return a.object(["NSMutableData", "NSData", NSOBJECT], {"NS.data": bytes(data)})


def ns_mutable_string(a, text):
    return a.object(["NSMutableString", "NSString", NSOBJECT], {"NS.string": text})


def counted_set(a, elements, counts, count=None, at=None):
    """NSCountedSet: NS.count, NS.object<i> (UIDs) and NS.count<i> (inline integers)."""
    fields = {"NS.count": len(elements) if count is None else count}
    for i, element in enumerate(elements):
        fields["NS.object%d" % i] = element
    for i, times in enumerate(counts):
        fields["NS.count%d" % i] = times
    return a.object(["NSCountedSet", "NSMutableSet", "NSSet", NSOBJECT], fields, at)


def attributed_string(a, string, attributes, runs=None, mutable=False, at=None):
    """NSAttributedString: NSString, NSAttributes (one NSDictionary, or an NSArray of them) and,
    for more than one run, NSAttributeInfo: packed (length in UTF-16 units, attributes index)."""
    fields = {"NSString": string, "NSAttributes": attributes}
    if runs is not None:
        fields["NSAttributeInfo"] = ns_mutable_data(a, runs)
    chain = ["NSMutableAttributedString", "NSAttributedString", NSOBJECT] if mutable else ["NSAttributedString", NSOBJECT]
    return a.object(chain, fields, at)


def index_set(a, count, ranges=None, data=None, at=None):
    """NSIndexSet: NSRangeCount; NSLocation and NSLength for one range, else NSRangeData (packed
    location, length pairs). `data` replaces the packed bytes when given."""
    fields = {"NSRangeCount": count}
    if data is None and ranges is not None and len(ranges) == 1:
        fields["NSLocation"], fields["NSLength"] = ranges[0]
    else:
        packed = data if data is not None else b"".join(leb128(location, length) for location, length in ranges or [])
        fields["NSRangeData"] = ns_mutable_data(a, packed)
    return a.object(["NSIndexSet", NSOBJECT], fields, at)


def index_path(a, length, indexes=None, data=None, at=None):
    """NSIndexPath: NSIndexPathLength; NSIndexPathValue for one index, else packed NSIndexPathData."""
    fields = {"NSIndexPathLength": length}
    if data is None and indexes is not None and len(indexes) == 1:
        fields["NSIndexPathValue"] = indexes[0]
    elif data is not None or indexes:
        fields["NSIndexPathData"] = ns_mutable_data(a, data if data is not None else leb128(*indexes))
    return a.object(["NSIndexPath", NSOBJECT], fields, at)


def range_value(a, location, length, at=None):
    """NSValue range: NS.special 4 inline; location and length as number objects behind UIDs."""
    fields = {"NS.special": 4, "NS.rangeval.location": a.value(location), "NS.rangeval.length": a.value(length)}
    return a.object(["NSValue", NSOBJECT], fields, at)


def rect_value(a, text, at=None):
    """NSValue rectangle: NS.special 3, NS.rectval a "{{x, y}, {w, h}}" string."""
    return a.object(["NSValue", NSOBJECT], {"NS.special": 3, "NS.rectval": a.value(text)}, at)


def time_zone(a, name, rules=b"", at=None):
    """NSTimeZone: NS.name and NS.data (TZif rules, plain data)."""
    return a.object(["NSTimeZone", NSOBJECT], {"NS.name": a.value(name), "NS.data": a.value(bytes(rules))}, at)


def calendar(a, identifier, at=None):
    """NSCalendar: NS.identifier, NS.firstwkdy, NS.mindays (NS.locale and NS.timezone are optional)."""
    fields = {"NS.identifier": a.value(identifier), "NS.firstwkdy": 1, "NS.mindays": 1}
    return a.object(["NSCalendar", NSOBJECT], fields, at)


def locale(a, identifier, at=None):
    """NSLocale: NS.identifier."""
    return a.object(["NSLocale", NSOBJECT], {"NS.identifier": a.value(identifier)}, at)


def linear_converter(a, coefficient, constant):
    """NSUnitConverterLinear: NS.coefficient and NS.constant, inline reals."""
    chain = ["NSUnitConverterLinear", "NSUnitConverter", NSOBJECT]
    return a.object(chain, {"NS.coefficient": float(coefficient), "NS.constant": float(constant)})


def unit_length(a, symbol, converter, specifier=None, at=None):
    """NSUnitLength: NS.symbol and NS.converter (NS.specifier, Apple's unit number, when known)."""
    fields = {"NS.symbol": a.value(symbol), "NS.converter": converter}
    if specifier is not None:
        fields["NS.specifier"] = specifier
    return a.object(["NSUnitLength", "NSDimension", "NSUnit", NSOBJECT], fields, at)


def measurement(a, value, unit, at=None):
    """NSMeasurement: NS.value (inline real) and NS.unit."""
    return a.object(["NSMeasurement", NSOBJECT], {"NS.value": float(value), "NS.unit": unit}, at)


def notification(a, name, object_=None, user_info=None, at=None):
    """NSNotification: NS.name, and NS.object and NS.userinfo (an NSDictionary) when present."""
    fields = {"NS.name": a.value(name)}
    if object_ is not None:
        fields["NS.object"] = object_
    if user_info is not None:
        fields["NS.userinfo"] = user_info
    return a.object(["NSNotification", NSOBJECT], fields, at)


def miles(a):
    """The mile, as Apple archives it (the measurement of corelibs' NSMeasurement-Length fixture)."""
    return unit_length(a, "mi", linear_converter(a, 1609.34, 0.0), specifier=1287)


# MARK: The archives

ARCHIVES = []  # (file name, function making (archive, root), [(decodeAs, expect)], why)


def archive(name, expectations, why):
    def register(make):
        ARCHIVES.append((name + ".archive", make, expectations, why))
        return make

    return register


# NSCountedSet


def one_counted_string(times):
    a = Archive()
    root = a.reserve()
    counted_set(a, [a.value("apple")], [times], at=root)
    return a, root


@archive("counted-set-count-int-max", [("Any", "sizeLimit"), ("NSCountedSet", "sizeLimit")],
         "One element counted Int.max times would take that many add calls; the count is held to the decoding budget first.")
def _():
    return one_counted_string(INT_MAX)


@archive("counted-set-count-2-pow-62", [("Any", "sizeLimit")],
         "One element counted 2^62 times is refused by the counted-set budget before any add call.")
def _():
    return one_counted_string(2**62)


@archive("counted-set-count-16m", [("Any", "sizeLimit")],
         "One element counted 16,777,216 times is over the default budget of 524,288 counted-set counts per decode.")
def _():
    return one_counted_string(16_777_216)


@archive("counted-set-two-counts-over-budget", [("Any", "sizeLimit")],
         "Two elements counted 300,000 times each are each under the budget but add up past 524,288.")
def _():
    a = Archive()
    root = a.reserve()
    counted_set(a, [a.value("apple"), a.value("pear")], [300_000, 300_000], at=root)
    return a, root


@archive("counted-set-at-budget", [("Any", "ok"), ("NSCountedSet", "ok")],
         "One element counted 524,288 times, the default budget exactly: the most add calls one decode makes.")
def _():
    return one_counted_string(524_288)


@archive("counted-set-count-zero", [("Any", "invalidArchive")],
         "An element counted 0 times cannot be in a counted set.")
def _():
    return one_counted_string(0)


@archive("counted-set-count-negative", [("Any", "invalidArchive")],
         "An element counted -1 times is not a count.")
def _():
    return one_counted_string(-1)


@archive("counted-set-missing-object", [("Any", "invalidArchive")],
         "NS.count says 3 elements but only NS.object0 and NS.object1 are there (with NS.count0 to NS.count2).")
def _():
    a = Archive()
    root = a.reserve()
    counted_set(a, [a.value("apple"), a.value("pear")], [1, 2, 3], count=3, at=root)
    return a, root


@archive("counted-set-shared-1000", [("Any", "ok"), ("[Any]", "ok")],
         "1,000 references to one counted set whose element is counted 1,000 times: 1,000,000 counts, within the budget.")
def _():
    a = Archive()
    root = a.reserve()
    shared = counted_set(a, [a.value("apple")], [1_000])
    ns_array(a, [shared] * 1_000, at=root)
    return a, root


@archive("counted-set-contains-itself", [("Any", "cycle")],
         "The counted set's one element is the counted set itself.")
def _():
    a = Archive()
    root = a.reserve()
    counted_set(a, [root], [1], at=root)
    return a, root


# NSAttributedString

TEXT = "abcdefghij"


def two_attribute_dictionaries(a):
    first = ns_dictionary(a, [(a.value("Font"), a.value("Helvetica")), (a.value("Size"), a.value(12))])
    second = ns_dictionary(a, [(a.value("Font"), a.value("Times")), (a.value("Size"), a.value(14))])
    return ns_array(a, [first, second])


def short_attributed_string(text, runs):
    """An attributed string of `text` with two attribute dictionaries and the packed `runs`."""
    a = Archive()
    root = a.reserve()
    attributed_string(a, a.value(text), two_attribute_dictionaries(a), runs, at=root)
    return a, root


@archive("attributed-string-shared-2000", [("Any", "sizeLimit"), ("[Any]", "sizeLimit")],
         "2,000 references to one attributed string of 10,000 one-unit runs alternating between two attribute dictionaries. Decoded once and reused, but each reference is charged the values it holds, so the whole expands past maximumDecodedObjects.")
def _():
    a = Archive()
    root = a.reserve()
    runs = b"".join(leb128(1, i % 2) for i in range(10_000))
    shared = attributed_string(a, a.value(TEXT * 1_000), two_attribute_dictionaries(a), runs)
    ns_array(a, [shared] * 2_000, at=root)
    return a, root


@archive("attributed-string-wide-attributes", [("ArchivedAttributedString", "ok"), ("NSAttributedString", "sizeLimit")],
         "10,000 runs all naming one attribute dictionary of 1,500 entries: the dictionary is decoded once, not once a run; building Foundation's class would set 15,010,000 attributes, past maximumAttributedStringAttributes.")
def _():
    a = Archive()
    root = a.reserve()
    wide = ns_dictionary(a, [(a.value("k%d" % i), a.value(i % 16)) for i in range(1_500)])
    runs = leb128(1, 0) * 10_000
    attributed_string(a, a.value(TEXT * 1_000), ns_array(a, [wide]), runs, at=root)
    return a, root


@archive("attributed-string-at-attribute-budget", [("NSAttributedString", "ok"), ("Any", "ok")],
         "10,000 runs alternating between two dictionaries of 12 entries: 130,000 attributes for Foundation's class to set, just within maximumAttributedStringAttributes.")
def _():
    a = Archive()
    root = a.reserve()
    dictionaries = [ns_dictionary(a, [(a.value("k%d" % i), a.value(i + j)) for i in range(12)]) for j in range(2)]
    runs = b"".join(leb128(1, i % 2) for i in range(10_000))
    attributed_string(a, a.value(TEXT * 1_000), ns_array(a, dictionaries), runs, at=root)
    return a, root


@archive("attributed-string-5000-attribute-refs", [("Any", "ok")],
         "An attributes array of 5,000 references to one dictionary, each of 5,000 runs naming a different index (a mutable string, in NSMutableString).")
def _():
    a = Archive()
    root = a.reserve()
    one = ns_dictionary(a, [(a.value("Font"), a.value("Helvetica"))])
    runs = b"".join(leb128(1, i) for i in range(5_000))
    attributed_string(a, ns_mutable_string(a, TEXT * 500), ns_array(a, [one] * 5_000), runs, mutable=True, at=root)
    return a, root


@archive("attributed-string-run-past-end", [("Any", "invalidArchive"), ("NSAttributedString", "invalidArchive")],
         "Runs of 2 and 5 units over a 3-unit string: the second run reaches past its end.")
def _():
    return short_attributed_string("abc", leb128(2, 0, 5, 1))


@archive("attributed-string-runs-short", [("Any", "invalidArchive")],
         "Runs of 2 and 1 units cover 3 of a 6-unit string.")
def _():
    return short_attributed_string("abcdef", leb128(2, 0, 1, 1))


@archive("attributed-string-attributes-index-out-of-range", [("Any", "invalidArchive")],
         "The second run names attribute dictionary 7 of 2.")
def _():
    return short_attributed_string("abc", leb128(1, 0, 2, 7))


@archive("attributed-string-info-cut-leb128", [("Any", "invalidArchive")],
         "NSAttributeInfo ends inside a LEB128 number: its last byte has the continuation bit 0x80.")
def _():
    return short_attributed_string("abc", leb128(1, 0, 2) + b"\x81")


@archive("attributed-string-info-odd-count", [("Any", "invalidArchive")],
         "NSAttributeInfo holds 5 numbers: the last run has a length and no attributes index.")
def _():
    return short_attributed_string("abc", leb128(1, 0, 2, 1, 0))


@archive("attributed-string-contains-itself", [("Any", "cycle")],
         "The value of the one attribute of the one run is the attributed string itself.")
def _():
    a = Archive()
    root = a.reserve()
    attributed_string(a, a.value("abc"), ns_dictionary(a, [(a.value("Self"), root)]), at=root)
    return a, root


# NSIndexSet


@archive("index-set-shared-4000", [("[IndexSet]", "sizeLimit"), ("Any", "sizeLimit")],
         "4,000 references to one index set of 8,000 ranges. Decoded once and reused, but each reference is charged the values it holds, so the whole expands past maximumDecodedObjects.")
def _():
    a = Archive()
    root = a.reserve()
    shared = index_set(a, 8_000, [(3 * i, 1) for i in range(8_000)])
    ns_array(a, [shared] * 4_000, at=root)
    return a, root


@archive("index-set-shared-2000", [("[IndexSet]", "ok"), ("Any", "ok")],
         "2,000 references to one index set of 8,000 ranges: about 16,000,000 values charged, just within maximumDecodedObjects, and the set built once.")
def _():
    a = Archive()
    root = a.reserve()
    shared = index_set(a, 8_000, [(3 * i, 1) for i in range(8_000)])
    ns_array(a, [shared] * 2_000, at=root)
    return a, root


@archive("index-set-count-2-pow-40", [("IndexSet", "invalidArchive")],
         "NSRangeCount 2^40 with 10 bytes of NSRangeData: the count is checked against the data before anything grows with it.")
def _():
    a = Archive()
    root = a.reserve()
    index_set(a, 2**40, data=leb128(*range(10)), at=root)
    return a, root


@archive("index-set-location-2-pow-63", [("IndexSet", "invalidArchive")],
         "The second of two packed ranges starts at 2^63, past Int.max.")
def _():
    a = Archive()
    root = a.reserve()
    index_set(a, 2, [(0, 1), (2**63, 1)], at=root)
    return a, root


@archive("index-set-count-negative", [("IndexSet", "invalidArchive")],
         "NSRangeCount -1 (with empty NSRangeData) is not a count.")
def _():
    a = Archive()
    root = a.reserve()
    index_set(a, -1, data=b"", at=root)
    return a, root


# NSIndexPath


@archive("index-path-length-2-pow-40", [("IndexPath", "invalidArchive")],
         "NSIndexPathLength 2^40 with 20 bytes of NSIndexPathData: the length is checked against the data first.")
def _():
    a = Archive()
    root = a.reserve()
    index_path(a, 2**40, data=leb128(*range(1, 21)), at=root)
    return a, root


@archive("index-path-shared-4000", [("Any", "sizeLimit")],
         "4,000 references to one index path of 8,000 indexes. Decoded once and reused, but each reference is charged the values it holds, so the whole expands past maximumDecodedObjects.")
def _():
    a = Archive()
    root = a.reserve()
    shared = index_path(a, 8_000, list(range(8_000)))
    ns_array(a, [shared] * 4_000, at=root)
    return a, root


# NSValue


def one_range(location, length):
    a = Archive()
    root = a.reserve()
    range_value(a, location, length, at=root)
    return a, root


@archive("range-int-max-int-max", [("NSRange", "invalidArchive"), ("Range<Int>", "invalidArchive"), ("Any", "invalidArchive")],
         "A range at Int.max of length Int.max ends past Int.max.")
def _():
    return one_range(INT_MAX, INT_MAX)


@archive("range-negative-location", [("NSRange", "invalidArchive"), ("Any", "invalidArchive")],
         "A range at -5: NSRange's location is unsigned in Apple's Foundation.")
def _():
    return one_range(-5, 3)


@archive("range-negative-length", [("NSRange", "invalidArchive")],
         "A range of length -1.")
def _():
    return one_range(10, -1)


@archive("range-int-max-minus-one", [("NSRange", "ok")],
         "A range at Int.max - 1 of length 1 ends exactly at Int.max, so it fits.")
def _():
    return one_range(INT_MAX - 1, 1)


@archive("rect-60000-digit-string", [("CGRect", "invalidArchive")],
         "A rectangle whose x is a 60,000-digit number (infinite as a Double); the error quotes only a bounded prefix of it.")
def _():
    a = Archive()
    root = a.reserve()
    digits = "1234567890" * 6_000
    rect_value(a, "{{%s, 0}, {1, 1}}" % digits, at=root)
    return a, root


# NSTimeZone, NSCalendar, NSLocale


@archive("time-zone-long-name", [("TimeZone", "invalidArchive")],
         "A time zone named by 60,000 x characters, which no platform knows; the error quotes only a bounded prefix of it.")
def _():
    a = Archive()
    root = a.reserve()
    time_zone(a, "x" * 60_000, at=root)
    return a, root


@archive("calendar-long-identifier", [("Calendar", "invalidArchive")],
         "A calendar identifier of 60,000 characters names no calendar; the error quotes only a bounded prefix of it.")
def _():
    a = Archive()
    root = a.reserve()
    calendar(a, "gregorian" + "x" * 59_991, at=root)
    return a, root


@archive("locale-long-identifier", [("Locale", "ok")],
         "A locale keeps any identifier, even one of 60,000 characters.")
def _():
    a = Archive()
    root = a.reserve()
    locale(a, "en_US" + "x" * 59_995, at=root)
    return a, root


# NSMeasurement


@archive("measurement-shared-4000", [("Any", "ok")],
         "4,000 references to one measurement of 45 miles.")
def _():
    a = Archive()
    root = a.reserve()
    shared = measurement(a, 45, miles(a))
    ns_array(a, [shared] * 4_000, at=root)
    return a, root


@archive("measurement-converter-is-measurement", [("Any", "typeMismatch")],
         "The unit's NS.converter is the measurement itself, which is not a unit converter.")
def _():
    a = Archive()
    root = a.reserve()
    measurement(a, 45, unit_length(a, "mi", root, specifier=1287), at=root)
    return a, root


# NSNotification


@archive("notification-userinfo-contains-itself", [("Any", "cycle")],
         "The notification's user info holds the notification itself.")
def _():
    a = Archive()
    root = a.reserve()
    notification(a, "hostile", user_info=ns_dictionary(a, [(a.value("self"), root)]), at=root)
    return a, root


@archive("notification-shared-3000", [("Any", "ok")],
         "3,000 references to one notification whose user info has 500 entries.")
def _():
    a = Archive()
    root = a.reserve()
    info = ns_dictionary(a, [(a.value("key%d" % i), a.value(i)) for i in range(500)])
    shared = notification(a, "shared", object_=a.value("sender"), user_info=info)
    ns_array(a, [shared] * 3_000, at=root)
    return a, root


@archive("notification-chain-600", [("Any", "depthLimit")],
         "600 notifications each holding the next as NS.object, the last a measurement: deeper than the default 512.")
def _():
    a = Archive()
    links = [a.reserve() for _ in range(600)]
    last = measurement(a, 45, miles(a))
    for i, uid in enumerate(links):
        notification(a, "chain", object_=links[i + 1] if i + 1 < len(links) else last, at=uid)
    return a, links[0]


# MARK: Writing the folder

README = """# Hostile archives of Apple's value classes

Keyed archives of Foundation's value classes (`NSCountedSet`, `NSAttributedString`, `NSIndexSet`,
`NSIndexPath`, `NSValue`, `NSTimeZone`, `NSCalendar`, `NSLocale`, `NSMeasurement`,
`NSNotification`) in exactly the layout Apple's `NSKeyedArchiver` writes, with hostile contents:
huge or negative counts, runs and ranges that do not fit, cycles, nesting past the depth limit,
strings of 60,000 characters, and many references to one large shared value.

`manifest.json` lists, for each file, the type to decode it as (`decodeAs`), what must happen
(`expect`: `ok`, or the `ArchiveError` code) and why; a file may be listed more than once, with
different types. `Tests/EverydayUseTests/HostileValueArchiveTests.swift` checks every entry, and
that every error's reason stays short.

Made by `Scripts/make-hostile-value-archives.py` (Python 3, standard library only). Do not edit
these files by hand: change the script and run `python3 Scripts/make-hostile-value-archives.py`
from the package root, which regenerates the whole folder (the same bytes each time).
"""


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = []
    written = set()
    for name, make, expectations, why in ARCHIVES:
        assert name not in written, "two archives named " + name
        a, root = make()
        data = a.encoded(root)
        assert len(data) < SIZE_LIMIT, "%s is %d bytes, over 64 KiB" % (name, len(data))
        check_reads_back(name, data, len(a.objects))
        (OUT / name).write_bytes(data)
        written.add(name)
        for decode_as, expect in expectations:
            manifest.append({"file": name, "decodeAs": decode_as, "expect": expect, "why": why})
    for stale in OUT.glob("*.archive"):
        if stale.name not in written:
            stale.unlink()
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (OUT / "README.md").write_text(README, encoding="utf-8")
    for name in sorted(written):
        print("%7d  %s" % ((OUT / name).stat().st_size, name))
    print("%d archives, %d manifest entries in %s" % (len(written), len(manifest), OUT))


def check_reads_back(name, data, object_count):
    """plistlib reads the file back into the archive's shape, every UID inside `$objects`."""
    back = plistlib.loads(data)
    assert back["$archiver"] == "NSKeyedArchiver" and back["$version"] == 100000, name
    assert back["$top"] == {"root": plistlib.UID(1)} and len(back["$objects"]) == object_count, name

    def uids(value):
        if isinstance(value, plistlib.UID):
            yield value.data
        elif isinstance(value, dict):
            for item in value.values():
                yield from uids(item)
        elif isinstance(value, list):
            for item in value:
                yield from uids(item)

    assert all(0 <= uid < object_count for uid in uids(back)), name + " has a UID outside $objects"


if __name__ == "__main__":
    main()
