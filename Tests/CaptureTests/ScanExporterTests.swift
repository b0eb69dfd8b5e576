import Foundation
import Signals
import Testing
@testable import Capture

/// `export --scan-format wwb|wsm` (issue 44) on the real NHK-FM capture: the
/// max-hold trace in each coordination tool's layout, checked against a
/// plain reading of the file's text.
@Suite struct ScanExporterTests {
    /// per bin (rtl_power's 128 values a line, the repeated last left out) the loudest over the file
    static func maxima() throws -> [Float] {
        let lines = try String(contentsOfFile: Fixtures.path(Fixtures.osakaFiles[0]), encoding: .utf8).split(separator: "\n")
        var maxima = [Float](repeating: -.infinity, count: 128)
        for line in lines {
            let values = line.split(separator: ",").dropFirst(6).dropLast().map { Float($0.trimmingCharacters(in: .whitespaces))! }
            for (i, value) in values.enumerated() { maxima[i] = max(maxima[i], value) }
        }
        return maxima
    }

    func export(_ layout: ScanExporter.Layout, maxPoints: Int? = nil) throws -> [String] {
        let directory = try TemporaryDirectory("scan")
        defer { directory.remove() }
        let output = directory.path("scan.csv")
        let input = Fixtures.path(Fixtures.osakaFiles[0])
        let summary = try ScanExporter.export(try RTLPowerCSVReader(path: input, options: utc), layout: layout,
                                              maxPoints: maxPoints, to: output, input: input)
        #expect(summary.sweeps == 299)
        return try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    @Test func wirelessWorkbenchGetsMHzAndLevelPairs() throws {
        let maxima = try Self.maxima()
        let lines = try export(.wwb)
        #expect(lines.last == "")
        let rows = lines.dropLast()
        try #require(rows.count == 128)
        for (i, row) in rows.enumerated() {
            let fields = row.split(separator: ",")
            #expect(fields.count == 2 && row.range(of: #"^\d+\.\d{3},-?\d+\.\d{2}$"#, options: .regularExpression) != nil, "\(row)")
            // rtl_power's value i is centred on Hz low + i·step
            #expect(fields[0] == String(format: "%.3f", (88_050_000 + Double(i) * 781.25) / 1e6))
            #expect(fields[1] == String(format: "%.2f", maxima[i]))
        }
    }

    @Test func wirelessSystemsManagerGetsItsHeaderAndKHzRows() throws {
        let maxima = try Self.maxima()
        let lines = try export(.wsm)
        #expect(lines[0] == "Receiver;" && lines[2] == "RFUnit;dBm" && lines[11] == "ScanName;nhkfm3.csv")
        #expect(lines[1] == "Date/Time;2018-11-18 12:31:45")
        #expect(lines[13] == "Frequency Range [kHz];88050;88149;128")
        #expect(lines[14] == "Frequency;RF level (%);RF level")
        let rows = lines[15...].dropLast()
        try #require(rows.count == 128)
        for (i, row) in rows.enumerated() {
            let fields = row.split(separator: ";", omittingEmptySubsequences: false)
            #expect(fields.count == 3 && fields[1].isEmpty)
            #expect(Int(fields[0]) == Int(((88_050_000 + Double(i) * 781.25) / 1000).rounded()))
            #expect(fields[2] == String(format: "%.2f", maxima[i]).replacingOccurrences(of: ".", with: ","))
        }
    }

    @Test func fewerPointsKeepEachGroupsLoudestBin() throws {
        let maxima = try Self.maxima()
        let rows = try export(.wwb, maxPoints: 10).dropLast()
        #expect(rows.count == 10)  // groups of 13 bins
        for (group, row) in rows.enumerated() {
            let bins = (group * 13)..<min(128, group * 13 + 13)
            let loudest = bins.max { maxima[$0] < maxima[$1] }!
            #expect(row == String(format: "%.3f,%.2f", (88_050_000 + Double(loudest) * 781.25) / 1e6, maxima[loudest]))
        }
    }
}
