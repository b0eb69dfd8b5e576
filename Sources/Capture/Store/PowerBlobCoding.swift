/// The capture store's power values: each bin as an IEEE-754 binary32 [dB],
/// little-endian, 4 bytes per bin. Exact (NaN for bins without data included).
enum PowerBlobCoding {
    /// Writes `values` as little-endian Float32 into `bytes` (≥ 4·count bytes).
    static func encode(_ values: [Float], into bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count >= values.count * 4)
        values.withUnsafeBufferPointer { source in
            for (i, value) in source.enumerated() {
                bytes.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: i * 4, as: UInt32.self)
            }
        }
    }

    /// Reads `count` little-endian Float32 values from `bytes` into `values`,
    /// reusing its storage.
    static func decode(_ bytes: UnsafeRawBufferPointer, count: Int, into values: inout [Float]) {
        precondition(bytes.count >= count * 4)
        if values.count != count {
            values.removeAll(keepingCapacity: true)
            values.append(contentsOf: repeatElement(0, count: count))
        }
        values.withUnsafeMutableBufferPointer { out in
            for i in 0..<count {
                let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                out[i] = Float(bitPattern: bits)
            }
        }
    }
}
