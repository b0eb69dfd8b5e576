/// The float32 dB values of one binary record (hackrf_sweep `-B`,
/// soapy_power_bin), decoded into one buffer that grows to the largest record
/// and is reused after that.
struct RecordValues {
    /// what a record with a value `decode` refuses is
    static let notDBValues = "record holds NaN or +inf, expected dB values"

    private var values: [Float] = []

    /// Decodes `count` little-endian float32 from `body`. Returns false if one
    /// is NaN or +inf (−inf is a valid dB: zero power).
    mutating func decode(_ body: UnsafeRawBufferPointer, count: Int) -> Bool {
        if values.count < count { values.append(contentsOf: repeatElement(0, count: count - values.count)) }
        var finite = true
        values.withUnsafeMutableBufferPointer { destination in
            for i in 0..<count {
                let value = Float(bitPattern: body.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian)
                destination[i] = value
                if !(value.isFinite || value == -.infinity) { finite = false }
            }
        }
        return finite
    }

    /// Calls `body` with the first `count` decoded values.
    func withValues<T>(count: Int, _ body: (UnsafeBufferPointer<Float>) -> T) -> T {
        values.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<count])) }
    }
}
