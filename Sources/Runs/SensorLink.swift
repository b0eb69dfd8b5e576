/// The sensor link: `tscope serve` and `--remote` (gRPC over SwiftNIO), captures in PostgreSQL
/// (postgres-nio) and `meter --prometheus` (swift-prometheus). It is the package trait `SensorLink`,
/// off in a plain build so that the first `swift run -c release tscope watch` compiles none of those
/// engines; `swift build -c release --traits SensorLink` (and Tools/install) build it. Without it,
/// asking for any of them ends in the one error `missing` makes.
public enum SensorLink {
    /// whether this binary was built with the sensor link
    public static var isBuilt: Bool {
        #if SensorLink
        true
        #else
        false
        #endif
    }

    /// the command that builds tscope with it
    public static let buildCommand = "swift build -c release --traits SensorLink"

    /// `what` (e.g. "--remote") cannot be had from this binary: how to build one that has it.
    public static func missing(_ what: String) -> CommandError {
        CommandError("\(what) needs the sensor link, which this tscope was built without; build it with `\(buildCommand)` "
            + "(the binary is then .build/release/tscope) or install with Tools/install")
    }

    /// a PostgreSQL capture store's address (`postgresql://…`, `postgres://…`), with or without the sensor link
    public static func isDatabaseURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }
}
