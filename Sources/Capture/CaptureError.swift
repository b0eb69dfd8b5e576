import Signals

/// Why a capture file could not be read or written (see `InputError`).
public typealias CaptureError = InputError
