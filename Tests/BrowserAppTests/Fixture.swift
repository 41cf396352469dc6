import Foundation
import ProviderAPI
import TestSupport

/// A small tree: two folders (Documents holds report.txt) and two files at the top.
struct Fixture {
  var archive: Item
  var documents: Item
  var report: Item
  var notes: Item
  var photo: Item

  static func populate(_ p: InMemoryProvider) async -> Fixture {
    let archive = await p.add(ItemName("Archive"), folder: true)
    let documents = await p.add(ItemName("Documents"), folder: true)
    let report = await p.add(ItemName("report.txt"), in: documents.identifier, content: Data("q3".utf8))
    let notes = await p.add(ItemName("notes.txt"), content: Data("hello".utf8))
    let photo = await p.add(ItemName("photo.png"), content: Data([0x89, 0x50]))
    return Fixture(archive: archive, documents: documents, report: report, notes: notes, photo: photo)
  }

  /// The names at the top, as the list sorts them (folders first, by name).
  static let topNames = ["Archive", "Documents", "notes.txt", "photo.png"]
}
