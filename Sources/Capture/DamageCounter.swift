/// Readers that skip recoverable damage say what the first skipped record was,
/// so a command can warn "skipped 3 damaged lines (first: file:12: …)".
public protocol DamageReporting: AnyObject {
    /// the first record skipped as damaged, if any
    var firstSkipped: CaptureError? { get }
}

/// Counts recoverable damage, or throws it when the reader is strict.
struct DamageCounter {
    let strict: Bool
    private(set) var skipped = 0
    private(set) var first: CaptureError?

    init(strict: Bool) {
        self.strict = strict
    }

    mutating func record(_ error: CaptureError) throws {
        if strict { throw error }
        skipped += 1
        if first == nil { first = error }
    }
}
