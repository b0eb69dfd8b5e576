import Testing
import Signals

/// `InputError` (Capture's `CaptureError`, ECG's `ECGError`) names the file
/// and where in it, in the forms the commands print.
@Suite struct InputErrorTests {
    @Test func descriptionNamesFileAndLocation() {
        #expect(InputError(file: "a.csv", location: .line(12), "expected 7 or more columns").description
            == "a.csv:12: expected 7 or more columns")
        #expect(InputError(file: "r.dat", location: .byte(4096), "truncated record").description
            == "r.dat: byte 4096: truncated record")
        #expect(InputError(file: "stdin", "empty").description == "stdin: empty")
    }

    @Test func equalityComparesEveryField() {
        let error = InputError(file: "a.csv", location: .line(3), "bad")
        #expect(error == InputError(file: "a.csv", location: .line(3), "bad"))
        #expect(error != InputError(file: "a.csv", location: .byte(3), "bad"))
        #expect(error != InputError(file: "b.csv", location: .line(3), "bad"))
        #expect(error != InputError(file: "a.csv", location: .line(3), "worse"))
    }
}
