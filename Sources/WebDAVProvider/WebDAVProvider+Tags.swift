import Foundation
import ProviderAPI
import WebDAVClient

extension WebDAVProvider {
  /// Makes the item's Nextcloud system tags `wanted`: tags it lacks are assigned (an existing tag
  /// of the same name in another case is used, as Folio's tags are one whatever their case,
  /// `TagName`; a new name makes a tag the user sees and may assign), tags it has that are not
  /// wanted are removed. Nextcloud's tags are the account's and the instance's: what Folio sets
  /// shows in the Files app, and what is set there reaches Folio with the next listing.
  func setSystemTags(_ wanted: [String], of path: ItemPath) async throws(ProviderError) {
    guard let davRoot else {
      throw ProviderError(.featureUnsupported, "this WebDAV server keeps no tags: Folio keeps them on this computer")
    }
    try await withClient { c in
      let entry = try await c.stat(try Self.davPath(path), properties: [.resourceType, .fileID, .systemTags])
      guard let fileID = entry.fileID else {
        throw ProviderError(.featureUnsupported, "the server states no file id for \(path.displayString): its tags cannot be set")
      }
      let current = entry.systemTags ?? []
      let adding = wanted.filter { tag in !current.contains { TagName.same($0, tag) } }
      let removing = current.filter { tag in !wanted.contains { TagName.same($0, tag) } }
      guard !adding.isEmpty || !removing.isEmpty else { return }
      let dav = WebDAVClient(
        try WebDAVConfiguration(url: davRoot, user: c.configuration.user, password: c.configuration.password, caFile: self.caFile))
      var known = try await dav.systemTags()
      for tag in adding {
        var id = known.first { TagName.same($0.name, tag) }?.id
        if id == nil {
          do {
            id = try await dav.createSystemTag(tag)
          } catch let error as WebDAVError where error.status == 409 {
            // Made meanwhile by another client: list again.
            known = try await dav.systemTags()
            id = known.first { TagName.same($0.name, tag) }?.id
          }
        }
        guard let id else { throw ProviderError(.cannotSynchronize, "the tag \(TerminalText.escape(tag)) could not be made") }
        try await dav.assignSystemTag(id, toFile: fileID)
      }
      for tag in removing {
        for match in known where TagName.same(match.name, tag) {
          try await dav.unassignSystemTag(match.id, fromFile: fileID)
        }
      }
    }
    listings.forget(path.parent)
  }
}
