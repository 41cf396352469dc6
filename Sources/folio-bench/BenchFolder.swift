import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Creates (once) a folder with N entries for the benchmarks: mixed names, 1% folders, created in
/// shuffled order so the directory order is not the sorted order.
enum BenchFolder {
  static let words = ["report", "invoice", "photo", "notes", "draft", "Budget", "summary", "IMG", "scan", "letter", "data", "backup"]
  static let extensions = ["txt", "pdf", "jpg", "md", "csv", "png", "swift", "json"]

  static func ensure(_ path: String, count: Int) throws -> String {
    let marker = path + "/.folio-bench-complete"
    if access(marker, F_OK) == 0 { return path }
    if access(path, F_OK) == 0 {
      // An incomplete earlier run: start again.
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/bin/rm")
      p.arguments = ["-rf", "--", path]
      try p.run()
      p.waitUntilExit()
    }
    guard mkdir(path, 0o755) == 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
    var rng = SplitMix64(seed: UInt64(count))
    var order = Array(0..<count)
    order.shuffle(using: &rng)
    for i in order {
      let w = words[i % words.count]
      if i % 100 == 0 {
        let name = "\(path)/\(w) folder \(i)"
        guard mkdir(name, 0o755) == 0 else { throw BenchError("mkdir \(name): \(String(cString: strerror(errno)))") }
      } else {
        let name = "\(path)/\(w)-\(i).\(extensions[i % extensions.count])"
        let fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw BenchError("create \(name): \(String(cString: strerror(errno)))") }
        if i % 7 == 0 { _ = write(fd, "x", 1) }
        close(fd)
      }
    }
    let fd = open(marker, O_WRONLY | O_CREAT, 0o644)
    close(fd)
    return path
  }
}

struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ d: String) { description = d }
}

/// A small deterministic PRNG, so every run builds the same folders.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Peak resident memory of this process, from /proc (VmHWM), in bytes.
func peakRSS() -> Int {
  guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
  for line in s.split(separator: "\n") where line.hasPrefix("VmHWM:") {
    let digits = line.filter(\.isNumber)
    return (Int(digits) ?? 0) * 1024
  }
  return 0
}

func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
