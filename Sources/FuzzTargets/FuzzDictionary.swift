/// Tokens per kind of input, spliced in by the mutator: a random byte rarely makes `</D:href>`.
enum FuzzDictionary {
  /// Terminal escape sequences and the hostile names of test-plan §4.1 (N03, N04, N09, N10).
  static let escapes = [
    "\u{1B}[31m", "\u{1B}[2J", "\u{1B}]0;pwn\u{07}", "\u{1B}]52;c;cHduZWQ=\u{07}", "\u{1B}]8;;http://x\u{1B}\\",
    "\u{1B}P$q", "\u{1B}\\", "\u{1B}[21t", "\u{1B}]50;?\u{07}", "\u{1B}G", "\u{1B}]", "\u{9B}", "\u{85}",
    "\u{202E}", "\u{2066}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}", "\u{200B}", "\u{200D}", "\u{200C}",
    "\u{FEFF}", "\u{2028}", "\\", "\\x", "\\u{", "\\e", "}", "\u{7F}", "\r\n", "\t", "🧑‍🌾", "👸🏼", "é", "e\u{301}",
  ]
  static let xml = [
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>", "<!DOCTYPE x [<!ENTITY e \"eeeeeeee\">]>", "&e;", "&amp;", "&#x1B;",
    "&#27;", "<![CDATA[", "]]>", "xmlns=\"DAV:\"", "xmlns:d=\"DAV:\"", "xmlns:oc=\"http://owncloud.org/ns\"",
    "xmlns:nc=\"http://nextcloud.org/ns\"", "<d:multistatus>", "</d:multistatus>", "<d:response>", "</d:response>",
    "<d:href>", "</d:href>", "<d:propstat>", "</d:propstat>", "<d:prop>", "</d:prop>", "<d:status>HTTP/1.1 200 OK</d:status>",
    "<d:status>HTTP/1.1 404 Not Found</d:status>", "<d:resourcetype><d:collection/></d:resourcetype>",
    "<d:getcontentlength>", "</d:getcontentlength>", "<d:getlastmodified>", "<d:getetag>", "<oc:fileid>",
    "<nc:system-tags><nc:system-tag>", "/dav/", "/dav/../", "%2e%2e", "%2F", "%", "http://h/dav/", "<ListBucketResult>",
    "</ListBucketResult>", "<Contents>", "</Contents>", "<Key>", "</Key>", "<Size>", "<ETag>", "<IsTruncated>true",
    "<NextContinuationToken>", "<CommonPrefixes><Prefix>", "<Error><Code>", "</Code><Message>", "</Message></Error>",
    "<Version>", "<DeleteMarker>", "<UploadId>", "<Part><PartNumber>", "9223372036854775807", "-1",
  ]
  static let json = [
    "{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "1e400", "-0", "9007199254740993", "\"id\"", "\"result\"",
    "\"error\"", "\"code\"", "\"message\"", "\"method\"", "\"params\"", "\"items\"", "\"name\"", "\"nameBytes\"",
    "\"parent\"", "\"kind\"", "\"folder\"", "\"version\"", "\"size\"", "\"modified\"", "\"nextPage\"", "\"anchor\"",
    "\"capabilities\"", "\"byteNames\"", "\"userInfo\"", "\"tags\"", "\"favoriteRank\"", "\"mode\"", "\"\\u001b\"",
    "\"\\ud800\"", "\"..\"", "\"a/b\"", "\"#root\"", "\"root\"", "\"trash\"",
  ]
  static let toml = [
    "[", "]", "[[", "]]", "=", "\"", "'''", "\"\"\"", "\n", "#", "[[opener]]", "[[action]]", "[[domain]]", "[cache]",
    "[preview]", "[keys]", "[theme]", "name", "kind", "root", "url", "match", "command", "when", "rule", "budget",
    "\"10 GB\"", "true", "1979-05-27T07:32:00Z", "inf", "nan", "0x7FFFFFFFFFFFFFFF", "{", "}", "\u{1B}", "\\u001b",
    "fg", "bg", "\"#ff0000\"", "\"red\"", "bold", "selection", "status",
  ]
}
