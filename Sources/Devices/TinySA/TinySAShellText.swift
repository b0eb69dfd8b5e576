/// The tinySA shell's text replies, read as the firmware prints them
/// (erikkaashoek/tinySA main.c; checked against a real tinySA ULTRA's
/// answers in Tests/DevicesTests/Fixtures/tinysa-ultra-v1.4-143): a reply is
/// the echoed command line and `\r\n`, lines each ending `\r\n`, then the
/// prompt `ch> `.
public enum TinySAShellText {
    /// Why a reply could not be read: one line naming what was expected.
    public struct ReplyError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The lines between the echo of `command` and the prompt, without their
    /// `\r\n`. The prompt may be cut after its `>` (a reader that stops
    /// there, as tinySA_python's does, leaves the space unread).
    public static func lines(of reply: [UInt8], command: String) throws(ReplyError) -> [String] {
        let echo = Array((command + "\r\n").utf8)
        guard reply.starts(with: echo) else { throw ReplyError("the reply does not start with the echo of '\(command)'") }
        var body = reply[echo.count...]
        let prompt = TinySAProtocol.prompt
        if body.suffix(prompt.count).elementsEqual(prompt) {
            body = body.dropLast(prompt.count)
        } else if body.suffix(prompt.count - 1).elementsEqual(prompt.dropLast()) {
            body = body.dropLast(prompt.count - 1)
        } else {
            throw ReplyError("the reply to '\(command)' does not end with the prompt 'ch> '")
        }
        guard !body.isEmpty else { return [] }
        guard body.suffix(2).elementsEqual([0x0d, 0x0a]) else {
            throw ReplyError("the reply to '\(command)' does not end its last line with CR LF")
        }
        let text = String(decoding: body.dropLast(2), as: UTF8.self)
        return text.components(separatedBy: "\r\n")
    }

    /// `version`: the firmware's name (its model: "tinySA4_…" is the Ultra)
    /// and, on the Ultra, the hardware line `HW Version:V… ` (trailing space as sent).
    public struct Version: Sendable, Equatable {
        public var firmware: String
        public var model: TinySAModel
        /// "V0.4.5.1.1"; nil where the firmware prints none (the basic unit)
        public var hardware: String?
    }

    public static func version(_ lines: [String]) throws(ReplyError) -> Version {
        guard let first = lines.first, let model = TinySAModel(versionLine: first) else {
            throw ReplyError("version: expected a line 'tinySA…_v…', got '\(lines.first ?? "")'")
        }
        let hardwarePrefix = "HW Version:"
        let hardware = lines.dropFirst().first { $0.hasPrefix(hardwarePrefix) }
            .map { String($0.dropFirst(hardwarePrefix.count)).trimmingSpaces }
        return Version(firmware: first, model: model, hardware: hardware)
    }

    /// `info`: the board's name, then lines, some `Key: value`.
    public struct Info: Sendable, Equatable {
        /// "tinySA ULTRA"
        public var board: String
        /// the `Key: value` lines, in order ("Version", "Build Time", "Platform", …)
        public var fields: [(key: String, value: String)]

        public static func == (a: Info, b: Info) -> Bool {
            a.board == b.board && a.fields.map(\.key) == b.fields.map(\.key) && a.fields.map(\.value) == b.fields.map(\.value)
        }

        public func value(_ key: String) -> String? { fields.first { $0.key == key }?.value }
    }

    public static func info(_ lines: [String]) throws(ReplyError) -> Info {
        guard let board = lines.first, !board.isEmpty else { throw ReplyError("info: no board name") }
        let fields = lines.dropFirst().compactMap { line -> (key: String, value: String)? in
            guard let colon = line.firstIndex(of: ":"), line.index(after: colon) < line.endIndex,
                  line[line.index(after: colon)] == " " else { return nil }
            return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
        }
        return Info(board: board, fields: fields)
    }

    /// `frequencies`: one frequency per line [Hz] (`%U`: unsigned decimal).
    public static func frequencies(_ lines: [String]) throws(ReplyError) -> [UInt64] {
        var values: [UInt64] = []
        values.reserveCapacity(lines.count)
        for (index, line) in lines.enumerated() {
            guard let value = UInt64(line) else { throw ReplyError("frequencies line \(index + 1): expected Hz, got '\(line)'") }
            values.append(value)
        }
        return values
    }

    /// One point of a `scan … outmask` reply: the columns the mask asked for.
    public struct ScanPoint: Sendable, Equatable {
        /// outmask bit 0: the point's frequency [Hz]
        public var frequencyHz: UInt64?
        /// bit 1: the actual trace [dBm]
        public var actualDBm: Float?
        /// bit 2: the stored trace [dBm]
        public var storedDBm: Float?
        /// bit 3: the temporary trace [dBm]
        public var tempDBm: Float?
    }

    /// `scan start stop points outmask`: per point and in this order, `%U `
    /// for bit 0, then for each of bits 1, 2, 3 the trace's level and a zero
    /// (`%e %f `, the NanoVNA's real/imaginary pair kept), then `\r\n`
    /// (main.c `cmd_scan`).
    public static func scan(_ lines: [String], outmask: Int) throws(ReplyError) -> [ScanPoint] {
        guard (1...15).contains(outmask) else { throw ReplyError("scan: outmask \(outmask) is not 1…15") }
        let traces = (1...3).filter { outmask & (1 << $0) != 0 }
        let columns = (outmask & 1) + 2 * traces.count
        return try lines.enumerated().map { (index, line) throws(ReplyError) -> ScanPoint in
            let words = line.split(separator: " ")
            guard words.count == columns, line.hasSuffix(" ") else {
                throw ReplyError("scan line \(index + 1): expected \(columns) values each followed by a space, got '\(line)'")
            }
            var point = ScanPoint()
            var next = 0
            if outmask & 1 != 0 {
                guard let hz = UInt64(words[0]) else { throw ReplyError("scan line \(index + 1): '\(words[0])' is not Hz") }
                point.frequencyHz = hz
                next = 1
            }
            for trace in traces {
                guard let level = Float(words[next]), level.isFinite, Float(words[next + 1]) == 0 else {
                    throw ReplyError("scan line \(index + 1): expected a level and 0, got '\(words[next]) \(words[next + 1])'")
                }
                switch trace {
                case 1: point.actualDBm = level
                case 2: point.storedDBm = level
                default: point.tempDBm = level
                }
                next += 2
            }
            return point
        }
    }

    /// The frequency of point `index` of a sweep of `points` from `startHz`
    /// to `stopHz` as `frequencies` and `scan` print it: both ends included,
    /// start + i·(stop − start)/(points − 1) to the nearest hertz (a real
    /// Ultra's 450 points over 0–2.6 GHz read so, every one).
    public static func sweepFrequencyHz(index: Int, points: Int, startHz: UInt64, stopHz: UInt64) -> UInt64 {
        guard points > 1, stopHz > startHz else { return startHz }
        let span = stopHz - startHz, steps = UInt64(points - 1), i = UInt64(index)
        // span·i may exceed 64 bits only beyond 18 EHz·points: multiplied in two parts
        let whole = span / steps, rest = span % steps
        return startHz + whole * i + (rest * i + steps / 2) / steps
    }
}

private extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        while text.first == " " { text = text.dropFirst() }
        return String(text)
    }
}
