/// A closed band of frequencies, lower < upper, both in hertz.
public struct FrequencyRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// lower edge [Hz]
    public var lowerHz: Double
    /// upper edge [Hz]
    public var upperHz: Double

    /// Creates a band; returns nil unless lower < upper and both are finite.
    public init?(lowerHz: Double, upperHz: Double) {
        guard lowerHz.isFinite, upperHz.isFinite, lowerHz < upperHz else { return nil }
        self.lowerHz = lowerHz
        self.upperHz = upperHz
    }

    /// width of the band [Hz]
    public var spanHz: Double { upperHz - lowerHz }
    /// centre of the band [Hz]
    public var centerHz: Double { (lowerHz + upperHz) / 2 }

    public var description: String {
        "\(FrequencyFormat.label(lowerHz))–\(FrequencyFormat.label(upperHz))"
    }
}

/// Human labels for frequencies: picks Hz, kHz, MHz or GHz and trims zeros.
public enum FrequencyFormat {
    /// "88.1 MHz", "2.4 GHz", "781.25 Hz"
    public static func label(_ hz: Double, maxFractionDigits: Int = 3) -> String {
        let (value, unit) = scaled(hz)
        return "\(trimmed(value, maxFractionDigits: maxFractionDigits)) \(unit)"
    }

    /// The value in the unit that keeps it in [1, 1000), and that unit's name.
    public static func scaled(_ hz: Double) -> (Double, String) {
        let magnitude = abs(hz)
        if magnitude >= 1e9 { return (hz / 1e9, "GHz") }
        if magnitude >= 1e6 { return (hz / 1e6, "MHz") }
        if magnitude >= 1e3 { return (hz / 1e3, "kHz") }
        return (hz, "Hz")
    }

    /// Fixed-point text with trailing zeros removed: 88.100 → "88.1", 2.000 → "2".
    public static func trimmed(_ value: Double, maxFractionDigits: Int) -> String {
        var scale = 1.0
        for _ in 0..<maxFractionDigits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = String(rounded)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text == "-0" ? "0" : text
    }
}
