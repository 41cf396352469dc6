import Hummingbird

/// The routes of docs/PROTOCOL.md. `/v1/_faults` exists only with `--faults`: without it the
/// router answers 404 as for any unknown path.
enum ServerRoutes {
  static func router(_ h: ServerHandlers) -> Router<FolioRequestContext> {
    let router = Router(context: FolioRequestContext.self)
    router.middlewares.add(FrontMiddleware(faults: h.faults))
    let v1 = router.group("v1")
    v1.post("login") { request, _ in try await h.login(request) }
    v1.post("logout") { request, _ in try await h.logout(request) }
    v1.get("account") { request, _ in try await h.account(request) }

    v1.get("items/:id") { request, context in try await h.item(request, context) }
    v1.get("lookup") { request, _ in try await h.lookup(request) }
    v1.get("items/:id/children") { request, context in try await h.children(request, context) }
    v1.get("items/:id/content") { request, context in try await h.download(request, context) }

    v1.get("anchor") { request, _ in try await h.anchor(request) }
    v1.get("changes") { request, context in try await h.changes(request, context) }
    v1.get("changes/wait") { request, _ in try await h.wait(request) }

    v1.post("items") { request, _ in try await h.createFolder(request) }
    v1.post("uploads") { request, context in try await h.upload(request, context) }
    v1.put("items/:id/content") { request, context in try await h.replace(request, context) }
    v1.patch("items/:id") { request, context in try await h.modify(request, context) }
    v1.post("items/:id/restore") { request, context in try await h.restore(request, context) }
    v1.post("items/:id/copy") { request, context in try await h.copy(request, context) }
    v1.delete("items/:id") { request, context in try await h.delete(request, context) }
    v1.post("trash/empty") { request, _ in try await h.emptyTrash(request) }
    v1.post("conflicts/:id/resolve") { request, context in try await h.resolve(request, context) }

    v1.get("declarations") { request, _ in try await h.declarations(request) }
    v1.post("actions/:id") { request, context in try await h.perform(request, context) }

    if h.faults != nil {
      v1.get("_faults") { _, _ in try await h.faultState() }
      v1.post("_faults") { request, _ in try await h.installFaults(request) }
      v1.delete("_faults") { _, _ in try h.clearFaults() }
    }
    return router
  }
}
