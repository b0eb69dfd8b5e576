import ArgumentParser
import CommandOptions
import Runs
import Testing

/// `--ble` and its companions on the ECG source options, and `ecg devices --ble`.
struct BluetoothOptionsTests {
    @Test func bleOptionsBuildABluetoothRequest() throws {
        let options = try ECGSourceOptions.parse(["--ble", "Polar H10 8AA87D20", "--ble-adapter", "hci1", "--ble-profile", "polar",
                                                  "--scan-time", "3"])
        try options.validate(sourcePath: nil)
        #expect(options.isStream)
        guard case .bluetooth(let request) = options.request.stream else {
            Issue.record("not a Bluetooth request")
            return
        }
        #expect(request.target == "Polar H10 8AA87D20" && request.adapter == "hci1" && request.scanSeconds == 3)
        #expect(request.profile?.rawValue == "polar")
        // the default: the best profile the device offers
        guard case .bluetooth(let plain) = try ECGSourceOptions.parse(["--ble", "c0:ff:ee:00:00:01"]).request.stream else {
            Issue.record("not a Bluetooth request")
            return
        }
        #expect(plain.profile == nil && plain.adapter == nil && plain.scanSeconds == 10)
    }

    @Test func bleOptionsAreChecked() throws {
        func problem(_ arguments: [String], source: String? = nil) throws -> String? {
            do {
                try ECGSourceOptions.parse(arguments).validate(sourcePath: source)
                return nil
            } catch {
                return ECGSourceOptions.message(for: error)
            }
        }
        #expect(try problem(["--ble", "X", "--ble-profile", "kardia"])?.contains("give --rate HZ") == true)
        #expect(try problem(["--ble", "X", "--ble-profile", "kardia", "--rate", "360"]) == nil)
        #expect(try problem(["--ble", "X"], source: "100")?.contains("choose one source") == true)
        #expect(try problem(["--ble-adapter", "hci0"])?.contains("give --ble ADDRESS|NAME") == true)
        #expect(try problem(["--ble", "X", "--scan-time", "0"])?.contains("--scan-time") == true)
        #expect(ECGSourceOptions.message(for: ECGSourceOptionsParseFailure.parse(["--ble-profile", "ecg"])).contains("ecg"))
        #expect(throws: (any Error).self) { try ECGDevicesCommand.parse([]) }
        #expect(try ECGDevicesCommand.parse(["--ble", "--scan-time", "2"]).scanTime == 2)
    }
}

/// A parse that is expected to fail, for its message.
enum ECGSourceOptionsParseFailure {
    static func parse(_ arguments: [String]) -> Error {
        do {
            _ = try ECGSourceOptions.parse(arguments)
            return ValidationError("parsed")
        } catch {
            return error
        }
    }
}
