import Terminal

/// A view that shares the analyzer's screen and frame clock: the spectrum
/// keeps the top-left part (so its mouse geometry is unchanged), the pane
/// gets the rest. `SpectrumViewer.sidePane` runs one.
public protocol SidePane: AnyObject {
    /// Splits the screen into the analyzer's part (at the origin) and the pane's.
    func layout(_ screen: Rect) -> (main: Rect, pane: Rect)
    /// Takes what arrived since the last frame (called once per drawn frame).
    func update(now: Double)
    func render(in rect: Rect, into buffer: inout Buffer)
    /// The frame holding the pane has been written to the terminal.
    func presented(at now: Double)
}

/// Puts the analyzer's frame and a side pane on one screen. Without a pane
/// the analyzer's buffer is written as it is; with one, both are composed
/// into a screen-sized buffer allocated on resize.
struct SidePaneHost {
    let pane: SidePane?
    private var screen = Buffer(width: 1, height: 1)
    private var paneRect = Rect(x: 0, y: 0, width: 0, height: 0)

    init(pane: SidePane?) {
        self.pane = pane
    }

    /// Sizes for a `width` × `height` screen; returns the analyzer's part.
    mutating func resize(width: Int, height: Int) -> Rect {
        let whole = Rect(x: 0, y: 0, width: width, height: height)
        guard let pane else { return whole }
        let (main, side) = pane.layout(whole)
        screen.resize(width: width, height: height)
        paneRect = side
        return main
    }

    func update(now: Double) { pane?.update(now: now) }

    /// The frame to write: `main` alone, or `main` and the pane composed.
    mutating func compose(_ main: Buffer) -> Buffer {
        guard let pane else { return main }
        for y in 0..<min(main.height, screen.height) {
            for x in 0..<min(main.width, screen.width) {
                if let cell = main.cell(x: x, y: y) { screen.set(x: x, y: y, cell) }
            }
        }
        pane.render(in: paneRect, into: &screen)
        return screen
    }

    func presented(at now: Double) { pane?.presented(at: now) }
}
