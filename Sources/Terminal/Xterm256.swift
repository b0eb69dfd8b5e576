/// The xterm 256-colour palette above the 16 system colours: indices 16–231 are a
/// 6×6×6 cube with channel levels 0, 95, 135, …, 255; 232–255 a grey ramp 8, 18, …, 238
/// (levels as in xterm's 256colres.pl).
package enum Xterm256 {
    /// channel value of cube level 0–5
    package static func cubeLevel(_ level: Int) -> Int { level == 0 ? 0 : 55 + 40 * level }

    /// grey value of ramp step 0–23 (index 232 + step)
    package static func greyLevel(_ step: Int) -> Int { 8 + 10 * step }

    /// The palette index (16–255) nearest to (r, g, b) by squared RGB distance,
    /// choosing between the nearest cube colour and the nearest grey.
    package static func nearestIndex(r: UInt8, g: UInt8, b: UInt8) -> UInt8 {
        let (ri, gi, bi) = (nearestCubeLevel(Int(r)), nearestCubeLevel(Int(g)), nearestCubeLevel(Int(b)))
        let cubeDistance = distance(Int(r), Int(g), Int(b),
                                    cubeLevel(ri), cubeLevel(gi), cubeLevel(bi))
        // the grey nearest to the channel mean: step = round((sum / 3 - 8) / 10)
        let sum = Int(r) + Int(g) + Int(b)
        let step = min(max((sum - 24 + 15) / 30, 0), 23)
        let grey = greyLevel(step)
        let greyDistance = distance(Int(r), Int(g), Int(b), grey, grey, grey)
        if greyDistance < cubeDistance { return UInt8(232 + step) }
        return UInt8(16 + 36 * ri + 6 * gi + bi)
    }

    /// RGB of palette index 16–255 (used by tests and the reference search).
    package static func rgb(ofIndex index: UInt8) -> (Int, Int, Int)? {
        switch index {
        case 16...231:
            let cube = Int(index) - 16
            return (cubeLevel(cube / 36), cubeLevel(cube / 6 % 6), cubeLevel(cube % 6))
        case 232...255:
            let grey = greyLevel(Int(index) - 232)
            return (grey, grey, grey)
        default:
            return nil
        }
    }

    private static func nearestCubeLevel(_ value: Int) -> Int {
        // midpoints between levels 0|95|135|175|215|255
        if value < 48 { return 0 }
        if value < 115 { return 1 }
        return min((value - 35) / 40, 5)
    }

    private static func distance(_ r0: Int, _ g0: Int, _ b0: Int, _ r1: Int, _ g1: Int, _ b1: Int) -> Int {
        (r0 - r1) * (r0 - r1) + (g0 - g1) * (g0 - g1) + (b0 - b1) * (b0 - b1)
    }
}
