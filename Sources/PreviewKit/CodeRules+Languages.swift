/// The tables: each language family's words, comments and quotes. Word lists are plain strings so
/// that a missing keyword is a one-word change.
extension CodeRules {
  static func forLanguage(_ language: Language) -> CodeRules {
    switch language {
    case .swift: swift
    case .c: c
    case .python: python
    case .shell: shell
    case .javascript: javascript
    case .go: go
    case .rust: rust
    case .java: java
    case .ruby: ruby
    case .json: json
    case .yaml: yaml
    case .toml: toml
    case .css: css
    case .sql: sql
    case .makefile: makefile
    case .dockerfile: dockerfile
    // Line-oriented formats lex their inline parts with a small plain table.
    case .markdown, .diff, .html: plain
    }
  }

  static let plain = CodeRules(words: KeywordTable([])).finished()

  static let swift: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "func init deinit subscript"),
        (.keyword, .type, "class struct enum protocol extension actor typealias associatedtype macro"),
        (
          .keyword, .none,
          """
          import let var fileprivate inout internal open operator private precedencegroup public rethrows static \
          break case catch continue default defer do else fallthrough for guard if in repeat return throw switch \
          where while as is try await async throws some any nonisolated isolated consuming borrowing sending \
          package convenience dynamic final indirect lazy mutating nonmutating optional override required unowned \
          weak willSet didSet get set super self Self
          """
        ),
        (.constant, .none, "true false nil"),
      ]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.nestedComments = true
    r.quotes = [Quote("\"\"\"", multiline: true), Quote("\"")]
    r.sigils = [UInt8(ascii: "@"): .keyword, UInt8(ascii: "#"): .keyword]
    r.capitalizedIsType = true
    r.allCapsIsConstant = false
    return r.finished()
  }()

  static let c: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .type, "struct union enum class namespace"),
        (
          .keyword, .none,
          """
          auto break case const continue default do else extern for goto if inline register restrict return \
          sizeof static switch typedef volatile while alignas alignof asm catch constexpr consteval constinit \
          decltype delete explicit export friend mutable new noexcept operator private protected public \
          reinterpret_cast static_assert static_cast dynamic_cast const_cast template this thread_local throw try \
          typeid typename using virtual override final co_await co_return co_yield concept requires _Alignas \
          _Atomic _Generic _Noreturn _Static_assert _Thread_local self super
          """
        ),
        (
          .type, .none,
          """
          void char short int long float double signed unsigned bool _Bool size_t ssize_t ptrdiff_t intptr_t \
          uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t wchar_t char8_t char16_t \
          char32_t off_t pid_t id instancetype SEL IMP
          """
        ),
        (.constant, .none, "NULL nullptr true false YES NO nil Nil"),
      ]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("\""), Quote("'")]
    r.sigils = [UInt8(ascii: "#"): .keyword, UInt8(ascii: "@"): .keyword]
    r.preprocessor = true
    r.capitalizedIsType = true
    return r.finished()
  }()

  static let python: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "def"),
        (.keyword, .type, "class"),
        (
          .keyword, .none,
          """
          and as assert async await break continue del elif else except finally for from global if import in is \
          lambda nonlocal not or pass raise return try while with yield match case self cls
          """
        ),
        (.constant, .none, "True False None NotImplemented Ellipsis __name__ __file__"),
        (.type, .none, "int float str bytes bool list dict set tuple object type complex frozenset bytearray"),
      ]))
    r.lineComments = [Array("#".utf8)]
    r.quotes = [
      Quote("\"\"\"", multiline: true), Quote("'''", multiline: true), Quote("\""), Quote("'"),
    ]
    r.sigils = [UInt8(ascii: "@"): .function]
    r.capitalizedIsType = true
    return r.finished()
  }()

  static let shellWords: [(SyntaxToken, KeywordTable.Follow, String)] = [
    (.keyword, .function, "function"),
    (
      .keyword, .none,
      """
      if then else elif fi for while until do done case esac in select return local export readonly declare \
      typeset unset shift exit break continue source alias eval exec set trap time let
      """
    ),
    (.constant, .none, "true false"),
  ]

  static let shell: CodeRules = {
    var r = CodeRules(words: KeywordTable(shellWords))
    shellBase(&r)
    return r.finished()
  }()

  private static func shellBase(_ r: inout CodeRules) {
    r.lineComments = [Array("#".utf8)]
    r.commentNeedsWordStart = true
    r.quotes = [
      Quote("'", escapes: false, multiline: true), Quote("\"", multiline: true), Quote("`", multiline: true),
    ]
    r.sigils = [UInt8(ascii: "$"): .constant]
    r.variableForms = true
    r.heredocs = true
    r.identifierParts = "-"
  }

  static let javascript: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "function"),
        (.keyword, .type, "class interface type enum namespace"),
        (
          .keyword, .none,
          """
          break case catch const continue debugger default delete do else export extends finally for if import in \
          instanceof let new return super switch this throw try typeof var void while with yield async await of \
          static get set from as implements package private protected public declare abstract readonly keyof \
          infer is satisfies module
          """
        ),
        (.constant, .none, "true false null undefined NaN Infinity"),
        (.type, .none, "string number boolean any unknown never object symbol bigint"),
      ]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("\""), Quote("'"), Quote("`", multiline: true)]
    r.sigils = [UInt8(ascii: "@"): .function]
    r.identifierStarts = "$"
    r.capitalizedIsType = true
    return r.finished()
  }()

  static let go: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "func"),
        (.keyword, .type, "type"),
        (
          .keyword, .none,
          """
          break case chan const continue default defer else fallthrough for go goto if import interface map \
          package range return select struct switch var
          """
        ),
        (.constant, .none, "true false nil iota"),
        (
          .type, .none,
          """
          bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 \
          uint16 uint32 uint64 uintptr any comparable
          """
        ),
      ]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("\""), Quote("'"), Quote("`", escapes: false, multiline: true)]
    return r.finished()
  }()

  static let rust: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "fn"),
        (.keyword, .type, "struct enum trait type union"),
        (
          .keyword, .none,
          """
          as async await break const continue crate dyn else extern for if impl in let loop match mod move mut \
          pub ref return static super unsafe use where while macro_rules self Self
          """
        ),
        (.constant, .none, "true false None Some Ok Err"),
        (
          .type, .none,
          "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box"
        ),
      ]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.nestedComments = true
    r.quotes = [Quote("\"", multiline: true)]
    r.charactersAndLifetimes = true
    r.macroBang = true
    r.capitalizedIsType = true
    return r.finished()
  }()

  static let java: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "fun"),
        (.keyword, .type, "class interface enum record object typealias"),
        (
          .keyword, .none,
          """
          abstract assert break case catch const continue default do else extends final finally for goto if \
          implements import instanceof native new package private protected public return static strictfp super \
          switch synchronized this throw throws transient try void volatile while var sealed permits yield val \
          companion data inline reified suspend when is in out by init lateinit internal open override operator \
          infix tailrec constructor vararg crossinline noinline expect actual annotation inner where
          """
        ),
        (.constant, .none, "true false null"),
        (.type, .none, "boolean byte char short int long float double"),
      ]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("\"\"\"", multiline: true), Quote("\""), Quote("'")]
    r.sigils = [UInt8(ascii: "@"): .keyword]
    r.capitalizedIsType = true
    return r.finished()
  }()

  static let ruby: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.keyword, .function, "def"),
        (.keyword, .type, "class module"),
        (
          .keyword, .none,
          """
          alias and begin break case defined? do else elsif end ensure for if in next not or redo rescue retry \
          return self super then undef unless until when while yield require require_relative include extend \
          attr_accessor attr_reader attr_writer private protected public raise lambda proc loop
          """
        ),
        (.constant, .none, "true false nil __FILE__ __LINE__ __dir__"),
      ]))
    r.lineComments = [Array("#".utf8)]
    r.blockOpen = Array("=begin".utf8)
    r.blockClose = Array("=end".utf8)
    r.blockCommentAtLineStart = true
    r.quotes = [Quote("\"", multiline: true), Quote("'", multiline: true), Quote("`", multiline: true)]
    r.sigils = [UInt8(ascii: "@"): .constant, UInt8(ascii: "$"): .constant, UInt8(ascii: ":"): .constant]
    r.identifierSuffixes = [UInt8(ascii: "?"), UInt8(ascii: "!")]
    r.capitalizedIsType = true
    return r.finished()
  }()

  static let json: CodeRules = {
    var r = CodeRules(words: KeywordTable([(.constant, .none, "true false null")]))
    r.lineComments = [Array("//".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("\"")]
    r.stringBeforeColonIsKey = true
    r.allCapsIsConstant = false
    r.callIsFunction = false
    return r.finished()
  }()

  static let yaml: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.constant, .none, "true false yes no on off null True False TRUE FALSE Yes No YES NO On Off ON OFF Null NULL")
      ]))
    r.lineComments = [Array("#".utf8)]
    r.commentNeedsWordStart = true
    r.quotes = [Quote("\""), Quote("'", escapes: false)]
    r.sigils = [UInt8(ascii: "&"): .type, UInt8(ascii: "*"): .type, UInt8(ascii: "!"): .type]
    r.numberParts = Array("-:".utf8)
    r.allCapsIsConstant = false
    r.callIsFunction = false
    return r.finished()
  }()

  static let toml: CodeRules = {
    var r = CodeRules(words: KeywordTable([(.constant, .none, "true false inf nan")]))
    r.lineComments = [Array("#".utf8)]
    r.quotes = [
      Quote("\"\"\"", multiline: true), Quote("'''", escapes: false, multiline: true), Quote("\""),
      Quote("'", escapes: false),
    ]
    r.numberParts = Array("-:".utf8)
    r.allCapsIsConstant = false
    r.callIsFunction = false
    return r.finished()
  }()

  static let css: CodeRules = {
    var r = CodeRules(
      words: KeywordTable([
        (.constant, .none, "inherit initial unset revert none auto transparent currentColor important"),
        (.keyword, .none, "and not only from to"),
      ]))
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("\""), Quote("'")]
    r.sigils = [UInt8(ascii: "@"): .keyword, UInt8(ascii: "#"): .constant, UInt8(ascii: "$"): .constant]
    r.identifierStarts = "-"
    r.allCapsIsConstant = false
    r.css = true
    return r.finished()
  }()

  static let sql: CodeRules = {
    var r = CodeRules(
      words: KeywordTable(
        [
          (.constant, .none, "true false null"),
          (
            .type, .none,
            """
            int integer bigint smallint tinyint serial bigserial real float double precision numeric decimal char \
            varchar text blob boolean bool date time timestamp timestamptz interval uuid json jsonb bytea
            """
          ),
          (
            .keyword, .none,
            """
            select from where and or not insert into values update set delete create table view index drop alter \
            add column primary key foreign references unique default check constraint join inner left right outer \
            full cross on using group by order having limit offset union all distinct as case when then else end is \
            in exists between like ilike begin commit rollback transaction returning with recursive grant revoke \
            database schema if replace trigger procedure function returns language declare cast asc desc natural \
            conflict do nothing pragma temporary temp explain analyze vacuum
            """
          ),
        ], caseInsensitive: true))
    r.lineComments = [Array("--".utf8)]
    r.blockOpen = Array("/*".utf8)
    r.blockClose = Array("*/".utf8)
    r.quotes = [Quote("'", escapes: false, multiline: true), Quote("\""), Quote("`")]
    r.allCapsIsConstant = false
    return r.finished()
  }()

  static let makefile: CodeRules = {
    var r = CodeRules(
      words: KeywordTable(
        shellWords + [
          (
            .keyword, .none,
            """
            include -include sinclude ifeq ifneq ifdef ifndef endif define endef unexport override vpath
            """
          )
        ]))
    shellBase(&r)
    r.commentNeedsWordStart = false
    r.heredocs = false
    r.dollarParenIsVariable = true
    r.identifierStarts = "-"
    return r.finished()
  }()

  static let dockerfile: CodeRules = {
    var r = CodeRules(words: KeywordTable(shellWords + [(.keyword, .none, "AS as")]))
    shellBase(&r)
    return r.finished()
  }()

  /// Dockerfile instructions, the first word of a line in any case.
  static let dockerInstructions = KeywordTable(
    [
      (
        .keyword, .none,
        """
        from run cmd label maintainer expose env add copy entrypoint volume user workdir arg onbuild stopsignal \
        healthcheck shell
        """
      )
    ], caseInsensitive: true)
}
