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
        .library(name: "RedisFeed", targets: ["RedisFeed"]),
        .library(name: "Upstream", targets: ["Upstream"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"])]),
        // No pkgConfig: hiredis.pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with a
        // warning; the shim includes <hiredis/hiredis.h> and the module map links the library.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        // No pkgConfig either: libcurl.pc only adds the default multiarch include folder.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "Metrics"),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Metrics"]),
        .target(name: "Compression", dependencies: ["CZlib", "CBrotli"]),
        .target(name: "Mustache"),
        .target(name: "Feed", dependencies: ["HTTPServer", "Metrics", "Mustache", "Compression"]),
        .target(name: "RedisFeed", dependencies: ["CHiredis", "Feed", "HTTPServer"]),
        .target(name: "Upstream", dependencies: ["CCurl", "Feed", "Metrics"]),
        .executableTarget(
            name: "pullrefresh",
            dependencies: ["CMalloc", "HTTPServer", "Metrics", "Mustache", "Feed", "RedisFeed", "Upstream"]),
        .executableTarget(
            name: "feed-bench", dependencies: ["HTTPServer", "Metrics", "Mustache", "Feed", "Compression"],
            path: "bench/FeedBench"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(
            name: "MustacheTests",
            dependencies: ["Mustache"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(
            name: "FeedTests", dependencies: ["Feed", "HTTPServer", "Mustache", "Compression", "TestSupport"]),
        .testTarget(
            name: "UpstreamTests", dependencies: ["Upstream", "Feed", "HTTPServer", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "RedisFeedTests", dependencies: ["RedisFeed", "Feed", "HTTPServer", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
