import CPreviewImageFixtures
import Foundation
import PreviewImage
import PreviewKit

/// `folio-bench preview-image`: a 4000 × 3000 JPEG (and a ~62 MB PNG) as ▀ cells for an
/// 80 × 40 pane, Folio's in-process decoder against `chafa -f symbols` on the same files, in one
/// run (issue 12's target: ≤ 100 ms for the JPEG; chafa took 180–230 ms here, preview-pane.md §4).
///
/// The pictures are made with imagemagick (`convert -size 4000x3000 plasma:fractal`, as §10 did)
/// when it is installed, else with CPreviewImageFixtures (noise over gradients, so the entropy
/// coding has work to do). Folio's runs happen in a child process so its peak RSS is its own;
/// each run reads the file and renders it, as the pane does. chafa's runs include starting it
/// (what a previewer that uses chafa pays on every picture).
enum PreviewImageBench {
  struct Options {
    var runs = 20
    var pngRuns = 5
    var columns = 80
    var rows = 40
  }

  static let usage = """
    usage: folio-bench preview-image [--runs 20] [--png-runs 5] [--columns 80] [--rows 40]

    Makes a 4000x3000 JPEG and a 4000x3000 16-bit PNG (~62 MB) in a scratch folder (with
    imagemagick's convert when installed, else with Folio's own encoders), then prints, for a
    --columns x --rows pane: Folio's read + decode + render time (median and p95 of --runs;
    --png-runs for the PNG), its peak RSS, the same for `chafa -f symbols --size CxR` when chafa
    is on PATH, and Folio's JPEG decode at full size (no DCT scaling) for comparison.
    Build in release mode: swift build -c release --product folio-bench
    """

  static func parse(_ args: [String]) -> Options {
    BenchArguments.parse(
      args, into: Options(), usage: usage,
      numbers: ["--runs": \.runs, "--png-runs": \.pngRuns, "--columns": \.columns, "--rows": \.rows])
  }

  struct Result: Codable {
    var seconds: [Double]
    var fullSizeSeconds: Double?
    var cells: String
    var peakRSS: Int
  }

  // MARK: - The parent

  static func run(_ o: Options) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-bench-image-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let convert = which("convert")
    let chafa = which("chafa")
    let jpeg = dir + "/big.jpg"
    let png = dir + "/big.png"
    FileHandle.standardError.write(
      Data("making the pictures (\(convert == nil ? "Folio's encoders" : "convert"))…\n".utf8))
    try make(jpeg, with: convert)
    try make(png, with: convert)
    let size = { (path: String) in ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) }
    let maker = convert == nil ? "Folio's encoders" : "imagemagick"
    print(
      "folio-bench preview-image: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(o.columns)x\(o.rows) cells, "
        + "pictures made with \(maker), chafa \(chafa.map { version($0) } ?? "not installed")")

    var rows: [[String]] = []
    for (label, path, runs) in [("4000×3000 JPEG", jpeg, o.runs), ("4000×3000 PNG, 16-bit", png, o.pngRuns)] {
      let folio = try child(
        ["_preview-image", path, String(runs), String(o.columns), String(o.rows), path == jpeg ? "full" : "-"],
        as: Result.self)
      var chafaTimes: [Double] = []
      if let chafa {
        for _ in 0..<(runs + 1) {
          chafaTimes.append(try timed(chafa, ["-f", "symbols", "--size", "\(o.columns)x\(o.rows)", path]))
        }
        chafaTimes.removeFirst()  // the warm-up, as Folio's
      }
      rows.append([
        "\(label) (\(mib(size(path))))", ms(median(folio.seconds)), ms(percentile(folio.seconds, 0.95)),
        mib(folio.peakRSS), chafaTimes.isEmpty ? "–" : ms(median(chafaTimes)),
        chafaTimes.isEmpty ? "–" : ms(percentile(chafaTimes, 0.95)),
        chafaTimes.isEmpty ? "–" : String(format: "%.1f×", median(chafaTimes) / median(folio.seconds)),
        folio.cells, String(runs),
      ])
      if let full = folio.fullSizeSeconds {
        print("  \(label): Folio's decode to full-size pixels (no DCT scaling), for comparison: \(ms(full))")
      }
    }
    let header = [
      "picture", "Folio median", "Folio p95", "Folio peak RSS", "chafa median", "chafa p95", "chafa / Folio", "cells",
      "runs",
    ]
    print("")
    print("| " + header.joined(separator: " | ") + " |")
    print("|---|" + String(repeating: "---:|", count: header.count - 1))
    for r in rows { print("| " + r.joined(separator: " | ") + " |") }
  }

  /// A 4000 × 3000 picture at `path` (.jpg or .png, by its extension).
  static func make(_ path: String, with convert: String?) throws {
    if let convert {
      _ = try timed(convert, ["-size", "4000x3000", "plasma:fractal", path])
      return
    }
    let (w, h) = (4000, 3000)
    var generator = SplitMix64(seed: 42)
    var buffer = pif_buffer()
    defer { pif_free(&buffer) }
    let ok: Int32
    if path.hasSuffix(".png") {
      // 16-bit RGB, big-endian, like imagemagick's Q16 plasma.
      var rows = [UInt8](repeating: 0, count: w * h * 6)
      for i in 0..<w * h {
        let (x, y) = (i % w, i / w)
        let n = Int(generator.next() & 0x0FFF)  // 12 bits of noise: ~60 MB, like the plasma
        for (c, v) in [x * 13, y * 17, (x + y) * 7].enumerated() {
          let sample = (v & 0xFFFF) ^ n
          rows[i * 6 + c * 2] = UInt8(sample >> 8)
          rows[i * 6 + c * 2 + 1] = UInt8(sample & 0xFF)
        }
      }
      ok = pif_write_png(rows, UInt32(w), UInt32(h), 2, 16, 0, nil, 0, nil, 0, &buffer)
    } else {
      var pixels = [UInt8](repeating: 0, count: w * h * 3)
      for i in 0..<w * h {
        let (x, y) = (i % w, i / w)
        let n = UInt8(truncatingIfNeeded: generator.next() & 0x1F)
        pixels[i * 3] = UInt8(truncatingIfNeeded: x / 16) &+ n
        pixels[i * 3 + 1] = UInt8(truncatingIfNeeded: y / 12) &+ n
        pixels[i * 3 + 2] = UInt8(truncatingIfNeeded: (x + y) / 28) &+ n
      }
      ok = pif_write_jpeg(pixels, UInt32(w), UInt32(h), 3, 90, 0, nil, 0, &buffer)
    }
    guard ok == 1 else { throw BenchError("cannot encode \(path)") }
    try Data(UnsafeBufferPointer(start: buffer.bytes, count: buffer.length)).write(to: URL(fileURLWithPath: path))
  }

  static func which(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static func version(_ chafa: String) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: chafa)
    p.arguments = ["--version"]
    let out = Pipe()
    p.standardOutput = out
    guard (try? p.run()) != nil else { return "?" }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let first = String(decoding: data, as: UTF8.self).split(separator: "\n").first ?? ""
    return first.split(separator: " ").last.map(String.init) ?? "?"
  }

  /// Runs `program` with its output thrown away, and returns the wall-clock seconds it took.
  static func timed(_ program: String, _ arguments: [String]) throws -> Double {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    let t0 = now()
    try p.run()
    p.waitUntilExit()
    let t = now() - t0
    guard p.terminationStatus == 0 else { throw BenchError("\(program) \(arguments) failed (\(p.terminationStatus))") }
    return t
  }

  static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

  /// The nearest-rank percentile.
  static func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s[min(s.count - 1, max(0, Int((p * Double(s.count)).rounded(.up)) - 1))]
  }

  // MARK: - The child

  /// One warm-up, then `runs` timed renders of `path` (read + decode + cells), as the pane does.
  static func measure(path: String, runs: Int, columns: Int, rows: Int, fullSize: Bool) throws -> Result {
    let cells = try PicturePreview.render(path: path, columns: columns, rows: rows)
    var seconds: [Double] = []
    for _ in 0..<runs {
      let t0 = now()
      _ = try PicturePreview.render(path: path, columns: columns, rows: rows)
      seconds.append(now() - t0)
    }
    let rss = peakRSS()  // before the full-size decode, which holds the whole picture
    var full: Double?
    if fullSize {
      let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
      let t0 = now()
      _ = try PictureDecoder.decode(bytes)
      full = now() - t0
    }
    return Result(seconds: seconds, fullSizeSeconds: full, cells: "\(cells.columns)×\(cells.rows)", peakRSS: rss)
  }
}
