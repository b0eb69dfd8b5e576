import ECG
import ViewModels
import Views

/// `watch --ecg SOURCE`: the ECG pane beside the spectrum, its source opened
/// as `ecg watch` opens it (the synthetic ECG with the demo episodes, or a
/// record or CSV replayed at real rate, a Bluetooth sensor), shown as stacked strips.
public enum ECGPaneOpening {
    /// strip length in the pane [s]
    public static let stripSeconds = 5.0

    /// Opens `source` as `request` (`ecg watch`'s defaults, as its options parse with none given) says.
    public static func pane(source: String?, request: ECGSourceRequest) throws -> ECGSidePane {
        let feed: ECGFeed
        do {
            feed = try request.openFeed(sourcePath: source)
        } catch let error as ECGError {
            throw CommandError("--ecg \(error.description)")
        }
        var model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: stripSeconds), layout: .strip)
        if feed.beatSource != nil { model.showTrendOnly() }
        return ECGSidePane(monitor: ECGLiveMonitor(feed: feed, model: model, showsKeys: false))
    }
}
