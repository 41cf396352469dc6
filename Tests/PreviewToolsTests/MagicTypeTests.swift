import Foundation
import Testing

@testable import PreviewTools

@Suite struct MagicTypeTests {
  static let magic = Result { try MagicType() }

  @Test func aPNGHeaderGivesItsDimensions() throws {
    let answer = try #require(try Self.magic.get().identify(Samples.pngPrefix))
    #expect(answer.description.hasPrefix("PNG image data, 4000 x 3000, 8-bit/color RGB"))
    #expect(answer.mimeType == "image/png")
  }

  @Test func anELFExecutable() throws {
    let handle = try #require(FileHandle(forReadingAtPath: "/bin/sh"))
    defer { try? handle.close() }
    let prefix = Array(try handle.read(upToCount: MagicType.maxPrefix) ?? Data())
    let answer = try #require(try Self.magic.get().identify(prefix))
    #expect(answer.description.hasPrefix("ELF 64-bit LSB"))
    #expect(answer.mimeType.hasPrefix("application/x-"))
    #expect(answer.mimeType.contains("executable") || answer.mimeType.contains("sharedlib"))
  }

  @Test func text() throws {
    let answer = try #require(try Self.magic.get().identify(Array("hello, world\nsecond line\n".utf8)))
    #expect(answer.description == "ASCII text")
    #expect(answer.mimeType == "text/plain")
    let script = try #require(try Self.magic.get().identify(Array("#!/bin/sh\necho hi\n".utf8)))
    #expect(script.description.contains("shell script"))
  }

  @Test func onlyTheFirst64KiBAreRead() throws {
    // A PNG header followed by a megabyte: the answer is the same as for the header alone.
    let big = Samples.pngPrefix + [UInt8](repeating: 0x41, count: 1 << 20)
    #expect(try Self.magic.get().identify(big) == (try Self.magic.get().identify(Samples.pngPrefix)))
  }

  @Test func emptyContent() throws {
    let answer = try #require(try Self.magic.get().identify([UInt8]()))
    #expect(answer.description == "empty")
  }

  @Test func aDescriptionIsCleanedOfControlCharacters() {
    let cleaned = MagicType.clean("title \u{1B}]52;c;aGk=\u{07} and\n\u{9B}2J more\u{202E}txt.exe   ")
    #expect(
      cleaned.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) && $0 != "\u{202E}" })
    #expect(cleaned == "title ]52;c;aGk= and 2J more txt.exe")
    let long = MagicType.clean(String(repeating: "x", count: 500))
    #expect(long.count == MagicType.maxDescriptionLength)
    #expect(long.hasSuffix("…"))
  }

  /// The handle is shared: many questions at once get the same answers as one at a time.
  @Test func questionsFromManyTasksAtOnce() async throws {
    let magic = try Self.magic.get()
    let expected = magic.identify(Samples.pngPrefix)
    let answers = await withTaskGroup(of: MagicType.Answer?.self) { group in
      for _ in 0..<32 { group.addTask { magic.identify(Samples.pngPrefix) } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(answers.count == 32)
    #expect(answers.allSatisfy { $0 == expected })
  }
}
