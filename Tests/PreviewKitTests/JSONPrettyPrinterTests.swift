import PreviewKit
import Testing

/// JSON comes out indented by two spaces per level, with its tokens; a cut end is fine; what is
/// not JSON is left as written.
@Suite struct JSONPrettyPrinterTests {
  func preview(_ json: String, name: String = "data.json", totalSize: Int? = nil) -> Preview {
    let bytes = Array(json.utf8)
    return TextPreview.make(name: name, bytes: bytes, totalSize: totalSize ?? bytes.count)
  }

  func rendered(_ p: Preview) -> String {
    guard case .lines(let lines) = p.body else { return "(not lines)" }
    return Render.tokens(lines)
  }

  @Test func minifiedJSONComesOutReadable() {
    let json = #"{"name":"folio","version":1.5,"tags":["a","b"],"nested":{"ok":true,"none":null,"empty":{},"list":[]},"n":-2e10}"#
    #expect(
      rendered(preview(json)) == #"""
        «punctuation:{»
          «key:"name"»«punctuation::» «string:"folio"»«punctuation:,»
          «key:"version"»«punctuation::» «number:1.5»«punctuation:,»
          «key:"tags"»«punctuation::» «punctuation:[»
            «string:"a"»«punctuation:,»
            «string:"b"»
          «punctuation:],»
          «key:"nested"»«punctuation::» «punctuation:{»
            «key:"ok"»«punctuation::» «constant:true»«punctuation:,»
            «key:"none"»«punctuation::» «constant:null»«punctuation:,»
            «key:"empty"»«punctuation::» «punctuation:{},»
            «key:"list"»«punctuation::» «punctuation:[]»
          «punctuation:},»
          «key:"n"»«punctuation::» «number:-2e10»
        «punctuation:}»
        """#)
  }

  /// JSON is told by content too (no `.json` in the name), and strings keep their escapes as
  /// written: `\u001b` stays six characters, never becomes an ESC.
  @Test func jsonByContentKeepsEscapesAsWritten() {
    let p = preview(#"[{"a":"x\"y\u001b[2J"}]"#, name: "response")
    #expect(p.typeDescription == "JSON, UTF-8")
    #expect(
      Render.plain(lines(p)) == #"""
        [
          {
            "a": "x\"y\u001b[2J"
          }
        ]
        """#)
  }

  /// The first 64 KiB of a long one-line document: printed up to the cut, nothing invented.
  @Test func aTruncatedPrefixIsPrintedUpToTheCut() {
    let p = preview(#"{"items":[{"id":1,"name":"one"},{"id":2,"na"#, totalSize: 15_000_000)
    #expect(
      Render.plain(lines(p)) == #"""
        {
          "items": [
            {
              "id": 1,
              "name": "one"
            },
            {
              "id": 2,
              "na
        """#)
    #expect(p.extent == "first 43 bytes of 14.3 MiB")
  }

  @Test func jsonLinesArePrintedOneDocumentAfterAnother() {
    #expect(Render.plain(lines(preview("{\"a\":1}\n{\"a\":2}\n", name: "log.jsonl"))) == "{\n  \"a\": 1\n}\n{\n  \"a\": 2\n}")
  }

  /// Not JSON after all: shown as written (highlighted), never re-indented into something else.
  @Test(arguments: [#"{"a":1,}"#, #"{"a" 1}"#, "[1 2]", "{\"a\":tru}", "[1]]", "{'a':1}"])
  func invalidJSONIsShownAsWritten(_ text: String) {
    #expect(Render.plain(lines(preview(text))) == text)
  }

  /// 10⁵ levels of nesting (test-plan F08): the indentation stops growing and the lines stop at
  /// their cap.
  @Test func deepNestingIsBounded() {
    let deep = String(repeating: "[", count: 100_000)
    let p = preview(deep, totalSize: 1_000_000)
    let shown = lines(p)
    #expect(shown.count == 10_000)
    #expect(shown.allSatisfy { $0.plainText.count <= 2 * 32 + 1 })
    #expect(p.extent == "first 97.7 KiB of 977 KiB, first 10,000 lines")
  }

  func lines(_ p: Preview) -> [StyledLine] {
    guard case .lines(let lines) = p.body else { return [] }
    return lines
  }
}
