/// Where a command-line argument points: a local path, or `NAME:/path` inside a configured domain.
///
/// A plain path is a local path (relative ones against the working directory). `NAME:/path` names a
/// domain; a local file whose name contains a colon is written `./a:b`.
///
/// The browser's Go to prompt (`:`) reads what is typed with this same parser, so a path that
/// works on the command line works there, and the other way round.
public struct ItemAddress: Sendable, Equatable {
  /// nil for a plain local path.
  public var domain: DomainIdentifier?
  /// An absolute local path, or the path inside the domain.
  public var path: ItemPath

  public init(domain: DomainIdentifier?, path: ItemPath) {
    self.domain = domain
    self.path = path
  }

  public static func parse(_ bytes: [UInt8], currentDirectory: ItemPath) throws(ProviderError) -> ItemAddress {
    guard !bytes.isEmpty else { throw ProviderError(.invalidArgument, "an empty path names nothing") }
    if bytes.first != 0x2F, bytes.first != 0x2E, let colon = bytes.firstIndex(of: 0x3A), colon > 0 {
      let name = String(decoding: bytes[..<colon], as: UTF8.self)
      if DomainIdentifier.isValid(name), !bytes[..<colon].contains(0x2F) {
        let rest = Array(bytes[(colon + 1)...])
        return ItemAddress(domain: DomainIdentifier(unchecked: name), path: normalize(rest.first == 0x2F ? rest : [0x2F] + rest))
      }
    }
    let absolute = bytes.first == 0x2F ? bytes : currentDirectory.bytes + [0x2F] + bytes
    return ItemAddress(domain: nil, path: normalize(absolute))
  }

  /// Removes empty and "." components and resolves ".." lexically, as a shell's `cd` does.
  public static func normalize(_ bytes: [UInt8]) -> ItemPath {
    var parts: [ArraySlice<UInt8>] = []
    for c in bytes.split(separator: 0x2F, omittingEmptySubsequences: true) {
      if c == [0x2E] { continue }
      if c == [0x2E, 0x2E] {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(c)
    }
    if parts.isEmpty { return .root }
    var out: [UInt8] = []
    for p in parts {
      out.append(0x2F)
      out.append(contentsOf: p)
    }
    return ItemPath(bytes: out)
  }
}
