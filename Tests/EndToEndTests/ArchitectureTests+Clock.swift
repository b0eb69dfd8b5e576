import Foundation
import Testing

/// Issue 43, "one clock": time is read through a `MonotonicClock`
/// (ThreadKit), the one `ManualClock` lives in ThreadKitTesting, which no
/// target in Sources depends on, and unit tests do not sleep on the wall
/// clock. Each exception is listed with its reason; a new one fails here.
extension ArchitectureTests {
    /// files outside ThreadKit that may still read the machine's monotonic time directly, and why
    static let directTimeReaders: [String: String] = [
        "Devices/RTLSDR/RTLSDRHopCollector.swift": "a semaphore's timeout (DispatchTime), not a time acted on",
        "USBDriver/EmulatedTransport.swift": "a bulk transfer's timeout (DispatchTime), not a time acted on",
        "USBDriver/EmulatorSocketServer.swift": "a bulk transfer's timeout (DispatchTime), not a time acted on",
    ]

    /// sleeps left in unit tests (outside EndToEndTests), per file, and why: each paces a fake, none
    /// waits for a result (those wait on a condition, bounded, or move a `ManualClock`)
    static let unitTestSleeps: [String: (count: Int, reason: String)] = [
        "DevicesTests/ReconnectTests.swift": (4, "the scripted analyzer's pace (a frame every 2 ms, a retune and "
            + "a stop that take a moment) and the retuner's, in the one race that needs real threads"),
        "DevicesTests/EmulatorTestTransport.swift": (1, "the fake transport's thread polling its emulator, as "
            + "libusb's event thread would"),
        "RemoteTests/SensorStreamTests.swift": (1, "the made-up analyzer's sweep rate, feeding real gRPC streams"),
        "ThreadKitTests/DropOldestRingTests.swift": (2, "a stress test's producer and consumer pausing to interleave"),
    ]

    /// a call that reads the monotonic clock, or hands `monotonicSeconds` on as a clock
    static let timeRead = #"monotonicSeconds\(\)|:\s*monotonicSeconds\s*[,)]|CLOCK_MONOTONIC|DispatchTime\.now\(\)"#
    /// a sleep on the wall clock (not a `MonotonicClock`'s `sleep(until:)`)
    static let wallClockSleep = #"(?<![.\w])(usleep|nanosleep|sleep)\(|Thread\.sleep|Task\.sleep"#

    /// (path under `directory`, matches) for the Swift files with code lines matching `pattern`
    static func codeMatches(of pattern: String, under directory: URL) throws -> [String: Int] {
        var found: [String: Int] = [:]
        for file in try PackageGraph.swiftFiles(under: directory) {
            let relative = String(file.path.dropFirst(directory.path.count + 1))
            let code = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            let count = PackageGraph.matches(pattern, in: code).count
            if count > 0 { found[relative] = count }
        }
        return found
    }

    @Test func timeIsReadThroughAMonotonicClock() throws {
        let sources = Paths.packageRoot.appendingPathComponent("Sources")
        let readers = try Self.codeMatches(of: Self.timeRead, under: sources)
            .filter { !$0.key.hasPrefix("ThreadKit/") && !$0.key.hasPrefix("ThreadKitTesting/") }
        let unlisted = readers.keys.filter { Self.directTimeReaders[$0] == nil }.sorted()
        #expect(unlisted.isEmpty, "read the time through a MonotonicClock (ThreadKit) in \(unlisted)")
        let stale = Self.directTimeReaders.keys.filter { readers[$0] == nil }.sorted()
        #expect(stale.isEmpty, "no longer read the time directly: take them off the list \(stale)")
        // and the tests: bounded waits read SystemClock or ThreadKitTesting, never Signals' `monotonicSeconds()`
        for tests in ["Tests", "Fuzz"] {
            let readers = try Self.codeMatches(of: #"monotonicSeconds\(\)"#,
                                               under: Paths.packageRoot.appendingPathComponent(tests))
            #expect(readers.isEmpty, "\(readers.keys.sorted())")
        }
    }

    @Test func unitTestsDoNotSleepOnTheWallClock() throws {
        var found: [String: Int] = [:]
        for tests in ["Tests", "Fuzz"] {
            for (file, count) in try Self.codeMatches(of: Self.wallClockSleep,
                                                      under: Paths.packageRoot.appendingPathComponent(tests))
            where !file.hasPrefix("EndToEndTests/") {
                found[file] = count
            }
        }
        let allowed = Self.unitTestSleeps.mapValues(\.count)
        // the fix for a new one: wait on a condition (ThreadKitTesting's waitForCondition) or move a ManualClock
        #expect(found == allowed, "sleeps in unit tests \(found.sorted { $0.key < $1.key }); allowed \(allowed)")
    }

    @Test func theManualClockIsForTestsOnly() throws {
        let package = try PackageGraph.load()
        let sourcesUsingIt = package.targets.values
            .filter { $0.dependencies.contains("ThreadKitTesting") && !$0.path.path.contains("/Tests/") }
            .map(\.name)
        #expect(sourcesUsingIt.isEmpty, "\(sourcesUsingIt)")
        #expect(package.targets["ThreadKitTesting"]?.dependencies == ["ThreadKit"])
        // one ManualClock: no test declares its own
        var declarations: [String] = []
        for root in ["Sources", "Tests"] {
            let directory = Paths.packageRoot.appendingPathComponent(root)
            for (file, _) in try Self.codeMatches(of: #"(class|struct)\s+\w*(Manual|Fake)\w*Clock\b"#, under: directory) {
                declarations.append("\(root)/\(file)")
            }
        }
        #expect(declarations == ["Sources/ThreadKitTesting/ManualClock.swift"], "\(declarations)")
    }

    @Test func theTimePatternsMatchWhatTheyMean() {
        // (split, so that this file does not read as a caller itself)
        #expect(PackageGraph.matches(Self.timeRead, in: "let t = monotonic" + "Seconds()").count == 1)
        #expect(PackageGraph.matches(Self.timeRead, in: "feed.drain(into: &m, clock: monotonicSeconds)").count == 1)
        #expect(PackageGraph.matches(Self.timeRead, in: "func rate(at monotonicSeconds: Double)").isEmpty)
        #expect(PackageGraph.matches(Self.wallClockSleep, in: "usleep(1_000); Thread.sleep(forTimeInterval: 1)").count == 2)
        #expect(PackageGraph.matches(Self.wallClockSleep, in: "try await Task.sleep(nanoseconds: 1)").count == 1)
        #expect(PackageGraph.matches(Self.wallClockSleep, in: "try await clock.sleep(until: deadline)").isEmpty)
    }
}
