/// Help texts made from the codec list, so no command lists formats by hand.
extension CaptureFormat {
    /// One line per format: name, r (read) and w (written), summary.
    public static var helpTable: String {
        let width = allCases.map(\.rawValue.count).max() ?? 0
        return allCases.map { format in
            let name = format.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
            let access = (format.canRead ? "r" : "-") + (format.canWrite ? "w" : "-")
            return "  \(name)  \(access)  \(format.codec.summary)"
        }.joined(separator: "\n")
    }

    /// The output extensions that name a format: ".tscope: tscope, .bin: hackrf_sweep_binary, …".
    public static var outputExtensionsHelp: String {
        allCases.filter { !$0.codec.outputExtensions.isEmpty }.map { format in
            format.codec.outputExtensions.map { "." + $0 }.joined(separator: ", ") + ": " + format.rawValue
        }.joined(separator: "; ")
    }
}
