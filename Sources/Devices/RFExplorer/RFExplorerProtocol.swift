/// RF Explorer's serial protocol (spectrum analyzer mode). Facts and
/// sources: Firmware-Notes/rfexplorer.md.
public enum RFExplorerProtocol {
    /// the UART speed the analyzer ships with [bit/s] (2400 is the other choice)
    public static let baudRate: UInt32 = 500_000

    /// Frames a command: `#`, one byte with the total length, the text.
    public static func command(_ text: String) -> [UInt8] {
        let body = Array(text.utf8)
        return [UInt8(ascii: "#"), UInt8(truncatingIfNeeded: body.count + 2)] + body
    }

    /// request the configuration and start sending sweeps
    public static var requestConfig: [UInt8] { command("C0") }
    /// stop sending sweeps (hold)
    public static var hold: [UInt8] { command("CH") }

    /// `C2-F:Sssssss,Eeeeeee,tttt,bbbb`: start and end [kHz, 7 digits],
    /// display top and bottom [dBm, 4 characters]; 32 bytes framed.
    public static func setRange(startKHz: Int, endKHz: Int, topDBm: Int = -10, bottomDBm: Int = -120) -> [UInt8] {
        command("C2-F:\(digits(startKHz, 7)),\(digits(endKHz, 7)),\(digits(topDBm, 4)),\(digits(bottomDBm, 4))")
    }

    /// Zero-padded decimal of `width` characters ("-010" for −10 in 4).
    static func digits(_ value: Int, _ width: Int) -> String {
        let magnitude = String(abs(value))
        let sign = value < 0 ? "-" : ""
        let pad = max(0, width - sign.count - magnitude.count)
        return sign + String(repeating: "0", count: pad) + magnitude
    }

    /// the start of the line the unit sends when it (re)starts
    /// (RFE_Common.py CONST_RESETSTRING); it then has forgotten what the host set
    public static let resetPrefix = "(C) Ariel Rocholl "

    /// a sweep byte b is −b/2 dBm
    public static func dBm(sample: UInt8) -> Float { -Float(sample) / 2 }
    public static let lineEnd: [UInt8] = [0x0d, 0x0a]
}

/// The analyzer's `#C2-F:` configuration line: where a sweep's samples lie
/// and what the model can tune.
public struct RFExplorerConfiguration: Sendable, Equatable {
    /// frequency of sample 0 [Hz]
    public var startHz: Double
    /// distance between samples [Hz]
    public var stepHz: Double
    public var topDBm: Int
    public var bottomDBm: Int
    /// samples per sweep
    public var points: Int
    /// tunable limits [Hz] and the widest span [Hz] of the active module
    public var minHz: Double
    public var maxHz: Double
    public var maxSpanHz: Double
    /// the expansion module (not the main board) is the active input
    public var expansionActive: Bool
    /// operating mode (RFE_Common.py eMode): 0 spectrum analyzer, 1
    /// transmitter, 2 WiFi analyzer, 5 tracking, 6 sniffer
    public var mode: Int
    /// resolution bandwidth the analyzer measures with [Hz]; nil when the
    /// line has no RBW field (firmware before it was added)
    public var rbwHz: Double?
    /// the amplitude offset set on the unit [dB]
    public var offsetDB: Int

    public static let spectrumAnalyzerMode = 0

    public init(startHz: Double, stepHz: Double, topDBm: Int, bottomDBm: Int, points: Int,
                minHz: Double, maxHz: Double, maxSpanHz: Double, expansionActive: Bool = false,
                mode: Int = RFExplorerConfiguration.spectrumAnalyzerMode, rbwHz: Double? = nil, offsetDB: Int = 0) {
        self.expansionActive = expansionActive
        self.mode = mode
        self.rbwHz = rbwHz
        self.offsetDB = offsetDB
        self.startHz = startHz
        self.stepHz = stepHz
        self.topDBm = topDBm
        self.bottomDBm = bottomDBm
        self.points = points
        self.minHz = minHz
        self.maxHz = maxHz
        self.maxSpanHz = maxSpanHz
    }

    /// Parses `#C2-F:<start kHz>,<step Hz>,<top>,<bottom>,<points>,<expansion>,
    /// <mode>,<min kHz>,<max kHz>,<max span kHz>[,<RBW kHz>,<offset dB>,<calculator>]`.
    public init?(line: String) {
        guard line.hasPrefix("#C2-F:") else { return nil }
        let fields = line.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.filter { $0 != " " } }
        guard fields.count >= 10,
              let startKHz = Int(fields[0]), let step = Int(fields[1]), let top = Int(fields[2]),
              let bottom = Int(fields[3]), let points = Int(fields[4]), let minKHz = Int(fields[7]),
              let maxKHz = Int(fields[8]), let spanKHz = Int(fields[9]), let mode = Int(fields[6]),
              startKHz >= 0, step > 0, points > 0, minKHz < maxKHz else { return nil }
        // the optional fields (RFEConfiguration.py reads them when the line is long enough)
        let rbwKHz = fields.count > 10 ? Int(fields[10]) : nil
        let offset = fields.count > 11 ? Int(fields[11]) : nil
        self.init(startHz: Double(startKHz) * 1e3, stepHz: Double(step), topDBm: top, bottomDBm: bottom,
                  points: points, minHz: Double(minKHz) * 1e3, maxHz: Double(maxKHz) * 1e3,
                  maxSpanHz: Double(spanKHz) * 1e3, expansionActive: fields[5] == "1", mode: mode,
                  rbwHz: rbwKHz.flatMap { $0 > 0 ? Double($0) * 1e3 : nil }, offsetDB: offset ?? 0)
    }

    /// A readable name of `mode`.
    public var modeName: String {
        switch mode {
        case 0: return "spectrum analyzer"
        case 1: return "transmitter"
        case 2: return "WiFi analyzer"
        case 5: return "tracking"
        case 6: return "sniffer"
        default: return "mode \(mode)"
        }
    }

    /// The line the analyzer sends (fixed widths, as RFEConfiguration.py reads them).
    public var line: String {
        let d = RFExplorerProtocol.digits
        return "#C2-F:\(d(Int(startHz / 1e3), 7)),\(d(Int(stepHz), 7)),\(d(topDBm, 4)),\(d(bottomDBm, 4)),"
            + "\(d(points, 4)),\(expansionActive ? 1 : 0),\(d(mode, 3)),\(d(Int(minHz / 1e3), 7)),"
            + "\(d(Int(maxHz / 1e3), 7)),\(d(Int(maxSpanHz / 1e3), 7)),\(d(Int((rbwHz ?? 0) / 1e3), 5)),"
            + "\(d(offsetDB, 4)),000"
    }
}
