import Foundation
import PreviewKit
import ProviderAPI
import TestSupport

/// A ZIP made by Python's zipfile (stored, incompressible entries), and where its directory starts.
struct TestZip {
  let bytes: [UInt8]
  let names: [String]
  let directoryOffset: Int

  init(entries: Int, entrySize: Int, nameLength: Int, in side: PreviewSide) throws {
    let path = side.dir.appendingPathComponent("made-\(UUID().uuidString).zip").path
    let script = """
      import random, sys, zipfile
      random.seed(7)
      path, count, size, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
      with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
          for i in range(count):
              z.writestr(("entry-%05d-" % i).ljust(width, "x") + ".bin", random.randbytes(size))
      with zipfile.ZipFile(path) as z:
          print(z.start_dir)
          for info in z.infolist():
              print(info.filename)
      """
    let run = try SpawnedChild.run(
      "/usr/bin/env", ["python3", "-c", script, path, String(entries), String(entrySize), String(nameLength)])
    guard run.status == 0 else { throw ProviderError(.ioError, "python3 could not make the ZIP: \(run.err)") }
    var lines = run.out.split(separator: "\n").map(String.init)
    directoryOffset = Int(lines.removeFirst()) ?? -1
    names = lines
    bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }
}

extension Preview {
  /// The body's lines as plain text (nil for another kind of body).
  var lines: [String]? {
    if case .lines(let lines) = body { return lines.map(\.plainText) }
    return nil
  }
}
