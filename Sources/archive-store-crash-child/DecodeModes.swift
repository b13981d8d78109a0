import Foundation
import KeyedArchive

// The `decode` and `rewrite` modes: what this process makes of archive files, printed so that
// several processes (each with its own hash seed) can be compared line by line.

/// A number that differs between processes with different hash seeds (and is the same in every
/// process when `SWIFT_DETERMINISTIC_HASHING` is set).
func hashSeedFingerprint() -> String {
    var hasher = Hasher()
    hasher.combine(0)
    return String(UInt(bitPattern: hasher.finalize()), radix: 16)
}

/// What decoding `key` of `file` as `Any` gives: the value's ``DecodedValueDescription`` or the error.
func describeDecoded(_ decode: () throws -> Any) -> String {
    do {
        return DecodedValueDescription.of(try decode())
    } catch {
        return "error \(error)"
    }
}

/// `decode <file>...`: prints `seed <fingerprint>`, then per file `<name>: <root as Any>`.
func runDecode(files: [String]) -> Never {
    emit("seed \(hashSeedFingerprint())")
    for path in files {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let outcome = describeDecoded {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try KeyedUnarchiver.unarchivedObject(ofType: Any.self, from: data)
        }
        emit("\(name): \(outcome)")
    }
    exit(0)
}

/// `rewrite <directory> <file>...`: prints `seed <fingerprint>`, then per file: opens it with
/// `ArchiveFile`, describes every key as `Any`, sets the key `added`, writes the file to
/// `<directory>/<name>`, opens that and describes every key again.
func runRewrite(directory: String, files: [String]) -> Never {
    emit("seed \(hashSeedFingerprint())")
    for path in files {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let file: ArchiveFile
        do {
            file = try ArchiveFile(contentsOf: URL(fileURLWithPath: path))
        } catch {
            emit("\(name) open: error \(error)")
            continue
        }
        emit("\(name) keys: \(file.keys)")
        for key in file.keys {
            emit("\(name) before \(key): \(describeDecoded { try file.decode(Any.self, forKey: key) })")
        }
        var edited = file
        let output = URL(fileURLWithPath: directory).appending(path: name)
        let reread: ArchiveFile
        do {
            try edited.set(["added": 1], forKey: "added")
            try edited.write(to: output)
            reread = try ArchiveFile(contentsOf: output)
        } catch {
            emit("\(name) rewrite: error \(error)")
            continue
        }
        emit("\(name) rewritten keys: \(reread.keys)")
        for key in reread.keys {
            emit("\(name) after \(key): \(describeDecoded { try reread.decode(Any.self, forKey: key) })")
        }
    }
    exit(0)
}
