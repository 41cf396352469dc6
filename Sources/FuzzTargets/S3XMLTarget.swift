import Foundation
import NIOHTTP1
import ProviderAPI
import S3Client

/// S3's XML answers as S3Client reads them: `S3XMLElement.parse` (Foundation's XMLParser on
/// libxml2), then a listing page (`S3Client.listPage(from:…)`, v2 and v1) or an error body
/// (`S3Client.error(fromXML:…)`).
///
/// Properties: every key of an accepted page is under the prefix asked for (never a name from
/// another folder, test-plan F08) and is a usable relative key; a truncated page moves on; every
/// error made of the answer is a value whose message is safe to show.
enum S3XMLTarget {
  static let target = FuzzTarget(
    name: "s3-xml", summary: "S3 XML answers: keys stay under the prefix; errors are safe values",
    dictionary: FuzzDictionary.xml
  ) { bytes in
    let root: S3XMLElement
    do { root = try S3XMLElement.parse(bytes, what: "the answer") } catch {
      return TerminalSafety.check("\(error)", from: "an XML parse error")
    }
    if root.name == "Error" {
      let error = S3Client.error(fromXML: root, status: 403, headers: HTTPHeaders(), context: "listing “b”")
      return TerminalSafety.check(error.message, from: "S3Client.error(fromXML:)")
    }
    for v2 in [true, false] {
      do {
        let (page, _) = try S3Client.listPage(
          from: root, v2: v2, endpoint: endpoint, fullPrefix: Array("root/docs/".utf8), marker: nil,
          after: Array("a".utf8), context: "listing “docs/”")
        for key in page.objects.map(\.key) + page.commonPrefixes {
          guard key.starts(with: Array("docs/".utf8)) else {
            return FuzzViolation("a listing of docs/ took the key \(TerminalText.escape(bytes: key))")
          }
        }
        if page.isTruncated, page.nextContinuationToken?.isEmpty ?? true {
          return FuzzViolation("a truncated page was accepted without a way to go on")
        }
      } catch let error as S3Error {
        if let v = TerminalSafety.check(error.message, from: "a listing's refusal") { return v }
      } catch {
        return FuzzViolation("a listing failed with \(type(of: error)), not S3Error")
      }
    }
    return nil
  }

  /// A location at `root/` of bucket `b` on a custom endpoint.
  static let endpoint: S3Endpoint = {
    guard let e = try? S3Endpoint(bucket: "b", prefix: "root", endpoint: "http://127.0.0.1:9000") else {
      preconditionFailure("the fuzz endpoint is a valid one")
    }
    return e
  }()
}
