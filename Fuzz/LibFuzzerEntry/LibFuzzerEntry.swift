import Foundation
import FuzzTargets

// libFuzzer's entry points for `scripts/fuzz` (built only with FOLIO_LIBFUZZER=1 and
// -sanitize=fuzzer; Package.swift). The target is named by FOLIO_FUZZ_TARGET; a violation of
// its property traps, which libFuzzer reports and saves like any crash.

nonisolated(unsafe) var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
  _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
  let name = ProcessInfo.processInfo.environment["FOLIO_FUZZ_TARGET"] ?? ""
  guard let target = FuzzCatalogue.target(named: name) else {
    let names = FuzzCatalogue.all.map(\.name).joined(separator: " ")
    FileHandle.standardError.write(Data("folio-libfuzzer: set FOLIO_FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
  }
  selected = target
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let target = selected else { return 0 }
  let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
  if let v = target.check(bytes) { fatalError("\(target.name): \(v.message)") }
  return 0
}
