import PropertyList
import Testing

/// The writer's uniquing index keeps only some bits of each hash beside a table index; when a
/// table index no longer fits, it keeps fewer hash bits, and when the table fills, it grows. Both
/// rebuild the buckets from hashes it asks the owner for again. These tests start an index with
/// room for tiny table indexes, so every rebuild happens many times over a few thousand values.
@Suite("Writer uniquing index")
struct UniquingIndexTests {
    /// Values added in order: value `i` of `values` is table index `i`, as in a writer table.
    struct Owner {
        var values: [UInt64] = []
        var index: WordIndex

        init(tagBits: UInt32) { index = WordIndex(tagBits: tagBits) }

        /// The table index of `value`: an earlier one if it was added, else a new one.
        mutating func add(_ value: UInt64) -> Int {
            let candidate = values.count
            let values = self.values
            let found = index.index(of: value, candidate: candidate) { values[$0] }
            if found == candidate { self.values.append(value) }
            return found
        }
    }

    @Test(
        "Each value is found again at its own index while the index part widens and the table grows",
        arguments: [31 as UInt32, 28, 20, 8])
    func widensAndGrows(tagBits: UInt32) {
        var owner = Owner(tagBits: tagBits)
        // Distinct values, some far apart and some adjacent, added in a scrambled order.
        var distinct: [UInt64] = []
        for i in 0..<5_000 as Range<UInt64> {
            distinct.append(i % 3 == 0 ? i &* 0x9E37_79B9_7F4A_7C15 : i)
        }
        for (position, value) in distinct.enumerated() {
            let index = owner.add(value)
            #expect(index == position, "value \(value) was given index \(index), expected a new index \(position)")
            // Every earlier value is still found where it was put.
            if position % 499 == 0 {
                for earlier in 0...position {
                    let again = owner.add(distinct[earlier])
                    #expect(again == earlier, "after \(position + 1) values, \(distinct[earlier]) was found at \(again), not \(earlier)")
                }
            }
        }
        #expect(owner.index.count == distinct.count)
        #expect(owner.values == distinct, "adding values a second time added them again")
        // Values never added are new, and take the next index.
        let absent: UInt64 = 0xFFFF_0000_FFFF_0000
        #expect(owner.add(absent) == distinct.count)
    }

    @Test("An index reserved for many values finds each one, then still grows past the reservation")
    func reservedThenGrown() {
        var owner = Owner(tagBits: 24)
        owner.index.reserve(1_000) { _ in 0 }
        for i in 0..<3_000 as Range<UInt64> {
            #expect(owner.add(i * 7) == Int(i))
        }
        for i in 0..<3_000 as Range<UInt64> {
            #expect(owner.add(i * 7) == Int(i), "\(i * 7) was not found again")
        }
        #expect(owner.index.count == 3_000)
    }
}
