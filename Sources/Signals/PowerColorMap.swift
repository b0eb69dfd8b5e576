/// The one colour map for power: dark blue → cyan → green → yellow → red →
/// white, hue and brightness rising together so order reads at a glance (no
/// user choice, DESIGN principle 2). Used by the waterfall, the meter bar and
/// PNG export so a picture and the screen agree.
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

    /// Control points at equal steps of the normalised level 0…1.
    static let stops: [(Double, Double, Double)] = [
        (0, 0, 48),       // dark blue: the floor
        (0, 64, 160),     // blue
        (0, 190, 210),    // cyan
        (30, 200, 60),    // green
        (240, 230, 30),   // yellow
        (250, 40, 20),    // red
        (255, 255, 255),  // white: the strongest
    ]

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
        let position = clamped * Double(stops.count - 1)
        let lower = min(Int(position), stops.count - 2)
        let fraction = position - Double(lower)
        let (r0, g0, b0) = stops[lower]
        let (r1, g1, b1) = stops[lower + 1]
        func mix(_ a: Double, _ b: Double) -> UInt8 { UInt8((a + (b - a) * fraction).rounded()) }
        return RGB(red: mix(r0, r1), green: mix(g0, g1), blue: mix(b0, b1))
    }
}
