import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

#if canImport(Glibc)
  import Glibc
#endif

/// Sends a byte range of a content file with `sendfile(2)`: the kernel copies from the page cache
/// to the socket, and no byte passes through the server's memory.
///
/// Why: reading 256 KiB chunks into buffers and writing them cost the server ~0.65 CPU-s per GiB
/// served (two copies, NIO's bookkeeping per chunk). On a machine with few cores that time is taken
/// from the client on the other end (docs/BENCHMARKS.md, "Remote storage").
///
/// How: Hummingbird's body writer takes `ByteBuffer`s only, so the regions go in one level below
/// it. Written from the context of the HTTP/1 codec of swift-http-types, they reach NIO's
/// `HTTPResponseEncoder` as `.body(.fileRegion)`, which NIO sends with `sendfile`. Order holds:
/// Hummingbird has written the head before it calls the body closure (its writer hands each write
/// to the event loop in order, and the regions are submitted to the same loop after), and it writes
/// the end once the closure returns, after the last region was sent.
///
/// Plain HTTP only: NIOSSL cannot encrypt a file region, so a TLS server keeps the buffered path,
/// and so does a response a test fault rewrites (the fault needs the bytes).
///
/// A region whose pages are not in the page cache makes `sendfile` read the disk on the event loop,
/// which would stall every connection sharing it. So the file goes in chunks, and each chunk is
/// brought into the page cache by this task (``OpenFile/makeResident(from:count:)``, which waits
/// for the disk off the loop) before it is handed to the loop: the next one while the current one
/// is being sent, so the disk and the network work at the same time.
struct SendfileBody {
  /// Bytes per region: 256 hops to the event loop per GiB, 4 MiB made resident ahead.
  static let chunk: Int64 = 4 << 20

  let file: OpenFile
  let channel: any Channel

  /// Sends `count` bytes from `start`; throws when the connection fails (the client went away).
  func send(from start: Int64, count: Int64) async throws {
    let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: try file.duplicateDescriptor())
    defer { try? handle.close() }
    let end = start + count
    file.makeResident(from: start, count: min(count, Self.chunk))
    var offset = start
    while offset < end {
      let n = min(Self.chunk, end - offset)
      let next = offset + n
      let (from, to) = (Int(offset), Int(next))
      let channel = self.channel
      let sent = channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
        do {
          let codec = try channel.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
          let region = FileRegion(fileHandle: handle, readerIndex: from, endIndex: to)
          return codec.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))))
        } catch {
          return channel.eventLoop.makeFailedFuture(error)
        }
      }
      if next < end { file.makeResident(from: next, count: min(Self.chunk, end - next)) }
      try await sent.get()
      offset = next
    }
  }
}
