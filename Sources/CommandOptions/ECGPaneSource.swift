import ArgumentParser
import Runs

/// `watch --ecg SOURCE`: what the pane beside the spectrum reads. A path or
/// "synthetic" opens as `ecg watch SOURCE` with no options; `ble:TARGET`
/// reads a Bluetooth LE sensor as `ecg watch --ble TARGET` does, with the
/// options that matter for one after commas:
/// `ble:Kardia-ECG,rate=360`, `ble:C0:FF:EE:00:00:02,profile=polar,adapter=hci1`.
public enum ECGPaneSource {
    /// the prefix that names a Bluetooth sensor
    public static let bluetoothPrefix = "ble:"

    /// The request and the path (nil for a sensor) `--ecg spec` names.
    public static func parse(_ spec: String) throws -> (request: ECGSourceRequest, path: String?) {
        guard spec.hasPrefix(bluetoothPrefix) else {
            return (try ECGSourceOptions.parse([]).request, spec)
        }
        var parts = spec.dropFirst(bluetoothPrefix.count).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let target = parts.removeFirst()
        guard !target.isEmpty else {
            throw CommandError("--ecg \(spec): expected ble:ADDRESS or ble:NAME (e.g. ble:\"Polar H10 8AA87D20\")")
        }
        var arguments = ["--ble", target]
        for part in parts {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            let options = ["rate": "--rate", "profile": "--ble-profile", "adapter": "--ble-adapter", "scan-time": "--scan-time"]
            guard pair.count == 2, let option = options[pair[0]] else {
                throw CommandError("--ecg \(spec): \"\(part)\" is not one of rate=HZ, profile=kardia|polar|hrs, adapter=NAME, scan-time=S")
            }
            arguments += [option, pair[1]]
        }
        let options: ECGSourceOptions
        do {
            options = try ECGSourceOptions.parse(arguments)
            try options.validate(sourcePath: nil)
        } catch let error as ValidationError {
            throw CommandError("--ecg \(spec): \(error.message)")
        } catch {
            throw CommandError("--ecg \(spec): \(ECGSourceOptions.message(for: error))")
        }
        return (options.request, nil)
    }
}
