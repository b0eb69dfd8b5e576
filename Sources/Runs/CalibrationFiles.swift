import Devices
import Foundation
import Signals

/// Which calibration a command applies (`--calibration`).
public enum CalibrationChoice: Sendable, Equatable {
    /// the one made for this analyzer's model and serial in the calibration folder, if there is one
    case automatic
    /// none: levels stay as the analyzer gives them
    case none
    /// this file, refused unless it was made for this analyzer
    case file(String)

    /// `none`, or a file path
    public init(argument: String) {
        self = argument == "none" ? .none : .file(argument)
    }

    /// The table that applies to `analyzer`, read and checked; nil for none.
    public func table(for analyzer: SelectedAnalyzer) throws -> CalibrationTable? {
        switch self {
        case .none:
            return nil
        case .automatic:
            let path = CalibrationFiles.defaultPath(model: analyzer.kind.model,
                                                   serial: CalibrationFiles.serial(of: analyzer))
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            return try CalibrationFiles.read(path, for: analyzer)
        case .file(let path):
            return try CalibrationFiles.read(path, for: analyzer)
        }
    }
}

/// Where calibrations live and how one is matched to an analyzer.
public enum CalibrationFiles {
    /// `${XDG_CONFIG_HOME:-~/.config}/tscope/calibration`
    public static var directory: String {
        let environment = ProcessInfo.processInfo.environment
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return config + "/tscope/calibration"
    }

    /// the serial a calibration names: the USB serial, or "demo" for a built-in demo device
    public static func serial(of analyzer: SelectedAnalyzer) -> String {
        analyzer.isDemo ? "demo" : (analyzer.serial ?? "")
    }

    /// "…/hackrf-one-0000000000000000457863c8240e2f4f.csv", "…/hackrf-one-demo.csv"
    public static func defaultPath(model: String, serial: String) -> String {
        let slug = (model + "-" + (serial.isEmpty ? "no-serial" : serial)).lowercased().map { character -> Character in
            character.isLetter || character.isNumber ? character : "-"
        }
        return directory + "/" + String(slug) + ".csv"
    }

    /// Reads `path` and checks it was made for `analyzer` (model and serial).
    static func read(_ path: String, for analyzer: SelectedAnalyzer) throws -> CalibrationTable {
        let table = try CalibrationTable.read(path: path)
        let serial = serial(of: analyzer)
        guard table.model == analyzer.kind.model, table.serial == serial else {
            throw CommandError("calibration \(path) was made for \(table.model) serial \(table.serial), not this "
                + "\(analyzer.kind.model) (serial \(serial.isEmpty ? "unknown" : serial)); "
                + "give --calibration none, or calibrate this one (`tscope calibrate`)")
        }
        return table
    }
}
