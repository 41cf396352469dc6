import ProviderAPI

extension LocalProvider {
  /// Files on this computer: programs get their own paths, inotify signals changes, identifiers
  /// are inodes found through a path hint, the freedesktop Trash, tags in `user.xdg.tags`.
  public var traits: ProviderTraits { .localFilesystem }
}
