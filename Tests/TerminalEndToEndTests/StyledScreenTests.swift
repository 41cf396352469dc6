import Testing

/// The harness's own parser: the color checks above are only as good as it is.
@Suite("StyledScreen parses capture-pane -e")
struct StyledScreenTests {
  @Test("256-color, truecolor, basic colors and attributes, carried across rows")
  func parsesColorsAndAttributes() {
    let screen = StyledScreen(
      "\u{1B}[38;5;196m\u{1B}[48;5;235mA\u{1B}[1mB\u{1B}[0m C\n\u{1B}[7mD\u{1B}[38;2;1;2;3mE\n\u{1B}[27;94;41mF", width: 4)
    let a = screen.rows[0][0].style
    #expect(screen.rows[0][0].character == "A" && a.foreground == "5;196" && a.background == "5;235" && !a.bold)
    #expect(screen.rows[0][1].style.bold)
    #expect(screen.rows[0][2].style == StyledScreen.Style() && screen.rows[0][3].character == "C")
    #expect(screen.rows[1][0].style.reverse && screen.rows[1][1].style.foreground == "2;1;2;3")
    // Row 2 starts with row 1's state: reverse and the truecolor foreground, then changed.
    let f = screen.rows[2][0].style
    #expect(!f.reverse && f.foreground == "94" && f.background == "31")
    #expect(screen.rows[2].count == 4, "padded to the width")
  }

  @Test("Blanks compare by the background they show, not by a foreground nobody sees")
  func visibleIgnoresTheForegroundOfBlanks() {
    let one = StyledScreen("\u{1B}[38;5;250m\u{1B}[48;5;236m ab  \u{1B}[39m   x")
    let two = StyledScreen("\u{1B}[38;5;250m\u{1B}[48;5;236m ab\u{1B}[39m     x")
    #expect(one != two)
    #expect(one.visible == two.visible)
    let reversed = StyledScreen("\u{1B}[7m \u{1B}[0m")
    #expect(reversed.visible[0][0].background == "default" && reversed.rows[0][0].style.reverse)
  }
}
