import Foundation

/// Opens any file `CaptureFormat` can read for replay, seekable: the
/// capture store seeks by its time index; the other formats are read forward
/// and wrapped in `ReopeningSeekableReader` (a backward seek reads again from
/// the start; memory stays one frame).
public enum ReplaySourceOpener {
    /// Opens `path` as `format`, or as the format its extension and first
    /// bytes name (`CaptureFormat.detect`).
    public static func open(path: String, format: CaptureFormat? = nil,
                            options: CaptureReadOptions = CaptureReadOptions()) throws(CaptureError)
        -> any SeekableSpectrumFrameReader {
        guard FileManager.default.fileExists(atPath: path) else { throw CaptureError(file: path, "no such file") }
        do {
            let format = try format ?? CaptureFormat.detect(path: path)
            guard format.canRead else {
                throw CaptureError(file: path, "\(format.rawValue) is an output format only; inputs: \(CaptureFormat.readable)")
            }
            let first = try format.openReader(path: path, options: options)
            if let seekable = first as? any SeekableSpectrumFrameReader { return seekable }
            // The first reader serves the scan; later opens read afresh.
            var unused: (any SpectrumFrameReader)? = first
            return try ReopeningSeekableReader {
                if let reader = unused {
                    unused = nil
                    return reader
                }
                return try format.openReader(path: path, options: options)
            }
        } catch let error as CaptureError {
            throw error
        } catch {
            throw CaptureError(file: path, "cannot read: \(error)")
        }
    }
}
