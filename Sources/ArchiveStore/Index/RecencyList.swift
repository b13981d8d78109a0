/// Elements by path, in order of last use (oldest first), with O(1) lookup, removal and
/// (for uses arriving in time order, as they nearly always do) insertion.
///
/// The store's index and its memory tier both keep one. A use older than the newest one
/// (a record from another process that arrives late) is placed by its time, walking back from
/// the newest.
struct RecencyList<Element> {
    fileprivate struct Slot {
        var path: String
        /// Nil in a free slot.
        var element: Element?
        var time: Double
        var previous = -1
        var next = -1
    }

    /// Not optional, so that a slot's links and time are changed in place.
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotByPath: [String: Int] = [:]
    private var head = -1
    private var tail = -1

    var count: Int { slotByPath.count }

    subscript(path: String) -> Element? {
        slotByPath[path].flatMap { slots[$0].element }
    }

    /// The time of the last use of `path`.
    func time(of path: String) -> Double? {
        slotByPath[path].map { slots[$0].time }
    }

    /// The least recently used element and its time.
    var oldest: (path: String, element: Element, time: Double)? {
        guard head >= 0, let element = slots[head].element else { return nil }
        return (slots[head].path, element, slots[head].time)
    }

    /// Every element, least recently used first.
    var elementsByUse: [(path: String, element: Element, time: Double)] {
        var result: [(path: String, element: Element, time: Double)] = []
        result.reserveCapacity(count)
        var index = head
        while index >= 0, let element = slots[index].element {
            result.append((slots[index].path, element, slots[index].time))
            index = slots[index].next
        }
        return result
    }

    /// Every element in no particular order (cheaper than ``elementsByUse``).
    var elements: some Sequence<Element> { slots.lazy.compactMap { $0.element } }

    /// Sets the element of `path`, used at `time` (a use older than the one recorded keeps
    /// the recorded time and place). Returns the element it replaced.
    @discardableResult
    mutating func put(_ element: Element, at path: String, time: Double) -> Element? {
        if let index = slotByPath[path] {
            let old = slots[index].element
            slots[index].element = element
            if time > slots[index].time {
                unlink(index)
                slots[index].time = time
                insert(index)
            }
            return old
        }
        let slot = Slot(path: path, element: element, time: time)
        let index: Int
        if let free = freeSlots.popLast() {
            index = free
            slots[index] = slot
        } else {
            index = slots.count
            slots.append(slot)
        }
        slotByPath[path] = index
        insert(index)
        return nil
    }

    /// Marks `path` used at `time`; nothing for an unknown path.
    mutating func touch(_ path: String, at time: Double) {
        guard let index = slotByPath[path], time > slots[index].time else { return }
        unlink(index)
        slots[index].time = time
        insert(index)
    }

    @discardableResult
    mutating func remove(_ path: String) -> Element? {
        guard let index = slotByPath.removeValue(forKey: path) else { return nil }
        unlink(index)
        let element = slots[index].element
        slots[index].element = nil
        slots[index].path = ""
        freeSlots.append(index)
        return element
    }

    mutating func removeAll() {
        self = RecencyList()
    }

    /// Walks from the least recently used while `body` returns true.
    func forEachByUse(_ body: (String, Element, Double) -> Bool) {
        var index = head
        while index >= 0, let element = slots[index].element, body(slots[index].path, element, slots[index].time) {
            index = slots[index].next
        }
    }

    private mutating func unlink(_ index: Int) {
        let previous = slots[index].previous
        let next = slots[index].next
        if previous >= 0 { slots[previous].next = next } else { head = next }
        if next >= 0 { slots[next].previous = previous } else { tail = previous }
        slots[index].previous = -1
        slots[index].next = -1
    }

    /// Links `index` after the newest slot whose time is not later than its own.
    private mutating func insert(_ index: Int) {
        let time = slots[index].time
        var after = tail
        while after >= 0, slots[after].time > time { after = slots[after].previous }
        let before = after >= 0 ? slots[after].next : head
        slots[index].previous = after
        slots[index].next = before
        if after >= 0 { slots[after].next = index } else { head = index }
        if before >= 0 { slots[before].previous = index } else { tail = index }
    }
}

extension RecencyList: Sendable where Element: Sendable {}
extension RecencyList.Slot: Sendable where Element: Sendable {}
