// swift-tools-version: 6.0
// libFuzzer targets for PullRefresh; see run.sh. Build with
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, so the main package's identity is the
// checkout's directory name ("main" in /work/main), not "PullRefresh".
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent
let dependencies: [Target.Dependency] =
    ["FuzzerEntry"]
    + ["Feed", "FeedWeb", "HTTPServer", "Logging", "Mustache"].map { .product(name: $0, package: root) }
// fuzz-mustache and fuzz-request compile the oracle in Oracles/FuzzOracle.swift (a symlink in each
// target folder; FeedWebTests links it too); FUZZING leaves its Swift Testing suite out.
let settings: [SwiftSetting] = [.define("FUZZING")]
// fuzz-feed compiles Oracles/FeedFuzzOracle.swift the same way (FeedParsingTests links it too),
// fuzz-image Oracles/ImageFuzzOracle.swift (ImagesTests).
let feedDependencies: [Target.Dependency] =
    ["FuzzerEntry"] + ["Feed", "FeedParsing", "HTTPClient"].map { .product(name: $0, package: root) }

let package = Package(
    name: "PullRefreshFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // `<module>_main` for each executable, calling libFuzzer's driver (see entry.c).
        .target(name: "FuzzerEntry"),
        .executableTarget(
            name: "fuzz-mustache", dependencies: dependencies, path: "Sources/FuzzMustache",
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-feed", dependencies: feedDependencies, path: "Sources/FuzzFeed",
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-request", dependencies: dependencies, path: "Sources/FuzzRequest",
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-image", dependencies: ["FuzzerEntry", .product(name: "Images", package: root)],
            path: "Sources/FuzzImage", swiftSettings: settings),
    ],
    swiftLanguageModes: [.v6]
)
