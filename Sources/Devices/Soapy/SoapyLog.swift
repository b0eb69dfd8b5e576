import CSoapySDR
import Foundation
import ThreadKit

/// SoapySDR's and its modules' messages, kept off the terminal: a module
/// writing to stderr would scribble over the full-screen views. Overflow
/// marks ("O", SoapySDR's SSI level) are counted by the reader instead;
/// the newest warning or error is kept for the message of a failure.
/// Libraries under a module that print to stderr themselves (librtlsdr's
/// "Found Rafael Micro R820T tuner") are captured around opening.
enum SoapyLog {
    private static let newest = Guarded<String?>(nil)

    /// Installs the handler once (first use of SoapySDR in the process).
    static let installed: Void = {
        SoapySDR_registerLogHandler { level, message in
            guard let message, level.rawValue <= SOAPY_SDR_WARNING.rawValue else { return }
            SoapyLog.newest.withLock { $0 = String(cString: message) }
        }
    }()

    /// the newest warning or error a module logged, taken (nil when none)
    static func takeNewest() -> String? { newest.withLock { $0.take() } }

    /// Runs `body` with the process's stderr sent to a file; returns what was written there, trimmed.
    static func capturingStandardError<T>(_ body: () throws -> T) rethrows -> (T, String) {
        _ = installed
        let path = NSTemporaryDirectory() + "tscope-soapy-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let file = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
        let saved = file >= 0 ? dup(STDERR_FILENO) : -1
        if saved >= 0 {
            fflush(nil)
            dup2(file, STDERR_FILENO)
        }
        defer {
            if saved >= 0 {
                fflush(nil)
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
            if file >= 0 { close(file) }
            unlink(path)
        }
        let result = try body()
        fflush(nil)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return (result, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
