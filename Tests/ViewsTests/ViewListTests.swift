import Foundation
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// The analyzer's views come from one list (`AnalyzerMode`, issue 43 item 3):
/// every view has what the keys, the help, the drawer and `--view` ask of it,
/// and they all follow the list; nothing outside it compares views, and the
/// models are fed through `AnalyzerModel.ingest(_:)` alone.
@Suite struct ViewListTests {
    /// the repository's Sources directory
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
    /// the view list, the one file that may compare views
    static let viewList = "ViewModels/AnalyzerMode.swift"

    @Test func everyViewHasATitleADigitKeyHelpAndDrawerFields() {
        let modes = AnalyzerMode.allCases
        #expect(Set(modes.map(\.title)).count == modes.count, "titles name one view each")
        #expect(Set(modes.map(\.digit)).count == modes.count, "digit keys show one view each")
        for mode in modes {
            #expect(!mode.title.isEmpty)
            #expect(mode.title == mode.title.lowercased() && !mode.title.contains(" "), "\(mode): a --view value")
            #expect(AnalyzerMode(title: mode.title) == mode)
            #expect((1...9).contains(mode.rawValue), "\(mode): its key is one digit")
            // the help row: every view key, then this view's keys
            #expect(AnalyzerScreen.helpText(mode) == "\(AnalyzerMode.digitKeys) view  \(mode.helpKeys)")
            #expect(!mode.helpKeys.isEmpty)
            #expect(AnalyzerScreen.helpText(mode).contains(String(mode.digit)))
            // the ? overlay names it and holds its own lines
            #expect(HelpOverlay.viewsLine.contains(mode.title))
            for line in mode.overlayLines { #expect(HelpOverlay.lines.contains(line)) }
            // the drawer: the frequency range first in every view, each field once
            #expect(Array(mode.drawerFields.prefix(2)) == [.rangeStart, .rangeStop])
            #expect(Set(mode.drawerFields.map(\.label)).count == mode.drawerFields.count)
            #expect(DrawerField.fields(for: mode) == mode.drawerFields)
        }
        #expect(AnalyzerMode.digitKeys == modes.map { String($0.digit) }.joined(separator: "/"))
        #expect(AnalyzerMode.keyedList.hasPrefix("1 plot, 2 waterfall, 3 meter, 4 persistence ("))
        #expect(AnalyzerMode.titlesInWords == "plot, waterfall, meter, persistence, occupancy and zerospan")
    }

    @Test func theKeysFollowTheList() {
        for mode in AnalyzerMode.allCases {
            let model = Scene.model(width: 80, height: 24, mode: mode)
            #expect(key(String(mode.digit), model) == .show(mode))
            #expect(key("[", model) == mode.stepTimeDepth(-1))
            #expect(key("]", model) == mode.stepTimeDepth(1))
            #expect(key("r", model) == mode.rKey)
            #expect(key("R", model) == .toggleRecording)
            // Tab visits every view once and comes back
            var visited = [mode]
            while visited.last?.next != mode, visited.count <= AnalyzerMode.allCases.count {
                visited.append(visited.last?.next ?? mode)
            }
            #expect(Set(visited) == Set(AnalyzerMode.allCases) && visited.count == AnalyzerMode.allCases.count)
            #expect(mode.next.previous == mode)
        }
        // a digit that numbers no view is not a view key
        let plot = Scene.model(width: 80, height: 24, mode: .plot)
        for digit in 0...9 where AnalyzerMode(rawValue: digit) == nil {
            if case .show = key("\(digit)", plot) { Issue.record("\(digit) shows a view") }
        }
    }

    @Test func theGesturesFollowTheList() {
        for mode in AnalyzerMode.allCases {
            let (_, geometry) = drawn(mode)
            let middle = (x: geometry.data.x + geometry.data.width / 2, y: geometry.data.y + geometry.data.height / 2)
            var gestures = MouseGestures()
            // a click without moving pauses where the view says so
            _ = gestures.intents(for: mouse(.press(.left), middle), geometry: geometry)
            let click = gestures.intents(for: mouse(.release(.left), middle), geometry: geometry)
            #expect(click == (mode.clickPauses ? [.plot(.togglePause)] : []), "\(mode)")
            // a sideways drag pans across frequency only
            _ = gestures.intents(for: mouse(.press(.left), middle), geometry: geometry)
            let across = gestures.intents(for: mouse(.drag(.left), (middle.x + 1, middle.y)), geometry: geometry)
            #expect(across.contains { if case .plot(.pan) = $0 { true } else { false } } == mode.hasFrequencyAxis, "\(mode)")
            // a vertical drag moves what the rows stand for
            let down = gestures.intents(for: mouse(.drag(.left), (middle.x + 1, middle.y + 1)), geometry: geometry)
            switch mode.verticalAxis {
            case .level: #expect(down.contains { if case .shiftLevels = $0 { true } else { false } }, "\(mode)")
            case .time: #expect(down.contains { if case .scrollTime = $0 { true } else { false } }, "\(mode)")
            case .none: #expect(down.isEmpty, "\(mode)")
            }
            _ = gestures.intents(for: mouse(.release(.left), middle), geometry: geometry)
            // the wheel: time scrolls, frequency zooms, neither does nothing
            let wheel = gestures.intents(for: mouse(.scrollUp, middle), geometry: geometry)
            if mode.verticalAxis == .time {
                #expect(wheel.contains { if case .scrollTime = $0 { true } else { false } }, "\(mode)")
            } else if mode.hasFrequencyAxis {
                #expect(wheel.contains { if case .zoom = $0 { true } else { false } }, "\(mode)")
            } else {
                #expect(wheel.isEmpty, "\(mode)")
            }
        }
    }

    @Test func theViewDecidesMarkersAndTheTunedBand() {
        for mode in AnalyzerMode.allCases {
            let model = Scene.model(width: 80, height: 24, mode: mode)
            let effect = model.apply(.marker(.highestPeak), now: Scene.now)
            #expect(effect == (mode.hasMarkers ? .marker(.highestPeak) : AnalyzerEffect.none), "\(mode)")
            #expect(model.drawerFields == mode.drawerFields)
        }
    }

    /// Source files under Sources, as (path relative to Sources, text).
    static func sourceFiles() throws -> [(path: String, text: String)] {
        let root = sources.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [(String, String)] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            files.append((relative, try String(contentsOfFile: root + "/" + relative, encoding: .utf8)))
        }
        return files
    }

    /// Lines of `text` matching `pattern`, "path:line: text".
    static func matches(_ pattern: String, in file: (path: String, text: String)) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let text = String(line)
            let range = NSRange(text.startIndex..., in: text)
            return regex.firstMatch(in: text, range: range) == nil ? nil : "\(file.path):\(index + 1): \(text)"
        }
    }

    @Test func nothingOutsideTheViewListComparesViews() throws {
        let files = try Self.sourceFiles()
        #expect(files.contains { $0.path == Self.viewList }, "the view list is at Sources/\(Self.viewList)")
        #expect(files.count > 50, "the scan reads the sources")
        // `x == .waterfall`, `.meter != x`, `AnalyzerMode.plot == x`, for every view's case name
        let names = AnalyzerMode.allCases.map { "\($0)" }.joined(separator: "|")
        let pattern = "(==|!=)\\s*(AnalyzerMode)?\\.(\(names))\\b|(AnalyzerMode)?\\.(\(names))\\s*(==|!=)"
        var found: [String] = []
        for file in files where file.path != Self.viewList {
            found += try Self.matches(pattern, in: file)
        }
        #expect(found.isEmpty, "ask the view list (AnalyzerMode's properties) instead:\n\(found.joined(separator: "\n"))")
    }

    @Test func onlyIngestFeedsTheViewsModels() throws {
        // the views' models take frames and readings in AnalyzerModel.ingest alone
        let pattern = "\\.(waterfall|persistence)\\.(history\\.)?add\\(|\\.meter\\.record\\(|addTo(Waterfall|Persistence)\\("
        var found: [String] = []
        for file in try Self.sourceFiles() where file.path != "ViewModels/AnalyzerModel.swift" {
            found += try Self.matches(pattern, in: file)
        }
        #expect(found.isEmpty, "feed the models through AnalyzerModel.ingest(_:):\n\(found.joined(separator: "\n"))")
    }

    func key(_ text: String, _ model: AnalyzerModel) -> AnalyzerIntent? {
        guard case .event(let event, _) = InputParser.parse(Array(text.utf8)) else { return nil }
        return AnalyzerKeyMap.intent(for: event, model: model)
    }

    func drawn(_ mode: AnalyzerMode) -> (AnalyzerModel, ScreenGeometry) {
        let model = Scene.model(width: 80, height: 24, mode: mode)
        let screen = AnalyzerScreen()
        var buffer = Buffer(width: 80, height: 24)
        screen.render(model: model, frame: fixedFrame(), status: fixedStatus, now: Scene.now, into: &buffer)
        return (model, screen.geometry)
    }

    func mouse(_ action: MouseAction, _ at: (x: Int, y: Int)) -> MouseEvent {
        MouseEvent(action, x: at.x, y: at.y)
    }
}
