import FolioConfig
import Testing

@Suite struct ByteSizeTests {
  @Test(arguments: [
    ("0", Int64(0)), ("512", 512), ("512 B", 512), ("1 KB", 1_000), ("1KiB", 1_024), ("10 GiB", 10 << 30),
    ("10 gib", 10 << 30), (" 3 MB ", 3_000_000), ("1.5 GiB", 3 << 29), ("0.5 KiB", 512), ("2 TB", 2_000_000_000_000),
    ("1 TiB", 1 << 40), ("8388607 TiB", 8_388_607 << 40),
  ])
  func parses(text: String, bytes: Int64) {
    #expect(ByteSize.parse(text) == bytes)
  }

  @Test(arguments: [
    "", "ten gigs", "10 G", "10 GB GB", "-1 GiB", "1e9", ".5 GiB", "1. GiB", "1.2.3 MB", "GiB", "8388608 TiB",
    "99999999999999999999",
  ])
  func refuses(text: String) {
    #expect(ByteSize.parse(text) == nil)
  }

  @Test func formats() {
    #expect(ByteSize.format(10 << 30) == "10 GiB")
    #expect(ByteSize.format(3 << 19) == "1.5 MiB")
    #expect(ByteSize.format(1023) == "1023 B")
    #expect(ByteSize.parse(ByteSize.format(FolioConfiguration.defaultCacheBudgetBytes)) == 10 << 30)
  }
}
