import PreviewImage
import PreviewKit
import Testing

/// A camera JPEG's Exif thumbnail, found in its first bytes: what a remote photo shows without
/// being downloaded.
@Suite struct ExifThumbnailTests {
  /// An Exif APP1 payload whose IFD1 points at `thumbnail` (little-endian TIFF, as most cameras).
  static func exif(thumbnail: [UInt8]) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
    // TIFF header (8) + IFD0 with no entries (2 + 4) + IFD1 with two entries (2 + 24 + 4).
    let ifd1 = 8 + 6
    let data = ifd1 + 2 + 24 + 4
    var tiff: [UInt8] = [0x49, 0x49] + le16(42) + le32(8)
    tiff += le16(0) + le32(ifd1)
    tiff += le16(2)
    tiff += le16(0x0201) + le16(4) + le32(1) + le32(data)
    tiff += le16(0x0202) + le16(4) + le32(1) + le32(thumbnail.count)
    tiff += le32(0)
    return [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff + thumbnail
  }

  @Test func theThumbnailIsFoundAndDecodes() throws {
    let small = Fixtures.jpeg(Fixtures.quadrants(32, 24), 32, 24)
    let photo = Fixtures.jpeg(Fixtures.quadrants(800, 600), 800, 600, app1: Self.exif(thumbnail: small))
    let prefix = Array(photo.prefix(64 * 1024))
    let found = try #require(ExifThumbnail.jpeg(in: prefix))
    #expect(found == small)
    let cells = try PicturePreview.render(bytes: found, columns: 16, rows: 6)
    #expect(cells.columns > 0 && cells.rows > 0)
  }

  @Test func noExifOrACutOneIsNil() {
    let plain = Fixtures.jpeg(Fixtures.quadrants(64, 48), 64, 48)
    #expect(ExifThumbnail.jpeg(in: plain) == nil)
    let small = Fixtures.jpeg(Fixtures.quadrants(32, 24), 32, 24)
    let photo = Fixtures.jpeg(Fixtures.quadrants(64, 48), 64, 48, app1: Self.exif(thumbnail: small))
    // The prefix ends inside the thumbnail: not a picture to decode.
    #expect(ExifThumbnail.jpeg(in: Array(photo.prefix(60))) == nil)
    #expect(ExifThumbnail.jpeg(in: Array("not a jpeg at all".utf8)) == nil)
    #expect(ExifThumbnail.jpeg(in: []) == nil)
  }
}
