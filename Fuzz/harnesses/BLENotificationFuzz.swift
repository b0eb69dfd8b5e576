import BluetoothLE

/// Notifications from a Bluetooth LE sensor (BlueZ's PropertiesChanged "Value"s): the first byte picks
/// the profile (kardia, hrs, polar), then each notification is a length byte and that many bytes. Every
/// one is decoded or counted as malformed; samples stay finite and in the profile's range.
func fuzzBLENotification(_ bytes: UnsafeRawBufferPointer) {
    guard let first = bytes.first else { return }
    let profile = BLEProfile.allCases[Int(first) % BLEProfile.allCases.count]
    var decoder = BLENotificationDecoder(profile: profile)
    var offset = 1
    var sent = 0
    while offset < bytes.count {
        let length = Int(bytes[offset])
        let end = min(bytes.count, offset + 1 + length)
        decoder.decode(Array(bytes[(offset + 1)..<end]))
        sent += 1
        offset = end
    }
    precondition(decoder.counts.notifications == sent && decoder.counts.malformed <= sent, "counts \(decoder.counts)")
    var samples: [Float] = []
    decoder.takeSamples(into: &samples)
    precondition(samples.count == decoder.counts.samples, "\(samples.count) samples, counted \(decoder.counts.samples)")
    precondition(samples.allSatisfy { $0.isFinite && (profile != .polar || abs($0) <= 8_388.608) }, "a sample out of range")
    precondition(decoder.takeRRIntervals().count == decoder.counts.rrIntervals, "RR intervals lost")
}
