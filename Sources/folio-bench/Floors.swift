import Foundation

/// The floors the issue names, timed on the same folders in the same run:
/// `ls -f DIR | wc -l` (reading the names) and `ls DIR | head` (reading and sorting).
/// The folder is passed as a positional argument to `sh -c`, never spliced into the script.
enum Floors {
  static func time(_ script: String, _ folder: String) throws -> Double {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script, "sh", folder]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    let t0 = now()
    try p.run()
    p.waitUntilExit()
    return now() - t0
  }

  static func lsUnsorted(_ folder: String) throws -> Double { try time("ls -f -- \"$1\" | wc -l", folder) }
  static func lsSortedHead(_ folder: String) throws -> Double { try time("ls -- \"$1\" | head", folder) }
}
