import PreviewKit
import Testing

/// Highlighter snapshots: each sample file as the pane would colour it, a token's text written
/// `«token:text»`. Read them as a person would read the pane.
@Suite struct HighlighterTests {
  /// The sample as `name` previews, rendered with its tokens.
  func highlighted(_ source: String, name: String) -> String {
    let bytes = Array(source.utf8)
    guard case .lines(let lines) = TextPreview.make(name: name, bytes: bytes, totalSize: bytes.count).body else {
      return "(not lines)"
    }
    return Render.tokens(lines)
  }

  @Test func swift() {
    let source = #"""
      import Foundation

      /// A doc comment
      @MainActor
      struct Point: Hashable {
        var x = 0.5e-3, y: Int = 0x1F
        func moved(by d: Int) -> Point { /* nested /* comment */ still */ Point(x: x, y: y + d) }
      }
      let s = """
        multi "line"
        """
      print("hi \(s)", nil, true)
      """#
    #expect(
      highlighted(source, name: "a.swift") == #"""
        «keyword:import» «type:Foundation»

        «comment:/// A doc comment»
        «keyword:@MainActor»
        «keyword:struct» «type:Point»«operator::» «type:Hashable» «punctuation:{»
          «keyword:var» x «operator:=» «number:0.5e-3»«punctuation:,» y«operator::» «type:Int» «operator:=» «number:0x1F»
          «keyword:func» «function:moved»«punctuation:(»by d«operator::» «type:Int»«punctuation:)» «operator:->» «type:Point» «punctuation:{» «comment:/* nested /* comment */ still */» «function:Point»«punctuation:(»x«operator::» x«punctuation:,» y«operator::» y «operator:+» d«punctuation:)» «punctuation:}»
        «punctuation:}»
        «keyword:let» s «operator:=» «string:"""»
        «string:  multi "line"»
        «string:  """»
        «function:print»«punctuation:(»«string:"hi \(s)"»«punctuation:,» «constant:nil»«punctuation:,» «constant:true»«punctuation:)»
        """#)
  }

  @Test func pythonFoundByItsShebang() {
    let source = """
      #!/usr/bin/env python3
      import os

      @decorator
      def main(argv: list[str]) -> int:
          \"\"\"Doc
          string.\"\"\"
          x = 0x1F + 3.5  # comment
          return None if x else True

      class Foo(Base):
          pass
      """
    #expect(
      highlighted(source, name: "tool") == """
        «comment:#!/usr/bin/env python3»
        «keyword:import» os

        «function:@decorator»
        «keyword:def» «function:main»«punctuation:(»argv«operator::» «type:list»«punctuation:[»«type:str»«punctuation:])» «operator:->» «type:int»«operator::»
            «string:\"\"\"Doc»
        «string:    string.\"\"\"»
            x «operator:=» «number:0x1F» «operator:+» «number:3.5»  «comment:# comment»
            «keyword:return» «constant:None» «keyword:if» x «keyword:else» «constant:True»

        «keyword:class» «type:Foo»«punctuation:(»«type:Base»«punctuation:)»«operator::»
            «keyword:pass»
        """)
  }

  @Test func shellWithHereDocument() {
    let source = """
      #!/bin/sh
      set -eu
      for f in "$@"; do
        echo "${f}: $1" | grep -c x # tail
      done
      cat <<-EOF
      \tbody $HOME # not a comment
      \tEOF
      function go() { return 0; }
      echo $HOME a#b
      """
    #expect(
      highlighted(source, name: "run") == """
        «comment:#!/bin/sh»
        «keyword:set» «operator:-»eu
        «keyword:for» f «keyword:in» «string:"$@"»«punctuation:;» «keyword:do»
          echo «string:"${f}: $1"» «operator:|» grep «operator:-»c x «comment:# tail»
        «keyword:done»
        cat «string:<<-EOF»
        «string:        body $HOME # not a comment»
        «string:        EOF»
        «keyword:function» «function:go»«punctuation:()» «punctuation:{» «keyword:return» «number:0»«punctuation:;» «punctuation:}»
        echo «constant:$HOME» a#b
        """)
  }

  /// JSON that does not parse (a comment, a trailing comma) is shown as written, highlighted.
  @Test func jsonThatDoesNotParseIsHighlightedAsWritten() {
    let source = """
      {
        // settings
        "name": "folio", "n": -1.5e3,
        "ok": [true, null],
      }
      """
    #expect(
      highlighted(source, name: "tsconfig.json") == """
        «punctuation:{»
          «comment:// settings»
          «key:"name"»«operator::» «string:"folio"»«punctuation:,» «key:"n"»«operator::» «operator:-»«number:1.5e3»«punctuation:,»
          «key:"ok"»«operator::» «punctuation:[»«constant:true»«punctuation:,» «constant:null»«punctuation:],»
        «punctuation:}»
        """)
  }

  @Test func markdown() {
    let source = """
      # Title

      Some *text* with `code` and **bold** and [a link](http://x.y).

      - item one
      1. item two
      > quote

      ```swift
      # not a heading
      ```
      ---
      """
    #expect(
      highlighted(source, name: "README.md") == """
        «heading:# Title»

        Some *text* with «string:`code`» and «keyword:**bold**» and «function:[a link]»«string:(http://x.y)».

        «punctuation:-» item one
        «punctuation:1.» item two
        «comment:> quote»

        «punctuation:```»«keyword:swift»
        «string:# not a heading»
        «punctuation:```»
        «punctuation:---»
        """)
  }

  /// Inside a hunk, a removed line that starts with `---` is a removed line, not a file header:
  /// the hunk's counts say where it ends.
  @Test func diff() {
    let source = """
      diff --git a/x b/x
      index 123..456 100644
      --- a/x
      +++ b/x
      @@ -1,3 +1,3 @@ func main
       context
      --- removed line with dashes
      +added
      \\ No newline at end of file
      """
    #expect(
      highlighted(source, name: "change.patch") == """
        «keyword:diff --git a/x b/x»
        «keyword:index 123..456 100644»
        «heading:--- a/x»
        «heading:+++ b/x»
        «heading:@@ -1,3 +1,3 @@»«function: func main»
         context
        «removed:--- removed line with dashes»
        «added:+added»
        «comment:\\ No newline at end of file»
        """)
  }

  /// One line each of the other families, enough to catch a table that lost its words.
  @Test(arguments: [
    (
      "g.c", "#include <stdio.h>\nstatic int n = 'a'; // c",
      "«keyword:#include» «string:<stdio.h>»\n«keyword:static» «type:int» n «operator:=» «string:'a'»«punctuation:;» «comment:// c»"
    ),
    (
      "h.rs", "fn f<'a>(x: &'a str) { println!(\"{}\", 'x'); }",
      "«keyword:fn» «function:f»«operator:<»«type:'a»«operator:>»«punctuation:(»x«operator::» «operator:&»«type:'a» «type:str»«punctuation:)» «punctuation:{» «function:println!»«punctuation:(»«string:\"{}\"»«punctuation:,» «string:'x'»«punctuation:);» «punctuation:}»"
    ),
    (
      "p.go", "func main() { var x int = 3 }",
      "«keyword:func» «function:main»«punctuation:()» «punctuation:{» «keyword:var» x «type:int» «operator:=» «number:3» «punctuation:}»"
    ),
    (
      "n.ts", "export class A extends B { x = `t` }",
      "«keyword:export» «keyword:class» «type:A» «keyword:extends» «type:B» «punctuation:{» x «operator:=» «string:`t`» «punctuation:}»"
    ),
    (
      "K.kt", "@Test fun f(): Int = null",
      "«keyword:@Test» «keyword:fun» «function:f»«punctuation:()»«operator::» «type:Int» «operator:=» «constant:null»"
    ),
    (
      "o.rb", "def empty?(x) = :sym && @ivar",
      "«keyword:def» «function:empty?»«punctuation:(»x«punctuation:)» «operator:=» «constant::sym» «operator:&&» «constant:@ivar»"
    ),
    (
      "i.yml", "name: folio # c\n- &a {x: 1}\nwhen: ~",
      "«key:name»«punctuation::» «string:folio» «comment:# c»\n«punctuation:-» «type:&a» «punctuation:{»x«operator::» «number:1»«punctuation:}»\n«key:when»«punctuation::» «constant:~»"
    ),
    (
      "j.toml", "[package]\nname = \"folio\" # c", "«heading:[package]»\n«key:name» «operator:=» «string:\"folio\"» «comment:# c»"
    ),
    (
      "k.html", "<a href='x'>a &amp; b</a><!-- c -->",
      "«punctuation:<»«keyword:a» «key:href»«operator:=»«string:'x'»«punctuation:>»a «constant:&amp;» b«punctuation:</»«keyword:a»«punctuation:>»«comment:<!-- c -->»"
    ),
    (
      "l.css", "a:hover { color: #fff; }",
      "«type:a»«operator::»«type:hover» «punctuation:{» «key:color»«operator::» «constant:#fff»«punctuation:;» «punctuation:}»"
    ),
    (
      "m.sql", "select count(*) FROM t -- c",
      "«keyword:select» «function:count»«punctuation:(»«operator:*»«punctuation:)» «keyword:FROM» t «comment:-- c»"
    ),
    (
      "Makefile", "CC ?= cc\nall: $(SRC)\n\t$(CC) -o $@",
      "«key:CC» «operator:?=» cc\n«function:all»«operator::» «constant:$(SRC)»\n        «constant:$(CC)» -o «constant:$@»"
    ),
    (
      "Dockerfile", "FROM debian:12 AS build\nrun echo \"hi\"",
      "«keyword:FROM» debian«operator::»«number:12» «keyword:AS» build\n«keyword:run» echo «string:\"hi\"»"
    ),
  ])
  func otherFamilies(_ name: String, _ source: String, _ expected: String) {
    #expect(highlighted(source, name: name) == expected)
  }

  /// A block comment opened on one line colours the next ones until it closes.
  @Test func stateCarriesAcrossLines() {
    var h = Highlighter(language: .c)
    #expect(h.spans(of: Array("int a; /* open".utf8)).last == .init(7, 14, .comment))
    #expect(h.spans(of: Array("still in it".utf8)) == [.init(0, 11, .comment)])
    #expect(h.spans(of: Array("done */ int".utf8)) == [.init(0, 7, .comment), .init(8, 11, .type)])
  }

  /// yazi's rule: a line past 5000 bytes is shown plain (and costs nothing).
  @Test func veryLongLinesAreNotHighlighted() {
    var h = Highlighter(language: .swift)
    let long = Array(String(repeating: "let x = 1; ", count: 500).utf8)
    #expect(long.count > Highlighter.maximumLineLength)
    #expect(h.spans(of: long).isEmpty)
    #expect(!h.spans(of: Array("let x = 1".utf8)).isEmpty)
  }

  /// Non-ASCII text is never split inside a character, and a token never takes half of one.
  @Test func nonASCIIStaysWhole() {
    #expect(
      highlighted("let café = \"ü\" // ñ", name: "a.swift") == "«keyword:let» café «operator:=» «string:\"ü\"» «comment:// ñ»")
  }
}
