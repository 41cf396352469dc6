import Foundation

/// Paths, headers and limits shared by FolioServer and its provider (docs/PROTOCOL.md).
public enum WireRoutes {
  public static let version = "v1"
  /// Sent by every answer: lets a client tell a FolioServer from something else on the port.
  public static let serverHeader = "X-Folio-Server"
  /// A content upload's length and hash; the server refuses bytes that do not match.
  public static let sha256Header = "X-Folio-SHA256"
  /// A content download's revision (the content counter of `WireVersion`).
  public static let contentVersionHeader = "X-Folio-Content-Version"
  /// Page tokens and anchors never exceed this many bytes.
  public static let maxTokenBytes = 500
  public static let defaultPageSize = 200
  public static let maxPageSize = 1000
  /// The longest a long-poll waits before answering `changed: false`.
  public static let maxWaitSeconds = 60
}
