import Terminal

/// Where the parts of the plot or waterfall go inside the area between the
/// status line and the key help: a data rect (braille trace or waterfall
/// image), the axis on its left (dB or time), and the frequency axis below;
/// the column right of the data rect stays free for the drawer handle. The
/// plot and the waterfall share this so their frequency axes line up. Below
/// 40×8 cells the axes are hidden and the data takes the whole area.
struct PlotLayout: Equatable {
    /// braille trace / waterfall image
    var plot: Rect
    /// labels left of the data (empty when hidden)
    var levelAxis: Rect
    /// tick row and label row under the data (empty when hidden)
    var frequencyAxis: Rect
    /// right of the data: the waterfall's colour bar and its dB labels
    /// (empty for the plot, or when hidden)
    var legend: Rect

    /// cells reserved for the left labels and the axis line
    static let levelAxisWidth = 6

    /// cells the waterfall's colour-bar legend takes: a gap, a bar two
    /// cells wide, a gap and labels up to four characters ("-120")
    static let legendWidth = 8

    /// - Parameter legendWidth: cells to keep right of the data for a legend
    init(area: Rect, legendWidth: Int = 0) {
        let none = Rect(x: area.x, y: area.y, width: 0, height: 0)
        if area.width >= 40 && area.height >= 8 {
            let axis = PlotLayout.levelAxisWidth
            frequencyAxis = Rect(x: area.x + axis - 1, y: area.maxY - 2, width: area.width - axis + 1, height: 2)
            plot = Rect(x: area.x + axis, y: area.y, width: area.width - axis - 1 - legendWidth,
                        height: area.height - 2)
            levelAxis = Rect(x: area.x, y: area.y, width: axis, height: area.height - 2)
            legend = Rect(x: plot.maxX, y: plot.y, width: legendWidth, height: plot.height)
        } else {
            frequencyAxis = none
            levelAxis = none
            legend = none
            plot = area.width >= 8 && area.height >= 2 ? area : none
        }
    }

    var showsAxes: Bool { !levelAxis.isEmpty }
}

/// The whole screen: status line on top, key help at the bottom (hidden
/// below 40×10), the drawer carved from the right of the body when open, and
/// the drawer handle in the middle of the right edge.
struct ScreenLayout: Equatable {
    var status: Rect
    /// key help row (empty when hidden)
    var help: Rect
    /// where the current view draws
    var main: Rect
    /// the open drawer (empty when closed)
    var drawer: Rect
    /// the cell of the drawer handle (x, y); nil when the body is too small
    var handle: (x: Int, y: Int)?

    /// widest the drawer gets [cells]
    static let drawerWidth = 28

    init(width: Int, height: Int, drawerOpen: Bool) {
        let w = max(width, 0), h = max(height, 0)
        status = Rect(x: 0, y: 0, width: w, height: h > 0 ? 1 : 0)
        let showsHelp = w >= 40 && h >= 10
        help = showsHelp ? Rect(x: 0, y: h - 1, width: w, height: 1) : Rect(x: 0, y: 0, width: 0, height: 0)
        let body = Rect(x: 0, y: 1, width: w, height: h - 1 - (showsHelp ? 1 : 0))
        if drawerOpen && body.width >= 12 && body.height >= 3 {
            let drawerWidth = min(Self.drawerWidth, body.width)
            drawer = Rect(x: body.maxX - drawerWidth, y: body.y, width: drawerWidth, height: body.height)
            main = Rect(x: body.x, y: body.y, width: body.width - drawerWidth, height: body.height)
        } else {
            drawer = Rect(x: body.maxX, y: body.y, width: 0, height: 0)
            main = body
        }
        handle = body.width >= 12 && body.height >= 3
            ? (x: drawerOpen ? drawer.x : body.maxX - 1, y: body.y + body.height / 2) : nil
    }

    static func == (a: ScreenLayout, b: ScreenLayout) -> Bool {
        a.status == b.status && a.help == b.help && a.main == b.main && a.drawer == b.drawer
            && a.handle?.x == b.handle?.x && a.handle?.y == b.handle?.y
    }
}
