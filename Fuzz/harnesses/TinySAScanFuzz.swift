import Devices

/// A tinySA's answers to `scanraw`: the first two bytes choose the expected
/// points (0…511) and the model's zero level, the third how the rest is cut
/// into USB reads. After each reply the parser expects the next one, as the
/// driver re-arms it per command. A good scan has exactly the expected points.
func fuzzTinySAScan(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 3 else { return }
    let points = Int(bytes[0]) | Int(bytes[1] & 1) << 8
    let zeroLevelDB: Float = bytes[1] & 2 == 0 ? 128 : 174
    var parser = TinySAScanParser(maxPoints: 450, zeroLevelDB: zeroLevelDB)
    parser.expect(points: points)
    var events: [TinySAScanParser.Event] = []
    forEachChunk(UnsafeRawBufferPointer(rebasing: bytes[3...]), seed: bytes[2]) { chunk in
        events.removeAll(keepingCapacity: true)
        parser.feed(chunk) { events.append($0) }
        for event in events where event != .needMore {
            if event == .scan {
                precondition(parser.scanPoints == parser.expectedPoints && parser.scanPoints <= parser.values.count,
                             "scan of the wrong length")
                precondition(parser.values[0..<parser.scanPoints].allSatisfy(\.isFinite), "non-finite level")
            }
            parser.expect(points: points)
        }
    }
}
