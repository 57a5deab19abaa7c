// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "PullRefresh",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pullrefresh", targets: ["pullrefresh"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "Mustache", targets: ["Mustache"]),
        .library(name: "Feed", targets: ["Feed"]),
        .library(name: "Metrics", targets: ["Metrics"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "Metrics"),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Metrics"]),
        .target(name: "Mustache"),
        .target(name: "Feed", dependencies: ["HTTPServer", "Metrics", "Mustache"]),
        .executableTarget(name: "pullrefresh", dependencies: ["HTTPServer", "Metrics", "Mustache", "Feed"]),
        .executableTarget(
            name: "feed-bench", dependencies: ["HTTPServer", "Mustache", "Feed"], path: "bench/FeedBench"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(
            name: "MustacheTests",
            dependencies: ["Mustache"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(name: "FeedTests", dependencies: ["Feed", "HTTPServer", "Mustache", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
