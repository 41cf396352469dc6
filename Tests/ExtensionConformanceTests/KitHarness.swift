import Foundation
import Synchronization

@testable import ExtensionConformance

/// Runs the kit in-process against a fixture extension and keeps what it printed.
struct KitRun {
  var results: [ConformanceKit.CheckResult]
  var lines: [String]

  /// The outcome of `group/name`; nil when the kit did not report that check.
  func outcome(_ check: String) -> ConformanceKit.Outcome? {
    results.first { "\($0.group)/\($0.name)" == check }?.outcome
  }

  var failed: [String] { results.filter(\.isFailure).map { "\($0.group)/\($0.name)" } }

  var skipped: [String] {
    results.filter { if case .skip = $0.outcome { true } else { false } }.map { "\($0.group)/\($0.name)" }
  }

  var report: String { lines.joined(separator: "\n") }
}

enum KitHarness {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

  /// A fresh store folder for a fixture (removed by the caller with ``discard``).
  static func storeFolder() throws -> String {
    let path = NSTemporaryDirectory() + "kit-store-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  static func discard(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

  /// Runs the kit against `command` (the fixture's file name, or a full argv).
  static func run(
    _ command: [String], config: [String: String] = [:], unavailable: [String: String]? = nil, only: Set<String> = [],
    trace: Bool = false, fixture: String? = nil, bigSize: Int = 8 << 20, deadlineScale: Double = 1
  ) throws -> KitRun {
    var options = ConformanceOptions(command: command)
    options.config = config
    options.unavailable = unavailable
    options.only = only
    options.trace = trace
    options.fixture = fixture
    options.bigSize = bigSize
    options.deadlineScale = deadlineScale
    let lines = Mutex<[String]>([])
    let kit = try ConformanceKit(options: options) { line in lines.withLock { $0.append(line) } }
    let results = kit.run()
    return KitRun(results: results, lines: lines.withLock { $0 })
  }

  static func fixture(_ name: String) -> [String] { [fixtures + "/" + name] }
}
