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
        .library(name: "FeedWeb", targets: ["FeedWeb"]),
        .library(name: "Metrics", targets: ["Metrics"]),
        .library(name: "RedisFeed", targets: ["RedisFeed"]),
        .library(name: "Upstream", targets: ["Upstream"]),
        .library(name: "Images", targets: ["Images"]),
        .library(name: "Thumbnails", targets: ["Thumbnails"]),
        .library(name: "Database", targets: ["Database"]),
        .library(name: "Storage", targets: ["Storage"]),
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
        // libvips 8.14 (libvips-dev): thumbnails. The module map links libvips and glib/gobject;
        // glib-2.0's pkg-config adds the include folders its headers need (vips.pc's own flags
        // would add -pthread, which SwiftPM drops with a warning, and a dozen folders no public
        // libvips header uses).
        .systemLibrary(name: "CVips", pkgConfig: "glib-2.0", providers: [.apt(["libvips-dev"])]),
        // SQLite 3.40 (libsqlite3-dev): the store of record. No pkgConfig: sqlite3.pc only adds
        // the default include folder.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "Metrics"),
        .target(name: "Allocator", dependencies: ["CMalloc"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Metrics"]),
        .target(name: "Compression", dependencies: ["CZlib", "CBrotli"]),
        .target(name: "Mustache"),
        .target(name: "Feed", dependencies: ["HTTPServer", "Metrics"]),
        .target(name: "FeedWeb", dependencies: ["Feed", "HTTPServer", "Metrics", "Mustache", "Compression"]),
        .target(name: "RedisFeed", dependencies: ["CHiredis", "Feed", "HTTPServer"]),
        .target(name: "Upstream", dependencies: ["CCurl", "CLibXML2", "Feed", "HTTPServer", "Metrics"]),
        .target(name: "Images", dependencies: ["CVips"]),
        .target(name: "Database", dependencies: ["CSQLite"]),
        .target(name: "Storage", dependencies: ["Database", "Feed"]),
        .target(
            name: "Thumbnails",
            dependencies: ["Allocator", "Feed", "FeedWeb", "HTTPServer", "Images", "Metrics", "Upstream"]),
        .executableTarget(
            name: "pullrefresh",
            dependencies: [
                "Allocator", "HTTPServer", "Images", "Metrics", "Mustache", "Feed", "FeedWeb", "RedisFeed",
                "Upstream", "Thumbnails", "Database", "Storage",
            ]),
        .executableTarget(
            name: "feed-bench",
            dependencies: ["HTTPServer", "Metrics", "Mustache", "Feed", "FeedWeb", "Compression"],
            path: "bench/FeedBench"),
        .executableTarget(name: "image-bench", dependencies: ["Images"], path: "bench/ImageBench"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(
            name: "MustacheTests",
            dependencies: ["Mustache"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(
            name: "FeedTests",
            dependencies: ["Feed", "FeedWeb", "HTTPServer", "Mustache", "Compression", "TestSupport"]),
        .testTarget(
            name: "UpstreamTests",
            dependencies: ["Upstream", "Feed", "FeedWeb", "HTTPServer", "Storage", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "ImagesTests", dependencies: ["Images", "TestSupport"]),
        .testTarget(
            name: "ThumbnailsTests",
            dependencies: [
                "Thumbnails", "Images", "Feed", "FeedWeb", "HTTPServer", "Metrics", "Upstream", "TestSupport",
            ]),
        .testTarget(
            name: "StorageTests", dependencies: ["Storage", "Database", "Feed"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "RedisFeedTests", dependencies: ["RedisFeed", "Feed", "HTTPServer", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
