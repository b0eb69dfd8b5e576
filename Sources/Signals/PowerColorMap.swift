/// The one colour map for power: near-black navy → dark blue → blue → cyan →
/// green → yellow → red → white, hue and brightness rising together so order
/// reads at a glance (no user choice, DESIGN principle 2). Used by the
/// waterfall, the meter bar, the persistence view and PNG export so a picture
/// and the screen agree.
///
/// The lower third stays dark, as gqrx's and SDR++'s default palettes do: an
/// autoscaled noise floor, peak-held over a waterfall row's frames and a
/// column's bins, lands a tenth to a third of the window up, and there the
/// map is a dim navy texture (sRGB relative luminance ≤ 0.03, where the
/// earlier equal-step map reached 0.3); anything above it stands out in
/// blue, cyan and brighter.
public enum PowerColorMap {
    /// An RGB triple, 0–255 per channel.
    public struct RGB: Sendable, Equatable {
        public var red: UInt8
        public var green: UInt8
        public var blue: UInt8

        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    /// Control points: (normalised level, red, green, blue), levels rising from 0 to 1.
    static let stops: [(level: Double, red: Double, green: Double, blue: Double)] = [
        (0, 0, 0, 10),          // near-black navy: the floor
        (0.24, 0, 6, 76),       // dark blue: the noise's peaks
        (blueLevel, 0, 50, 155),  // blue: just above the floor
        (0.53, 0, 180, 215),    // cyan
        (0.65, 30, 200, 60),    // green
        (0.77, 240, 230, 30),   // yellow
        (redLevel, 250, 40, 20),  // red
        (1, 255, 255, 255),     // white: the strongest
    ]

    /// where the map reaches blue, the first colour that reads as signal rather than floor
    public static let blueLevel = 0.40
    /// where the map reaches red, below the white top
    public static let redLevel = 0.88

    /// Entries in the lookup table; enough that neighbouring entries differ by
    /// at most a few units per channel.
    public static let tableSize = 256

    /// Precomputed colours, index 0 = floor, `tableSize - 1` = top.
    public static let table: [RGB] = (0..<tableSize).map { interpolated(Double($0) / Double(tableSize - 1)) }

    /// The colour for a level normalised to 0…1 (clamped; NaN = the floor).
    @inline(__always)
    public static func color(normalized level: Float) -> RGB {
        table[index(normalized: level)]
    }

    /// The table index for a level normalised to 0…1 (clamped; NaN = 0).
    @inline(__always)
    public static func index(normalized level: Float) -> Int {
        guard level > 0 else { return 0 }  // also NaN
        guard level < 1 else { return tableSize - 1 }
        return Int(level * Float(tableSize - 1) + 0.5)
    }

    /// The map evaluated directly (the reference the table is built from).
    static func interpolated(_ level: Double) -> RGB {
        let clamped = min(max(level, 0), 1)
        var upper = 1
        while upper < stops.count - 1 && stops[upper].level < clamped { upper += 1 }
        let low = stops[upper - 1], high = stops[upper]
        let fraction = high.level > low.level ? (clamped - low.level) / (high.level - low.level) : 0
        func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8((a + (b - a) * fraction).rounded()) }
        return RGB(red: mix(low.red, high.red), green: mix(low.green, high.green), blue: mix(low.blue, high.blue))
    }
}
