extension UnarchiverCore {
    /// Lets go of the class instances registered from `registrations[mark]` on, whose top-level
    /// decode failed: none of them is handed out, and none outlives the error.
    ///
    /// Taking them out of `instances` is not enough. A reflection-coded class registers its
    /// instance before decoding its fields (so that cycles resolve), and the instances can hold
    /// each other in strong cycles that nothing else references once the error is thrown. Every
    /// such cycle runs through a field that reflection filled: an instance of a `KeyedCoding` or
    /// `Codable` class exists only once its initialiser has returned, so it can only hold
    /// instances that existed before it, and only a reflection-coded instance can be referenced
    /// while it is still being decoded. Those fields are reset to the values `init()` gives them
    /// (one extra `init()` per class, on this path only), which breaks every cycle; the instances
    /// are then released with the table. Instances decoded by earlier top-level decodes are
    /// never touched.
    func abandonInstances(from mark: Int) {
        // Grouped by class, in registration order, so that each coder makes one fresh instance.
        var groups: [(type: AnyObject.Type, instances: [AnyObject])] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        for uid in registrations[mark...] {
            guard let instance = instances[uid] else { continue }
            let type: AnyObject.Type = Swift.type(of: instance)
            if let index = groupIndex[ObjectIdentifier(type)] {
                groups[index].instances.append(instance)
            } else {
                groupIndex[ObjectIdentifier(type)] = groups.count
                groups.append((type, [instance]))
            }
        }
        for group in groups { coders.coder(for: group.type).resetDecodedFields(of: group.instances) }
        groups.removeAll()
        for uid in registrations[mark...] { instances[uid] = nil }
        registrations.removeSubrange(mark...)
    }
}
