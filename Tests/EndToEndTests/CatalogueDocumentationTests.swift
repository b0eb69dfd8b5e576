import Devices
import Foundation
import Testing

/// What the documents and the wire protocol say of the analyzer families comes from the catalogue
/// (`AnalyzerKind.allCases`): the devices tables hold each family's generated row, name no family the
/// catalogue lacks, and sensor.proto names every id a sensor may send.
@Suite struct CatalogueDocumentationTests {
    static let tables = ["README.md", "Docs/devices-and-calibration.md"]

    @Test func theDevicesTablesHoldTheCataloguesRows() throws {
        for document in Self.tables {
            let text = try DocumentationTests.text(of: document)
            let lines = text.split(separator: "\n").map(String.init)
            for kind in AnalyzerKind.allCases {
                let row = try #require(kind.devicesTableRow, "\(kind.id) has no listing")
                #expect(lines.filter { $0 == row }.count == 1, "\(document) lacks, or repeats, the row\n\(row)")
            }
            // a native row names one `id` in its --device column: it must be a family's
            let listed = lines.compactMap { line -> String? in
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard cells.count == 6, cells[3].hasPrefix("`"), cells[3].hasSuffix("`"),
                      cells[3].filter({ $0 == "`" }).count == 2 else { return nil }
                let id = String(cells[3].dropFirst().dropLast())
                return id.hasPrefix("soapy") || id.hasPrefix("-") ? nil : id  // the header says `--device`
            }
            #expect(listed == AnalyzerKind.allCases.map(\.id), "\(document) lists \(listed)")
        }
    }

    @Test func theSensorProtocolNamesEveryFamily() throws {
        let proto = try DocumentationTests.text(of: "Protos/tscope/remote/v1/sensor.proto")
        let comment = try #require(proto.split(separator: "\n").first { $0.contains("tscope's analyzer kind:") })
        for id in AnalyzerKind.allCases.map(\.id) + ["soapy"] {
            #expect(comment.contains("\"\(id)\""), "sensor.proto's device_kind comment lacks \(id): \(comment)")
        }
    }

    @Test func theHelpNamesEveryFamilyAndItsRealtimeLimit() throws {
        // ArgumentParser wraps help lines: compare with the whitespace folded
        func folded(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = folded(try run(Paths.tscope, ["--help"]).stdoutText)
        #expect(help.contains(AnalyzerKind.modelsText()), "\(help)")
        let watch = folded(try run(Paths.tscope, ["watch", "--help"]).stdoutText)
        #expect(watch.contains(AnalyzerKind.realtimeLimitsText()), "\(watch)")
    }
}

/// The command line's settings are the keys': every key's option and help appear in `watch --help`.
@Suite struct SettingKeyHelpTests {
    @Test func watchHelpListsEverySettingWithItsHelp() throws {
        let help = try run(Paths.tscope, ["watch", "--help"]).stdoutText
        let folded = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for setting in AnalyzerSetting.allCases {
            #expect(folded.contains("\(setting.option) <\(setting.valueName)>"), "\(setting.option) <\(setting.valueName)>")
            #expect(folded.contains(setting.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")), "\(setting.help)")
        }
    }
}
