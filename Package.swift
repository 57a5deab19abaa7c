// swift-tools-version: 6.0
import PackageDescription

/// Every Swift target (set at the end): imports are internal unless marked `public import` (a
/// public signature needs the module), and a member is visible only where its module is
/// imported (as in Hummingbird 2).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "PullRefresh",
    products: [
        .executable(name: "pullrefresh", targets: ["pullrefresh"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "Mustache", targets: ["Mustache"]),
        .library(name: "Feed", targets: ["Feed"]),
        .library(name: "FeedWeb", targets: ["FeedWeb"]),
        .library(name: "Metrics", targets: ["Metrics"]),
        .library(name: "RedisFeed", targets: ["RedisFeed"]),
        .library(name: "Logging", targets: ["Logging"]),
        .library(name: "HTTPClient", targets: ["HTTPClient"]),
        .library(name: "FeedParsing", targets: ["FeedParsing"]),
        .library(name: "River", targets: ["River"]),
        .library(name: "RedisClient", targets: ["RedisClient"]),
        .library(name: "EventStreams", targets: ["EventStreams"]),
        .library(name: "Images", targets: ["Images"]),
        .library(name: "Thumbnails", targets: ["Thumbnails"]),
        .library(name: "Database", targets: ["Database"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "Secrets", targets: ["Secrets"]),
        .library(name: "Owner", targets: ["Owner"]),
        .library(name: "Reading", targets: ["Reading"]),
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
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // uchardet 0.0.7 (libuchardet-dev): the encoding of feeds that declare none.
        .systemLibrary(name: "CUchardet", pkgConfig: "uchardet", providers: [.apt(["libuchardet-dev"])]),
        // libvips 8.14 (libvips-dev): thumbnails. The module map links libvips and glib/gobject;
        // glib-2.0's pkg-config adds the include folders its headers need (vips.pc's own flags
        // would add -pthread, which SwiftPM drops with a warning, and a dozen folders no public
        // libvips header uses).
        .systemLibrary(name: "CVips", pkgConfig: "glib-2.0", providers: [.apt(["libvips-dev"])]),
        // SQLite 3.40 (libsqlite3-dev): the store of record. No pkgConfig: sqlite3.pc only adds
        // the default include folder.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libsodium 1.0.18 (libsodium-dev): Argon2id password hashes, random tokens, the keyed
        // hash of sessions and tokens. No pkgConfig: libsodium.pc only adds the default folders.
        .systemLibrary(name: "CSodium", providers: [.apt(["libsodium-dev"])]),
        // Layer 1, base: no C, no HTTP.
        .target(name: "Logging"),
        .target(name: "Metrics"),
        .target(name: "Mustache"),
        // Layer 2: one module per C library, named for its job.
        .target(
            name: "HTTPServer", dependencies: ["CMicroHTTPD", "Logging", "Metrics"]),
        .target(name: "Compression", dependencies: ["CZlib", "CBrotli"]),
        .target(name: "HTTPClient", dependencies: ["CCurl"]),
        .target(name: "EncodingDetection", dependencies: ["CUchardet"]),
        .target(
            name: "FeedParsing", dependencies: ["CLibXML2", "EncodingDetection", "Feed", "HTTPClient"]),
        .target(name: "RedisClient", dependencies: ["CHiredis"]),
        .target(name: "Images", dependencies: ["CVips"]),
        .target(name: "Allocator", dependencies: ["CMalloc"]),
        .target(name: "Database", dependencies: ["CSQLite"]),
        .target(name: "Secrets", dependencies: ["CSodium"]),
        // Layer 3, domain.
        .target(name: "Feed", dependencies: ["Metrics"]),
        .target(
            name: "River", dependencies: ["Feed", "FeedParsing", "HTTPClient", "Logging", "Metrics"]),
        .target(name: "RedisFeed", dependencies: ["Feed", "Logging", "RedisClient"]),
        .target(name: "Reading", dependencies: ["Feed"]),
        .target(name: "Storage", dependencies: ["Database", "Feed", "Reading"]),
        .target(name: "Owner", dependencies: ["Logging", "Secrets", "Storage"]),
        // Layer 4, surfaces.
        .target(name: "EventStreams", dependencies: ["HTTPServer"]),
        .target(
            name: "FeedWeb",
            dependencies: [
                "Compression", "EventStreams", "Feed", "HTTPServer", "Logging", "Metrics", "Mustache",
                "Owner", "Reading",
            ]),
        .target(
            name: "Thumbnails",
            dependencies: ["Allocator", "Feed", "HTTPClient", "HTTPServer", "Images", "Logging", "Metrics"]),
        // Layer 5, the executable: flags, wiring, signals.
        .executableTarget(
            name: "pullrefresh",
            dependencies: [
                "Allocator", "Feed", "FeedParsing", "FeedWeb", "HTTPClient", "HTTPServer", "Images",
                "Logging",
                "Metrics", "Mustache", "RedisClient", "RedisFeed", "River", "Thumbnails", "Database",
                "Storage", "Owner", "Reading",
            ]),
        .executableTarget(
            name: "feed-bench",
            dependencies: ["Compression", "Feed", "FeedWeb", "HTTPServer", "Logging", "Metrics", "Mustache"],
            path: "bench/FeedBench"),
        .executableTarget(name: "image-bench", dependencies: ["Images"], path: "bench/ImageBench"),
        .executableTarget(
            name: "feed-parse-bench", dependencies: ["FeedParsing", "HTTPClient"],
            path: "bench/FeedParseBench"),
        // Tests: one target per module that has tests; TestSupport holds what several share
        // (raw HTTP, the fixture servers, Redis, feed samples, a manual clock).
        .target(name: "TestSupport", dependencies: ["Feed"], path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "Logging", "TestSupport"]),
        .testTarget(name: "MustacheTests", dependencies: ["Mustache"], resources: [.copy("Fixtures")]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(name: "CompressionTests", dependencies: ["Compression", "TestSupport"]),
        .testTarget(name: "FeedTests", dependencies: ["Feed", "TestSupport"]),
        .testTarget(name: "EventStreamsTests", dependencies: ["EventStreams", "HTTPServer", "TestSupport"]),
        .testTarget(
            name: "FeedWebTests",
            dependencies: [
                "Compression", "Feed", "FeedWeb", "HTTPServer", "Logging", "Metrics", "Mustache",
                "TestSupport",
            ]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "TestSupport"]),
        .testTarget(
            name: "FeedParsingTests", dependencies: ["Feed", "FeedParsing", "HTTPClient", "TestSupport"]),
        .testTarget(
            name: "RiverTests",
            dependencies: [
                "Feed", "FeedParsing", "FeedWeb", "HTTPClient", "HTTPServer", "Logging", "Mustache", "River",
                "Storage", "TestSupport",
            ]),
        .testTarget(name: "ImagesTests", dependencies: ["Images", "TestSupport"]),
        .testTarget(name: "EncodingDetectionTests", dependencies: ["EncodingDetection"]),
        .testTarget(
            name: "ThumbnailsTests",
            dependencies: [
                "Feed", "FeedWeb", "HTTPClient", "HTTPServer", "Images", "Logging", "Metrics", "TestSupport",
                "Thumbnails",
            ]),
        .testTarget(name: "RedisClientTests", dependencies: ["RedisClient", "TestSupport"]),
        .testTarget(
            name: "StorageTests", dependencies: ["Database", "Feed", "Storage"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "SecretsTests", dependencies: ["Secrets"]),
        .testTarget(name: "OwnerTests", dependencies: ["Database", "Logging", "Owner", "Storage"]),
        .testTarget(
            name: "RedisFeedTests",
            dependencies: ["Feed", "Logging", "RedisClient", "RedisFeed", "TestSupport"]),
        // The executable's flag table: parser, --help and docs/configuration.md (runs the binary too).
        .testTarget(
            name: "pullrefreshTests",
            dependencies: [
                "Feed", "FeedWeb", "HTTPServer", "Logging", "Metrics", "Owner", "River", "Storage",
                "TestSupport",
                "pullrefresh",
            ]),
        // Each module's allowed imports, checked against Sources/ and this file.
        .testTarget(name: "PackageLayoutTests"),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strict
}
