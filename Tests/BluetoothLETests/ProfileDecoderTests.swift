@testable import BluetoothLE
import Testing

/// Bytes as hex pairs separated by spaces ("00 aa 9a").
private func hex(_ text: String) -> [UInt8] {
    text.split(separator: " ").map { UInt8($0, radix: 16)! }
}

/// The three profiles' decoders on byte examples: the Polar H10's from a published gatttool
/// session, the Heart Rate Measurement's laid out by the GATT Specification Supplement.
@Suite struct ProfileDecoderTests {
    // MARK: Polar PMD

    /// A real Polar H10 ECG notification (PMD data, handle 0x004a) and the control-point
    /// answers around it, as printed by gatttool in github.com/phdiethelm/h10_ecg at commit
    /// 88d1b0c6, exploration/gatttool.md ("ECG Data stream!"); that page decodes the first
    /// samples as 117, 115, … and sample 14 as −4 µV.
    static let publishedFrame = hex("""
        00 aa 9a 93 51 31 49 52 08 00 75 00 00 73 00 00 63 00 00 5e 00 00 77 00 00 8c 00 00 8c 00 00 85 00 00 \
        7c 00 00 83 00 00 98 00 00 9c 00 00 8e 00 00 57 00 00 fc ff ff f5 ff ff 30 00 00 37 00 00 27 00 00 04 00 00 \
        d0 ff ff 7a 00 00 0a 03 00 9f 06 00 52 08 00 eb 05 00 4b 01 00 c7 fe ff 26 ff ff 92 ff ff 3f ff ff 4f ff ff \
        90 ff ff 90 ff ff 94 ff ff b2 ff ff d5 ff ff e5 ff ff e3 ff ff f5 ff ff 09 00 00 0d 00 00 19 00 00 19 00 00 \
        04 00 00 fc ff ff 0b 00 00 2b 00 00 30 00 00 1d 00 00 12 00 00 24 00 00 42 00 00 45 00 00 22 00 00 0b 00 00 \
        f7 ff ff b7 ff ff 9d ff ff c7 ff ff d0 ff ff c5 ff ff e3 ff ff 00 00 00 0b 00 00 24 00 00 42 00 00 45 00 00 \
        32 00 00 2b 00 00 32 00 00 34 00 00 27 00 00
        """)

    @Test func polarFrameDecodesToThePublishedMicrovolts() throws {
        let frame = try #require(PolarPMD.ECGFrame.decode(Self.publishedFrame))
        #expect(frame.microvolts.count == 73)
        #expect(Array(frame.microvolts.prefix(2)) == [117, 115])
        #expect(frame.microvolts[14] == -4)
        // the R wave of this frame
        #expect(frame.microvolts[20...27] == [-48, 122, 778, 1695, 2130, 1515, 331, -313])
        #expect(frame.microvolts.last == 39)
        #expect(frame.timestamp == 0x0852_4931_5193_9AAA)
    }

    @Test func polarStartRequestIsECGAt130HzWith14Bits() {
        #expect(PolarPMD.startECGRequest == [0x02, 0x00, 0x00, 0x01, 0x82, 0x00, 0x01, 0x01, 0x0E, 0x00])
        // the same bytes the published session wrote: 02000001820001010e00
        #expect(PolarPMD.startECGRequest == hex("02 00 00 01 82 00 01 01 0e 00"))
    }

    @Test func polarControlPointAnswersAreToldApartByTheirLeadingF0() throws {
        let started = try #require(PolarPMD.ControlPointResponse.decode(hex("f0 02 00 00 00 00")))
        #expect(started.opCode == PolarPMD.startMeasurement && started.measurementType == 0 && started.succeeded)
        let invalidMTU = try #require(PolarPMD.ControlPointResponse.decode(hex("f0 01 00 0a")))
        #expect(!invalidMTU.succeeded && invalidMTU.errorText == "invalid MTU")
        // a read of the control point (the features) is no answer
        #expect(PolarPMD.ControlPointResponse.decode(hex("0f 05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")) == nil)
        #expect(PolarPMD.ControlPointResponse.decode(hex("f0 02")) == nil)
    }

    @Test func malformedPolarFramesAreRefusedNotTrapped() {
        #expect(PolarPMD.ECGFrame.decode([]) == nil)
        #expect(PolarPMD.ECGFrame.decode(Array(Self.publishedFrame.prefix(9))) == nil)
        // a sample cut short
        #expect(PolarPMD.ECGFrame.decode(Array(Self.publishedFrame.dropLast())) == nil)
        // another measurement type (2: accelerometer) and a compressed frame type
        var other = Self.publishedFrame
        other[0] = 0x02
        #expect(PolarPMD.ECGFrame.decode(other) == nil)
        var compressed = Self.publishedFrame
        compressed[9] = 0x80
        #expect(PolarPMD.ECGFrame.decode(compressed) == nil)
        // a header alone is a frame without samples
        #expect(PolarPMD.ECGFrame.decode(Array(Self.publishedFrame.prefix(10)))?.microvolts == [])
    }

    @Test func polarSamplesAreSignExtendedAtTheirLimits() throws {
        let frame = try #require(PolarPMD.ECGFrame.decode(hex("00 00 00 00 00 00 00 00 00 00 ff ff 7f 00 00 80 ff ff ff")))
        #expect(frame.microvolts == [8_388_607, -8_388_608, -1])
    }

    // MARK: Heart Rate Measurement

    @Test func heartRateWith8BitRateAndRRIntervals() throws {
        // flags 0x16: RR present, contact supported and detected, 8-bit rate; 72 bpm; RR 815 and 818 /1024 s
        let measurement = try #require(HeartRateMeasurement.decode(hex("16 48 2f 03 32 03")))
        #expect(measurement == HeartRateMeasurement(heartRate: 72, sensorContact: .detected, rrIntervals: [815, 818]))
        #expect(abs(measurement.rrSeconds[0] - 815.0 / 1024) < 1e-12)
    }

    @Test func heartRateFlagsMayChangeBetweenNotifications() throws {
        // 16-bit rate with energy expended (bit 3) and one RR; then the rate alone; then contact lost
        let first = try #require(HeartRateMeasurement.decode(hex("19 2c 01 10 27 00 02")))
        #expect(first == HeartRateMeasurement(heartRate: 300, sensorContact: .notSupported, energyExpended: 10_000, rrIntervals: [512]))
        let second = try #require(HeartRateMeasurement.decode(hex("00 3c")))
        #expect(second == HeartRateMeasurement(heartRate: 60, sensorContact: .notSupported))
        let third = try #require(HeartRateMeasurement.decode(hex("04 3c")))
        #expect(third.sensorContact == .notDetected)
        // the RR flag set with no intervals left: none this time
        #expect(HeartRateMeasurement.decode(hex("10 3c"))?.rrIntervals == [])
    }

    @Test func shortHeartRateMeasurementsAreRefused() {
        #expect(HeartRateMeasurement.decode([]) == nil)
        #expect(HeartRateMeasurement.decode(hex("00")) == nil)
        #expect(HeartRateMeasurement.decode(hex("01 48")) == nil)          // 16-bit rate cut short
        #expect(HeartRateMeasurement.decode(hex("08 48 10")) == nil)       // energy cut short
        #expect(HeartRateMeasurement.decode(hex("10 48 2f 03 32")) == nil) // an RR interval cut short
    }

    // MARK: Kardia-style board

    @Test func kardiaNotificationsAreLittleEndianFloats() {
        var samples: [Float] = []
        // 1.0, −0.5, 0.25 mV
        #expect(KardiaDecoder.decode(hex("00 00 80 3f 00 00 00 bf 00 00 80 3e"), into: &samples))
        #expect(samples == [1.0, -0.5, 0.25])
        #expect(KardiaDecoder.decode(hex("cd cc 8c 3f"), into: &samples))
        #expect(samples.last == 1.1)
    }

    @Test func malformedKardiaNotificationsAddNothing() {
        var samples: [Float] = [2]
        #expect(!KardiaDecoder.decode([], into: &samples))
        #expect(!KardiaDecoder.decode(hex("00 00 80"), into: &samples))
        #expect(!KardiaDecoder.decode(hex("00 00 80 3f 00"), into: &samples))
        // a NaN after a good value: the whole notification is refused
        #expect(!KardiaDecoder.decode(hex("00 00 80 3f 00 00 c0 7f"), into: &samples))
        #expect(samples == [2])
    }

    // MARK: Profiles and UUIDs

    @Test func profilesAreFoundFromServiceUUIDsInAnyCase() {
        let polarH10 = ["0000180D-0000-1000-8000-00805F9B34FB", "FB005C80-02E7-F387-1CAD-8ACD2D8DF0C8", "0000180f-0000-1000-8000-00805f9b34fb"]
        #expect(BLEProfile.offered(byServices: polarH10) == [.hrs, .polar])
        #expect(BLEProfile.best(of: BLEProfile.offered(byServices: polarH10)) == .polar)
        #expect(BLEProfile.offered(byServices: ["180d"]) == [.hrs])
        #expect(BLEProfile.offered(byServices: ["713D0000-503E-4C75-BA94-3148F18D941E"]) == [.kardia])
        #expect(BLEProfile.best(of: []) == nil)
        #expect(BLEUUID.normalised("0x2A37") == BLEUUID.heartRateMeasurement)
    }

    @Test func notificationDecoderCountsMalformedNotificationsAndGoesOn() {
        var polar = BLENotificationDecoder(profile: .polar)
        polar.decode(Self.publishedFrame)
        polar.decode(Array(Self.publishedFrame.prefix(12)))   // cut inside a sample
        polar.decode([])
        polar.decode(Self.publishedFrame)
        #expect(polar.counts.notifications == 4 && polar.counts.malformed == 2 && polar.counts.samples == 146)
        var samples: [Float] = []
        polar.takeSamples(into: &samples, limit: 100)
        #expect(samples.count == 100 && samples[0] == 0.117 && polar.pendingSamples == 46)

        var strap = BLENotificationDecoder(profile: .hrs)
        strap.decode(hex("16 48 2f 03 32 03"))
        strap.decode(hex("01 48"))
        strap.decode(hex("00 49"))
        #expect(strap.counts.malformed == 1 && strap.heartRate == 73 && strap.takeRRIntervals() == [815, 818])
        #expect(strap.takeRRIntervals().isEmpty)

        var board = BLENotificationDecoder(profile: .kardia)
        board.decode(hex("00 00 80 3f"))
        board.decode(hex("00 00 80"))
        #expect(board.counts == {
            var counts = BLENotificationCounts()
            counts.notifications = 2
            counts.malformed = 1
            counts.samples = 1
            return counts
        }())
    }

    @Test func noBusIsOneClearError() {
        #expect(throws: BLEError.noBus(address: "unix:path=/nonexistent/bus", reason: "")) {
            do {
                _ = try BlueZClient(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
            } catch BLEError.noBus(let address, _) {
                throw BLEError.noBus(address: address, reason: "")
            }
        }
        #expect(BLEError.adapterPoweredOff(name: "hci0").description.contains("bluetoothctl power on"))
        #expect(BLEError.pairingNeeded(device: "H10", address: "AA").description.contains("bluetoothctl pair AA"))
    }
}
