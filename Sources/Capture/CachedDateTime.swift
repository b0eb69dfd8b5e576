import Foundation

/// "YYYY-MM-DD<separator>HH:MM:SS" of a Unix second, as strftime prints it,
/// kept in a fixed buffer and formatted again only when the second changes:
/// the text writers stamp thousands of lines per second with it.
struct CachedDateTime {
    enum Zone { case local, utc }

    private let zone: Zone
    /// between date and time: ", " (rtl_power, hackrf_sweep) or "T" (ISO 8601)
    private let separator: [UInt8]
    /// the formatted text for `cachedSecond`
    private var text: [UInt8]
    private var cachedSecond = Int.min

    init(zone: Zone, separator: String) {
        self.zone = zone
        self.separator = Array(separator.utf8)
        text = [UInt8](repeating: 0, count: 18 + self.separator.count)
    }

    /// bytes `write` puts out
    var count: Int { text.count }

    /// Writes the date and time of `seconds`; returns bytes written (`count`).
    mutating func write(_ seconds: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if seconds != cachedSecond { format(seconds) }
        return FixedPointFormat.writeBytes(text, to: out)
    }

    private mutating func format(_ seconds: Int) {
        var time = time_t(seconds)
        var parts = tm()
        switch zone {
        case .local: localtime_r(&time, &parts)
        case .utc: gmtime_r(&time, &parts)
        }
        let separator = separator
        text.withUnsafeMutableBufferPointer { buffer in
            var out = buffer.baseAddress!
            FixedPointFormat.writePadded(Int(parts.tm_year) + 1900, width: 4, to: out)
            out[4] = UInt8(ascii: "-")
            FixedPointFormat.writePadded(Int(parts.tm_mon) + 1, width: 2, to: out + 5)
            out[7] = UInt8(ascii: "-")
            FixedPointFormat.writePadded(Int(parts.tm_mday), width: 2, to: out + 8)
            for (i, byte) in separator.enumerated() { out[10 + i] = byte }
            out += 10 + separator.count
            FixedPointFormat.writePadded(Int(parts.tm_hour), width: 2, to: out)
            out[2] = UInt8(ascii: ":")
            FixedPointFormat.writePadded(Int(parts.tm_min), width: 2, to: out + 3)
            out[5] = UInt8(ascii: ":")
            FixedPointFormat.writePadded(Int(parts.tm_sec), width: 2, to: out + 6)
        }
        cachedSecond = seconds
    }
}
