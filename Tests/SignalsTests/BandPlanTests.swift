import Foundation
import Testing
@testable import Signals

/// Band plans: the CSV file format, lookups, and the built-in plans.
@Suite struct BandPlanParserTests {
    @Test func aFileWithHeaderCommentsBlankLinesUnitsQuotesAndCRLFReads() throws {
        let text = "\u{FEFF}# my bench's plan\r\n"
            + "start_hz,stop_hz,label,colour\r\n"
            + "\r\n"
            + "87500000,108000000,FM broadcast\r\n"
            + "  118M , 137 MHz , Airband , #40c0ff\r\n"
            + "135.7k,137.8kHz,\"LF, 2200 m\",green\r\n"
            + "2.4G,2.5G,\"ISM \"\"2.4\"\"\",\r\n"
        let plan = try BandPlan.parse(text, file: "bench.csv")
        #expect(plan.allocations.count == 4)
        #expect(plan.name == "bench.csv")
        let lf = try #require(plan.allocations.first)
        #expect(lf.label == "LF, 2200 m")
        #expect(abs(lf.startHz - 135_700) < 1e-6 && abs(lf.stopHz - 137_800) < 1e-6)
        #expect(lf.color == BandPlan.colorNames.first { $0.name == "green" }?.rgb)
        let air = try #require(plan.allocations.first { $0.label == "Airband" })
        #expect(air.startHz == 118e6 && air.stopHz == 137e6)
        #expect(air.color == PowerColorMap.RGB(red: 0x40, green: 0xC0, blue: 0xFF))
        let ism = try #require(plan.allocations.last)
        #expect(ism.label == "ISM \"2.4\"" && ism.color == nil && ism.startHz == 2.4e9)
        // sorted by lower edge
        #expect(plan.allocations.map(\.startHz) == plan.allocations.map(\.startHz).sorted())
    }

    /// Each problem is one line naming the file and the line.
    @Test(arguments: [
        ("100,200\n", "p.csv:1: expected start_hz,stop_hz,label[,colour], found 2 fields"),
        ("# c\n100,200,a,red,extra\n", "p.csv:2: expected start_hz,stop_hz,label[,colour], found 5 fields"),
        ("start,stop,label\n100,abc,a\n", "p.csv:2: expected start_hz,stop_hz,label[,colour]: stop 'abc' is not a frequency (Hz, or with k/M/G)"),
        ("1x,200,a\n", "p.csv:1: expected start_hz,stop_hz,label[,colour]: start '1x' is not a frequency (Hz, or with k/M/G)"),
        ("100,200,a\n300M,200M,b\n", "p.csv:2: stop 200 MHz is not above start 300 MHz"),
        ("100,100,a\n", "p.csv:1: stop 100 Hz is not above start 100 Hz"),
        ("-5,100,a\n", "p.csv:1: expected start_hz,stop_hz,label[,colour]: start '-5' is not a frequency (Hz, or with k/M/G)"),
        ("100,200,\n", "p.csv:1: expected start_hz,stop_hz,label[,colour]: the label is empty"),
        ("100,200,a,#12345\n", "p.csv:1: colour '#12345': expected #rrggbb or one of red, orange, yellow, green, cyan, blue, magenta, grey, gray, white"),
        ("100,200,a,purple\n", "p.csv:1: colour 'purple': expected #rrggbb or one of red, orange, yellow, green, cyan, blue, magenta, grey, gray, white"),
        ("100,200,\"open\n", "p.csv:1: expected start_hz,stop_hz,label[,colour]: a quote is not closed"),
        ("100,200,a\u{1B}[31m\n", "p.csv:1: the label holds a control character"),
        ("100,1e400,a\n", "p.csv:1: expected start_hz,stop_hz,label[,colour]: stop '1e400' is not a frequency (Hz, or with k/M/G)"),
        ("# only a comment\n\n", "p.csv: no allocations: expected start_hz,stop_hz,label[,colour] on each line"),
        ("", "p.csv: no allocations: expected start_hz,stop_hz,label[,colour] on each line"),
    ])
    func eachProblemNamesFileAndLine(text: String, message: String) {
        #expect(throws: InputError.self) { try BandPlan.parse(text, file: "p.csv") }
        do {
            _ = try BandPlan.parse(text, file: "p.csv")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aMissingFileIsOneLineNamingIt() {
        do {
            _ = try BandPlan.read(path: "/nonexistent/plan.csv")
            Issue.record("read a missing file")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/plan.csv: cannot read"))
        }
    }

    @Test func tooManyAllocationsAreRefused() {
        let text = (0...BandPlan.maximumAllocations).map { "\($0 * 10),\($0 * 10 + 5),c\($0)" }.joined(separator: "\n")
        #expect(throws: InputError.self) { try BandPlan.parse(text, file: "big.csv") }
    }

    /// Random bytes and mangled good lines: always a plan or an `InputError`, never a trap.
    @Test func badInputNeverCrashes() {
        var random = SeededRandom(seed: 44)
        let good = "start_hz,stop_hz,label\n87.5M,108M,FM\n\"118M\",137M,\"Air, band\",#00ff00\n"
        let pieces = [",", "\"", "\n", "\r\n", "#", "M", "k", "G", "Hz", "e9", "-", ".", "1", "0", " ", "\u{0}", "é", "ä¸­", "\u{FEFF}"]
        var parsed = 0, refused = 0
        for round in 0..<2000 {
            var text: String
            if round % 2 == 0 {
                text = String((0..<Int(random.next() % 80)).map { _ in
                    Character(Unicode.Scalar(UInt8(random.next() % 128)))
                })
            } else {
                var scalars = Array(good)
                for _ in 0..<(1 + Int(random.next() % 6)) {
                    let index = Int(random.next() % UInt64(scalars.count + 1))
                    let piece = pieces[Int(random.next() % UInt64(pieces.count))]
                    if random.next() % 3 == 0, index < scalars.count { scalars.remove(at: index) }
                    scalars.insert(contentsOf: piece, at: min(index, scalars.count))
                }
                text = String(scalars)
            }
            do {
                let plan = try BandPlan.parse(text, file: "fuzz.csv")
                #expect(plan.allocations.allSatisfy { $0.stopHz > $0.startHz && $0.startHz >= 0 && !$0.label.isEmpty })
                _ = plan.allocation(at: 100e6)
                parsed += 1
            } catch {
                #expect(error.description.hasPrefix("fuzz.csv"))
                refused += 1
            }
        }
        // both kinds happened: the mangling reaches the parser's checks and leaves some files good
        #expect(parsed > 0 && refused > 0, "\(parsed) parsed, \(refused) refused")
    }

    @Test func typedFrequencies() {
        #expect(FrequencyFormat.hertz("88100000") == 88_100_000)
        #expect(FrequencyFormat.hertz("88.1M") == 88.1e6)
        #expect(FrequencyFormat.hertz("88.1 MHz") == 88.1e6)
        #expect(FrequencyFormat.hertz("135.7kHz") == 135_700)
        #expect(FrequencyFormat.hertz("2.4G") == 2.4e9)
        #expect(FrequencyFormat.hertz("2.4g") == 2.4e9)
        #expect(FrequencyFormat.hertz("1e3") == 1000)
        #expect(FrequencyFormat.hertz("5m") == nil)  // milli, not mega
        #expect(FrequencyFormat.hertz("") == nil)
        #expect(FrequencyFormat.hertz("M") == nil)
        #expect(FrequencyFormat.hertz("inf") == nil)
        #expect(FrequencyFormat.hertz("nan") == nil)
        #expect(FrequencyFormat.hertz("0x10") == nil)
    }
}

@Suite struct BandPlanLookupTests {
    static let plan = BandPlan(name: "t", source: "t", allocations: [
        .init(startHz: 100, stopHz: 200, label: "wide"),
        .init(startHz: 120, stopHz: 140, label: "nested"),
        .init(startHz: 125, stopHz: 130, label: "innermost"),
        .init(startHz: 200, stopHz: 300, label: "next"),
        .init(startHz: 400, stopHz: 420, label: "a"),
        .init(startHz: 410, stopHz: 430, label: "b"),
    ])

    @Test func theNarrowestHoldingAllocationAnswers() {
        #expect(Self.plan.allocation(at: 110)?.label == "wide")
        #expect(Self.plan.allocation(at: 121)?.label == "nested")
        #expect(Self.plan.allocation(at: 127)?.label == "innermost")
        #expect(Self.plan.allocation(at: 99.9) == nil)
        #expect(Self.plan.allocation(at: 350) == nil)
        #expect(Self.plan.allocation(at: .nan) == nil)
    }

    @Test func edgesBelongToTheAllocationsEitherSide() {
        // both edges are inside; at a shared edge the narrower one wins, of equals the nearer centre
        #expect(Self.plan.allocation(at: 100)?.label == "wide")
        #expect(Self.plan.allocation(at: 300)?.label == "next")
        #expect(Self.plan.allocation(at: 120)?.label == "nested")
        #expect(Self.plan.allocation(at: 200)?.label == "next")  // as wide, as near: the one starting at 200 Hz
        #expect(Self.plan.allocation(at: 412)?.label == "a")
        #expect(Self.plan.allocation(at: 418)?.label == "b")
    }

    @Test func aMarkersReadoutNamesTheNarrowestThenTheWiderHoldingIt() throws {
        #expect(Self.plan.enclosingAllocations(at: 127).map(\.label) == ["innermost", "nested", "wide"])
        #expect(Self.plan.enclosingAllocations(at: 150).map(\.label) == ["wide"])
        #expect(Self.plan.enclosingAllocations(at: 350).isEmpty)
        // a raster's as-wide neighbours are left out; the other region's wider band is named
        let wifi = try #require(BuiltInBandPlans.named("wifi-2g4"))
        #expect(wifi.enclosingAllocations(at: 2437e6).map(\.label) == ["ch 6"])
        let fm = try #require(BuiltInBandPlans.named("fm-broadcast"))
        #expect(fm.enclosingAllocations(at: 90e6).map(\.label) == ["FM broadcast (Japan)", "FM broadcast"])
    }

    @Test func allocationsInARangeAreThoseWithAPartInside() throws {
        let range = try #require(FrequencyRange(lowerHz: 135, upperHz: 250))
        #expect(Self.plan.allocations(in: range).map(\.label) == ["wide", "nested", "next"])
        let touching = try #require(FrequencyRange(lowerHz: 300, upperHz: 400))
        #expect(Self.plan.allocations(in: touching).isEmpty)
    }

    @Test func aMeasuredBandIsNamedByTheNarrowestHoldingAllOfIt() throws {
        #expect(Self.plan.label(for: try #require(FrequencyRange(lowerHz: 121, upperHz: 139))) == "nested")
        #expect(Self.plan.label(for: try #require(FrequencyRange(lowerHz: 110, upperHz: 190))) == "wide")
        // across two: the one at its centre
        #expect(Self.plan.label(for: try #require(FrequencyRange(lowerHz: 150, upperHz: 270))) == "next")
        #expect(Self.plan.label(for: try #require(FrequencyRange(lowerHz: 310, upperHz: 390))) == nil)
    }

    @Test func mergingKeepsEveryAllocationSorted() throws {
        let other = BandPlan(name: "o", source: "s2", allocations: [.init(startHz: 50, stopHz: 60, label: "low")])
        let merged = try #require(BandPlan.merging([Self.plan, other]))
        #expect(merged.allocations.count == Self.plan.allocations.count + 1)
        #expect(merged.allocations.first?.label == "low")
        #expect(merged.name == "t+o")
        // an allocation in both plans is kept once
        let twice = try #require(BandPlan.merging([Self.plan, other, other]))
        #expect(twice.allocations.count == merged.allocations.count)
        #expect(BandPlan.merging([]) == nil)
        #expect(BandPlan.merging([other]) == other)
    }
}

@Suite struct BandPlanLaneTests {
    @Test func partOverlapsGoToTheSecondRowNestingsShareOne() throws {
        let fm = try #require(BuiltInBandPlans.named("fm-broadcast"))
        func lane(_ label: String) -> Int? { fm.allocations.firstIndex { $0.label == label }.map { fm.lanes[$0] } }
        #expect(lane("FM broadcast (Japan)") != lane("FM broadcast"))
        #expect(lane("FM broadcast (OIRT)") == lane("FM broadcast (Japan)"))
        #expect(fm.laneCount == 2)
        // nested and apart: one row
        #expect(BandPlanLookupTests.plan.lanes == [0, 0, 0, 0, 0, 1])  // only a and b overlap in part
        #expect(BandPlan(name: "n", source: "n", allocations: [.init(startHz: 1, stopHz: 10, label: "x"),
                                                               .init(startHz: 1, stopHz: 5, label: "y"),
                                                               .init(startHz: 10, stopHz: 20, label: "z")]).laneCount == 1)
    }

    @Test func aRastersChannelsAlternateBetweenTheTwoRows() throws {
        let wifi = try #require(BuiltInBandPlans.named("wifi-2g4"))
        let channels = (1...13).map { n in wifi.lanes[wifi.allocations.firstIndex { $0.label == "ch \(n)" }!] }
        #expect(channels == (1...13).map { ($0 + 1) % 2 }, "\(channels)")
        #expect(BuiltInBandPlans.all.allSatisfy { $0.plan.laneCount <= BandPlan.maximumLanes })
    }
}

@Suite struct BuiltInBandPlanTests {
    @Test func everyPlanHasASourceAndSortedValidAllocations() {
        #expect(Set(BuiltInBandPlans.all.map(\.name)).count == BuiltInBandPlans.all.count)
        for entry in BuiltInBandPlans.all {
            let plan = entry.plan
            #expect(!plan.allocations.isEmpty, "\(entry.name)")
            #expect(plan.source.count > 10, "\(entry.name)")
            #expect(plan.name == entry.name)
            #expect(plan.allocations.allSatisfy { $0.stopHz > $0.startHz && $0.startHz > 0 && !$0.label.isEmpty }, "\(entry.name)")
            #expect(plan.allocations.map(\.startHz) == plan.allocations.map(\.startHz).sorted(), "\(entry.name)")
            #expect(BuiltInBandPlans.named(entry.name.uppercased()) == plan)
        }
        #expect(BuiltInBandPlans.named("no-such-plan") == nil)
    }

    @Test func wifiChannelsSitOnTheIEEERaster() throws {
        let wifi = try #require(BuiltInBandPlans.named("wifi-2g4"))
        #expect(wifi.allocation(at: 2437e6)?.label == "ch 6")
        #expect(wifi.allocation(at: 2412e6)?.label == "ch 1")
        #expect(wifi.allocation(at: 2472e6)?.label == "ch 13")
        #expect(wifi.allocation(at: 2484e6)?.label == "ch 14")
        let six = try #require(wifi.allocations.first { $0.label == "ch 6" })
        #expect(six.centerHz == 2437e6 && six.widthHz == 20e6)
        let five = try #require(BuiltInBandPlans.named("wifi-5g"))
        #expect(five.allocation(at: 5180e6)?.label == "ch 36")
        #expect(five.allocation(at: 5745e6)?.label == "ch 149")
        #expect(five.allocation(at: 5500e6)?.label == "ch 100")
        let six6 = try #require(BuiltInBandPlans.named("wifi-6g"))
        #expect(six6.allocation(at: 5955e6)?.label == "ch 1")
        #expect(six6.allocations.count == 59)
    }

    @Test func theISMAndAmateurBandsAreTheRadioRegulations() throws {
        let ism = try #require(BuiltInBandPlans.named("ism"))
        #expect(ism.allocation(at: 13.56e6) != nil && ism.allocation(at: 2.45e9) != nil && ism.allocation(at: 433.92e6) != nil)
        #expect(ism.allocation(at: 868e6) == nil)
        let r1 = try #require(BuiltInBandPlans.named("amateur-r1"))
        let r2 = try #require(BuiltInBandPlans.named("amateur-r2"))
        // 2 m: 144–146 MHz in Region 1, 144–148 MHz in Region 2; 80 m: 3.8 MHz only outside Region 1
        #expect(r1.allocation(at: 145e6)?.label == "2 m amateur" && r2.allocation(at: 147e6)?.label == "2 m amateur")
        #expect(r1.allocation(at: 147e6) == nil)
        #expect(r1.allocation(at: 3.85e6) == nil && r2.allocation(at: 3.85e6)?.label == "80 m amateur")
        #expect(r2.allocation(at: 223e6)?.label == "1.25 m amateur" && r1.allocation(at: 223e6) == nil)
        let fm = try #require(BuiltInBandPlans.named("fm-broadcast"))
        #expect(fm.allocation(at: 98e6)?.label == "FM broadcast")
        #expect(fm.allocation(at: 80e6)?.label == "FM broadcast (Japan)")
    }

    @Test func cellularBandsPairUplinkAndDownlink() throws {
        let eu = try #require(BuiltInBandPlans.named("cellular-eu"))
        #expect(eu.allocation(at: 1950e6)?.label == "B1 UL" && eu.allocation(at: 2140e6)?.label == "B1 DL")
        #expect(eu.allocation(at: 3500e6)?.label == "n78 TDD")
        let na = try #require(BuiltInBandPlans.named("cellular-na"))
        #expect(na.allocation(at: 740e6)?.label == "B12 DL")
    }

    @Test func helpListsEveryNameWithItsSource() {
        let help = BuiltInBandPlans.helpText
        for entry in BuiltInBandPlans.all {
            #expect(help.contains("  \(entry.name)  ") || help.contains("  \(entry.name) "), "\(entry.name)")
            #expect(help.contains("source: \(entry.plan.source)"))
        }
    }
}
