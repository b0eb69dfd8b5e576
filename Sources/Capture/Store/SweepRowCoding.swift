/// The `frame_rows.layout` blob: the rows one frame was imported from
/// (`SweepRowLayout`), little-endian, documented in Firmware-Notes/capture-format.md.
///
///     u8 version (1), u8 format (1 rtl_power, 2 hackrf_sweep, 3 hackrf_sweep_binary, 4 soapy_power_bin),
///     u8 spelling (0 C, 1…8 Microsoft runtime at that many decimals), u8 0,
///     u32 rows, u32 own values,
///     per row: f64 low Hz, f64 high Hz, f64 step Hz, i64 samples, i64 time [µs],
///              u32 first bin, u32 bins, u8 flags (1 repeats last, 2 own values, 4 line ends "\r\n",
///              8 line ends without a newline), u8 time decimals (0: 6, else decimals + 1), 2 × u8 0,
///              u32 own values offset (0 unless flag 2), f64 time_start [s], f64 time_stop [s];
///     own values: f32 each.
enum SweepRowCoding {
    static let version: UInt8 = 1
    static let headerBytes = 12
    static let rowBytes = 5 * 8 + 4 + 4 + 4 + 4 + 2 * 8

    private static let formats: [CaptureFormat] = [.rtlPower, .hackrfSweep, .hackrfSweepBinary, .soapyPowerBin]

    /// Encodes `layout` into `bytes` (replacing what it held, reusing its storage).
    static func encode(_ layout: SweepRowLayout, into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        let formatCode = UInt8((formats.firstIndex(of: layout.format) ?? -1) + 1)
        var spelling: UInt8 = 0
        if case .msvc(let decimals) = layout.spelling { spelling = UInt8(clamping: decimals) }
        bytes += [version, formatCode, spelling, 0]
        append(UInt32(layout.rows.count), to: &bytes)
        append(UInt32(layout.ownValues.count), to: &bytes)
        for row in layout.rows {
            append(row.lowHz.bitPattern, to: &bytes)
            append(row.highHz.bitPattern, to: &bytes)
            append(row.stepHz.bitPattern, to: &bytes)
            append(UInt64(bitPattern: row.samples), to: &bytes)
            append(UInt64(bitPattern: row.timeMicros), to: &bytes)
            append(UInt32(clamping: row.firstBin), to: &bytes)
            append(UInt32(clamping: row.binCount), to: &bytes)
            let flags: UInt8 = (row.repeatsLast ? 1 : 0) | (row.ownValuesAt != nil ? 2 : 0)
                | (row.lineEnd == .crlf ? 4 : 0) | (row.lineEnd == .none ? 8 : 0)
            let decimals: UInt8 = row.timeDecimals == 6 ? 0 : UInt8(clamping: row.timeDecimals + 1)
            bytes += [flags, decimals, 0, 0]
            append(UInt32(clamping: row.ownValuesAt ?? 0), to: &bytes)
            append(row.timeStart.bitPattern, to: &bytes)
            append(row.timeStop.bitPattern, to: &bytes)
        }
        for value in layout.ownValues { append(value.bitPattern, to: &bytes) }
    }

    /// Decodes a blob into `layout` (reusing its storage); false if the blob
    /// is not a layout this version wrote (the frame is then read without rows).
    static func decode(_ bytes: UnsafeRawBufferPointer, into layout: inout SweepRowLayout) -> Bool {
        guard bytes.count >= headerBytes, bytes[0] == version,
              (1...formats.count).contains(Int(bytes[1])), bytes[2] <= 8 else { return false }
        let rowCount = Int(load(UInt32.self, bytes, 4))
        let ownCount = Int(load(UInt32.self, bytes, 8))
        guard bytes.count == headerBytes + rowCount * rowBytes + ownCount * 4 else { return false }
        layout.format = formats[Int(bytes[1]) - 1]
        layout.spelling = bytes[2] == 0 ? .c : .msvc(decimals: Int(bytes[2]))
        layout.rows.removeAll(keepingCapacity: true)
        layout.ownValues.removeAll(keepingCapacity: true)
        for i in 0..<rowCount {
            let at = headerBytes + i * rowBytes
            let flags = bytes[at + 48]
            layout.rows.append(SweepRow(
                lowHz: Double(bitPattern: load(UInt64.self, bytes, at)),
                highHz: Double(bitPattern: load(UInt64.self, bytes, at + 8)),
                stepHz: Double(bitPattern: load(UInt64.self, bytes, at + 16)),
                samples: Int64(bitPattern: load(UInt64.self, bytes, at + 24)),
                timeMicros: Int64(bitPattern: load(UInt64.self, bytes, at + 32)),
                firstBin: Int(load(UInt32.self, bytes, at + 40)), binCount: Int(load(UInt32.self, bytes, at + 44)),
                repeatsLast: flags & 1 != 0,
                ownValuesAt: flags & 2 != 0 ? Int(load(UInt32.self, bytes, at + 52)) : nil,
                timeStart: Double(bitPattern: load(UInt64.self, bytes, at + 56)),
                timeStop: Double(bitPattern: load(UInt64.self, bytes, at + 64)),
                lineEnd: flags & 4 != 0 ? .crlf : flags & 8 != 0 ? .none : .lf,
                timeDecimals: bytes[at + 49] == 0 ? 6 : Int(bytes[at + 49]) - 1))
        }
        let valuesAt = headerBytes + rowCount * rowBytes
        for i in 0..<ownCount {
            layout.ownValues.append(Float(bitPattern: load(UInt32.self, bytes, valuesAt + 4 * i)))
        }
        return true
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, _ at: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
    }
}
