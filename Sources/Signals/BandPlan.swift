import Foundation

/// A band plan: named allocations of the spectrum (broadcast bands, ISM
/// bands, amateur bands, channel rasters), drawn under the views' frequency
/// axis and named beside markers, peaks, events and meter readings.
///
/// Allocations may nest (a channel inside a band) and overlap (Wi-Fi's
/// 2.4 GHz channels); `allocation(at:)` answers with the narrowest one that
/// holds a frequency. Kept sorted by lower edge, then by width (widest first).
public struct BandPlan: Sendable, Equatable {
    /// One allocation: a band of frequencies and its name.
    public struct Allocation: Sendable, Equatable {
        /// lower edge [Hz]
        public var startHz: Double
        /// upper edge [Hz], above `startHz`
        public var stopHz: Double
        /// what it is called, e.g. "FM broadcast", "ch 6"; one line, no control characters
        public var label: String
        /// its colour where the plan gives one; nil: the views pick from their palette
        public var color: PowerColorMap.RGB?

        public init(startHz: Double, stopHz: Double, label: String, color: PowerColorMap.RGB? = nil) {
            self.startHz = startHz
            self.stopHz = stopHz
            self.label = label
            self.color = color
        }

        /// width [Hz]
        public var widthHz: Double { stopHz - startHz }
        /// centre [Hz]
        public var centerHz: Double { (startHz + stopHz) / 2 }

        /// Whether `hz` lies inside (both edges included).
        public func contains(_ hz: Double) -> Bool { startHz <= hz && hz <= stopHz }
    }

    /// the plan's name ("amateur-r1", or the file it was read from)
    public var name: String
    /// where its facts come from (a standard, a regulation), for help and documentation
    public var source: String
    /// sorted by lower edge, then widest first; each once (plans combined may repeat one)
    public private(set) var allocations: [Allocation]

    public init(name: String, source: String, allocations: [Allocation]) {
        self.name = name
        self.source = source
        let sorted = allocations.sorted(by: Self.drawingOrder)
        self.allocations = sorted.enumerated().filter { index, allocation in
            index == 0 || sorted[index - 1] != allocation
        }.map(\.element)
        lanes = Self.assignLanes(self.allocations)
    }

    /// most rows a plan is drawn in
    public static let maximumLanes = 2

    /// The row (0 or 1) each allocation is drawn in, in `allocations`' order:
    /// an allocation shares a row with those it is apart from or nested with,
    /// and goes to the next where one overlaps it in part (CCIR's FM band over
    /// Japan's); with every row taken, the one whose overlap ends first (a
    /// raster's channels alternate).
    public private(set) var lanes: [Int] = []
    /// rows the plan is drawn in: 1 or 2
    public var laneCount: Int { (lanes.max() ?? 0) + 1 }

    static func assignLanes(_ allocations: [Allocation]) -> [Int] {
        // per row, the upper edges of its allocations still open at the current lower edge
        var open = [[Double]](repeating: [], count: maximumLanes)
        var lanes: [Int] = []
        lanes.reserveCapacity(allocations.count)
        for allocation in allocations {
            for lane in open.indices { open[lane].removeAll { $0 <= allocation.startHz } }
            // sorted by lower edge, wider first: an open one ending inside this one overlaps it in part
            let free = open.firstIndex { stops in !stops.contains { $0 < allocation.stopHz } }
            let lane = free ?? open.indices.min { (open[$0].max() ?? 0) < (open[$1].max() ?? 0) } ?? 0
            open[lane].append(allocation.stopHz)
            lanes.append(lane)
        }
        return lanes
    }

    /// lower edge first; of two with one lower edge, the wider first; then by label
    static func drawingOrder(_ a: Allocation, _ b: Allocation) -> Bool {
        if a.startHz != b.startHz { return a.startHz < b.startHz }
        if a.stopHz != b.stopHz { return a.stopHz > b.stopHz }
        return a.label < b.label
    }

    /// Several plans as one (`--band-plan` given more than once): every
    /// allocation of each, the names joined.
    public static func merging(_ plans: [BandPlan]) -> BandPlan? {
        guard let first = plans.first else { return nil }
        guard plans.count > 1 else { return first }
        return BandPlan(name: plans.map(\.name).joined(separator: "+"),
                        source: plans.map(\.source).joined(separator: "; "),
                        allocations: plans.flatMap(\.allocations))
    }

    /// The narrowest allocation holding `hz` (of equal widths, the one whose
    /// centre is nearest; at an edge two share, the one starting there); nil
    /// when none does.
    public func allocation(at hz: Double) -> Allocation? {
        guard hz.isFinite else { return nil }
        var best: Allocation?
        for allocation in allocations {
            if allocation.startHz > hz { break }
            guard allocation.contains(hz) else { continue }
            if let current = best {
                let narrower = allocation.widthHz < current.widthHz
                // as wide: the nearer centre; at a shared edge, the one starting there (the later)
                let asWideNearer = allocation.widthHz == current.widthHz
                    && abs(allocation.centerHz - hz) <= abs(current.centerHz - hz)
                if !(narrower || asWideNearer) { continue }
            }
            best = allocation
        }
        return best
    }

    /// What a frequency belongs to, for a marker's readout: the narrowest
    /// allocation holding it (`allocation(at:)`), then the wider ones that hold
    /// it too (the band a channel lies in; the other region's band over it),
    /// narrowest first; not the as-wide neighbours of a raster.
    public func enclosingAllocations(at hz: Double) -> [Allocation] {
        guard let narrowest = allocation(at: hz) else { return [] }
        let wider = allocations.filter { $0.contains(hz) && $0.widthHz > narrowest.widthHz }
        return [narrowest] + wider.sorted { $0.widthHz < $1.widthHz }
    }

    /// The label of the allocation that holds a measured band: the narrowest
    /// holding all of it, else the one at its centre; nil when none.
    public func label(for band: FrequencyRange) -> String? {
        let holding = allocations.filter { $0.startHz <= band.lowerHz && band.upperHz <= $0.stopHz }
        if let narrowest = holding.min(by: { $0.widthHz < $1.widthHz }) { return narrowest.label }
        return allocation(at: band.centerHz)?.label
    }

    /// Every allocation with a part inside `range`, in drawing order.
    public func allocations(in range: FrequencyRange) -> [Allocation] {
        allocations.filter { $0.stopHz > range.lowerHz && $0.startHz < range.upperHz }
    }
}

// MARK: - the file format

extension BandPlan {
    /// the line a problem points to as the expected form
    public static let expectedLine = "expected start_hz,stop_hz,label[,colour]"
    /// more allocations than this in one file is refused (a plan is drawn and looked up on every frame)
    public static let maximumAllocations = 10_000

    /// Reads a band plan file: one allocation per line,
    /// `start_hz,stop_hz,label[,colour]`. Frequencies in Hz, or with a unit
    /// (`87.5M`, `87.5 MHz`, `135.7k`, `2.4G`); a label may be quoted
    /// (`"Band I, TV"`); the colour is `#rrggbb` or a name
    /// (`BandPlan.colorNames`). A first line of column names, `#` comments,
    /// blank lines and CRLF line ends are accepted. A problem is one
    /// `InputError` naming the file and line.
    public static func parse(_ text: String, file: String) throws(InputError) -> BandPlan {
        var allocations: [Allocation] = []
        var sawData = false
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r\u{FEFF}")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            func problem(_ detail: String) -> InputError { InputError(file: file, location: .line(number), detail) }
            guard let fields = csvFields(line) else { throw problem("\(expectedLine): a quote is not closed") }
            defer { sawData = true }
            // column names on the first line: a first field with no digit in it ("start_hz")
            if !sawData, let first = fields.first, !first.contains(where: \.isNumber) { continue }
            guard (3...4).contains(fields.count) else {
                throw problem("\(expectedLine), found \(fields.count) field\(fields.count == 1 ? "" : "s")")
            }
            guard let start = FrequencyFormat.hertz(fields[0]), start >= 0 else {
                throw problem("\(expectedLine): start '\(fields[0])' is not a frequency (Hz, or with k/M/G)")
            }
            guard let stop = FrequencyFormat.hertz(fields[1]), stop >= 0 else {
                throw problem("\(expectedLine): stop '\(fields[1])' is not a frequency (Hz, or with k/M/G)")
            }
            guard stop > start else {
                throw problem("stop \(FrequencyFormat.label(stop, maxFractionDigits: 6)) is not above start "
                    + FrequencyFormat.label(start, maxFractionDigits: 6))
            }
            let label = fields[2]
            guard !label.isEmpty else { throw problem("\(expectedLine): the label is empty") }
            guard !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw problem("the label holds a control character")
            }
            var color: PowerColorMap.RGB?
            if fields.count == 4, !fields[3].isEmpty {
                guard let parsed = Self.color(fields[3]) else {
                    throw problem("colour '\(fields[3])': expected #rrggbb or one of \(colorNames.map(\.name).joined(separator: ", "))")
                }
                color = parsed
            }
            guard allocations.count < maximumAllocations else {
                throw problem("more than \(maximumAllocations) allocations")
            }
            allocations.append(Allocation(startHz: start, stopHz: stop, label: label, color: color))
        }
        guard !allocations.isEmpty else { throw InputError(file: file, "no allocations: \(expectedLine) on each line") }
        return BandPlan(name: URL(fileURLWithPath: file).lastPathComponent, source: file, allocations: allocations)
    }

    /// Reads a band plan file (`parse`).
    public static func read(path: String) throws(InputError) -> BandPlan {
        try parse(try InputError.readText(path), file: path)
    }

    /// The colour names a plan file may use instead of `#rrggbb`.
    public static let colorNames: [(name: String, rgb: PowerColorMap.RGB)] = [
        ("red", .init(red: 230, green: 80, blue: 70)), ("orange", .init(red: 240, green: 150, blue: 50)),
        ("yellow", .init(red: 230, green: 210, blue: 60)), ("green", .init(red: 90, green: 200, blue: 90)),
        ("cyan", .init(red: 70, green: 200, blue: 220)), ("blue", .init(red: 90, green: 140, blue: 240)),
        ("magenta", .init(red: 210, green: 100, blue: 210)), ("grey", .init(red: 160, green: 160, blue: 160)),
        ("gray", .init(red: 160, green: 160, blue: 160)), ("white", .init(red: 240, green: 240, blue: 240)),
    ]

    /// `#rrggbb` (or `rrggbb`) or a colour name; nil otherwise.
    static func color(_ text: String) -> PowerColorMap.RGB? {
        let lowered = text.lowercased()
        if let named = colorNames.first(where: { $0.name == lowered }) { return named.rgb }
        let hex = lowered.hasPrefix("#") ? String(lowered.dropFirst()) : lowered
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        return PowerColorMap.RGB(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// The fields of one CSV line, trimmed; a field in double quotes may hold
    /// commas and `""` for a quote. Nil when a quote is left open.
    static func csvFields(_ line: String) -> [String]? {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var wasQuoted = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            if quoted {
                if character == "\"" {
                    var lookahead = characters
                    if lookahead.next() == "\"" {
                        field.append("\"")
                        characters = lookahead
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "," {
                fields.append(wasQuoted ? field : field.trimmingCharacters(in: .whitespaces))
                field = ""
                wasQuoted = false
            } else if character == "\"" && field.allSatisfy(\.isWhitespace) {
                field = ""
                quoted = true
                wasQuoted = true
            } else {
                field.append(character)
            }
        }
        guard !quoted else { return nil }
        fields.append(wasQuoted ? field : field.trimmingCharacters(in: .whitespaces))
        return fields
    }
}

extension FrequencyFormat {
    /// A frequency typed by a person [Hz]: a number of Hz, or with a unit
    /// (`k`/`K`, `M`, `G`/`g`, optionally followed by `Hz`, with or without a
    /// space: `88.1M`, `88.1 MHz`, `135.7kHz`); nil unless finite. A lower-case
    /// `m` is refused (milli, not mega).
    public static func hertz(_ text: String) -> Double? {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.lowercased().hasSuffix("hz") { body.removeLast(2) }
        var scale = 1.0
        switch body.last {
        case "k", "K": scale = 1e3
        case "M": scale = 1e6
        case "G", "g": scale = 1e9
        default: break
        }
        if scale != 1 { body.removeLast() }
        body = body.trimmingCharacters(in: .whitespaces)
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
              let value = Double(body), value.isFinite else { return nil }
        let hertz = value * scale
        return hertz.isFinite ? hertz : nil
    }
}
