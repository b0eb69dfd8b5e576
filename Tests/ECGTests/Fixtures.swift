import Foundation

/// Paths of the test fixtures, found from this file's location.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    static let mitdb100 = directory + "/mitdb-100/100"
    static let ptb = directory + "/ptbdb-s0010_re/s0010_re"
    static let e0103 = directory + "/edb-e0103-csv/e0103.csv"
    static let polarExcerpt = directory + "/polar-h10-csv/ecg-excerpt.csv"
    static let mitdb105Excerpt = directory + "/mitdb-105-250hz-excerpt/105"

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "ecgtests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
