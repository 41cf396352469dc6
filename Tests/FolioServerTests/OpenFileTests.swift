import Foundation
import Testing

@testable import FolioServer

#if canImport(Glibc)
  import Glibc
#endif

/// The page-cache look that lets `sendfile` skip populating ranges already in memory.
///
/// The pages are dropped with `POSIX_FADV_DONTNEED` (clean pages of a file nobody maps go at
/// once); on tmpfs, where every page is always resident, there is nothing to test.
@Suite("OpenFile residency", .enabled(if: ScratchFolder.isOnADisk, "the temporary folder is tmpfs"))
struct OpenFileTests {
  /// A file of `bytes`, written, fsynced and dropped from the page cache.
  private func droppedFile(bytes: Int) throws -> URL {
    let dir = ScratchFolder.url.appendingPathComponent("folio-openfile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent("content")
    try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
    let fd = open(url.path, O_RDONLY)
    defer { close(fd) }
    fsync(fd)
    _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    return url
  }

  @Test func aDroppedRangeIsNotCachedUntilMadeResident() throws {
    let url = try droppedFile(bytes: 3 << 20)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let file = try OpenFile(url)
    #expect(!file.isCached(from: 4097, count: 2 << 20))
    file.makeResident(from: 4097, count: 2 << 20)
    #expect(file.isCached(from: 4097, count: 2 << 20))
  }

  @Test func aRangeWithOnlyItsFirstPageCachedIsNotCached() throws {
    // 16 MiB: more than the kernel reads ahead of a 4 KiB read.
    let url = try droppedFile(bytes: 16 << 20)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let file = try OpenFile(url)
    _ = try file.read(at: 0, count: 4096)
    #expect(file.isCached(from: 0, count: 4096))
    #expect(!file.isCached(from: 0, count: 16 << 20))
    file.makeResident(from: 0, count: 16 << 20)
    #expect(file.isCached(from: 0, count: 16 << 20))
  }

  @Test func aFileEndingInsideAPageIsCachedWholeAndAnEmptyRangeNever() throws {
    let url = try droppedFile(bytes: 10)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let file = try OpenFile(url)
    #expect(!file.isCached(from: 0, count: 10))
    file.makeResident(from: 0, count: 10)
    #expect(file.isCached(from: 0, count: 10))
    #expect(!file.isCached(from: 0, count: 0))
  }
}

/// Where the residency tests write, and whether its pages can be dropped at all.
private enum ScratchFolder {
  static let url = FileManager.default.temporaryDirectory

  /// Whether the mount holding the folder (the longest matching mount point in /proc/mounts) is
  /// not tmpfs or ramfs.
  static var isOnADisk: Bool {
    guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return false }
    let path = url.resolvingSymlinksInPath().path
    var best: (point: String, type: String)?
    for line in mounts.split(separator: "\n") {
      let fields = line.split(separator: " ").map(String.init)
      guard fields.count > 2 else { continue }
      let point = fields[1]
      let holds = path == point || path.hasPrefix(point == "/" ? "/" : point + "/")
      if holds, point.count >= (best?.point.count ?? -1) { best = (point, fields[2]) }
    }
    guard let best else { return false }
    return !["tmpfs", "ramfs"].contains(best.type)
  }
}
