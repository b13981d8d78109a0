@_spi(Reader) import PropertyList

/// The UIDs being decoded now (to catch cycles through values), one bit per UID.
struct UIDSet: ~Copyable {
    private var words: RawBuffer<UInt64>
    /// How many bits are set, so clearing an idle set costs nothing.
    private var active = 0

    init(count: Int) { words = RawBuffer(count: (count + 63) / 64, repeating: 0) }

    /// Adds `uid`; false if it was already there.
    @inline(__always)
    mutating func insert(_ uid: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(uid & 63)
        let word = words[uid >> 6]
        if word & bit != 0 { return false }
        words[uid >> 6] = word | bit
        active += 1
        return true
    }

    @inline(__always)
    func contains(_ uid: Int) -> Bool {
        words[uid >> 6] & (1 << UInt64(uid & 63)) != 0
    }

    @inline(__always)
    mutating func remove(_ uid: Int) {
        let bit: UInt64 = 1 << UInt64(uid & 63)
        let word = words[uid >> 6]
        if word & bit != 0 {
            words[uid >> 6] = word & ~bit
            active -= 1
        }
    }

    mutating func removeAll() {
        guard active > 0 else { return }
        words.fill(with: 0)
        active = 0
    }
}

/// Class instances by UID. The column is allocated when the first instance is registered, so
/// reading an archive of values (structs, collections, scalars) never pays for one.
struct InstanceColumn: ~Copyable {
    private var slots = RawBuffer<AnyObject?>()
    let count: Int

    init(count: Int) {
        self.count = count
    }

    subscript(uid: Int) -> AnyObject? {
        @inline(__always) get {
            guard slots.count > 0 else { return nil }
            return slots[uid]
        }
        set {
            precondition(uid >= 0 && uid < count, "instance UID out of range")
            if slots.count == 0 {
                guard newValue != nil else { return }
                slots.append(repeating: nil, count: count)
            }
            slots[uid] = newValue
        }
    }

    /// Lets go of the instances at `registered` (every UID whose slot is set).
    mutating func release(registered: [Int]) {
        guard slots.count > 0 else { return }
        for uid in registered { slots[uid] = nil }
    }
}
