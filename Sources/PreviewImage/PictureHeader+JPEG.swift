extension PictureHeader {
  /// Walks a JPEG's marker segments to its SOF, reading the EXIF orientation from APP1 on the way.
  static func jpeg(_ b: ByteReader) throws(PictureError) -> PictureInfo {
    var at = 2
    var orientation = PictureOrientation.up
    while true {
      guard let ff = b.u8(at) else {
        throw PictureError(.truncated, "no JPEG frame header within the first \(b.count) bytes")
      }
      guard ff == 0xFF else { throw PictureError(.corrupt, "the JPEG's marker segments are broken") }
      var marker = 0xFF
      while marker == 0xFF {  // fill bytes
        at += 1
        guard let m = b.u8(at) else { throw short(.jpeg) }
        marker = m
      }
      at += 1
      if marker == 0x01 || (0xD0...0xD8).contains(marker) { continue }  // no length
      guard let length = b.be16(at), length >= 2 else {
        if b.u8(at) == nil || b.u8(at + 1) == nil { throw short(.jpeg) }
        throw PictureError(.corrupt, "a JPEG segment shorter than its length field")
      }
      switch marker {
      case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
        guard let height = b.be16(at + 3), let width = b.be16(at + 5), let components = b.u8(at + 7) else {
          throw short(.jpeg)
        }
        guard height > 0 else { throw PictureError(.unsupported, "a JPEG whose height comes after its data (DNL)") }
        return PictureInfo(
          format: .jpeg, width: width, height: height, orientation: orientation, bytesPerPixel: max(1, components))
      case 0xDA, 0xD9:
        throw PictureError(.corrupt, "the JPEG has no frame header before its data")
      case 0xE1:
        if let o = exifOrientation(b, from: at + 2, count: length - 2) { orientation = o }
      default:
        break
      }
      at += length
    }
  }

  /// Tag 0x0112 of IFD0 in an APP1 "Exif\0\0" payload (a TIFF structure, either byte order).
  static func exifOrientation(_ b: ByteReader, from start: Int, count: Int) -> PictureOrientation? {
    guard count > 14, b.ascii(start, 4) == "Exif", b.u8(start + 4) == 0, b.u8(start + 5) == 0 else { return nil }
    let tiff = start + 6
    let end = start + count
    let little: Bool
    switch b.ascii(tiff, 2) {
    case "II": little = true
    case "MM": little = false
    default: return nil
    }
    func u16(_ i: Int) -> Int? { i + 2 <= end ? (little ? b.le16(i) : b.be16(i)) : nil }
    func u32(_ i: Int) -> Int? { i + 4 <= end ? (little ? b.le32(i) : b.be32(i)) : nil }
    guard u16(tiff + 2) == 42, let ifd = u32(tiff + 4), let entries = u16(tiff + ifd) else { return nil }
    for n in 0..<min(entries, 256) {
      let entry = tiff + ifd + 2 + n * 12
      guard let tag = u16(entry) else { return nil }
      if tag == 0x0112 {
        guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
        return PictureOrientation(rawValue: value)
      }
    }
    return nil
  }
}
