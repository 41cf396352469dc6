import Foundation
import ProviderAPI
import Testing

@testable import ExtensionHost

/// A temporary location served by Fixtures/folder-ext.py (an FEP/1 extension over a folder).
final class ExtensionFixture: @unchecked Sendable {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/folder-ext.py").path

  let base: URL
  let root: URL
  let provider: ExtensionProvider
  var flag: URL { base.appendingPathComponent("behave") }
  var stats: URL { base.appendingPathComponent("stats") }

  init(
    _ settings: [String: String] = [:], command: [String]? = nil, deadlines: ExtensionDeadlines = .standard,
    backoff: @escaping @Sendable (Int) -> TimeInterval = { _ in 0 }, files: [String: String] = ["a.txt": "alpha", "b.txt": "bravo!"]
  ) throws {
    base = FileManager.default.temporaryDirectory.appendingPathComponent("ext-" + UUID().uuidString.prefix(8))
    root = base.appendingPathComponent("root")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    for (name, text) in files {
      let url = root.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    // "{root}" in a setting is the fixture's folder (a shipped extension's own setting for it).
    let rootPath = root.path
    var config = settings.mapValues { $0.replacingOccurrences(of: "{root}", with: rootPath) }
    config["root"] = config["root"] ?? root.path
    config["flag"] = base.appendingPathComponent("behave").path
    config["stats"] = base.appendingPathComponent("stats").path
    let launch = ExtensionLaunch(
      domain: DomainIdentifier(unchecked: "ext"), displayName: "Ext", command: command ?? [Self.script], config: config,
      stagingDirectory: base.appendingPathComponent("cache/.staging/ext"), stateDirectory: base.appendingPathComponent("state/ext"),
      logFile: base.appendingPathComponent("state/ext.log"), deadlines: deadlines, backoff: backoff)
    provider = ExtensionProvider(launch: launch)
  }

  func behave() { FileManager.default.createFile(atPath: flag.path, contents: Data()) }

  var log: String { (try? String(contentsOf: provider.launch.logFile, encoding: .utf8)) ?? "" }

  func close() async {
    await provider.shutdown()
    try? FileManager.default.removeItem(at: base)
  }

  /// Short deadlines, for the hang tests (initialize keeps its 10 s: Python starts slowly on
  /// two loaded cores).
  static var quick: ExtensionDeadlines {
    var d = ExtensionDeadlines()
    d.metadata = 1
    d.metadataCap = 1
    d.cancelGrace = 1
    return d
  }
}

/// Waits for a condition (polling with a generous bound), never a fixed sleep as the oracle.
func eventually(
  _ seconds: Double = 120, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () async throws -> Bool
) async rethrows {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if try await condition() { return }
    try? await Task.sleep(for: .milliseconds(10))
  }
  Issue.record("condition not met within \(seconds) s", sourceLocation: sourceLocation)
}

/// The error a call threw, or nil.
func failure<T>(_ body: () async throws -> T) async -> ProviderError? {
  do {
    _ = try await body()
    return nil
  } catch {
    return (error as? ProviderError) ?? ProviderError(.ioError, "not a ProviderError: \(error)")
  }
}
