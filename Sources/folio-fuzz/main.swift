import Foundation
import FuzzTargets

#if canImport(Glibc)
  import Glibc
#endif

// folio-fuzz: the seeded mutational fuzzer (docs/FUZZING.md). The parent keeps the plan and the
// findings; a child process runs the inputs, because a Swift trap cannot be caught in-process:
// before each input the child writes its position and bytes into a shared mapping, so when it
// dies the parent knows which input killed it, saves it and starts a new child after it.

let usage = """
  usage: folio-fuzz --target NAME|all [--seed N] [--runs N] [--corpus DIR] [--crashes DIR] [--minimize]
         folio-fuzz --target NAME --replay FILE [--minimize]
         folio-fuzz --list

  Runs each target over its corpus (DIR/<target>/, default Fuzz/corpus), then over N seeded
  mutations (default 10000, seed 1). An input that traps or breaks the target's property is
  written to Fuzz/crashes/<target>/ (--crashes), with the seed, the run and the command that
  replays it. --minimize shrinks what was found (or the --replay input) while it still fails.
  --replay runs one input in this process: a trap shows its backtrace. Exit status: 0 when
  nothing was found, 1 when something was, 2 for a usage error.
  """

struct Options {
  var targets: [FuzzTarget] = []
  var seed: UInt64 = 1
  var runs: UInt64 = 10_000
  var corpus = "Fuzz/corpus"
  var crashes = "Fuzz/crashes"
  var minimize = false
  var replay: String?
  // The child's side.
  var child = false
  var first: UInt64 = 0
  var shared: String?
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("folio-fuzz: \(message)\n".utf8))
  exit(2)
}

func parse(_ args: [String]) -> Options {
  var o = Options()
  var i = 0
  func value() -> String {
    i += 1
    guard i < args.count else { fail("\(args[i - 1]) needs a value") }
    return args[i]
  }
  func number(_ flag: String) -> UInt64 {
    guard let n = UInt64(value()) else { fail("\(flag) takes a number") }
    return n
  }
  while i < args.count {
    switch args[i] {
    case "--help", "-h":
      print(usage)
      exit(0)
    case "--list":
      for t in FuzzCatalogue.all { print("\(t.name)\t\(t.summary)") }
      exit(0)
    case "--target":
      let name = value()
      if name == "all" {
        o.targets = FuzzCatalogue.all
      } else if let t = FuzzCatalogue.target(named: name) {
        o.targets = [t]
      } else {
        fail("no target \(name) (--list names them)")
      }
    case "--seed": o.seed = number("--seed")
    case "--runs": o.runs = number("--runs")
    case "--corpus": o.corpus = value()
    case "--crashes": o.crashes = value()
    case "--minimize": o.minimize = true
    case "--replay": o.replay = value()
    case "--child": o.child = true
    case "--first": o.first = number("--first")
    case "--shared": o.shared = value()
    default: fail("unknown argument \(args[i])\n\(usage)")
    }
    i += 1
  }
  if o.targets.isEmpty { fail("--target is required\n\(usage)") }
  return o
}

// MARK: - The shared record of the input being run

/// [0, 8): the position (corpus inputs first, then runs); [8, 16): the length; then the bytes.
enum SharedRecord {
  static let size = 1 << 20

  static func create() -> String {
    let path = NSTemporaryDirectory() + "folio-fuzz-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    guard FileManager.default.createFile(atPath: path, contents: Data(count: size)) else { fail("cannot create \(path)") }
    return path
  }

  static func map(_ path: String) -> UnsafeMutableRawPointer {
    let fd = open(path, O_RDWR)
    guard fd >= 0, let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
      fail("cannot map \(path)")
    }
    close(fd)
    return p
  }

  static func write(_ p: UnsafeMutableRawPointer, position: UInt64, input: [UInt8]) {
    let n = min(input.count, size - 16)
    p.storeBytes(of: position, as: UInt64.self)
    p.storeBytes(of: UInt64(n), toByteOffset: 8, as: UInt64.self)
    input.withUnsafeBytes { (p + 16).copyMemory(from: $0.baseAddress!, byteCount: n) }
  }

  static func read(_ path: String) -> (position: UInt64, input: [UInt8])? {
    guard let d = FileManager.default.contents(atPath: path), d.count >= 16 else { return nil }
    let b = [UInt8](d)
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
    let n = Int(min(u64(8), UInt64(b.count - 16)))
    return (u64(0), Array(b[16..<(16 + n)]))
  }
}

// MARK: - The child

/// Runs positions `first...` of the plan: corpus inputs, then mutation runs. Exit 3 on a violation.
func runChild(_ o: Options) -> Never {
  let target = o.targets[0]
  let corpus = FuzzCorpus.load(target: target.name, from: URL(fileURLWithPath: o.corpus))
  let record = SharedRecord.map(o.shared!)
  let mutator = FuzzMutator(dictionary: target.dictionary, corpus: corpus)
  let total = UInt64(corpus.count) + o.runs
  var position = o.first
  while position < total {
    let input = position < UInt64(corpus.count) ? corpus[Int(position)] : mutator.input(seed: o.seed, run: position - UInt64(corpus.count))
    SharedRecord.write(record, position: position, input: input)
    if let v = target.check(input) {
      FileHandle.standardError.write(Data("violation: \(v.message)\n".utf8))
      exit(3)
    }
    position += 1
  }
  exit(0)
}

// MARK: - The parent

struct ChildResult {
  enum End { case finished, violation, signal(Int32), exit(Int32) }
  var end: End
  var stderr: String
}

let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

func spawn(_ arguments: [String]) -> ChildResult {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: selfPath)
  p.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  env["SWIFT_BACKTRACE"] = "enable=no"
  p.environment = env
  let errPath = NSTemporaryDirectory() + "folio-fuzz-err-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  FileManager.default.createFile(atPath: errPath, contents: nil)
  defer { try? FileManager.default.removeItem(atPath: errPath) }
  let err = FileHandle(forWritingAtPath: errPath)!
  p.standardError = err
  p.standardOutput = FileHandle.nullDevice
  do { try p.run() } catch { fail("cannot start \(selfPath): \(error)") }
  p.waitUntilExit()
  try? err.close()
  let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
  let end: ChildResult.End
  switch (p.terminationReason, p.terminationStatus) {
  case (.uncaughtSignal, let s): end = .signal(s)
  case (.exit, 0): end = .finished
  case (.exit, 3): end = .violation
  case (.exit, let s): end = .exit(s)
  @unknown default: end = .exit(-1)
  }
  return ChildResult(end: end, stderr: text)
}

/// Whether `input` still fails `target` the way `kind` says (a violation, or a crash).
func stillFails(_ target: FuzzTarget, _ input: [UInt8], violation: Bool) -> Bool {
  let file = NSTemporaryDirectory() + "folio-fuzz-min-\(getpid())"
  FileManager.default.createFile(atPath: file, contents: Data(input))
  defer { try? FileManager.default.removeItem(atPath: file) }
  let r = spawn(["--target", target.name, "--replay", file])
  switch r.end {
  case .violation: return violation
  case .signal, .exit: return !violation
  case .finished: return false
  }
}

/// Shrinks `input` while it fails the same way: deletes halves, then quarters, down to bytes.
func minimize(_ target: FuzzTarget, _ input: [UInt8], violation: Bool) -> [UInt8] {
  var best = input
  var chunk = max(1, best.count / 2)
  var attempts = 0
  while chunk >= 1 && attempts < 2000 {
    var start = 0
    var shrank = false
    while start < best.count && attempts < 2000 {
      var candidate = best
      candidate.removeSubrange(start..<min(best.count, start + chunk))
      attempts += 1
      if stillFails(target, candidate, violation: violation) {
        best = candidate
        shrank = true
      } else {
        start += chunk
      }
    }
    if !shrank { chunk /= 2 }
  }
  return best
}

func save(_ input: [UInt8], target: FuzzTarget, in crashes: String, suffix: String = "") -> String {
  let folder = URL(fileURLWithPath: crashes).appendingPathComponent(target.name, isDirectory: true)
  try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let file = folder.appendingPathComponent("crash-" + FuzzCorpus.fileName(for: input) + suffix)
  FileManager.default.createFile(atPath: file.path, contents: Data(input))
  return file.path
}

/// Fuzzes one target; the number of failures found.
func fuzz(_ target: FuzzTarget, _ o: Options) -> Int {
  let corpusCount = UInt64(FuzzCorpus.load(target: target.name, from: URL(fileURLWithPath: o.corpus)).count)
  let total = corpusCount + o.runs
  let shared = SharedRecord.create()
  defer { try? FileManager.default.removeItem(atPath: shared) }
  let started = Date()
  var position: UInt64 = 0
  var found = 0
  while position < total {
    let r = spawn([
      "--child", "--target", target.name, "--seed", String(o.seed), "--runs", String(o.runs), "--first", String(position),
      "--corpus", o.corpus, "--shared", shared,
    ])
    if case .finished = r.end { break }
    guard let (at, input) = SharedRecord.read(shared) else { fail("the child left no record") }
    let isViolation: Bool
    let what: String
    switch r.end {
    case .violation:
      isViolation = true
      what = r.stderr.split(separator: "\n").first.map(String.init) ?? "violation"
    case .signal(let s):
      isViolation = false
      what = "crashed (signal \(s)): " + (r.stderr.split(separator: "\n").first { $0.contains("error") || $0.contains("Fatal") }.map(String.init) ?? "")
    case .exit(let s):
      isViolation = false
      what = "exited with status \(s)"
    case .finished: continue
    }
    found += 1
    let file = save(input, target: target, in: o.crashes)
    let origin = at < corpusCount ? "corpus input \(at + 1)" : "seed \(o.seed), run \(at - corpusCount)"
    print("\(target.name): \(origin): \(what)")
    print("  saved: \(file)")
    print("  replay: folio-fuzz --target \(target.name) --replay \(file)")
    if at >= corpusCount { print("  again: folio-fuzz --target \(target.name) --seed \(o.seed) --runs \(at - corpusCount + 1)") }
    if o.minimize {
      let small = minimize(target, input, violation: isViolation)
      print("  minimized to \(small.count) bytes: \(save(small, target: target, in: o.crashes, suffix: "-min"))")
    }
    position = at + 1
  }
  let seconds = Date().timeIntervalSince(started)
  let rate = seconds > 0 ? Int(Double(total) / seconds) : 0
  print("\(target.name): \(corpusCount) corpus inputs + \(o.runs) runs (seed \(o.seed)), \(found) found, \(String(format: "%.1f", seconds)) s, \(rate)/s")
  return found
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
if options.child { runChild(options) }
if let replay = options.replay {
  let target = options.targets[0]
  guard let data = FileManager.default.contents(atPath: replay) else { fail("cannot read \(replay)") }
  let input = [UInt8](data)
  if options.minimize {
    // Run in a child first: the input may trap, which would end this process.
    let first = spawn(["--target", target.name, "--replay", replay])
    if case .finished = first.end { fail("\(replay) does not fail \(target.name)") }
    var violation = false
    if case .violation = first.end { violation = true }
    let small = minimize(target, input, violation: violation)
    print("minimized to \(small.count) bytes: \(save(small, target: target, in: options.crashes, suffix: "-min"))")
    exit(0)
  }
  if let v = target.check(input) {
    FileHandle.standardError.write(Data("violation: \(v.message)\n".utf8))
    exit(3)
  }
  print("\(target.name): no failure")
  exit(0)
}
var failures = 0
for target in options.targets { failures += fuzz(target, options) }
exit(failures == 0 ? 0 : 1)
