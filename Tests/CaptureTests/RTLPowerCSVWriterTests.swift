import Foundation
import Testing
@testable import Capture

@Suite struct RTLPowerCSVWriterTests {
    /// Writes through a temporary file and returns the text.
    func written(_ body: (RTLPowerCSVWriter) throws -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("rtlpower-\(UUID().uuidString).csv").path
        defer { unlink(path) }
        let writer = RTLPowerCSVWriter(sink: try OutputSink.file(path: path))
        try body(writer)
        try writer.flush()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Local time of a "YYYY-MM-DD, HH:MM:SS" pair as Unix seconds (mktime, like rtl_power's localtime inverse).
    func unixSeconds(date: String, time: String) throws -> Int {
        let d = date.split(separator: "-").compactMap { Int32($0) }
        let t = time.split(separator: ":").compactMap { Int32($0) }
        try #require(d.count == 3 && t.count == 3)
        var parts = tm()
        parts.tm_year = d[0] - 1900
        parts.tm_mon = d[1] - 1
        parts.tm_mday = d[2]
        parts.tm_hour = t[0]
        parts.tm_min = t[1]
        parts.tm_sec = t[2]
        parts.tm_isdst = -1
        return mktime(&parts)
    }

    @Test func reproducesRealRtlPowerLinesByteForByte() throws {
        let url = try #require(Bundle.module.url(forResource: "rtl_power-nhkfm3-head", withExtension: "csv",
                                                 subdirectory: "Fixtures"))
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        for line in lines {
            let fields = line.components(separatedBy: ", ")
            let low = try #require(Int(fields[2])), high = try #require(Int(fields[3]))
            let step = try #require(Double(fields[4])), samples = try #require(Int(fields[5]))
            let printed = fields[6...].compactMap(Float.init)
            #expect(printed.count == fields.count - 6)
            // the quirk: (high − low)/step + 1 values, the last repeating the one before
            #expect(printed.count == Int(Double(high - low) / step) + 1)
            #expect(printed[printed.count - 1] == printed[printed.count - 2])
            let bins = Array(printed.dropLast())
            let seconds = try unixSeconds(date: fields[0], time: fields[1])
            let ours = try written { writer in
                try bins.withUnsafeBufferPointer {
                    try writer.writeHop(seconds: seconds, lowHz: low, highHz: high, stepHz: step, samples: samples,
                                        values: $0)
                }
            }
            #expect(ours == line + "\n")
        }
    }

    @Test func hopsShareTheReportTimeAndKeepTheirOrder() throws {
        let text = try written { writer in
            for (i, values) in [[Float(-10.5), -11.25], [-20, -21.004], [-Float.infinity, -3]].enumerated() {
                try values.withUnsafeBufferPointer {
                    try writer.writeHop(seconds: 1_700_000_000, lowHz: 88_000_000 + i * 1_000_000,
                                        highHz: 89_000_000 + i * 1_000_000, stepHz: 500_000, samples: 40 + i,
                                        values: $0)
                }
            }
        }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let stamps: Set<String> = Set(lines.map { $0.components(separatedBy: ", ").prefix(2).joined(separator: ", ") })
        #expect(stamps.count == 1)
        let stamp = try #require(stamps.first)
        #expect(stamp.range(of: #"^\d{4}-\d{2}-\d{2}, \d{2}:\d{2}:\d{2}$"#, options: String.CompareOptions.regularExpression) != nil)
        let tails = lines.map { $0.components(separatedBy: ", ").dropFirst(2).joined(separator: ", ") }
        #expect(tails == [
            "88000000, 89000000, 500000.00, 40, -10.50, -11.25, -11.25",
            "89000000, 90000000, 500000.00, 41, -20.00, -21.00, -21.00",
            "90000000, 91000000, 500000.00, 42, -inf, -3.00, -3.00",
        ])
    }

    @Test func anEmptyHopWritesNothing() throws {
        let text = try written { writer in
            try writer.writeHop(seconds: 0, lowHz: 1, highHz: 2, stepHz: 1, samples: 0,
                                values: UnsafeBufferPointer(start: nil, count: 0))
        }
        #expect(text.isEmpty)
    }
}
