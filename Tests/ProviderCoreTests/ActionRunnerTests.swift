import FolioConfig
import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore
@testable import TestSupport

/// A provider declaring actions (as an Info.plist would) and a user config declaring more.
struct ActionFixture {
  static let pin = ActionIdentifier("com.example.pin")
  static let unpin = ActionIdentifier("com.example.unpin")
  static let share = ActionIdentifier("com.example.share")

  let memory: InMemoryProvider
  let domain: Domain

  init(domain id: String = "cloud") throws {
    memory = InMemoryProvider(
      domain: DomainIdentifier(unchecked: id),
      actions: [
        ActionDeclaration(
          identifier: Self.pin, name: "Keep Downloaded", activationRule: try ActivationRule(parsing: "userInfo.pinned != YES")),
        ActionDeclaration(
          identifier: Self.unpin, name: "Remove Download",
          activationRule: try ActivationRule(parsing: "userInfo.pinned == YES")),
        ActionDeclaration(
          identifier: Self.share, name: "Share Folder",
          activationRule: try ActivationRule(parsing: "count == 1 AND isFolder == YES")),
      ])
    domain = Domain(identifier: DomainIdentifier(unchecked: id), displayName: id, provider: memory, localRoot: nil)
  }

  static func user(_ id: String, _ name: String, rule: String, command: [String], confirm: Bool = false) throws
    -> CustomActionConfig
  {
    CustomActionConfig(
      identifier: ActionIdentifier(id), name: name, rule: try ActivationRule(parsing: rule), command: command,
      confirm: confirm)
  }

  /// User actions running `program`.
  static func userActions(program: String = "/bin/true") throws -> [CustomActionConfig] {
    [
      try user("user.compress", "Compress", rule: "fileproviderItems.@count >= 2", command: [program, "{paths}"]),
      try user("user.edit", "Edit", rule: "count == 1 AND isFolder == NO", command: [program, "--", "{path}"]),
      try user(
        "user.resize", "Resize", rule: "contentType UTI-CONFORMS-TO 'public.image'", command: [program, "{paths}"],
        confirm: true),
      try user("user.pro", "Pro Only", rule: "domainUserInfo.plan == 'pro'", command: [program, "{path}"]),
    ]
  }
}

@Suite struct ActionRunnerTests {
  @Test func offeredActionsFollowTheirRulesProviderActionsFirst() async throws {
    let f = try ActionFixture()
    let runner = ActionRunner(userActions: try ActionFixture.userActions())
    let text = await f.memory.add(ItemName("notes.txt"))
    let pinnedPhoto = await f.memory.add(ItemName("beach.png"), userInfo: ["pinned": .bool(true)])
    let photo = await f.memory.add(ItemName("dune.png"))
    let folder = await f.memory.add(ItemName("Projects"), folder: true)

    func offered(_ selection: [Item], _ info: [String: UserInfoValue] = [:]) -> [String] {
      runner.actions(for: selection, in: f.domain, domainUserInfo: info).map(\.identifier.rawValue)
    }
    // Single file, single folder, single pinned image.
    #expect(offered([text]) == ["com.example.pin", "user.edit"])
    #expect(offered([folder]) == ["com.example.pin", "com.example.share"])
    #expect(offered([pinnedPhoto]) == ["com.example.unpin", "user.edit", "user.resize"])
    // Several items: item-scoped rules must hold for every one of them.
    #expect(offered([text, folder]) == ["com.example.pin", "user.compress"])
    #expect(offered([pinnedPhoto, photo]) == ["user.compress", "user.resize"])
    #expect(offered([photo, text]) == ["com.example.pin", "user.compress"])
    // Nothing selected: nothing offered. Domain userInfo unlocks its action.
    #expect(offered([]) == [])
    #expect(offered([text], ["plan": .string("pro")]) == ["com.example.pin", "user.edit", "user.pro"])
    #expect(offered([text], ["plan": .string("free")]) == ["com.example.pin", "user.edit"])
    // Matching reads the items at hand only: the provider was never asked.
    #expect(await f.memory.calls.isEmpty)
  }

  @Test func declaredActionsAndLookupByIdentifierOrName() throws {
    let f = try ActionFixture()
    let runner = ActionRunner(userActions: try ActionFixture.userActions())
    let declared = runner.declaredActions(for: f.domain)
    #expect(declared.map(\.identifier.rawValue) == [
      "com.example.pin", "com.example.unpin", "com.example.share", "user.compress", "user.edit", "user.resize",
      "user.pro",
    ])
    #expect(declared.prefix(3).allSatisfy { $0.source == .provider(f.domain.identifier) && !$0.needsConfirmation })
    #expect(declared.first { $0.identifier.rawValue == "user.resize" }?.needsConfirmation == true)
    #expect(declared.first { $0.identifier.rawValue == "user.edit" }?.needsConfirmation == false)

    #expect(runner.action(named: "com.example.share", in: f.domain)?.name == "Share Folder")
    #expect(runner.action(named: "keep downloaded", in: f.domain)?.identifier == ActionFixture.pin)
    #expect(runner.action(named: "COMPRESS", in: f.domain)?.identifier.rawValue == "user.compress")
    #expect(runner.action(named: "com.example", in: f.domain) == nil)
    #expect(runner.action(named: "", in: f.domain) == nil)
  }

  @Test func runningAProviderActionCallsPerformAction() async throws {
    let f = try ActionFixture()
    let runner = ActionRunner(userActions: [])
    let a = await f.memory.add(ItemName("a.txt"))
    let b = await f.memory.add(ItemName("b.txt"))
    let pin = try #require(runner.action(named: "com.example.pin", in: f.domain))

    let outcome = try await runner.run(pin, on: [a, b], in: f.domain)
    #expect(outcome == nil)
    let performed = await f.memory.performedActions
    #expect(performed.count == 1)
    #expect(performed.first?.0 == ActionFixture.pin)
    #expect(performed.first?.1 == [a.identifier, b.identifier])
    #expect(await f.memory.calls == [.action])
  }

  @Test func aSelectionTheRuleDoesNotMatchIsRefused() async throws {
    let tmp = ScratchFolder()
    let record = tmp.child("argv")
    let script = tmp.recordingScript(record: record)
    let f = try ActionFixture()
    let runner = ActionRunner(userActions: try ActionFixture.userActions(program: script.lossyString))
    let text = await f.memory.add(ItemName("notes.txt"))
    let folder = await f.memory.add(ItemName("Projects"), folder: true)

    // A provider action: performAction is never called.
    let unpin = try #require(runner.action(named: "com.example.unpin", in: f.domain))
    let error = await #expect(throws: ProviderError.self) { try await runner.run(unpin, on: [text], in: f.domain) }
    #expect(error?.code == .invalidArgument)
    #expect(error?.message.contains("Remove Download") == true)
    #expect(error?.message.contains("userInfo.pinned == YES") == true)
    #expect(await f.memory.performedActions.isEmpty)
    #expect(await f.memory.calls.isEmpty)

    // A user action: the program never runs.
    let edit = try #require(runner.action(named: "user.edit", in: f.domain))
    await #expect(throws: ProviderError.self) { try await runner.run(edit, on: [folder], in: f.domain) }
    await #expect(throws: ProviderError.self) { try await runner.run(edit, on: [text, text], in: f.domain) }
    let compress = try #require(runner.action(named: "user.compress", in: f.domain))
    await #expect(throws: ProviderError.self) { try await runner.run(compress, on: [text], in: f.domain) }
    #expect(!ScratchFolder.exists(record))

    // Nothing selected.
    let empty = await #expect(throws: ProviderError.self) { try await runner.run(compress, on: [], in: f.domain) }
    #expect(empty?.code == .invalidArgument)
  }

  @Test func aUserActionGetsItsPlaceholdersAsWholeArgumentsWithNoShell() async throws {
    let tmp = ScratchFolder()
    let record = tmp.child("argv")
    let script = tmp.recordingScript(record: record)
    let f = try ActionFixture()
    let action = try ActionFixture.user(
      "user.record", "Record", rule: "TRUEPREDICATE",
      command: [script.lossyString, "--", "{name}", "{folder}", "{path}", "{paths}", "$(touch y) literal"])
    let runner = ActionRunner(userActions: [action])

    let folder = await f.memory.add(ItemName("-rf"), folder: true)
    let hostile: [[UInt8]] = [
      bytes("$(touch x)"),
      bytes("new\nline.txt"),
      [0xFF, 0xFE] + bytes(".bin"),
      bytes("; rm -rf ~"),
      bytes("`id` \"q\" 'q' *"),
    ]
    var selection: [Item] = []
    for name in hostile { selection.append(await f.memory.add(ItemName(bytes: name), in: folder.identifier)) }

    let ran = try #require(runner.action(named: "Record", in: f.domain))
    let outcome = try await runner.run(ran, on: selection, in: f.domain)
    #expect(outcome?.succeeded == true)

    let focused = selection[0]
    #expect(focused.path == ItemPath("/-rf/$(touch x)"))
    let expected: [[UInt8]] =
      [bytes("--"), hostile[0], bytes("/-rf"), focused.path.bytes]
      + selection.map(\.path.bytes) + [bytes("$(touch y) literal")]
    #expect(ScratchFolder.recordedArguments(record) == expected)
    #expect(await f.memory.calls.isEmpty)
  }

  @Test func aFailingUserActionReportsItsExitStatus() async throws {
    let tmp = ScratchFolder()
    let record = tmp.child("argv")
    let script = tmp.recordingScript(record: record, status: 4)
    let f = try ActionFixture()
    let action = try ActionFixture.user("user.fail", "Fail", rule: "TRUEPREDICATE", command: [script.lossyString, "{name}"])
    let runner = ActionRunner(userActions: [action])
    let item = await f.memory.add(ItemName("a.txt"))
    let outcome = try await runner.run(runner.declaredActions(for: f.domain).last!, on: [item], in: f.domain)
    #expect(outcome?.exitStatus == 4)
    #expect(outcome?.succeeded == false)
    #expect(ScratchFolder.recordedArguments(record) == [bytes("a.txt")])
  }

  @Test func aRuleOnDomainUserInfoRunsWithTheValuesItWasOfferedFor() async throws {
    let tmp = ScratchFolder()
    let record = tmp.child("argv")
    let script = tmp.recordingScript(record: record)
    let f = try ActionFixture()
    let runner = ActionRunner(userActions: try ActionFixture.userActions(program: script.lossyString))
    let item = await f.memory.add(ItemName("a.txt"))
    let info: [String: UserInfoValue] = ["plan": .string("pro")]
    let offered = runner.actions(for: [item], in: f.domain, domainUserInfo: info)
    let pro = try #require(offered.first { $0.identifier.rawValue == "user.pro" })

    let outcome = try await runner.run(pro, on: [item], in: f.domain, domainUserInfo: info)
    #expect(outcome?.succeeded == true)
    #expect(ScratchFolder.recordedArguments(record) == [bytes("/a.txt")])
    // Without the domain's values the rule does not hold.
    await #expect(throws: ProviderError.self) { try await runner.run(pro, on: [item], in: f.domain) }
  }

  @Test func aProviderActionRunsOnlyOnItsOwnDomain() async throws {
    let cloud = try ActionFixture(domain: "cloud")
    let other = try ActionFixture(domain: "other")
    let runner = ActionRunner(userActions: [])
    let pin = try #require(runner.action(named: "com.example.pin", in: cloud.domain))
    let item = await other.memory.add(ItemName("a.txt"))
    let error = await #expect(throws: ProviderError.self) { try await runner.run(pin, on: [item], in: other.domain) }
    #expect(error?.code == .invalidArgument)
    #expect(await other.memory.performedActions.isEmpty)
    #expect(await cloud.memory.performedActions.isEmpty)
  }
}
