// swift-tools-version:6.1
import PackageDescription

/// `-O` for the hot modules in debug builds as well (release builds are optimised anyway).
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// The ECG module: `-O` in debug too, and in release without the run-time exclusivity checks on class
/// properties (beat classifier, pipeline, detectors: each has one owner on one thread). Those checks
/// were about 3 % of `ecg classify`'s time (Benchmarks/README.md, "ECG classify"). Debug builds, which
/// the tests run, keep them, so a conflicting access still traps there.
let ecgSettings: [SwiftSetting] = optimisedInDebug
    + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

/// The sensor link's engines (SwiftNIO, gRPC, postgres-nio, swift-prometheus): built only with the trait
/// SensorLink. Remote, PostgresStore and Telemetry are empty modules without it (`#if SensorLink`).
let sensorLink: TargetDependencyCondition? = .when(traits: ["SensorLink"])

let package = Package(
    name: "tscope",
    products: [
        .executable(name: "tscope", targets: ["tscope"]),
        // Tools/bench-serve's load generator: a benchmark tool, not a tscope command
        .executable(name: "tscope-serve-load", targets: ["tscope-serve-load"]),
        // Libraries for the separate Benchmarks/ package.
        .library(name: "Signals", targets: ["Signals"]),
        .library(name: "ThreadKit", targets: ["ThreadKit"]),
        .library(name: "DSP", targets: ["DSP"]),
        .library(name: "CFFTW", targets: ["CFFTW"]),
        .library(name: "ViewModels", targets: ["ViewModels"]),
        .library(name: "Terminal", targets: ["Terminal"]),
        .library(name: "Views", targets: ["Views"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "ECG", targets: ["ECG"]),
        .library(name: "Devices", targets: ["Devices"]),
        .library(name: "Runs", targets: ["Runs"]),
        .library(name: "PostgresStore", targets: ["PostgresStore"]),
    ],
    // The sensor link — `serve` and `--remote` (gRPC), captures in PostgreSQL, `meter --prometheus` — is a
    // trait: off in a plain build, so the first `swift run -c release tscope watch` compiles none of
    // SwiftNIO, gRPC, BoringSSL or postgres-nio; `swift build --traits SensorLink` builds it (Tools/test,
    // Tools/install and CI do).
    traits: [
        .trait(name: "SensorLink", description: "tscope serve and --remote over gRPC, captures in PostgreSQL, meter --prometheus"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // PostgresStore's logger (postgres-nio's own logging API, declared because PostgresStore imports it)
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS to PostgreSQL (sslmode, sslrootcert): the version postgres-nio itself resolves
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // C libraries from Debian's -dev packages; the only places that name C.
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CLibUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CSoapySDR", pkgConfig: "SoapySDR", providers: [.apt(["libsoapysdr-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),

        .target(name: "Signals"),
        .target(name: "ThreadKit"),
        // For tests only: the one `ManualClock` (time moved by hand) and the bounded wait on a condition.
        // No target in Sources depends on it.
        .target(name: "ThreadKitTesting", dependencies: ["ThreadKit"]),
        .target(name: "USBDriver", dependencies: ["Signals", "ThreadKit", "CLibUSB"]),
        // The per-sample loops (FFT input, detectors, the emulators' synthesis) are optimised in
        // debug builds too: the real-time path must keep up with 20 MS/s in the tests, which run
        // the debug build (an unoptimised loop is 10–50× slower).
        .target(name: "DSP", dependencies: ["Signals", "ThreadKit", "CFFTW"], swiftSettings: optimisedInDebug),
        // What an analyzer is to the rest of tscope, without any driver: `SpectrumSource`, its factory and
        // counters, the reconnect supervisor. The sensor link imports this, not `Devices`, so it links
        // neither libusb nor SoapySDR.
        .target(name: "Analyzers", dependencies: ["Signals", "ThreadKit", "DSP"]),
        .target(name: "Devices", dependencies: ["Signals", "ThreadKit", "USBDriver", "DSP", "Analyzers", "CSoapySDR"],
                swiftSettings: optimisedInDebug),
        .target(
            name: "Capture",
            dependencies: ["Signals", "ThreadKit", "DSP", "CPNG", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // the detectors and filters run per sample: optimised in debug builds too (the detector table scores 70 records)
        // The trained ECG models' JSON, assembled into the binary by embed.S (.incbin finds models/*.json on
        // the header search path); Docs/model-cards.md.
        .target(name: "CECGModels", exclude: ["models"], cSettings: [.headerSearchPath("models")]),
        // Per-sample ECG loops in C, built for the baseline processor and for AVX (target_clones): the same
        // operations in the same order as the Swift they replace (kernels.c says why).
        .target(name: "CECGKernels", cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "ECG", dependencies: ["Signals", "ThreadKit", "DSP", "CECGModels", "CECGKernels"],
                swiftSettings: ecgSettings),
        // BlueZ over D-Bus (libdbus-1): ECG and heart-rate sensors over Bluetooth LE, and their profiles' decoders.
        // Small on purpose (no ECG, no DSP): Runs turns its samples and RR intervals into ECG sources.
        .target(name: "BluetoothLE", dependencies: ["CDBus", "ThreadKit"]),
        .target(name: "ViewModels", dependencies: ["Signals", "DSP", "ECG"]),
        .target(name: "Terminal", dependencies: ["Signals"]),
        // Draws view models into a Terminal buffer (between ViewModels and the executable).
        .target(name: "Views", dependencies: ["Signals", "ThreadKit", "DSP", "ECG", "ViewModels", "Terminal"]),
        // The capture store in PostgreSQL (postgres-nio): many sensors and sessions in one database.
        .target(
            name: "PostgresStore",
            dependencies: ["Signals", "ThreadKit", "Capture",
                           .product(name: "PostgresNIO", package: "postgres-nio", condition: sensorLink),
                           .product(name: "NIOCore", package: "swift-nio", condition: sensorLink),
                           .product(name: "NIOPosix", package: "swift-nio", condition: sensorLink),
                           .product(name: "NIOSSL", package: "swift-nio-ssl", condition: sensorLink),
                           .product(name: "Logging", package: "swift-log", condition: sensorLink)]
        ),
        // What tscope offers to other systems: Prometheus metrics over HTTP (swift-prometheus on SwiftNIO).
        .target(
            name: "Telemetry",
            dependencies: [
                "Signals", "ThreadKit",
                .product(name: "Prometheus", package: "swift-prometheus", condition: sensorLink),
                .product(name: "NIOCore", package: "swift-nio", condition: sensorLink),
                .product(name: "NIOPosix", package: "swift-nio", condition: sensorLink),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: sensorLink),
            ]
        ),
        // A sensor's analyzer over the network (gRPC: grpc-swift-2 on SwiftNIO HTTP/2, messages from
        // Protos/ generated into Sources/Remote/Generated by Tools/generate-grpc).
        .target(
            name: "Remote",
            dependencies: [
                "Signals", "ThreadKit", "DSP", "Analyzers",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: sensorLink),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: sensorLink),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf", condition: sensorLink),
                .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: sensorLink),
            ]
        ),
        // Headless and interactive runs: what a command does once its options are parsed.
        .target(
            name: "Runs",
            dependencies: [
                "Signals", "ThreadKit", "USBDriver", "DSP", "Analyzers", "Devices", "Capture", "ECG", "ViewModels", "Terminal",
                "Views", "Telemetry", "PostgresStore", "Remote", "BluetoothLE",
            ]
        ),
        // The options commands share (device, detector, capture input, ECG source, event condition) and the
        // argument types (band, time span, speed), parsed by ArgumentParser and turned into Runs' requests.
        .target(
            name: "CommandOptions",
            dependencies: [
                "Signals", "DSP", "Devices", "Capture", "ECG", "Runs", "Remote", "ViewModels", "BluetoothLE",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "tscope-serve-load",
            dependencies: ["Remote", "Signals", "DSP", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/serve-load"
        ),
        .executableTarget(
            name: "tscope",
            dependencies: [
                "Signals", "ThreadKit", "USBDriver", "DSP", "Devices", "Capture", "ECG", "Runs", "Remote", "ViewModels",
                "Terminal", "Views", "CommandOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "SignalsTests", dependencies: ["Signals"]),
        .testTarget(name: "ThreadKitTests", dependencies: ["ThreadKit", "ThreadKitTesting"]),
        .testTarget(name: "USBDriverTests", dependencies: ["USBDriver", "Signals", "CLibUSB", "ThreadKitTesting"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP", "Signals", "CFFTW"],
                    // real I/Q excerpts, read from the source tree (#filePath)
                    exclude: ["Fixtures"]),
        .testTarget(
            name: "DevicesTests",
            dependencies: ["Devices", "Analyzers", "USBDriver", "DSP", "Signals", "ThreadKit", "ThreadKitTesting"],
            // captured device answers, read from the source tree (#filePath)
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CaptureTests",
            dependencies: ["Capture", "Signals", "DSP", "ThreadKitTesting", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "BluetoothLETests", dependencies: ["BluetoothLE"]),
        .testTarget(name: "ECGTests", dependencies: ["ECG", "Signals", "DSP", "ThreadKitTesting"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ViewModelsTests", dependencies: ["ViewModels", "ECG", "DSP", "Signals", "ThreadKitTesting"]),
        // Golden screens are read from the source tree (#filePath) so a failing run can rewrite them.
        .testTarget(
            name: "ViewsTests",
            dependencies: ["Views", "ViewModels", "ECG", "Terminal", "Signals", "DSP"],
            exclude: ["Golden"]
        ),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "Signals", "ThreadKitTesting"]),
        // Replays Fuzz/corpus through the harnesses in Fuzz/harnesses (Fuzz/README.md).
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["Capture", "ECG", "Analyzers", "Devices", "DSP", "Terminal", "USBDriver", "Signals", "BluetoothLE",
                           .product(name: "GRDB", package: "GRDB.swift")],
            path: "Fuzz",
            exclude: ["README.md", "corpus"],
            sources: ["harnesses", "CorpusReplayTests.swift"]
        ),
        .testTarget(
            name: "CommandOptionsTests",
            dependencies: ["CommandOptions", "Runs", "Remote", "Devices", "ViewModels", "Signals",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "RemoteTests",
            dependencies: ["Remote", "Analyzers", "Devices", "Runs", "DSP", "Signals", "ThreadKit", "ThreadKitTesting"]
        ),
        .testTarget(
            name: "RunsTests",
            dependencies: ["Runs", "Capture", "Analyzers", "Devices", "DSP", "Signals", "Terminal", "ThreadKit", "ThreadKitTesting"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["tscope", "Analyzers", "Devices", "USBDriver", "Capture", "DSP", "ECG", "Signals"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
