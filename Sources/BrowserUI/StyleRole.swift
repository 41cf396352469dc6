/// What a cell *is*, not what color it has: themes map roles to colors, so views never name a
/// color and snapshots record roles (a style layer that survives a theme change).
public enum StyleRole: String, Sendable, Hashable, CaseIterable, Codable {
  case normal
  case dim
  case header
  case tabActive, tabInactive
  case sidebar, sidebarHeading, sidebarSelected, sidebarFocused
  case pathBar
  case listRow, listSelected, listMarked, listSelectedMarked, listFolder, listDimmed
  case columnHeader
  case status, statusMessage, statusError
  case badgeCloud, badgeDownloading, badgeUploading, badgeQueued, badgeError, badgeConflict, badgeShared
  case badgePinned, badgeFavorite, badgeDecoration, badgeExcluded
  case tagRed, tagOrange, tagYellow, tagGreen, tagBlue, tagPurple, tagGray, tagCustom
  case menu, menuSelected, menuDisabled, menuBorder, menuHeading
  case prompt, promptInput, promptLabel, promptBorder
  case error
  case help, helpKey
  case spinner
}

/// Emphasis a role may add on terminals without colors (NO_COLOR, vt100, monochrome).
public struct CellAttributes: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let bold = CellAttributes(rawValue: 1 << 0)
  public static let reverse = CellAttributes(rawValue: 1 << 1)
  public static let underline = CellAttributes(rawValue: 1 << 2)
  public static let dim = CellAttributes(rawValue: 1 << 3)
}
