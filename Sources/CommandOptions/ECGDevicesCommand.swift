import ArgumentParser
import Foundation
import Runs

/// `tscope ecg devices --ble`: the Bluetooth LE sensors a scan finds. A command
/// kept beside the options it shares (the executable lists it under `ecg`).
public struct ECGDevicesCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List ECG and heart-rate sensors: Bluetooth LE devices a scan finds, with the profiles each offers.",
        discussion: """
            One line per device: name, address, RSSI [dBm] of its last advertisement ("-" when it was not heard in \
            this scan) and the profiles it offers: kardia (the Kardia-style board), hrs (Heart Rate Service), polar \
            (Polar Measurement Data, a Polar H10's raw ECG). Read one with `ecg monitor --ble ADDRESS|NAME`. \
            BlueZ on the system bus (DBUS_SYSTEM_BUS_ADDRESS when set); Docs/bluetooth.md has pairing and permissions.
            """
    )

    public init() {}

    @Flag(help: "Scan for Bluetooth LE devices (through BlueZ).")
    public var ble = false

    @Option(name: .customLong("ble-adapter"), help: ArgumentHelp("The adapter to scan with (hci0; default the first powered one).", valueName: "name"))
    public var bleAdapter: String?

    @Option(name: .customLong("scan-time"), help: "How long to scan [s].")
    public var scanTime: Double = 5

    public func validate() throws {
        guard ble else { throw ValidationError("ecg devices lists Bluetooth LE sensors: give --ble") }
        guard scanTime.isFinite, scanTime > 0, scanTime <= 600 else { throw ValidationError("--scan-time \(scanTime): expected 0 to 600 s") }
    }

    public func run() throws {
        do {
            print(try BluetoothDevicesRun(adapter: bleAdapter, scanSeconds: scanTime).run())
        } catch let error as CommandError {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
