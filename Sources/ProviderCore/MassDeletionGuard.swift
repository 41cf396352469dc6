/// The mass-deletion guard (test-plan I9, rclone bisync's `--max-delete`, D1, D2): a pass that
/// would delete more than `share` of the items it knows, and at least `minimum` of them, is held
/// back instead of applied — a server that lost its data, a maintenance page or a bug must not
/// empty the index.
///
/// One value for every place that deletes from what a listing lacks: `WorkingSetSync`'s
/// reconciliation uses the same numbers (its `massDeleteShare` / `massDeleteMinimum` defaults), and
/// the ``ListingPoller`` is given them from there.
public struct MassDeletionGuard: Sendable, Equatable {
  /// The largest share of the known items one pass may delete.
  public var share: Double
  /// Below this many deletions the guard never holds (removing 3 of 4 files is ordinary).
  public var minimum: Int

  public init(share: Double = 0.5, minimum: Int = 10) {
    self.share = share
    self.minimum = minimum
  }

  /// WorkingSetSync's reconciliation threshold: more than half, once at least ten.
  public static let standard = MassDeletionGuard()

  /// True when deleting `deletions` of `known` items at once must wait for a person.
  public func holds(deletions: Int, of known: Int) -> Bool {
    deletions >= minimum && Double(deletions) > share * Double(known)
  }
}
