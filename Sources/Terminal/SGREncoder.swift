/// Emits SGR (CSI … m) to move the terminal from one style to another with as
/// few parameters as possible. Colours must already be resolved for the mode.
struct SGREncoder {
    /// Appends the SGR that turns `current` into `target`; nothing when equal.
    static func transition(from current: CellStyle, to target: CellStyle, _ out: inout [UInt8]) {
        guard current != target else { return }
        ANSIEncoder.csi(&out)
        var first = true
        func parameter(_ value: Int) {
            if !first { out.append(0x3B) } // ';'
            first = false
            ANSIEncoder.number(value, &out)
        }
        // Removing an attribute needs a full reset (22 would clear bold and dim
        // together), after which everything non-default is set again.
        let reset = !target.attributes.isSuperset(of: current.attributes)
        let base = reset ? CellStyle.plain : current
        if reset { parameter(0) }
        let added = target.attributes.subtracting(base.attributes)
        if added.contains(.bold) { parameter(1) }
        if added.contains(.dim) { parameter(2) }
        if added.contains(.inverse) { parameter(7) }
        if target.foreground != base.foreground { color(target.foreground, isForeground: true, parameter) }
        if target.background != base.background { color(target.background, isForeground: false, parameter) }
        out.append(0x6D) // 'm'
    }

    private static func color(_ color: Color, isForeground: Bool, _ parameter: (Int) -> Void) {
        switch color {
        case .default:
            parameter(isForeground ? 39 : 49)
        case .indexed(let index):
            parameter(isForeground ? 38 : 48)
            parameter(5)
            parameter(Int(index))
        case .rgb(let r, let g, let b):
            parameter(isForeground ? 38 : 48)
            parameter(2)
            parameter(Int(r))
            parameter(Int(g))
            parameter(Int(b))
        }
    }
}
