// A small blob store written against an encoder/decoder pair, as Codable-based caches and
// database layers are, used unchanged with this library's codec (KeyedArchiveEncoder and
// KeyedArchiveDecoder) and with JSON.

import Foundation
import KeyedArchive

/// What the store needs of an encoder and a decoder (Combine's TopLevelEncoder/TopLevelDecoder
/// have the same shape, and both pairs conform to them where Combine exists).
protocol BlobEncoder { func encode<T: Encodable>(_ value: T) throws -> Data }
protocol BlobDecoder { func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T }

extension JSONEncoder: BlobEncoder {}
extension JSONDecoder: BlobDecoder {}
extension KeyedArchiveEncoder: BlobEncoder {}
extension KeyedArchiveDecoder: BlobDecoder {}

/// Values as blobs in a dictionary (a database table of blobs, in a real app).
final class BlobStore<Encoder: BlobEncoder, Decoder: BlobDecoder> {
    private var rows: [String: Data] = [:]
    private let encoder: Encoder
    private let decoder: Decoder

    init(encoder: Encoder, decoder: Decoder) {
        self.encoder = encoder
        self.decoder = decoder
    }

    func put<T: Encodable>(_ value: T, as id: String) throws { rows[id] = try encoder.encode(value) }
    func get<T: Decodable>(_ type: T.Type, _ id: String) throws -> T? { try rows[id].map { try decoder.decode(type, from: $0) } }
    func size(of id: String) -> Int { rows[id]?.count ?? 0 }
}

struct Order: Codable, Equatable {
    var id: Int
    var items: [String]
    var total: Double
}

let order = Order(id: 7, items: ["tea", "scones"], total: 12.5)
let archives = BlobStore(encoder: KeyedArchiveEncoder(), decoder: KeyedArchiveDecoder())
let json = BlobStore(encoder: JSONEncoder(), decoder: JSONDecoder())
try archives.put(order, as: "order-7")
try json.put(order, as: "order-7")
print("keyed archive round trip: \(try archives.get(Order.self, "order-7") == order)")
print("JSON round trip: \(try json.get(Order.self, "order-7") == order)")
// The blob is an ordinary keyed archive: the one-object API reads it too.
let blob = try KeyedArchiveEncoder().encode(order)
print("read as a keyed archive: \(try KeyedUnarchiver.unarchivedObject(ofType: Order.self, from: blob) == order)")
