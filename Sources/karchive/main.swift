import PropertyList
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
let path = CommandLine.arguments[1]
let fd = fopen(path, "rb")!
var bytes = [UInt8]()
var buf = [UInt8](repeating: 0, count: 65536)
while true { let n = fread(&buf, 1, buf.count, fd); if n <= 0 { break }; bytes += buf[0..<n] }
do { print(try BPlistReader().read(bytes).plistJSON) } catch { print(error); exit(1) }
