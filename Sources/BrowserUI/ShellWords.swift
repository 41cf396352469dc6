/// A command line split into words the way a POSIX shell splits them, and nothing more: blanks
/// separate words; 'single quotes' keep everything; "double quotes" keep everything but `\"`,
/// `\\`, `\$` and `` \` ``; a backslash outside quotes keeps the next character. Nothing is
/// expanded (`$HOME`, `~`, `*` stay as typed) and no shell runs the result: it is an argv.
///
/// Written here rather than taken from a library: none of the packages available splits words,
/// and a shell (`sh -c`) would expand and run what a file's name contains (docs/DECISIONS.md).
public enum ShellWords {
  /// Why a line cannot be split.
  public struct Problem: Error, Sendable, Equatable {
    public var message: String
  }

  public static func split(_ line: String) throws(Problem) -> [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character? = nil
    var chars = line.makeIterator()
    while let c = chars.next() {
      switch quote {
      case "'":
        if c == "'" { quote = nil } else { word.append(c) }
      case "\"":
        if c == "\"" {
          quote = nil
        } else if c == "\\" {
          guard let n = chars.next() else { throw Problem(message: "the line ends inside \"double quotes\"") }
          if !"\"\\$`".contains(n) { word.append("\\") }
          word.append(n)
        } else {
          word.append(c)
        }
      default:
        if c == " " || c == "\t" {
          if inWord { words.append(word) }
          word = ""
          inWord = false
        } else if c == "'" || c == "\"" {
          quote = c
          inWord = true
        } else if c == "\\" {
          guard let n = chars.next() else { throw Problem(message: "the line ends with a backslash") }
          word.append(n)
          inWord = true
        } else {
          word.append(c)
          inWord = true
        }
      }
    }
    if let quote { throw Problem(message: "a \(quote == "'" ? "'single" : "\"double") quote is not closed") }
    if inWord { words.append(word) }
    return words
  }
}
