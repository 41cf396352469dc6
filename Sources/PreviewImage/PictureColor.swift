import PreviewKit

/// An opaque color: what a transparent picture is composited over (the pane's background).
public struct PictureColor: Sendable, Hashable {
  public var red: UInt8
  public var green: UInt8
  public var blue: UInt8

  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  public static let black = PictureColor(red: 0, green: 0, blue: 0)
  public static let white = PictureColor(red: 255, green: 255, blue: 255)

  /// The color of an RGB ink; nil for none or a palette entry (whose RGB only the terminal knows).
  public init?(_ ink: InkColor) {
    guard let (r, g, b) = ink.rgb else { return nil }
    self.init(red: r, green: g, blue: b)
  }
}
