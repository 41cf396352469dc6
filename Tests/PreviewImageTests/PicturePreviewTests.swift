import Foundation
import PreviewImage
import PreviewKit
import ProviderAPI
import Testing

/// `render(path:…)`: a bounded read of a regular file only.
@Suite struct PicturePreviewTests {
  static func scratch() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("preview-image-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test func aFileIsRenderedLikeItsBytes() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let bytes = Fixtures.jpeg(Fixtures.quadrants(64, 64), 64, 64)
    try Data(bytes).write(to: URL(fileURLWithPath: dir + "/photo.jpg"))
    let fromFile = try PicturePreview.render(path: dir + "/photo.jpg", columns: 10, rows: 5)
    #expect(fromFile == (try PicturePreview.render(bytes: bytes, columns: 10, rows: 5)))
    #expect(fromFile.columns == 10 && fromFile.rows == 5)
    let path = ItemPath(dir + "/photo.jpg")
    #expect(try PictureDecoder.decode(path: path) == (try PictureDecoder.decode(bytes)))
    #expect(
      try PictureDecoder.decode(path: path, fittingWidth: 4, height: 4)
        == (try PictureDecoder.decode(bytes, fittingWidth: 4, height: 4)))
  }

  @Test func aFIFOOrAFolderIsNeverRead() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(mkfifo(dir + "/pipe", 0o600) == 0)
    for path in [dir + "/pipe", dir, "/dev/zero"] {
      #expect { try PicturePreview.render(path: path, columns: 10, rows: 5) } throws: {
        ($0 as? PictureError)?.code == .notARegularFile
      }
    }
  }

  @Test func aFileOverTheReadLimitIsRefused() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let bytes = Fixtures.png(Fixtures.quadrants(64, 64), 64, 64)
    try Data(bytes).write(to: URL(fileURLWithPath: dir + "/big.png"))
    let limits = PictureLimits(maximumFileBytes: bytes.count - 1)
    #expect { try PicturePreview.render(path: dir + "/big.png", columns: 10, rows: 5, limits: limits) } throws: {
      ($0 as? PictureError)?.code == .fileTooLarge
    }
    #expect { try PicturePreview.render(path: dir + "/missing.png", columns: 10, rows: 5) } throws: {
      ($0 as? PictureError)?.code == .unreadable && ($0 as? PictureError)?.underlying == ENOENT
    }
  }
}

/// A render whose task is cancelled stops between rows with `cancelled`.
@Suite struct PictureCancellationTests {
  @Test func aCancelledTaskStopsDecoding() async throws {
    let png = Fixtures.png(Fixtures.quadrants(64, 64), 64, 64)
    let task = Task { () throws(PictureError) -> PictureCells in
      while !Task.isCancelled { await Task.yield() }
      return try PicturePreview.render(bytes: png, columns: 8, rows: 4)
    }
    task.cancel()
    await #expect { try await task.value } throws: { ($0 as? PictureError)?.code == .cancelled }
  }
}
