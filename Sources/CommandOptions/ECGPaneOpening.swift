import ArgumentParser
import ECG
import Runs
import ViewModels
import Views

/// `watch --ecg SOURCE`: the ECG pane beside the spectrum, its source opened
/// with `ecg watch`'s defaults (the synthetic ECG with the demo episodes, or
/// a record or CSV replayed at real rate), shown as stacked strips.
public enum ECGPaneOpening {
    /// strip length in the pane [s]
    public static let stripSeconds = 5.0

    public static func pane(source: String) throws -> ECGSidePane {
        let options = try ECGSourceOptions.parse([])
        let feed: ECGFeed
        do {
            feed = try options.request.openFeed(sourcePath: source)
        } catch let error as ECGError {
            throw CommandError("--ecg \(error.description)")
        }
        let model = ECGMonitorModel(strip: feed.makeStrip(stripSeconds: stripSeconds), layout: .strip)
        return ECGSidePane(monitor: ECGLiveMonitor(feed: feed, model: model, showsKeys: false))
    }
}
