import Foundation

extension ECGRecording {
    /// The part of the record from `from` to `to` seconds (`ecg convert --from/--to`, as WFDB's `snip`
    /// cuts a record): every signal, the annotations within it moved to the excerpt's clock, the rhythm
    /// in force at its start (the last rhythm note before it, such as MIT-BIH's "(AFIB") repeated at 0 s
    /// so that the excerpt still says what rhythm it opens in, and the start time moved on.
    ///
    /// Both ends are put on the slowest signal's sample grid first, so that signals at multiples of its
    /// rate (WFDB frames of several samples) stay aligned; `to` past the end is the end. Throws, naming
    /// `file`, when the excerpt would be empty. Its `notes` are its own (a start time rounded to the second).
    /// (`ecg convert` checks --from/--to as every `ecg` command does, `validateExcerpt`, before reading; the
    /// guards here keep other callers from trapping.)
    public func excerpt(from: Double, to: Double?, file: String) throws -> ECGRecording {
        guard from >= 0, from.isFinite else { throw ECGError(file: file, "--from \(from) s: expected 0 or more") }
        if let to, !(to > from) { throw ECGError(file: file, "--to \(to) s: expected after --from \(from) s") }
        guard let gridRate = signals.map(\.sampleRate).min(), gridRate > 0 else { throw ECGError(file: file, "no signals") }
        let duration = signals.map { Double($0.digital.count) / $0.sampleRate }.max() ?? 0
        let startSeconds = (from * gridRate).rounded() / gridRate
        let endSeconds = min(duration, ((to ?? duration) * gridRate).rounded() / gridRate)
        guard startSeconds < duration else {
            throw ECGError(file: file, String(format: "--from %g s: the record ends at %.3f s", from, duration))
        }
        guard endSeconds > startSeconds else { throw ECGError(file: file, String(format: "--from %g s to --to %g s: no sample between", from, to ?? duration)) }

        var excerpt = self
        excerpt.notes = []  // the reader's notes were the whole record's; these are the excerpt's own
        excerpt.signals = signals.map { signal in
            var cut = signal
            let first = min(signal.digital.count, Int((startSeconds * signal.sampleRate).rounded()))
            let last = min(signal.digital.count, max(first, Int((endSeconds * signal.sampleRate).rounded())))
            cut.digital = Array(signal.digital[first..<last])
            return cut
        }
        // an annotation belongs to the excerpt when it falls on one of its samples (half a grid step of slack)
        let slack = 0.5 / gridRate
        var kept: [ECGAnnotation] = []
        for annotation in annotations where annotation.onset >= startSeconds - slack && annotation.onset < endSeconds - slack {
            var moved = annotation
            moved.onset = max(0, annotation.onset - startSeconds)
            if let length = annotation.duration { moved.duration = min(length, endSeconds - annotation.onset) }
            kept.append(moved)
        }
        // the rhythm in force: the latest rhythm note before the excerpt (EDF+ need not keep time order),
        // unless the excerpt opens with a rhythm note of its own
        let isRhythm = { (annotation: ECGAnnotation) in !annotation.isBeat && annotation.text.hasPrefix("(") }
        var inForce: ECGAnnotation?
        for annotation in annotations where isRhythm(annotation) && annotation.onset < startSeconds - slack {
            if annotation.onset >= (inForce?.onset ?? -.infinity) { inForce = annotation }
        }
        if var opening = inForce, !kept.contains(where: { isRhythm($0) && $0.onset < slack }) {
            opening.onset = 0
            opening.duration = nil
            kept.insert(opening, at: 0)
        }
        excerpt.annotations = kept
        if let time = self.start {
            excerpt.start = time.advanced(bySeconds: Int(startSeconds.rounded(.down)))
            if startSeconds != startSeconds.rounded(.down) {
                excerpt.notes.append(String(format: "the excerpt starts %.3f s in: its start time is given to the whole second before", startSeconds))
            }
        }
        return excerpt
    }
}

extension ECGStartTime {
    /// The time (and date, when there is one) `seconds` later, in the proleptic Gregorian calendar.
    func advanced(bySeconds seconds: Int) -> ECGStartTime {
        let total = hour * 3600 + minute * 60 + second + seconds
        let days = total / 86_400
        let inDay = total % 86_400
        var moved = ECGStartTime(hour: inDay / 3600, minute: inDay % 3600 / 60, second: inDay % 60)
        if let date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let components = DateComponents(year: date.year, month: date.month, day: date.day)
            if let day = calendar.date(from: components), let later = calendar.date(byAdding: .day, value: days, to: day) {
                let parts = calendar.dateComponents([.year, .month, .day], from: later)
                moved.date = (parts.day ?? date.day, parts.month ?? date.month, parts.year ?? date.year)
            }
        }
        return moved
    }
}
