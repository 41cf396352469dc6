import ProviderAPI
import Testing

@testable import BrowserUI

/// The filter's kept matches (`FilterMatches`) are always what searching every row would find,
/// whatever arrived, changed, was evicted or was typed since.
@Suite struct FilterMatchesTests {
  /// Every row whose name contains `needle` (upload rows first): the definition.
  func searched(_ needle: String, _ uploads: [UploadRow], _ list: PagedList) -> [Int] {
    var out = uploads.indices.filter { uploads[$0].item.filename.displayString.lowercased().contains(needle) }
    for (p, items) in list.pages.sorted(by: { $0.key < $1.key }) {
      for (i, item) in items.enumerated() where item.filename.displayString.lowercased().contains(needle) {
        out.append(uploads.count + p * list.pageSize + i)
      }
    }
    return out
  }

  @Test func keptMatchesAreThoseOfASearchOfEveryRow() {
    var list = PagedList(pageSize: 50)
    var matches = FilterMatches()
    let uploads: [UploadRow] = []
    func check(_ needle: String, _ what: String) {
      matches.update(needle: needle, uploads: uploads, list: list)
      #expect(matches.isCurrent(needle: needle, uploads: uploads, list: list), "\(what)")
      #expect(matches.rows == searched(needle, uploads, list), "\(what)")
    }
    list.store(offset: 0, items: Fixture.numbered(0..<50), total: 500, isComplete: false)
    check("1", "the first page")
    for p in 1..<10 {
      list.store(offset: p * 50, items: Fixture.numbered(p * 50..<(p + 1) * 50), total: 500, isComplete: p == 9)
      check("1", "page \(p) arrived")
    }
    check("12", "a longer text: only the previous matches are searched")
    check("012", "longer again")
    check("2", "a shorter one: every row again")
    check("FILE-00004", "upper case matches lower case")
    // A row changed in place (its page is a copy now), a page gone.
    list.update(ItemIdentifier("n41")) { $0.filename = ItemName("renamed-4") }
    check("4", "a row renamed in place")
    list.evict(around: 0, radius: 3)
    check("4", "far pages evicted")
    #expect(!matches.isCurrent(needle: "5", uploads: uploads, list: list), "another text is not current")
  }
}
