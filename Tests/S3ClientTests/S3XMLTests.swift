import Foundation
import Testing

@testable import S3Client

/// S3XMLElement on hostile documents (found by folio-fuzz, Fuzz/corpus/s3-xml/regression-*).
@Suite struct S3XMLTests {
  /// Foundation's XMLParser traps on a name that is not UTF-8 (swift-corelibs-foundation 5534):
  /// the answer is refused before it gets there.
  @Test(arguments: [
    Array("<ListBucketResult><Ke".utf8) + [0xFF] + Array("y>a</Key></ListBucketResult>".utf8),
    Array("<Error a".utf8) + [0xC0, 0xAF] + Array("=\"1\"/>".utf8),
  ])
  func aNameThatIsNotUTF8IsAMalformedAnswerNotATrap(_ bytes: [UInt8]) {
    #expect(throws: S3Error.self) { try S3XMLElement.parse(bytes, what: "the answer") }
    do {
      _ = try S3XMLElement.parse(bytes, what: "the answer")
    } catch let error as S3Error {
      #expect(error.code == .malformed)
      #expect(error.message.contains("not UTF-8"))
    } catch {
      Issue.record("not an S3Error: \(error)")
    }
  }

  @Test func aUTF8DocumentStillParses() throws {
    let root = try S3XMLElement.parse(Array("<Error><Code>NoSuchKey</Code><Message>é</Message></Error>".utf8), what: "x")
    #expect(root.string("Message") == "é")
  }

  /// XMLParser calls strlen on the NULL data of a processing instruction without any: refused
  /// first (found by libFuzzer; Fuzz/corpus/s3-xml/regression-processing-instruction).
  @Test(arguments: ["<?x?><Error/>", "<?xresversi?><Error/>", "<?xml-stylesheet?><Error/>", "<?xml version=\"1.0\"?><Error><?pi?></Error>", "\u{FEFF}<?xml version=\"1.0\"?><a><?b ?></a>"])
  func aProcessingInstructionIsAMalformedAnswerNotACrash(_ text: String) {
    #expect(throws: S3Error.self) { try S3XMLElement.parse(Array(text.utf8), what: "the answer") }
  }

  @Test func theDeclarationIsNoProcessingInstruction() throws {
    let root = try S3XMLElement.parse(Array("\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error/>".utf8), what: "x")
    #expect(root.name == "Error")
  }
}
