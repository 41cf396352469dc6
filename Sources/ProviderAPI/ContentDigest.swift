/// The size and SHA-256 of a file the caller hands to `createItem` or `modifyItem`, when it
/// already knows them.
///
/// The sync engine stages every upload as an immutable snapshot and hashes it while copying, so
/// a provider whose protocol states the hash before the body (Folio's server does) need not read
/// a large file a second time just to hash it. The digest must describe the file exactly; a
/// provider may ignore it, and a server that verifies the bytes it receives refuses a wrong one.
public struct ContentDigest: Sendable, Equatable {
  public var size: Int64
  /// Lowercase hex, 64 characters.
  public var sha256: String

  public init(size: Int64, sha256: String) {
    self.size = size
    self.sha256 = sha256
  }
}
