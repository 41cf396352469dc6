import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio serve --stop-at-end-of-input`: the server stops, as on SIGTERM, when its standard input
/// reaches end-of-file. `folio demo` gives its server a pipe only the demo writes to: when the
/// demo ends by any means, even `kill -9`, the kernel closes it and the server goes too (the
/// same lifeline as `DemoJanitor`'s).
enum EndOfInputStop {
  static func start() {
    let thread = Thread {
      var buffer = [UInt8](repeating: 0, count: 64)
      while true {
        let n = read(0, &buffer, buffer.count)
        if n == 0 || (n < 0 && errno != EINTR) { break }
      }
      kill(getpid(), SIGTERM)
    }
    thread.start()
  }
}
