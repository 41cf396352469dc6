import Foundation
import ProviderAPI
import Testing

@testable import S3Provider

/// The trash's page tokens are offsets in decimal; any bytes must give a window inside the
/// listing (found by folio-fuzz: "-1" and Int.max trapped; Fuzz/corpus/tokens/regression-*).
@Suite struct S3ProviderTrashWindowTests {
  @Test(arguments: ["-1", "-112", "9223372036854775807", "-9223372036854775808", "12", "1000", "x", ""])
  func anyTokenGivesAWindowInsideTheListing(_ token: String) throws {
    let page = token.isEmpty ? nil : try Page(Data(token.utf8))
    for count in [0, 3, 20, 1000] {
      let window = S3Provider.trashWindow(page, count: count, pageSize: 10)
      #expect(window.lowerBound >= 0 && window.upperBound <= count)
      #expect(window.count <= 10)
    }
  }

  @Test func aTokenNamesItsOffset() throws {
    #expect(S3Provider.trashWindow(try Page(Data("12".utf8)), count: 30, pageSize: 10) == 12..<22)
    #expect(S3Provider.trashWindow(nil, count: 30, pageSize: 10) == 0..<10)
    #expect(S3Provider.trashWindow(try Page(Data("25".utf8)), count: 30, pageSize: 10) == 25..<30)
  }
}
