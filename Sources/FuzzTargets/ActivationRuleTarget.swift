import Foundation
import ProviderAPI

/// The activation-rule language (lexer, parser, evaluator) on rule text a provider declares.
///
/// Property: a rule either parses or fails with `.badRule` and a message that names a column and
/// is safe to show; a parsed rule parses again from its printed form (its `description`) and
/// gives the same answer on the same selections; evaluation never fails.
enum ActivationRuleTarget {
  static let target = FuzzTarget(
    name: "activation-rule", summary: "rules: parse or a located .badRule; printed form re-parses; same answers",
    dictionary: [
      "SUBQUERY(fileproviderItems, $x, ", ").@count", "$x.", "fileproviderItems.@count", "userInfo.", "domainUserInfo.",
      " AND ", " OR ", " NOT ", "&&", "||", "!", "==", "!=", "<>", "<=", ">=", " IN ", " CONTAINS ", " BEGINSWITH ",
      " ENDSWITH ", " LIKE ", " MATCHES ", " UTI-CONFORMS-TO ", "[cd]", "[c]", "ANY ", "ALL ", "NONE ", "TRUEPREDICATE",
      "FALSEPREDICATE", "YES", "NO", "NULL", "{", "}", "'", "\"", "\\", "(", ")", "filename", "size", "isFolder",
      "contentType", "tags", "tags.@count", "capabilities", "modified", "'public.image'", "'[a-z]+'", "'(((('",
      "1e308", "-9223372036854775808", "9999999999999999999999", "\u{1B}[31m", "\u{202E}",
    ]
  ) { bytes in
    let source = String(decoding: bytes, as: UTF8.self)
    let rule: ActivationRule
    do throws(ProviderError) {
      rule = try ActivationRule(parsing: source)
    } catch {
      guard error.code == .badRule else { return FuzzViolation("a rule failed with \(error.code), not badRule") }
      guard error.message.contains("column") else { return FuzzViolation("a rule error names no column: \(error.message)") }
      return TerminalSafety.check(error.message, from: "a rule error message")
    }
    let again: ActivationRule
    do throws(ProviderError) {
      again = try ActivationRule(parsing: rule.description)
    } catch {
      return FuzzViolation("a parsed rule does not parse again from its printed form: \(error.message)")
    }
    for context in contexts where rule.matches(context) != again.matches(context) {
      return FuzzViolation("a rule and its re-parsed form disagree on a selection of \(context.selection.count)")
    }
    return nil
  }

  /// Selections the rules are evaluated on: none, a file, a folder and a file with userInfo.
  static let contexts: [ActivationContext] = {
    func item(_ name: String, folder: Bool, size: Int64?, userInfo: [String: UserInfoValue] = [:]) -> Item {
      let itemName = ItemName(name)
      return Item(
        identifier: ItemIdentifier("id-" + name), parentIdentifier: .root, filename: itemName,
        path: ItemPath.root.appending(itemName), contentType: folder ? .folder : .forExtension(itemName.pathExtension),
        documentSize: size, contentModificationDate: Date(timeIntervalSince1970: 1_700_000_000), tags: ["Red", "work"],
        userInfo: userInfo)
    }
    let file = item("photo.jpg", folder: false, size: 2_000_000, userInfo: ["pinned": .bool(true), "n": .number(3)])
    let folder = item("Projects", folder: true, size: nil)
    return [
      ActivationContext(selection: []), ActivationContext(selection: [file], domainUserInfo: ["plan": .string("free")]),
      ActivationContext(selection: [folder]), ActivationContext(selection: [file, folder]),
    ]
  }()
}
