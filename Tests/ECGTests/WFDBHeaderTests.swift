import Testing
@testable import ECG

@Suite struct WFDBHeaderTests {
    @Test func parsesMITBIH100WithLeadingCommentAndCRLF() throws {
        let text = "# unnecessary comment\r\n100 2 360 650000\r\n100.dat 212 200 11 1024 995 -22131 0 MLII\r\n\n100.dat 212 200 11 1024 1011 20052 0 V5\n# 69 M 1085 1629 x1\n"
        let header = try WFDBHeader.parse(text, file: "100.hea")
        #expect(header.recordName == "100")
        #expect(header.sampleRate == 360)
        #expect(header.sampleCount == 650_000)
        #expect(header.signals.map(\.description) == ["MLII", "V5"])
        #expect(header.signals[0].format == 212)
        #expect(header.signals[0].gain == 200)
        #expect(header.signals[0].baseline == 1024)
        #expect(header.signals[1].initialValue == 1011)
        #expect(header.signals[1].checksum == 20052)
        #expect(header.comments == ["unnecessary comment", "69 M 1085 1629 x1"])
    }

    @Test func readsGainBaselineUnitsOffsetAndDescriptionWithSpaces() throws {
        let text = "rec 1 500/1000(3) 10\nrec.dat 16+24 1000(-5)/uV 16 0 7 0 0 chest lead V2\n"
        let header = try WFDBHeader.parse(text, file: "rec.hea")
        let signal = try #require(header.signals.first)
        #expect(header.sampleRate == 500)
        #expect(signal.byteOffset == 24)
        #expect(signal.gain == 1000)
        #expect(signal.baseline == -5)
        #expect(signal.units == "uV")
        #expect(signal.description == "chest lead V2")
    }

    @Test func defaultsFollowTheSpecification() throws {
        let header = try WFDBHeader.parse("r 1\nr.dat 16\n", file: "r.hea")
        #expect(header.sampleRate == 250)
        #expect(header.sampleCount == nil)
        #expect(header.signals[0].gain == 200)
        #expect(header.signals[0].units == "mV")
    }

    @Test(arguments: [
        ("", "r.hea: no record line: expected `name nsig [fs [nsamples]]`"),
        ("r two 360\n", "r.hea:1: expected `name nsig [fs [nsamples]]` with 1 to 4096 signals"),
        ("r 2 360 10\nr.dat 16\n", "r.hea:3: record line declares 2 signals, found 1 signal lines"),
        ("r 1 -5\n", "r.hea:1: expected a positive sampling frequency [Hz], found \"-5\""),
        ("r/3 1 360\n", "r.hea:1: multi-segment records are not supported"),
        ("r 1 360\nr.dat 16 abc\n", "r.hea:2: expected a gain [adu/mV], found \"abc\""),
        ("r 1 360\nr.dat x16\n", "r.hea:2: expected a numeric storage format, found \"x16\""),
        ("r 1\nr.dat 16\nr.dat 16\n", "r.hea:3: more signal lines than the 1 the record line declares"),
    ])
    func malformedHeadersNameFileAndLine(text: String, message: String) {
        #expect(throws: ECGError.self) { try WFDBHeader.parse(text, file: "r.hea") }
        do {
            _ = try WFDBHeader.parse(text, file: "r.hea")
        } catch {
            #expect("\(error)" == message)
        }
    }
}
