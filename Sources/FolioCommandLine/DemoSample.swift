import FolioServerProvider
import Foundation
import ProviderAPI

/// The sample tree of `folio demo`, made through the protocol by two users, as a team would make
/// it: ana (who the demo signs in as) owns her documents and a large dataset; ben owns the team
/// folder, shares it, and locks one of its files. Everything the badges show comes from a real
/// server answering real requests: nothing is faked for the screen.
struct DemoSample {
  let server: URL
  /// Where the files are written before they are uploaded.
  let scratch: URL

  /// The size of the dataset: large enough that its download shows a moving `↓ n%`.
  static let datasetBytes = 64 << 20

  func seed(ana: String, anaPassword: String, ben: String, benPassword: String) async throws(ProviderError) {
    let asAna = provider(ana, anaPassword)
    let asBen = provider(ben, benPassword)
    // ben's part runs beside ana's: each begins with a sign-in, an scrypt on the server, and
    // neither needs the other's files (docs/BENCHMARKS.md, `folio demo`).
    async let team = seedTeam(asBen)

    _ = try await file("README.md", Self.readme, in: .root, asAna)
    let documents = try await folder("Documents", in: .root, asAna, favorite: true)
    _ = try await file("Project plan.md", Self.plan, in: documents, asAna, tags: ["Blue"])
    _ = try await file("Meeting notes.txt", Self.meeting, in: documents, asAna, tags: ["Red"])
    _ = try await file("Budget 2026.csv", Self.budget, in: documents, asAna, tags: ["Green", "finance"])
    let reports = try await folder("Reports", in: documents, asAna)
    _ = try await file("Q3 summary.md", "# Q3 summary\n\nRevenue up 12 %; two releases shipped.\n", in: reports, asAna)
    _ = try await dataset(in: .root, asAna)
    try await team.get()
    await asAna.signOut()
    await asBen.signOut()
  }

  /// ben's shared folder, with a file he locked.
  private func seedTeam(_ asBen: FolioServerProvider) async -> Result<Void, ProviderError> {
    do throws(ProviderError) {
      let team = try await folder("Team", in: .root, asBen)
      _ = try await file("Team handbook.md", Self.handbook, in: team, asBen)
      let checklist = try await file("Release checklist.md", Self.checklist, in: team, asBen, tags: ["Orange"])
      // Locked by ben: ana sees the lock, and the server refuses her uploads to it until he unlocks.
      try await asBen.performAction(ActionIdentifier("lock"), on: [checklist.identifier])
      return .success(())
    } catch {
      return .failure(error)
    }
  }

  private func provider(_ user: String, _ password: String) -> FolioServerProvider {
    FolioServerProvider(
      domain: DomainIdentifier(unchecked: "demo-seed-\(user)"), displayName: "Demo",
      account: ServerAccount(baseURL: server, user: user), password: .fixed(password))
  }

  private func folder(
    _ name: String, in parent: ItemIdentifier, _ p: FolioServerProvider, favorite: Bool = false
  ) async throws(ProviderError) -> ItemIdentifier {
    var t = ItemTemplate(parentIdentifier: parent, filename: ItemName(name), contentType: .folder)
    t.favoriteRank = favorite ? UInt64(Date().timeIntervalSince1970 * 1000) : nil
    return try await p.createItem(t, fields: favorite ? [.favoriteRank] : [], contents: nil, options: []).identifier
  }

  @discardableResult
  private func file(
    _ name: String, _ text: String, in parent: ItemIdentifier, _ p: FolioServerProvider, tags: [String] = []
  ) async throws(ProviderError) -> Item {
    let url = scratch.appendingPathComponent(UUID().uuidString)
    do {
      try Data(text.utf8).write(to: url)
    } catch {
      throw ProviderError(.ioError, "cannot write the sample file \(url.path): \(error)")
    }
    defer { try? FileManager.default.removeItem(at: url) }
    let n = ItemName(name)
    var t = ItemTemplate(parentIdentifier: parent, filename: n, contentType: ContentType.forExtension(n.pathExtension))
    t.tags = tags
    return try await p.createItem(t, fields: tags.isEmpty ? [.contents] : [.contents, .tagData], contents: url, options: [])
  }

  /// A CSV of made-up sales rows (deterministic, so every demo has the same file).
  ///
  /// Written as blocks of rows made once, each block's order numbers patched in place: made row
  /// by row with string interpolation and `String(format:)`, the 2 million rows took 10.5 s of
  /// the demo's 12.6 s before its UI showed (debug build, docs/BENCHMARKS.md); now about 0.5 s.
  private func dataset(in parent: ItemIdentifier, _ p: FolioServerProvider) async throws(ProviderError) -> Item {
    let url = scratch.appendingPathComponent("dataset.csv")
    try Self.writeDataset(to: url.path, bytes: Self.datasetBytes)
    defer { try? FileManager.default.removeItem(at: url) }
    let t = ItemTemplate(parentIdentifier: parent, filename: ItemName("Big dataset.csv"), contentType: ContentType.forExtension("csv"))
    return try await p.createItem(t, fields: [.contents], contents: url, options: [])
  }

  /// Rows `order,date,region,units,amount` until the file has at least `bytes` bytes. Row `r`
  /// has the order number 1,000,000 + r (seven digits up to 9.9 million rows) and the other
  /// fields of row `r % rowsPerBlock`.
  static func writeDataset(to path: String, bytes: Int) throws(ProviderError) {
    let rowsPerBlock = 1 << 15
    let regions = ["north", "south", "east", "west", "central"]
    var block: [UInt8] = []
    block.reserveCapacity(rowsPerBlock * 40)
    var starts: [Int] = []
    starts.reserveCapacity(rowsPerBlock)
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    for row in 0..<rowsPerBlock {
      starts.append(block.count)
      let day = row % 365
      let cents = (row &* 7919) % 100_000
      let line =
        "0000000,2026-\(two(day / 31 % 12 + 1))-\(two(day % 28 + 1)),\(regions[row % regions.count]),"
        + "\(row % 17 + 1),\(cents / 100).\(two(cents % 100))\n"
      block.append(contentsOf: line.utf8)
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ProviderError(.ioError, "cannot write the sample dataset \(path) (errno \(errno))") }
    defer { close(fd) }
    func put(_ bytes: [UInt8]) throws(ProviderError) {
      let ok = bytes.withUnsafeBytes { raw -> Bool in
        var done = 0
        while done < raw.count {
          let n = write(fd, raw.baseAddress! + done, raw.count - done)
          if n < 0 && errno == EINTR { continue }
          if n <= 0 { return false }
          done += n
        }
        return true
      }
      if !ok { throw ProviderError(.ioError, "cannot write the sample dataset \(path) (errno \(errno))") }
    }
    let header = Array("order,date,region,units,amount\n".utf8)
    try put(header)
    var written = header.count
    var first = 1_000_000
    while written < bytes {
      // Plain pointer loops: this is most of the work, and debug builds run it too.
      block.withUnsafeMutableBufferPointer { buf in
        starts.withUnsafeBufferPointer { starts in
          let bytes = buf.baseAddress!
          var i = 0
          while i < rowsPerBlock {
            var v = first + i
            var p = bytes + starts[i] + 6
            while v > 0 {
              p.pointee = UInt8(truncatingIfNeeded: 48 + v % 10)
              v /= 10
              p -= 1
            }
            i += 1
          }
        }
      }
      try put(block)
      written += block.count
      first += rowsPerBlock
    }
  }

  static let readme = """
    # Welcome to the Folio demo

    This location is a FolioServer running inside `folio demo`, on this computer only.
    Files stay in the cloud (☁) until you open them: Enter downloads, then opens.

    - Enter on a file: download it (watch ↓ n%), then open it with $VISUAL/$EDITOR or $PAGER.
      Save an edit and it goes back up (↑ n%).
    - m: the menu — Download, Remove Download, Keep Downloaded, Lock, Info…
    - Team/ belongs to ben: it is shared with you (👥), and ben locked a file (🔒).
    - Big dataset.csv is 64 MiB, to see a download take a moment.
    - Tab: Recents. b: the sidebar. ?: every key. q: quit (the demo removes everything).

    """

  static let plan = """
    # Project plan

    1. Browse a server like a local disk.
    2. Open files on demand; upload edits in the background.
    3. Never lose an edit: conflicts keep both versions.

    """

  static let meeting = "Meeting notes\n\n- Ship the demo.\n- Screenshots for the README.\n- Ask ben to unlock the checklist.\n"
  static let budget = "item,quarter,amount\nservers,Q1,1200\nservers,Q2,1200\nlicences,Q1,300\ntravel,Q3,850\n"
  static let handbook = "# Team handbook\n\nShared by ben with the whole team. Read it, edit it: the server keeps one copy.\n"
  static let checklist = "# Release checklist\n\n- [ ] tag the release\n- [ ] update the changelog\n- [ ] announce it\n"
}
