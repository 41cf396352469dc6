import FolioProtocol
import Foundation
import Testing

@testable import FolioServer

/// The server's pure parsers, at the edges the process tests do not reach cheaply.
@Suite struct ParsingTests {
  @Test(arguments: [
    ("bytes=0-0", 10, ByteRange.part(0, 0)), ("bytes=3-", 10, .part(3, 9)), ("bytes=-3", 10, .part(7, 9)),
    ("bytes=-30", 10, .part(0, 9)), ("bytes=5-500", 10, .part(5, 9)), ("bytes=10-", 10, .unsatisfiable),
    ("bytes=-0", 10, .unsatisfiable), ("bytes=0-0", 0, .unsatisfiable), ("bytes=5-3", 10, .whole),
    ("bytes=0-1,4-5", 10, .whole), ("items=0-1", 10, .whole), ("bytes=x-1", 10, .whole),
  ])
  func ranges(header: String, size: Int64, expected: ByteRange) {
    #expect(ByteRange.parse(header, size: size) == expected)
  }

  @Test func pageTokensStayUnder500BytesForTheLongestNames() throws {
    let worst = String(repeating: "\u{1}", count: 255)
    let token = PageToken(
      epoch: "0123456789abcdef", parent: "i" + String(repeating: "9", count: 19), sort: .name, descending: true,
      foldersFirst: true, lastIsFolder: true, lastName: worst, lastNumber: nil,
      lastID: "i" + String(repeating: "9", count: 19))
    let encoded = token.encoded()
    #expect(encoded.utf8.count <= WireRoutes.maxTokenBytes)
    #expect(try PageToken(decoding: encoded, epoch: "0123456789abcdef") == token)
    #expect(throws: ServerError.self) { try PageToken(decoding: encoded, epoch: "fedcba9876543210") }
    let dated = PageToken(
      epoch: "e", parent: "root", sort: .date, descending: false, foldersFirst: false, lastIsFolder: false,
      lastName: nil, lastNumber: Int64(bitPattern: (1_763_800_000.123456).bitPattern), lastID: "i1")
    #expect(try PageToken(decoding: dated.encoded(), epoch: "e") == dated)
  }

  @Test func queryValuesAreDecodedToExactBytes() throws {
    let q = QueryParameters("name=a%2Fb&bad=%FF&plus=a+b&pct=%25&trail=%4&empty=&flag")
    #expect(q.bytes("name") == Array("a/b".utf8))
    #expect(q.bytes("bad") == [0xFF])
    #expect(throws: ServerError.self) { try q.string("bad") }
    #expect(try q.string("plus") == "a+b")
    #expect(try q.string("pct") == "%")
    #expect(try q.string("trail") == "%4")
    #expect(try q.string("empty") == "")
    #expect(try q.string("flag") == "")
    #expect(try q.string("missing") == nil)
  }

  @Test func usersFileLines() throws {
    let entries = try UsersFile.parse("# comment\n\nana:secret\nben:pa:ss:42\ncleo:pa:ss\r\n")
    #expect(
      entries == [
        .init(name: "ana", password: "secret", quota: nil), .init(name: "ben", password: "pa:ss", quota: 42),
        .init(name: "cleo", password: "pa:ss", quota: nil),
      ])
    #expect(throws: ServerError.self) { try UsersFile.parse("no-colon\n") }
    #expect(throws: ServerError.self) { try UsersFile.parse("../x:pw\n") }
    #expect(throws: ServerError.self) { try UsersFile.parse("ana:\n") }
  }

  @Test func syncAnchors() throws {
    #expect(try SyncAnchor(decoding: "abc.42", epoch: "abc").rank == 42)
    for bad in ["abc", "abc.", "x.42", "abc.42.1", "abc.-1", ".42"] {
      #expect(throws: ServerError.self, "\(bad)") { try SyncAnchor(decoding: bad, epoch: "abc") }
    }
  }
}
