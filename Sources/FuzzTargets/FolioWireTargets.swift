import FolioProtocol
import FolioServer
import FolioServerProvider
import Foundation
import NIOHTTP1
import ProviderAPI

/// The Folio server's answers as its provider reads them: JSON bodies (`JSONDecoder`, as
/// `ServerConnection` decodes them), each item through `WireItemMapper`, and an error body
/// through `ServerErrorMapping`.
///
/// Properties: an item the provider accepts has a usable name and identifiers; every error the
/// answer turns into is a value whose message is safe to show.
enum FolioWireClientTarget {
  static let target = FuzzTarget(
    name: "folio-wire-client", summary: "the provider's reading of folio serve's answers: checked items, safe errors",
    dictionary: FuzzDictionary.json + ["\"items\"", "\"total\"", "\"updated\"", "\"deleted\"", "\"more\"", "\"existing\""]
  ) { bytes in
    let data = Data(bytes)
    let decoder = JSONDecoder()
    var items: [WireItem] = []
    if let page = try? decoder.decode(PageResponse.self, from: data) { items += page.items }
    if let changes = try? decoder.decode(ChangesResponse.self, from: data) {
      items += changes.updated
      for id in changes.deleted {
        do throws(ProviderError) { _ = try WireItemMapper.identifier(id) } catch {
          if let v = TerminalSafety.check(error.message, from: "a deleted id's refusal") { return v }
        }
      }
    }
    if let item = try? decoder.decode(WireItem.self, from: data) { items.append(item) }
    if let upload = try? decoder.decode(UploadResponse.self, from: data) { items.append(upload.item) }
    _ = try? decoder.decode(AnchorResponse.self, from: data)
    _ = try? decoder.decode(WaitResponse.self, from: data)
    _ = try? decoder.decode(LoginResponse.self, from: data)
    _ = try? decoder.decode(DeclarationsResponse.self, from: data)
    _ = try? decoder.decode(AccountResponse.self, from: data)
    for w in items.prefix(64) {
      let item: Item
      do throws(ProviderError) { item = try mapper.item(w) } catch {
        if let v = TerminalSafety.check(error.message, from: "an item refusal") { return v }
        continue
      }
      if item.identifier == .root || item.identifier == .trash { continue }
      let name = item.filename.bytes
      if name.isEmpty || name == [0x2E] || name == [0x2E, 0x2E] || name.contains(0x2F) || name.contains(0) {
        return FuzzViolation("the provider accepted an item named \(TerminalText.escape(bytes: name))")
      }
    }
    for status in [HTTPResponseStatus.conflict, .badGateway, .unauthorized] {
      let error = ServerErrorMapping.error(status: status, headers: HTTPHeaders(), body: data, server: "fuzz.example")
      if let v = TerminalSafety.check(error.message, from: "ServerErrorMapping (\(status.code))") { return v }
    }
    return nil
  }

  static let mapper = WireItemMapper(rootName: ItemName("Fuzz"), user: "alice")
}

/// The requests `folio serve` reads from any client: JSON bodies (`JSONDecoder`, as
/// `ServerHandlers` decodes them), names through `NameRules`, page tokens and sync anchors.
///
/// Properties: a name the server accepts is a valid name (not empty, `.`, `..`, no `/` or NUL,
/// at most 255 bytes); a page token or anchor it decodes encodes back to one that decodes the
/// same; every refusal is a value whose message is safe to show.
enum FolioWireServerTarget {
  static let target = FuzzTarget(
    name: "folio-wire-server", summary: "folio serve's reading of requests: names, page tokens, anchors",
    dictionary: FuzzDictionary.json + ["\"user\"", "\"password\"", "\"baseMetadata\"", "\"baseContent\"", "epoch.", "AQ"]
  ) { bytes in
    let data = Data(bytes)
    let decoder = JSONDecoder()
    var names: [String] = []
    _ = try? decoder.decode(LoginRequest.self, from: data)
    if let r = try? decoder.decode(CreateFolderRequest.self, from: data) { names.append(r.name) }
    if let r = try? decoder.decode(ModifyRequest.self, from: data), let name = r.name { names.append(name) }
    _ = try? decoder.decode(RestoreRequest.self, from: data)
    _ = try? decoder.decode(CopyRequest.self, from: data)
    _ = try? decoder.decode(ResolveConflictRequest.self, from: data)
    _ = try? decoder.decode(PerformActionRequest.self, from: data)
    _ = try? decoder.decode(FaultRulesRequest.self, from: data)
    names.append(String(decoding: bytes, as: UTF8.self))
    for name in names {
      let accepted: String
      do throws(ServerError) { accepted = try NameRules.validate(bytes: Array(name.utf8)) } catch {
        if let v = TerminalSafety.check(error.message, from: "a name refusal") { return v }
        continue
      }
      let b = Array(accepted.utf8)
      if b.isEmpty || b.count > 255 || b == [0x2E] || b == [0x2E, 0x2E] || b.contains(0x2F) || b.contains(0) {
        return FuzzViolation("the server accepted the name \(TerminalText.escape(bytes: b))")
      }
    }
    return TokenTarget.serverTokens(String(decoding: bytes, as: UTF8.self))
  }
}
