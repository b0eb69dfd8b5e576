// swift-tools-version:6.1
// Benchmarks for tscope: DSP, views, ECG, capture store, formats, RTL-SDR. A
// separate package so that `swift test` at the root never builds or resolves
// the benchmark tooling.
import PackageDescription

let package = Package(
    name: "tscope-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "tscope", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "DSPBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DSP", package: "tscope"),
                .product(name: "Signals", package: "tscope"),
                .product(name: "CFFTW", package: "tscope"),
            ],
            path: "Benchmarks/DSPBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RTLSDRBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "DSP", package: "tscope"),
                .product(name: "Devices", package: "tscope"),
            ],
            path: "Benchmarks/RTLSDRBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ViewsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Signals", package: "tscope"),
                .product(name: "ViewModels", package: "tscope"),
                .product(name: "Terminal", package: "tscope"),
                .product(name: "Views", package: "tscope"),
            ],
            path: "Benchmarks/ViewsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ECGViewBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ECG", package: "tscope"),
                .product(name: "ViewModels", package: "tscope"),
                .product(name: "Terminal", package: "tscope"),
                .product(name: "Views", package: "tscope"),
            ],
            path: "Benchmarks/ECGViewBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CaptureBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Capture", package: "tscope"),
                .product(name: "Signals", package: "tscope"),
                .product(name: "PostgresStore", package: "tscope"),
            ],
            path: "Benchmarks/CaptureBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "FormatsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Capture", package: "tscope"),
                .product(name: "Signals", package: "tscope"),
            ],
            path: "Benchmarks/FormatsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ECGBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ECG", package: "tscope"),
            ],
            path: "Benchmarks/ECGBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
