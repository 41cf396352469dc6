import CPreviewImage
import Testing

@testable import PreviewImage

/// The decoding libraries are opened on first use, not linked (lazy.h): one that is not installed
/// is a `missingLibrary` error naming the package, shown in the pane like any other. (That each
/// format's library opens, its soname and every symbol, is what the decoding tests do first.)
@Suite struct MissingLibraryTests {
  @Test func aMissingLibraryIsAnErrorNamingThePackage() {
    var e = pi_error()
    e.code = Int32(PI_MISSING_LIBRARY)
    let message = Array("libjpeg.so.62 is not installed (install libjpeg62-turbo)".utf8)
    withUnsafeMutableBytes(of: &e.message) { raw in
      for (i, byte) in message.enumerated() { raw[i] = byte }
    }
    let error = PictureRows.error(e, .jpeg)
    #expect(error.code == .missingLibrary)
    #expect(error.message == "JPEG: libjpeg.so.62 is not installed (install libjpeg62-turbo)")
  }
}
