import CECGModels

/// The trained models' JSON documents, assembled into the binary from `Sources/CECGModels/models`
/// (one data file each, written by the trainers in Tools/; Docs/model-cards.md). Retraining changes
/// those files and one hash line in `embed.S`, not Swift source.
enum EmbeddedModel: CaseIterable {
    case verdictTrees, verdictNetwork, ventricularBeat, rrAF

    /// the data file's name in `Sources/CECGModels/models`
    var fileName: String {
        switch self {
        case .verdictTrees: "verdict-trees.json"
        case .verdictNetwork: "verdict-network.json"
        case .ventricularBeat: "ventricular-beat.json"
        case .rrAF: "rr-af.json"
        }
    }

    /// the document's bytes as the build embedded them (read-only data of the binary, never freed)
    var bytes: UnsafeBufferPointer<UInt8> {
        var count = 0
        let first: UnsafePointer<UInt8>? = switch self {
        case .verdictTrees: tscope_model_verdict_trees(&count)
        case .verdictNetwork: tscope_model_verdict_network(&count)
        case .ventricularBeat: tscope_model_ventricular_beat(&count)
        case .rrAF: tscope_model_rr_af(&count)
        }
        return UnsafeBufferPointer(start: first, count: count)
    }

    /// the document as text (UTF-8)
    var text: String { String(decoding: bytes, as: UTF8.self) }
}
