import Terminal

/// Bytes from the terminal: the first byte chooses how the rest is cut into
/// reads (see `forEachChunk`); they go through `InputDecoder` as the event
/// loop does, the escape timeout firing after the last read. Every byte
/// ends in at most one event, and `InputParser` never claims more bytes than
/// it was given.
func fuzzTerminalInput(_ bytes: UnsafeRawBufferPointer) {
    guard let seed = bytes.first else { return }
    let input = UnsafeRawBufferPointer(rebasing: bytes[1...])
    var decoder = InputDecoder()
    var events = 0
    forEachChunk(input, seed: seed) { chunk in
        decoder.feed(chunk)
        while decoder.next() != nil { events += 1 }
    }
    while decoder.hasPendingEscape {
        if decoder.flushEscape() != nil { events += 1 }
        while decoder.next() != nil { events += 1 }
    }
    precondition(events <= input.count, "more events than bytes")
    let all = Array(input)
    for start in all.indices {
        switch InputParser.parse(all[start...]) {
        case .event(_, let consumed), .invalid(let consumed):
            precondition(consumed >= 0 && consumed <= all.count - start, "consumed beyond the input")
        case .needMore:
            break
        }
    }
}
