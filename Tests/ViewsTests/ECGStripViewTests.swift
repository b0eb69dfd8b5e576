import ECG
import Terminal
import Testing
import ViewModels
@testable import Views

@Suite struct ECGStripViewTests {
    /// Rows of `column` in `buffer` (between `rows`) holding braille.
    private func brailleRows(_ buffer: Buffer, column: Int, rows: Range<Int>) -> [Int] {
        rows.filter { row in
            buffer.cell(x: column, y: row).map {
                $0.scalar.value >= 0x2801 && $0.scalar.value <= 0x28FF && $0.foreground == ECGStripView.traceColor
            } ?? false
        }
    }

    @Test func theSweepOverwritesFromTheLeftWithABlankGapAhead() {
        // 100 Hz × 2.5 s = 250 positions; +1 mV for the first sweep, −1 mV for
        // the first 100 samples of the next: cursor at 100, gap 100–106
        let model = stripModel(leads: ["II"], rate: 100, stripSeconds: 2.5, seconds: 3.5) { _, i in i < 250 ? 1 : -1 }
        var buffer = Buffer(width: 40, height: 10)
        ECGStripView().render(model: model, leads: 0..<1, in: buffer.area, into: &buffer)
        // calibration ⌈0.2 s × 16 columns/s⌉ + 2 = 6 columns; trace 34 columns over 250 positions
        let traceX = 6, traceWidth = 34
        // baseline dot row 6·4+2 = 26; 1 mV = (13.6·0.4/2)·4 = 10.9 dots: +1 mV in cell row 3, −1 mV in row 9
        for column in 0..<traceWidth {
            let first = column * 250 / traceWidth, last = ((column + 1) * 250 - 1) / traceWidth
            let rows = brailleRows(buffer, column: traceX + column, rows: 1..<10)
            if last < 100 {
                #expect(rows == [9], "column \(column)")
            } else if first >= 100 && last < 107 {
                #expect(rows.isEmpty, "gap column \(column)")
            } else if first >= 107 {
                #expect(rows == [3], "column \(column)")
            }
        }
    }

    /// Beats classified other than N carry their class under them, in the band's bottom row, where they are on screen.
    @Test func ectopicBeatsAreLabelledUnderTheirPosition() {
        var model = stripModel(leads: ["II"], rate: 100, stripSeconds: 2.5, seconds: 2) { _, _ in 0 }
        model.markBeat(ClassifiedBeat(sample: 50, beatClass: .ventricular))
        model.markBeat(ClassifiedBeat(sample: 150, beatClass: .supraventricular))
        var buffer = Buffer(width: 40, height: 10)
        ECGStripView().render(model: model, leads: 0..<1, in: buffer.area, into: &buffer)
        // trace from column 6, 34 columns over 250 positions: sample 50 → column 6 + 6, 150 → 6 + 20
        let bottom = buffer.area.maxY - 1
        #expect(buffer.cell(x: 6 + 50 * 34 / 250, y: bottom)?.scalar == "V")
        #expect(buffer.cell(x: 6 + 150 * 34 / 250, y: bottom)?.scalar == "S")
        #expect(buffer.lines[bottom].filter { $0 == "V" || $0 == "S" }.count == 2, "\(buffer.lines[bottom])")
        // a mark older than the sweep is not drawn; the marks kept are bounded
        for beat in 0..<(ECGStripModel.markCapacity + 10) { model.markBeat(ClassifiedBeat(sample: 190 + beat, beatClass: .unclassifiable)) }
        #expect(model.markedBeats.count == ECGStripModel.markCapacity)
    }

    @Test func theCalibrationPulseIsOneMillivoltTall() {
        let model = stripModel(leads: ["II"], rate: 100, stripSeconds: 2.5, seconds: 0) { _, _ in 0 }
        for gain in [10.0, 20.0] {
            var scaled = model
            while scaled.gainMillimetresPerMillivolt < gain { scaled.stepGain(by: 1) }
            var buffer = Buffer(width: 40, height: 20)
            ECGStripView().render(model: scaled, leads: 0..<1, in: buffer.area, into: &buffer)
            // the rising edge is dot column 2: cell 1, left dots; count its dots
            var dots = 0
            for row in 0..<20 {
                guard let cell = buffer.cell(x: 1, y: row), cell.scalar.value > 0x2800 else { continue }
                let bits = cell.scalar.value - 0x2800
                dots += [0x01, 0x02, 0x04, 0x40].filter { bits & UInt32($0) != 0 }.count
            }
            let scale = ECGPaperScale(traceColumns: 34, stripSeconds: 2.5, gainMillimetresPerMillivolt: gain)
            // the edge spans baseline to peak, both ends included
            #expect(dots == Int(scale.traceDotsPerMillivolt.rounded()) + 1, "gain \(gain)")
        }
    }

    @Test func drawsOnlyInsideItsRect() {
        let model = stripModel(leads: ["I", "II"], rate: 250, stripSeconds: 5, seconds: 6,
                               value: { _, i in pulseTrain(amplitude: 5, rate: 250)(i) })
        var buffer = Buffer(width: 80, height: 24)
        buffer.fill(buffer.area, with: Cell("X"))
        let rect = Rect(x: 10, y: 5, width: 30, height: 10)
        ECGStripView().render(model: model, leads: 0..<2, in: rect, into: &buffer)
        for y in 0..<24 {
            for x in 0..<80 where !rect.contains(x: x, y: y) {
                #expect(buffer.cell(x: x, y: y)?.scalar == "X", "(\(x), \(y))")
            }
        }
        let inside = buffer.lines[5...14].map { String($0.unicodeScalars.dropFirst(10).prefix(30)) }.joined()
        #expect(inside.contains { isBraille($0) })
        #expect(!inside.contains("X"))
    }

    @Test func theWholeMonitorStaysInsideAPaneRect() {
        var model = ECGMonitorModel(strip: stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 3) { _, i in
            pulseTrain(amplitude: 1, rate: 250)(i)
        })
        model.events.append(RhythmEvent(time: 1, code: .tachycardia, heartRateBPM: 130))
        _ = model.apply(.toggleEventList)
        _ = model.apply(.togglePause)
        var buffer = Buffer(width: 120, height: 30)
        buffer.fill(buffer.area, with: Cell("X"))
        let pane = Rect(x: 70, y: 2, width: 45, height: 20)
        ECGMonitorView().render(model: model, status: fixedECGStatus, in: pane, into: &buffer)
        for y in 0..<30 {
            for x in 0..<120 where !pane.contains(x: x, y: y) {
                #expect(buffer.cell(x: x, y: y)?.scalar == "X", "(\(x), \(y))")
            }
        }
        let top = String(buffer.lines[2].unicodeScalars.dropFirst(70).prefix(45))
        #expect(top.hasPrefix(" PAUSED  HR 60 "))
    }

    @Test func tinyAndOffScreenRectsNeverCrash() {
        let twelve = ["I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6"]
        let strip = stripModel(leads: twelve, rate: 500, stripSeconds: 10, seconds: 3) { l, i in Float(l) * 0.1 + Float(i % 7) }
        for layout in [ECGMonitorModel.Layout.strip, .twelveLead] {
            var model = ECGMonitorModel(strip: strip, layout: layout)
            model.events.append(RhythmEvent(time: 1, code: .pause, heartRateBPM: nil))
            for open in [false, true] {
                if open { _ = model.apply(.toggleEventList) }
                for (width, height) in [(20, 6), (8, 3), (3, 2), (1, 1), (0, 0), (39, 9), (2, 40)] {
                    var buffer = Buffer(width: width, height: height)
                    ECGMonitorView().render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
                    #expect(buffer.lines.count == height)
                }
                var buffer = Buffer(width: 30, height: 10)
                ECGMonitorView().render(model: model, status: fixedECGStatus,
                                        in: Rect(x: 20, y: 6, width: 100, height: 100), into: &buffer)
                ECGMonitorView().render(model: model, status: fixedECGStatus,
                                        in: Rect(x: -50, y: -50, width: 60, height: 55), into: &buffer)
            }
        }
        let small = { () -> [String] in
            var buffer = Buffer(width: 20, height: 6)
            ECGMonitorView().render(model: ECGMonitorModel(strip: strip, layout: .strip), status: fixedECGStatus,
                                    in: buffer.area, into: &buffer)
            return buffer.lines
        }()
        #expect(small[0].hasPrefix(" HR 60 "))
        #expect(small.dropFirst().joined().contains { isBraille($0) })
    }

    @Test func redrawingTheSameStateSendsNothing() {
        let model = ECGMonitorModel(strip: stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 7) { _, i in
            pulseTrain(amplitude: 1, rate: 250)(i)
        })
        let view = ECGMonitorView()
        var buffer = Buffer(width: 80, height: 24)
        let writer = DiffWriter(mode: .trueColor)
        view.render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        writer.render(buffer)
        #expect(!writer.output.isEmpty)
        view.render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        writer.render(buffer)
        #expect(writer.output.isEmpty)
    }

    /// An AF episode reads as a Holter report lists it: its mean and highest heart rate, how long it held.
    @Test func anAFEpisodeShowsItsMeanAndHighestRate() {
        var event = RhythmEvent(time: 600, code: .af, heartRateBPM: 90, durationSeconds: 1800, end: 2400)
        event.meanHeartRateBPM = 87.6
        event.maxHeartRateBPM = 131.2
        #expect(ECGEventListView.line(event) == "10:00.0  AF           88 bpm, max 131, 1800 s")
        var log = RhythmEventLog()
        for (second, rate) in zip(1...40, (0..<40).map { 80.0 + Double($0 % 5) * 10 }) {
            log.observe(.af, time: Double(second), heartRate: rate)
        }
        let logged = log.events.first
        #expect(logged?.meanHeartRateBPM == 100 && logged?.maxHeartRateBPM == 120, "\(String(describing: logged))")
        // the box widens for the line at 80 columns: nothing of it is cut
        var model = ECGMonitorModel(strip: stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 1) { _, _ in 0 })
        var ongoing = event
        ongoing.end = nil
        model.events.append(ongoing)
        _ = model.apply(.toggleEventList)
        var buffer = Buffer(width: 80, height: 24)
        ECGMonitorView().render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        #expect(buffer.lines.contains { $0.contains("10:00.0  AF           88 bpm, max 131, 1800 s so far ") }, "\(buffer.lines)")
    }

    @Test func theEventListShowsNewestFirstAndTheSelection() {
        var model = ECGMonitorModel(strip: stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 1) { _, _ in 0 })
        model.events.append(RhythmEvent(time: 12.34, code: .bradycardia, heartRateBPM: 42))
        model.events.append(RhythmEvent(time: 75, code: .tachycardia, heartRateBPM: 125.4))
        model.events.append(RhythmEvent(time: 3700, code: .signalLost, heartRateBPM: nil))
        #expect(ECGEventListView.line(RhythmEvent(time: 80, code: .pause, heartRateBPM: 60, durationSeconds: 3.4))
            == "01:20.0  Pause        3.4 s without a beat")
        _ = model.apply(.toggleEventList)
        _ = model.apply(.moveEventSelection(1))
        var buffer = Buffer(width: 80, height: 24)
        ECGMonitorView().render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        let lines = buffer.lines
        let title = try! #require(lines.firstIndex { $0.contains("Events (3)") })
        #expect(lines[title + 1].contains("1:01:40.0  Signal lost  lead off or flat"))
        #expect(lines[title + 2].contains("01:15.0  Tachycardia  125 bpm"))
        #expect(lines[title + 3].contains("00:12.3  Bradycardia  42 bpm"))
        #expect(lines[title + 4].contains("x delete"))
        let selectedRow = title + 2
        let selectedX = lines[selectedRow].unicodeScalars.map { $0 }.firstIndex(of: "T")!
        #expect(buffer.cell(x: selectedX, y: selectedRow)?.style == ECGEventListView.selectedStyle)
        #expect(buffer.cell(x: selectedX, y: title + 1)?.style == ECGEventListView.boxStyle)
    }
}

@Suite struct ECGKeyMapTests {
    private func intent(_ bytes: [UInt8], open: Bool = false) -> ECGIntent? {
        guard case .event(let event, _) = InputParser.parse(bytes) else { return nil }
        return ECGKeyMap.intent(for: event, eventListOpen: open)
    }

    @Test func keysFromByteLiterals() {
        #expect(intent([0x20]) == .togglePause)                          // space
        #expect(intent([0x1B, 0x5B, 0x44]) == .stepStripLength(-1))      // ←
        #expect(intent([0x1B, 0x5B, 0x43]) == .stepStripLength(1))       // →
        #expect(intent([0x1B, 0x5B, 0x41]) == .stepGain(1))              // ↑
        #expect(intent([0x1B, 0x4F, 0x42]) == .stepGain(-1))             // ↓ (application mode)
        #expect(intent([0x76]) == .toggleLayout)                         // v
        #expect(intent([0x6C]) == .nextLeads)                            // l
        #expect(intent([0x65]) == .toggleEventList)                      // e
        #expect(intent([0x74]) == .toggleTrend)                          // t
        #expect(intent([0x5B]) == .stepSampleRate(-1))                   // [
        #expect(intent([0x5D]) == .stepSampleRate(1))                    // ]
        #expect(intent([0x2D]) == .stepRefreshRate(-1))                  // -
        #expect(intent([0x2B]) == .stepRefreshRate(1))                   // +
        #expect(intent([0x71]) == .quit)                                 // q
        #expect(intent([0x03]) == .quit)                                 // Ctrl-C
        #expect(intent([0x78]) == nil)                                   // x with the list closed
    }

    @Test func withTheEventListOpenArrowsSelectAndXDeletes() {
        #expect(intent([0x1B, 0x5B, 0x41], open: true) == .moveEventSelection(-1))
        #expect(intent([0x1B, 0x5B, 0x42], open: true) == .moveEventSelection(1))
        #expect(intent([0x78], open: true) == .deleteSelectedEvent)
        #expect(intent([0x1B, 0x5B, 0x33, 0x7E], open: true) == .deleteSelectedEvent) // Delete
        #expect(intent([0x65], open: true) == .toggleEventList)
        #expect(intent([0x20], open: true) == .togglePause)
    }
}

@Suite struct ECGPaperGridTests {
    /// Grid dots of `buffer` inside `rect`: [dot row][dot column], from the
    /// braille cells drawn in the paper's colours.
    func gridDots(_ buffer: Buffer, _ rect: Rect) -> [[Bool]] {
        var dots = [[Bool]](repeating: [Bool](repeating: false, count: rect.width * 2), count: rect.height * 4)
        let bits: [(Int, Int, UInt32)] = [(0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (0, 3, 0x40),
                                          (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20), (1, 3, 0x80)]
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                guard let cell = buffer.cell(x: rect.x + x, y: rect.y + y), cell.scalar.value >= 0x2800,
                      cell.scalar.value <= 0x28FF,
                      cell.foreground == ECGStripView.minorStyle.foreground
                        || cell.foreground == ECGStripView.majorStyle.foreground else { continue }
                let pattern = cell.scalar.value - 0x2800
                for (dx, dy, bit) in bits where pattern & bit != 0 { dots[y * 4 + dy][x * 2 + dx] = true }
            }
        }
        return dots
    }

    /// Median distance between lines (indices lit in at least 40 % of the other axis).
    func lineSpacing(_ counts: [Int], length: Int) -> Double? {
        let lines = counts.indices.filter { Double(counts[$0]) >= 0.4 * Double(length) }
        let gaps = zip(lines.dropFirst(), lines).map { $0 - $1 }.filter { $0 > 1 }.sorted()
        return gaps.isEmpty ? nil : Double(gaps[gaps.count / 2])
    }

    @Test(arguments: [(80, 24), (160, 48), (240, 70)])
    func theGridHasSquareBoxesInBothDirectionsAndTwoWeights(width: Int, height: Int) throws {
        let model = stripModel(leads: ["II"], rate: 250, stripSeconds: 10, seconds: 0) { _, _ in 0 }
        var buffer = Buffer(width: width, height: height)
        ECGStripView().render(model: model, leads: 0..<1, in: buffer.area, into: &buffer)
        // right of the calibration pulse, below the label row
        let rect = Rect(x: 12, y: 1, width: width - 12, height: height - 1)
        let dots = gridDots(buffer, rect)
        let columns = (0..<(rect.width * 2)).map { x in dots.filter { $0[x] }.count }
        let rows = dots.map { $0.filter { $0 }.count }
        let across = try #require(lineSpacing(columns, length: dots.count), "no vertical lines at \(width)×\(height)")
        let down = try #require(lineSpacing(rows, length: rect.width * 2), "no horizontal lines at \(width)×\(height)")
        // braille dots are square on a 1:2 cell: equal spacing in dots is a square box
        #expect(abs(across - down) <= 1, "\(across) × \(down) dots at \(width)×\(height)")
        let colours = Set((0..<height).flatMap { y in (0..<width).compactMap { buffer.cell(x: $0, y: y)?.foreground } })
        #expect(colours.contains(ECGStripView.minorStyle.foreground), "minor lines at \(width)×\(height)")
        #expect(colours.contains(ECGStripView.majorStyle.foreground), "major lines at \(width)×\(height)")
    }

    @Test func questionMarkShowsTheKeysAndEscClosesThem() {
        var model = ECGMonitorModel(strip: stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 1) { _, _ in 0 })
        let question = InputEvent.key(KeyEvent(.character("?")))
        #expect(ECGKeyMap.intent(for: question, eventListOpen: false) == .toggleHelp)
        _ = model.apply(.toggleHelp)
        var buffer = Buffer(width: 100, height: 30)
        ECGMonitorView().render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        #expect(buffer.description.contains("this help (Esc closes)"))
        let escape = InputEvent.key(KeyEvent(.escape))
        #expect(ECGKeyMap.intent(for: escape, eventListOpen: false, helpOpen: true) == .toggleHelp)
        #expect(ECGKeyMap.intent(for: escape, eventListOpen: false, helpOpen: false) == .quit)
    }

    @Test func theHeartRateIsLargeBesideTheStrips() {
        let model = ECGMonitorModel(strip: stripModel(leads: ["II"], rate: 250, stripSeconds: 5, seconds: 1) { _, _ in 0 })
        var buffer = Buffer(width: 160, height: 48)
        ECGMonitorView().render(model: model, status: fixedECGStatus, in: buffer.area, into: &buffer)
        let panelX = 160 - ECGMonitorView.vitalsWidth(bodyWidth: 160)
        let digitRows = (0..<48).filter { y in (panelX..<160).contains { buffer.cell(x: $0, y: y)?.scalar == "█" } }
        #expect(digitRows.count >= 3)
        #expect(buffer.description.contains("bpm"))
    }
}
