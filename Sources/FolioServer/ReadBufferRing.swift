import NIOCore

/// The few buffers one download reads its file into, used in turn.
///
/// A fresh 256 KiB buffer per chunk is a fresh mapping (the malloc threshold is pinned at 128 KiB,
/// see `ServerRuntime.pinMallocThreshold`): zeroed by the kernel page by page and unmapped again,
/// which was ~45 % of the server's CPU while serving a large file (perf: `clear_page_erms` and
/// page faults). By the time a buffer's turn comes again the channel has written it and let it go,
/// so clearing it reuses its storage; when the channel still holds it, `ByteBuffer`'s copy-on-write
/// gives a new one, as before. At most `count` × `chunk` bytes (1 MiB) per download, whatever
/// its size, so many slow clients do not hold much more than before (a ring of 8 halved the
/// remaining page faults again, for twice the memory: not kept).
struct ReadBufferRing {
  static let chunk = 256 * 1024
  static let count = 4

  private var buffers: [ByteBuffer] = []
  private var next = 0

  /// The next buffer, no longer referenced by the ring (so it can be unique when written into).
  mutating func take() -> ByteBuffer {
    if buffers.count < Self.count {
      return ByteBufferAllocator().buffer(capacity: Self.chunk)
    }
    var taken = ByteBuffer()
    swap(&taken, &buffers[next])
    return taken
  }

  /// Keeps `buffer` for its next turn (after the channel has written it).
  mutating func keep(_ buffer: ByteBuffer) {
    if buffers.count < Self.count {
      buffers.append(buffer)
    } else {
      buffers[next] = buffer
      next = (next + 1) % Self.count
    }
  }
}
