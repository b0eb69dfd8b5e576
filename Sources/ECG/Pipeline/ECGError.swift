import Signals

/// Why an ECG record, file or stream could not be read (see `InputError`).
public typealias ECGError = InputError
