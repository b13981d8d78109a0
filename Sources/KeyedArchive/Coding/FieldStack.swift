/// The key and value references of the objects being written, innermost object's last.
///
/// Every coded object pushes its fields here and pops them when it ends, so the stack is the
/// archiver's busiest structure. It is a pair of plain buffers (no copy-on-write checks, no
/// generic array code); its owner frees it.
struct FieldStack {
    private(set) var keys: UnsafeMutablePointer<Int>
    private(set) var values: UnsafeMutablePointer<Int>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
        keys = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
    }

    func free() {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always)
    mutating func append(key: Int, value: Int) {
        if count == capacity { grow() }
        keys[count] = key
        values[count] = value
        count += 1
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newKeys = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
        let newValues = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
        newKeys.initialize(from: keys, count: count)
        newValues.initialize(from: values, count: count)
        free()
        keys = newKeys
        values = newValues
        capacity = newCapacity
    }

    /// Drops the fields from `start` on.
    @inline(__always)
    mutating func truncate(to start: Int) {
        if start < count { count = start }
    }

    /// The position of the field with key `key` among those from `start` on.
    func position(ofKey key: Int, from start: Int) -> Int? {
        var i = start
        while i < count {
            if keys[i] == key { return i }
            i += 1
        }
        return nil
    }

    @inline(__always)
    func setValue(_ value: Int, at position: Int) {
        values[position] = value
    }

    func keys(from start: Int) -> UnsafeBufferPointer<Int> {
        UnsafeBufferPointer(start: keys + start, count: count - start)
    }

    func values(from start: Int) -> UnsafeBufferPointer<Int> {
        UnsafeBufferPointer(start: values + start, count: count - start)
    }
}
