import Signals

/// The capture store's SQLite layout (documented in Firmware-Notes/capture-format.md).
///
/// - `metadata(key, value)`: one row per `CaptureMetadata` field that is set;
/// - `sessions`: one row per recording session (band, bin width, requested and
///   achieved frame rate, frames, dropped blocks and frames);
/// - `gaps`: outages of the device during a session (from, to, reason);
/// - `frames`: one row per spectrum frame at full device resolution, the power
///   values as a blob of little-endian IEEE-754 Float32 dB (4 bytes per bin,
///   exact), indexed by timestamp.
///
/// A file is recognised as a capture by `PRAGMA application_id` ("tSCP") and its
/// layout version by `PRAGMA user_version`.
enum CaptureStoreSchema {
    /// "tSCP" as a big-endian 32-bit integer
    static let applicationID: Int32 = 0x7453_4350
    static let version = 1

    static let createStatements = """
        CREATE TABLE metadata (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            started_at REAL NOT NULL,            -- Unix time [s, UTC]
            stopped_at REAL,                     -- NULL while recording or after a crash
            label TEXT,
            operator TEXT,
            band_low_hz REAL,
            band_high_hz REAL,
            bin_width_hz REAL,
            requested_frame_rate REAL,           -- [frames/s]; NULL = every frame delivered
            achieved_frame_rate REAL,            -- [frames/s]
            frames INTEGER NOT NULL DEFAULT 0,
            dropped_blocks INTEGER NOT NULL DEFAULT 0,   -- by the device pipeline
            dropped_frames INTEGER NOT NULL DEFAULT 0    -- by the recorder's queue
        );
        CREATE TABLE frames (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            timestamp REAL NOT NULL,             -- Unix time [s, UTC]
            start_hz REAL NOT NULL,              -- lower edge of bin 0 [Hz]
            bin_width_hz REAL NOT NULL,          -- [Hz]
            bin_count INTEGER NOT NULL,
            power BLOB NOT NULL,                 -- bin_count little-endian Float32 [dB]
            noise_bandwidth_hz REAL              -- the FFT window's noise bandwidth [Hz]; NULL if unknown
        );
        CREATE INDEX frames_by_time ON frames(timestamp);
        \(gapsTable)
        \(rowsTable)
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(version);
        """

    /// Times the device delivered nothing (stalled, unplugged, reconnecting)
    /// during a session; frames resume after `to_ts`. Created also in files
    /// written before the table existed, when they are appended to.
    static let gapsTable = """
        CREATE TABLE IF NOT EXISTS gaps (
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            from_ts REAL NOT NULL,               -- last frame before the gap, Unix time [s, UTC]
            to_ts REAL NOT NULL,                 -- first frame after it
            reason TEXT NOT NULL
        );
        """

    /// The rows a frame was imported from (rtl_power hops, hackrf_sweep lines
    /// or `-B` records: order, edges, step, samples, per-row times), so that
    /// converting it back gives the file it came from (`SweepRowCoding`).
    /// Frames recorded from a device have none. Created also in older files
    /// when they are appended to; readers that do not know it ignore it.
    static let rowsTable = """
        CREATE TABLE IF NOT EXISTS frame_rows (
            frame_id INTEGER PRIMARY KEY REFERENCES frames(id),
            layout BLOB NOT NULL                 -- SweepRowCoding
        );
        """

    /// Metadata keys, one per `CaptureMetadata` field.
    enum Key: String, CaseIterable {
        case format, device, serial, gains, spanLowHz = "span_low_hz", spanHighHz = "span_high_hz"
        case binWidthHz = "bin_width_hz", label, operatorName = "operator"
        case utcOffsetSeconds = "utc_offset_seconds", writerVersion = "tscope_version"
        case frequencyOffsetHz = "frequency_offset_hz", spectrumInverted = "spectrum_inverted"
    }

    static func rows(of metadata: CaptureMetadata) -> [(Key, String)] {
        var rows: [(Key, String)] = [(.format, metadata.format)]
        func add(_ key: Key, _ value: String?) { if let value { rows.append((key, value)) } }
        add(.device, metadata.device)
        add(.serial, metadata.serial)
        add(.gains, metadata.gains)
        add(.spanLowHz, metadata.span.map { "\($0.lowerHz)" })
        add(.spanHighHz, metadata.span.map { "\($0.upperHz)" })
        add(.binWidthHz, metadata.binWidthHz.map { "\($0)" })
        add(.label, metadata.label)
        add(.operatorName, metadata.operatorName)
        add(.utcOffsetSeconds, metadata.utcOffsetSeconds.map { "\($0)" })
        add(.writerVersion, metadata.writerVersion)
        add(.frequencyOffsetHz, metadata.conversion.map { "\($0.offsetHz)" })
        add(.spectrumInverted, metadata.conversion.map { $0.inverted ? "1" : "0" })
        return rows
    }

    static func metadata(from values: [String: String]) -> CaptureMetadata {
        var metadata = CaptureMetadata(format: values[Key.format.rawValue] ?? "tscope")
        metadata.device = values[Key.device.rawValue]
        metadata.serial = values[Key.serial.rawValue]
        metadata.gains = values[Key.gains.rawValue]
        if let low = values[Key.spanLowHz.rawValue].flatMap(Double.init),
           let high = values[Key.spanHighHz.rawValue].flatMap(Double.init) {
            metadata.span = FrequencyRange(lowerHz: low, upperHz: high)
        }
        metadata.binWidthHz = values[Key.binWidthHz.rawValue].flatMap(Double.init)
        metadata.label = values[Key.label.rawValue]
        metadata.operatorName = values[Key.operatorName.rawValue]
        metadata.utcOffsetSeconds = values[Key.utcOffsetSeconds.rawValue].flatMap { Int($0) }
        metadata.writerVersion = values[Key.writerVersion.rawValue]
        if let offset = values[Key.frequencyOffsetHz.rawValue].flatMap(Double.init), offset.isFinite {
            metadata.conversion = FrequencyConversion(offsetHz: offset,
                                                      inverted: values[Key.spectrumInverted.rawValue] == "1")
        }
        return metadata
    }
}
