import PreviewKit
import Testing

/// Colors a preview asks for reach a 256-color terminal as the nearest palette entry.
@Suite struct InkTests {
  @Test func rgbComesToTheNearestPaletteEntry() {
    #expect(InkColor.rgb(0, 0, 0).nearestPaletteIndex == 16)
    #expect(InkColor.rgb(255, 255, 255).nearestPaletteIndex == 231)
    #expect(InkColor.rgb(255, 0, 0).nearestPaletteIndex == 196)
    #expect(InkColor.rgb(128, 128, 128).nearestPaletteIndex == 244)  // the gray ramp is nearer than the cube's 102
    #expect(InkColor.palette(42).nearestPaletteIndex == 42)
    #expect(InkColor.none.nearestPaletteIndex == nil)
  }

  @Test func colorsKeepTheirKind() {
    #expect(InkColor.rgb(1, 2, 3).rgb! == (1, 2, 3))
    #expect(InkColor.rgb(1, 2, 3).paletteIndex == nil)
    #expect(InkColor.palette(7).paletteIndex == 7)
    #expect(InkColor.none.isNone)
  }
}
