/// Why a Bluetooth LE sensor cannot be read, each with one line a user can act on.
public enum BLEError: Error, Equatable, Sendable, CustomStringConvertible {
    /// the system bus cannot be reached
    case noBus(address: String, reason: String)
    /// nobody owns org.bluez on the bus
    case noBluetoothd
    /// BlueZ lists no adapter
    case noAdapter
    /// `--ble-adapter` names none of the adapters
    case adapterNotFound(name: String, available: [String])
    /// the adapter (or every adapter) is powered off
    case adapterPoweredOff(name: String)
    /// no device of that name or address turned up while scanning
    case deviceNotFound(target: String, seconds: Double)
    /// the device wants pairing (or bonding) before it lets tscope read
    case pairingNeeded(device: String, address: String)
    /// the device offers none of the profiles asked for
    case profileMissing(device: String, wanted: String, offered: [BLEProfile])
    /// connecting failed or timed out
    case connectFailed(device: String, reason: String)
    /// the sensor refused to start its measurement (Polar control point)
    case measurementRefused(device: String, reason: String)
    /// the link dropped and did not come back
    case linkLost(device: String, seconds: Double)
    /// any other answer of BlueZ or the bus
    case bus(String)

    public var description: String {
        switch self {
        case .noBus(let address, let reason):
            "cannot reach the system D-Bus at \(address) (\(reason)): is dbus running? (DBUS_SYSTEM_BUS_ADDRESS names another bus)"
        case .noBluetoothd:
            "bluetoothd is not running (nobody owns org.bluez on the system bus): start it with `systemctl start bluetooth`"
        case .noAdapter:
            "no Bluetooth adapter: BlueZ lists none (is one plugged in, and not blocked? `rfkill unblock bluetooth`)"
        case .adapterNotFound(let name, let available):
            "--ble-adapter \(name): no such adapter (BlueZ has \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
        case .adapterPoweredOff(let name):
            "Bluetooth adapter \(name) is powered off: run `bluetoothctl power on`"
        case .deviceNotFound(let target, let seconds):
            "no Bluetooth LE device named or at \(target) found in \(Self.seconds(seconds)) of scanning (is it on, in range and not connected to a phone? `tscope ecg devices --ble` lists what is seen)"
        case .pairingNeeded(let device, let address):
            "\(device) needs pairing first: run `bluetoothctl pair \(address)` and `bluetoothctl trust \(address)`"
        case .profileMissing(let device, let wanted, let offered):
            "\(device) does not offer \(wanted) (it offers \(offered.isEmpty ? "none of kardia, hrs, polar" : offered.map(\.rawValue).joined(separator: ", ")))"
        case .connectFailed(let device, let reason):
            "cannot connect to \(device): \(reason)"
        case .measurementRefused(let device, let reason):
            "\(device) refused to start ECG: \(reason)"
        case .linkLost(let device, let seconds):
            "\(device): the Bluetooth link dropped and did not come back in \(Self.seconds(seconds))"
        case .bus(let text):
            "Bluetooth: \(text)"
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The error that a D-Bus failure of a call about `device` means to a user.
    static func from(_ failure: DBusFailure, device: String? = nil, address: String = "") -> BLEError {
        switch failure.name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .noBluetoothd
        case "org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationRejected",
             "org.bluez.Error.AuthenticationCanceled", "org.bluez.Error.NotAuthorized",
             "org.bluez.Error.NotPermitted":
            if let device { return .pairingNeeded(device: device, address: address) }
        default:
            // BlueZ reports ATT's insufficient authentication/encryption inside a Failed's message
            let lower = failure.message.lowercased()
            if let device, lower.contains("authentication") || lower.contains("encryption") || lower.contains("not paired") {
                return .pairingNeeded(device: device, address: address)
            }
        }
        if let device { return .connectFailed(device: device, reason: failure.description) }
        return .bus(failure.description)
    }
}
