import Testing

@testable import ExtensionConformance

struct JSONValueTests {
  @Test func compactTextRoundTrips() throws {
    let value: JSONValue = ["b": [1, "two\n", true, nil], "a": ["x": 1.5]]
    #expect(value.compact == #"{"a":{"x":1.5},"b":[1,"two\n",true,null]}"#)
    #expect(JSONValue.parse(Array(value.compact.utf8)) == value)
  }

  @Test func aLineThatIsNotJSONIsNil() {
    #expect(JSONValue.parse(Array("hello".utf8)) == nil)
    #expect(JSONValue.parse(Array("{\"id\":".utf8)) == nil)
  }

  @Test func aVersionNumberReadsAsItsDecimalText() {
    #expect(JSONValue.number(3).text == "3")
    #expect(JSONValue.string("3").text == "3")
  }
}
