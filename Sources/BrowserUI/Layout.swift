/// Where each part of the screen is, computed in one place from the terminal's size and what is
/// shown, and read by the reducer (how many rows the list scrolls by) and by every view (where to
/// draw): ratatui's `Layout`. Before it, the list's height and widths were worked out in the
/// reducer and again in each view, and a third column would have made a third copy.
///
/// ```
/// row 0        tabs
/// rows 1…h-2   sidebar │ list (path bar, column header, rows) │ preview pane
/// row h-1      status
/// ```
public struct Layout: Sendable, Equatable {
  public struct Rect: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
      self.x = x
      self.y = y
      self.width = max(0, width)
      self.height = max(0, height)
    }

    public static let none = Rect(x: 0, y: 0, width: 0, height: 0)
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
  }

  public var tabs: Rect
  /// The sidebar (Browse only, from 80 columns); empty when not shown.
  public var sidebar: Rect
  /// The list with its path bar and column header; empty when the preview takes the screen.
  public var list: Rect
  /// The preview pane, its border column included; empty when not shown.
  public var pane: Rect
  public var status: Rect

  /// The list's rows, below its path bar and column header.
  public var listRows: Rect { Rect(x: list.x, y: list.y + 2, width: list.width, height: list.height - 2) }

  /// The pane's content, right of its border column.
  public var paneContent: Rect {
    paneIsFull ? pane : Rect(x: pane.x + 1, y: pane.y, width: pane.width - 1, height: pane.height)
  }

  /// The preview has the whole screen between the tabs and the status line (for reading).
  public private(set) var paneIsFull = false

  /// The width from which the pane is shown unless the person hid it.
  public static let paneAutomaticWidth = 120

  public init(width: Int, height: Int, sidebar showsSidebar: Bool, pane showsPane: Bool, paneFull: Bool) {
    let body = max(0, height - 2)
    tabs = Rect(x: 0, y: 0, width: width, height: min(1, height))
    status = Rect(x: 0, y: max(0, height - 1), width: width, height: height > 1 ? 1 : 0)
    if paneFull {
      sidebar = .none
      list = .none
      pane = Rect(x: 0, y: 1, width: width, height: body)
      paneIsFull = true
      return
    }
    let sidebarWidth = showsSidebar && width >= 80 ? min(26, width / 4) : 0
    sidebar = Rect(x: 0, y: 1, width: sidebarWidth, height: body)
    // A blank column between the sidebar and the list.
    let listX = sidebarWidth > 0 ? sidebarWidth + 1 : 0
    let room = width - listX
    // The pane takes about 45% of what is right of the sidebar, and leaves the list at least 24
    // columns (a name, a size); too narrow for both, there is no pane.
    let paneWidth = showsPane && room >= 24 + 16 ? max(16, min(room - 24, room * 45 / 100)) : 0
    list = Rect(x: listX, y: 1, width: room - paneWidth, height: body)
    pane = paneWidth > 0 ? Rect(x: width - paneWidth, y: 1, width: paneWidth, height: body) : .none
  }
}
