import Foundation
import Testing
@testable import ECG
import Signals

@Suite struct WFDBSignalTests {
    /// Scalar reference encoder for format 212, written from the specification.
    static func encode212(_ samples: [Int16]) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = 0
        while index < samples.count {
            let first = UInt16(bitPattern: samples[index]) & 0x0FFF
            let second = index + 1 < samples.count ? UInt16(bitPattern: samples[index + 1]) & 0x0FFF : 0
            bytes.append(UInt8(first & 0xFF))
            bytes.append(UInt8(first >> 8) | UInt8(second >> 8) << 4)
            if index + 1 < samples.count { bytes.append(UInt8(second & 0xFF)) }
            index += 2
        }
        return bytes
    }

    static func encode16(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    @Test(arguments: [212, 16])
    func decodesInterleavedSignalsLikeTheReferenceEncoder(format: Int) throws {
        var random = SeededRandom(seed: UInt64(format))
        let signals = 3, frames = 101 // odd total: 212's last pair is half full
        let values = (0..<(signals * frames)).map { _ in Int16(Int(random.next() % 4096) - 2048) }
        let bytes = format == 212 ? Self.encode212(values) : Self.encode16(values)
        let decoded = try bytes.withUnsafeBytes {
            try WFDBSignalDecoder.decode($0, format: format, signalCount: signals, byteOffset: 0, frameCount: frames, file: "t.dat")
        }
        for signal in 0..<signals {
            #expect(decoded[signal] == stride(from: signal, to: values.count, by: signals).map { values[$0] })
        }
    }

    @Test func readsMITBIH100InMillivolts() throws {
        let record = try WFDBRecordReader.read(path: Fixture.mitdb100)
        #expect(record.leadNames == ["MLII", "V5"])
        #expect(record.sampleRate == 360)
        #expect(record.frameCount == 650_000)
        // first samples as PhysioNet's tools print them: (995 − 1024) / 200, (1011 − 1024) / 200
        #expect(abs(record.samples[0][0] - -0.145) < 1e-6)
        #expect(abs(record.samples[1][0] - -0.065) < 1e-6)
    }

    @Test func readsThePTBTwelveLeadRecordFromTwoFiles() throws {
        let record = try WFDBRecordReader.read(path: Fixture.ptb + ".hea")
        #expect(record.leadNames.prefix(6) == ["i", "ii", "iii", "avr", "avl", "avf"])
        #expect(record.leadNames.count == 15)
        #expect(record.frameCount == 38_400)
        #expect(record.sampleRate == 1000)
        #expect(abs(record.samples[0][0] - -489.0 / 2000) < 1e-6)
        #expect(abs(record.samples[14][0] - -18.0 / 2000) < 1e-6)
    }

    /// Writes a one-signal format-16 record into a temp dir and reads it back.
    func readTemporaryRecord(header: String, data: [UInt8], strict: Bool = true) throws -> Result<ECGRecord, ECGError> {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try header.write(toFile: directory + "/t.hea", atomically: true, encoding: .utf8)
        try Data(data).write(to: URL(fileURLWithPath: directory + "/t.dat"))
        do {
            return .success(try WFDBRecordReader.read(path: directory + "/t", strict: strict))
        } catch let error as ECGError {
            return .failure(ECGError(file: (error.file as NSString).lastPathComponent, location: error.location, error.detail))
        }
    }

    @Test func shortDataIsAnErrorAtTheEndOfTheFile() throws {
        let result = try readTemporaryRecord(header: "t 1 250 10\nt.dat 16 200 12 0 0 0 0 ECG\n", data: Self.encode16([1, 2, 3]))
        #expect(result.failure?.description == "t.dat: byte 6: data ends after 3 of the 10 samples per signal the header declares")
        // not strict (the commands' default): the 3 complete samples
        let lenient = try readTemporaryRecord(header: "t 1 250 10\nt.dat 16 200 12 0 0 0 0 ECG\n", data: Self.encode16([1, 2, 3]),
                                              strict: false)
        #expect(try lenient.get().frameCount == 3)
    }

    @Test func moreDataThanDeclaredIsAMismatch() throws {
        let result = try readTemporaryRecord(header: "t 1 250 2\nt.dat 16\n", data: Self.encode16([1, 2, 3, 4]))
        #expect(result.failure?.description == "t.dat: byte 4: data holds 4 samples per signal, the header declares 2: wrong sample count or format in the header")
    }

    @Test func unsupportedFormatIsNamed() throws {
        let result = try readTemporaryRecord(header: "t 1 250\nt.dat 310\n", data: [0, 0, 0, 0])
        #expect(result.failure?.description == "t.dat: format 310 not supported (supported: 16, 212)")
    }

    @Test func checksumMismatchIsCaught() throws {
        // checksum of [1, 2, 3] is 6
        let good = try readTemporaryRecord(header: "t 1 250 3\nt.dat 16 200 12 0 1 6 0 ECG\n", data: Self.encode16([1, 2, 3]))
        #expect(good.success?.samples[0] == [0.005, 0.01, 0.015])
        let bad = try readTemporaryRecord(header: "t 1 250 3\nt.dat 16 200 12 0 1 7 0 ECG\n", data: Self.encode16([1, 2, 3]))
        #expect(bad.failure?.detail.hasPrefix("checksum of signal 0 (ECG) in t.dat is 6, the header says 7") == true)
    }

    /// PhysioNet ships the CinC 2017 headers with checksum 0 whatever the data
    /// holds: without --strict the record reads, with one note naming the file.
    @Test func checksumMismatchIsANoteUnlessStrict() throws {
        let directory = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "t 1 250 3\r\nt.dat 16 200 12 0 1 0 0 ECG\r\n".write(toFile: directory + "/t.hea", atomically: true, encoding: .utf8)
        try Data(Self.encode16([1, 2, 3])).write(to: URL(fileURLWithPath: directory + "/t.dat"))
        let recording = try WFDBRecordReader.readRecording(path: directory + "/t")
        #expect(recording.signals[0].digital == [1, 2, 3])
        #expect(recording.notes == ["checksum of signal 0 (ECG) in t.dat is 6, the header says 0; read anyway "
            + "(a placeholder such as PhysioNet's 0, or damaged data; --strict refuses it)"])
        #expect(throws: ECGError.self) { try WFDBRecordReader.readRecording(path: directory + "/t", strict: true) }
    }

    @Test func missingSamplesBecomeNaN() throws {
        let result = try readTemporaryRecord(header: "t 1 250 2\nt.dat 16\n", data: Self.encode16([Int16.min, 200]))
        let samples = try #require(result.success?.samples[0])
        #expect(samples[0].isNaN)
        #expect(samples[1] == 1)
    }

    @Test func missingFileIsNamed() {
        #expect(throws: ECGError(file: "/nonexistent/r.hea", "no such file")) {
            try WFDBRecordReader.read(path: "/nonexistent/r")
        }
    }
}

extension Result {
    var success: Success? { if case .success(let value) = self { value } else { nil } }
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
