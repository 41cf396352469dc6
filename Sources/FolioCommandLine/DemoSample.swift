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

    _ = try await file("README.md", Self.readme, in: .root, asAna)
    let documents = try await folder("Documents", in: .root, asAna, favorite: true)
    _ = try await file("Project plan.md", Self.plan, in: documents, asAna, tags: ["Blue"])
    _ = try await file("Meeting notes.txt", Self.meeting, in: documents, asAna, tags: ["Red"])
    _ = try await file("Budget 2026.csv", Self.budget, in: documents, asAna, tags: ["Green", "finance"])
    let reports = try await folder("Reports", in: documents, asAna)
    _ = try await file("Q3 summary.md", "# Q3 summary\n\nRevenue up 12 %; two releases shipped.\n", in: reports, asAna)
    _ = try await dataset(in: .root, asAna)

    let team = try await folder("Team", in: .root, asBen)
    _ = try await file("Team handbook.md", Self.handbook, in: team, asBen)
    let checklist = try await file("Release checklist.md", Self.checklist, in: team, asBen, tags: ["Orange"])
    // Locked by ben: ana sees the lock, and the server refuses her uploads to it until he unlocks.
    try await asBen.performAction(ActionIdentifier("lock"), on: [checklist.identifier])
    await asAna.signOut()
    await asBen.signOut()
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
  private func dataset(in parent: ItemIdentifier, _ p: FolioServerProvider) async throws(ProviderError) -> Item {
    let url = scratch.appendingPathComponent("dataset.csv")
    guard FileManager.default.createFile(atPath: url.path, contents: nil), let out = FileHandle(forWritingAtPath: url.path)
    else { throw ProviderError(.ioError, "cannot write the sample dataset in \(scratch.path)") }
    defer { try? FileManager.default.removeItem(at: url) }
    let regions = ["north", "south", "east", "west", "central"]
    var written = 0
    var row = 0
    var chunk = "order,date,region,units,amount\n"
    while written < Self.datasetBytes {
      let day = row % 365
      chunk += "\(100_000 + row),2026-\(String(format: "%02d", day / 31 % 12 + 1))-\(String(format: "%02d", day % 28 + 1)),"
      chunk += "\(regions[row % regions.count]),\(row % 17 + 1),\(Double((row &* 7919) % 100_000) / 100)\n"
      row += 1
      if chunk.utf8.count >= 1 << 20 {
        out.write(Data(chunk.utf8))
        written += chunk.utf8.count
        chunk = ""
      }
    }
    out.write(Data(chunk.utf8))
    try? out.close()
    let t = ItemTemplate(parentIdentifier: parent, filename: ItemName("Big dataset.csv"), contentType: ContentType.forExtension("csv"))
    return try await p.createItem(t, fields: [.contents], contents: url, options: [])
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
