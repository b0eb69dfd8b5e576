/// The band plans tscope knows by name (`--band-plan NAME`), each with the
/// document its frequencies come from. Frequencies are the edges of each
/// allocation as the source gives them; a monitoring engineer checks a
/// licence against the national table, which may differ.
public enum BuiltInBandPlans {
    /// One plan by name, what it holds and its source (for `--band-plan help`).
    public struct Entry: Sendable {
        public var name: String
        /// one line: what the plan holds
        public var summary: String
        public var plan: BandPlan
    }

    /// Every built-in plan, in the order `--band-plan help` lists them.
    public static let all: [Entry] = [broadcast, fmBroadcast, ism, amateur(region: 1), amateur(region: 2),
                                      amateur(region: 3), wifi2g4, wifi5g, wifi6g, cellularEurope, cellularAmericas]

    /// The plan called `name` (case ignored); nil when there is none.
    public static func named(_ name: String) -> BandPlan? {
        all.first { $0.name == name.lowercased() }?.plan
    }

    /// The lines `--band-plan help` prints: each name, what it holds, its source.
    public static var helpText: String {
        var lines = ["Built-in band plans (--band-plan NAME; repeat to combine; or a CSV file of start_hz,stop_hz,label[,colour]):"]
        let width = (all.map(\.name.count).max() ?? 0) + 2
        for entry in all {
            let pad = String(repeating: " ", count: width - entry.name.count)
            lines.append("  \(entry.name)\(pad)\(entry.summary) (\(entry.plan.allocations.count) allocations)")
            lines.append("  \(String(repeating: " ", count: width))source: \(entry.plan.source)")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: the plans

    private static func kHz(_ start: Double, _ stop: Double, _ label: String) -> BandPlan.Allocation {
        BandPlan.Allocation(startHz: start * 1e3, stopHz: stop * 1e3, label: label)
    }

    private static func MHz(_ start: Double, _ stop: Double, _ label: String) -> BandPlan.Allocation {
        BandPlan.Allocation(startHz: start * 1e6, stopHz: stop * 1e6, label: label)
    }

    /// Broadcasting allocations of the ITU Radio Regulations, Article 5
    /// (Table of Frequency Allocations): LF and MF broadcasting, the HF
    /// broadcasting bands (with the WARC-92 extensions), VHF FM in its three
    /// rasters (OIRT, Japan, CCIR), Band III and Region 1's UHF television
    /// band after WRC-15 (470–694 MHz).
    static let broadcast = Entry(
        name: "broadcast", summary: "LW, MW and SW broadcasting, VHF FM, Band III, UHF TV (Region 1)",
        plan: BandPlan(name: "broadcast",
                       source: "ITU Radio Regulations Article 5 (broadcasting service); Japan MIC frequency "
                           + "assignment plan for 76–95 MHz",
                       allocations: [
                           kHz(148.5, 283.5, "LW broadcast (R1)"),
                           kHz(526.5, 1606.5, "MW broadcast (R1/R3)"),
                           kHz(525, 1705, "MW broadcast (R2)"),
                           kHz(2300, 2495, "120 m broadcast"),
                           kHz(3200, 3400, "90 m broadcast"),
                           kHz(3900, 4000, "75 m broadcast"),
                           kHz(4750, 5060, "60 m broadcast"),
                           kHz(5900, 6200, "49 m broadcast"),
                           kHz(7200, 7450, "41 m broadcast"),
                           kHz(9400, 9900, "31 m broadcast"),
                           kHz(11600, 12100, "25 m broadcast"),
                           kHz(13570, 13870, "22 m broadcast"),
                           kHz(15100, 15800, "19 m broadcast"),
                           kHz(17480, 17900, "16 m broadcast"),
                           kHz(18900, 19020, "15 m broadcast"),
                           kHz(21450, 21850, "13 m broadcast"),
                           kHz(25670, 26100, "11 m broadcast"),
                           MHz(47, 68, "Band I TV (R1)"),
                           MHz(65.8, 74, "FM broadcast (OIRT)"),
                           MHz(76, 95, "FM broadcast (Japan)"),
                           MHz(87.5, 108, "FM broadcast"),
                           MHz(174, 230, "Band III (TV, DAB)"),
                           MHz(470, 694, "UHF TV (R1)"),
                       ]))

    /// VHF FM alone: the three rasters in use, for a watch of 65–108 MHz.
    static let fmBroadcast = Entry(
        name: "fm-broadcast", summary: "VHF FM broadcasting: CCIR 87.5–108 MHz, Japan 76–95 MHz, OIRT 65.8–74 MHz",
        plan: BandPlan(name: "fm-broadcast",
                       source: "ITU Radio Regulations Article 5 (87.5–108 MHz broadcasting, Regions 1 and 3; "
                           + "88–108 MHz Region 2); ITU-R BS.412; Japan MIC frequency assignment plan (76–95 MHz)",
                       allocations: [
                           MHz(65.8, 74, "FM broadcast (OIRT)"),
                           MHz(76, 95, "FM broadcast (Japan)"),
                           MHz(87.5, 108, "FM broadcast"),
                       ]))

    /// The ISM bands: ITU Radio Regulations Article 5, footnotes 5.138
    /// (use subject to special authorisation) and 5.150 (designated).
    static let ism = Entry(
        name: "ism", summary: "ISM bands (industrial, scientific and medical), 6.78 MHz to 245 GHz",
        plan: BandPlan(name: "ism",
                       source: "ITU Radio Regulations Article 5, footnotes 5.138 and 5.150",
                       allocations: [
                           MHz(6.765, 6.795, "ISM 6.78 MHz (5.138)"),
                           MHz(13.553, 13.567, "ISM 13.56 MHz"),
                           MHz(26.957, 27.283, "ISM 27.12 MHz"),
                           MHz(40.66, 40.70, "ISM 40.68 MHz"),
                           MHz(433.05, 434.79, "ISM 433.92 MHz (R1, 5.138)"),
                           MHz(902, 928, "ISM 915 MHz (R2)"),
                           MHz(2400, 2500, "ISM 2.45 GHz"),
                           MHz(5725, 5875, "ISM 5.8 GHz"),
                           MHz(24_000, 24_250, "ISM 24.125 GHz"),
                           MHz(61_000, 61_500, "ISM 61.25 GHz (5.138)"),
                           MHz(122_000, 123_000, "ISM 122.5 GHz (5.138)"),
                           MHz(244_000, 246_000, "ISM 245 GHz (5.138)"),
                       ]))

    /// The amateur service's bands in one ITU region, from 2200 m to 6 mm
    /// (primary and secondary allocations alike; national tables differ).
    static func amateur(region: Int) -> Entry {
        // (band, Region 1, Region 2, Region 3) edges [kHz]; nil where the region has no allocation
        let bands: [(String, Edges?, Edges?, Edges?)] = [
            ("2200 m", (135.7, 137.8), (135.7, 137.8), (135.7, 137.8)),
            ("630 m", (472, 479), (472, 479), (472, 479)),
            ("160 m", (1810, 2000), (1800, 2000), (1800, 2000)),
            ("80 m", (3500, 3800), (3500, 4000), (3500, 3900)),
            ("60 m", (5351.5, 5366.5), (5351.5, 5366.5), (5351.5, 5366.5)),
            ("40 m", (7000, 7200), (7000, 7300), (7000, 7200)),
            ("30 m", (10_100, 10_150), (10_100, 10_150), (10_100, 10_150)),
            ("20 m", (14_000, 14_350), (14_000, 14_350), (14_000, 14_350)),
            ("17 m", (18_068, 18_168), (18_068, 18_168), (18_068, 18_168)),
            ("15 m", (21_000, 21_450), (21_000, 21_450), (21_000, 21_450)),
            ("12 m", (24_890, 24_990), (24_890, 24_990), (24_890, 24_990)),
            ("10 m", (28_000, 29_700), (28_000, 29_700), (28_000, 29_700)),
            ("6 m", (50_000, 52_000), (50_000, 54_000), (50_000, 54_000)),
            ("2 m", (144_000, 146_000), (144_000, 148_000), (144_000, 148_000)),
            ("1.25 m", nil, (220_000, 225_000), nil),
            ("70 cm", (430_000, 440_000), (420_000, 450_000), (430_000, 440_000)),
            ("33 cm", nil, (902_000, 928_000), nil),
            ("23 cm", (1_240_000, 1_300_000), (1_240_000, 1_300_000), (1_240_000, 1_300_000)),
            ("13 cm", (2_300_000, 2_450_000), (2_300_000, 2_450_000), (2_300_000, 2_450_000)),
            ("9 cm", (3_400_000, 3_410_000), (3_300_000, 3_500_000), (3_300_000, 3_500_000)),
            ("6 cm", (5_650_000, 5_850_000), (5_650_000, 5_925_000), (5_650_000, 5_850_000)),
            ("3 cm", (10_000_000, 10_500_000), (10_000_000, 10_500_000), (10_000_000, 10_500_000)),
            ("1.2 cm", (24_000_000, 24_250_000), (24_000_000, 24_250_000), (24_000_000, 24_250_000)),
            ("6 mm", (47_000_000, 47_200_000), (47_000_000, 47_200_000), (47_000_000, 47_200_000)),
        ]
        let allocations = bands.compactMap { band -> BandPlan.Allocation? in
            let edges = region == 1 ? band.1 : region == 2 ? band.2 : band.3
            return edges.map { kHz($0.0, $0.1, "\(band.0) amateur") }
        }
        return Entry(
            name: "amateur-r\(region)",
            summary: "amateur bands of ITU Region \(region) (\(["Europe, Africa, Middle East, northern Asia", "the Americas", "Asia-Pacific"][region - 1])), 2200 m to 6 mm",
            plan: BandPlan(name: "amateur-r\(region)",
                           source: "ITU Radio Regulations Article 5 (amateur service, Region \(region)); "
                               + "IARU Region \(region) band plan",
                           allocations: allocations))
    }

    /// IEEE 802.11's 2.4 GHz channels: channel n (1–13) centred at
    /// 2407 + 5n MHz, 20 MHz wide (OFDM); channel 14 at 2484 MHz (Japan,
    /// DSSS only, 22 MHz wide).
    static let wifi2g4 = Entry(
        name: "wifi-2g4", summary: "Wi-Fi 2.4 GHz channels 1–14 (20 MHz; 1, 6, 11 do not overlap)",
        plan: BandPlan(name: "wifi-2g4",
                       source: "IEEE Std 802.11-2020, 2.4 GHz channel numbering: centre = 2407 + 5 × n MHz "
                           + "(n = 1…13), channel 14 = 2484 MHz",
                       allocations: (1...13).map { n in
                           let center = 2407.0 + 5 * Double(n)
                           return MHz(center - 10, center + 10, "ch \(n)")
                       } + [MHz(2473, 2495, "ch 14")]))

    /// IEEE 802.11's 5 GHz 20 MHz channels: channel n centred at
    /// 5000 + 5n MHz; U-NII-1 and -2A (36–64), U-NII-2C (100–144), U-NII-3
    /// and -4 (149–177).
    static let wifi5g = Entry(
        name: "wifi-5g", summary: "Wi-Fi 5 GHz 20 MHz channels 36–177 (U-NII-1 to U-NII-4)",
        plan: BandPlan(name: "wifi-5g",
                       source: "IEEE Std 802.11-2020, 5 GHz channel numbering: centre = 5000 + 5 × n MHz",
                       allocations: (Array(stride(from: 36, through: 64, by: 4)) + Array(stride(from: 100, through: 144, by: 4))
                                     + Array(stride(from: 149, through: 177, by: 4))).map { n in
                           let center = 5000.0 + 5 * Double(n)
                           return MHz(center - 10, center + 10, "ch \(n)")
                       }))

    /// IEEE 802.11ax's 6 GHz 20 MHz channels: channel n (1, 5, … 233)
    /// centred at 5950 + 5n MHz.
    static let wifi6g = Entry(
        name: "wifi-6g", summary: "Wi-Fi 6 GHz 20 MHz channels 1–233 (5925–7125 MHz)",
        plan: BandPlan(name: "wifi-6g",
                       source: "IEEE Std 802.11ax-2021, 6 GHz channel numbering: centre = 5950 + 5 × n MHz",
                       allocations: stride(from: 1, through: 233, by: 4).map { n in
                           let center = 5950.0 + 5 * Double(n)
                           return MHz(center - 10, center + 10, "ch \(n)")
                       }))

    /// A 3GPP operating band as its uplink and downlink (FDD) or one range (TDD) [MHz].
    private static func operatingBand(_ name: String, uplink: Edges, downlink: Edges? = nil) -> [BandPlan.Allocation] {
        guard let downlink else { return [MHz(uplink.0, uplink.1, "\(name) TDD")] }
        return [MHz(uplink.0, uplink.1, "\(name) UL"), MHz(downlink.0, downlink.1, "\(name) DL")]
    }
    private typealias Edges = (Double, Double)

    /// The LTE and NR operating bands in use in Europe (CEPT).
    static let cellularEurope = Entry(
        name: "cellular-eu", summary: "LTE/NR operating bands used in Europe: B20, B8, B3, B1, B7, B38, n28, n78",
        plan: BandPlan(name: "cellular-eu",
                       source: "3GPP TS 36.101 Table 5.5-1 (E-UTRA operating bands); 3GPP TS 38.101-1 Table 5.2-1 (NR)",
                       allocations: operatingBand("n28", uplink: (703, 748), downlink: (758, 803))
                           + operatingBand("B20", uplink: (832, 862), downlink: (791, 821))
                           + operatingBand("B8", uplink: (880, 915), downlink: (925, 960))
                           + operatingBand("B3", uplink: (1710, 1785), downlink: (1805, 1880))
                           + operatingBand("B1", uplink: (1920, 1980), downlink: (2110, 2170))
                           + operatingBand("B7", uplink: (2500, 2570), downlink: (2620, 2690))
                           + operatingBand("B38", uplink: (2570, 2620))
                           + operatingBand("n78", uplink: (3300, 3800))))

    /// The LTE and NR operating bands in use in North America.
    static let cellularAmericas = Entry(
        name: "cellular-na", summary: "LTE/NR operating bands used in North America: B71, B12, B13, B14, B5, B25, B66, B41, n77",
        plan: BandPlan(name: "cellular-na",
                       source: "3GPP TS 36.101 Table 5.5-1 (E-UTRA operating bands); 3GPP TS 38.101-1 Table 5.2-1 (NR)",
                       allocations: operatingBand("B71", uplink: (663, 698), downlink: (617, 652))
                           + operatingBand("B12", uplink: (699, 716), downlink: (729, 746))
                           + operatingBand("B13", uplink: (777, 787), downlink: (746, 756))
                           + operatingBand("B14", uplink: (788, 798), downlink: (758, 768))
                           + operatingBand("B5", uplink: (824, 849), downlink: (869, 894))
                           + operatingBand("B25", uplink: (1850, 1915), downlink: (1930, 1995))
                           + operatingBand("B66", uplink: (1710, 1780), downlink: (2110, 2200))
                           + operatingBand("B41", uplink: (2496, 2690))
                           + operatingBand("n77", uplink: (3300, 4200))))
}
