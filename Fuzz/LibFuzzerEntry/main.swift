import Foundation
import FuzzTargets

#if canImport(Glibc)
  import Glibc
#endif

// libFuzzer's driver over one fuzz target, for `scripts/fuzz` (built only with FOLIO_LIBFUZZER=1
// and -sanitize=fuzzer; Package.swift). SwiftPM gives an executable its own `main`, so libFuzzer's
// is not linked; this main names the target (FOLIO_FUZZ_TARGET) and hands libFuzzer's arguments
// to LLVMFuzzerRunDriver, found with dlsym (the sanitizer runtime exports it; a Swift declaration
// of a C function by name would not use the C calling convention). A violation of the target's
// property traps, which libFuzzer reports and saves like any crash.

nonisolated(unsafe) var selected: FuzzTarget?

let name = ProcessInfo.processInfo.environment["FOLIO_FUZZ_TARGET"] ?? ""
guard let target = FuzzCatalogue.target(named: name) else {
  let names = FuzzCatalogue.all.map(\.name).joined(separator: " ")
  FileHandle.standardError.write(Data("folio-libfuzzer: set FOLIO_FUZZ_TARGET to one of: \(names)\n".utf8))
  exit(2)
}
selected = target

// FOLIO_FUZZ_WRITE_DICT=FILE: write the target's dictionary in libFuzzer's format (-dict=FILE).
if let path = ProcessInfo.processInfo.environment["FOLIO_FUZZ_WRITE_DICT"] {
  let lines = target.dictionary.map { token in
    "\"" + token.map { b in (0x20..<0x7F).contains(b) && b != 0x22 && b != 0x5C
      ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16).leftPadded() }.joined() + "\""
  }
  _ = FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
  exit(0)
}

extension String {
  func leftPadded() -> String { count == 1 ? "0" + self : self }
}

typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
typealias RunDriver =
  @convention(c) (
    UnsafeMutablePointer<Int32>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>, TestOneInput
  ) -> Int32

let testOneInput: TestOneInput = { data, size in
  guard let target = selected else { return 0 }
  let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
  if let v = target.check(bytes) { fatalError("\(target.name): \(v.message)") }
  return 0
}

/// The entry libFuzzer's own main (linked in by -sanitize=fuzzer, though SwiftPM's main is the
/// one that runs) refers to.
@_cdecl("LLVMFuzzerTestOneInput")
func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { testOneInput(data, size) }

guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "LLVMFuzzerRunDriver") else {
  FileHandle.standardError.write(Data("folio-libfuzzer: not linked with -sanitize=fuzzer\n".utf8))
  exit(2)
}
let runDriver = unsafeBitCast(symbol, to: RunDriver.self)
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runDriver(&argc, &argv, testOneInput))
