/// Maps keys and namespace names to file names, and key file names back to keys.
///
/// **Escaping.** A key is taken as its exact UTF-8 bytes (two strings that Swift's `==` calls
/// equal, such as NFC and NFD "é", are different keys with different files). Each byte becomes:
/// - itself, for `a`–`z`, `0`–`9`, `-` and `_`;
/// - `^` and the lowercase letter, for `A`–`Z` (`"User"` → `^user`);
/// - `%` and two lowercase hex digits, for every other byte (`/` → `%2f`, NUL → `%00`,
///   `.` → `%2e`, each byte of `é` → `%c3%a9`).
///
/// The result holds no uppercase letters, no `.`, `/` or NUL and is never empty after its prefix,
/// so it is a valid, distinct name on case-insensitive and normalising file systems (APFS, HFS+,
/// NTFS, FAT) as well as on Linux, never `.` or `..`, never hidden, and never a reserved
/// Windows device name. Escaping is injective and reversible: only canonical escapes are
/// accepted back (`%41` is not read as `A`, whose escape is `^a`).
///
/// **Files.** A key's file is `key-<escaped>.archive`; a namespace's directory is
/// `ns-<escaped>`. The prefixes keep keys and namespaces apart whatever their text.
///
/// **Long names.** When the name would exceed 255 bytes (`NAME_MAX`), it becomes
/// `key-<escaped prefix>~<first 128 bits of SHA-256 of the key's UTF-8, in hex>.archive`, the
/// escaped prefix cut at a whole escape so the name is at most 255 bytes. `~` never appears in an
/// escape, so a hashed name never equals an unhashed one; two long keys share a name only if
/// their SHA-256 prefixes collide. Such a name cannot be reversed, so ``ArchiveStore/keys`` reads
/// the full key from the file (every stored file holds its key under the `$top` key `"key"`,
/// and a load checks it, so even a collision could never return another key's value). A hashed
/// namespace directory keeps its full name in a `.namespace` file for ``ArchiveStore/namespaces``.
package enum StoreFileName {
    /// What a directory entry is, from its name alone.
    package enum Entry: Equatable {
        /// A key file whose key is spelled out in its name.
        case key(String)
        /// A key file with a hashed name: the key is inside the file.
        case hashedKey
        /// A nested namespace's directory whose name is spelled out in its name.
        case namespace(String)
        /// A nested namespace's directory with a hashed name: the name is in its `.namespace` file.
        case hashedNamespace
        /// A save in progress, or left by a process that died during a save.
        case temporary
        /// Anything else (the lock file, files the store did not write): left alone.
        case other
    }

    /// The file name of `key`.
    package static func keyFileName(for key: String) -> String {
        name(for: key, prefix: StoreFormat.keyFilePrefix, suffix: StoreFormat.keyFileExtension)
    }

    /// The directory name of namespace `name`.
    package static func namespaceDirectoryName(for name: String) -> String {
        self.name(for: name, prefix: StoreFormat.namespacePrefix, suffix: "")
    }

    /// True when `fileName` is a hashed (irreversible) name.
    package static func isHashed(_ fileName: String) -> Bool {
        fileName.utf8.contains(StoreFormat.hashSeparator)
    }

    /// Classifies a directory entry by its name.
    package static func classify(_ fileName: String) -> Entry {
        let utf8 = Array(fileName.utf8)
        if fileName.hasPrefix(StoreFormat.temporaryPrefix) { return .temporary }
        let keyPrefix = Array(StoreFormat.keyFilePrefix.utf8)
        let keySuffix = Array(StoreFormat.keyFileExtension.utf8)
        if utf8.count >= keyPrefix.count + keySuffix.count, utf8.starts(with: keyPrefix),
            utf8.suffix(keySuffix.count).elementsEqual(keySuffix)
        {
            let escaped = utf8[keyPrefix.count..<(utf8.count - keySuffix.count)]
            if escaped.contains(StoreFormat.hashSeparator) {
                return isHashedBody(escaped) ? .hashedKey : .other
            }
            guard let bytes = unescape(escaped), let key = String(validating: bytes, as: UTF8.self) else {
                return .other
            }
            return .key(key)
        }
        let namespacePrefix = Array(StoreFormat.namespacePrefix.utf8)
        if utf8.starts(with: namespacePrefix) {
            let escaped = utf8[namespacePrefix.count...]
            if escaped.contains(StoreFormat.hashSeparator) { return isHashedBody(escaped) ? .hashedNamespace : .other }
            guard let bytes = unescape(escaped), let name = String(validating: bytes, as: UTF8.self) else {
                return .other
            }
            return .namespace(name)
        }
        return .other
    }

    // MARK: - Escaping

    /// The escape of one byte, appended to `output`.
    package static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            output.append(byte)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            output.append(UInt8(ascii: "^"))
            output.append(byte + 32)
        default:
            output.append(UInt8(ascii: "%"))
            output.append(contentsOf: hexDigits(of: byte))
        }
    }

    /// The escape of `bytes`.
    package static func escape(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        for byte in bytes { appendEscape(of: byte, to: &output) }
        return output
    }

    /// The bytes whose canonical escape is `escaped`, or nil if it is not one.
    package static func unescape(_ escaped: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = escaped.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: "^"):
                guard let letter = iterator.next(), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter) else {
                    return nil
                }
                bytes.append(letter - 32)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                return nil
            }
        }
        // Only the canonical spelling is ours: `%61` would also read as "a".
        return escape(bytes).elementsEqual(escaped) ? bytes : nil
    }

    /// Two lowercase hex digits.
    package static func hexDigits(of byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    // MARK: - Names

    private static func name(for text: String, prefix: String, suffix: String) -> String {
        let escaped = escape(text.utf8)
        let fixed = prefix.utf8.count + suffix.utf8.count
        if fixed + escaped.count <= StoreFormat.maximumFileNameLength {
            return prefix + String(decoding: escaped, as: UTF8.self) + suffix
        }
        // Too long: a readable prefix cut at a whole escape, then the hash of the full text.
        let budget = StoreFormat.maximumFileNameLength - fixed - 1 - StoreFormat.hashHexLength
        var truncated: [UInt8] = []
        var one: [UInt8] = []
        for byte in text.utf8 {
            one.removeAll(keepingCapacity: true)
            appendEscape(of: byte, to: &one)
            if truncated.count + one.count > budget { break }
            truncated.append(contentsOf: one)
        }
        let hash = SHA256.hexDigest(text.utf8).prefix(StoreFormat.hashHexLength)
        return prefix + String(decoding: truncated, as: UTF8.self) + "~" + hash + suffix
    }

    /// `<canonical escape>~<32 lowercase hex>`.
    private static func isHashedBody(_ body: some Collection<UInt8>) -> Bool {
        let parts = body.split(separator: StoreFormat.hashSeparator, omittingEmptySubsequences: false)
        guard parts.count == 2, unescape(parts[0]) != nil, parts[1].count == StoreFormat.hashHexLength else {
            return false
        }
        return parts[1].allSatisfy { hexValue($0) != nil }
    }
}
