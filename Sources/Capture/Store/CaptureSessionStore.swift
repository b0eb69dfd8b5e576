import Signals

/// Where a recording session's frames go: the SQLite capture file
/// (`CaptureStoreWriter`) or a database elsewhere (PostgreSQL). Used by one
/// writer thread at a time.
public protocol CaptureSessionStore: AnyObject, Sendable {
    /// how messages name it: a file's path, a database's URL and session
    var path: String { get }
    /// frames handed to `write`
    var framesWritten: Int { get }
    /// frames committed (safe from a crash)
    var framesStored: Int { get }
    /// the first write error, after which nothing more is stored
    var failure: CaptureError? { get }
    func write(_ frame: SpectrumFrame) throws
    func writeGap(from: Double, to: Double, reason: String) throws
    /// commits when the commit interval has passed since the last commit
    func commitIfDue() throws
    /// commits what is left and records how the session ended
    func finish(outcome: CaptureSessionOutcome?) throws
    /// gives up without finishing (the session could not start)
    func abandon()
}

extension CaptureStoreWriter: CaptureSessionStore {}

/// A capture store that is not a file: it opens a session's store given
/// the metadata, the session row and the commit interval [s].
public struct CaptureDatabase: Sendable, Equatable {
    /// the store as messages name it (a URL without its password)
    public let name: String
    public let open: @Sendable (CaptureMetadata, CaptureSessionInfo, Double) throws -> any CaptureSessionStore

    public init(name: String,
                open: @escaping @Sendable (CaptureMetadata, CaptureSessionInfo, Double) throws -> any CaptureSessionStore) {
        self.name = name
        self.open = open
    }

    public static func == (a: CaptureDatabase, b: CaptureDatabase) -> Bool { a.name == b.name }
}
