import PreviewKit

/// Lines of a helper's output, made safe to draw by PreviewKit's one sanitiser (`HelperOutput`):
/// the helper's colours (SGR) kept, every other escape sequence dropped, controls, C1 and bidi
/// controls and invalid UTF-8 shown as visible escapes. A form feed (pdftotext's page break) ends a
/// line, as the page does.
///
/// - Parameter bytes: what a helper printed (already capped).
/// - Parameter truncated: the output was cut at the cap (a character cut at the end is dropped).
public func lines(fromHelperOutput bytes: [UInt8], truncated: Bool = false) -> [StyledLine] {
  HelperOutput.lines(bytes.map { $0 == 0x0C ? 0x0A : $0 }, truncated: truncated)
}
