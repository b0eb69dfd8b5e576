import Terminal

/// Where the parts of the spectrum screen go for a terminal of a given size.
/// Below 40×10 cells the axes are hidden and the trace takes what is left;
/// below 8×3 only the status line remains.
struct PlotLayout: Equatable {
    /// the header row: device, band, bin width, rates
    var status: Rect
    /// braille trace area
    var plot: Rect
    /// dB labels left of the plot (empty when hidden)
    var levelAxis: Rect
    /// tick row and label row under the plot (empty when hidden)
    var frequencyAxis: Rect
    /// key help row (empty when hidden)
    var help: Rect

    /// cells reserved for dB labels and the axis line
    static let levelAxisWidth = 6

    init(width: Int, height: Int) {
        let w = max(width, 0), h = max(height, 0)
        status = Rect(x: 0, y: 0, width: w, height: h > 0 ? 1 : 0)
        if w >= 40 && h >= 10 {
            let axis = PlotLayout.levelAxisWidth
            help = Rect(x: 0, y: h - 1, width: w, height: 1)
            frequencyAxis = Rect(x: axis - 1, y: h - 3, width: w - axis + 1, height: 2)
            plot = Rect(x: axis, y: 1, width: w - axis - 1, height: h - 4)
            levelAxis = Rect(x: 0, y: 1, width: axis, height: h - 4)
        } else {
            help = Rect(x: 0, y: 0, width: 0, height: 0)
            frequencyAxis = help
            levelAxis = help
            plot = w >= 8 && h >= 3 ? Rect(x: 0, y: 1, width: w, height: h - 1) : help
        }
    }

    var showsAxes: Bool { !levelAxis.isEmpty }
}
