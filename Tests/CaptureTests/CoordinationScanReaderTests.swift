import Foundation
import Signals
import Testing
@testable import Capture

/// The scan files of wireless-microphone coordination, read from the real
/// files in Fixtures/coordination (PROVENANCE.md there): each to exactly
/// the points it holds, checked against a plain reading of its text here.
@Suite struct CoordinationScanReaderTests {
    static func fixture(_ name: String) -> String { Fixtures.path("coordination/" + name) }

    /// the file's lines without their CR LF or LF
    static func lines(_ name: String) throws -> [Substring] {
        try String(contentsOfFile: fixture(name), encoding: .utf8).split(whereSeparator: \.isNewline)
    }

    /// the one frame of `name`, detected by its extension and first bytes, and its points with data
    func read(_ name: String, as format: CaptureFormat) throws -> (frames: [SpectrumFrame], points: [(hz: Double, dB: Float)]) {
        let path = Self.fixture(name)
        #expect(try CaptureFormat.detect(path: path) == format, "\(name)")
        let reader = try format.openReader(path: path, options: utc)
        #expect(reader.metadata.levelUnit == .dBm)
        let frames = try readAll(reader)
        let first = try #require(frames.first)
        let points = first.powerDB.indices.filter { !first.powerDB[$0].isNaN }.map { (first.binCenterHz($0), first.powerDB[$0]) }
        return (frames, points)
    }

    @Test func wirelessWorkbenchSDB2ReadsEveryPointOfItsDataSet() throws {
        let text = try String(contentsOfFile: Self.fixture("wwb6-ulxd4q-572-636.sdb2"), encoding: .utf8)
        func values(_ tag: String) -> [Double] {
            text.components(separatedBy: "<\(tag)>").dropFirst().map { Double($0.components(separatedBy: "</")[0])! }
        }
        let kHz = values("f"), dBm = values("v")
        #expect(kHz.count == 1281 && dBm.count == 1281)
        let (frames, points) = try read("wwb6-ulxd4q-572-636.sdb2", as: .sdb2)
        try #require(frames.count == 1 && points.count == kHz.count)
        #expect(abs(frames[0].binWidthHz - 50_000) < 1e-6)
        for (point, (f, v)) in zip(points, zip(kHz, dBm)) {
            #expect(abs(point.hz - f * 1000) < 0.01 && point.dB == Float(v), "\(point) vs \(f) kHz \(v) dBm")
        }
        // date_time="1435771945612": Unix ms, UTC
        #expect(frames[0].timestamp == 1_435_771_945.612)
        let reader = try CaptureFormat.sdb2.openReader(path: Self.fixture("wwb6-ulxd4q-572-636.sdb2"), options: utc)
        #expect(reader.metadata.device == "ULXD4Q")
    }

    @Test func wirelessWorkbenchCSVKeepsItsFinerPointsOnAFinerGrid() throws {
        let rows = try Self.lines("wwb-style-572-636-head.csv").map { $0.split(separator: ",") }
        #expect(rows.count == 250)
        let (frames, points) = try read("wwb-style-572-636-head.csv", as: .wwbCSV)
        try #require(frames.count == 1 && points.count == rows.count)
        for (point, row) in zip(points, rows) {
            // four decimals of MHz: a point lies within 50 Hz of what the file prints
            #expect(abs(point.hz - Double(row[0])! * 1e6) <= 50.01 && point.dB == Float(row[1])!, "\(row)")
        }
        // 12.5 kHz steps with 6.25 kHz points added near 572.93 MHz
        #expect(abs(frames[0].binWidthHz - 6_250) < 1e-6)
    }

    @Test func rfExplorerSingleSignalExportIsATwoColumnScan() throws {
        let rows = try Self.lines("rfexplorer-simple-format-cw-1400mhz.csv").map { $0.split(separator: ",") }
        let (frames, points) = try read("rfexplorer-simple-format-cw-1400mhz.csv", as: .wwbCSV)
        try #require(points.count == rows.count && rows.count == 112)
        #expect(abs(frames[0].binWidthHz - 200_000) < 1e-6)
        for (point, row) in zip(points, rows) {
            #expect(abs(point.hz - Double(row[0])! * 1e6) <= 0.5 && point.dB == Float(row[1])!, "\(row)")
        }
    }

    @Test func rfExplorerCumulativeExportIsOneFramePerSweep() throws {
        let lines = try Self.lines("rfexplorer-cumulative-v002-head.csv")
        let columns = lines[5].split(separator: ",").dropFirst(4).map { Double($0)! }
        let rows = lines.dropFirst(6).map { $0.split(separator: ",") }
        #expect(columns.count == 112 && rows.count == 20)
        let (frames, _) = try read("rfexplorer-cumulative-v002-head.csv", as: .rfExplorerCSV)
        try #require(frames.count == rows.count)
        for (frame, row) in zip(frames, rows) {
            try #require(frame.powerDB.count == columns.count)
            #expect(frame.powerDB == row.dropFirst(4).map { Float($0)! })
            #expect(abs(frame.binCenterHz(0) - columns[0] * 1e6) <= 0.5 && abs(frame.binCenterHz(111) - columns[111] * 1e6) <= 0.5)
        }
        // "0,2013-07-23,17:42:34,.282": local time, read here as UTC
        #expect(abs(frames[0].timestamp - 1_374_601_354.282) < 1e-6)
        #expect(frames.map(\.timestamp) == frames.map(\.timestamp).sorted())
    }

    @Test func wsmImportFileReadsItsRowsWhateverItsRangeLineSays() throws {
        let lines = try Self.lines("wsm-import-from-sheets-converter.csv")
        let rows = lines.drop { !$0.hasPrefix("Frequency;") }.dropFirst().map {
            $0.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(rows.count == 112)
        let (frames, points) = try read("wsm-import-from-sheets-converter.csv", as: .wsm)
        try #require(frames.count == 1 && points.count == rows.count)
        for (point, row) in zip(points, rows) {
            #expect(abs(point.hz - Double(row[0])! * 1000) < 0.01 && point.dB == Float(row[2])!, "\(row)")
        }
        // rows 1150 and 1175 kHz apart: a 25 kHz grid holds them all
        #expect(abs(frames[0].binWidthHz - 25_000) < 1e-6)
    }

    @Test func rigolTraceLayoutReadsHertzAndItsUnit() throws {
        let directory = try TemporaryDirectory("rigol")
        defer { directory.remove() }
        // the DSA815 layout: 20-character right-aligned fields
        func row(_ hz: Int, _ level: String, _ unit: String = " dBm") -> String {
            String(repeating: " ", count: 20 - String(hz).count) + "\(hz),Hz,"
                + String(repeating: " ", count: 20 - level.count) + level + ",\(unit),\n"
        }
        let path = directory.path("TRACE1.CSV")
        try Data(("Trace1,\nFreq,,Amp,,\n" + row(495_012_563, "-30.56") + row(496_687_521, "-31.00")
            + row(498_362_479, "-45.25")).utf8).write(to: URL(fileURLWithPath: path))
        #expect(try CaptureFormat.detect(path: path) == .rigolTrace)
        let frames = try readAll(try CaptureFormat.rigolTrace.openReader(path: path, options: utc))
        #expect(frames.count == 1 && frames[0].powerDB == [-30.56, -31.00, -45.25])
        #expect(abs(frames[0].binCenterHz(0) - 495_012_563) <= 0.5 && abs(frames[0].binCenterHz(2) - 498_362_479) <= 0.5)

        try Data(("Trace1,\nFreq,,Amp,,\n" + row(495_012_563, "-30.56") + row(496_687_521, "-31.00", " dBW")).utf8)
            .write(to: URL(fileURLWithPath: path))
        let error = captureError { _ = try readAll(try CaptureFormat.rigolTrace.openReader(path: path, options: utc)) }
        #expect(error?.location == .line(4) && error?.detail.contains("dBm, dBmV or dBuV") == true, "\(String(describing: error))")
    }

    /// Damage gets one line naming the file, where, and what was expected.
    @Test func damagedScansAreRefusedWithWhereAndWhat() throws {
        let directory = try TemporaryDirectory("scan-damage")
        defer { directory.remove() }
        func error(_ name: String, _ bytes: [UInt8]) throws -> CaptureError? {
            let path = directory.path(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return captureError { _ = try readAll(try CaptureFormat.detect(path: path).openReader(path: path, options: utc)) }
        }
        // an .sdb2 cut short in its values
        let sdb2 = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("wwb6-ulxd4q-572-636.sdb2")))
        let cut = try error("cut.sdb2", Array(sdb2.prefix(50_000)))
        #expect(cut?.detail.contains("expected </") == true && cut?.location == .byte(50_000), "\(String(describing: cut))")
        let notWWB = try error("other.sdb2", Array(#"<?xml version="1.0"?><svg width="1"></svg>"#.utf8))
        #expect(notWWB?.detail.contains("expected <scan_data_source>") == true, "\(String(describing: notWWB))")

        var csv = try Self.lines("wwb-style-572-636-head.csv").prefix(5).joined(separator: "\r\n")
        csv += "\r\n571.1000,loud\r\n"
        let badLine = try error("bad.csv", Array(csv.utf8))
        #expect(badLine?.location == .line(6) && badLine?.detail.contains("expected 'MHz,dBm'") == true, "\(String(describing: badLine))")
        // frequencies too far apart for any grid (a fuzz finding: it trapped converting the span to bins)
        let wide = try error("wide.csv", Array("1.0000,-70.0\n77777777777777.0000,-71.0\n".utf8))
        #expect(wide?.detail.contains("no scan is that wide") == true, "\(String(describing: wide))")
        // a frequency printed to 100 decimals: read on a grid no finer than 1 mHz, no trap
        let fine = "571.0500,-77.2\r\n571.06" + String(repeating: "2", count: 100) + "7,-77.4\r\n571.7110,-70.0\r\n"
        let finePath = directory.path("fine.csv")
        try Data(fine.utf8).write(to: URL(fileURLWithPath: finePath))
        _ = captureError { _ = try readAll(try CaptureFormat.wwbCSV.openReader(path: finePath, options: utc)) }
        let backwards = try error("back.csv", Array("571.1000,-70.0\n571.0500,-71.0\n".utf8))
        #expect(backwards?.location == .line(2) && backwards?.detail.contains("increasing") == true)

        // WSM's own export: RF level in % only
        let percent = "Receiver;\r\nRFUnit;dBm\r\nFrequency;RF level (%);RF level\r\n470000;35;\r\n"
        let wsm = try error("wsm.csv", Array(percent.utf8))
        #expect(wsm?.location == .line(4) && wsm?.detail.contains("RF level only in %") == true, "\(String(describing: wsm))")

        // a text the .csv formats do not know: the hint names the text formats, not raw I/Q
        let unknown = try error("unknown.csv", Array("Frequency [MHz] Level\n".utf8))
        let hint = try #require(unknown?.detail)
        #expect(hint.contains("wwb") && hint.contains("wsm") && hint.contains("rfexplorer") && !hint.contains("cu8"), "\(hint)")
    }
}
