/// Tags are one whatever their case: "Green", "green" and "GREEN" name the same tag (as Finder's
/// tags do). The case a person first wrote is kept for display; comparisons go through `folded`.
public enum TagName {
  /// The form two tags are compared in: lowercased over all of Unicode ("Ärger" and "ärger" are one).
  public static func folded(_ tag: String) -> String { tag.lowercased() }

  /// Whether two tags are the same tag.
  public static func same(_ a: String, _ b: String) -> Bool { a == b || folded(a) == folded(b) }
}
