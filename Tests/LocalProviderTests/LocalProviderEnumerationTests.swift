import Foundation
import ProviderAPI
import Testing

@testable import LocalProvider

#if canImport(Glibc)
  import Glibc
#endif

func collect(
  _ provider: LocalProvider, _ container: ItemIdentifier, sort: ItemSort = .default, hidden: Bool = false, pageSize: Int = 200
) async throws -> [Item] {
  var out: [Item] = []
  var page: Page? = nil
  repeat {
    let r = try await provider.enumerate(
      EnumerationRequest(container: container, sort: sort, includeHidden: hidden, suggestedPageSize: pageSize), page: page,
      progress: { _ in })
    out += r.items
    page = r.nextPage
  } while page != nil
  return out
}

func testProvider(_ tmp: TemporaryFolder) -> LocalProvider {
  let trash = FreedesktopTrash(environment: .init(home: tmp.path, dataHome: tmp.child(".data"), uid: getuid()))
  return LocalProvider(trash: trash)
}

@Suite struct LocalProviderEnumerationTests {
  @Test func everyHostileNameRoundTripsAsBytes() async throws {
    let tmp = TemporaryFolder()
    for n in NameCorpus.names { tmp.makeFile(n, content: "x") }
    let provider = testProvider(tmp)
    let folder = try await provider.item(at: tmp.path)
    let items = try await collect(provider, folder.identifier, hidden: true, pageSize: 7)
    let listed = items.map(\.filename.bytes).sorted { $0.lexicographicallyPrecedes($1) }
    #expect(listed == tmp.listing())
    // Each item can be looked up again by its identifier and by its path, with the same bytes.
    for item in items {
      let again = try await provider.item(for: item.identifier)
      #expect(again.filename == item.filename)
      #expect(again.path == tmp.path.appending(item.filename))
      let byPath = try await provider.item(at: item.path)
      #expect(byPath.identifier == item.identifier)
      // Nothing unsafe survives the display escape.
      #expect(!item.filename.displayString.unicodeScalars.contains { TerminalText.isUnsafe($0) })
    }
  }

  @Test func nameOrderIsNaturalCaseInsensitiveAndFoldersFirst() async throws {
    let tmp = TemporaryFolder()
    for n in ["file10.txt", "File2.txt", "file1.txt", "apple", "Banana", "zeta"] { tmp.makeFile(n) }
    tmp.makeFolder("zfolder")
    tmp.makeFolder("Afolder")
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let names = try await collect(provider, root.identifier).map(\.filename.lossyString)
    #expect(names == ["Afolder", "zfolder", "apple", "Banana", "file1.txt", "File2.txt", "file10.txt", "zeta"])
    let desc = try await collect(provider, root.identifier, sort: ItemSort(key: .name, ascending: false, foldersFirst: false))
    #expect(desc.map(\.filename.lossyString) == ["zfolder", "zeta", "file10.txt", "File2.txt", "file1.txt", "Banana", "apple", "Afolder"])
  }

  @Test func hiddenFilesOnlyWhenAsked() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile(".hidden")
    tmp.makeFile("shown")
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    #expect(try await collect(provider, root.identifier).map(\.filename.lossyString) == ["shown"])
    #expect(try await collect(provider, root.identifier, hidden: true).count == 2)
  }

  @Test func sortBySizeAndDateReadsMetadataWithProgress() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("small", content: "1")
    tmp.makeFile("large", content: String(repeating: "x", count: 1000))
    tmp.makeFile("medium", content: String(repeating: "x", count: 100))
    var times = [Glibc.timespec(tv_sec: 1_000_000, tv_nsec: 0), Glibc.timespec(tv_sec: 1_000_000, tv_nsec: 0)]
    _ = tmp.child("large").withCString { utimensat(AT_FDCWD, $0, &times, 0) }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let bySize = try await collect(provider, root.identifier, sort: ItemSort(key: .size))
    #expect(bySize.map(\.filename.lossyString) == ["small", "medium", "large"])
    let phases = ProgressLog()
    let r = try await provider.enumerate(
      EnumerationRequest(container: root.identifier, sort: ItemSort(key: .date, ascending: true)), page: nil,
      progress: { phases.add($0.phase) })
    #expect(r.items.first?.filename.lossyString == "large")
    #expect(phases.all.contains(.readingMetadata))
  }

  @Test func kindSortGroupsByKindDescription() async throws {
    let tmp = TemporaryFolder()
    for n in ["b.txt", "a.png", "c.txt", "d.pdf"] { tmp.makeFile(n) }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let kinds = try await collect(provider, root.identifier, sort: ItemSort(key: .kind)).map(\.contentType.kindDescription)
    #expect(kinds == ["PDF document", "Plain text", "Plain text", "PNG image"])
  }

  @Test func pagesAreCutFromOneReadAndTokensStaySmall() async throws {
    let tmp = TemporaryFolder()
    for i in 0..<1000 { tmp.makeFile("f\(i)") }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let first = try await provider.enumerate(
      EnumerationRequest(container: root.identifier, suggestedPageSize: 100), page: nil, progress: { _ in })
    #expect(first.items.count == 100)
    #expect(first.totalCount == 1000)
    let token = try #require(first.nextPage)
    #expect(token.data.count <= Page.maxSize)
    let all = try await collect(provider, root.identifier, pageSize: 100)
    #expect(all.count == 1000)
    #expect(Set(all.map(\.identifier)).count == 1000)
    #expect(all.map(\.filename.lossyString).prefix(3) == ["f0", "f1", "f2"])
  }

  @Test func tokenFromAChangedFolderIsExpired() async throws {
    let tmp = TemporaryFolder()
    for i in 0..<10 { tmp.makeFile("f\(i)") }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let first = try await provider.enumerate(
      EnumerationRequest(container: root.identifier, suggestedPageSize: 3), page: nil, progress: { _ in })
    // A fresh provider has no snapshot: an unchanged folder is re-read and paging continues.
    let other = testProvider(tmp)
    _ = try await other.item(at: tmp.path)
    let cont = try await other.enumerate(
      EnumerationRequest(container: root.identifier, suggestedPageSize: 3), page: first.nextPage, progress: { _ in })
    #expect(cont.items.map(\.filename.lossyString) == ["f3", "f4", "f5"])
    // Once the folder changes, the old token is answered with pageExpired.
    tmp.makeFile("new")
    let third = testProvider(tmp)
    _ = try await third.item(at: tmp.path)
    await #expect(throws: ProviderError.self) {
      _ = try await third.enumerate(
        EnumerationRequest(container: root.identifier, suggestedPageSize: 3), page: first.nextPage, progress: { _ in })
    }
  }

  @Test func identifiersSurviveRenameAndMove() async throws {
    let tmp = TemporaryFolder()
    tmp.makeFile("doc.txt")
    tmp.makeFolder("sub")
    let provider = testProvider(tmp)
    let doc = try await provider.item(at: tmp.child("doc.txt"))
    rename("\(tmp.path.lossyString)/doc.txt", "\(tmp.path.lossyString)/renamed.txt")
    // Renamed behind Folio's back: a fresh provider finds it from the old path's folder.
    let fresh = testProvider(tmp)
    let found = try await fresh.item(for: doc.identifier, pathHint: tmp.child("doc.txt"))
    #expect(found.filename.lossyString == "renamed.txt")
    // Moved through the provider: same identifier, new parent.
    let sub = try await provider.item(at: tmp.child("sub"))
    var t = ItemTemplate(found)
    t.parentIdentifier = sub.identifier
    let moved = try await provider.modifyItem(t, baseVersion: found.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(moved.identifier == doc.identifier)
    #expect(moved.path == tmp.child("sub").appending(ItemName("renamed.txt")))
    #expect(moved.parentIdentifier == sub.identifier)
  }

  @Test func unreadableFolderIsAClearError() async throws {
    let provider = LocalProvider()
    await #expect(throws: ProviderError.self) { _ = try await provider.item(at: ItemPath("/nonexistent/folio")) }
    do {
      _ = try await provider.item(at: ItemPath("/nonexistent/folio"))
    } catch {
      #expect(error.code == .noSuchItem)
      #expect(error.message.contains("/nonexistent/folio"))
    }
  }

  @Test func changeSignalFiresWhenTheFolderChanges() async throws {
    let tmp = TemporaryFolder()
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let signals = provider.changeSignals(for: root.identifier)
    let waiter = Task { () -> Bool in
      for await _ in signals { return true }
      return false
    }
    // The watch is added on the watcher's thread; a change before it takes effect shows in the
    // folder's mtime (or the mtime is too recent to tell): either way it must be seen.
    tmp.makeFile("appeared")
    #expect(await waiter.value)
  }

  /// The reader watches after the first page: a change between the read and the watch is
  /// signalled from the folder's mtime against the snapshot the page came from.
  @Test func aChangeBeforeTheWatchIsSignalled() async throws {
    let tmp = TemporaryFolder()
    for i in 0..<5 { tmp.makeFile("f\(i)") }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    _ = try await provider.enumerate(EnumerationRequest(container: root.identifier), page: nil, progress: { _ in })
    tmp.makeFile("between")
    let signals = provider.changeSignals(for: root.identifier)
    var iterator = signals.makeAsyncIterator()
    #expect(await iterator.next() != nil)
  }

  @Test func aFolderMayHaveChangedWhenItsMtimeMovedOrIsTooRecentToTell() throws {
    let tmp = TemporaryFolder()
    let generation = try DirectorySnapshot.generation(of: tmp.path)
    let second: Int64 = 1_000_000_000
    // Taken long after the last change: only a new mtime means a change.
    #expect(!DirectorySnapshot.mayHaveChanged(tmp.path, since: generation, takenAt: generation.mtimeNanos + second))
    // Taken in the tick of the last change: a change now could leave the same mtime.
    #expect(DirectorySnapshot.mayHaveChanged(tmp.path, since: generation, takenAt: generation.mtimeNanos))
    var older = generation
    older.mtimeNanos -= second
    #expect(DirectorySnapshot.mayHaveChanged(tmp.path, since: older, takenAt: generation.mtimeNanos + second))
  }

  /// Any page can be cut from any token of the listing: End needs only the last page.
  @Test func aTokenForAnyOffsetServesThatPage() async throws {
    let tmp = TemporaryFolder()
    for i in 0..<1000 { tmp.makeFile("f\(i)") }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let request = EnumerationRequest(container: root.identifier, suggestedPageSize: 100)
    let first = try await provider.enumerate(request, page: nil, progress: { _ in })
    let known = try #require(first.nextPage)
    let last = try #require(provider.pageToken(at: 950, from: known, in: request))
    #expect(last.data.count <= Page.maxSize)
    // Straight to the end, before any page in between was cut: the snapshot sorts just that range.
    let end = try await provider.enumerate(request, page: last, progress: { _ in })
    #expect(end.items.map(\.filename.lossyString) == (950..<1000).map { "f\($0)" })
    #expect(end.nextPage == nil)
    let middle = try await provider.enumerate(
      request, page: try #require(provider.pageToken(at: 400, from: last, in: request)), progress: { _ in })
    #expect(middle.items.map(\.filename.lossyString) == (400..<500).map { "f\($0)" })
    // Past the end (the folder shrank since the count was seen): an empty last page.
    let past = try await provider.enumerate(
      request, page: try #require(provider.pageToken(at: 5000, from: known, in: request)), progress: { _ in })
    #expect(past.items.isEmpty)
    #expect(past.nextPage == nil)
    #expect(provider.pageToken(at: 10, from: try Page(Data("not ours".utf8)), in: request) == nil)
  }
}

final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var phases: [EnumerationProgress.Phase] = []
  func add(_ p: EnumerationProgress.Phase) { lock.withLock { phases.append(p) } }
  var all: [EnumerationProgress.Phase] { lock.withLock { phases } }
}

@Suite struct IncrementalSortTests {
  /// The incremental quicksort must give exactly the order of a full sort, page after page.
  @Test(arguments: [
    ItemSort(key: .name, ascending: true, foldersFirst: true),
    ItemSort(key: .name, ascending: false, foldersFirst: true),
    ItemSort(key: .name, ascending: true, foldersFirst: false),
    ItemSort(key: .size, ascending: false, foldersFirst: true),
    ItemSort(key: .size, ascending: false, foldersFirst: false),
  ])
  func pagesMatchAFullSort(_ sort: ItemSort) async throws {
    let tmp = TemporaryFolder()
    var rng = SystemRandomNumberGenerator()
    var expected: [(name: [UInt8], folder: Bool, size: Int)] = []
    let stems = ["a", "B", "file", "File", "x y", "é", "z", "10", "2"]
    for i in 0..<1500 {
      let name = Array("\(stems[i % stems.count])\(Int.random(in: 0..<5000, using: &rng))-\(i)".utf8)
      if i % 10 == 0 {
        _ = tmp.child(name).withCString { mkdir($0, 0o755) }
        expected.append((name, true, 0))
      } else {
        let size = Int.random(in: 0..<50, using: &rng)
        tmp.makeFile(name, content: String(repeating: "x", count: size))
        expected.append((name, false, size))
      }
    }
    expected.sort { a, b in
      if sort.foldersFirst && a.folder != b.folder { return a.folder }
      let c = NameOrdering.compare(a.name, b.name)
      // By size, a folder counts as 0 (it has no size of its own), and equal sizes go by name
      // A to Z whichever way the sizes run.
      if sort.key == .size {
        if a.size != b.size { return sort.ascending ? a.size < b.size : a.size > b.size }
        return c < 0
      }
      return sort.ascending ? c < 0 : c > 0
    }
    let provider = testProvider(tmp)
    let root = try await provider.item(at: tmp.path)
    let got = try await collect(provider, root.identifier, sort: sort, pageSize: 37).map(\.filename.bytes)
    #expect(got == expected.map(\.name))
    // Pages cut in any order (jumps to the end, back to the middle) are the same pages.
    let request = EnumerationRequest(container: root.identifier, sort: sort, suggestedPageSize: 37)
    let fresh = testProvider(tmp)
    _ = try await fresh.item(at: tmp.path)
    let first = try await fresh.enumerate(request, page: nil, progress: { _ in })
    let known = try #require(first.nextPage)
    var pages = Array(1...(expected.count - 1) / 37)
    pages.shuffle(using: &rng)
    for p in [(expected.count - 1) / 37] + pages {
      let token = try #require(fresh.pageToken(at: p * 37, from: known, in: request))
      let page = try await fresh.enumerate(request, page: token, progress: { _ in })
      #expect(page.items.map(\.filename.bytes) == Array(expected.map(\.name)[(p * 37)..<min(expected.count, p * 37 + 37)]))
    }
  }
}
