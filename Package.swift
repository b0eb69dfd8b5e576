// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "tscope",
    products: [
        .executable(name: "tscope", targets: ["tscope"]),
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
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // C libraries from Debian's -dev packages; the only places that name C.
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CLibUSB", pkgConfig: "libusb-1.0", providers: [.apt(["libusb-1.0-0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        .target(name: "Signals"),
        .target(name: "ThreadKit"),
        .target(name: "USBDriver", dependencies: ["Signals", "ThreadKit", "CLibUSB"]),
        .target(name: "DSP", dependencies: ["Signals", "ThreadKit", "CFFTW"]),
        .target(name: "Devices", dependencies: ["Signals", "ThreadKit", "USBDriver", "DSP"]),
        .target(
            name: "Capture",
            dependencies: ["Signals", "ThreadKit", "DSP", "CPNG", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(name: "ECG", dependencies: ["Signals", "DSP"]),
        .target(name: "ViewModels", dependencies: ["Signals", "DSP", "ECG"]),
        .target(name: "Terminal", dependencies: ["Signals"]),
        // Draws view models into a Terminal buffer (between ViewModels and the executable).
        .target(name: "Views", dependencies: ["Signals", "DSP", "ECG", "ViewModels", "Terminal"]),
        // The capture store in PostgreSQL (postgres-nio): many sensors and sessions in one database.
        .target(
            name: "PostgresStore",
            dependencies: ["Signals", "ThreadKit", "Capture", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        // What tscope offers to other systems: Prometheus metrics over HTTP (swift-prometheus on SwiftNIO).
        .target(
            name: "Telemetry",
            dependencies: [
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Headless and interactive runs: what a command does once its options are parsed.
        .target(
            name: "Runs",
            dependencies: [
                "Signals", "ThreadKit", "USBDriver", "DSP", "Devices", "Capture", "ECG", "ViewModels", "Terminal", "Views",
                "Telemetry", "PostgresStore", .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "tscope",
            dependencies: [
                "Signals", "ThreadKit", "USBDriver", "DSP", "Devices", "Capture", "ECG", "Runs", "ViewModels", "Terminal",
                "Views",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "SignalsTests", dependencies: ["Signals"]),
        .testTarget(name: "ThreadKitTests", dependencies: ["ThreadKit"]),
        .testTarget(name: "USBDriverTests", dependencies: ["USBDriver", "Signals"]),
        .testTarget(name: "DSPTests", dependencies: ["DSP", "Signals", "CFFTW"]),
        .testTarget(name: "DevicesTests", dependencies: ["Devices", "USBDriver", "DSP", "Signals"]),
        .testTarget(
            name: "CaptureTests",
            dependencies: ["Capture", "Signals", "DSP", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "ECGTests", dependencies: ["ECG", "Signals", "DSP"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ViewModelsTests", dependencies: ["ViewModels", "DSP", "Signals"]),
        // Golden screens are read from the source tree (#filePath) so a failing run can rewrite them.
        .testTarget(
            name: "ViewsTests",
            dependencies: ["Views", "ViewModels", "ECG", "Terminal", "Signals", "DSP"],
            exclude: ["Golden"]
        ),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "Signals"]),
        // Replays Fuzz/corpus through the harnesses in Fuzz/harnesses (Fuzz/README.md).
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["Capture", "ECG", "Devices", "DSP", "Terminal", "USBDriver", "Signals",
                           .product(name: "GRDB", package: "GRDB.swift")],
            path: "Fuzz",
            exclude: ["README.md", "corpus"],
            sources: ["harnesses", "CorpusReplayTests.swift"]
        ),
        .testTarget(
            name: "RunsTests",
            dependencies: ["Runs", "Capture", "Devices", "DSP", "Signals"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["tscope", "Devices", "USBDriver", "Capture", "Signals"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
