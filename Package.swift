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
        .library(name: "RedisFeed", targets: ["RedisFeed"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD"]),
        .target(name: "Mustache"),
        .target(name: "Feed", dependencies: ["HTTPServer", "Mustache"]),
        .target(name: "RedisFeed", dependencies: ["CHiredis", "Feed", "HTTPServer"]),
        .executableTarget(
            name: "pullrefresh", dependencies: ["HTTPServer", "Mustache", "Feed", "RedisFeed"]),
        .executableTarget(
            name: "feed-bench", dependencies: ["HTTPServer", "Mustache", "Feed"], path: "bench/FeedBench"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(
            name: "MustacheTests",
            dependencies: ["Mustache"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "FeedTests", dependencies: ["Feed", "HTTPServer", "Mustache", "TestSupport"]),
        .testTarget(
            name: "RedisFeedTests", dependencies: ["RedisFeed", "Feed", "HTTPServer", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
