import Devices

/// An RF Explorer's serial stream: the first byte chooses how the rest is
/// cut into USB reads. A sweep holds exactly the samples its count announced,
/// a text line is no longer than the parser keeps.
func fuzzRFExplorerStream(_ bytes: UnsafeRawBufferPointer) {
    guard let seed = bytes.first else { return }
    var parser = RFExplorerStreamParser()
    forEachChunk(UnsafeRawBufferPointer(rebasing: bytes[1...]), seed: seed) { chunk in
        parser.feed(chunk) { event, sweep in
            switch event {
            case .sweep(let count):
                precondition(count == sweep.count && count <= RFExplorerStreamParser.maxPoints, "sweep of the wrong length")
                precondition(sweep.allSatisfy(\.isFinite), "non-finite level")
            case .line(let text):
                precondition(text.utf8.count <= 4 * 160, "overlong line")
            case .corruptSweep:
                break
            }
        }
    }
}
