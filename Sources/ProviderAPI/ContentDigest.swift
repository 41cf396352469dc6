/// The size of a file and the hash of its content, saying which hash it is: what the caller hands
/// to `createItem` or `modifyItem` when it already knows them, and what `fetchVerifiedContents`
/// checked the bytes it wrote against.
///
/// The sync engine stages every upload as an immutable snapshot and hashes it while copying, so
/// a provider whose protocol states the hash before the body (Folio's server does) need not read
/// a large file a second time just to hash it. The digest must describe the file exactly; a
/// provider may ignore it, and a server that verifies the bytes it receives refuses a wrong one.
///
/// Storage states different hashes, or none (``ProviderTraits/ContentHash``): a SHA-256 can stand
/// for the bytes anywhere (the content store records it), an entity tag only means "the same as
/// what had this tag" on that storage, and with none the content is told apart by its size and
/// version. The algorithm travels with the value so that one is never taken for another.
public struct ContentDigest: Sendable, Equatable {
  public var size: Int64
  /// Which hash `value` is; `.none` when the storage states no hash.
  public var algorithm: ProviderTraits.ContentHash
  /// SHA-256: lowercase hex, 64 characters. An opaque tag: as the storage states it. None: "".
  public var value: String

  /// The size and SHA-256 (lowercase hex, 64 characters) of the bytes.
  public init(size: Int64, sha256: String) {
    self.init(size: size, algorithm: .sha256, value: sha256)
  }

  /// The size and the entity tag the storage states for them.
  public init(size: Int64, opaqueTag: String) {
    self.init(size: size, algorithm: .opaqueTag, value: opaqueTag)
  }

  /// The size alone, from storage that states no hash (content is compared by size and version).
  public init(size: Int64) {
    self.init(size: size, algorithm: .none, value: "")
  }

  private init(size: Int64, algorithm: ProviderTraits.ContentHash, value: String) {
    self.size = size
    self.algorithm = algorithm
    self.value = value
  }

  /// The SHA-256 when that is what this digest states; nil for a tag or no hash, which must never
  /// be recorded or sent as one.
  public var sha256: String? { algorithm == .sha256 ? value : nil }
}
