import Foundation

/// Opens a serial device raw (termios: no echo, no line editing, no
/// translation, 8N1) at a baud rate, non-blocking, for `LineStreamSource`.
public enum SerialPort {
    /// The baud rates termios names (glibc `B…` constants).
    static let speeds: [Int: speed_t] = [
        1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600),
        19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600), 115_200: speed_t(B115200),
        230_400: speed_t(B230400), 460_800: speed_t(B460800), 500_000: speed_t(B500000),
        921_600: speed_t(B921600), 1_000_000: speed_t(B1000000), 2_000_000: speed_t(B2000000),
    ]

    public static var supportedBaudRates: [Int] { speeds.keys.sorted() }

    /// Opens `path` raw at `baud`; returns the descriptor (the caller closes it).
    public static func open(path: String, baud: Int) throws -> Int32 {
        guard let speed = speeds[baud] else {
            throw ECGError(file: path, "baud rate \(baud) not supported (use one of \(supportedBaudRates.map(String.init).joined(separator: ", ")))")
        }
        let descriptor = Foundation.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == EACCES ? "permission denied (add yourself to the dialout group)" : String(cString: strerror(errno))
            throw ECGError(file: path, "cannot open: \(reason)")
        }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ECGError(file: path, "not a serial device: \(reason)")
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ECGError(file: path, "cannot configure the port: \(reason)")
        }
        return descriptor
    }

    /// A line source on the serial device at `path`.
    public static func source(path: String, baud: Int, sampleRate: Double, parser: LineSampleParser) throws -> LineStreamSource {
        let descriptor = try open(path: path, baud: baud)
        return LineStreamSource(descriptor: descriptor, name: path, sampleRate: sampleRate, parser: parser, closesDescriptor: true)
    }
}
