import Foundation
import GRDB
import Signals
import Testing
@testable import Capture

/// Outputs appear whole or not at all (issue 10 point 4).
@Suite struct AtomicOutputTests {
    @Test func aTemporaryFileBesideTheTargetIsRenamedOnCommitAndRemovedOtherwise() throws {
        let directory = try TemporaryDirectory("atomic")
        defer { directory.remove() }
        let target = directory.path("out.csv")
        try Data("before\n".utf8).write(to: URL(fileURLWithPath: target))
        let output = AtomicOutput(target: target)
        #expect(URL(fileURLWithPath: output.path).deletingLastPathComponent().path == directory.url.path)
        #expect(URL(fileURLWithPath: output.path).lastPathComponent.hasPrefix(".out.csv.partial-"))
        try Data("after\n".utf8).write(to: URL(fileURLWithPath: output.path))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "before\n")
        try output.commit()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "after\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["out.csv"])

        // dropped without commit: gone, companions too, the target untouched
        do {
            let abandoned = AtomicOutput(target: target)
            for suffix in ["", "-wal", "-shm"] {
                try Data("x".utf8).write(to: URL(fileURLWithPath: abandoned.path + suffix))
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["out.csv"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "after\n")
    }

    @Test func devicesAndStdoutAreWrittenInPlace() {
        #expect(AtomicOutput(target: "/dev/null").path == "/dev/null")
        #expect(AtomicOutput(target: "-").path == "-")
        #expect(!AtomicOutput.writesInPlace("/nonexistent/dir/x.csv"))
    }

    @Test func anAbandonedSessionLeavesTheStoreAsItWas() throws {
        let directory = try TemporaryDirectory("atomic-store")
        defer { directory.remove() }
        let store = directory.path("s.tscope")
        let original = try readAll(try RTLPowerCSVReader(path: Fixtures.path(Fixtures.osakaFiles[0]), options: utc))
        let first = try CaptureFormat.tscope.openAtomicWriter(path: store)
        for frame in original.prefix(50) { try first.write(frame) }
        try first.finish()

        let second = try CaptureFormat.tscope.openAtomicWriter(path: store)
        for frame in original.suffix(200) { try second.write(frame) }
        second.abandon()
        let reader = try CaptureStoreReader(path: store)
        #expect(reader.frameCount == 50)
        #expect(try readAll(reader) == Array(original.prefix(50)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["s.tscope"])
    }

    @Test func aSessionFinishesWhileAReplayReadsTheStore() throws {
        let directory = try TemporaryDirectory("atomic-busy")
        defer { directory.remove() }
        let store = directory.path("s.tscope")
        let original = try readAll(try RTLPowerCSVReader(path: Fixtures.path(Fixtures.osakaFiles[0]), options: utc))
        let first = try CaptureFormat.tscope.openAtomicWriter(path: store)
        for frame in original.prefix(20) { try first.write(frame) }
        try first.finish()
        let second = try CaptureFormat.tscope.openAtomicWriter(path: store)
        for frame in original.suffix(30) { try second.write(frame) }
        // another process reads the store in a transaction of its own: the
        // writer's final switch back from WAL is refused ("database is locked")
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let replay = try DatabaseQueue(path: store, configuration: configuration)
        try replay.inDatabase { db in
            try db.execute(sql: "BEGIN")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frames") == 20)
        }
        try second.finish()
        try replay.inDatabase { db in try db.execute(sql: "COMMIT") }
        try replay.close()
        #expect(try CaptureStoreReader(path: store).frameCount == 50)
    }
}
