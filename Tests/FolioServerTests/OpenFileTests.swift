import Foundation
import Testing

@testable import FolioServer

#if canImport(Glibc)
  import Glibc
#endif

/// The page-cache look that lets `sendfile` skip populating ranges already in memory.
@Suite("OpenFile residency")
struct OpenFileTests {
  /// A file on the disk (not tmpfs, where every page is always resident), written and fsynced.
  private func writtenFile(bytes: Int) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-openfile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent("content")
    try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: url)
    let fd = open(url.path, O_RDONLY)
    defer { close(fd) }
    fsync(fd)
    return url
  }

  @Test func aRangeDroppedFromTheCacheIsReadBackInAndThenSeenAsCached() throws {
    let url = try writtenFile(bytes: 3 << 20)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let file = try OpenFile(url)
    let fd = open(url.path, O_RDONLY)
    defer { close(fd) }
    _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
    // The kernel may keep pages it could not drop; the cold path is then not exercised, but the
    // outcome below must hold either way.
    let wasCached = file.isCached(from: 4097, count: 2 << 20)
    file.makeResident(from: 4097, count: 2 << 20)
    #expect(file.isCached(from: 4097, count: 2 << 20), "cached before: \(wasCached)")
  }

  @Test func aFileEndingInsideAPageIsCachedWholeAndAnEmptyRangeNever() throws {
    let url = try writtenFile(bytes: 10)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let file = try OpenFile(url)
    file.makeResident(from: 0, count: 10)
    #expect(file.isCached(from: 0, count: 10))
    #expect(!file.isCached(from: 0, count: 0))
  }
}
