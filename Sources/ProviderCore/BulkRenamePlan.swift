import ProviderAPI

/// What a bulk rename will do: the names before, the lines the editor saved, and from them the
/// renames in an order where no rename ever needs a name that is still taken — a cycle (a↔b,
/// a→b→c→a) goes through a temporary name in the same folder — or the reason the whole batch is
/// refused.
///
/// Pure, so that every rule is a unit test (BulkRenamePlanTests); ``BulkRenamer`` performs a plan
/// through ``ItemService``. Line *i* of the file is item *i* of the batch, as in vidir: the lines
/// are never matched by content, so a line count change is refused rather than guessed at.
public struct BulkRenamePlan: Sendable, Equatable {
  /// One rename.
  public struct Step: Sendable, Equatable {
    /// The item's position in the batch (its line, from 0).
    public var item: Int
    public var from: ItemName
    public var to: ItemName
    /// The chain or cycle the step belongs to, numbered from 0. A cycle is undone as a whole when
    /// one of its steps fails, so nothing is left under a temporary name; a chain needs no undo.
    public var group: Int
    /// `to` is a temporary name (the first step of a cycle), left again by the group's last step.
    public var toTemporary: Bool

    public init(item: Int, from: ItemName, to: ItemName, group: Int, toTemporary: Bool = false) {
      self.item = item
      self.from = from
      self.to = to
      self.group = group
      self.toTemporary = toTemporary
    }
  }

  /// In the order they must run.
  public var steps: [Step]
  /// The batch positions of the items whose name changes, ascending.
  public var changed: [Int]
  /// Nothing to rename: every line is its item's name.
  public var isEmpty: Bool { steps.isEmpty }

  /// Plans a batch.
  ///
  /// - Parameters:
  ///   - names: the batch's names, in the order they were written to the file.
  ///   - text: the file as the editor left it (``BulkRenameText``).
  ///   - outside: every other name in the folder — hidden ones too — which no line may take.
  ///   - foldsCase: the storage treats "a" and "A" as one name: they clash, and a case-only
  ///     change goes through a temporary name.
  /// - Throws: the first reason to refuse the whole batch; nothing is renamed then.
  public static func make(
    names: [ItemName], text: [UInt8], outside: [ItemName], foldsCase: Bool = false
  ) throws(BulkRenameRefusal) -> BulkRenamePlan {
    let lines = BulkRenameText.lines(of: text)
    guard lines.count == names.count else { throw BulkRenameRefusal(.lineCount(expected: names.count, found: lines.count)) }
    var new: [ItemName] = []
    for (i, line) in lines.enumerated() {
      new.append(try BulkRenameText.name(from: line, line: i + 1, writtenFor: names[i]))
    }
    func key(_ n: ItemName) -> [UInt8] { foldsCase ? Array(n.lossyString.lowercased().utf8) : n.bytes }

    // Two lines may not name the same thing, changed or not.
    var firstLine: [[UInt8]: Int] = [:]
    for (i, n) in new.enumerated() {
      if let j = firstLine[key(n)] {
        throw BulkRenameRefusal(.duplicate(n, lines: [j + 1, i + 1]))
      }
      firstLine[key(n)] = i
    }
    let changed = new.indices.filter { new[$0] != names[$0] }
    let outsideKeys = Set(outside.map(key))
    for i in changed where outsideKeys.contains(key(new[i])) {
      throw BulkRenameRefusal(.clash(new[i], line: i + 1))
    }

    // Who holds the name each changed item wants: no one (it is free) or another changed item
    // of the batch — an unchanged one would be a duplicate line, refused above. Each name is
    // held once and wanted once, so the renames form disjoint chains and cycles.
    var holder: [[UInt8]: Int] = [:]
    for (i, n) in names.enumerated() { holder[key(n)] = i }
    var wants: [Int: Int] = [:]
    var wantedBy: [Int: Int] = [:]
    for i in changed {
      if let j = holder[key(new[i])] {
        wants[i] = j
        wantedBy[j] = i
      }
    }

    var taken = Set(names.map(key)).union(new.map(key)).union(outsideKeys)
    var steps: [Step] = []
    var placed = Set<Int>()
    var group = 0
    // Chains first, each from the item whose name no one wants: its last link moves to a free
    // name, then the one before takes the name just freed, and so on back to the first.
    for start in changed where wantedBy[start] == nil {
      var chain = [start]
      while let next = wants[chain.last!] { chain.append(next) }
      for i in chain.reversed() {
        steps.append(Step(item: i, from: names[i], to: new[i], group: group))
        placed.insert(i)
      }
      group += 1
    }
    // What is left are cycles: the first item steps aside to a temporary name, the others each
    // take the name freed before them, and the first takes the last name freed.
    for start in changed where !placed.contains(start) {
      var cycle = [start]
      while let next = wants[cycle.last!], next != start { cycle.append(next) }
      let temporary = temporaryName(avoiding: &taken, key: key)
      steps.append(Step(item: start, from: names[start], to: temporary, group: group, toTemporary: true))
      for i in cycle.dropFirst().reversed() {
        steps.append(Step(item: i, from: names[i], to: new[i], group: group))
      }
      steps.append(Step(item: start, from: temporary, to: new[start], group: group))
      placed.formUnion(cycle)
      group += 1
    }
    return BulkRenamePlan(steps: steps, changed: changed)
  }

  /// A hidden name no item of the folder has nor will have: `.folio-rename-1.tmp`, `-2`, …
  /// Seen only if a cycle's undo fails, and then named in the message.
  static func temporaryName(avoiding taken: inout Set<[UInt8]>, key: (ItemName) -> [UInt8]) -> ItemName {
    var n = 1
    while true {
      let name = ItemName(".folio-rename-\(n).tmp")
      if taken.insert(key(name)).inserted { return name }
      n += 1
    }
  }
}

/// Why a bulk rename refuses the whole batch, with the message the status line shows.
public struct BulkRenameRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Reason: Sendable, Equatable {
    /// An item's name has a newline: no line of the file can hold it (said before the editor runs).
    case newlineInName(ItemName)
    case lineCount(expected: Int, found: Int)
    case emptyLine(line: Int)
    /// A control character in the text of a line (a CR from a CRLF file, a tab); `byte` is it.
    case controlCharacter(line: Int, byte: UInt8)
    /// A line is not UTF-8 text (bytes that are not are written as `\xNN`).
    case notText(line: Int)
    /// The name a line stands for is not a valid name: `why` says what is wrong ('/', '.', …).
    case invalidName(line: Int, why: String)
    case duplicate(ItemName, lines: [Int])
    /// A line takes the name of an item of the folder that is not in the batch.
    case clash(ItemName, line: Int)
  }

  public var reason: Reason
  public init(_ reason: Reason) { self.reason = reason }

  public var message: String {
    let nothing = "nothing was renamed"
    switch reason {
    case .newlineInName(let n):
      return "“\(n.displayString)” has a newline in its name, which a line of the file cannot hold: rename it alone with r first"
    case .lineCount(let expected, let found):
      return "The file has \(found) line\(found == 1 ? "" : "s") for \(expected) name\(expected == 1 ? "" : "s") (line n renames item n): \(nothing)"
    case .emptyLine(let line):
      return "Line \(line) is empty (a name cannot be; delete with d): \(nothing)"
    case .controlCharacter(let line, let byte):
      return "Line \(line) has a control character (\(TerminalText.escape(bytes: [byte]))): \(nothing)"
    case .notText(let line):
      return "Line \(line) is not UTF-8 text: \(nothing)"
    case .invalidName(let line, let why):
      return "Line \(line): \(why): \(nothing)"
    case .duplicate(let n, let lines):
      return "“\(n.displayString)” is on lines \(lines.map(String.init).joined(separator: " and ")): \(nothing)"
    case .clash(let n, let line):
      return "“\(n.displayString)” (line \(line)) is the name of another item in this folder: \(nothing)"
    }
  }

  public var description: String { message }

  /// As the browser reports errors: a collision for duplicates and clashes, else a bad argument.
  public var providerError: ProviderError {
    switch reason {
    case .duplicate, .clash: return ProviderError(.filenameCollision, message)
    default: return ProviderError(.invalidArgument, message)
    }
  }
}
