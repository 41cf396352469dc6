/// What `folio --version` says: the version, written here, and the commit, found at build time.
///
/// `buildCommit` is in a file the BuildInfoPlugin writes when HEAD or a source file changes
/// (scripts/build-info): typed by hand it would be wrong after the next commit. Its own small
/// target so that a new commit recompiles one file, not the command line.
public enum BuildInfo {
  /// The release version (semantic versioning). Bump it here, and only here.
  public static let version = "0.1.0"

  /// The short hash of the commit built, `+dirty` when tracked files differed from it, or
  /// `unknown commit` (a tarball without .git or a filled-in BUILD_COMMIT).
  public static let commit: String = buildCommit

  /// `folio 0.1.0 (cbed9f4)`: the line `folio --version` prints.
  public static var versionLine: String { "folio \(version) (\(commit))" }
}
