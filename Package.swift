// swift-tools-version: 6.0
// Folio: a Files app for the terminal. See docs/ARCHITECTURE.md for the module map.
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  // A section per function, so the release link can gather the code a launch runs (see `folio`).
  .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
  // A concrete generic type (`[ItemIdentifier: Row]`, `Set<StyleRole>`) is made by calling its
  // metadata accessor with the witness tables at hand, not by demangling its name at run time: the
  // runtime resolved each such name's requirements (`ItemIdentifier: Hashable`) by scanning all
  // 10,410 conformance records, ~0.45 M instructions per first lookup, 15 of them before the first
  // screen (docs/BENCHMARKS.md, "the runtime's conformance scans").
  .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release)),
]

/// Foundation's static archives, named: without `swift build --static-swift-stdlib`, `-static-stdlib`
/// alone leaves CoreFoundation, ICU and the FoundationEssentials collections unresolved.
/// (FoundationXML is not used: XML goes through libxml2 opened on first use, CLazyXML.)
let staticFoundation = [
  "_FoundationICU", "CoreFoundation", "Foundation", "FoundationEssentials", "FoundationInternationalization",
  "_FoundationCShims", "_FoundationCollections",
].flatMap { ["-Xlinker", "-l\($0)"] }

let package = Package(
  name: "Folio",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "folio", targets: ["folio"]),
    .executable(name: "folio-serve", targets: ["folio-serve"]),
    .executable(name: "folio-bench", targets: ["folio-bench"]),
    .executable(name: "folio-sim", targets: ["folio-sim"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
    .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
    // Already resolved through async-http-client; named so FolioServerProvider can import NIOCore/NIOHTTP1.
    .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
    // Already resolved through hummingbird; named so FolioServer can reach the HTTP/1 codec of
    // swift-http-types under Hummingbird's body writer (SendfileBody).
    .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
    // Already resolved through async-http-client and hummingbird; named for the TLS
    // configurations of both sides (a domain's own trusted certificates; the server's).
    .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
  ],
  targets: [
    // Linux calls Swift cannot reach through Glibc: xattrs, renameat2(RENAME_NOREPLACE), statfs magic.
    .target(name: "CFolioSystem"),
    // The contract between storage and the rest. Foundation only.
    .target(name: "ProviderAPI", swiftSettings: strict),
    // The local SQLite index: working set, tags, favorites, anchors, transfer journal, search.
    .target(
      name: "WorkingSetIndex",
      dependencies: [
        "ProviderAPI", "CFolioSystem", .product(name: "GRDB", package: "GRDB.swift"),
        // sqlite3_compileoption_used: whether SQLite reads URI names (the read-only open).
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      swiftSettings: strict),
    // The local filesystem as a provider.
    .target(name: "LocalProvider", dependencies: ["ProviderAPI", "CFolioSystem"], swiftSettings: strict),
    // The engine: domains, enumerations, working-set bookkeeping, actions, openers.
    .target(
      name: "ProviderCore",
      dependencies: [
        "ProviderAPI", "WorkingSetIndex", "FolioConfig", "CFolioSystem", .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // The FolioServer wire protocol (docs/PROTOCOL.md): bodies shared by the server and its provider.
    .target(name: "FolioProtocol", swiftSettings: strict),
    // `folio serve`: the reference multi-user file server (Hummingbird, SQLite metadata, content on disk).
    .target(
      name: "FolioServer",
      dependencies: [
        "FolioProtocol", "ProviderAPI",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // A FolioServer account as a provider (AsyncHTTPClient). Imports ProviderAPI and the protocol only.
    .target(
      name: "FolioServerProvider",
      dependencies: [
        "FolioProtocol", "ProviderAPI",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // SFTP v3 over the user's own `ssh -s sftp` subprocess: protocol, pipelined transfers, askpass relay.
    // Foundation and Glibc only (docs/DECISIONS.md: why the user's ssh and not an SSH library).
    .target(name: "SFTPClient", swiftSettings: strict),
    // A private sshd on a loopback port for the tests of SFTPClient, SFTPProvider and `folio`.
    .target(name: "SSHTestSupport", dependencies: ["SFTPClient"], swiftSettings: strict),
    // S3 and S3-compatible stores over HTTP (AsyncHTTPClient): SigV4 on swift-crypto, listings, objects,
    // multipart uploads, versions, and credentials as the AWS CLI keeps them.
    .target(
      name: "S3Client",
      dependencies: [
        "XMLStream",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // moto's S3 server on a loopback port, with signature checking on, for the tests of S3Client.
    .target(
      name: "S3TestSupport",
      dependencies: [
        "S3Client", "SSHTestSupport", .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // WebDAV (RFC 4918) over AsyncHTTPClient: streamed PROPFIND, transfers, namespace methods, the
    // conditional-write probe. ProviderAPI only for TerminalText (docs/DECISIONS.md).
    .target(
      name: "WebDAVClient",
      dependencies: [
        "ProviderAPI", "XMLStream",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ],
      swiftSettings: strict),
    // Private Apache mod_dav, nginx dav-ext and `rclone serve webdav` servers on loopback ports for
    // the tests of WebDAVClient (apache2, apache2-utils, nginx, libnginx-mod-http-dav-ext, rclone).
    // Also a double of Nextcloud's endpoints (on TestSupport's ScriptedHTTPServer): it cannot run here.
    .target(name: "WebDAVTestSupport", dependencies: ["TestSupport"], swiftSettings: strict),
    // An SFTP location as a path-keyed provider (no feed, no trash): ProviderAPI and SFTPClient only.
    .target(name: "SFTPProvider", dependencies: ["ProviderAPI", "SFTPClient"], swiftSettings: strict),
    // A WebDAV folder as a path-keyed provider (no feed, no trash): ProviderAPI and WebDAVClient.
    .target(
      name: "WebDAVProvider",
      dependencies: ["ProviderAPI", "WebDAVClient", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    // A bucket (or a folder of one) as a path-keyed provider (no feed, no trash): ProviderAPI and S3Client.
    .target(
      name: "S3Provider",
      dependencies: ["ProviderAPI", "S3Client", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    // `folio ext test`: the conformance kit for FEP/1 extensions (docs/EXTENSIONS.md §6). Drives the
    // extension's process itself, to see raw lines, timings and exits; swift-crypto for SHA-256.
    .target(
      name: "ExtensionConformance", dependencies: ["ProviderAPI", "CFolioSystem", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    // A location served by an out-of-process extension speaking FEP/1 (docs/EXTENSIONS.md): the
    // process, JSON-RPC over its stdio, deadlines, crash isolation. ProviderAPI, Foundation, Glibc.
    .target(
      name: "ExtensionHost",
      dependencies: ["ProviderAPI", "CFolioSystem", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    // config.toml: openers, custom actions, domains, cache budget, theme.
    .target(name: "FolioConfig", dependencies: ["ProviderAPI", "TOMLKit"], swiftSettings: strict),
    // ncursesw, wide API (see Sources/CNCursesW/shim.h). Only TerminalBackend imports it.
    .systemLibrary(name: "CNCursesW", providers: [.apt(["libncurses-dev"])]),
    // PURE: app state, actions, effects, the reducer, key map, screen grid, views, themes.
    .target(
      name: "BrowserUI", dependencies: ["ProviderAPI", "PreviewKit", "CFolioSystem", "TOMLKit"],
      swiftSettings: strict),
    // The preview pane's pure side: the preview model, the one sanitiser every shown byte passes
    // through, text, code, JSON and hex previews. No I/O, no process.
    .target(name: "PreviewKit", dependencies: ["ProviderAPI"], swiftSettings: strict),
    // C for PreviewTools: libmagic's API (libmagic-dev to build; libmagic1 and libmagic-mgc to run)
    // and the helper spawn shim (fork, setsid, rlimits, exec: what posix_spawn and Process cannot).
    // Opened on first use (dlopen), not linked: see magic.c.
    .target(name: "CPreviewTools"),
    // libxml2's push parser behind callbacks, opened with dlopen the first time an S3 or WebDAV
    // answer is read (lazy_xml.c says why); its headers from libxml2-dev, nothing linked.
    .target(name: "CLazyXML", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),
    // XML documents as element and text events, for S3's answers and WebDAV's multistatus.
    .target(name: "XMLStream", dependencies: ["CLazyXML"], swiftSettings: strict),
    // The preview pane's installed helpers: sandboxed processes (own session, deadline, caps,
    // killed with their group), libmagic's type description, PDF/archive/media previewers.
    .target(name: "PreviewTools", dependencies: ["CPreviewTools", "PreviewKit", "ProviderAPI"], swiftSettings: strict),
    // libjpeg-turbo, libpng, giflib and libwebp behind a C shim whose error handlers longjmp
    // (libjpeg's default one calls exit()): a corrupt picture is an error value, never a dead
    // process (libjpeg62-turbo-dev, libpng-dev, libgif-dev, libwebp-dev; docs/DECISIONS.md).
    // The libraries are opened the first time a picture of their format is decoded (dlopen), not
    // linked: every launch paid for mapping them (lazy.h says why).
    .target(name: "CPreviewImage"),
    // Pictures for the preview pane: header checks before decoding, DCT-scaled JPEG, row-by-row box
    // filter, ▀ cells (PictureCells). In-process: no chafa, no helper process.
    .target(name: "PreviewImage", dependencies: ["CPreviewImage", "PreviewKit", "ProviderAPI"], swiftSettings: strict),
    // Encoders over the same libraries, for PreviewImageTests and folio-bench's pictures: never in `folio`.
    .target(
      name: "CPreviewImageFixtures",
      linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("gif"), .linkedLibrary("webp")]),
    // Presents a Screen with ncursesw and reads keys: the only ncurses user.
    .target(name: "TerminalBackend", dependencies: ["BrowserUI", "CNCursesW", "ProviderAPI", "PreviewKit"], swiftSettings: strict),
    // The main loop: terminal input -> Action -> reduce -> Effect -> core -> events -> Action.
    .target(
      name: "BrowserApp",
      dependencies: ["BrowserUI", "ProviderCore", "ProviderAPI", "WorkingSetIndex", "FolioConfig", "PreviewKit", "PreviewTools",
        "PreviewImage",
      ],
      swiftSettings: strict),
    // `folio --version`: the version and the commit built, which BuildInfoPlugin writes into a
    // generated file when HEAD or a source file changes (scripts/build-info; docs/DECISIONS.md).
    .target(name: "FolioBuildInfo", swiftSettings: strict, plugins: ["BuildInfoPlugin"]),
    .plugin(name: "BuildInfoPlugin", capability: .buildTool()),
    // The command-line services and the composition root (the executable is a thin main).
    .target(
      name: "FolioCommandLine",
      dependencies: [
        "FolioBuildInfo", "ProviderAPI", "WorkingSetIndex", "LocalProvider", "ProviderCore", "FolioConfig", "CFolioSystem",
        "BrowserUI", "BrowserApp", "TerminalBackend", "FolioServerProvider", "SFTPClient", "SFTPProvider",
        "S3Client", "S3Provider", "WebDAVClient", "WebDAVProvider", "ExtensionConformance", "ExtensionHost",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict),
    // Release builds link the Swift runtime and Foundation statically: ~5 MiB less resident memory
    // (docs/BENCHMARKS.md, cause 4) and a binary that runs without the toolchain installed. With
    // lld, relative relocations packed as DT_RELR and no exported dynamic symbols (the static
    // stdlib's link arguments add -export-dynamic), the loader reads a few KB instead of 3.4 MB of
    // .rela.dyn and 4 MB of symbol tables at every start: −9 MiB RSS (BENCHMARKS.md, cause 4).
    // The functions a launch runs (Linker/folio-launch.order, made by scripts/launch-order) go
    // first in .text, so the kernel's 64 KB fault-around maps ~7 MiB of code instead of ~15:
    // −9.5 MiB RSS at 1M entries. Names the link does not find (stale ones) are skipped quietly.
    // SQLite, ncursesw (with tinfo) and libstdc++ are linked from their static archives: each
    // shared copy bound its own exported symbols at every start (SQLite and ncurses 2,091 of the
    // loader's 4,500 symbol lookups; libstdc++ 1,737 once nothing else loads it). Linker/static holds one-line linker scripts named like the shared
    // libraries, found first on the search path, that point at the archives (libsqlite3-dev,
    // libncurses-dev, and the libstdc++ -dev package the Swift toolchain needs); debug builds and the other executables link as before.
    .executableTarget(
      name: "folio", dependencies: ["FolioCommandLine"], swiftSettings: strict,
      linkerSettings: [
        .unsafeFlags(
          [
            "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-Xlinker", "--no-export-dynamic", "-L", "\(Context.packageDirectory)/Linker/static",
            "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linker/folio-launch.order",
            "-Xlinker", "--no-warn-symbol-ordering",
          ] + staticFoundation, .when(configuration: .release))
      ]),
    // `folio serve` (and `folio demo`'s server): the server and what only it needs (Hummingbird,
    // its HTTP types, NIOExtras, the server's crypto) kept out of the binary the browser and the
    // other commands run, whose start-up scans every conformance record it holds (docs/DECISIONS.md,
    // "The server is its own executable"). `folio serve` execs it, found beside `folio`.
    .executableTarget(
      name: "folio-serve",
      dependencies: ["FolioServer", "ProviderAPI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      swiftSettings: strict,
      linkerSettings: [
        .unsafeFlags(
          ["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] + staticFoundation,
          .when(configuration: .release))
      ]),
    .executableTarget(
      name: "folio-bench",
      dependencies: [
        "ProviderAPI", "LocalProvider", "ProviderCore", "WorkingSetIndex", "FolioServerProvider", "FolioProtocol",
        "TestSupport", "SFTPClient", "SFTPProvider", "SSHTestSupport", "S3Client", "S3Provider", "S3TestSupport",
        "WebDAVClient", "WebDAVProvider", "WebDAVTestSupport", "PreviewImage", "PreviewKit", "CPreviewImageFixtures",
        "ExtensionHost",
      ],
      swiftSettings: strict),
    // The deterministic simulation of the sync engine (issue 15, docs/SIMULATION.md): the real engine
    // and index on one seeded thread with a virtual clock, against a simulated server with faults.
    .target(
      name: "Simulation",
      dependencies: [
        "ProviderAPI", "ProviderCore", "WorkingSetIndex", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "folio-sim",
      dependencies: ["Simulation", "ProviderCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      swiftSettings: strict),
    // Every parser that reads untrusted bytes as a fuzz target with its own property (docs/FUZZING.md).
    .target(
      name: "FuzzTargets",
      dependencies: [
        "ProviderAPI", "PreviewKit", "BrowserUI", "FolioConfig", "FolioProtocol", "FolioServer", "FolioServerProvider",
        "SFTPClient", "SFTPProvider", "S3Client", "S3Provider", "WebDAVClient", "WebDAVProvider", "ExtensionHost",
        "XMLStream", .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // The seeded mutational fuzzer over FuzzTargets, a child process per batch (docs/FUZZING.md).
    .executableTarget(name: "folio-fuzz", dependencies: ["FuzzTargets"], swiftSettings: strict),
    // Test doubles: InMemoryProvider with injectable latency, failures and clock.
    .target(name: "TestSupport", dependencies: ["ProviderAPI", "BrowserUI"], swiftSettings: strict),
    // Runs the built `folio-sim` (it installs its own executor, so never inside the test runner).
    .testTarget(name: "SimulationTests", dependencies: ["TestExecution"], swiftSettings: strict),
    // A Swift Testing trait for tests that block their thread (processes, tmux): tests only.
    .target(name: "TestExecution", swiftSettings: strict),

    .testTarget(name: "ProviderAPITests", dependencies: ["ProviderAPI"], swiftSettings: strict),
    .testTarget(
      name: "WorkingSetIndexTests", dependencies: ["WorkingSetIndex", "ProviderAPI"], swiftSettings: strict),
    .testTarget(
      name: "LocalProviderTests", dependencies: ["LocalProvider", "ProviderAPI", "CFolioSystem", "TestExecution"],
      swiftSettings: strict),
    .testTarget(
      name: "ProviderCoreTests",
      dependencies: ["ProviderCore", "ProviderAPI", "WorkingSetIndex", "TestSupport", "LocalProvider"],
      swiftSettings: strict),
    // SFTPClient against a private sshd on a loopback port (needs openssh-server: .ci/run installs it).
    .testTarget(
      name: "SFTPClientTests",
      dependencies: ["SFTPClient", "SSHTestSupport", "TestExecution", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    // SFTPProvider against a private sshd on a loopback port (needs openssh-server, like SFTPClientTests).
    .testTarget(
      name: "SFTPProviderTests",
      dependencies: [
        "SFTPProvider", "SFTPClient", "SSHTestSupport", "ProviderAPI", "TestExecution",
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // S3Client: signing vectors and credential files, then against moto on loopback (needs
    // `pip install 'moto[server]'`: .ci/run installs it).
    // S3Provider against moto on loopback: the provider contract on a real S3 API.
    .testTarget(
      name: "S3ProviderTests",
      dependencies: ["S3Provider", "S3Client", "S3TestSupport", "ProviderAPI", "TestExecution", "TestSupport"],
      swiftSettings: strict),
    // WebDAVProvider against real Apache, nginx and rclone servers on loopback.
    .testTarget(
      name: "WebDAVProviderTests",
      dependencies: [
        "WebDAVProvider", "WebDAVClient", "WebDAVTestSupport", "ProviderAPI", "TestExecution", "TestSupport", "ProviderCore",
        "WorkingSetIndex", .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    .testTarget(name: "XMLStreamTests", dependencies: ["XMLStream"], swiftSettings: strict),
    .testTarget(
      name: "S3ClientTests",
      dependencies: ["S3Client", "S3TestSupport", "TestExecution", "TestSupport", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    // WebDAVClient against real Apache, nginx and rclone servers on loopback (.ci/run installs them).
    .testTarget(
      name: "WebDAVClientTests",
      dependencies: [
        "WebDAVClient", "WebDAVTestSupport", "TestExecution", .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // folio-rclone (Extensions/, Python) spoken to over FEP/1 lines: rclone's local and in-memory
    // backends, `rclone serve webdav` on loopback, a fake rclone with an expired token.
    .testTarget(
      name: "RcloneExtensionTests",
      dependencies: ["TestExecution", "WebDAVTestSupport", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
    .testTarget(name: "FolioProtocolTests", dependencies: ["FolioProtocol"], swiftSettings: strict),
    // The real `folio serve` on loopback (TestSupport.ServerProcess): build the folio product first.
    .testTarget(
      name: "FolioServerTests",
      dependencies: [
        "FolioProtocol", "FolioServer", "ProviderAPI", "TestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // The conformance kit against small Python fixture extensions, good and broken (python3).
    .testTarget(
      name: "ExtensionConformanceTests", dependencies: ["ExtensionConformance", "TestExecution"], exclude: ["Fixtures"],
      swiftSettings: strict),
    // ExtensionHost against real extension processes (Python fixtures in Fixtures/).
    .testTarget(
      name: "ExtensionHostTests", dependencies: ["ExtensionHost", "ProviderAPI", "ProviderCore", "WorkingSetIndex"],
      exclude: ["Fixtures"],
      swiftSettings: strict),
    .testTarget(name: "FolioConfigTests", dependencies: ["FolioConfig", "ProviderAPI"], swiftSettings: strict),
    .testTarget(
      name: "FolioEndToEndTests",
      dependencies: [
        "TestExecution", "ProviderAPI", "TestSupport", "WorkingSetIndex", "SFTPClient", "SSHTestSupport", "S3Client", "S3TestSupport",
        "WebDAVClient", "WebDAVTestSupport",
      ],
      swiftSettings: strict),
    // The command line's own reading of `folio ls` against ArgumentParser's (in-process).
    .testTarget(
      name: "FolioCommandLineTests",
      dependencies: ["FolioCommandLine", "ProviderAPI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      swiftSettings: strict),
    // FolioServerProvider against a real `folio serve` on loopback (needs the folio binary built).
    .testTarget(
      name: "FolioServerProviderTests",
      dependencies: [
        "FolioServerProvider", "FolioProtocol", "ProviderAPI", "TestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strict),
    // The sync engine against a real `folio serve` on loopback (needs the folio binary built).
    .testTarget(
      name: "RemoteSyncTests",
      dependencies: [
        "TestExecution", "ProviderCore", "FolioServerProvider", "WorkingSetIndex", "TestSupport", "ProviderAPI", "FolioProtocol",
        .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict),
    .testTarget(name: "PreviewKitTests", dependencies: ["PreviewKit", "ProviderAPI"], swiftSettings: strict),
    // PreviewTools against real processes and tools (poppler-utils, libarchive-tools, mediainfo,
    // ffmpegthumbnailer; 7zip when installed).
    .testTarget(
      name: "PreviewToolsTests", dependencies: ["PreviewTools", "PreviewKit", "ProviderAPI", "TestExecution"],
      swiftSettings: strict),
    // Pictures written at test time with the libraries' own encoders (CPreviewImageFixtures).
    .testTarget(
      name: "PreviewImageTests", dependencies: ["PreviewImage", "CPreviewImage", "PreviewKit", "ProviderAPI", "CPreviewImageFixtures"],
      swiftSettings: strict),
    .testTarget(
      name: "BrowserUITests", dependencies: ["BrowserUI", "ProviderAPI", "PreviewKit", "TestSupport"], exclude: ["Snapshots"],
      swiftSettings: strict),
    .testTarget(
      name: "BrowserAppTests",
      dependencies: ["BrowserApp", "BrowserUI", "ProviderAPI", "ProviderCore", "WorkingSetIndex", "TestSupport", "LocalProvider"],
      swiftSettings: strict),
    // Previews of remote files that are not downloaded, against the real servers the provider
    // suites start (folio serve, sshd, moto, Apache/nginx/rclone): one ranged read each, counted.
    .testTarget(
      name: "RemotePreviewTests",
      dependencies: [
        "BrowserApp", "BrowserUI", "PreviewKit", "ProviderCore", "ProviderAPI", "WorkingSetIndex", "TestSupport",
        "TestExecution", "FolioServerProvider", "FolioProtocol", "SFTPProvider", "SSHTestSupport", "S3Provider", "S3Client",
        "S3TestSupport", "WebDAVProvider", "WebDAVTestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // tmux end-to-end tests of the real `folio` binary (needs tmux; .ci/run installs it).
    .testTarget(
      name: "TerminalEndToEndTests", dependencies: ["TestExecution", "ProviderAPI", "TestSupport", "SSHTestSupport", "SFTPClient"],
      swiftSettings: strict),
    // Every fuzz target over its corpus and a fixed count of seeded mutations; the harness's own check.
    .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets", "TestExecution"], swiftSettings: strict),
    // The extensions shipped in Extensions/ (python3; sh + jq), each through scripted FEP/1 sessions.
    .testTarget(
      name: "ShippedExtensionTests",
      dependencies: ["TestExecution", "ProviderAPI", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: strict),
  ]
)

// libFuzzer's driver, declared only for `scripts/fuzz` (FOLIO_LIBFUZZER=1, its own scratch path
// .build-fuzz): it calls LLVMFuzzerRunDriver, which only a -sanitize=fuzzer link provides, so an
// ordinary build must not see it.
if Context.environment["FOLIO_LIBFUZZER"] == "1" {
  package.targets.append(
    .executableTarget(
      name: "folio-libfuzzer", dependencies: ["FuzzTargets"], path: "Fuzz/LibFuzzerEntry",
      // So that dlsym finds LLVMFuzzerRunDriver in the executable itself.
      linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"])]))
}
