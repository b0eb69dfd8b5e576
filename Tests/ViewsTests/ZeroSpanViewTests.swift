import Foundation
import DSP
import Signals
import Terminal
import Testing
import ViewModels
@testable import Views

/// The zero-span view's drawing (issue 45 item 1): its time axis, trigger,
/// readings, and the one line it shows where zero span cannot run.
@Suite struct ZeroSpanViewTests {
    func screen(_ model: AnalyzerModel, width: Int = 160, height: Int = 48) -> [String] {
        Scene.render(width: width, height: height, model: model).lines
    }

    @Test func theTimeAxisCountsFromTheTriggerAndMarksIt() throws {
        let lines = screen(Scene.model(width: 160, height: 48, mode: .zerospan))
        let axis = try #require(lines.firstIndex { $0.contains("└") })
        // 100 of 1000 points of 10 µs before the trigger: −1 ms … 9 ms, labelled in ms, T at 0
        #expect(lines[axis].contains("T"), "\(lines[axis])")
        #expect(lines[axis + 1].contains("-1") && lines[axis + 1].contains("8") && lines[axis + 1].trimmingCharacters(in: .whitespaces).hasSuffix("ms"),
                "\(lines[axis + 1])")
        let tColumn = try #require(lines[axis].firstIndex(of: "T")).utf16Offset(in: lines[axis])
        let zero = try #require(lines[axis + 1].range(of: " 0 ")).lowerBound.utf16Offset(in: lines[axis + 1]) + 1
        #expect(abs(tColumn - zero) <= 1, "T at \(tColumn), 0 labelled at \(zero)")
        // the trigger's level over the trace, and the measurements above it
        #expect(lines.contains { $0.contains("trig -50 ↑") })
        #expect(lines[1].contains("4 pulses") && lines[1].contains("period 2.5 ms"), "\(lines[1])")
        // the status line: what is measured, where the span would be
        #expect(lines[0].contains("zero span at 110 MHz │ RBW 1 MHz │ sweep 10 ms │ trigger -50 dB ↑"), "\(lines[0])")
        #expect(!lines[0].contains("span 20 MHz"))
    }

    @Test func whereZeroSpanCannotRunTheViewSaysWhyInOneLine() {
        let model = Scene.model(width: 80, height: 24, mode: .zerospan)
        model.zeroSpan.forgetTrace()
        model.zeroSpan.notice = "zero span needs a live analyzer that streams I/Q"
        let lines = screen(model, width: 80, height: 24)
        #expect(lines.filter { $0.contains("zero span needs a live analyzer") }.count == 1)
        // and no trace: no braille dots anywhere
        #expect(!lines.joined().unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) })
    }

    @Test func withoutATraceYetItSaysItIsWaiting() {
        let model = Scene.model(width: 80, height: 24, mode: .zerospan)
        model.zeroSpan.forgetTrace()
        #expect(screen(model, width: 80, height: 24).contains { $0.contains("waiting for a trigger…") })
        model.apply(.toggleZeroSpanTrigger, now: 0)
        #expect(screen(model, width: 80, height: 24).contains { $0.contains("waiting for the first trace…") })
    }
}
