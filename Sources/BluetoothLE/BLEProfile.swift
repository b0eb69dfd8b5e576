/// The three kinds of ECG and heart-rate peripheral tscope reads, told apart by
/// the GATT services a device offers. BlueZ writes UUIDs in lower case; every
/// comparison here is on the lower-case form.
public enum BLEProfile: String, CaseIterable, Sendable {
    /// the Kardia-style board: float32 samples [mV] on one notify characteristic
    case kardia
    /// the Bluetooth SIG Heart Rate Service: heart rate and RR intervals
    case hrs
    /// Polar Measurement Data (Polar H10): raw ECG [µV] at 130 Hz
    case polar

    /// the primary service that marks the profile
    public var serviceUUID: String {
        switch self {
        case .kardia: BLEUUID.kardiaService
        case .hrs: BLEUUID.heartRateService
        case .polar: BLEUUID.polarPMDService
        }
    }

    /// the characteristic whose notifications carry the data
    public var dataCharacteristicUUID: String {
        switch self {
        case .kardia: BLEUUID.kardiaData
        case .hrs: BLEUUID.heartRateMeasurement
        case .polar: BLEUUID.polarPMDData
        }
    }

    /// whether the profile streams ECG samples (else RR intervals only)
    public var streamsSamples: Bool { self != .hrs }

    /// The best of the offered profiles: raw ECG first (Polar's 130 Hz, the board's
    /// float stream), the heart rate last (a Polar H10 offers both PMD and HRS).
    public static func best(of offered: [BLEProfile]) -> BLEProfile? {
        [.polar, .kardia, .hrs].first { offered.contains($0) }
    }

    /// The profiles a list of service UUIDs offers (any case, 16-bit or 128-bit form).
    public static func offered(byServices uuids: [String]) -> [BLEProfile] {
        let normalised = Set(uuids.map(BLEUUID.normalised))
        return allCases.filter { normalised.contains($0.serviceUUID) }
    }
}

/// GATT UUIDs as BlueZ writes them: 128-bit, lower case.
public enum BLEUUID {
    /// the Kardia-style board's service and its notify characteristic (samples)
    public static let kardiaService = "713d0000-503e-4c75-ba94-3148f18d941e"
    public static let kardiaData = "713d0002-503e-4c75-ba94-3148f18d941e"
    /// Heart Rate Service 0x180D and Heart Rate Measurement 0x2A37 (Bluetooth SIG assigned numbers)
    public static let heartRateService = "0000180d-0000-1000-8000-00805f9b34fb"
    public static let heartRateMeasurement = "00002a37-0000-1000-8000-00805f9b34fb"
    /// Polar Measurement Data: service, control point, data (Polar BLE SDK, PMD documentation)
    public static let polarPMDService = "fb005c80-02e7-f387-1cad-8acd2d8df0c8"
    public static let polarPMDControlPoint = "fb005c81-02e7-f387-1cad-8acd2d8df0c8"
    public static let polarPMDData = "fb005c82-02e7-f387-1cad-8acd2d8df0c8"

    /// Lower case, and a 16-bit short form ("180D", "0x2a37") widened with the
    /// Bluetooth base UUID 0000xxxx-0000-1000-8000-00805F9B34FB.
    public static func normalised(_ uuid: String) -> String {
        var text = uuid.lowercased()
        if text.hasPrefix("0x") { text.removeFirst(2) }
        if text.count == 4, text.allSatisfy(\.isHexDigit) {
            return "0000\(text)-0000-1000-8000-00805f9b34fb"
        }
        return text
    }
}
