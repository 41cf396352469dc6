import ProviderAPI

/// A provider's decoration (Locked, Shared by …, Conflict) made safe to draw.
///
/// Declarations come from the server: a glyph could be an escape sequence, a bidi override or a
/// word forty columns wide. A glyph is kept only when the sanitiser leaves it unchanged and it is
/// one or two columns; otherwise the ASCII fallback is used, itself kept only when it is one or two
/// printable ASCII characters (else `*`). Labels go through `TerminalText` when they are filled in.
public struct DecorationStyle: Sendable, Equatable {
  public var identifier: DecorationIdentifier
  public var category: DecorationDeclaration.Category
  /// Drawn on a UTF-8 terminal: one or two columns, nothing to escape.
  public var glyph: String
  /// Drawn with `--ascii`: one or two printable ASCII characters.
  public var asciiGlyph: String
  let declaration: DecorationDeclaration

  public init(_ d: DecorationDeclaration) {
    declaration = d
    identifier = d.identifier
    category = d.category
    let ascii = Self.asciiOnly(d.asciiGlyph) ?? "*"
    asciiGlyph = ascii
    let width = DisplayWidth.width(of: d.glyph)
    if !d.glyph.isEmpty, TerminalText.escape(d.glyph) == d.glyph, (1...2).contains(width) {
      glyph = d.glyph
    } else {
      glyph = ascii
    }
  }

  /// The decoration that means "in conflict": drawn by the sync badge (⚠), not again after the name.
  public static let conflict = DecorationIdentifier("conflict")

  /// The label for one item ("Locked by ben"), sanitised.
  public func label(for item: Item) -> String { TerminalText.escape(declaration.label(for: item)) }

  public func glyph(ascii: Bool) -> String { ascii ? asciiGlyph : glyph }

  private static func asciiOnly(_ s: String) -> String? {
    let scalars = s.unicodeScalars
    guard (1...2).contains(scalars.count), scalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else { return nil }
    return s
  }

  /// The decorations to draw for an item: the first of the badge category (the conflict one
  /// excepted: the sync badge shows it) and the first of the sharing category, as File Provider
  /// shows only the first of each.
  public static func shown(for item: Item, from styles: [DecorationStyle]) -> [DecorationStyle] {
    var out: [DecorationStyle] = []
    var badge = false
    var sharing = false
    for id in item.decorations where id != conflict {
      guard let style = styles.first(where: { $0.identifier == id }) else { continue }
      switch style.category {
      case .badge, .folderBadge:
        if style.category == .folderBadge && !item.isFolder { continue }
        if badge { continue }
        badge = true
      case .sharing:
        if sharing { continue }
        sharing = true
      }
      out.append(style)
    }
    return out
  }
}
