/// Every fuzz target, by name.
public enum FuzzCatalogue {
  /// The targets `--target all` runs, in a fixed order (seeds mean the same thing run to run).
  public static let all: [FuzzTarget] = [
    TerminalTextTarget.target, ActivationRuleTarget.target, ConfigTarget.target, ThemeTarget.target,
    FolioWireClientTarget.target, FolioWireServerTarget.target, SFTPReplyTarget.target, S3XMLTarget.target,
    WebDAVMultistatusTarget.target, WebDAVPropPatchTarget.target, ExtensionLineTarget.target, TokenTarget.target,
  ]

  /// The harness's own check: a target that fails on purpose (``PlantedTarget``). Named, never in
  /// ``all``.
  public static let planted = PlantedTarget.target

  /// The target called `name` (``all`` and the planted one).
  public static func target(named name: String) -> FuzzTarget? {
    (all + [planted]).first { $0.name == name }
  }
}
