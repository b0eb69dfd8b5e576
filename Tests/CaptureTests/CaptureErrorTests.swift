import Testing
@testable import Capture

@Suite struct CaptureErrorTests {
    @Test func messageNamesFileAndPlace() {
        #expect("\(CaptureError(file: "a.csv", location: .line(12), "expected 7 columns, found 3"))"
            == "a.csv:12: expected 7 columns, found 3")
        #expect("\(CaptureError(file: "b.bin", location: .byte(4096), "truncated record"))"
            == "b.bin: byte 4096: truncated record")
        #expect("\(CaptureError(file: "c.tscope", "not a tscope capture"))" == "c.tscope: not a tscope capture")
    }
}
