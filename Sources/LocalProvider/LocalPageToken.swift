import Foundation
import ProviderAPI

/// The local provider's page token: which snapshot of which directory, and where the page starts.
///
/// 48 bytes, well under the 500-byte limit. The directory's device, inode and mtime let a token
/// outlive the provider's in-memory snapshot: if the folder is unchanged the snapshot is rebuilt,
/// otherwise the token is answered with `pageExpired` and the reader starts over.
struct LocalPageToken: Equatable {
  var snapshot: UUID
  var generation: DirectorySnapshot.Generation
  var offset: Int

  private static let version: UInt8 = 1

  func encoded() throws(ProviderError) -> Page {
    var d = Data([Self.version])
    withUnsafeBytes(of: snapshot.uuid) { d.append(contentsOf: $0) }
    for v in [generation.device, generation.inode, UInt64(bitPattern: generation.mtimeNanos), UInt64(offset)] {
      withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) }
    }
    return try Page(d)
  }

  init(snapshot: UUID, generation: DirectorySnapshot.Generation, offset: Int) {
    self.snapshot = snapshot
    self.generation = generation
    self.offset = offset
  }

  init(_ page: Page) throws(ProviderError) {
    let d = [UInt8](page.data)
    guard d.count == 1 + 16 + 32, d[0] == Self.version else {
      throw ProviderError(.pageExpired, "the page token is not one of this provider's")
    }
    var u = UUID().uuid
    withUnsafeMutableBytes(of: &u) { $0.copyBytes(from: d[1..<17]) }
    func word(_ i: Int) -> UInt64 {
      var v: UInt64 = 0
      for k in 0..<8 { v |= UInt64(d[17 + i * 8 + k]) << UInt64(k * 8) }
      return v
    }
    snapshot = UUID(uuid: u)
    generation = DirectorySnapshot.Generation(device: word(0), inode: word(1), mtimeNanos: Int64(bitPattern: word(2)))
    offset = Int(word(3))
  }
}
