#if canImport(Glibc)
import ArchiveFileSystem
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import KeyedArchive
import PropertyList

/// `karchive convert` and the output formats of `extract`.
enum Conversion {
    /// `value` in `format`: Apple's XML layout, `bplist00`, plist-json (one line, or indented),
    /// or for `raw` the bare text of a scalar. Text formats end with a newline.
    static func bytes(of value: PlistValue, format: OutputFormat, pretty: Bool) throws -> [UInt8] {
        do {
            switch format {
            case .xml1: return try XMLPlistWriter().write(value)
            case .binary1: return try BPlistWriter().write(value)
            case .json: return Array((pretty ? PrettyJSON.indent(value.plistJSON) : value.plistJSON).utf8) + [0x0A]
            case .raw: return Array((try raw(value) + "\n").utf8)
            }
        } catch let error as ArchiveError {
            throw Karchive.Failure(error)
        }
    }

    /// A scalar as bare text: a string as it is, numbers in decimal, `true`/`false`, a date in
    /// ISO 8601, data in base64, a UID as its number.
    static func raw(_ value: PlistValue) throws -> String {
        switch value {
        case .string(let s): return s
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .real(let v): return String(v)
        case .float(let v): return String(v)
        case .bool(let v): return String(v)
        case .date(let v): return ISO8601.string(secondsSinceReferenceDate: v) ?? String(v)
        case .data(let bytes): return Base64.encode(bytes)
        case .uid(let v): return String(v)
        case .null: throw Karchive.Failure("the value is nil; -f raw prints only values")
        case .array, .set, .dict:
            throw Karchive.Failure("the value is \(value.kindDescription); -f raw prints only single values (use -f json, xml1 or binary1)")
        }
    }

    /// Converts one input and writes it: to `-o OUT` (`-` for standard output), beside the input
    /// with the extension `-e EXT`, or else to standard output. A file is replaced atomically, so
    /// a failed conversion leaves whatever was there; an input is overwritten only when `-o` names it.
    static func convert(_ document: Document, from source: InputSource, _ options: Options) throws {
        let output = try bytes(of: document.value, format: options.format ?? .binary1, pretty: options.pretty)
        let destination: String?
        if let path = options.output {
            destination = path == "-" ? nil : path
        } else if let ext = options.outputExtension, case .path(let input) = source {
            destination = replacingExtension(of: input, with: ext)
        } else {
            destination = nil
        }
        guard let destination else {
            StandardStream.output.write(bytes: output)
            return
        }
        try write(output, to: destination)
    }

    /// `dir/name.plist` with `xml` → `dir/name.xml`; a name without an extension gets one.
    static func replacingExtension(of path: String, with ext: String) -> String {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        let name = path[nameStart...]
        let ext = ext.hasPrefix(".") ? String(ext.dropFirst()) : ext
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(path[..<dot]) + "." + ext
        }
        return path + "." + ext
    }

    /// Writes `bytes` to `path` through a temporary file renamed over it, keeping the mode of a
    /// file already there (a new one gets 0666 less the umask).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty else { throw Karchive.Failure("cannot write to \(path): it names a directory") }
        do {
            guard let directory = try Directory.open(path: folder) else {
                throw Karchive.Failure("cannot write to \(path): there is no directory \(folder)")
            }
            var mode: UInt32
            if let status = try directory.status(of: name) {
                guard status.st_mode & S_IFMT == S_IFREG else { throw Karchive.Failure("cannot write to \(path): it is not a regular file") }
                mode = UInt32(status.st_mode & 0o7777)
            } else {
                let mask = umask(0)
                umask(mask)
                mode = 0o666 & ~UInt32(mask)
            }
            try directory.replaceFile(name, with: Data(bytes), temporaryName: ".\(name).karchive-\(getpid()).tmp", mode: mode)
            try directory.sync()
        } catch let error as ArchiveError {
            throw Karchive.Failure(error)
        }
    }
}

/// Indents compact JSON text: two spaces a level, one member or element a line, `": "` after keys.
enum PrettyJSON {
    static func indent(_ json: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(json.utf8)
        out.reserveCapacity(bytes.count * 2)
        var level = 0
        var inString = false
        var escaped = false
        func newline() {
            out.append(0x0A)
            for _ in 0..<level { out.append(0x20); out.append(0x20) }
        }
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if i + 1 < bytes.count, bytes[i + 1] == close {
                    out.append(close)
                    i += 1
                } else {
                    level += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            default:
                out.append(byte)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
