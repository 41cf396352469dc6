import FolioProtocol
import Foundation

/// The custom actions and decorations FolioServer declares (docs/PROTOCOL.md, "Custom actions and
/// decorations"), and the actions' effect.
///
/// A lock is advisory for reading and binding for writing: a locked file refuses content from
/// anybody but the user who locked it, so two people editing one document find out before they
/// make a conflict, not after.
enum ServerDeclarations {
  static let response = DeclarationsResponse(
    actions: [
      .init(id: "lock", name: "Lock", rule: "isFolder == NO AND userInfo.locked != YES"),
      .init(id: "unlock", name: "Unlock", rule: "isFolder == NO AND userInfo.mayUnlock == YES"),
    ],
    decorations: [
      .init(id: "locked", category: "badge", label: "Locked by %@", labelKey: "lockedBy", glyph: "🔒", asciiGlyph: "L"),
      .init(id: "sharedBy", category: "sharing", label: "Shared by %@", labelKey: "owner", glyph: "👥", asciiGlyph: "S"),
      .init(id: "conflict", category: "badge", label: "Conflict", labelKey: nil, glyph: "⚠", asciiGlyph: "!"),
    ])
}
