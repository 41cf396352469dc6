#if canImport(Glibc)
  import Glibc
#endif

/// The browser's large temporary buffers (a million-entry folder's names, sort keys, pages) get
/// mappings of their own and go back to the system when freed: with glibc's sliding mmap
/// threshold, whether they landed in a heap that keeps them resident depended on the order of
/// frees (RSS at 1M varied 47.7 / 50.7 MiB between identical launches).
///
/// The same call as the server's `ServerRuntime.pinMallocThreshold`, written again here (six
/// lines) because the server is another executable now and its module is not linked into
/// `folio`. `mallopt` is in <malloc.h>, which Swift's Glibc module does not include: it is looked
/// up by name (M_MMAP_THRESHOLD is -3 there). Another libc simply has no such symbol.
enum MallocThreshold {
  static func pin() {
    #if canImport(Glibc)
      typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
      guard let symbol = dlsym(nil, "mallopt") else { return }
      let mmapThreshold: Int32 = -3
      _ = unsafeBitCast(symbol, to: MallOpt.self)(mmapThreshold, 128 * 1024)
    #endif
  }
}
