/// Turns successive `Buffer` frames into terminal bytes, sending only the cells
/// that changed since the previous frame.
///
/// - Runs of adjacent changed cells on a row are written after a single cursor
///   move (CUP); SGR is sent only when the style differs from the last one sent.
/// - Each non-empty frame is wrapped in synchronized-update mode (CSI ?2026h … l)
///   so the terminal shows it at once; an unchanged frame produces no bytes.
/// - The first frame, a frame of a new size, and the frame after `invalidate()`
///   clear the screen and draw everything that is not blank.
/// - The output array and the previous-frame copy are reused: in steady state a
///   frame allocates nothing.
public final class DiffWriter {
    public let mode: ColorMode
    /// The bytes of the last `render` (valid until the next call).
    public private(set) var output: [UInt8] = []

    /// what the terminal shows now, row-major, `previousWidth` × `previousHeight`
    private var previous: [Cell] = []
    private var previousWidth = 0
    private var previousHeight = 0
    private var needsFullRedraw = true
    /// the SGR state the terminal is in, as far as this writer knows
    private var emittedStyle = CellStyle.plain

    public init(mode: ColorMode) {
        self.mode = mode
    }

    /// Makes the next frame a full redraw (after another program drew, or the
    /// terminal was reset).
    public func invalidate() {
        needsFullRedraw = true
    }

    /// Computes the bytes that bring the terminal from the previous frame to
    /// `buffer` into `output`, and remembers `buffer` as the new previous frame.
    public func render(_ buffer: Buffer) {
        output.removeAll(keepingCapacity: true)
        if buffer.width != previousWidth || buffer.height != previousHeight {
            previousWidth = buffer.width
            previousHeight = buffer.height
            previous = Array(repeating: .blank, count: buffer.width * buffer.height)
            // room for a full frame of coloured cells: CUP, fg and bg SGR, a 3-byte scalar
            output.reserveCapacity(64 + buffer.width * buffer.height * 48)
            needsFullRedraw = true
        }
        let full = needsFullRedraw
        needsFullRedraw = false
        if full {
            ANSIEncoder.ascii("\u{1B}[?2026h\u{1B}[0m\u{1B}[2J", &output)
            emittedStyle = .plain
            previous.withUnsafeMutableBufferPointer { $0.update(repeating: .blank) }
        }
        let headerCount = output.count
        let width = buffer.width
        buffer.cells.withUnsafeBufferPointer { current in
            previous.withUnsafeMutableBufferPointer { shown in
                for row in 0..<buffer.height {
                    // column the cursor is at, if known on this row; the cursor is
                    // treated as unknown at the start of every frame
                    var cursorColumn = -1
                    for column in 0..<width {
                        let index = row * width + column
                        let cell = current[index]
                        guard cell != shown[index] else { continue }
                        shown[index] = cell
                        if output.count == headerCount && !full {
                            ANSIEncoder.ascii("\u{1B}[?2026h", &output)
                        }
                        if cursorColumn != column {
                            ANSIEncoder.moveCursor(x: column, y: row, &output)
                        }
                        emit(cell)
                        cursorColumn = column + 1
                    }
                }
            }
        }
        if output.count > headerCount || full {
            ANSIEncoder.ascii("\u{1B}[?2026l", &output)
        }
    }

    /// Renders `buffer` and writes the bytes to `fd`.
    public func render(_ buffer: Buffer, to fd: Int32) throws(TerminalError) {
        render(buffer)
        try FileDescriptor.writeAll(output, to: fd)
    }

    private func emit(_ cell: Cell) {
        let style = CellStyle(foreground: mode.resolve(cell.style.foreground),
                              background: mode.resolve(cell.style.background),
                              attributes: cell.style.attributes)
        SGREncoder.transition(from: emittedStyle, to: style, &output)
        emittedStyle = style
        ANSIEncoder.scalar(cell.scalar, &output)
    }
}
